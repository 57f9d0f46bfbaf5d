/* --sweep and --shapes, and the leaderboard's shapes section: the problems' sweep lists, the
 * list parser, every bad input's exit code, the printers and the section on synthetic runs, and
 * that the shapes section's splice keeps every other section byte for byte. No GPU needed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "judge.h"
#include "lb_random.h"
#include "leaderboard.h"
#include "report.h"
#include "util.h"

static char out[1 << 16];

#define RUN(...) tu_run_harness(out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})
#define CORRECT FIXTURES "/correct.cu"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + strlen(needle), needle)) n++;
    return n;
}

/* --- the sweep lists ------------------------------------------------------------------------ */

Test(sweep_list, gemm_fp16_has_the_required_shapes_in_order)
{
    const pb_problem *p = pb_find("gemm_fp16");
    static const int want[][3] = {
        {4095, 4095, 4095}, {4096, 4096, 4095}, {4096, 4095, 4096}, {4095, 4096, 4096},
        {4096, 4096, 4096}, {2048, 2048, 2048}, {1024, 1024, 1024}, {1000, 1000, 1000},
        {3000, 2000, 1000}, {17, 4096, 4096},   {4096, 17, 4096},   {4096, 4096, 17},
        {31, 47, 4096},     {64, 64, 4096},     {4096, 16, 64},     {512, 512, 512},
        {256, 256, 256}};
    size_t nw = sizeof(want) / sizeof(want[0]);
    cr_assert_eq(pb_n_sizes(p), 3); /* the sizes are M, N, K, in that order */
    for (int j = 0; j < 3; j++) cr_assert_eq(pb_size_scalar(p, j), j);
    cr_assert_str_eq(pb_scalar(p, 0)->name, "M");
    cr_assert_str_eq(pb_scalar(p, 1)->name, "N");
    cr_assert_str_eq(pb_scalar(p, 2)->name, "K");
    cr_assert_geq(p->n_sweep, nw);
    for (size_t i = 0; i < nw; i++)
        cr_expect(p->sweep[i].v[0] == want[i][0] && p->sweep[i].v[1] == want[i][1] &&
                      p->sweep[i].v[2] == want[i][2],
                  "shape %zu is %dx%dx%d, want %dx%dx%d", i, p->sweep[i].v[0], p->sweep[i].v[1],
                  p->sweep[i].v[2], want[i][0], want[i][1], want[i][2]);
}

Test(sweep_list, every_problem_sweeps_inside_its_constraints)
{
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        cr_expect_gt(p->n_sweep, 0, "%s has no sweep", p->name);
        cr_expect_leq(p->n_sweep, PB_MAX_SHAPES, "%s", p->name);
        for (size_t s = 0; s < p->n_sweep; s++) {
            /* what the judge times at the shape: the performance recipe there */
            pb_case c = pb_perf_case(p, p->sweep[s], s, "");
            char shape[64], why[300];
            pb_format_size(p, c.v, shape, sizeof(shape));
            cr_expect(pb_values_ok(p, c.v, why, sizeof(why)), "%s: %s is outside its constraints (%s)",
                      p->name, shape, why);
        }
    }
}

Test(sweep_list, a_shape_is_the_performance_recipe_with_its_own_seed)
{
    const pb_problem *p = pb_find("matmul_fp32");
    const pb_case *ref = &p->cases[PB_SET_PERFORMANCE][0];
    pb_case a = pb_perf_case(p, (pb_size){{31, 47, 4096}}, 0, "a");
    pb_case b = pb_perf_case(p, (pb_size){{31, 47, 4096}}, 3, "b");
    cr_assert_eq(pb_n_sizes(p), 3);
    cr_expect(a.v[0] == 31 && a.v[1] == 47 && a.v[2] == 4096);
    cr_expect(pb_get(p, a.v, "M") == 31 && pb_get(p, a.v, "N") == 47 && pb_get(p, a.v, "K") == 4096);
    cr_expect_str_eq(a.name, "a");
    /* every scalar that is not a size (alpha, beta where the problem has them) is the recipe's */
    for (int s = 0; s < pb_n_scalars(p); s++)
        if (!pb_scalar(p, s)->size) cr_expect(a.v[s] == ref->v[s], "%s", pb_scalar(p, s)->name);
    cr_expect(a.f[0].kind == ref->f[0].kind && a.f[0].lo == ref->f[0].lo && a.f[0].hi == ref->f[0].hi);
    cr_expect(a.f[1].kind == ref->f[1].kind && a.f[1].lo == ref->f[1].lo && a.f[1].hi == ref->f[1].hi);
    cr_expect_eq(pb_buf(p, 2)->role, PB_OUT);
    cr_expect(a.f[2].kind == ref->f[2].kind); /* matmul's C holds NaN: it must not be read */
    cr_expect_eq(a.f[2].kind, PB_FILL_NAN);
    cr_expect_eq(a.seed, ref->seed);
    cr_expect_eq(b.seed, ref->seed + 3);
}

Test(sweep_list, size_list_parser)
{
    const pb_problem *p = pb_find("gemm_fp16"); /* three sizes: M, N, K */
    cr_assert_eq(pb_n_sizes(p), 3);
    pb_size s[4];
    size_t n = 0;
    cr_assert(pb_parse_size_list(p, "17x129x33,64", s, 4, &n));
    cr_expect_eq(n, 2);
    cr_expect(s[0].v[0] == 17 && s[0].v[1] == 129 && s[0].v[2] == 33);
    cr_expect(s[1].v[0] == 64 && s[1].v[1] == 64 && s[1].v[2] == 64);
    cr_expect(pb_parse_size_list(p, "4096X4095X4096", s, 4, &n) && n == 1 && s[0].v[1] == 4095);
    const char *bad[] = {"", ",", "12x", "0", "-5", "64x64", "64x64x64x64", "abc", "64,x", "1,2,3,4,5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_expect(!pb_parse_size_list(p, bad[i], s, 4, &n), "'%s' parsed", bad[i]);
}

/* --- the random sweep (shapes.c) ------------------------------------------------------------- */

static bool same_shape(pb_size a, pb_size b, int n)
{
    for (int j = 0; j < n; j++)
        if (a.v[j] != b.v[j]) return false;
    return true;
}

Test(sweep_random, parses_every_spelling_and_refuses_the_rest)
{
    sh_random r;
    char why[200];
    cr_assert(sh_parse_random("random", &r, why, sizeof(why)), "%s", why);
    cr_expect(r.n == SH_DEFAULT_N && r.n == 64 && r.seed == SH_DEFAULT_SEED && r.seed == 1);
    cr_assert(sh_parse_random("random:8", &r, why, sizeof(why)), "%s", why);
    cr_expect(r.n == 8 && r.seed == 1);
    cr_assert(sh_parse_random("random:256:18446744073709551615", &r, why, sizeof(why)), "%s", why);
    cr_expect(r.n == 256 && r.seed == UINT64_MAX);
    cr_assert(sh_parse_random("random:1:0", &r, why, sizeof(why)), "%s", why);
    cr_expect(r.n == 1 && r.seed == 0);
    const char *bad[] = {"", "rand", "randomx", "random:", "random:0", "random:257", "random:-1",
                         "random:+8", "random: 8", "random:8:", "random:8:x", "random:8:1:2",
                         "random:8:-1", "random:8:18446744073709551616", "random::1", "Random:8"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r = (sh_random){77, 77};
        cr_expect(!sh_parse_random(bad[i], &r, why, sizeof(why)), "'%s' parsed", bad[i]);
        cr_expect(r.n == 77 && r.seed == 77, "'%s' changed the result", bad[i]);
        cr_expect(strstr(why, "expected random, random:N or random:N:SEED (N in 1..256"), "%s", why);
    }
    cr_expect(sh_is_random("random") && sh_is_random("random:3") && !sh_is_random("random.cu") &&
              !sh_is_random("x.cu") && !sh_is_random(NULL));
}

/* The same seed, the same list; the first shapes pinned, so a change to the generator (its
 * draws, their order, the arithmetic) cannot pass unnoticed. */
Test(sweep_random, a_seed_names_one_list)
{
    const pb_problem *p = pb_find("gemm_fp16");
    pb_size a[64], b[64], c[64];
    sh_random r = {64, 1}, other = {64, 2};
    cr_assert(sh_random_shapes(p, &r, a) && sh_random_shapes(p, &r, b) && sh_random_shapes(p, &other, c));
    int same = 0;
    for (int i = 0; i < 64; i++) {
        cr_expect(same_shape(a[i], b[i], 3), "shape %d differs between two draws", i);
        same += same_shape(a[i], c[i], 3);
    }
    cr_expect_lt(same, 4, "seeds 1 and 2 give %d equal shapes of 64", same);
    static const int want[][3] = {{1000, 192, 1100}, {288, 1306, 458}, {302, 42, 1472},
                                  {2160, 25, 30}, {20, 840, 4047}};
    for (int i = 0; i < 5; i++)
        cr_expect(a[i].v[0] == want[i][0] && a[i].v[1] == want[i][1] && a[i].v[2] == want[i][2],
                  "shape %d is %dx%dx%d, want %dx%dx%d", i, a[i].v[0], a[i].v[1], a[i].v[2],
                  want[i][0], want[i][1], want[i][2]);
    /* a shorter list is the longer one's start */
    pb_size s8[8];
    sh_random r8 = {8, 1};
    cr_assert(sh_random_shapes(p, &r8, s8));
    for (int i = 0; i < 8; i++) cr_expect(same_shape(s8[i], a[i], 3), "shape %d", i);
    /* int4: the same draws, K a multiple of group_size (the recipe's 128) */
    const pb_problem *q = pb_find("int4_matmul");
    pb_size i4[3];
    sh_random r3 = {3, 1};
    cr_assert(sh_random_shapes(q, &r3, i4));
    cr_expect(i4[0].v[0] == 832 && i4[0].v[1] == 56 && i4[0].v[2] == 1024, "%dx%dx%d", i4[0].v[0],
              i4[0].v[1], i4[0].v[2]);
}

Test(sweep_random, every_shape_is_inside_every_problems_constraints)
{
    static pb_size s[SH_MAX_N];
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        int ns = pb_n_sizes(p), bad = 0;
        for (uint64_t seed = 0; seed < 60; seed++) {
            sh_random r = {SH_MAX_N, seed * 0x9E3779B97F4A7C15ull};
            cr_assert(sh_random_shapes(p, &r, s), "%s, seed %llu: no shapes", p->name,
                      (unsigned long long)r.seed);
            for (int k = 0; k < SH_MAX_N; k++) {
                pb_case c = pb_perf_case(p, s[k], (size_t)k, "");
                char why[300];
                if (!pb_values_ok(p, c.v, why, sizeof(why)) && bad++ < 5)
                    cr_expect(false, "%s seed %llu shape %d: %s", p->name,
                              (unsigned long long)r.seed, k, why);
                for (int j = 0; j < ns; j++) {
                    const pb_param *q = pb_scalar(p, pb_size_scalar(p, j));
                    if ((s[k].v[j] < q->lo || s[k].v[j] > q->hi) && bad++ < 5)
                        cr_expect(false, "%s: %s = %d", p->name, q->name, s[k].v[j]);
                }
                /* the recipe's other scalars, untouched */
                const pb_case *perf = &p->cases[PB_SET_PERFORMANCE][0];
                for (int v = 0; v < pb_n_scalars(p); v++)
                    if (!pb_scalar(p, v)->size && c.v[v] != perf->v[v] && bad++ < 5)
                        cr_expect(false, "%s: %s changed", p->name, pb_scalar(p, v)->name);
            }
        }
        cr_expect_eq(bad, 0, "%s: %d shapes out of bounds", p->name, bad);
    }
    sh_random zero = {0, 1}, big = {SH_MAX_N + 1, 1};
    cr_expect(!sh_random_shapes(pb_find("sgemm"), &zero, s) && !sh_random_shapes(pb_find("sgemm"), &big, s));
}

