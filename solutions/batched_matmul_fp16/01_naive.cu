// 01_naive — one thread per element of C[b], 16×16 thread blocks, blockIdx.z = batch, fp32 accumulation of fp16 inputs
//
// Changed from nothing: the baseline a site user starts from. A is BATCH×M×K, B BATCH×K×N,
//   C BATCH×M×N, all half (row-major, contiguous); blockIdx.z picks the batch b. Each thread
//   upcasts A[b][row][k] and B[b][k][col] to fp32 (exact), sums over k = 0, 1, …, K−1 in that order
//   with fmaf, and rounds once at the end with __float2half_rn — the reference's "upcast, fp32
//   bmm, cast to fp16". threadIdx.x walks along a row of C: B and C coalesced, A by broadcast.
// Prediction (before measuring): ~0.25 ms at BATCH=32, M=N=K=256 (≈4 TF/s on 1.07 GFLOP): the
//   same L1-load-bound loop as the fp32 naive (one 2-byte load of B per FMA, no shared-memory
//   reuse) plus two half→float conversions per FMA; the 8 MB of A and B stay in L2.
// Measured (H200, harness): not yet measured
// Tiles: none; 16×16 threads per block, one output per thread, grid.z = BATCH (≤ 128)
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_fp16.h>
#include <cuda_runtime.h>

constexpr int kBlock = 16;

// C[b][row][col] = half( sum_k float(A[b][row][k]) * float(B[b][k][col]) )
__global__ void bmm_fp16_naive(const half* A, const half* B, half* C, int M, int N, int K) {
    const int col = blockIdx.x * kBlock + threadIdx.x;
    const int row = blockIdx.y * kBlock + threadIdx.y;
    const size_t b = blockIdx.z;
    if (row >= M || col >= N) return;
    const half* a = A + (b * M + row) * (size_t)K;
    const half* bb = B + b * K * (size_t)N + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)  // k increasing, fp32 accumulator
        acc = fmaf(__half2float(a[k]), __half2float(bb[(size_t)k * N]), acc);
    C[(b * M + row) * (size_t)N + col] = __float2half_rn(acc);  // C is output only
}

// A, B, C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int BATCH, int M, int N, int K) {
    if (BATCH <= 0 || M <= 0 || N <= 0) return;
    dim3 block(kBlock, kBlock);
    dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock, BATCH);
    bmm_fp16_naive<<<grid, block>>>(A, B, C, M, N, K);
}
