/* Writes zeros: every check with a non-zero reference fails. */
#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    (void)A, (void)B, (void)K, (void)alpha, (void)beta;
    for (int i = 0; i < M * N; i++) C[i] = (half)0.0f;
}
