/* Correct, then changes its input A's element 3. */
#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
    ((half *)A)[3] = (half)((float)A[3] + 1.0f);
}
