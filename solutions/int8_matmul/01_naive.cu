// 01_naive — one thread per element of C, 16×16 thread blocks, exact int32 accumulation, fp32 requantization written out operation by operation
//
// Changed from nothing: the baseline a site user starts from. A is M×K, B K×N, C M×N, int8,
//   row-major. Each thread sums (A − zero_point_A)(B − zero_point_B) over k in int32: exact, since
//   |term| ≤ 255² and K ≤ 4096 keep |acc| ≤ 2.7e8 < 2^31 (the site's fp32 matmul is exact only
//   while partial sums stay below 2^24, and rounds them to int afterwards). Then, in fp32 with one
//   rounding per operation, left to right: v = ((float)acc · scale_A) · scale_B · (1/scale_C), the
//   way the site's torch reference divides by a scalar on CUDA (a multiply by the fp32 reciprocal),
//   written with __int2float_rn / __fmul_rn / __frcp_rn so nvcc can neither contract into an FMA
//   nor reassociate; round half to even (rintf, like torch.round), + zero_point_C, clamp to
//   [−128, 127]. threadIdx.x walks along a row of C: B and C coalesced, A by broadcast.
// Prediction (before measuring): ~30 ms at M=8192, N=4096, K=2048 (≈4.5 TOP/s on 137 G int ops,
//   ~1% of the int8 tensor-core peak): the loop is L1-load-bound like the fp32 naive (one byte
//   load of B per multiply-add, no shared-memory reuse), with two zero-point subtractions and an
//   IMAD per step on the half-rate int32 pipe hiding underneath.
// Measured (H200, harness): not yet measured
// Tiles: none; 16×16 threads per block, one output per thread
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int kBlock = 16;

__global__ void int8_matmul_naive(const int8_t* A, const int8_t* B, int8_t* C, int M, int N, int K,
                                  float scale_A, float scale_B, float scale_C, int zero_point_A,
                                  int zero_point_B, int zero_point_C) {
    const int col = blockIdx.x * kBlock + threadIdx.x;
    const int row = blockIdx.y * kBlock + threadIdx.y;
    if (row >= M || col >= N) return;
    const int8_t* a = A + (size_t)row * K;
    const int8_t* b = B + col;
    int acc = 0;  // exact
    for (int k = 0; k < K; ++k)
        acc += ((int)a[k] - zero_point_A) * ((int)b[(size_t)k * N] - zero_point_B);

    // v = (float)acc * scale_A * scale_B / scale_C as torch computes it on CUDA: left to right,
    // each step rounded to nearest even in fp32, the divide by a scalar as a multiply by its
    // rounded reciprocal; multiplies only, so nothing to fuse, and the _rn intrinsics say so.
    const float v = __fmul_rn(__fmul_rn(__fmul_rn(__int2float_rn(acc), scale_A), scale_B), __frcp_rn(scale_C));
    const float r = rintf(v);                           // round half to even
    const float rs = fminf(fmaxf(r, -512.0f), 512.0f);  // keep the int conversion in range; the
                                                        // final clamp gives the same answer
    int q = (int)rs + zero_point_C;
    q = min(max(q, -128), 127);
    C[(size_t)row * N + col] = (int8_t)q;  // C is output only
}

// A, B, C are device pointers
extern "C" void solve(const int8_t* A, const int8_t* B, int8_t* C, int M, int N, int K,
                      float scale_A, float scale_B, float scale_C, int zero_point_A,
                      int zero_point_B, int zero_point_C) {
    if (M <= 0 || N <= 0) return;
    dim3 block(kBlock, kBlock);
    dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
    int8_matmul_naive<<<grid, block>>>(A, B, C, M, N, K, scale_A, scale_B, scale_C, zero_point_A,
                                       zero_point_B, zero_point_C);
}
