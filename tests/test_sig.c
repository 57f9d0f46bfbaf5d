/* The signature reader: whitespace, comments, __half, qualifiers, extern "C" forms. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "sig.h"

static sig_info read_src(const char *src)
{
    sig_info s;
    sig_read(src, strlen(src), &s);
    return s;
}

static const char *const fp16_types[] = {"const half*", "const half*", "half*", "int",
                                         "int",         "int",         "float", "float"};

Test(sig, site_starter)
{
    sig_info s = read_src(pb_find("gemm_fp16")->starter);
    cr_assert(s.found);
    cr_expect(s.extern_c);
    cr_expect_eq(s.n_params, 8);
    cr_expect_eq(sig_compare(&s, fp16_types, 8), SIG_MATCH);
    cr_expect_str_eq(s.text, "void solve(const half*, const half*, half*, int, int, int, float, float)");
}

Test(sig, whitespace_comments_half_and_qualifiers)
{
    sig_info s = read_src("// extern \"C\" void solve(float* x);\n"
                          "/* void solve(int) */\n"
                          "#define solve(x) nothing\n"
                          "extern   \"C\"\nvoid\nsolve ( const __half *__restrict__ A,\n"
                          "  half const* B, /* out */ __half *C,\n const int M, int N,int K,\n"
                          "  float alpha , float beta ) { }\n");
    cr_assert(s.found);
    cr_expect(s.extern_c);
    cr_expect_eq(s.line, 6);
    cr_expect_eq(sig_compare(&s, fp16_types, 8), SIG_MATCH, "got %s", s.text);
}

Test(sig, extern_c_block_and_namespaces)
{
    sig_info s = read_src("namespace { struct T { int x; }; }\n"
                          "__global__ void k(half *p) { if (1) { p[0] = 0; } }\n"
                          "extern \"C\" {\nvoid solve(const half* A, const half* B, half* C, int M, "
                          "int N, int K, float alpha, float beta) { k<<<1,1>>>(C); }\n}\n");
    cr_assert(s.found);
    cr_expect(s.extern_c);
    cr_expect_eq(sig_compare(&s, fp16_types, 8), SIG_MATCH, "got %s", s.text);
}

Test(sig, missing_extern_c)
{
    sig_info s = read_src("void solve(const half* A, const half* B, half* C, int M, int N, int K, "
                          "float alpha, float beta) {}");
    cr_assert(s.found);
    cr_expect(!s.extern_c);
}

Test(sig, calls_inside_bodies_are_not_declarations)
{
    sig_info s = read_src("static void helper() { solve(0); }\n"
                          "extern \"C\" void solve(const float* A, const float* B, float* C, int M, "
                          "int N, int K) {}\n");
    cr_assert(s.found);
    cr_expect_eq(s.line, 2);
    cr_expect_eq(s.n_params, 6);
}

Test(sig, mismatches_and_const_only_differences)
{
    sig_info s = read_src("extern \"C\" void solve(const float* A, const float* B, float* C, int M, "
                          "int N, int K, float alpha, float beta) {}");
    cr_expect_eq(sig_compare(&s, fp16_types, 8), SIG_MISMATCH);
    sig_info t = read_src("extern \"C\" void solve(half* A, half* B, half* C, int M, int N, int K, "
                          "float alpha, float beta) {}");
    cr_expect_eq(sig_compare(&t, fp16_types, 8), SIG_MATCH_CONST);
    sig_info u = read_src("extern \"C\" void solve(const half* A, const half* B, half* C, int M, "
                          "int N, int K, float alpha) {}");
    cr_expect_eq(sig_compare(&u, fp16_types, 8), SIG_MISMATCH);
    sig_info none = read_src("extern \"C\" void resolve(int x) {}");
    cr_expect(!none.found);
}

Test(sig, format)
{
    char buf[256];
    sig_format(fp16_types, 8, buf, sizeof(buf));
    cr_expect_str_eq(buf, "void solve(const half*, const half*, half*, int, int, int, float, float)");
}

/* A long stage (50 KB of inline-asm operand lists) once hid its solve past a fixed token cap. */
Test(sig, found_after_many_tokens)
{
    const char *tail = "extern \"C\" void solve(const half* A, const half* B, half* C, int M, "
                       "int N, int K, float alpha, float beta) { }\n";
    size_t reps = 40000, unit = strlen("int a%d, b, c, d;\n") + 8;
    char *src = malloc(reps * unit + strlen(tail) + 1);
    cr_assert_not_null(src);
    size_t u = 0;
    for (size_t i = 0; i < reps; i++) u += (size_t)sprintf(src + u, "int a%zu, b, c, d;\n", i);
    strcpy(src + u, tail);
    sig_info s = read_src(src);
    free(src);
    cr_assert(s.found, "solve after %zu tokens was not found", reps * 9);
    cr_expect_eq(s.line, (int)reps + 1);
    cr_expect_eq(sig_compare(&s, fp16_types, 8), SIG_MATCH, "got %s", s.text);
}
