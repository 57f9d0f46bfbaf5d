/* A correct gemm_fp16 whose calls take 2 ms, or 6 ms when another object in the same process
 * made its first call before this one did: as a solution whose workspace lands where it runs
 * slower when it allocates second (--vs must time both orders). Built twice (fake_placed_b.c):
 * two objects, each with its own first call. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    static int rank = -1; /* 0: this object called first in the process */
    if (rank < 0) {
        const char *e = getenv("FAKE_PLACED_CALLERS");
        rank = e ? atoi(e) : 0;
        setenv("FAKE_PLACED_CALLERS", rank ? "2" : "1", 1);
    }
    struct timespec d = {0, rank ? 6000000L : 2000000L};
    while (nanosleep(&d, &d) != 0) {
    }
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
