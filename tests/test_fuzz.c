/* The parsers under random input, in-process and seeded (the same inputs every run, bounded
 * time): the option parser (cli.c), the size and shape scanners, numbers and extent expressions.
 * Each either refuses or gives a value inside its bounds; none crashes. Built with the rest and,
 * by `make test-asan`, under AddressSanitizer and UndefinedBehaviorSanitizer, where an overflow
 * or a stray read is an error too. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpus.h"
#include "problem.h"

typedef struct { uint64_t s; } fz_rng;

static uint64_t fz_next(fz_rng *r) /* xorshift64*: deterministic, no library state */
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static size_t fz_below(fz_rng *r, size_t n) { return n ? (size_t)(fz_next(r) % n) : 0; }

/* A random string over an alphabet, up to max characters (out holds max + 1). */
static void fz_text(fz_rng *r, const char *alphabet, size_t max, char *out)
{
    size_t n = fz_below(r, max + 1), k = strlen(alphabet);
    for (size_t i = 0; i < n; i++) out[i] = alphabet[fz_below(r, k)];
    out[n] = '\0';
}

static const char *const fz_words[] = {
    "--problem", "-p", "--tests", "-t", "--judge-only", "--perf-only", "--size", "-s", "--alpha",
    "--beta", "--seed", "--baseline", "--flush-l2", "--no-timing", "--min-runs", "--max-time",
    "--timeout", "--arch", "--nvcc-flags", "--rebuild", "--json", "--quiet", "-q",
    "--no-constraints", "--resources", "--ptx", "--sass", "--sanitize", "--sanitize=memcheck",
    "--sanitize=bogus", "--profile", "--sweep", "--shapes", "--vs", "--gpu", "--", "-", "--no",
    "--json=1", "-qz", "-pgemm_fp16", "--size=16x16x16", "--tests=", "--gpu=all", "--js",
    "--jso", "--j", "--nv", "--min-r", "-qt", "-tq", "--nvcc-flags=-DX=1"};

static const char *const fz_values[] = {
    "gemm_fp16", "int4_matmul", "nope", "", ",", "judge", "all,extra", "example,,perf", "16x16x16",
    "0x0x0", "-1x5x5", "2147483648x1x1", "99999999999999999999", "1x2x3x4x5", "64,4096", "1e3",
    "nan", "inf", "-inf", "0.5", "3", "1000", "1001", "0x10", "sm_90a", "sm_999", "sm_80f",
    "compute_90", "T4", "h100", "all", "a.cu", "b.cu", "x", "--json", "\n", "1e308", "-0",
    "18446744073709551615", "18446744073709551616", " 5", "5 ", "-Xptxas -v", "-DX=$(id)",
    "-DA=1;id", "perf", "--js"};

/* A value: a known one, a mutation of one, or noise. */
static void fz_value(fz_rng *r, char *out, size_t cap)
{
    size_t n = sizeof(fz_values) / sizeof(fz_values[0]);
    snprintf(out, cap, "%s", fz_values[fz_below(r, n)]);
    switch (fz_below(r, 4)) {
    case 0: break;
    case 1: { /* flip, insert or cut a character */
        size_t len = strlen(out), at = fz_below(r, len + 1);
        const char *alpha = "0123456789xX,-+.e sa_";
        if (len + 2 < cap) {
            memmove(out + at + 1, out + at, len - at + 1);
            out[at] = alpha[fz_below(r, strlen(alpha))];
        }
        if (fz_below(r, 2) && len) out[fz_below(r, len)] = '\0';
        break;
    }
    case 2: fz_text(r, "0123456789xX,", cap > 24 ? 24 : cap - 1, out); break;
    default: fz_text(r, "abcdefghijklmnopqrstuvwxyz0123456789-=,._x ", cap > 12 ? 12 : cap - 1, out);
    }
}

