/* fake_gemm.h — the fake solutions' shared core: gemm_fp16 on host pointers (the fake device's
 * buffers are host memory), C = alpha·A·B + beta·C in fp32, C read only when beta != 0. */
#ifndef FAKE_GEMM_H
#define FAKE_GEMM_H

typedef _Float16 half;

static inline void fake_gemm(const half *A, const half *B, half *C, int M, int N, int K,
                             float alpha, float beta)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++) acc += (float)A[i * K + k] * (float)B[k * N + j];
            float out = alpha * acc;
            if (beta != 0.0f) out += beta * (float)C[i * N + j];
            C[i * N + j] = (half)out;
        }
}

#endif
