/* GPU suite: the cuBLAS reference equals a float64 CPU reference (rounded as the judge rounds)
 * on small sizes, follows BLAS semantics for beta = 0, and the sgemm tolerance separates fp32
 * from fp16 accumulation at K = 4096; every problem's reference on the GPU (the oracle's
 * environment) agrees with the same reference on the CPU in float64 (refcpu.c) within the
 * problem's tolerance on every table case small enough for the CPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "fp16.h"
#include "judge.h"
#include "gen.h"
#include "problem.h"
#include "refcpu.h"
#include "rng.h"
#include "util.h"

TestSuite(reference, .init = tu_need_gpu, .timeout = 600);

/* C = alpha·A·B + beta·C in float64 on the host, row-major. */
static void cpu_gemm(int m, int n, int k, double alpha, const float *a, const float *b, double beta,
                     const float *c, double *out, int rows_limit)
{
    for (int i = 0; i < m && i < rows_limit; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += (double)a[(size_t)i * k + p] * b[(size_t)p * n + j];
            out[(size_t)i * n + j] = alpha * s + (beta != 0 ? beta * c[(size_t)i * n + j] : 0.0);
        }
}

static void check_fp16(int m, int n, int k, float alpha, float beta)
{
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *a = malloc(na * 4), *b = malloc(nb * 4), *c = malloc(nc * 4), *got = malloc(nc * 4);
    uint16_t *ah = malloc(na * 2), *bh = malloc(nb * 2);
    double *ref = malloc(nc * 8);
    rg_state rg = {42 + (uint64_t)m};
    for (size_t i = 0; i < na; i++) a[i] = rg_uniform(&rg, -1, 1);
    for (size_t i = 0; i < nb; i++) b[i] = rg_uniform(&rg, -1, 1);
    for (size_t i = 0; i < nc; i++) c[i] = beta != 0 ? rg_uniform(&rg, -1, 1) : NAN;
    f16_from_float_n(a, ah, na);
    f16_to_float_n(ah, a, na);
    f16_from_float_n(b, bh, nb);
    f16_to_float_n(bh, b, nb);
    f16_round_n(c, nc);
    cpu_gemm(m, n, k, alpha, a, b, beta, c, ref, m);

    dv_blas *h;
    char err[200];
    cr_assert_eq(dv_blas_create(&h, err, sizeof(err)), 0, "%s", err);
    pb_ref_env env;
    dv_ref_env_init(&env, h);
    memcpy(got, c, nc * 4); /* NaN when beta = 0: must not be read */
    pb_gemm g = {.type = PB_F16, .batch = 1, .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta,
                 .a = ah, .b = bh, .c = got};
    cr_assert_eq(env.gemm(&env, &g, err, sizeof(err)), 0, "%s", err);
    f16_round_n(got, nc);
    size_t bad = 0;
    for (size_t i = 0; i < nc; i++) {
        float want = f16_to_float(f16_from_float((float)ref[i]));
        /* fp32 accumulation against float64: at most one fp16 rounding step apart */
        double ulp = fmax(fabs(want) * (1.0 / 1024), 6.1e-5);
        if (!(fabs(got[i] - want) <= ulp)) bad++;
    }
    cr_expect_eq(bad, 0, "%zu of %zu reference elements differ from float64 (m=%d n=%d k=%d)", bad, nc, m, n, k);
    dv_blas_destroy(h);
    free(a), free(b), free(c), free(got), free(ah), free(bh), free(ref);
}

Test(reference, fp16_matches_float64)
{
    check_fp16(2, 2, 3, 1.0f, 0.0f);
    check_fp16(16, 16, 16, 1.0f, 1.0f);
    check_fp16(17, 129, 33, 0.5f, -1.5f);
    check_fp16(100, 130, 70, 1.25f, 0.0f);
    check_fp16(64, 64, 1024, 1.0f, 1.0f);
}

