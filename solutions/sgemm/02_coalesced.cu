// 02_coalesced — one thread per element of C, threadIdx.x walks along a row of C (coalesced)
//
// Changed from 01: threadIdx.x now selects the column. The 32 lanes of a warp share one row of A
//   (one broadcast load) and read 32 consecutive floats of a row of B (four 32-byte sectors), and
//   they write 128 contiguous bytes of C. Global traffic per warp-load drops from 32 sectors to 4.
// Prediction (before measuring): ~20 ms at 4096³ (≈7 TF/s, ~14% of cuBLAS): still one load of B
//   per FMA with no reuse outside L1/L2, now limited by L1 bandwidth rather than sector count.
// Measured (H200, harness): 23.95 ms at 4096³ (5.7 TF/s, 11.4% of cuBLAS), 72.68 ms at 8192×6144×4096
//   (cuBLAS beside it). Close to the prediction (20 ms).
// Tiles: none; 32×32 threads per block, one output per thread
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int kBlock = 32;  // 32×32 = 1024 threads per block
static_assert(kBlock * kBlock <= 1024, "block too large");

__global__ void sgemm_coalesced(const float* A, const float* B, float* C, int M, int N, int K,
                                float alpha, float beta) {
    const int col = blockIdx.x * kBlock + threadIdx.x;  // lanes of a warp: consecutive columns
    const int row = blockIdx.y * kBlock + threadIdx.y;
    if (row >= M || col >= N) return;

    const float* a = A + (size_t)row * K;  // same address for the whole warp: broadcast
    const float* b = B + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * b[(size_t)k * N];

    float* c = C + (size_t)row * N + col;
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;  // beta == 0: C not read
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                      float beta) {
    if (M <= 0 || N <= 0) return;
    dim3 block(kBlock, kBlock);
    dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
    sgemm_coalesced<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
