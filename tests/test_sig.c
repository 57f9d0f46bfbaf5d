/* The signature reader: whitespace, comments, __half, qualifiers, extern "C" forms (the
 * tokenizer, src/sig.c, now a first guess); then the judge's reader, the compiler's answer
 * (src/sigcheck.c: nvcc is on CI; no GPU needed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "problem.h"
#include "sig.h"
#include "sigcheck.h"
#include "util.h"

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

/* ---- the compiler's answer ---- */

static sc_answer ask_in(const char *cache, const char *path)
{
    mkdir(SCRATCH, 0755);
    ld_options o = {.cache_dir = cache};
    sc_answer a;
    ld_status st = sc_check(&o, path, &a);
    cr_assert_eq(st, LD_OK, "%s: %s", path, a.error);
    cr_assert(a.answered, "%s: %s", path, a.error);
    return a;
}

static sc_answer ask(const char *path) { return ask_in(SCRATCH "/sigcache", path); }

static void expect_problem(const char *fixture, const char *problem)
{
    sc_answer a = ask(fixture);
    cr_expect(a.extern_c, "%s: extern \"C\" solve found", fixture);
    cr_expect(a.exact && strcmp(a.exact->name, problem) == 0, "%s: %s, got %s (%s)", fixture,
              problem, a.exact ? a.exact->name : "none", a.text);
    cr_expect_null(a.consts, "%s: no const variant", fixture);
}

Test(sig_compiler, typedef_and_using_alias, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_typedef_half.cu", "gemm_fp16");
}

Test(sig_compiler, array_parameters, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_array_params.cu", "gemm_fp16");
}

Test(sig_compiler, parameters_through_a_macro, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_macro_args.cu", "gemm_fp16");
}

Test(sig_compiler, int8_spellings, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_int8_spellings.cu", "int8_matmul");
}

Test(sig_compiler, template_solve_declared_first, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_template_first.cu", "sgemm");
}

/* the tokenizer took the first file-scope solve( and judged a fp16 file as matmul_fp32 */
Test(sig_compiler, namespace_helper_first, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_namespace_helper.cu", "gemm_fp16");
    sc_answer a = ask(FIXTURES "/sig_namespace_helper.cu");
    cr_expect(strstr(a.where, "sig_namespace_helper.cu:26"), "the extern \"C\" one's line: %s", a.where);
}

/* the tokenizer lost track inside the raw string and judged a matmul_fp32 file as gemm_fp16 */
Test(sig_compiler, raw_string_first, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_raw_string.cu", "matmul_fp32");
}

Test(sig_compiler, const_dropped_is_a_const_variant, .timeout = 120)
{
    sc_answer a = ask(FIXTURES "/sig_const_dropped.cu");
    cr_expect_null(a.exact);
    cr_expect(a.consts && strcmp(a.consts->name, "gemm_fp16") == 0, "got %s",
              a.consts ? a.consts->name : "none");
}

Test(sig_compiler, every_starter_its_own_problem, .timeout = 300)
{
    char cache[256], path[256];
    snprintf(cache, sizeof(cache), "%s/sigstarters", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(cache, 0755);
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        snprintf(path, sizeof(path), "%s/starter_%s.cu", cache, p->name);
        cr_assert(tu_write(path, p->starter));
        sc_answer a = ask_in(cache, path);
        cr_expect(a.exact == p, "%s's starter: got %s", p->name, a.exact ? a.exact->name : "none");
    }
}

Test(sig_compiler, mismatch_names_the_declared_type, .timeout = 120)
{
    sc_answer a = ask(FIXTURES "/wrong_signature.cu");
    cr_expect(a.extern_c);
    cr_expect_null(a.exact);
    cr_expect_null(a.consts);
    cr_expect_str_eq(a.text, "void solve(const half*, const half*, half*, int, int, int, float)");
}

Test(sig_compiler, cxx_linkage_and_no_solve, .timeout = 120)
{
    sc_answer a = ask(FIXTURES "/no_extern_c.cu");
    cr_expect(a.declared && !a.extern_c);
    cr_expect(strstr(a.text, "const half*"), "%s", a.text);
    char path[256];
    snprintf(path, sizeof(path), "%s/sig_none.cu", SCRATCH);
    mkdir(SCRATCH, 0755);
    cr_assert(tu_write(path, "static int resolve(int x) { return x; }\n"));
    sc_answer b = ask(path);
    cr_expect(!b.declared && !b.extern_c);
}

/* the answer is cached like an object: no nvcc the second time; a header edit asks again */
Test(sig_compiler, cached_and_invalidated_by_a_header, .timeout = 180)
{
    char dir[256], cu[300], h[300];
    snprintf(dir, sizeof(dir), "%s/sighdr", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(dir, 0755);
    snprintf(cu, sizeof(cu), "%s/uses_header.cu", dir);
    snprintf(h, sizeof(h), "%s/elem.h", dir);
    /* a header no earlier run of this test wrote, so nothing is cached for it yet */
    char first[128], second[128];
    snprintf(first, sizeof(first), "typedef float elem; /* %d %ld */\n", (int)getpid(), (long)time(NULL));
    snprintf(second, sizeof(second), "typedef int elem; /* %d %ld */\n", (int)getpid(), (long)time(NULL));
    cr_assert(tu_write(h, first));
    cr_assert(tu_write(cu, "#include \"elem.h\"\nextern \"C\" void solve(const elem* A, const elem* B, "
                           "elem* C, int M, int N, int K) {}\n"));
    sc_answer a = ask_in(dir, cu);
    cr_expect(!a.cached, "a new header: asked");
    cr_expect(a.exact && strcmp(a.exact->name, "matmul_fp32") == 0);
    sc_answer b = ask_in(dir, cu);
    cr_expect(b.cached, "the second ask is cached");
    cr_expect_eq(b.seconds, 0.0);
    cr_expect(b.exact == a.exact);
    cr_assert(tu_write(h, second));
    sc_answer c = ask_in(dir, cu);
    cr_expect(!c.cached, "an edited header is noticed");
    cr_expect(c.extern_c && !c.exact, "int* is no problem's: got %s", c.exact ? c.exact->name : "none");
}

/* an extern "C" solve inside a namespace is the C symbol too; a global redeclaration of another
 * type only warns there, so the check asks again in that namespace */
Test(sig_compiler, extern_c_inside_a_namespace, .timeout = 120)
{
    expect_problem(FIXTURES "/sig_namespace_extern_c.cu", "matmul_fp32");
}

/* the solution's own diagnostics, placed by #line where the probe's would be, cannot answer */
Test(sig_compiler, forged_probe_lines_are_the_solutions_own, .timeout = 120)
{
    mkdir(SCRATCH, 0755);
    ld_options o = {.cache_dir = SCRATCH "/sigcache"};
    sc_answer a;
    cr_assert_eq(sc_check(&o, FIXTURES "/sig_forged_probe.cu", &a), LD_OK, "%s", a.error);
    cr_expect(!a.answered, "a forged line is a compile error of the check, not an answer");
    char *log = tu_slurp(a.log_path);
    cr_assert_not_null(log);
    cr_expect(strstr(log, "hx-probe(5): error") && strstr(log, "forged"),
              "the forged line did fire: %s", log);
    free(log);
}