/* What a successful parse must hold. */
static void fz_check_ok(const cl_args *a, char *const *argv, int argc)
{
    const jd_options *o = &a->o;
    if (a->help || a->version) return;
    cr_assert(o->solution && *o->solution, "no solution but success (argc %d, %s)", argc, argv[1]);
    bool any = false;
    for (int s = 0; s < PB_N_SETS; s++) any |= o->sets[s];
    cr_assert(any, "no test set selected");
    cr_assert(o->topts.min_runs >= 3 && o->topts.min_runs <= 1000);
    cr_assert(o->topts.max_time_s >= 0.01 && o->topts.max_time_s <= 600);
    cr_assert(o->timeout_s >= 0.1 && o->timeout_s <= 3600);
    cr_assert(isfinite(o->alpha) && fabsf(o->alpha) <= 1e6f && isfinite(o->beta) &&
              fabsf(o->beta) <= 1e6f);
    if (o->problem) cr_assert_not_null(pb_find(o->problem));
    if (o->custom) {
        int v[PB_MAX_SIZES], n;
        cr_assert(o->size && pb_scan_sizes(o->size, false, v, &n) != PB_SCAN_SYNTAX);
    }
    if (o->shapes) cr_assert(o->sweep);
    if (o->sweep) cr_assert(!o->custom && o->timing && !a->inspect.modes);
    if (o->gpu) cr_assert(gp_find(o->gpu) && !o->arch);
    if (o->arch) cr_assert(ld_arch_valid(o->arch), "%s", o->arch);
    if (a->gpu_all) cr_assert(!o->gpu && !a->inspect.modes);
    unsigned dyn = a->inspect.modes & (IN_SANITIZE | IN_PROFILE);
    if (dyn) cr_assert(a->inspect.modes == dyn && dyn != (IN_SANITIZE | IN_PROFILE));
    if (a->inspect.modes) cr_assert(a->inspect.json == a->json, "every mode's JSON follows --json");
    if (o->custom) { /* --size's one case is a performance case: perf alone, or every set */
        bool all = true;
        for (int s = 0; s < PB_N_SETS; s++) all = all && o->sets[s];
        cr_assert(all || (o->sets[PB_SET_PERFORMANCE] && !o->sets[PB_SET_EXAMPLE] &&
                          !o->sets[PB_SET_FUNCTIONAL] && !o->sets[PB_SET_EXTRA]));
    }
    if (o->nvcc_flags) { /* nothing a shell would read, and few enough words to all reach nvcc */
        size_t words = 0;
        for (const char *q = o->nvcc_flags; *q; q++) {
            cr_assert(*q == ' ' || (*q > 0 && strchr("-_=.,/:+@%", *q)) ||
                          ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z') || (*q >= '0' && *q <= '9'),
                      "'%s'", o->nvcc_flags);
            words += *q != ' ' && (q == o->nvcc_flags || q[-1] == ' ');
        }
        cr_assert(words <= CL_MAX_NVCC_FLAGS);
    }
}

/* cl_parse's first look for --json (taken when the parse fails before reaching it) against
 * getopt's own reading (what a successful parse reports): the same line, with a failing
 * option put first so that only the first look can answer. */
static void fz_check_json_look(const cl_args *a, char *const *argv, int argc)
{
    char *failing[16] = {"harness", "--min-runs", "0"};
    for (int i = 1; i < argc; i++) failing[i + 2] = argv[i];
    failing[argc + 2] = NULL;
    cl_args b;
    cr_assert_eq(cl_parse(argc + 2, failing, &b), HX_USAGE);
    cr_assert(strstr(b.error, "--min-runs"), "%s", b.error);
    cr_assert_eq(b.json, a->json, "the first look says %d, getopt %d (argc %d, %s %s %s)", b.json,
                 a->json, argc, argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "",
                 argc > 3 ? argv[3] : "");
}

Test(fuzz, option_parser, .timeout = 300)
{
    fz_rng r = {0x5eed0fc11ull};
    static char store[12][48];
    int passed = 0, refused = 0, json = 0;
    for (int iter = 0; iter < 20000; iter++) {
        char *argv[13] = {"harness"};
        int argc = 1 + (int)fz_below(&r, 11);
        for (int i = 1; i < argc; i++) {
            if (fz_below(&r, 2)) { /* an option word, or a value (a file name, a size...) */
                snprintf(store[i], sizeof(store[i]), "%s",
                         fz_words[fz_below(&r, sizeof(fz_words) / sizeof(fz_words[0]))]);
            } else {
                fz_value(&r, store[i], sizeof(store[i]));
            }
            argv[i] = store[i];
        }
        argv[argc] = NULL;
        cl_args a;
        int rc = cl_parse(argc, argv, &a);
        cr_assert(rc == HX_SUCCESS || rc == HX_USAGE, "exit %d", rc);
        if (rc == HX_USAGE) {
            size_t n = strlen(a.error);
            cr_assert(n > 0 && n < sizeof(a.error) - 1 && !strchr(a.error, '\n'), "'%s'", a.error);
            refused++;
        } else {
            cr_assert_eq(a.error[0], '\0');
            fz_check_ok(&a, argv, argc);
            passed += !a.help && !a.version;
            json += a.json;
            if (!a.help && !a.version) fz_check_json_look(&a, argv, argc);
        }
    }
    /* the inputs reach both sides: a generator that only made errors would prove nothing */
    cr_expect(passed > 200 && refused > 2000 && json > 10, "%d parsed (%d with --json), %d refused",
              passed, json, refused);
}

