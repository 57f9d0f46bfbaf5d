/* A correct gemm_fp16 that keeps its last inputs and result and replays the result when every
 * input byte is the same again: each computed call also sleeps 3 ms, so its time shows whether
 * the timed calls were computed or replayed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_gemm.h"

typedef struct {
    half *a, *b, *c_in, *c_out;
    int m, n, k;
    float alpha, beta;
} fc_memo;

static int fc_same(const fc_memo *s, const half *A, const half *B, const half *C, int M, int N,
                   int K, float alpha, float beta)
{
    size_t a = (size_t)M * K, b = (size_t)K * N, c = (size_t)M * N;
    return s->c_out && s->m == M && s->n == N && s->k == K && s->alpha == alpha &&
           s->beta == beta && !memcmp(s->a, A, a * sizeof(half)) &&
           !memcmp(s->b, B, b * sizeof(half)) && !memcmp(s->c_in, C, c * sizeof(half));
}

static half *fc_copy(const half *src, size_t n)
{
    half *d = malloc(n * sizeof(half));
    if (d) memcpy(d, src, n * sizeof(half));
    return d;
}

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    static fc_memo s;
    size_t c = (size_t)M * N;
    if (fc_same(&s, A, B, C, M, N, K, alpha, beta)) {
        memcpy(C, s.c_out, c * sizeof(half));
        return;
    }
    free(s.a), free(s.b), free(s.c_in), free(s.c_out);
    s = (fc_memo){fc_copy(A, (size_t)M * K), fc_copy(B, (size_t)K * N), fc_copy(C, c), NULL,
                  M, N, K, alpha, beta};
    fake_gemm(A, B, C, M, N, K, alpha, beta);
    nanosleep(&(struct timespec){0, 3000000}, NULL);
    if (s.a && s.b && s.c_in) s.c_out = fc_copy(C, c);
}