/* Shares of each extent class over many draws: 1/4 odd, 1/4 off-8, 1/2 multiples of 8, for every
 * size no check constrains; and int4's K always a multiple of 128. */
Test(sweep_random, odd_and_off8_shares)
{
    static pb_size s[SH_MAX_N];
    const char *names[] = {"gemm_fp16", "sgemm", "matmul_fp32", "batched_matmul_fp16", "int8_matmul",
                           "int4_matmul"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const pb_problem *p = pb_find(names[i]);
        bool int4 = strcmp(names[i], "int4_matmul") == 0;
        int ns = pb_n_sizes(p), sized = int4 ? 2 : ns; /* int4: M and N (K below) */
        long cnt[3] = {0, 0, 0}, total = 0;
        for (uint64_t seed = 0; seed < 40; seed++) {
            sh_random r = {SH_MAX_N, seed};
            cr_assert(sh_random_shapes(p, &r, s));
            for (int k = 0; k < SH_MAX_N; k++) {
                for (int j = 0; j < sized; j++, total++) cnt[sh_class_of(s[k].v[j])]++;
                if (int4) cr_expect_eq(s[k].v[2] % 128, 0, "int4 K = %d", s[k].v[2]);
            }
        }
        double odd = (double)cnt[SH_ODD] / total, off8 = (double)cnt[SH_OFF8] / total,
               mul8 = (double)cnt[SH_MUL8] / total;
        cr_expect(odd > 0.23 && odd < 0.27, "%s: odd share %.3f", names[i], odd);
        cr_expect(off8 > 0.23 && off8 < 0.27, "%s: off-8 share %.3f", names[i], off8);
        cr_expect(mul8 > 0.47 && mul8 < 0.53, "%s: multiple-of-8 share %.3f", names[i], mul8);
    }
    cr_expect(sh_class_of(1) == SH_ODD && sh_class_of(4095) == SH_ODD && sh_class_of(2) == SH_OFF8 &&
              sh_class_of(4094) == SH_OFF8 && sh_class_of(8) == SH_MUL8 && sh_class_of(4096) == SH_MUL8);
}

/* Log-uniform: about as many shapes in [16, 128) as in [512, 4096) (3 octaves each). */
Test(sweep_random, sizes_spread_log_uniform)
{
    static pb_size s[SH_MAX_N];
    const pb_problem *p = pb_find("gemm_fp16");
    long low = 0, high = 0;
    for (uint64_t seed = 0; seed < 20; seed++) {
        sh_random r = {SH_MAX_N, seed};
        cr_assert(sh_random_shapes(p, &r, s));
        for (int k = 0; k < SH_MAX_N; k++)
            for (int j = 0; j < 3; j++) {
                low += s[k].v[j] < 128;
                high += s[k].v[j] >= 512;
            }
    }
    double q = (double)low / (double)high;
    cr_expect(q > 0.9 && q < 1.1, "%ld small, %ld large", low, high);
}

/* --- the command line ------------------------------------------------------------------------ */

Test(sweep_cli, help_documents_it)
{
    cr_expect_eq(RUN("--help"), HX_SUCCESS);
    cr_expect(strstr(out, "--sweep") && strstr(out, "--shapes LIST"), "%s", out);
    cr_expect_eq(RUN("leaderboard", "--help"), HX_SUCCESS);
    cr_expect(strstr(out, "--sweep") && strstr(out, "--stages LIST"), "%s", out);
}

Test(sweep_cli, bad_shapes_are_usage_errors)
{
    const char *bad[] = {"12x", "", "64x64", "17x129x33,,x", "64,,64"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(RUN("--shapes", bad[i], CORRECT), HX_USAGE, "'%s': %s", bad[i], out);
        cr_expect(strstr(out, "--shapes: expected a comma list"), "%s", out);
    }
}

Test(sweep_cli, bad_random_spellings_are_usage_errors)
{
    const char *const bad[][3] = {
        {"--sweep=random:0", "-q", "-q"},    {"--sweep", "random:257", "-q"},
        {"--sweep=bogus", "-q", "-q"},       {"--sweep", "random:8:x", "-q"},
        {"--sweep=random:", "-q", "-q"},     {"--sweep", "random:4:1:1", "-q"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(RUN(bad[i][0], bad[i][1], bad[i][2], CORRECT), HX_USAGE, "%s %s: %s", bad[i][0],
                     bad[i][1], out);
        cr_expect(strstr(out, "--sweep: expected random, random:N or random:N:SEED"), "%s", out);
        cr_expect_eq(count(out, "\n"), 1, "one line: %s", out);
    }
    cr_expect_eq(RUN("--sweep", "random:8", "--shapes", "64", CORRECT), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--sweep random and --shapes both choose the shapes"), "%s", out);
    cr_expect_eq(RUN("--sweep", "random", "--size", "64x64x64", CORRECT), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "not with --size, --tests"), "%s", out);
}

/* "--sweep random:4:7 FILE" takes random:4:7 as the option's value, not as a second file. */
Test(sweep_cli, random_value_with_a_space, .timeout = 180)
{
    char why[256];
    int code = RUN("--arch", "sm_80", "--sweep", "random:4:7", "-q", CORRECT);
    cr_expect_neq(code, HX_USAGE, "%s", out);
    if (!tu_have_gpu(why, sizeof(why))) cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
}

/* --baseline's yardsticks: cublas, lt, cublaslt (also after a space); anything else exit 2;
 * cuBLASLt not for int8 (exit 2 before anything compiles). */
Test(sweep_cli, baseline_yardstick_spellings)
{
    const char *const bad[][2] = {{"--baseline=bogus", "-q"}, {"--baseline=", "-q"}, {"--baseline=LT", "-q"},
                                  {"--baseline=Both", "-q"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(RUN(bad[i][0], bad[i][1], CORRECT), HX_USAGE, "%s: %s", bad[i][0], out);
        cr_expect(strstr(out, "--baseline: expected cublas, lt, cublaslt or both"), "%s", out);
        cr_expect_eq(count(out, "\n"), 1, "one line: %s", out);
    }
    /* a word that is not a yardstick after --baseline stays a file name */
    cr_expect_eq(RUN("--baseline", "extra.cu", CORRECT), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "one solution file at a time"), "%s", out);
    const char *int8 = FIXTURES "/int8_correct.cu";
    const char *const lts[] = {"lt", "cublaslt", "both"};
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(RUN("--baseline", lts[i], "--sweep", int8), HX_USAGE, "%s", out);
        cr_expect(strstr(out, i == 2 ? "--baseline both: no cuBLASLt yardstick for int8_matmul"
                                     : "--baseline lt: no cuBLASLt yardstick for int8_matmul"), "%s", out);
        cr_expect_eq(count(out, "\n"), 1, "one line: %s", out);
    }
    cr_expect_eq(RUN("--baseline", "lt", "--vs", CORRECT, CORRECT), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "not with --baseline"), "%s", out);
}