/* OK values are 1..INT_MAX and survive a round trip through their text; RANGE is well formed. */
Test(fuzz, size_and_shape_scanners, .timeout = 300)
{
    fz_rng r = {0x512e5ull};
    char text[64], again[96];
    pb_size *sh = calloc(PB_MAX_SHAPES, sizeof(*sh));
    cr_assert_not_null(sh);
    for (int iter = 0; iter < 200000; iter++) {
        if (fz_below(&r, 3)) fz_text(&r, "0123456789xX,-+", 40, text);
        else fz_value(&r, text, sizeof(text));
        int v[PB_MAX_SIZES], n = -1;
        bool commas = fz_below(&r, 2);
        pb_scan sc = pb_scan_sizes(text, commas, v, &n);
        cr_assert(sc == PB_SCAN_OK || sc == PB_SCAN_RANGE || sc == PB_SCAN_SYNTAX);
        if (sc != PB_SCAN_SYNTAX) {
            cr_assert(n >= 1 && n <= PB_MAX_SIZES, "'%s': %d sizes", text, n);
            for (int i = 0; i < n; i++)
                cr_assert(v[i] >= (sc == PB_SCAN_OK ? 1 : 0) && v[i] <= PB_SIZE_MAX, "'%s'", text);
        }
        if (sc == PB_SCAN_OK) {
            size_t u = 0;
            for (int i = 0; i < n; i++) u += (size_t)snprintf(again + u, sizeof(again) - u, "%s%d", i ? "x" : "", v[i]);
            int w[PB_MAX_SIZES], m;
            cr_assert_eq(pb_scan_sizes(again, false, w, &m), PB_SCAN_OK, "'%s' -> '%s'", text, again);
            cr_assert(m == n && memcmp(v, w, (size_t)n * sizeof(int)) == 0, "'%s'", text);
        }
        int want = 1 + (int)fz_below(&r, PB_MAX_SIZES);
        size_t max = 1 + fz_below(&r, PB_MAX_SHAPES), count = 999;
        sc = pb_scan_size_list(want, text, sh, max, &count);
        if (sc != PB_SCAN_SYNTAX) {
            cr_assert(count >= 1 && count <= max, "'%s': %zu shapes", text, count);
            for (size_t i = 0; i < count; i++)
                for (int k = 0; k < want; k++)
                    cr_assert(sh[i].v[k] >= (sc == PB_SCAN_OK ? 1 : 0) && sh[i].v[k] <= PB_SIZE_MAX);
        }
    }
    free(sh);
}

/* Numbers inside their bounds or refused; extents over random values never overflow silently
 * (UBSan would flag the arithmetic) and are exact where they succeed. */
Test(fuzz, numbers_and_extents, .timeout = 300)
{
    fz_rng r = {0xe7e47ull};
    char text[64];
    for (int iter = 0; iter < 100000; iter++) {
        fz_value(&r, text, sizeof(text));
        double lo = -1e6 + (double)fz_below(&r, 2000000), hi = lo + (double)fz_below(&r, 1000000), d;
        if (jd_parse_number(text, lo, hi, &d)) cr_assert(d >= lo && d <= hi, "'%s'", text);
    }
    const char *exprs[] = {"2*BATCH*M*N*K", "BATCH*M", "K/group_size", "N*K/2", "M*N", "K/0",
                           "M/N/K", "2*M*N*K"};
    for (int iter = 0; iter < 100000; iter++) {
        const pb_problem *p = pb_at(fz_below(&r, pb_count()));
        double v[PB_MAX_SCALARS];
        for (int i = 0; i < PB_MAX_SCALARS; i++) {
            uint64_t k = fz_next(&r);
            v[i] = k % 4 == 0 ? (double)(k >> 33) : k % 4 == 1 ? (double)(k % 5) - 1
                 : k % 4 == 2 ? 2147483647.0 : (double)(int64_t)k;
        }
        long long out = -7;
        const char *e = exprs[fz_below(&r, sizeof(exprs) / sizeof(exprs[0]))];
        bool ok = pb_eval(p, e, v, &out);
        if (!ok) cr_assert_eq(out, -7, "%s: a failed evaluation wrote its result", e);
        long long rows, cols;
        for (int b = 0; b < pb_n_bufs(p); b++) {
            pb_buf_dims(p, b, v, &rows, &cols);
            cr_assert(rows >= 0 && cols >= 0);
        }
    }
}

