// dmma_matmul_fp32 — a lab prototype, not a stage (unmeasured): matmul_fp32 (challenge 2) with
// every sum exact, on the FP64 tensor cores.
//
// Why: probes/fp32_order_sweep.c shows no fp32 accumulation order keeps the random sweeps within
//   1e-4 of the exact sum (k order fails 18–21 of 64 shapes a seed; chunks of 4 added in fp64
//   still 2–5), so a stage whose order is not cuBLAS's can only pass through exact sums. An fp32
//   product is exact in fp64 and a float64 sum of up to 8192 of them is within ~1e-12 relative
//   of the exact one. DMMA (mma.sync m8n8k4 .f64, sm_80+) runs at the FP32 SIMT rate on A100
//   (19.5 TF) and H100/H200 (67 TF), twice the FP64 FMA pipe: the question for the device is how
//   close to cuBLAS's SGEMM an exact GEMM on it gets.
// How: 64×64 tiles of C, 4 warps of 32×32 (4×4 m8n8 fragments, 32 doubles a thread), k in steps
//   of 16; A and B tiles read as fp32 (predicated, zero past the edges), converted to fp64 into
//   shared memory (rows padded by 4 doubles: the fragment loads are conflict-free), the next
//   tile prefetched into registers while the current one is multiplied. C rounded once to fp32.
//   sm_75 (no DMMA): the same fragments by scalar fp64 FMAs (exact too, slow: FP64 is 1/32 there).
// Prediction (before measuring): H200 8192×6144×4096 ~18–25 ms (≈ 35–45% of DMMA's peak with
//   this simple loop), against cuBLAS's ~8.7 ms: the first number says how much tiling work an
//   exact stage would need; every random shape passing at 1e-4 is the point of it.
// Targets: sm_75 sm_80 sm_90a sm_100a

#include <cuda_runtime.h>

namespace {

constexpr int BM = 64, BN = 64, BK = 16, PAD = 4, THREADS = 128;
constexpr int LDA = BK + PAD, LDB = BN + PAD;  // doubles per shared row of A (m-major) and B (k-major)
constexpr int A_PER = BM * BK / THREADS, B_PER = BK * BN / THREADS;  // 8 and 8 floats a thread

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// D = A·B + D on one 8×8 fp64 fragment: a = A[g][t], b = B[t][g], c = D[g][2t], D[g][2t + 1]
__device__ __forceinline__ void dmma(double (&c)[2], double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a), "d"(b));
}
#endif

// C (M×Kc) = A (M×L) · B (L×Kc), the challenge's naming: M rows, inner L (its N), Kc columns (its K).
__global__ void __launch_bounds__(THREADS) dmma_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                                     float* __restrict__ C, int M, int L, int Kc) {
    __shared__ double As[2][BM * LDA];
    __shared__ double Bs[2][BK * LDB];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;             // fragment row group, thread in group
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    float ra[A_PER], rb[B_PER];
    auto fetch = [&](int k0) {  // global fp32 → registers, zero outside
#pragma unroll
        for (int i = 0; i < A_PER; ++i) {
            const int idx = tid + i * THREADS, r = idx / BK, c = idx % BK;
            const int m = m0 + r, k = k0 + c;
            ra[i] = m < M && k < L ? __ldg(A + (size_t)m * L + k) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < B_PER; ++i) {
            const int idx = tid + i * THREADS, r = idx / BN, c = idx % BN;
            const int k = k0 + r, n = n0 + c;
            rb[i] = k < L && n < Kc ? __ldg(B + (size_t)k * Kc + n) : 0.0f;
        }
    };
    auto stash = [&](int buf) {  // registers → shared, as fp64 (exact)
#pragma unroll
        for (int i = 0; i < A_PER; ++i) {
            const int idx = tid + i * THREADS;
            As[buf][(idx / BK) * LDA + idx % BK] = static_cast<double>(ra[i]);
        }
#pragma unroll
        for (int i = 0; i < B_PER; ++i) {
            const int idx = tid + i * THREADS;
            Bs[buf][(idx / BN) * LDB + idx % BN] = static_cast<double>(rb[i]);
        }
    };

    double acc[4][4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;

    const int tiles = (L + BK - 1) / BK;
    fetch(0);
    stash(0);
    __syncthreads();
    for (int kt = 0; kt < tiles; ++kt) {
        const int buf = kt & 1;
        if (kt + 1 < tiles) fetch((kt + 1) * BK);  // in flight during the multiply
        const double* as = As[buf];
        const double* bs = Bs[buf];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 4) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            double fa[4], fb[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) fa[i] = as[(wm + i * 8 + g) * LDA + kk + t];  // A[row g][k t]
#pragma unroll
            for (int j = 0; j < 4; ++j) fb[j] = bs[(kk + t) * LDB + wn + j * 8 + g];  // B[k t][col g]
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) dmma(acc[i][j], fa[i], fb[j]);
#else
            // the same fragments: this thread's C elements are row g, columns 2t and 2t + 1
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
#pragma unroll
                    for (int e = 0; e < 2; ++e)
#pragma unroll
                        for (int q = 0; q < 4; ++q)
                            acc[i][j][e] = fma(as[(wm + i * 8 + g) * LDA + kk + q],
                                               bs[(kk + q) * LDB + wn + j * 8 + 2 * t + e], acc[i][j][e]);
#endif
        }
        if (kt + 1 < tiles) stash(buf ^ 1);  // the other buffer: last read two tiles ago
        __syncthreads();
    }
    // D fragment of m8n8k4 .f64: row g, columns 2t, 2t + 1
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int m = m0 + wm + i * 8 + g, n = n0 + wn + j * 8 + 2 * t + e;
                if (m < M && n < Kc) C[(size_t)m * Kc + n] = static_cast<float>(acc[i][j][e]);
            }
}

}  // namespace

// A, B, C are device pointers
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    if (M <= 0 || K <= 0) return;
    const dim3 grid((K + BN - 1) / BN, (M + BM - 1) / BM);
    dmma_gemm<<<grid, THREADS>>>(A, B, C, M, N, K);
}