/* "--baseline lt FILE" and "--baseline=cublas": the value taken, one file left, the judged run
 * goes on (exit 8 here without a device). */
Test(sweep_cli, baseline_values_are_taken, .timeout = 180)
{
    char why[256];
    bool gpu = tu_have_gpu(why, sizeof(why));
    const char *const ok[][2] = {{"--baseline", "lt"}, {"--baseline=cublaslt", "-q"},
                                 {"--baseline=cublas", "-q"}, {"--baseline", "cublas"},
                                 {"--baseline", "both"}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int code = RUN("--arch", "sm_80", "--perf-only", ok[i][0], ok[i][1], "-q", CORRECT);
        cr_expect_neq(code, HX_USAGE, "%s %s: %s", ok[i][0], ok[i][1], out);
        if (!gpu) cr_expect_eq(code, HX_NO_DEVICE, "%s %s: %s", ok[i][0], ok[i][1], out);
    }
}

Test(sweep_cli, shape_outside_constraints_is_exit_4_in_one_line)
{
    cr_expect_eq(RUN("--shapes", "64x64x64,8x8x8", CORRECT), HX_BAD_SIZE, "%s", out);
    cr_expect(strstr(out, "shape 8x8x8 is outside gemm_fp16's constraints"), "%s", out);
    cr_expect_eq(count(out, "\n"), 1, "one line: %s", out);
    cr_expect_eq(RUN("--shapes", "16x16x5000", CORRECT), HX_BAD_SIZE, "%s", out);
    cr_expect_eq(RUN("--shapes", "0", CORRECT), HX_BAD_SIZE, "a shape that cannot be: %s", out);
}

Test(sweep_cli, sweep_refuses_size_tests_and_no_timing)
{
    const char *const combos[][3] = {
        {"--sweep", "--size", "64x64x64"}, {"--sweep", "--tests", "judge"},
        {"--shapes", "64", "--perf-only"}, {"--sweep", "--judge-only", "-q"},
        {"--sweep", "--no-timing", "-q"},  {"--sweep", "--resources", "-q"},
        {"--sweep", "-t", "all"}};
    for (size_t i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
        int code = RUN(combos[i][0], combos[i][1], combos[i][2], CORRECT);
        cr_expect_eq(code, HX_USAGE, "%s %s %s: %s", combos[i][0], combos[i][1], combos[i][2], out);
        cr_expect(strstr(out, "not with --size, --tests"), "%s", out);
    }
}

Test(sweep_cli, no_constraints_lets_a_shape_through, .timeout = 180)
{
    char why[256];
    int code = RUN("--arch", "sm_80", "--shapes", "8x8x8", "--no-constraints", "-q", CORRECT);
    cr_expect_neq(code, HX_BAD_SIZE, "%s", out);
    if (!tu_have_gpu(why, sizeof(why))) cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
}