static int fz_parse(cl_args *a, const char *const *words)
{
    char *argv[24] = {"harness"};
    int argc = 1;
    while (words[argc - 1]) {
        argv[argc] = (char *)words[argc - 1];
        argc++;
    }
    argv[argc] = NULL;
    return cl_parse(argc, argv, a);
}

#define FZ_PARSE(a, ...) fz_parse(a, (const char *const[]){__VA_ARGS__, NULL})

/* --json is an option wherever getopt_long reads one, abbreviated or not, and never another
 * option's value, nor after "--": also when an error comes first. */
Test(fuzz, json_is_an_option_not_a_value)
{
    cl_args a;
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--js", "ok.cu"), HX_USAGE);
    cr_expect(a.json, "--js after the error");
    cr_expect_eq(FZ_PARSE(&a, "--js", "--min-runs", "0", "ok.cu"), HX_USAGE);
    cr_expect(a.json, "--js before the error");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--jso", "ok.cu"), HX_USAGE);
    cr_expect(a.json);
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--sweep", "random:4", "--json", "ok.cu"), HX_USAGE);
    cr_expect(a.json, "the optional value after a space skipped, not --json");
    cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags", "--json", "ok.cu"), HX_SUCCESS, "%s", a.error);
    cr_expect(!a.json, "--json as --nvcc-flags's value");
    cr_expect_str_eq(a.o.nvcc_flags, "--json");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--nvcc-flags", "--json", "ok.cu"), HX_USAGE);
    cr_expect(!a.json, "--json as a value, after an error");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "-t", "--json", "ok.cu"), HX_USAGE);
    cr_expect(!a.json, "--json as -t's value");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "-qs", "--json", "ok.cu"), HX_USAGE);
    cr_expect(!a.json, "--json as -s's value in a cluster");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "-qsx", "--json", "ok.cu"), HX_USAGE);
    cr_expect(a.json, "-qsx holds -s's value: --json is an option");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--", "--json"), HX_USAGE);
    cr_expect(!a.json, "after --, an operand");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--json=1", "ok.cu"), HX_USAGE);
    cr_expect(!a.json, "--json=1 is an error, not JSON");
    cr_expect_eq(FZ_PARSE(&a, "--min-runs", "0", "--j", "ok.cu"), HX_USAGE);
    cr_expect(!a.json, "--j is ambiguous (--judge-only)");
}

/* --nvcc-flags: the flags real builds use pass; anything a shell would read, and more words
 * than the builds' command lines hold, is a usage error naming the character. */
Test(fuzz, nvcc_flags_reach_no_shell)
{
    cl_args a;
    const char *good[] = {"-DX=1 -Xptxas -v -maxrregcount=64 --use_fast_math -lineinfo",
                          "-I/usr/include/x -std=c++17 --ptxas-options=-v",
                          "-Xcompiler -Wall,-Wextra --generate-line-info -DV=1.5e+3 -DP=a@b%c:d",
                          "", "  -DX=1  "};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags", good[i], "ok.cu"), HX_SUCCESS, "'%s': %s",
                     good[i], a.error);
        cr_expect_str_eq(a.o.nvcc_flags ? a.o.nvcc_flags : "(null)", good[i]);
    }
    const char *bad = "$`;|&<>()'\"\\*?[]{}~!#\n\t\x80\xc3";
    for (const char *c = bad; *c; c++) {
        char flags[32];
        snprintf(flags, sizeof(flags), "-DX=1%cy", *c);
        cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags", flags, "ok.cu"), HX_USAGE, "0x%02x accepted",
                     (unsigned char)*c);
        cr_expect(strstr(a.error, "--nvcc-flags") && strstr(a.error, "character 6") &&
                      !strchr(a.error, '\n'), "0x%02x: %s", (unsigned char)*c, a.error);
        if (*c > ' ' && *c < 0x7f) {
            char named[4] = {'\'', *c, '\'', '\0'};
            cr_expect(strstr(a.error, named), "names %s: %s", named, a.error);
        }
    }
    cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags=-DX=$(touch${IFS}/tmp/x)", "ok.cu"), HX_USAGE);
    char many[CL_MAX_NVCC_FLAGS * 8 + 16] = "";
    for (int i = 0; i < CL_MAX_NVCC_FLAGS; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s-DA%d", i ? " " : "", i);
    cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags", many, "ok.cu"), HX_SUCCESS, "%s", a.error);
    strcat(many, "  -DZ ");
    cr_expect_eq(FZ_PARSE(&a, "--nvcc-flags", many, "ok.cu"), HX_USAGE);
    cr_expect(strstr(a.error, "65 flags, at most 64"), "%s", a.error);
}

