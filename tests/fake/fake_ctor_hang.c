/* A global constructor that never returns: a timeout within the test's limit. */
#define _GNU_SOURCE
#include <unistd.h>

#include "fake_gemm.h"

__attribute__((constructor)) static void fake_ctor(void)
{
    for (;;) pause();
}

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