Test(sweep_cli, leaderboard_sweep_usage_errors)
{
    cr_expect_eq(RUN("leaderboard", "--sweep", "--sizes", "64"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "not with --sizes"), "%s", out);
    cr_expect_eq(RUN("leaderboard", "--stages", "09"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--stages goes with --sweep"), "%s", out);
    cr_expect_eq(RUN("leaderboard", "--sweep=bogus"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--sweep: expected shapes or random"), "%s", out);
    cr_expect_eq(RUN("leaderboard", "--sweep", "random", "--sizes", "64"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "not with --sizes"), "%s", out);
    cr_expect_eq(RUN("leaderboard", "--max-time", "0"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("leaderboard", "--min-runs", "x"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("leaderboard", "--sweep", "--dir", FIXTURES, "--stages", "correct,zz_none",
                     "--out", SCRATCH "/never.md"),
                 HX_USAGE, "%s", out);
    cr_expect(strstr(out, "no stage file starts with 'zz_none'"), "%s", out);
}

Test(sweep_cli, failed_leaderboard_sweep_leaves_file_untouched, .timeout = 180)
{
    mkdir(SCRATCH, 0755);
    mkdir(SCRATCH "/lb_sweep_stages", 0755);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cp '%s/compile_error.cu' '%s/lb_sweep_stages/09_broken.cu'", FIXTURES, SCRATCH);
    cr_assert_eq(tu_run_shell(NULL, 0, cmd), 0);
    const char *path = SCRATCH "/lb_sweep_untouched.md";
    const char *before = "# mine\n<!-- leaderboard:gemm_fp16-shapes:begin -->\nold rows\n"
                         "<!-- leaderboard:gemm_fp16-shapes:end -->\ntail\n";
    cr_assert(tu_write(path, before));
    const char *const modes[] = {"--sweep", "--sweep=random", "--sweep=shapes"};
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        int code = RUN("leaderboard", modes[m], "--dir", SCRATCH "/lb_sweep_stages", "--out", path);
        cr_expect_neq(code, 0, "%s: %s", modes[m], out);
        cr_expect(strstr(out, "left untouched"), "%s: %s", modes[m], out);
        char *after = tu_slurp(path);
        cr_expect_str_eq(after, before, "%s", modes[m]);
        free(after);
    }
}

/* --- the shapes section ---------------------------------------------------------------------- */

Test(sweep_section, splice_keeps_other_sections_byte_for_byte)
{
    const char *main_sec = "<!-- leaderboard:gemm_fp16:begin -->\nFP16 TABLE | 1.00× |\n"
                           "<!-- leaderboard:gemm_fp16:end -->\n";
    const char *sg_sec = "<!-- leaderboard:sgemm:begin -->\nSGEMM\n<!-- leaderboard:sgemm:end -->\n";
    char old[1024];
    snprintf(old, sizeof(old), "# Leaderboard\n\nintro\n\n%s\n%s", main_sec, sg_sec);
    char *t1 = lb_splice(old, "gemm_fp16-shapes", "SHAPES 1\n");
    cr_assert_not_null(t1);
    cr_expect(strncmp(t1, old, strlen(old)) == 0, "appended after everything: %s", t1);
    cr_expect_str_eq(t1 + strlen(old), "\n<!-- leaderboard:gemm_fp16-shapes:begin -->\nSHAPES 1\n"
                                       "<!-- leaderboard:gemm_fp16-shapes:end -->\n");
    char *t2 = lb_splice(t1, "gemm_fp16-shapes", "SHAPES 2\n");
    cr_assert_not_null(t2);
    cr_expect(strncmp(t2, old, strlen(old)) == 0, "%s", t2);
    cr_expect(strstr(t2, "SHAPES 2") && !strstr(t2, "SHAPES 1"), "%s", t2);
    /* the main section's rewrite leaves the shapes section alone */
    char *t3 = lb_splice(t2, "gemm_fp16", "NEW FP16\n");
    cr_assert_not_null(t3);
    const char *shapes = strstr(t2, "<!-- leaderboard:gemm_fp16-shapes:begin -->");
    cr_expect(strstr(t3, shapes), "%s", t3);
    cr_expect(strstr(t3, sg_sec) && strstr(t3, "NEW FP16") && !strstr(t3, "FP16 TABLE"), "%s", t3);
    free(t1);
    free(t2);
    free(t3);
}

static lb_sweep_stage stages[2];

static lb_sweep_table synthetic_table(pb_case *shapes)
{
    const pb_problem *p = pb_find("gemm_fp16");
    shapes[0] = pb_perf_case(p, (pb_size){{4095, 4095, 4095}}, 0, "");
    shapes[1] = pb_perf_case(p, (pb_size){{4096, 17, 4096}}, 1, "");
    memset(stages, 0, sizeof(stages));
    snprintf(stages[0].stem, sizeof(stages[0].stem), "09_mma_ldmatrix");
    stages[0].status = RS_FAILED;
    stages[0].shape_status[0] = RS_SUCCESS;
    stages[0].timed[0] = true;
    stages[0].ms[0] = 0.4;
    stages[0].base_ms[0] = 0.2;
    stages[0].shape_status[1] = RS_FAILED;
    snprintf(stages[1].stem, sizeof(stages[1].stem), "12_best");
    stages[1].status = RS_SUCCESS;
    for (int si = 0; si < 2; si++) {
        stages[1].shape_status[si] = RS_SUCCESS;
        stages[1].timed[si] = true;
        stages[1].ms[si] = 0.1;
        stages[1].base_ms[si] = 0.2;
    }
    return (lb_sweep_table){.problem = p, .command = "./harness leaderboard --problem gemm_fp16 --sweep",
                            .header = "Test GPU · sm_90 · driver 13.0", .timing_note = "timed somehow",
                            .device_name = "Test GPU", .commit = "abc123", .shapes = shapes,
                            .n_shapes = 2, .stages = stages, .n_stages = 2};
}

Test(sweep_section, table_chart_and_legend)
{
    pb_case shapes[2];
    lb_sweep_table t = synthetic_table(shapes);
    char *sec = lb_shapes_section(&t);
    cr_assert_not_null(sec);
    cr_expect(strstr(sec, "## gemm_fp16 — shapes"), "%s", sec);
    cr_expect(strstr(sec, "Test GPU · sm_90 · driver 13.0"), "%s", sec);
    cr_expect(strstr(sec, "Regenerated by `./harness leaderboard --problem gemm_fp16 --sweep`"), "%s", sec);
    cr_expect(strstr(sec, "never edited by hand"), "%s", sec);
    cr_expect(strstr(sec, "| shape (M×N×K) | cuBLAS ms | TF/s | 09_mma_ldmatrix ms | TF/s | × cuBLAS | "
                          "12_best ms | TF/s | × cuBLAS |"), "%s", sec);
    /* cuBLAS: the median beside the stages; 09 is 2× its cuBLAS, 12 half */
    cr_expect(strstr(sec, "| 4095³ | 0.2000 | "), "%s", sec);
    cr_expect(strstr(sec, " 0.4000 ✓ | "), "%s", sec);
    cr_expect(strstr(sec, " 2.00× |"), "%s", sec);
    cr_expect(strstr(sec, " 0.50× |"), "%s", sec);
    cr_expect(strstr(sec, "| 4096×17×4096 | 0.2000 | "), "%s", sec);
    cr_expect(strstr(sec, " ✗ test-case-failed | | |"), "%s", sec);
    cr_expect(strstr(sec, " 1/2 | | 2.00× |") && strstr(sec, " 2/2 | | 0.50× |"), "%s", sec);
    cr_expect(strstr(sec, "```mermaid\nxychart-beta\n"), "%s", sec);
    cr_expect(strstr(sec, "(lines: 09, 12, cuBLAS)"), "%s", sec);
    cr_expect(strstr(sec, "x-axis [\"4095³\", \"4096×17×4096\"]"), "%s", sec);
    cr_expect_eq(count(sec, "    line ["), 3, "%s", sec); /* two stages and cuBLAS */
    cr_expect(strstr(sec, ", 0.0]"), "the failed shape plots at 0: %s", sec);
    cr_expect(strstr(sec, "Lines, in order (xychart has no legend): 09_mma_ldmatrix, 12_best, cuBLAS."), "%s", sec);
    free(sec);
}

/* 09's second shape timed (fast), then failing its check: still ✗, still out of its mean. */
Test(sweep_section, a_timed_shape_that_fails_is_not_in_the_mean)
{
    pb_case shapes[2];
    lb_sweep_table t = synthetic_table(shapes);
    stages[0].timed[1] = true;
    stages[0].ms[1] = 0.001;
    stages[0].base_ms[1] = 0.2;
    char *sec = lb_shapes_section(&t);
    cr_assert_not_null(sec);
    cr_expect(strstr(sec, " ✗ test-case-failed | | |"), "%s", sec);
    cr_expect(strstr(sec, " 1/2 | | 2.00× |"), "%s", sec);
    free(sec);
}

Test(sweep_section, json)
{
    pb_case shapes[2];
    lb_sweep_table t = synthetic_table(shapes);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lb_shapes_json(f, &t);
    fclose(f);
    cr_expect(strstr(buf, "{\"problem\":\"gemm_fp16\",\"mode\":\"shapes\",\"device\":\"Test GPU\","
                          "\"commit\":\"abc123\",\"shapes\":[{\"M\":4095,\"N\":4095,\"K\":4095,"
                          "\"cublas_ms\":0.200000},"), "%s", buf);
    cr_expect(strstr(buf, "{\"stage\":\"09_mma_ldmatrix\",\"status\":\"test-case-failed\",\"passed\":1,"
                          "\"geomean_ratio\":2.000000,\"shapes\":[{\"status\":\"success\",\"ms\":0.400000,"
                          "\"cublas_ms\":0.200000,\"ratio\":2.000000},{\"status\":\"test-case-failed\","
                          "\"ms\":null,\"cublas_ms\":null,\"ratio\":null}]}"), "%s", buf);
    cr_expect_eq(buf[len - 1], '\n');
    free(buf);
}

/* --- the random-shapes section (lb_random.c) ------------------------------------------------- */

static lb_sweep_stage rstages[4];
static pb_size rshapes[4];

static void rtime(lb_sweep_stage *s, int si, double ms, double base)
{
    s->shape_status[si] = RS_SUCCESS;
    s->timed[si] = true;
    s->ms[si] = ms;
    s->base_ms[si] = base;
}

/* Two stages × two yardsticks over seed 1's first four gemm_fp16 shapes (1000×192×1100,
 * 288×1306×458, 302×42×1472, 2160×25×30). */
static lr_table synthetic_random(void)
{
    const pb_problem *p = pb_find("gemm_fp16");
    sh_random r = {4, 1};
    cr_assert(sh_random_shapes(p, &r, rshapes));
    memset(rstages, 0, sizeof(rstages));
    for (int k = 0; k < 4; k++) snprintf(rstages[k].stem, sizeof(rstages[k].stem), k < 2 ? "09_mma" : "12_best");
    rstages[0].status = RS_FAILED; /* 09 beside cuBLAS: 0.5, 2, failed, 1 */
    rtime(&rstages[0], 0, 0.1, 0.2);
    rtime(&rstages[0], 1, 0.4, 0.2);
    rstages[0].shape_status[2] = RS_FAILED;
    rstages[0].timed[2] = true; /* timed, then failed: out of every number */
    rstages[0].ms[2] = 0.001;
    rstages[0].base_ms[2] = 0.2;
    rtime(&rstages[0], 3, 0.3, 0.3);
    for (int si = 0; si < 4; si++) rtime(&rstages[1], si, 0.2, 0.2); /* 09 beside Lt: 1 */
    for (int si = 0; si < 4; si++) rtime(&rstages[2], si, 0.08, 0.1); /* 12 beside cuBLAS: 0.8 */
    rtime(&rstages[3], 0, 0.5, 0.1);                                   /* 12 beside Lt: 5, 0.9 */
    for (int si = 1; si < 4; si++) rtime(&rstages[3], si, 0.09, 0.1);
    return (lr_table){.problem = p, .command = "./harness leaderboard --problem gemm_fp16 --sweep",
                      .header = "Test GPU · sm_90", .timing_note = "timed somehow", .device_name = "Test GPU",
                      .commit = "abc123", .random = r, .shapes = rshapes, .runs = rstages, .n_stages = 2,
                      .n_yards = 2};
}

/* t narrowed to one stage beside cuBLAS alone (int8's layout): *s, zeroed, named stem. */
static void one_stage(lr_table *t, lb_sweep_stage *s, const char *stem)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->stem, sizeof(s->stem), "%s", stem);
    t->n_yards = 1;
    t->n_stages = 1;
    t->runs = s;
}

/* lr_json's output for t, malloc'd. */
static char *random_json(const lr_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    lr_json(f, t);
    fclose(f);
    return buf;
}

Test(random_section, distribution_table_charts_and_every_shape)
{
    lr_table t = synthetic_random();
    char *sec = lr_section(&t);
    cr_assert_not_null(sec);
    cr_expect(strstr(sec, "\n## gemm_fp16 — random shapes\n\nTest GPU · sm_90\n"), "%s", sec);
    cr_expect(strstr(sec, "Regenerated by `./harness leaderboard --problem gemm_fp16 --sweep` from one run; "
                          "never edited by hand. The same 4 random shapes, seed 1"), "%s", sec);
    cr_expect(strstr(sec, "`--sweep random:4:1`"), "%s", sec);
    cr_expect(strstr(sec, "then timed somehow; cuBLAS and cuBLASLt (`--baseline both`: cublasLtMatmul with the "
                          "fastest of its heuristic's top 8 for the shape) are timed the same way in the same "
                          "process, call by call in alternation with it (the first call of each round rotating)"),
              "%s", sec);
    cr_expect(strstr(sec, "| stage | yardstick | passed | geometric mean | worst (its shape) | at or under 1.00× "
                          "| 90th percentile |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 09_mma | cuBLAS | 3/4 | 1.00× | 2.00× (288×1306×458) | 67% | 1.80× |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 09_mma | cuBLASLt | 4/4 | 1.00× | 1.00× (1000×192×1100) | 100% | 1.00× |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 12_best | cuBLAS | 4/4 | 0.80× | 0.80× (1000×192×1100) | 100% | 0.80× |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 12_best | cuBLASLt | 4/4 | 1.38× | 5.00× (1000×192×1100) | 75% | 3.77× |\n"), "%s", sec);
    /* a chart per yardstick; each line sorted; failed and above-the-cap shapes at the cap */
    cr_expect_eq(count(sec, "```mermaid\nxychart-beta\n"), 2, "%s", sec);
    cr_expect(strstr(sec, "title \"gemm_fp16, 4 random shapes: × cuBLAS, sorted (lines: 09, 12)\""), "%s", sec);
    cr_expect(strstr(sec, "title \"gemm_fp16, 4 random shapes: × cuBLASLt, sorted (lines: 09, 12)\""), "%s", sec);
    cr_expect(strstr(sec, "x-axis \"shapes, best to worst\" 1 --> 4\n"), "%s", sec);
    cr_expect(strstr(sec, "y-axis \"× cuBLAS (under 1 is faster)\" 0 --> 4.0\n"), "%s", sec);
    cr_expect(strstr(sec, "    line [0.500, 1.000, 2.000, 4.000]\n"), "%s", sec);
    cr_expect(strstr(sec, "    line [0.800, 0.800, 0.800, 0.800]\n"), "%s", sec);
    cr_expect(strstr(sec, "    line [1.000, 1.000, 1.000, 1.000]\n"), "%s", sec);
    cr_expect(strstr(sec, "    line [0.900, 0.900, 0.900, 4.000]\n"), "%s", sec);
    cr_expect(strstr(sec, "Lines, in order (xychart has no legend): 09_mma, 12_best."), "%s", sec);
    /* every shape, folded away */
    cr_expect(strstr(sec, "<details><summary>Every shape's ratio</summary>"), "%s", sec);
    cr_expect(strstr(sec, "| shape | 09 × cuBLAS | 09 × cuBLASLt | 12 × cuBLAS | 12 × cuBLASLt |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 1000×192×1100 | 0.50× | 1.00× | 0.80× | 5.00× |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 302×42×1472 | ✗ test-case-failed | 1.00× | 0.80× | 0.90× |\n"), "%s", sec);
    cr_expect(strstr(sec, "</details>\n"), "%s", sec);
    free(sec);
}

/* int8 has one yardstick: one chart, a row per stage; nothing passed: dashes. */
Test(random_section, one_yardstick_and_nothing_passed)
{
    cr_expect_eq(lr_yardsticks(pb_find("int8_matmul")), 1);
    cr_expect_eq(lr_yardsticks(pb_find("int4_matmul")), 2);
    cr_expect_eq(lr_yardsticks(pb_find("sgemm")), 2);
    lr_table t = synthetic_random();
    lb_sweep_stage none;
    one_stage(&t, &none, "01_naive");
    for (int si = 0; si < 4; si++) none.shape_status[si] = RS_TIMEOUT;
    char *sec = lr_section(&t);
    cr_assert_not_null(sec);
    cr_expect(strstr(sec, "| 01_naive | cuBLAS | 0/4 | – | – | – | – |\n"), "%s", sec);
    cr_expect_eq(count(sec, "```mermaid"), 1, "%s", sec);
    cr_expect(strstr(sec, "    line [4.000, 4.000, 4.000, 4.000]\n"), "%s", sec);
    cr_expect(!strstr(sec, "cuBLASLt") && strstr(sec, "; cuBLAS (`--baseline`) is timed the same way"), "%s", sec);
    free(sec);
    t.n_stages = 0;
    cr_expect_null(lr_section(&t));
}

Test(random_section, json)
{
    lr_table t = synthetic_random();
    char *buf = random_json(&t);
    size_t len = strlen(buf);
    cr_expect(strstr(buf, "{\"problem\":\"gemm_fp16\",\"mode\":\"random\",\"device\":\"Test GPU\",\"commit\":"
                          "\"abc123\",\"n\":4,\"seed\":1,\"shapes\":[{\"M\":1000,\"N\":192,\"K\":1100},"), "%s", buf);
    cr_expect(strstr(buf, "{\"stage\":\"09_mma\",\"yardsticks\":[{\"yardstick\":\"cublas\",\"status\":"
                          "\"test-case-failed\",\"passed\":3,\"geomean_ratio\":1.000000,\"worst_ratio\":2.000000,"
                          "\"worst_shape\":\"288x1306x458\",\"share_at_or_under_1\":0.666667,\"p90_ratio\":1.800000,"
                          "\"ratios\":[0.500000,2.000000,null,1.000000],\"no_yardstick_time\":0,"
                          "\"no_yardstick_why\":null},{\"yardstick\":\"cublaslt\""), "%s", buf);
    cr_expect_eq(buf[len - 1], '\n');
    cr_expect_eq(count(buf, "\n"), 1, "one line: %s", buf);
    free(buf);
}

/* Shapes that passed but beside which the yardstick gave no time (cuBLAS refuses some int8
 * shapes): no ratio and no failure; the row says how many and why, the chart leaves them out. */
Test(random_section, shapes_the_yardstick_did_not_time)
{
    lr_table t = synthetic_random();
    lb_sweep_stage one;
    one_stage(&t, &one, "02_i8");
    rtime(&one, 0, 0.05, 0.1);
    rtime(&one, 1, 0.2, 0); /* passed, timed, no cuBLAS time */
    rtime(&one, 2, 0.3, 0);
    one.shape_status[3] = RS_FAILED;
    snprintf(one.base_why, sizeof(one.base_why), "cuBLAS refused: CUBLAS_STATUS_NOT_SUPPORTED");
    char *sec = lr_section(&t);
    cr_assert_not_null(sec);
    cr_expect(strstr(sec, "| 02_i8 | cuBLAS | 3/4 | 0.50× | 0.50× (1000×192×1100) | 100% | 0.50× |\n"), "%s", sec);
    cr_expect(strstr(sec, "02_i8 beside cuBLAS: 2 of its 3 passed shapes have no cuBLAS time (cuBLAS refused: "
                          "CUBLAS_STATUS_NOT_SUPPORTED); its row is over the 1 that do.\n"), "%s", sec);
    cr_expect(strstr(sec, "    line [0.500, 4.000]\n"), "the failed shape at the cap, the untimed left out: %s", sec);
    cr_expect(strstr(sec, "| 288×1306×458 | – (passed; no cuBLAS time) |\n"), "%s", sec);
    cr_expect(strstr(sec, "| 2160×25×30 | ✗ test-case-failed |\n"), "%s", sec);
    cr_expect(!strstr(sec, "✗ success"), "%s", sec);
    free(sec);
    char *buf = random_json(&t);
    cr_expect(strstr(buf, "\"ratios\":[0.500000,null,null,null],\"no_yardstick_time\":2,\"no_yardstick_why\":"
                          "\"cuBLAS refused: CUBLAS_STATUS_NOT_SUPPORTED\"}"), "%s", buf);
    free(buf);
}

/* A stage's random run through the real judge: without a device, the file compiles, every shape
 * of every yardstick gets the run's status, and the stem is each run's; int8 gets one run. */
Test(random_section, a_stage_run_through_the_judge, .timeout = 180)
{
    char why[256];
    if (tu_have_gpu(why, sizeof(why)))
        cr_skip_test("a device is present: this test is of the path without one (the device "
                     "path runs in gpu_session.sh's leaderboard-random steps)");
    mkdir(SCRATCH, 0755);
    jd_options o;
    jd_default_options(&o);
    o.cache_dir = SCRATCH "/cache";
    o.arch = "sm_80";
    o.quiet = true;
    lb_sweep_stage runs[LR_YARDS];
    memset(runs, 0x5a, sizeof(runs)); /* whatever was there must not survive */
    dv_info dev;
    bool have_dev = false;
    char detail[512];
    int code = lr_run_stage(&o, pb_find("gemm_fp16"), CORRECT, "07_x", runs, &dev, &have_dev, detail,
                            sizeof(detail));
    cr_expect_eq(code, HX_NO_DEVICE, "%s", detail);
    cr_expect(!have_dev);
    for (int y = 0; y < LR_YARDS; y++) {
        cr_expect_str_eq(runs[y].stem, "07_x");
        cr_expect_eq(runs[y].status, RS_NOT_RUN);
        for (int si = 0; si < LR_N; si++)
            cr_expect(runs[y].shape_status[si] == RS_NOT_RUN && !runs[y].timed[si], "yardstick %d shape %d", y, si);
    }
    memset(runs, 0x5a, sizeof(runs));
    code = lr_run_stage(&o, pb_find("int8_matmul"), FIXTURES "/int8_correct.cu", "02_i8", runs, &dev,
                        &have_dev, detail, sizeof(detail));
    cr_expect_eq(code, HX_NO_DEVICE, "%s", detail); /* cuBLAS alone: no usage error */
    cr_expect_str_eq(runs[0].stem, "02_i8");
    unsigned char untouched[sizeof(runs[1])];
    memset(untouched, 0x5a, sizeof(untouched));
    cr_expect(memcmp(&runs[1], untouched, sizeof(untouched)) == 0, "int8 has one run");
}

/* --- the sweep printers ---------------------------------------------------------------------- */

static rs_test tests[3];
static rs_run run;

static rp_report synthetic_report(void)
{
    memset(tests, 0, sizeof(tests));
    const int dims[3][3] = {{4096, 4095, 4096}, {17, 4096, 4096}, {64, 64, 64}};
    const pb_problem *p = pb_find("gemm_fp16");
    cr_assert(pb_scalar_index(p, "M") == 0 && pb_scalar_index(p, "N") == 1 && pb_scalar_index(p, "K") == 2);
    const pb_case *perf = &p->cases[PB_SET_PERFORMANCE][0];
    for (int i = 0; i < 3; i++) {
        tests[i].set = PB_SET_PERFORMANCE;
        memcpy(tests[i].v, perf->v, sizeof(tests[i].v)); /* alpha, beta: the recipe's */
        tests[i].v[0] = dims[i][0];
        tests[i].v[1] = dims[i][1];
        tests[i].v[2] = dims[i][2];
        tests[i].status = RS_SUCCESS;
        tests[i].timing.done = tests[i].timing.base_done = true;
    }
    tests[0].timing.median_ms = 0.2;
    tests[0].timing.base_median_ms = 0.4; /* 0.5× */
    tests[2].timing.median_ms = 0.02;
    tests[2].timing.base_median_ms = 0.01; /* 2× */
    tests[1].status = RS_FAILED;
    tests[1].timing.done = tests[1].timing.base_done = false;
    snprintf(tests[1].detail, sizeof(tests[1].detail), "12 of 69632 elements off");
    memset(&run, 0, sizeof(run));
    run.outcome = RN_OK;
    run.device.present = true;
    snprintf(run.device.name, sizeof(run.device.name), "Test GPU");
    run.device.cc_major = 9;
    run.tests = tests;
    run.n_tests = 3;
    return (rp_report){.solution = "x.cu", .problem = pb_find("gemm_fp16"), .arch = "sm_90a",
                       .run = &run, .status = RS_FAILED, .timing_note = "NOTE", .width = 80};
}

/* What a printer writes, malloc'd. */
static char *printed(void (*print)(FILE *, const rp_report *), const rp_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print(f, r);
    fclose(f);
    return buf;
}

Test(sweep_print, text)
{
    rp_report r = synthetic_report();
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "gemm_fp16 sweep — x.cu\n"), "%s", buf);
    cr_expect(strstr(buf, "device  Test GPU · sm_90"), "%s", buf);
    cr_expect(strstr(buf, "timed   per shape, NOTE; cuBLAS timed beside it"), "%s", buf);
    cr_expect(strstr(buf, "shape (MxNxK)            ms     TF/s  cuBLAS ms   ratio  status\n"), "%s", buf);
    /* 2·4096·4095·4096 flop in 0.2 ms = 687.0 TF/s */
    cr_expect(strstr(buf, "4096x4095x4096       0.2000    687.0     0.4000   0.50×  success\n"), "%s", buf);
    cr_expect(strstr(buf, "17x4096x4096              -        -          -       -  test-case-failed\n"), "%s", buf);
    cr_expect(strstr(buf, "64x64x64             0.0200      0.0     0.0100   2.00×  success\n"), "%s", buf);
    cr_expect(strstr(buf, "  17x4096x4096: 12 of 69632 elements off\n"), "%s", buf);
    cr_expect(strstr(buf, "2 of 3 shapes passed; geometric-mean ratio 1.00× cuBLAS's time (over 2 passed, timed shapes)\n"
                          "ratios: worst 2.00× at 64x64x64; 50% of shapes at or under 1.00×; 90th percentile 1.85×\n"), "%s", buf);
    cr_expect(strstr(buf, "Status: test-case-failed\n"), "%s", buf);
    free(buf);
}

/* A failed shape whose every failing element is one where cuBLAS's own fp32 misses the exact
 * answer too is counted as order-sensitive (text and JSON); one element off both: not. */
Test(sweep_print, order_sensitive_failures_are_counted)
{
    rp_report r = synthetic_report();
    tests[1].checked = true;
    tests[1].check.n_bad = 12;
    tests[1].check.n_ref_off = 12;
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "order-sensitive: 1 of the 1 failed shapes fail only where cuBLAS's own "
                          "fp32 misses the exact answer's tolerance too\n"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, ",\"failed\":1,\"order_sensitive_failed\":1"), "%s", buf);
    free(buf);
    tests[1].check.n_ref_off = 11;
    buf = printed(rp_sweep_text, &r);
    cr_expect(!strstr(buf, "order-sensitive"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, ",\"failed\":1,\"order_sensitive_failed\":0"), "%s", buf);
    free(buf);
}