/* --size runs one case, the performance recipe: a --tests choice of other sets is refused, not
 * ignored; perf alone or all (the default) goes with it. */
Test(fuzz, tests_with_size)
{
    cl_args a;
    const char *refused[][2] = {{"--tests", "example"}, {"-t", "functional,perf"},
                                {"--tests", "extra"},   {"--tests", "judge"},
                                {"--judge-only", NULL}};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        int rc = refused[i][1] ? FZ_PARSE(&a, "--size", "32x32x32", refused[i][0], refused[i][1], "ok.cu")
                               : FZ_PARSE(&a, "--size", "32x32x32", refused[i][0], "ok.cu");
        cr_expect_eq(rc, HX_USAGE, "%s %s", refused[i][0], refused[i][1] ? refused[i][1] : "");
        cr_expect(strstr(a.error, "--tests does not apply with --size"), "%s", a.error);
    }
    const char *taken[][2] = {{"--tests", "perf"}, {"--tests", "all"}, {"-t", "performance"},
                              {"--perf-only", NULL}, {"--tests", "all,perf"}};
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
        int rc = taken[i][1] ? FZ_PARSE(&a, "-s", "32x32x32", taken[i][0], taken[i][1], "ok.cu")
                             : FZ_PARSE(&a, "-s", "32x32x32", taken[i][0], "ok.cu");
        cr_expect_eq(rc, HX_SUCCESS, "%s %s: %s", taken[i][0], taken[i][1] ? taken[i][1] : "", a.error);
    }
    cr_expect_eq(FZ_PARSE(&a, "--tests", "example", "ok.cu"), HX_SUCCESS, "without --size: %s", a.error);
    cr_expect_eq(FZ_PARSE(&a, "--size", "32x32x32", "ok.cu"), HX_SUCCESS, "%s", a.error);
}

/* The numbers every command shares (cli.h): decimal text only, nothing strtod would also take. */
Test(fuzz, strict_numbers)
{
    double d;
    uint64_t u;
    const char *refused[] = {"0x10", "0X1p3", " 10", "10 ", "\t1", "inf", "-inf", "nan", "infinity",
                             "1e", "1e+", ".", "-", "+", "", "1..2", "1e1.5", "1,5", "--1"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        cr_expect_not(cl_parse_decimal(refused[i], -1e9, 1e9, &d), "'%s' taken", refused[i]);
    const struct { const char *text; double v; } taken[] = {
        {"10", 10},  {"1e1", 10}, {"1E+1", 10}, {"100e-1", 10},    {"10.", 10},
        {".5e1", 5}, {"+10", 10}, {"-0", 0},    {"0010.000", 10}, {"-2.5", -2.5}};
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
        cr_expect(cl_parse_decimal(taken[i].text, -10, 10, &d), "'%s' refused", taken[i].text);
        cr_expect(fabs(d - taken[i].v) < 1e-12, "'%s': %g", taken[i].text, d);
    }
    cr_expect_not(cl_parse_decimal("600.001", 0.01, 600, &d));
    const char *not_whole[] = {"0x10", "1e1", " 10", "+10", "-1", "10.0", "", "18446744073709551616"};
    for (size_t i = 0; i < sizeof(not_whole) / sizeof(not_whole[0]); i++)
        cr_expect_not(cl_parse_uint(not_whole[i], 0, UINT64_MAX, &u), "'%s' taken", not_whole[i]);
    cr_expect(cl_parse_uint("18446744073709551615", 0, UINT64_MAX, &u) && u == UINT64_MAX);
    cl_args a;
    const char *opts[] = {"--max-time", "--timeout", "--alpha", "--min-runs"};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        cr_expect_eq(FZ_PARSE(&a, opts[i], "0x10", "ok.cu"), HX_USAGE, "%s 0x10", opts[i]);
        cr_expect_eq(FZ_PARSE(&a, opts[i], " 10", "ok.cu"), HX_USAGE, "%s ' 10'", opts[i]);
    }
    cr_expect_eq(FZ_PARSE(&a, "--max-time", "1e1", "--timeout", "2.5E+1", "ok.cu"), HX_SUCCESS, "%s", a.error);
    cr_expect(a.o.topts.max_time_s == 10 && a.o.timeout_s == 25);
}
