/* A correct gemm_fp16 whose calls take 20 ms, or 60 ms when another object in the same process
 * made its first call before this one did: as a solution whose workspace lands where it runs
 * slower when it allocates second (--vs must time both orders). Built twice (fake_placed_b.c):
 * two objects, each with its own first call. With FAKE_BY_LOAD (fake_loaded.c) the rank is
 * taken when the object is loaded instead: slower when loaded second. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "fake_gemm.h"

static int rank = -1; /* 0: this object came first in the process */

static void claim(void)
{
    const char *e = getenv("FAKE_PLACED_ORDER");
    rank = e ? atoi(e) : 0;
    setenv("FAKE_PLACED_ORDER", rank ? "2" : "1", 1);
}

#ifdef FAKE_BY_LOAD
__attribute__((constructor)) static void on_load(void) { claim(); }
#endif

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    if (rank < 0) claim();
    struct timespec d = {0, rank ? 60000000L : 20000000L};
    while (nanosleep(&d, &d) != 0) {
    }
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