/* A shape timed, then failing its check (the output of the timed calls, or new inputs), is a
 * failure: its fast time must not enter the geometric mean. */
Test(sweep_print, a_timed_shape_that_fails_is_not_in_the_mean)
{
    rp_report r = synthetic_report();
    tests[1].timing.done = tests[1].timing.base_done = true;
    tests[1].timing.median_ms = 0.001;
    tests[1].timing.base_median_ms = 1.0; /* 0.001×: would pull the mean far down */
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "2 of 3 shapes passed; geometric-mean ratio 1.00× cuBLAS's time (over 2 passed, timed shapes)\n"), "%s", buf);
    cr_expect(strstr(buf, "ratios: worst 2.00× at 64x64x64; 50% of shapes"), "%s", buf);
    free(buf);
}

/* The worst ratio names its own shape, wherever it lies in the list. */
Test(sweep_print, worst_shape_is_named)
{
    rp_report r = synthetic_report();
    tests[0].timing.median_ms = 1.2; /* 3.00×: now the worst, first in the list */
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "ratios: worst 3.00× at 4096x4095x4096; 0% of shapes at or under 1.00×; "
                          "90th percentile 2.90×\n"), "%s", buf);
    free(buf);
}

Test(sweep_print, json)
{
    rp_report r = synthetic_report();
    r.exit_code = HX_FAILED;
    char *buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, "{\"mode\":\"sweep\",\"problem\":\"gemm_fp16\",\"solution\":\"x.cu\","
                          "\"arch\":\"sm_90a\",\"exit_code\":1,\"error\":null,"
                          "\"status\":\"test-case-failed\""), "%s", buf);
    cr_expect(strstr(buf, "\"device\":{\"name\":\"Test GPU\""), "%s", buf);
    cr_expect(strstr(buf, "{\"M\":4096,\"N\":4095,\"K\":4096,\"status\":\"success\",\"detail\":\"\","
                          "\"runtime_ms\":0.2,\"tflops\":687.0"), "%s", buf);
    cr_expect(strstr(buf, "\"cublas_ms\":0.4,"), "%s", buf);
    cr_expect(strstr(buf, "\"ratio\":0.5,"), "%s", buf);
    cr_expect(strstr(buf, "{\"M\":17,\"N\":4096,\"K\":4096,\"status\":\"test-case-failed\","
                          "\"detail\":\"12 of 69632 elements off\",\"runtime_ms\":null,\"tflops\":null,"
                          "\"cublas_ms\":null,\"cublas_tflops\":null,\"ratio\":null"), "%s", buf);
    cr_expect(strstr(buf, "],\"passed\":2,\"total\":3,\"geomean_ratio\":1,\"worst_ratio\":2,"
                          "\"worst_shape\":\"64x64x64\",\"share_at_or_under_1\":0.5,\"p90_ratio\":1.85,"
                          "\"failed\":1,\"order_sensitive_failed\":0,\"no_yardstick\":0}\n"), "%s", buf);
    free(buf);
}

