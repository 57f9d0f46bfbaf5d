/* A correct int8_matmul on the fake device: exact accumulation, the site's fp32 steps. */
#include <math.h>
#include <stdint.h>

void solve(const int8_t *A, const int8_t *B, int8_t *C, int M, int N, int K, float sA, float sB,
           float sC, int zA, int zB, int zC)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long long acc = 0;
            for (int k = 0; k < K; k++) acc += (long long)(A[i * K + k] - zA) * (B[k * N + j] - zB);
            volatile float v = (float)acc;
            v = v * sA;
            v = v * sB;
            volatile float inv = 1.0f / sC;
            v = v * inv;
            float r = rintf(v) + (float)zC;
            C[i * N + j] = (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
        }
}
