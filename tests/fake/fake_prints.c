/* A correct solution that prints a line per call: its output reaches the run, no verdict changes. */
#define _GNU_SOURCE
#include <stdio.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    printf("solve %dx%dx%d\n", M, N, K);
    fflush(stdout);
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
