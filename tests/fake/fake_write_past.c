/* Correct, plus one element written just past C's end (byte offset 2·M·N). */
#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
    C[M * N] = (half)1.0f;
}
