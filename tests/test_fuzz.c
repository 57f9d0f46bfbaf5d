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
    "--json=1", "-qz", "-pgemm_fp16", "--size=16x16x16", "--tests=", "--gpu=all"};

static const char *const fz_values[] = {
    "gemm_fp16", "int4_matmul", "nope", "", ",", "judge", "all,extra", "example,,perf", "16x16x16",
    "0x0x0", "-1x5x5", "2147483648x1x1", "99999999999999999999", "1x2x3x4x5", "64,4096", "1e3",
    "nan", "inf", "-inf", "0.5", "3", "1000", "1001", "0x10", "sm_90a", "sm_999", "sm_80f",
    "compute_90", "T4", "h100", "all", "a.cu", "b.cu", "x", "--json", "\n", "1e308", "-0",
    "18446744073709551615", "18446744073709551616", " 5", "5 "};

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
        cr_assert(o->size && pb_scan_sizes(o->size, true, v, &n) != PB_SCAN_SYNTAX);
    }
    if (o->shapes) cr_assert(o->sweep);
    if (o->sweep) cr_assert(!o->custom && o->timing && !a->inspect.modes);
    if (o->gpu) cr_assert(gp_find(o->gpu) && !o->arch);
    if (o->arch) cr_assert(ld_arch_valid(o->arch), "%s", o->arch);
    if (a->gpu_all) cr_assert(!o->gpu && !a->inspect.modes);
    if (a->inspect.modes) cr_assert(!a->json);
}

Test(fuzz, option_parser, .timeout = 300)
{
    fz_rng r = {0x5eed0fc11ull};
    static char store[12][48];
    int passed = 0, refused = 0;
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
        }
    }
    /* the inputs reach both sides: a generator that only made errors would prove nothing */
    cr_expect(passed > 200 && refused > 2000, "%d parsed, %d refused", passed, refused);
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
