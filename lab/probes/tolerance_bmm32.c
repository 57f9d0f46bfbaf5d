/* tolerance_bmm32.c — does challenge 30's atol = rtol = 1e-5 hold for a correct fp32 kernel? For
 * every table case of batched_matmul_fp32 (up to 3e10 FLOP), two correct fp32 orders (fmaf in k
 * order; 32 partial sums) against the float64 reference, with the harness's own inputs.
 * Host only. Build (after `make test` has built build/tests/libharness_fake.a):
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Iproblems lab/probes/tolerance_bmm32.c \
 *       build/tests/libharness_fake.a -lm -o /tmp/tol && /tmp/tol */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "problem.h"
#include "gen.h"
#include "refcpu.h"
#include "check.h"
/* For each batched_matmul_fp32 case: fp32 sums in k order (fmaf) and in pairwise order against
 * the float64 reference, at atol = rtol = 1e-5: how many elements fail. */
int main(void) {
    const pb_problem *p = pb_find("batched_matmul_fp32");
    pb_ref_env env; rc_env_init(&env);
    for (int s = 0; s < PB_N_SETS; s++) for (size_t ci = 0; ci < p->n_cases[s]; ci++) {
        const pb_case *c = &p->cases[s][ci];
        if (pb_flops(p, c->v) > 3e10) continue;
        int B = (int)c->v[0], M = (int)c->v[1], N = (int)c->v[2], K = (int)c->v[3];
        size_t na = (size_t)B*M*K, nb = (size_t)B*K*N, nc = (size_t)B*M*N;
        float *a = malloc(na*4), *b = malloc(nb*4), *cc = malloc(nc*4), *ref = malloc(nc*4), *seq = malloc(nc*4), *blk = malloc(nc*4);
        void *dst[] = {a, b, cc};
        gen_inputs(p, c, c->v, c->seed * 0x9E3779B97F4A7C15ull, dst);
        const void *in[] = {a, b, cc};
        char err[100];
        p->reference(p, &env, c->v, in, ref, NULL, err, sizeof err);
        for (int bb = 0; bb < B; bb++) for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
            float acc = 0, part[32] = {0};
            for (int k = 0; k < K; k++) {
                float x = a[((size_t)bb*M+i)*K+k], y = b[((size_t)bb*K+k)*N+j];
                acc = fmaf(x, y, acc);
                part[k % 32] = fmaf(x, y, part[k % 32]);
            }
            float t = 0; for (int q = 0; q < 32; q++) t += part[q];
            seq[((size_t)bb*M+i)*N+j] = acc; blk[((size_t)bb*M+i)*N+j] = t;
        }
        /* the margin: the largest |err| / (atol + rtol·|exp|) of each order (1 = at the limit) */
        double w1 = 0, w2 = 0;
        for (size_t i = 0; i < nc; i++) {
            double lim = 1e-5 + 1e-5 * fabs(ref[i]);
            w1 = fmax(w1, fabs(seq[i] - ref[i]) / lim);
            w2 = fmax(w2, fabs(blk[i] - ref[i]) / lim);
        }
        ck_summary s1, s2;
        ck_compare_f32(seq, ref, B*M, N, 1e-5, 1e-5, &s1);
        ck_compare_f32(blk, ref, B*M, N, 1e-5, 1e-5, &s2);
        printf("%-32s %4dx%4dx%4dx%4d  k-order fail %6lld / %lld (max rel %.2g)  32-way fail %6lld  worst err/allowed %.2f %.2f\n", c->name, B, M, N, K,
               (long long)s1.n_bad, (long long)s1.n_total, s1.n_bad ? s1.max_rel : 0.0, (long long)s2.n_bad, w1, w2);
        free(a); free(b); free(cc); free(ref); free(seq); free(blk);
    }
}
