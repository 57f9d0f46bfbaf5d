/* batched_matmul_fp32 on the fake device, correct but for element 0, moved by 1e-3·(1 + |c|):
 * far outside 1e-5 of either reference. */
#include <math.h>

void solve(const float *A, const float *B, float *C, int BATCH, int M, int N, int K)
{
    for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float acc = 0;
                for (int k = 0; k < K; k++)
                    acc += A[((long)b * M + i) * K + k] * B[((long)b * K + k) * N + j];
                C[((long)b * M + i) * N + j] = acc;
            }
    C[0] += 1e-3f * (1 + fabsf(C[0]));
}
