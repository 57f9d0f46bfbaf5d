/* exit(4) in a global constructor: the solution's error, not the harness's. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "fake_gemm.h"

__attribute__((constructor)) static void fake_ctor(void) { exit(4); }

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
