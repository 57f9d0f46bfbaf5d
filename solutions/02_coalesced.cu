// 02_coalesced — thread-to-element mapping so a warp reads consecutive B and writes consecutive C
//
// Changed from 01: threadIdx.x now runs along the columns of C. A warp reads one A element
//   (broadcast) and 32 consecutive B elements (64 bytes, two sectors) per k, and writes 64
//   contiguous bytes of C, instead of touching 32 sectors of A per k and 32 scattered C lines.
// Prediction (before measuring): ~0.3 ms at 1024³ and ~20 ms at 4096³ (~7 TF/s). Every load is
//   now one L1 wavefront, so the loop is bound by L1 load throughput at 2 loads per FMA (no
//   register reuse), ~2 clk per warp per k, instead of 32 sectors per A load: ~7× faster than 01.
// Measured (H200, harness): 0.4306 ms at 1024³, 26.17 ms at 4096³ (5.3 TF/s). Roughly held: 1.3× slower
//   than predicted, but 10.3× faster than 01 where 7× was predicted.
// Tiles: block 32×8 threads (x → columns of C, y → rows of C), 256 threads per block, no tiling
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda_fp16.h>
#include <cuda_runtime.h>

constexpr int kBlockX = 32;  // one warp spans 32 consecutive columns
constexpr int kBlockY = 8;

__global__ void __launch_bounds__(kBlockX * kBlockY)
gemm_coalesced(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
               int M, int N, int K, float alpha, float beta) {
    const int col = blockIdx.x * kBlockX + threadIdx.x;
    const int row = blockIdx.y * kBlockY + threadIdx.y;
    if (row >= M || col >= N) return;

    // Sizes are at most 4096, so int offsets (< 2^24) cannot overflow.
    const half* a = A + row * K;
    const half* b = B + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(__half2float(a[k]), __half2float(b[k * N]), acc);

    half* c = C + row * N + col;
    // beta == 0 must not read C: it may hold NaN/Inf (BLAS semantics).
    const float out = beta == 0.0f ? alpha * acc : fmaf(beta, __half2float(*c), alpha * acc);
    *c = __float2half_rn(out);
}

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    dim3 block(kBlockX, kBlockY);
    dim3 grid((N + kBlockX - 1) / kBlockX, (M + kBlockY - 1) / kBlockY);
    gemm_coalesced<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
