/* A correct gemm_fp16 whose first call in a process takes 2 s, as a PTX-only build's does
 * while the driver compiles it (the flag is the process's state, as the driver's is). */
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    static int compiled;
    if (!compiled) {
        sleep(2);
        compiled = 1;
    }
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