/* A passed shape beside which the yardstick gave no time (cuBLAS's int8 GEMM refuses some
 * sizes) is neither a ratio nor a failure: the footer says how many and why; JSON the reason per
 * shape (the runner made it printable on receipt: protocol/a_childs_text_is_ended_and_printable). */
Test(sweep_print, shapes_without_a_yardstick_time_are_counted_and_explained)
{
    rp_report r = synthetic_report();
    tests[0].timing.base_done = false;
    snprintf(tests[0].timing.base_error, sizeof(tests[0].timing.base_error),
             "cuBLAS int8 GEMM: CUBLAS_STATUS_NOT_SUPPORTED");
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "4096x4095x4096       0.2000    687.0          -       -  success\n"), "%s", buf);
    cr_expect(strstr(buf, "2 of 3 shapes passed; geometric-mean ratio 2.00× cuBLAS's time (over 1 passed, timed shapes)\n"),
              "%s", buf);
    cr_expect(strstr(buf, "no cuBLAS time beside 1 of the 2 passed shapes (the first, 4096x4095x4096: cuBLAS int8 "
                          "GEMM: CUBLAS_STATUS_NOT_SUPPORTED); the ratios are over the 1 that have one\n"),
              "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, "\"cublas_ms\":null,\"cublas_tflops\":null,\"cublas_error\":\"cuBLAS int8 GEMM: "
                          "CUBLAS_STATUS_NOT_SUPPORTED\",\"ratio\":null"), "%s", buf);
    cr_expect(strstr(buf, ",\"no_yardstick\":1}"), "%s", buf);
    free(buf);
    tests[0].timing.base_error[0] = '\0'; /* no yardstick asked for: nothing to explain */
    buf = printed(rp_sweep_text, &r);
    cr_expect(!strstr(buf, "no cuBLAS time"), "%s", buf);
    free(buf);
}

