/* exit(3) in the middle of the test. */
#include <stdlib.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)alpha, (void)beta;
    exit(3);
}
