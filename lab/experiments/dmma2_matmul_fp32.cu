// dmma2_matmul_fp32 — a lab prototype, not a stage: dmma_matmul_fp32 (exact sums on the FP64
// tensor cores) with the tiling an SGEMM of its rank would have.
//
// Changed from dmma_matmul_fp32: 128×128 tiles on 8 warps of 64×32 (64 doubles a thread), fed by
//   a 4-stage cp.async ring of fp32 tiles (16-byte copies where rows are 16-byte aligned, else
//   4-byte ones, zero-filled past the edges); the fp32 → fp64 conversion moves from the shared-
//   memory store to the fragment load (half the shared bytes; cp.async needs no registers). 64×64
//   tiles on 4 warps of 32×32 where 128×128 would not fill the SMs.
// Run 212 (m8n8k4 everywhere): 26 TF/s at 8192×6144×4096, 1.9× cuBLAS; 78% of 33.5 TF/s, which
//   is what m8n8k4 would give if Hopper ran it at A100's per-SM rate (64 FMA/clk): the sm_90
//   shapes (m16n8k4/k8/k16) exist for the rest. So on sm_90+ the fragments are m16n8k8 (A: two
//   8-byte loads a 16-row block, its k pairs 2t, 2t + 1; A rows 24 floats apart: conflict-free),
//   B's rows swizzled by 16-byte chunk (Tile::bidx) so both B loads are conflict-free too.
//   sm_80 keeps m8n8k4, two a 16×8 fragment.
// Why: the exact sum is the only order that passes every random shape (probes/fp32_order_sweep.c);
//   DMMA runs at the FP32 SIMT rate on A100 and H100/H200, so the question is the tiling.
// Prediction (before measuring), m8n8k4: 8192×6144×4096 in 10–13 ms (measured 15.8); m16n8k8 on
//   sm_90: 1.5× faster than that, if the rate above is the limit (~10.5 ms, 1.25× cuBLAS).
// sm_75 (no DMMA, no cp.async): a thread an output, fp64 FMAs — exact, slow (FP64 is 1/32 there).
// DMMA_BATCHED defined first: challenge 30's signature (batched fp32, 1e-5), the matrices over z.
// Targets: sm_75 sm_80 sm_90a sm_100a

#include <cuda_runtime.h>

namespace {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// D = A·B + D on one 8×8 fp64 fragment: a = A[g][t], b = B[t][g], c = D[g][2t], D[g][2t + 1]
__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// D = A·B + D on a 16×8 fragment over k8 (sm_90+): a = A[g][t], A[g + 8][t], A[g][t + 4],
// A[g + 8][t + 4]; b = B[t][g], B[t + 4][g]; c = D[g][2t, 2t + 1], D[g + 8][2t, 2t + 1]
__device__ __forceinline__ void dmma16(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// !ok: writes zeros and reads nothing (src must still be a valid address)
__device__ __forceinline__ void cp16(float* dst, const float* src, bool ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(ok ? 16 : 0));
}
__device__ __forceinline__ void cp4(float* dst, const float* src, bool ok) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(ok ? 4 : 0));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

template <int BM_, int BN_, int WARPS_M_, int WARPS_N_>
struct Tile {
    static constexpr int BM = BM_, BN = BN_, BK = 16, STAGES = 4;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, NT = WARPS_M * WARPS_N * 32;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's tile
    static constexpr int FM = WM / 16, FN = WN / 8;             // its 16×8 fragments
    static constexpr int LDA = BK + 8, LDB = BN;                // floats a shared row (see above)
    static constexpr int A_FLOATS = BM * LDA, B_FLOATS = BK * LDB;
    static constexpr int STAGE_FLOATS = A_FLOATS + B_FLOATS;
    static constexpr size_t SMEM = sizeof(float) * STAGE_FLOATS * STAGES;
    static_assert(LDA % 32 == 24, "A's 8-byte fragment loads conflict-free: rows g at banks 24g");
    static_assert(BN % 32 == 0, "B's chunk swizzle stays inside a row");
    // B[r][n] in shared memory: 16-byte chunks of a row XOR-ed by 2·(r / 2 % 4), so that the
    // fragment loads of rows 2t and 2t + 1 (t = 0..3) land on four different 8-bank groups
    static __device__ __forceinline__ int bidx(int r, int n) {
        return r * LDB + ((((n >> 2) ^ (((r >> 1) & 3) << 1))) << 2) + (n & 3);
    }
};
using Big = Tile<128, 128, 2, 4>;   // warps of 64×32
using Small = Tile<64, 64, 2, 2>;   // warps of 32×32

