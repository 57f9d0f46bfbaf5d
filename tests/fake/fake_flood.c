/* solve writes 100 MB to stdout before computing: output-exceeded, promptly. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    static char line[1 << 16];
    memset(line, 'x', sizeof(line));
    memcpy(line, "flood ", 6);
    for (int i = 0; i < 1600; i++)
        if (write(STDOUT_FILENO, line, sizeof(line)) < 0) break;
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
