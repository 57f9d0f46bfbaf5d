// 01_naive — one thread per element of C, 16×16 thread blocks, reads straight from global memory
//
// Changed from nothing: the baseline a site user starts from. Note the challenge's naming: A is
//   M×N, B is N×K, C is M×K, so N is the inner (summed) dimension and K is the width of C.
//   threadIdx.x walks along a row of C, so a warp reads B and writes C coalesced and A by broadcast.
// Prediction (before measuring): ~60 ms at M=8192, N=6144, K=4096 (≈7 TF/s, ~14% of cuBLAS's
//   8.28 ms): one global (L1) load of B per FMA, no reuse through shared memory.
// Measured (H200, harness): 81.59 ms at M=8192, N=6144, K=4096 (5.1 TF/s, 10.0% of cuBLAS) (cuBLAS beside it).
//   1.4× slower than predicted (60 ms).
// Tiles: none; 16×16 threads per block, one output per thread
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int kBlock = 16;

// C[row][col] = sum_i A[row][i] * B[i][col];  rows = M, inner = N, cols = K (challenge naming)
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    const int col = blockIdx.x * kBlock + threadIdx.x;
    const int row = blockIdx.y * kBlock + threadIdx.y;
    if (row >= M || col >= K) return;
    const float* a = A + (size_t)row * N;
    const float* b = B + col;
    float acc = 0.0f;
    for (int i = 0; i < N; ++i) acc += a[i] * b[(size_t)i * K];
    C[(size_t)row * K + col] = acc;  // C is output only
}

// A, B, C are device pointers
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    if (M <= 0 || K <= 0) return;
    dim3 block(kBlock, kBlock);
    dim3 grid((K + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
    matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
}