/* --vs: where the other file fails a shape (it is still timed), the shape has no ratio (as with
 * --size: "not compared") and the other file is named with its verdict, in text and JSON. */
Test(sweep_print, a_failing_vs_file_is_named_and_not_compared)
{
    rp_report r = synthetic_report();
    r.vs = "old.cu";
    for (int i = 0; i < 3; i++) tests[i].timing.vs = tests[i].status == RS_SUCCESS;
    tests[2].vs_status = RS_FAILED;
    snprintf(tests[2].vs_detail, sizeof(tests[2].vs_detail), "3 of 4096 elements off");
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "64x64x64             0.0200      0.0     0.0100       -  success\n"), "%s", buf);
    cr_expect(strstr(buf, "  64x64x64: the --vs file old.cu: test-case-failed (3 of 4096 elements off)\n"), "%s", buf);
    cr_expect(!strstr(buf, "4096x4095x4096: the --vs file"), "%s", buf);
    cr_expect(strstr(buf, "2 of 3 shapes passed; geometric-mean ratio 0.50× old.cu's time (over 1 passed, timed shapes)\n"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, "\"vs_status\":\"test-case-failed\",\"vs_detail\":\"3 of 4096 elements off\""), "%s", buf);
    cr_expect(strstr(buf, "\"vs_status\":\"success\",\"vs_detail\":\"\""), "%s", buf);
    free(buf);
}

/* A --vs case timed in both orders that disagree: 0.43× and 0.58×, 0.50× over both, faster. */
static void two_orders(rs_timing *tm)
{
    tm->vs_orders = 2;
    tm->vs_interval = true;
    tm->vs_lo = 0.49;
    tm->vs_hi = 0.51;
    tm->vs_verdict = -1;
    tm->vs_order_ratio[0] = 0.43;
    tm->vs_order_ratio[1] = 0.58;
    tm->vs_order_interval[0] = tm->vs_order_interval[1] = true;
    tm->vs_order_lo[0] = 0.42;
    tm->vs_order_hi[0] = 0.44;
    tm->vs_order_lo[1] = 0.57;
    tm->vs_order_hi[1] = 0.59;
    tm->vs_order_moves = true;
}

/* --vs timed in both orders of the first calls: a row whose orders disagree says both ratios;
 * JSON gives each order's ratio and interval, and null orders where one order was timed. */
Test(sweep_print, vs_rows_say_the_two_orders_when_they_disagree)
{
    rp_report r = synthetic_report();
    r.vs = "old.cu";
    for (int i = 0; i < 3; i++) tests[i].timing.vs = tests[i].status == RS_SUCCESS;
    rs_timing *tm = &tests[0].timing;
    two_orders(tm);
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "[0.490, 0.510] faster (first calls: this file's 0.430×, the other's 0.580×)"),
              "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, ",\"orders\":[{\"first_call\":\"this\",\"ratio\":0.430000,\"interval_lo\":0.42,"
                          "\"interval_hi\":0.44},{\"first_call\":\"other\",\"ratio\":0.580000,"
                          "\"interval_lo\":0.57,\"interval_hi\":0.59}],\"order_moves_ratio\":true"),
              "%s", buf);
    cr_expect(strstr(buf, ",\"orders\":null"), "a row of one order: %s", buf);
    free(buf);
    tm->vs_order_moves = false;
    buf = printed(rp_sweep_text, &r);
    cr_expect(!strstr(buf, "first calls:"), "orders that agree are not repeated: %s", buf);
    free(buf);
}

/* --vs in a judged run's report: the ratio over both orders, then each order's, and the
 * warning only where their intervals are disjoint; JSON's orders beside the verdict. */
Test(sweep_print, vs_line_in_a_judged_run_says_each_order)
{
    rp_report r = synthetic_report();
    r.vs = "old.cu";
    rs_timing *tm = &tests[0].timing;
    tm->vs = true;
    two_orders(tm);
    char *buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "  vs old.cu: 0.4000ms (") && strstr(buf, "this file takes 0.500× its time, 95% "
                                                                 "interval [0.490, 0.510]: faster\n"), "%s", buf);
    cr_expect(strstr(buf, "    0.430× with this file's first call first, 0.580× with the other's (each in a "
                          "fresh process): the order moves the ratio beyond the noise"), "%s", buf);
    free(buf);
    buf = printed(rp_json, &r);
    cr_expect(strstr(buf, "\"verdict\":\"faster\",\"orders\":[{\"first_call\":\"this\",\"ratio\":0.430000"),
              "%s", buf);
    free(buf);
    tm->vs_order_moves = false;
    buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "the other's (each in a fresh process)\n"), "orders that agree: %s", buf);
    free(buf);
}

Test(sweep_print, random_header)
{
    rp_report r = synthetic_report();
    sh_random rnd = {3, 42};
    r.random = &rnd;
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "shapes  3 random shapes, seed 42 (log-uniform per size; 1/4 odd, 1/4 even "
                          "off a multiple of 8, 1/2 multiples of 8)\n"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, "\"random\":{\"n\":3,\"seed\":42},\"shapes\":["), "%s", buf);
    free(buf);
    r.random = NULL;
    buf = printed(rp_sweep_json, &r);
    cr_expect(!strstr(buf, "\"random\""), "%s", buf);
    free(buf);
}

/* --baseline lt: the header names cuBLASLt, the column "Lt ms", each row the pick, the footer
 * cuBLASLt's time; JSON says so with the pick's fields. */
Test(sweep_print, lt_yardstick)
{
    rp_report r = synthetic_report();
    r.yardstick = RN_YS_LT;
    tests[0].timing.lt = (dv_lt_pick){.chosen = true, .algo_id = 21, .tile_id = 20, .stages_id = 8,
                                      .splitk = 1, .swizzle = 1, .cluster_id = -1, .candidates = 8,
                                      .workspace_bytes = 4 << 20, .trial_ms = 0.39};
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "; cuBLASLt (cublasLtMatmul, the fastest of its heuristic's top 8, tried per shape "
                          "before timing) timed beside it"), "%s", buf);
    cr_expect(strstr(buf, "shape (MxNxK)            ms     TF/s      Lt ms   ratio  status\n"), "%s", buf);
    cr_expect(strstr(buf, "4096x4095x4096       0.2000    687.0     0.4000   0.50×  success  Lt: algo 21 tile 20 "
                          "stages 8 split-K 1 ws 4.0M\n"), "%s", buf);
    cr_expect(strstr(buf, "64x64x64             0.0200      0.0     0.0100   2.00×  success\n"), "no pick, nothing: %s", buf);
    cr_expect(strstr(buf, "geometric-mean ratio 1.00× cuBLASLt's time"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, ",\"yardstick\":\"cublaslt\","), "%s", buf);
    cr_expect(strstr(buf, "\"cublaslt_ms\":0.4,") && !strstr(buf, "\"cublas_ms\""), "%s", buf);
    cr_expect(strstr(buf, ",\"lt_algo\":{\"algo_id\":21,\"tile_id\":20,\"stages_id\":8,\"splitk\":1,"
                          "\"swizzle\":1,\"cluster_id\":-1,\"workspace_bytes\":4194304,\"candidates\":8,"
                          "\"trial_ms\":0.390000}"), "%s", buf);
    cr_expect(strstr(buf, ",\"lt_algo\":null"), "the shape without a pick: %s", buf);
    free(buf);
    char line[300];
    rp_lt_describe(&tests[0].timing.lt, false, line, sizeof(line));
    cr_expect_str_eq(line, "algo 21, tile id 20, stages id 8, split-K 1, swizzle 1, cluster id ?, workspace "
                           "4.0 MiB (4194304 B); the fastest of 8 heuristic candidates, 0.3900ms a call in the trial");
    r.yardstick = RN_YS_CUBLAS; /* the cuBLAS yardstick never shows a pick */
    buf = printed(rp_sweep_text, &r);
    cr_expect(!strstr(buf, "Lt: ") && strstr(buf, "cuBLAS ms"), "%s", buf);
    free(buf);
}

