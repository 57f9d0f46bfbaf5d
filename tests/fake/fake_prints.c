/* A correct solution that prints a line per call, with the ids it runs as: its output reaches the
 * run, no verdict changes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    printf("solve %dx%dx%d uid %u gid %u\n", M, N, K, (unsigned)getuid(), (unsigned)getgid());
    fflush(stdout);
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
