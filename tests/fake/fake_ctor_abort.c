/* abort() in a global constructor: dlopen never returns. The solution's error, not the harness's. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "fake_gemm.h"

__attribute__((constructor)) static void fake_ctor(void) { abort(); }

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