/* A judged run (not a sweep) with --baseline lt: the yardstick's name and its pick, and JSON's
 * "cublaslt" object with the pick inside. */
Test(sweep_print, lt_yardstick_line_in_a_judged_run)
{
    rp_report r = synthetic_report();
    r.yardstick = RN_YS_LT;
    tests[0].timing.lt = (dv_lt_pick){.chosen = true, .algo_id = 6, .tile_id = 18, .stages_id = 15,
                                      .splitk = 1, .swizzle = 0, .cluster_id = 2, .candidates = 5,
                                      .workspace_bytes = 0, .trial_ms = 0.4};
    char *buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "  cuBLASLt: 0.4000ms (") && strstr(buf, "takes 0.50× cuBLASLt's time"), "%s", buf);
    cr_expect(strstr(buf, "  yardstick: cublasLtMatmul, algo 6, tile id 18, stages id 15, split-K 1, swizzle 0, "
                          "cluster id 2, workspace 0.0 MiB (0 B); the fastest of 5 heuristic candidates"), "%s", buf);
    free(buf);
    buf = printed(rp_json, &r);
    cr_expect(strstr(buf, ",\"cublaslt\":{\"median_ms\":0.400000,") && !strstr(buf, "\"cublas\":"), "%s", buf);
    cr_expect(strstr(buf, "\"time_ratio\":0.5000,\"lt_algo\":{\"algo_id\":6,"), "%s", buf);
    free(buf);
    r.yardstick = RN_YS_CUBLAS;
    buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "  cuBLAS: 0.4000ms (") && !strstr(buf, "yardstick:"), "%s", buf);
    free(buf);
}

/* --baseline both: cuBLAS's columns, then cuBLASLt's, a footer line for each; JSON the same. */
Test(sweep_print, both_yardsticks)
{
    rp_report r = synthetic_report();
    r.yardstick = RN_YS_BOTH;
    tests[0].timing.alt_done = tests[2].timing.alt_done = true;
    tests[0].timing.alt_median_ms = 0.25; /* 0.80× */
    tests[2].timing.alt_median_ms = 0.04; /* 0.50× */
    tests[0].timing.lt = (dv_lt_pick){.chosen = true, .algo_id = 21, .tile_id = 20, .stages_id = 8,
                                      .splitk = 1, .candidates = 8, .workspace_bytes = 1 << 20};
    char *buf = printed(rp_sweep_text, &r);
    cr_expect(strstr(buf, "; cuBLAS and cuBLASLt (the fastest of its heuristic's top 8, tried per shape before "
                          "timing), timed beside it, call by call in alternation (the first call of each round "
                          "rotating)\n"), "%s", buf);
    cr_expect(strstr(buf, "shape (MxNxK)            ms     TF/s  cuBLAS ms   ratio      Lt ms    × Lt  status\n"), "%s", buf);
    cr_expect(strstr(buf, "4096x4095x4096       0.2000    687.0     0.4000   0.50×     0.2500   0.80×  success  Lt: "
                          "algo 21 tile 20 stages 8 split-K 1 ws 1.0M\n"), "%s", buf);
    cr_expect(strstr(buf, "17x4096x4096              -        -          -       -          -       -  test-case-failed\n"), "%s", buf);
    cr_expect(strstr(buf, "64x64x64             0.0200      0.0     0.0100   2.00×     0.0400   0.50×  success\n"), "%s", buf);
    cr_expect(strstr(buf, "geometric-mean ratio 1.00× cuBLAS's time (over 2 passed, timed shapes)\n"), "%s", buf);
    cr_expect(strstr(buf, "beside cuBLASLt: geometric-mean ratio 0.63× (over 2 passed, timed shapes); worst 0.80× at "
                          "4096x4095x4096; 100% of shapes at or under 1.00×; 90th percentile 0.77×\n"), "%s", buf);
    free(buf);
    buf = printed(rp_sweep_json, &r);
    cr_expect(strstr(buf, ",\"yardstick\":\"both\","), "%s", buf);
    cr_expect(strstr(buf, "\"cublas_ms\":0.4,") && strstr(buf, "\"cublaslt_ms\":0.25,\"cublaslt_tflops\":549.6") &&
              strstr(buf, "\"ratio_lt\":0.8,\"lt_algo\":{\"algo_id\":21,"), "%s", buf);
    cr_expect(strstr(buf, "\"cublaslt_ms\":null,\"cublaslt_tflops\":null,\"ratio_lt\":null,\"lt_algo\":null"), "%s", buf);
    cr_expect(strstr(buf, ",\"lt\":{\"shapes\":2,\"geomean_ratio\":0.632455532,\"worst_ratio\":0.8,"
                          "\"worst_shape\":\"4096x4095x4096\",\"share_at_or_under_1\":1,\"p90_ratio\":0.77}}\n"), "%s", buf);
    free(buf);
    buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "  cuBLAS: 0.4000ms (") && strstr(buf, "  cuBLASLt: 0.2500ms (549.6 TF/s) -> this solution "
                                                                   "takes 0.80× cuBLASLt's time"), "%s", buf);
    cr_expect(strstr(buf, "  yardstick: cublasLtMatmul, algo 21,"), "%s", buf);
    free(buf);
    buf = printed(rp_json, &r);
    cr_expect(strstr(buf, ",\"cublas\":{\"median_ms\":0.400000,") &&
              strstr(buf, ",\"cublaslt\":{\"median_ms\":0.250000,") && strstr(buf, "\"lt_algo\":{"), "%s", buf);
    free(buf);
}

/* An fp32 problem's cuBLASLt faster than the FP32 peak cannot be without TF32: flagged, in the
 * row and in a judged run; a time under the peak, or an fp16 problem, is not. */
Test(sweep_print, lt_over_the_fp32_peak_is_flagged)
{
    rp_report r = synthetic_report();
    r.problem = pb_find("sgemm"); /* M, N, K, alpha, beta: the same scalars */
    r.yardstick = RN_YS_LT;
    run.device.sm_count = 132;
    run.device.clock_khz = 1980000; /* FP32: 256 flop/clk/SM → 66.9 TF/s */
    char *buf = printed(rp_sweep_text, &r);
    /* 4096x4095x4096 in 0.4 ms: 344 TF/s; 64³ in 0.01 ms: 0.05 TF/s */
    cr_expect(strstr(buf, "0.50×  success  Lt: (faster than the FP32 peak: TF32?)\n"), "%s", buf);
    cr_expect(strstr(buf, "64x64x64             0.0200      0.0     0.0100   2.00×  success\n"), "%s", buf);
    free(buf);
    buf = printed(rp_text, &r);
    cr_expect(strstr(buf, "  warning: cuBLASLt ran faster than the chip's FP32 peak (67 TF/s)"), "%s", buf);
    free(buf);
    r.problem = pb_find("gemm_fp16"); /* tensor cores: no such bound here */
    buf = printed(rp_sweep_text, &r);
    cr_expect(!strstr(buf, "TF32"), "%s", buf);
    free(buf);
}

Test(sweep_print, nothing_ran)
{
    rp_report r = {.solution = "x.cu", .problem = pb_find("gemm_fp16"), .status = RS_COMPILE_ERROR,
                   .status_detail = "nvcc failed"};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rp_sweep_text(f, &r);
    rp_sweep_json(f, &r);
    fclose(f);
    cr_expect(strstr(buf, "Status: compile-error\n  nvcc failed\n"), "%s", buf);
    cr_expect(strstr(buf, "\"shapes\":[],\"passed\":0,\"total\":0,\"geomean_ratio\":null,"
                          "\"worst_ratio\":null,\"worst_shape\":null,\"share_at_or_under_1\":null,"
                          "\"p90_ratio\":null,\"failed\":0,\"order_sensitive_failed\":0,\"no_yardstick\":0}"), "%s", buf);
    cr_expect(!strstr(buf, "ratios: worst"), "%s", buf);
    free(buf);
}