// C (M×Kc) = A (M×L) · B (L×Kc), the challenge's naming: M rows, inner L (its N), Kc columns (its K).
// A_VEC / B_VEC: that matrix's rows are 16-byte aligned (L % 4, Kc % 4 and the pointer).
template <class T, bool A_VEC, bool B_VEC>
__global__ void __launch_bounds__(T::NT) dmma_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                                   float* __restrict__ C, int M, int L, int Kc) {
    A += (size_t)blockIdx.z * M * L;  // batched (DMMA_BATCHED): one matrix a z
    B += (size_t)blockIdx.z * L * Kc;
    C += (size_t)blockIdx.z * M * Kc;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / T::WARPS_N) * T::WM, wn = (warp % T::WARPS_N) * T::WN;
    const int m0 = blockIdx.y * T::BM, n0 = blockIdx.x * T::BN;
    const int tiles = (L + T::BK - 1) / T::BK;

    auto load = [&](int kt, int stage) {  // one k-tile of A and B into a stage, zeros outside
        float* as = smem + stage * T::STAGE_FLOATS;
        float* bs = as + T::A_FLOATS;
        const int k0 = kt * T::BK;
        if (A_VEC) {
            constexpr int CH = T::BM * T::BK / 4;
            for (int c = tid; c < CH; c += T::NT) {
                const int r = c / (T::BK / 4), q = (c % (T::BK / 4)) * 4;
                const bool ok = m0 + r < M && k0 + q < L;  // L % 4 == 0: a chunk is all in or out
                cp16(as + r * T::LDA + q, ok ? A + (size_t)(m0 + r) * L + k0 + q : A, ok);
            }
        } else {
            for (int c = tid; c < T::BM * T::BK; c += T::NT) {
                const int r = c / T::BK, q = c % T::BK;
                const bool ok = m0 + r < M && k0 + q < L;
                cp4(as + r * T::LDA + q, ok ? A + (size_t)(m0 + r) * L + k0 + q : A, ok);
            }
        }
        if (B_VEC) {
            constexpr int CH = T::BK * T::BN / 4;
            for (int c = tid; c < CH; c += T::NT) {
                const int r = c / (T::BN / 4), q = (c % (T::BN / 4)) * 4;
                const bool ok = k0 + r < L && n0 + q < Kc;  // Kc % 4 == 0
                cp16(bs + T::bidx(r, q), ok ? B + (size_t)(k0 + r) * Kc + n0 + q : B, ok);
            }
        } else {
            for (int c = tid; c < T::BK * T::BN; c += T::NT) {
                const int r = c / T::BN, q = c % T::BN;
                const bool ok = k0 + r < L && n0 + q < Kc;
                cp4(bs + T::bidx(r, q), ok ? B + (size_t)(k0 + r) * Kc + n0 + q : B, ok);
            }
        }
    };

    double acc[T::FM][T::FN][4];  // D[16i + g][8j + 2t + e] at e, D[16i + 8 + g][…] at 2 + e
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
        for (int j = 0; j < T::FN; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0;

#pragma unroll
    for (int s = 0; s < T::STAGES - 1; ++s) {  // prologue: empty groups past the last tile keep the count
        if (s < tiles) load(s, s);
        cp_commit();
    }
    for (int kt = 0; kt < tiles; ++kt) {
        cp_wait<T::STAGES - 2>();  // tile kt has landed (this thread's copies) ...
        __syncthreads();           // ... everyone's; and the stage refilled below is no longer read
        const int next = kt + T::STAGES - 1;
        if (next < tiles) load(next, next % T::STAGES);
        cp_commit();
        const float* as = smem + (kt % T::STAGES) * T::STAGE_FLOATS;
        const float* bs = as + T::A_FLOATS;
#if __CUDA_ARCH__ >= 900
        // m16n8k8: the instruction's k = t and t + 4 are this tile's k = 2t and 2t + 1 (any
        // pairing of A's and B's k is the same sum), so A's two come in one 8-byte load
#pragma unroll
        for (int kk = 0; kk < T::BK; kk += 8) {
            double fa[T::FM][4], fb[T::FN][2];
#pragma unroll
            for (int i = 0; i < T::FM; ++i) {
                const float2 lo = *reinterpret_cast<const float2*>(as + (wm + 16 * i + g) * T::LDA + kk + 2 * t);
                const float2 hi = *reinterpret_cast<const float2*>(as + (wm + 16 * i + 8 + g) * T::LDA + kk + 2 * t);
                fa[i][0] = lo.x, fa[i][1] = hi.x, fa[i][2] = lo.y, fa[i][3] = hi.y;
            }
#pragma unroll
            for (int j = 0; j < T::FN; ++j) {
                fb[j][0] = bs[T::bidx(kk + 2 * t, wn + 8 * j + g)];
                fb[j][1] = bs[T::bidx(kk + 2 * t + 1, wn + 8 * j + g)];
            }
#pragma unroll
            for (int i = 0; i < T::FM; ++i)
#pragma unroll
                for (int j = 0; j < T::FN; ++j) dmma16(acc[i][j], fa[i], fb[j]);
        }
#else
        // sm_80: m8n8k4, two a 16×8 fragment
#pragma unroll
        for (int kk = 0; kk < T::BK; kk += 4) {
            double fa[T::FM][2], fb[T::FN];
#pragma unroll
            for (int i = 0; i < T::FM; ++i) {
                fa[i][0] = as[(wm + 16 * i + g) * T::LDA + kk + t];  // A[g][t]
                fa[i][1] = as[(wm + 16 * i + 8 + g) * T::LDA + kk + t];
            }
#pragma unroll
            for (int j = 0; j < T::FN; ++j) fb[j] = bs[T::bidx(kk + t, wn + 8 * j + g)];  // B[t][g]
#pragma unroll
            for (int i = 0; i < T::FM; ++i)
#pragma unroll
                for (int j = 0; j < T::FN; ++j) {
                    dmma(acc[i][j][0], acc[i][j][1], fa[i][0], fb[j]);
                    dmma(acc[i][j][2], acc[i][j][3], fa[i][1], fb[j]);
                }
        }
#endif
    }
    cp_wait<0>();
    // D fragment: row g, columns 2t and 2t + 1; one rounding to fp32
    const bool pair_ok = (Kc % 2 == 0) && (reinterpret_cast<size_t>(C) % 8 == 0);
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = m0 + wm + 16 * i + 8 * h + g;
            if (m >= M) continue;
#pragma unroll
            for (int j = 0; j < T::FN; ++j) {
                const int n = n0 + wn + j * 8 + 2 * t;
                const float v0 = static_cast<float>(acc[i][j][2 * h]), v1 = static_cast<float>(acc[i][j][2 * h + 1]);
                float* dst = C + (size_t)m * Kc + n;
                if (pair_ok && n + 1 < Kc) {
                    *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
                } else {
                    if (n < Kc) dst[0] = v0;
                    if (n + 1 < Kc) dst[1] = v1;
                }
            }
        }
