/* abort() in a global constructor only when loaded before fake_loaded.c's object (which marks
 * its loading in the environment): beside it under --vs, the first processes start, and only
 * the second order's (the other file's first call first, so loaded first) dies loading. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "fake_gemm.h"

__attribute__((constructor)) static void fake_ctor(void)
{
    if (!getenv("FAKE_PLACED_ORDER")) abort();
}

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