Test(reference, sgemm_tolerance_at_k4096)
{
    /* cuBLAS SGEMM and a float64 reference agree within sgemm's tolerance at K = 4096 */
    const pb_problem *p = pb_find("sgemm");
    int m = 64, n = 256, k = 4096;
    pb_case pc = {.v = {m, n, k, 1, 0}};
    double atol, rtol;
    pb_case_tolerance(p, &pc, &atol, &rtol);
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *a = malloc(na * 4), *b = malloc(nb * 4), *got = malloc(nc * 4);
    double *ref = malloc(nc * 8);
    rg_state rg = {7};
    for (size_t i = 0; i < na; i++) a[i] = rg_uniform(&rg, -1, 1);
    for (size_t i = 0; i < nb; i++) b[i] = rg_uniform(&rg, -1, 1);
    cpu_gemm(m, n, k, 1.0, a, b, 0.0, NULL, ref, m);
    dv_blas *h;
    char err[200];
    cr_assert_eq(dv_blas_create(&h, err, sizeof(err)), 0, "%s", err);
    dv_buf A, B, C;
    cr_assert_eq(dv_buf_alloc(&A, na * 4) | dv_buf_alloc(&B, nb * 4) | dv_buf_alloc(&C, nc * 4), 0);
    dv_upload(A.ptr, a, na * 4);
    dv_upload(B.ptr, b, nb * 4);
    pb_dev_env denv;
    dv_dev_env_init(&denv, h);
    pb_dev_gemm g = {.type = PB_F32, .batch = 1, .m = m, .n = n, .k = k, .alpha = 1.0f,
                     .beta = 0.0f, .a = A.ptr, .b = B.ptr, .c = C.ptr};
    cr_assert_eq(denv.gemm(&denv, &g, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(dv_sync(), 0);
    dv_download(got, C.ptr, nc * 4);
    double worst = 0;
    for (size_t i = 0; i < nc; i++) {
        double e = fabs(got[i] - ref[i]), allowed = atol + rtol * fabs(ref[i]);
        if (e / allowed > worst) worst = e / allowed;
    }
    cr_expect_lt(worst, 1.0, "cuBLAS SGEMM uses %.2f of the tolerance at K=4096", worst);
    cr_log_info("cuBLAS SGEMM vs float64 at K=4096: worst error %.3f of the allowed", worst);
    dv_buf_free(&A), dv_buf_free(&B), dv_buf_free(&C);
    dv_blas_destroy(h);
    free(a), free(b), free(got), free(ref);

    /* the harness's own sgemm reference (pedantic cuBLAS) passes the problem's K=4096 extra test
     * through a correct fp32 kernel, and an fp16-accumulating kernel fails it */
    static char out[1 << 16];
    int code = tu_run_harness(out, sizeof(out), (const char *const[]){"--size", "64x64x4096", "--no-timing",
                              FIXTURES "/sgemm_correct.cu", NULL});
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    code = tu_run_harness(out, sizeof(out), (const char *const[]){"--size", "64x64x4096", "--no-timing",
                          FIXTURES "/sgemm_fp16_accum.cu", NULL});
    cr_expect_eq(code, HX_FAILED, "%s", out);
}

/* Every problem: the reference through cuBLAS against the same reference in float64 on the CPU,
 * within the problem's tolerance, on every table case up to 2 GFLOP (the CPU's loops). */
Test(reference, every_problem_gpu_matches_cpu)
{
    dv_blas *h;
    char err[300];
    cr_assert_eq(dv_blas_create(&h, err, sizeof(err)), 0, "%s", err);
    pb_ref_env gpu, cpu;
    dv_ref_env_init(&gpu, h);
    rc_env_init(&cpu);
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        int checked = 0, skipped = 0;
        for (int set = 0; set < PB_N_SETS; set++)
            for (size_t ci = 0; ci < p->n_cases[set]; ci++) {
                const pb_case *c = &p->cases[set][ci];
                if (pb_flops(p, c->v) > 2e9) {
                    skipped++;
                    continue;
                }
                tu_bufs t;
                tu_bufs_make(p, c, c->seed, &t);
                const void *const *cin = t.in;
                long long rows = t.l.rows[t.l.out], cols = t.l.cols[t.l.out];
                size_t n = t.l.n_out;
                float *g = malloc(n * 4 + 4), *k = malloc(n * 4 + 4);
                cr_assert_eq(p->reference(p, &gpu, c->v, cin, g, NULL, err, sizeof(err)), 0,
                             "%s %s: %s", p->name, c->name, err);
                cr_assert_eq(p->reference(p, &cpu, c->v, cin, k, NULL, err, sizeof(err)), 0,
                             "%s %s: %s", p->name, c->name, err);
                double atol, rtol;
                pb_case_tolerance(p, c, &atol, &rtol);
                ck_summary s;
                bool ok = ck_compare_f32(g, k, (int)rows, (int)cols, atol, rtol, &s);
                /* challenge 30's 1e-5 does not hold against float64 for correct fp32 orders at
                 * its larger cases (lab/NOTES.md, lab/probes/tolerance_bmm32.c): there, say how far
                 * cuBLAS is; everywhere else, and on the judge's small tables, it must hold */
                bool judge_table = set == PB_SET_EXAMPLE || set == PB_SET_FUNCTIONAL;
                if (!ok && atol <= 1e-5 && !judge_table)
                    cr_log_warn("%s %s: cuBLAS's fp32 and float64 differ beyond atol = rtol = "
                                "%g at %lld of %lld elements (max rel %.3g)",
                                p->name, c->name, atol, (long long)s.n_bad,
                                (long long)s.n_total, s.max_rel);
                else
                    cr_expect(ok, "%s %s: cuBLAS's reference and float64's differ at %lld of %lld "
                                  "(first (%d, %d): %.9g vs %.9g)",
                              p->name, c->name, (long long)s.n_bad, (long long)s.n_total,
                              s.n_shown ? s.shown[0].row : -1, s.n_shown ? s.shown[0].col : -1,
                              s.n_shown ? s.shown[0].got : 0, s.n_shown ? s.shown[0].expected : 0);
                if (c->expected)
                    for (size_t e = 0; e < n; e++)
                        cr_expect(ck_close(g[e], c->expected[e], atol, rtol),
                                  "%s %s: the official expected output at %zu", p->name, c->name, e);
                checked++;
                tu_bufs_free(&t);
                free(g);
                free(k);
            }
        cr_log_info("%s: cuBLAS and float64 references agree within the tolerance on %d table "
                    "cases (%d larger ones left to the GPU)", p->name, checked, skipped);
    }
    dv_blas_destroy(h);
}

/* The yardsticks compute what they stand for: int8's library GEMM + requantize equals the
 * reference exactly (zero points 0), int4's dequantize + fp16 GEMM is inside the tolerance. */
Test(reference, family_yardsticks_compute_the_problem)
{
    dv_blas *h;
    char err[300];
    cr_assert_eq(dv_blas_create(&h, err, sizeof(err)), 0, "%s", err);
    pb_dev_env denv;
    dv_dev_env_init(&denv, h);
    pb_ref_env cpu;
    rc_env_init(&cpu);
    const char *names[] = {"int8_matmul", "int4_matmul", "batched_matmul_fp32", "batched_matmul_fp16"};
    for (size_t pi = 0; pi < 4; pi++) {
        const pb_problem *p = pb_find(names[pi]);
        const pb_case *c = &p->cases[PB_SET_FUNCTIONAL][p->n_cases[PB_SET_FUNCTIONAL] - 1];
        tu_bufs t;
        tu_bufs_make(p, c, c->seed, &t);
        int nb = t.l.n_bufs, out = t.l.out;
        void *const *host = t.buf;
        const size_t *bytes = t.l.bytes;
        long long rows = t.l.rows[out], cols = t.l.cols[out];
        dv_buf dev[PB_MAX_BUFS];
        void *dptr[PB_MAX_BUFS];
        for (int b = 0; b < nb; b++) {
            cr_assert_eq(dv_buf_alloc(&dev[b], bytes[b]), 0);
            cr_assert_eq(dv_upload(dev[b].ptr, host[b], bytes[b]), 0);
            dptr[b] = dev[b].ptr;
        }
        cr_assert_eq(p->baseline(p, &denv, c->v, dptr, err, sizeof(err)), 0, "%s: %s", p->name, err);
        cr_assert_eq(dv_sync(), 0);
        size_t n = (size_t)(rows * cols);
        float *got = malloc(n * 4), *ref = malloc(n * 4);
        cr_assert_eq(dv_download(host[out], dev[out].ptr, bytes[out]), 0);
        gen_to_float(pb_buf(p, out)->type, host[out], got, n);
        cr_assert_eq(p->reference(p, &cpu, c->v, t.in, ref, NULL, err, sizeof(err)), 0, "%s", err);
        double atol, rtol;
        pb_case_tolerance(p, c, &atol, &rtol);
        ck_summary s;
        cr_expect(ck_compare_f32(got, ref, (int)rows, (int)cols, atol, rtol, &s),
                  "%s %s: the yardstick is off at %lld of %lld", p->name, c->name,
                  (long long)s.n_bad, (long long)s.n_total);
        for (int b = 0; b < nb; b++) dv_buf_free(&dev[b]);
        tu_bufs_free(&t);
        free(got);
        free(ref);
    }
    dv_blas_destroy(h);
}