#else
    // sm_75: a thread an output of the block's tile, the same exact sum by scalar fp64 FMAs
    for (int e = threadIdx.x; e < T::BM * T::BN; e += T::NT) {
        const int m = blockIdx.y * T::BM + e / T::BN, n = blockIdx.x * T::BN + e % T::BN;
        if (m >= M || n >= Kc) continue;
        double s = 0.0;
        for (int k = 0; k < L; ++k) s = fma((double)A[(size_t)m * L + k], (double)B[(size_t)k * Kc + n], s);
        C[(size_t)m * Kc + n] = static_cast<float>(s);
    }
#endif
}

template <class T, bool AV, bool BV>
cudaError_t launch(const float* A, const float* B, float* C, int batch, int M, int L, int Kc) {
    auto kern = dmma_gemm<T, AV, BV>;
    cudaError_t err = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)T::SMEM);
    if (err != cudaSuccess) return err;
    const dim3 grid((Kc + T::BN - 1) / T::BN, (M + T::BM - 1) / T::BM, batch);
    kern<<<grid, T::NT, T::SMEM>>>(A, B, C, M, L, Kc);
    return cudaGetLastError();
}

template <class T>
cudaError_t launch_any(const float* A, const float* B, float* C, int batch, int M, int L, int Kc) {
    const bool av = L % 4 == 0 && reinterpret_cast<size_t>(A) % 16 == 0;
    const bool bv = Kc % 4 == 0 && reinterpret_cast<size_t>(B) % 16 == 0;
    if (av && bv) return launch<T, true, true>(A, B, C, batch, M, L, Kc);
    if (av) return launch<T, true, false>(A, B, C, batch, M, L, Kc);
    if (bv) return launch<T, false, true>(A, B, C, batch, M, L, Kc);
    return launch<T, false, false>(A, B, C, batch, M, L, Kc);
}

// 128×128 tiles where they fill the SMs, else 64×64
void gemm(const float* A, const float* B, float* C, int batch, int M, int L, int Kc) {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return;
    const long big = (long)((M + 127) / 128) * ((Kc + 127) / 128) * batch;
    if (big >= sms)
        launch_any<Big>(A, B, C, batch, M, L, Kc);
    else
        launch_any<Small>(A, B, C, batch, M, L, Kc);
}

}  // namespace

#ifdef DMMA_BATCHED
// challenge 30: C[b] (M×N) = A[b] (M×K) · B[b] (K×N); A, B, C are device pointers
extern "C" void solve(const float* A, const float* B, float* C, int BATCH, int M, int N, int K) {
    if (BATCH <= 0 || M <= 0 || N <= 0) return;
    gemm(A, B, C, BATCH, M, K < 0 ? 0 : K, N);
}
#else
// challenge 2: C (M×K) = A (M×N) · B (N×K); A, B, C are device pointers
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    if (M <= 0 || K <= 0) return;
    gemm(A, B, C, 1, M, N, K);
}
#endif
