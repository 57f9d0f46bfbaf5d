// 03_smem_tiled — 32×32 tiles of A and B staged in shared memory, one output per thread
//
// Changed from 02: the block loads a 32×32 tile of A and of B into shared memory once, and each
//   element is then read 32 times from shared memory instead of from global memory/L1. Global
//   traffic per FMA falls 32×; the inner loop becomes two shared loads per FMA.
// Prediction (before measuring): ~14 ms at 4096³ (≈10 TF/s, ~20% of cuBLAS): now bound by the
//   shared-memory pipe (2 LDS per FFMA), not by DRAM.
// Measured (H200, harness): 15.89 ms at 4096³ (8.7 TF/s, 17.3%), 47.62 ms at 8192×6144×4096 (cuBLAS beside it).
//   Close (14 ms predicted).
// Tiles: BM=32 BN=32 BK=32, 1024 threads per block (32×32), one output per thread
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int kTile = 32;
static_assert(kTile * kTile <= 1024, "one thread per tile element");

__global__ void sgemm_smem(const float* A, const float* B, float* C, int M, int N, int K,
                           float alpha, float beta) {
    __shared__ float As[kTile][kTile];  // As[m][k]: a warp reads one row → broadcast
    __shared__ float Bs[kTile][kTile];  // Bs[k][n]: a warp reads 32 consecutive floats → no conflict

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        // Out-of-range elements are stored as 0 so the dot product below needs no guard.
        const int ka = k0 + tx;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        const int kb = k0 + ty;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // the next iteration overwrites the tiles
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * N + col;
        *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;  // beta == 0: C not read
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                      float beta) {
    if (M <= 0 || N <= 0) return;
    dim3 block(kTile, kTile);
    dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    sgemm_smem<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
