/* fp32_order_sweep.c — which summation order of an fp32 dot product keeps every output of the
 * fp32 problems' random sweeps within tolerance of the exact answer? The harness passes an
 * element within atol + rtol·|ref| of cuBLAS's fp32 result or of the exact one; where a stage's
 * order is not cuBLAS's, only the exact side is reachable (runs 112, 205). For each shape of
 * `--sweep random:64:SEED` (the harness's own shapes and inputs), a sample of outputs (all of
 * them up to 32768) is summed in several orders on the host and compared with the float64 sum:
 *   seq    fmaf in k order, one chain (the tile kernels' order)
 *   2ch    two chains (even and odd k), added at the end
 *   cNd    fmaf chains of N consecutive k, each chunk's sum added in float64, rounded once
 *   kahan  fp32 compensated summation of fp32 products
 *   dot2   fp32 error-free products (fmaf(a, b, −a·b)) and sums (TwoSum), the errors summed apart
 * Printed: per order, the shapes with a failing sampled element, and the worst |err| / allowed.
 * Host only. Build (after the harness is built):
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Iproblems lab/probes/fp32_order_sweep.c \
 *       build/libharness_core.a -lm -o /tmp/fp32o && /tmp/fp32o matmul_fp32 1 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "problem.h"
#include "rng.h"
#include "shapes.h"

enum { O_SEQ, O_2CH, O_C4, O_C8, O_C16, O_C32, O_C64, O_C128, O_KAHAN, O_DOT2, N_ORDERS };
static const char *const names[N_ORDERS] = {"seq",  "2ch",   "c4d",   "c8d", "c16d",
                                            "c32d", "c64d", "c128d", "kahan", "dot2"};
enum { N_CHUNKS = 6 };

/* x[k·xs], y[k·ys], k < L: the dot product in each order into out[] */
static void dots(const float *x, size_t xs, const float *y, size_t ys, int L, double *exact,
                 float *out)
{
    double ex = 0;
    float seq = 0, e0 = 0, e1 = 0, ks = 0, kc = 0, ds = 0, dc = 0;
    const int chunk[N_CHUNKS] = {4, 8, 16, 32, 64, 128};
    double cd[N_CHUNKS] = {0};
    float cf[N_CHUNKS] = {0};
    for (int k = 0; k < L; k++) {
        float a = x[(size_t)k * xs], b = y[(size_t)k * ys];
        ex += (double)a * (double)b;
        seq = fmaf(a, b, seq);
        if (k & 1) e1 = fmaf(a, b, e1);
        else e0 = fmaf(a, b, e0);
        for (int c = 0; c < N_CHUNKS; c++) {
            cf[c] = fmaf(a, b, cf[c]);
            if ((k + 1) % chunk[c] == 0 || k + 1 == L) {
                cd[c] += cf[c];
                cf[c] = 0;
            }
        }
        float t = a * b - kc, s = ks + t; /* Kahan */
        kc = (s - ks) - t;
        ks = s;
        float pr = a * b, pe = fmaf(a, b, -pr), sn = ds + pr, bv = sn - ds; /* Dot2 */
        dc += ((ds - (sn - bv)) + (pr - bv)) + pe;
        ds = sn;
    }
    *exact = ex;
    out[O_SEQ] = seq;
    out[O_2CH] = e0 + e1;
    for (int c = 0; c < N_CHUNKS; c++) out[O_C4 + c] = (float)cd[c];
    out[O_KAHAN] = ks;
    out[O_DOT2] = ds + dc;
}

int main(int argc, char **argv)
{
    const char *prob = argc > 1 ? argv[1] : "matmul_fp32";
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    const pb_problem *p = pb_find(prob);
    if (!p || (strcmp(prob, "matmul_fp32") != 0 && strcmp(prob, "batched_matmul_fp32") != 0)) {
        fprintf(stderr, "usage: %s matmul_fp32|batched_matmul_fp32 [SEED]\n", argv[0]);
        return 2;
    }
    bool batched = strcmp(prob, "batched_matmul_fp32") == 0;
    sh_random r = {64, seed};
    pb_size sh[64];
    if (!sh_random_shapes(p, &r, sh)) return 1;
    int fail_shapes[N_ORDERS] = {0};
    double worst_all[N_ORDERS] = {0};
    for (int si = 0; si < r.n; si++) {
        pb_case c = pb_perf_case(p, sh[si], (size_t)si, "");
        double atol, rtol;
        pb_case_tolerance(p, &c, &atol, &rtol);
        /* matmul_fp32: A M×N, B N×K, C M×K (inner N); batched: A (B·M)×K, B (B·K)×N */
        int Bt = batched ? (int)c.v[0] : 1, M = (int)c.v[batched ? 1 : 0];
        int cols = (int)c.v[batched ? 2 : 2], L = (int)c.v[batched ? 3 : 1];
        size_t na = (size_t)Bt * M * L, nb = (size_t)Bt * L * cols, nc = (size_t)Bt * M * cols;
        float *a = malloc(na * 4), *b = malloc(nb * 4), *cc = malloc(nc * 4);
        if (!a || !b || !cc) return 1;
        void *dst[] = {a, b, cc};
        gen_inputs(p, &c, c.v, c.seed * 0x9E3779B97F4A7C15ull, dst);
        size_t want = nc <= 32768 ? nc : 32768;
        rg_state rs = {c.seed ^ 0xfeedull};
        double worst[N_ORDERS] = {0};
        long long bad[N_ORDERS] = {0};
        for (size_t e = 0; e < want; e++) {
            size_t idx = want == nc ? e : (size_t)(rg_next(&rs) % nc);
            size_t bi = idx / ((size_t)M * cols), rem = idx % ((size_t)M * cols);
            size_t i = rem / (size_t)cols, j = rem % (size_t)cols;
            const float *x = a + (bi * M + i) * (size_t)L, *y = b + bi * (size_t)L * cols + j;
            double ex;
            float got[N_ORDERS];
            dots(x, 1, y, (size_t)cols, L, &ex, got);
            double lim = atol + rtol * fabs((double)(float)ex);
            for (int o = 0; o < N_ORDERS; o++) {
                double w = fabs((double)got[o] - (double)(float)ex) / lim;
                if (w > worst[o]) worst[o] = w;
                if (w > 1.0) bad[o]++;
            }
        }
        printf("%3d %5dx%5dx%5dx%5d %6zu/%-9zu", si, Bt, M, cols, L, want, nc);
        for (int o = 0; o < N_ORDERS; o++) {
            printf(" %s %5lld %.2f", names[o], bad[o], worst[o]);
            if (bad[o]) fail_shapes[o]++;
            if (worst[o] > worst_all[o]) worst_all[o] = worst[o];
        }
        printf("\n");
        fflush(stdout);
        free(a), free(b), free(cc);
    }
    printf("%s seed %llu, shapes with a sampled element outside tolerance of the exact sum:\n", prob,
           (unsigned long long)seed);
    for (int o = 0; o < N_ORDERS; o++)
        printf("  %-6s %2d of %d   worst |err| / allowed %.3f\n", names[o], fail_shapes[o], r.n,
               worst_all[o]);
    return 0;
}
