// 03_exact — every sum exact where the GPU has fast FP64 tensor cores: 02's paths with fp64 accumulators, its tiles on DMMA (m16n8k8 on Hopper, m8n8k4 on A100) fed by a cp.async ring of fp32 tiles
//
// Changed from 02: the numbers. At 1e-4, U(−10, 10) fills, an fp32 sum in another order than
//   cuBLAS's misses both references where a long sum cancels (02 fails 12–20 of 64 random shapes a
//   seed). fp32 products are exact in fp64, an fp64 sum of 8192 within ~1e-12 of exact: C too.
// Exact tiles (mm_exact): 128×128 (8 warps of 64×32), 128×64, 64×64 (4 warps) by 02's makespan
//   model; 128×64 where 128×128 runs at depth ≤ 256 (two hide a lone CTA's prologue and epilogue);
//   64×64 at depth ≤ 16 (C's writes the cost; 2 stages, 4 CTAs an SM where B's rows are unaligned).
//   fp32 k-tiles 32 deep (16 where 32 pads depth < 128) in a 3-stage cp.async ring, zero-filled
//   past the edges, widened to fp64 at the fragment load. Hopper: m16n8k8 .f64, k pairs (t, t + 4)
//   read as (2t, 2t + 1), A's two in one 8-byte load; A rows 24 floats apart, B's XOR-swizzled.
// Rows not 16-byte aligned (depth or cols % 4 ≠ 0): 4-byte cp.async, A of even depth 8-byte; from
//   2^28 multiply-adds such a matrix is copied once (mm_pad) into rows of a multiple of 4 floats.
// Split K (fewer 64×64 tiles than 1.5 waves, depth ≥ 256): pieces for 4 CTAs an SM, refitted past
//   one wave to the CTAs an SM holds (3 on H100, 2 on A100); 128×64 tiles (2 an SM) for ≥ 512 rows,
//   ≥ 320 deep; 32×64 (4 warps of 16×32) where they pad C's rows a fifth less. mm_split_sum adds
//   the fp64 planes in order; on Hopper, where cudaOccupancyMaxActiveClusters says all fit, a
//   tile's ≤ 16 pieces are one cluster, adding over DSMEM in that order. Odd cols: 02's.
// Up to 16 rows (mm_gemv): a lane a column of B, read once; A's rows widened once in shared memory;
//   the depth sliced for 4 blocks an SM, added in order by mm_split_sum. 1–4 columns, ≥ 256 rows
//   (mm_narrow): a warp 4 rows, its lanes along k, the sums met by xor shuffles. Depth ≤ 8: 02's
//   mm_thin, mm_dot in fp64, column threads 32 or 64 where 128 would idle a sixth of its lanes.
// Up to 16 columns, ≥ 128 deep (past mm_narrow): 64×8 exact tiles (4 warps of 16×8), 64×16 past 8
//   (64×64 would do 4–8× the DMMAs), split for the CTAs an SM holds, pieces ≥ 64 deep. 64×16 on to
//   256 columns while ≤ 4 an SM, where C takes ≤ 2^26 multiply-adds or they pad a third fewer
//   columns (A ≤ 2^21 floats): 4× the tiles fill SMs that few 64×64 tiles leave idle.
// Paths by judge GPU: A100, H100, H200 exact; T4 (no DMMA, FP64 at 1/32), B200 (DMMA at half its
//   FP32 rate) and sm_75 PTX on a newer GPU (mm_exact_ok asks the PTX version): 02's fp32 kernels.
// Prediction (before measuring): random shapes pass (exact GPUs); large 1.1–1.2× cuBLAS's time; geo
//   mean ~0.75×; paths 0.55–0.97× the one before: split sum 0.5–0.7×, mm_narrow 0.35–0.75×, 64×8
//   and 64×16 0.55–0.85×, one launch 0.75–0.9×, ≥ 64-deep pieces 0.80–0.93×, depth ≤ 16 0.75–0.90×
//   (4 CTAs 0.80–0.92×), 32×64 0.80–0.95×, 64×16 past 16 cols 0.70–0.95×.
// Measured (H100, H200; to the file before): tests pass (A100, T4 paths as PTX), memcheck,
//   racecheck clean. 32-deep tiles 0.86–0.96×; split sum 0.40–0.64×, rule 0.67–0.91×; staged
//   epilogue 0.53–0.92×; mm_gemv 0.44–0.94×; padded copies 0.76–0.92×; 128×64 at depth ≤ 256
//   0.88–0.96×; mm_narrow 0.45–0.91× (1–4 cols). H100: under a wave pieces fitted 0.87–0.97×, one
//   launch 0.88–0.93×, past it occupancy-bound 0.82–0.96× (5), 1.00× (10); 64×8 0.47–0.86×; 64×16
//   0.60–0.77× (9), 1.00× (2); thin column threads 0.84–0.95× (4), 0.99–1.01× (5); A's pairs
//   0.90–1.00×; ≥ 64-deep pieces 0.82–0.93× (3), 1.00–1.02× (7); 64×64 at depth ≤ 16 0.91–0.96×
//   (4), 0.98–1.02× (6), 4 CTAs an SM 0.90–0.94× (4), 1.00–1.01× (2) (B aligned 0.95–1.05×); 32×64
//   0.73–0.95× (5), 0.99–1.01× (6); 64×16 past 16 cols 0.65–0.92× (19), 1.00–1.03× (10).
// Tiles: exact 128×128, 128×64, 64×64, 32×64, 64×16, 64×8, each ×32 × 3 (×16 × 4 where 32 pads).
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
// History (the header before it was condensed): lab/stages/matmul_fp32_03_exact.md

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#ifndef MM_GEMV_ROWS
#define MM_GEMV_ROWS 16  // exact paths: C of at most this many rows and over 32 columns takes mm_gemv (0: never)
#endif

// ---------------------------------------------------------------- copy primitives
// sm_80+: cp.async (LDGSTS). Older targets: a plain load and store, which keeps the same
// pipeline correct (the waits become no-ops and the barriers still order everything).
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 4 bytes, no predicate
__device__ __forceinline__ void cp4(float* dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_u32(dst)), "l"(src));
#else
    *dst = *src;
#endif
}
// 4 bytes; !ok: writes 0 and reads nothing (src must still be a valid address: callers pass one)
__device__ __forceinline__ void cp4_zfill(float* dst, const float* src, bool ok) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(ok ? 4 : 0));
#else
    *dst = ok ? *src : 0.0f;
#endif
}
// 16 bytes, no predicate (L2 only: the data is used once per block)
__device__ __forceinline__ void cp16(float* dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
#else
    *reinterpret_cast<float4*>(dst) = *reinterpret_cast<const float4*>(src);
#endif
}
__device__ __forceinline__ void cp16_zfill(float* dst, const float* src, bool ok) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(ok ? 16 : 0));
#else
    *reinterpret_cast<float4*>(dst) =
        ok ? *reinterpret_cast<const float4*>(src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#endif
}
// 8 bytes (.ca: cp.async takes .cg only at 16); !ok: writes zeros and reads nothing
__device__ __forceinline__ void cp8_zfill(float* dst, const float* src, bool ok) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(ok ? 8 : 0));
#else
    *reinterpret_cast<float2*>(dst) = ok ? *reinterpret_cast<const float2*>(src) : make_float2(0.0f, 0.0f);
#endif
}
__device__ __forceinline__ void cp_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int PENDING>
__device__ __forceinline__ void cp_wait() {  // at most PENDING most recent groups still in flight
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

// ---------------------------------------------------------------- tile configurations
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int NT = WARPS_M * WARPS_N * 32;
    static constexpr int LM = 8, LN = 4;  // lanes along M (fastest-varying lane index) and N
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    static constexpr int TM = WM / LM, TN = WN / LN;  // per-thread tile
    static constexpr int APAD = 4;                    // As row = BM+4 floats (see the loader)
    static constexpr int A_ITERS = BM * BK / NT;      // 4-byte copies of A per thread per k-tile
    static constexpr int A_STEP = NT / BK;            // rows between a thread's A copies
    static constexpr int BV_ITERS = BK * BN / 4 / NT; // 16-byte copies of B (aligned path)
    static constexpr int BV_STEP = NT / (BN / 4);     // k-rows between them
    static constexpr int BS_ITERS = BK * BN / NT;     // 4-byte copies of B (unaligned path)
    static constexpr int BS_STEP = NT / BN;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps tile the block");
    static_assert(WM % (4 * LM) == 0 && WN % (4 * LN) == 0, "thread tiles are 4×4 sub-tiles");
    static_assert(BM % 32 == 0, "(BM+APAD) % 32 == 4: k-rows of As start 4 banks apart");
    static_assert(NT % BK == 0 && (BM * BK) % NT == 0, "A copies: fixed k column per thread");
    static_assert(NT % (BN / 4) == 0 && (BK * BN / 4) % NT == 0, "B float4 copies: fixed columns");
    static_assert(NT % BN == 0 && (BK * BN) % NT == 0, "B scalar copies: fixed column");
    static_assert(BK == 8, "8 lanes copy one 32-byte k-row segment of A: conflict-free with APAD");
    static_assert(BK % 2 == 0, "fragment registers ping-pong over k");
    static_assert(STAGES >= 2, "pipeline needs a buffer to fill while one is read");
    static_assert((STAGES * BK * (BM + APAD) + STAGES * BK * BN) * 4 <= 48 * 1024,
                  "static shared memory limit");
};
using BigCfg = Cfg<128, 128, 8, 2, 2, 4>;  // 128 threads, 8×16 per thread
using MidCfg = Cfg<128, 64, 8, 2, 2, 4>;   // 128 threads, 8×8 per thread
using SmallCfg = Cfg<64, 64, 8, 2, 2, 4>;  // 128 threads, 4×8 per thread
constexpr int kGroupM = 8;  // block-rows per raster group (L2 reuse)
template <bool V>
struct BoolTag {  // compile-time flag passed to a generic lambda
    static constexpr bool value = V;
};

// ---------------------------------------------------------------- kernel
// VEC: N % 4 == 0 and B, C 16-byte aligned (A is copied 4 bytes at a time and needs nothing).
// SPLIT (gridDim.y pieces of k_per; lda is A's row stride): piece z computes its partial product
// over k in [z·k_per, (z+1)·k_per) into ws + z·M·N; the last piece of a tile to finish (counter)
// adds the pieces in order z = 0, 1, ... into C and resets the counter. Without SPLIT the code
// is 09's exactly (a re-typed copy once scheduled 10% slower).
template <class CF, bool VEC, bool SPLIT, bool STAGE = false>
__global__ void __launch_bounds__(CF::NT, 2)
    sgemm_tuned(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K, float alpha, float beta, int grid_m, int grid_n, int lda, int k_per,
                float* __restrict__ ws, int* __restrict__ counters) {
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, S = CF::STAGES;
    constexpr int TM = CF::TM, TN = CF::TN, LM = CF::LM, LN = CF::LN;
    __shared__ __align__(16) float As[S][BK][BM + CF::APAD];  // transposed: As[s][k][m]
    __shared__ __align__(16) float Bs[S][BK][BN];

    // grouped raster: kGroupM block-rows are walked column by column
    const int pid = blockIdx.x;
    const int width = kGroupM * grid_n;
    const int first_m = pid / width * kGroupM;
    const int gsz = min(grid_m - first_m, kGroupM);
    const int bm = first_m + pid % width % gsz;
    const int bn = pid % width / gsz;
    const int m0 = bm * BM, n0 = bn * BN;
    const bool edge = m0 + BM > M || n0 + BN > N;  // block-uniform
    float* const c_out = C;
    if (SPLIT) {  // this piece's slice of K, its partial product into ws
        const int k0 = blockIdx.y * k_per;
        A += k0;
        B += (size_t)k0 * N;
        K = min(k_per, K - k0);
        C = ws + (size_t)blockIdx.y * M * N;
    }

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = warp / CF::WARPS_N * CF::WM + lane % LM * 4;  // + g*4*LM + r
    const int col0 = warp % CF::WARPS_N * CF::WN + lane / LM * 4;  // + h*4*LN + c

    // loader coordinates (fixed per thread; rows/k-rows advance by *_STEP per copy)
    const int a_k = tid % BK, a_m = tid / BK;
    const int bv_k = tid / (BN / 4), bv_n = tid % (BN / 4) * 4;
    const int bs_k = tid / BN, bs_n = tid % BN;
    const int a_ld = SPLIT ? lda : K;
    const float* a_src = A + (size_t)(m0 + a_m) * a_ld + a_k;
    const size_t a_step = (size_t)CF::A_STEP * a_ld;

    const int KT = (K + BK - 1) / BK;  // k-tiles; the last may be partial
    const int KT_full = K / BK;

    // Copy k-tile kt into stage s. PRED: zero-fill rows ≥ M, columns ≥ N and k ≥ K, and point
    // masked copies at A/B themselves so no address outside the matrices is ever formed for use.
    auto load_tile = [&](int kt, int s, auto pred_tag) {
        constexpr bool PRED = decltype(pred_tag)::value;
        const int kbase = kt * BK;
#pragma unroll
        for (int i = 0; i < CF::A_ITERS; ++i) {
            float* dst = &As[s][a_k][a_m + i * CF::A_STEP];
            const float* src = a_src + i * a_step + kbase;
            if (PRED) {
                const bool ok = m0 + a_m + i * CF::A_STEP < M && kbase + a_k < K;
                cp4_zfill(dst, ok ? src : A, ok);
            } else {
                cp4(dst, src);
            }
        }
        if (VEC) {
#pragma unroll
            for (int i = 0; i < CF::BV_ITERS; ++i) {
                const int kk = bv_k + i * CF::BV_STEP;
                float* dst = &Bs[s][kk][bv_n];
                const float* src = B + (size_t)(kbase + kk) * N + n0 + bv_n;
                if (PRED) {
                    const bool ok = n0 + bv_n < N && kbase + kk < K;  // N%4==0: all 4 or none
                    cp16_zfill(dst, ok ? src : B, ok);
                } else {
                    cp16(dst, src);
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < CF::BS_ITERS; ++i) {
                const int kk = bs_k + i * CF::BS_STEP;
                float* dst = &Bs[s][kk][bs_n];
                const float* src = B + (size_t)(kbase + kk) * N + n0 + bs_n;
                if (PRED) {
                    const bool ok = n0 + bs_n < N && kbase + kk < K;
                    cp4_zfill(dst, ok ? src : B, ok);
                } else {
                    cp4(dst, src);
                }
            }
        }
    };
    auto issue = [&](int kt) {  // uniform branch: predicated copies only at edges and the K tail
        if (kt >= KT) return;
        const int s = kt % S;
        if (!edge && kt < KT_full)
            load_tile(kt, s, BoolTag<false>{});
        else
            load_tile(kt, s, BoolTag<true>{});
    };

    float4 a[2][TM / 4], b[2][TN / 4];  // two fragment sets: k and k+1
    auto load_frag = [&](int slot, int s, int k) {
#pragma unroll
        for (int g = 0; g < TM / 4; ++g)
            a[slot][g] = *reinterpret_cast<const float4*>(&As[s][k][row0 + g * 4 * LM]);
#pragma unroll
        for (int h = 0; h < TN / 4; ++h)
            b[slot][h] = *reinterpret_cast<const float4*>(&Bs[s][k][col0 + h * 4 * LN]);
    };
    float acc[TM][TN] = {};
    auto fma_step = [&](int slot) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const float4 av = a[slot][i / 4];
            const float ai = (i % 4 == 0) ? av.x : (i % 4 == 1) ? av.y : (i % 4 == 2) ? av.z : av.w;
#pragma unroll
            for (int h = 0; h < TN / 4; ++h) {
                acc[i][h * 4 + 0] += ai * b[slot][h].x;
                acc[i][h * 4 + 1] += ai * b[slot][h].y;
                acc[i][h * 4 + 2] += ai * b[slot][h].z;
                acc[i][h * 4 + 3] += ai * b[slot][h].w;
            }
        }
    };

    // Prologue: k-tiles 0..S-2 in flight (one commit group each, empty past the end).
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        issue(s);
        cp_commit();
    }
    cp_wait<S - 2>();  // k-tile 0 has landed
    __syncthreads();
    load_frag(0, 0, 0);

    int s_cur = 0;  // stage of k-tile t
    for (int t = 0; t < KT; ++t) {
        const int s_next = (s_cur + 1 == S) ? 0 : s_cur + 1;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k == BK - 1) {
                // Groups committed so far: k-tiles 0..t+S-1. Allowing S-2 pending means k-tile
                // t+1 has landed; the barrier also tells every thread that all reads of k-tile
                // t-1's stage (overwritten at k == 0 of the next tile) are done.
                cp_wait<S - 2>();
                __syncthreads();
            }
            if (k < BK - 1)
                load_frag((k + 1) & 1, s_cur, k + 1);
            else
                load_frag(0, s_next, 0);  // next k-tile (stale but harmless after the last one)
            if (k == 0) {
                // Refill the stage of k-tile t-1: every thread passed the barrier of tile t-1
                // after its last read of that stage.
                issue(t + S - 1);
                cp_commit();
            }
            fma_step(k & 1);
        }
        s_cur = s_next;
    }

    // Epilogue: out = alpha*acc + beta*C_old; C is never read when beta == 0.
    const bool read_c = beta != 0.0f;
    if constexpr (STAGE) {
        // C's rows not 16-byte aligned (!VEC): 32 rows at a time through the freed ring, each row
        // then written as warp-wide runs (a lane a column), not 4-byte pieces 16 bytes apart in
        // 8 rows
        constexpr int RS = BN + 4, PASS_ROWS = 4 * LM, G = TM / 4;
        static_assert(PASS_ROWS * RS <= S * BK * (BM + CF::APAD), "a pass fits in As");
        float* const st = &As[0][0][0];
        const int wm = warp / CF::WARPS_N;
        __syncthreads();  // every warp's last fragment reads of the ring are done
#pragma unroll
        for (int p = 0; p < BM / PASS_ROWS; ++p) {
            if (wm == p / G) {
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    const int i = p % G * 4 + r;
                    float* srow = st + (lane % LM * 4 + r) * RS + col0;
#pragma unroll
                    for (int h = 0; h < TN / 4; ++h)
                        *reinterpret_cast<float4*>(srow + h * 4 * LN) =
                            make_float4(alpha * acc[i][h * 4 + 0], alpha * acc[i][h * 4 + 1],
                                        alpha * acc[i][h * 4 + 2], alpha * acc[i][h * 4 + 3]);
                }
            }
            __syncthreads();
#pragma unroll 4
            for (int e = tid; e < PASS_ROWS * BN; e += CF::NT) {
                const int r = e / BN, c = e % BN;
                const int row = m0 + p * PASS_ROWS + r, col = n0 + c;
                if (edge && (row >= M || col >= N)) continue;
                const float v = st[r * RS + c];
                float* q = C + (size_t)row * N + col;
                *q = read_c ? v + beta * *q : v;
            }
            __syncthreads();
        }
    } else {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = m0 + row0 + i / 4 * 4 * LM + i % 4;
            if (edge && row >= M) continue;
            float* crow = C + (size_t)row * N;
#pragma unroll
            for (int h = 0; h < TN / 4; ++h) {
                const int col = n0 + col0 + h * 4 * LN;
                float4 o = make_float4(alpha * acc[i][h * 4 + 0], alpha * acc[i][h * 4 + 1],
                                       alpha * acc[i][h * 4 + 2], alpha * acc[i][h * 4 + 3]);
                if (VEC) {
                    if (edge && col >= N) continue;  // N % 4 == 0: col < N means col+3 < N
                    float4* p = reinterpret_cast<float4*>(crow + col);
                    if (read_c) {
                        const float4 old = *p;
                        o.x += beta * old.x; o.y += beta * old.y; o.z += beta * old.z; o.w += beta * old.w;
                    }
                    *p = o;
                } else {
                    const float e[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
                    for (int c = 0; c < 4; ++c) {
                        if (edge && col + c >= N) break;
                        float* p = crow + col + c;
                        *p = read_c ? e[c] + beta * *p : e[c];
                    }
                }
            }
        }
    }
    if (!SPLIT) return;
    // Split K: publish this piece (fence, then one counter add a block); the last piece reads
    // every piece past L1 (__ldcg) and writes their sum, in piece order, to C.
    __shared__ int last;
    __threadfence();
    __syncthreads();
    if (tid == 0) last = atomicAdd(counters + pid, 1) == (int)gridDim.y - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const size_t plane = (size_t)M * N;
    for (int i = tid; i < BM * BN; i += CF::NT) {
        const int row = m0 + i / BN, col = n0 + i % BN;
        if (row >= M || col >= N) continue;
        const float* p = ws + (size_t)row * N + col;
        float sum = 0.0f;
        for (int z = 0; z < (int)gridDim.y; ++z) sum += __ldcg(p + z * plane);
        c_out[(size_t)row * N + col] = sum;
    }
    if (tid == 0) counters[pid] = 0;
}

// ---------------------------------------------------------------- thin inner dimension
// depth ≤ kThinMaxDepth: C is the whole cost (3728×2×4778 writes 71 MB and reads 76 KB), and a
// 128×128 tile of 8-deep k-steps runs it at a fifth of the write bandwidth. Here a thread keeps
// B's depth×4 values for its 4 columns in registers and walks `per` rows of A (warp-uniform
// loads, 16 bytes at a time where A's rows allow), writing each row's 4 outputs with a
// streaming store (C is not read again). Acc = double: exact products, one rounding at the store.
// Threads: tx along columns (4 each), 128/tx along rows, rows r_first + i·(128/tx), i < per.
// VEC: cols % 4 == 0 and B, C 16-byte aligned; otherwise column j of a thread's 4 is tx apart,
// so each scalar store of a warp is still one contiguous run.
constexpr int kThinThreads = 128, kThinRows = 8;
template <int D, bool VEC, class Acc>
__global__ void __launch_bounds__(kThinThreads)
    mm_thin(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
            int rows, int depth, int cols, int tx, int per, bool a16) {
    const int ty = kThinThreads / tx, lc = threadIdx.x % tx, lr = threadIdx.x / tx;
    const int cbase = blockIdx.x * tx * 4;
    int col[4];
    bool ok[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        col[j] = VEC ? cbase + lc * 4 + j : cbase + lc + j * tx;
        ok[j] = col[j] < cols;
    }
    if (!ok[0]) return;  // VEC: cols % 4 == 0, so all four or none
    float b[D][4];
#pragma unroll
    for (int d = 0; d < D; ++d) {
        if (d < depth) {
            const float* src = B + (size_t)d * cols;
            if (VEC) {
                const float4 v = __ldg(reinterpret_cast<const float4*>(src + col[0]));
                b[d][0] = v.x; b[d][1] = v.y; b[d][2] = v.z; b[d][3] = v.w;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) b[d][j] = ok[j] ? __ldg(src + col[j]) : 0.0f;
            }
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) b[d][j] = 0.0f;
        }
    }
    // a16: depth % 4 == 0 and A 16-byte aligned, so every row of A is too
    const int r_first = blockIdx.y * ty * per + lr;
#pragma unroll 2
    for (int i = 0; i < per; ++i) {
        const int r = r_first + i * ty;
        if (r >= rows) break;
        const float* a = A + (size_t)r * depth;
        float av[D];
        if (a16) {
#pragma unroll
            for (int d = 0; d < D; d += 4) {
                if (d < depth) {
                    const float4 v = __ldg(reinterpret_cast<const float4*>(a + d));
                    av[d] = v.x; if (d + 1 < D) av[d + 1] = v.y;
                    if (d + 2 < D) av[d + 2] = v.z; if (d + 3 < D) av[d + 3] = v.w;
                }
            }
        } else {
#pragma unroll
            for (int d = 0; d < D; ++d)
                if (d < depth) av[d] = __ldg(a + d);
        }
        Acc o[4] = {0, 0, 0, 0};
#pragma unroll
        for (int d = 0; d < D; ++d) {
            if (d < depth) {
#pragma unroll
                for (int j = 0; j < 4; ++j) o[j] = fma(Acc(av[d]), Acc(b[d][j]), o[j]);
            }
        }
        float* out = C + (size_t)r * cols;
        if (VEC) {
            __stcs(reinterpret_cast<float4*>(out + col[0]),
                   make_float4(float(o[0]), float(o[1]), float(o[2]), float(o[3])));
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (ok[j]) __stcs(out + col[j], float(o[j]));
        }
    }
}

// ---------------------------------------------------------------- few rows, exact (mm_gemv)
// rows ≤ MM_GEMV_ROWS and cols > 32 on the exact paths: a 64-row DMMA tile would be 1/32 full
// or less (cuBLAS runs its GEMV kernels there). B is read once, coalesced: block (slab
// blockIdx.x, slice blockIdx.y) takes cw columns (a lane a column) and a slice of the depth, its
// 256 / cw thread groups each a contiguous part of the slice. A's R rows over the slice are
// converted to fp64 once, into shared memory as [k][R], so a thread's R sums for one element of
// B take R / 2 broadcast 16-byte loads, R fp64 FMAs and one conversion. The groups' sums meet in
// shared memory, added in group order; with more than one slice, each slice's rows × cw sums go
// to an fp64 plane and mm_split_sum, a thread an output over the whole grid, adds the planes in
// slice order (the slab's last block did, cw threads for rows × slices loads each: up to 8 rows
// and 92 slices at 8×3026×461, where the tiles were 1.28× faster). Every sum is fp64, C rounded
// once. The kernel takes up to 16 rows; MM_GEMV_ROWS says up to how many it is used.
constexpr int kGemvThreads = 256, kGemvSmemDoubles = 4096;  // 32 KB: A's slice, then the groups' sums
template <int R>
__global__ void __launch_bounds__(kGemvThreads, 2)
    mm_gemv(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int rows, int depth,
            int cols, int cw, int d_per, double* __restrict__ ws) {
    static_assert(R == 1 || R % 2 == 0, "pairs of rows a load");
    __shared__ __align__(16) double sm[kGemvSmemDoubles];
    const int tid = threadIdx.x, groups = kGemvThreads / cw, gi = tid / cw, c = tid % cw;
    const int n = blockIdx.x * cw + c, z = blockIdx.y, slices = gridDim.y;
    const int d0 = z * d_per, dl = min(d_per, depth - d0);  // dl ≤ kGemvSmemDoubles / R (host)
    const bool active = n < cols;
    // A[r][d0 + d] as sm[d·R + r]: a thread's loads walk R rows at one k (A is small and in L2)
    for (int i = tid; i < dl * R; i += kGemvThreads) {
        const int d = i / R, r = i % R;
        sm[i] = r < rows ? static_cast<double>(__ldg(A + (size_t)r * depth + d0 + d)) : 0.0;
    }
    __syncthreads();
    const int sub = (dl + groups - 1) / groups, kb = min(dl, gi * sub), ke = min(dl, kb + sub);
    double acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0.0;
    const auto step = [&](int d, float bf) {
        const double b = bf;
        if constexpr (R == 1) {
            acc[0] = fma(sm[d], b, acc[0]);
        } else {
            const double2* a2 = reinterpret_cast<const double2*>(sm + d * R);
#pragma unroll
            for (int r = 0; r < R / 2; ++r) {
                const double2 a = a2[r];
                acc[2 * r] = fma(a.x, b, acc[2 * r]);
                acc[2 * r + 1] = fma(a.y, b, acc[2 * r + 1]);
            }
        }
    };
    const float* bp = B + (size_t)(d0 + kb) * cols + n;
    int d = kb;
    for (; d + 8 <= ke; d += 8) {  // 8 loads of B in flight a thread
        float bv[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) bv[u] = active ? __ldg(bp + (size_t)u * cols) : 0.0f;
        bp += (size_t)8 * cols;
#pragma unroll
        for (int u = 0; u < 8; ++u) step(d + u, bv[u]);
    }
#pragma unroll 1
    for (; d < ke; ++d, bp += cols) step(d, active ? __ldg(bp) : 0.0f);
    __syncthreads();  // every thread is done with A's slice: its space takes the groups' sums
    double* part = sm;  // [group][r][column]: groups · R · cw = 256 · R ≤ kGemvSmemDoubles
#pragma unroll
    for (int r = 0; r < R; ++r) part[(gi * R + r) * cw + c] = acc[r];
    __syncthreads();
    const size_t plane = (size_t)rows * cols;  // a slice's partial C
    if (tid < cw && active) {
        for (int r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (int g = 0; g < groups; ++g) sum += part[(g * R + r) * cw + c];
            if (slices == 1) C[(size_t)r * cols + n] = static_cast<float>(sum);
            else ws[z * plane + (size_t)r * cols + n] = sum;
        }
    }
}

// ---------------------------------------------------------------- narrow C, many rows
// One to four columns (exact paths), many rows: a 64×64 DMMA tile would be at most 1/16 full and
// A, read once, is the whole cost (at 8192×8192×1 the tiles took 2.1× mm_narrow's time). mm_narrow:
// a warp takes 4 rows and a slice of the depth, its lanes along k (lane l: k = k0 + l + 32j, so
// each load of a row is 128 contiguous bytes) with V = 4·NC fp64 sums each; B's values a k from
// L1. No shared memory and no barrier: the next 128 k of A are loaded while these are summed.
// At the end the lanes' sums meet by xor shuffles: plain sums over the lane bits ≥ V, then a
// reduce-scatter (half the sums sent a step) that leaves lane l < V the total of sum l: row l / NC,
// column l % NC. More than one slice: fp64 planes, added in slice order by mm_split_sum; every sum
// fp64, C rounded once. Four columns need B's rows as float4 loads: as 4 scalar loads a k (each a
// 1 KB warp-wide gather) L1 was the bound and it ran 1.05–1.6× the tiles' time (run 263). Not for
// 8 columns: 1.05–1.3× slower even with float4 loads (run 265; lab/NOTES.md).
#ifndef MM_NARROW_COLS
#define MM_NARROW_COLS 4         // mm_narrow for C of at most this many columns (0: never, ≤ 4) ...
#endif
#ifndef MM_NARROW_MIN_ROWS
#define MM_NARROW_MIN_ROWS 256   // ... and at least this many rows
#endif
constexpr int kNarrowThreads = 256, kNarrowRows = 4, kNarrowJ = 4, kNarrowStep = 32 * kNarrowJ,
              kNarrowMinSlice = 512;
// VB: B's rows are NC floats (NC % 4 == 0) and 16-byte aligned, so lane l's row k is NC / 4
// float4 loads and the warp's 32 rows one contiguous span: B costs L1 what it is, not NC gathers.
template <int NC, bool VB>
__global__ void __launch_bounds__(kNarrowThreads, 2)
    mm_narrow(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int rows,
              int depth, int cols, int d_per, double* __restrict__ ws) {
    constexpr int RW = kNarrowRows, V = RW * NC;  // a warp's rows and a lane's sums (V ≤ 16)
    const int lane = threadIdx.x & 31;
    const int r0 = (blockIdx.x * (kNarrowThreads / 32) + (threadIdx.x >> 5)) * RW;
    if (r0 >= rows) return;  // a whole warp: nothing below waits on another warp
    const int z = blockIdx.y, d0 = z * d_per, d1 = min(depth, d0 + d_per);
    const float* a0 = A + (size_t)r0 * depth;
    float an[RW][kNarrowJ];  // the next step's A, in flight while this one is summed
    const auto load = [&](int k0) {
#pragma unroll
        for (int r = 0; r < RW; ++r)
#pragma unroll
            for (int j = 0; j < kNarrowJ; ++j) {
                const int k = k0 + 32 * j + lane;
                an[r][j] = r0 + r < rows && k < d1 ? __ldg(a0 + (size_t)r * depth + k) : 0.0f;
            }
    };
    double acc[V];
#pragma unroll
    for (int i = 0; i < V; ++i) acc[i] = 0.0;
    load(d0);
    for (int k0 = d0; k0 < d1; k0 += kNarrowStep) {
        float a[RW][kNarrowJ];
#pragma unroll
        for (int r = 0; r < RW; ++r)
#pragma unroll
            for (int j = 0; j < kNarrowJ; ++j) a[r][j] = an[r][j];
        if (k0 + kNarrowStep < d1) load(k0 + kNarrowStep);
#pragma unroll
        for (int j = 0; j < kNarrowJ; ++j) {
            const int k = k0 + 32 * j + lane;
            const float* brow = B + (size_t)k * cols;
            float bv[NC];
            if (VB) {
#pragma unroll
                for (int q = 0; q < NC / 4; ++q) {
                    const float4 t = k < d1 ? __ldg(reinterpret_cast<const float4*>(brow) + q)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    bv[4 * q] = t.x, bv[4 * q + 1] = t.y, bv[4 * q + 2] = t.z, bv[4 * q + 3] = t.w;
                }
            } else {
#pragma unroll
                for (int c = 0; c < NC; ++c) bv[c] = k < d1 && c < cols ? __ldg(brow + c) : 0.0f;
            }
#pragma unroll
            for (int c = 0; c < NC; ++c) {
                const double b = static_cast<double>(bv[c]);
#pragma unroll
                for (int r = 0; r < RW; ++r) acc[r * NC + c] = fma(static_cast<double>(a[r][j]), b, acc[r * NC + c]);
            }
        }
    }
    // lane bits ≥ V: every sum added to the partner's; then the reduce-scatter: at step s a lane
    // keeps the half of its sums whose index has bit s as its lane does, and adds the partner's
    // copy of that half. After the last step lane l holds the warp's sum l % V.
#pragma unroll
    for (int s = 16; s >= V; s >>= 1)
#pragma unroll
        for (int i = 0; i < V; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], s);
#pragma unroll
    for (int s = V / 2; s >= 1; s >>= 1) {
        const bool up = lane & s;
#pragma unroll
        for (int i = 0; i < s; ++i) {
            const double send = up ? acc[i] : acc[i + s], keep = up ? acc[i + s] : acc[i];
            acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, s);
        }
    }
    const int r = r0 + lane / NC, c = lane % NC;
    if (lane >= V || r >= rows || c >= cols) return;
    if (gridDim.y == 1) C[(size_t)r * cols + c] = static_cast<float>(acc[0]);
    else ws[(size_t)z * rows * cols + (size_t)r * cols + c] = acc[0];
}

// ---------------------------------------------------------------- small C, long inner dimension
// rows ≤ 64 and cols ≤ 32 (C of at most 2048 elements; 20×1336×2 has 40), depth > 8: a 64×64
// tile would leave most of its outputs empty. A block takes one row of C and a slice of the
// inner dimension. Its threads form 256/cp groups of cp lanes (cp: cols rounded up to a power of
// two); lane c of a group reads B[d][c], so a group reads one contiguous run of B's row d, and
// the group's lanes share A[r][d]. The groups' sums meet in shuffles, then shared memory; with
// more than one slice (gridDim.y), the last block of a row (a counter) adds the slices' partials
// in slice order. Acc = double: every partial sum in fp64 (ws too), one rounding at the end.
constexpr int kDotThreads = 256, kDotMaxCols = 32, kDotMaxRows = 64;
template <class Acc>
__global__ void __launch_bounds__(kDotThreads)
    mm_dot(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int depth,
           int cols, int cp, int d_per, Acc* __restrict__ ws, int* __restrict__ counters) {
    const int r = blockIdx.x, z = blockIdx.y, slices = (int)gridDim.y;
    const int c = threadIdx.x % cp, group = threadIdx.x / cp, groups = kDotThreads / cp;
    const int d_end = min(depth, (z + 1) * d_per);
    const float* a = A + (size_t)r * depth;
    Acc acc = 0;
    if (c < cols) {
#pragma unroll 4
        for (int d = z * d_per + group; d < d_end; d += groups)
            acc = fma(Acc(__ldg(a + d)), Acc(__ldg(B + (size_t)d * cols + c)), acc);
    }
    for (int o = cp; o < 32; o <<= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);  // cp divides 32
    __shared__ Acc part[kDotThreads / 32][32];
    __shared__ bool last;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane < cp) part[warp][lane] = acc;
    __syncthreads();
    const int t = threadIdx.x;  // t < cols: column t's sum over this block's slice
    Acc sum = 0;
    if (t < cols)
        for (int w = 0; w < kDotThreads / 32; ++w) sum += part[w][t];
    float* out = C + (size_t)r * cols;
    if (slices == 1) {
        if (t < cols) out[t] = float(sum);
        return;
    }
    const size_t plane = (size_t)gridDim.x * cols;  // a slice's partial C
    if (t < cols) ws[z * plane + (size_t)r * cols + t] = sum;
    __threadfence();
    __syncthreads();
    if (t == 0) last = atomicAdd(counters + r, 1) == slices - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (t < cols) {
        Acc total = 0;
        for (int zz = 0; zz < slices; ++zz) total += __ldcg(ws + zz * plane + (size_t)r * cols + t);
        out[t] = float(total);
    }
    if (t == 0) counters[r] = 0;
}

// ---------------------------------------------------------------- exact tiles: the FP64 tensor cores
// A·B with every product exact (fp32 × fp32 fits fp64) and every sum in fp64, C rounded once.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// D = A·B + D on one 8×8 fragment: a = A[g][t], b = B[t][g], c = D[g][2t], D[g][2t + 1]
__device__ __forceinline__ void dmma8(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// D = A·B + D on a 16×8 fragment over k8 (sm_90+): a = A[g][t], A[g + 8][t], A[g][t + 4],
// A[g + 8][t + 4]; b = B[t][g], B[t + 4][g]; c = D[g][2t, 2t + 1], D[g + 8][2t, 2t + 1]
__device__ __forceinline__ void dmma16(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
#endif

// MINB_: __launch_bounds__'s CTAs an SM (0: unbounded, the compiler's registers as without it)
template <int BM_, int BN_, int WARPS_M_, int WARPS_N_, int BK_ = 16, int STAGES_ = 4, int MINB_ = 0>
struct XTile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, MINB = MINB_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, NT = WARPS_M * WARPS_N * 32;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's tile
    static constexpr int FM = WM / 16, FN = WN / 8;             // its 16×8 fragments
    // floats a shared row: A's 24 mod 32; B's as wide as C's tile, or 4 more where it is 8 or 16
    // wide (rows 2t then at banks 8t·(LDB/4) mod 32: four different 8-bank groups, no swizzle)
    static constexpr int LDA = BK + (56 - BK % 32) % 32, LDB = BN % 32 == 0 ? BN : BN + 4;
    static constexpr int A_FLOATS = BM * LDA, B_FLOATS = BK * LDB;
    static constexpr int STAGE_FLOATS = A_FLOATS + B_FLOATS;
    static constexpr size_t SMEM = sizeof(float) * STAGE_FLOATS * STAGES;
    static_assert(LDA % 32 == 24, "A's 8-byte fragment loads conflict-free: rows g at banks 24g");
    static_assert(BN % 32 == 0 || BN == 8 || BN == 16, "B's chunk swizzle stays inside a row");
    // B[r][n] in shared memory: 16-byte chunks of a row XOR-ed by 2·(r / 2 % 4), so that the
    // fragment loads of rows 2t and 2t + 1 (t = 0..3) land on four different 8-bank groups
    static __device__ __forceinline__ int bidx(int r, int n) {
        if constexpr (BN % 32 != 0) return r * LDB + n;
        return r * LDB + (((n >> 2) ^ (((r >> 1) & 3) << 1)) << 2) + (n & 3);
    }
    // A thread's D fragments as pairs: f(i, j, h, r, c) for the pair at the warp tile's fragment
    // (i, j), half h (rows g, g + 8), tile row r and columns c, c + 1 (c = wn + 8j + 2t)
    template <class F>
    static __device__ __forceinline__ void each_pair(int wm, int wn, int g, int t, F&& f) {
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int j = 0; j < FN; ++j) f(i, j, h, wm + 16 * i + 8 * h + g, wn + 8 * j + 2 * t);
    }
};
// The 128-row tiles' k-tile depth and ring: a barrier and a cp.async wait every BK k, and each
// k-tile's first fragment loads wait there (no fragment can be loaded across the barrier), so a
// deeper k-tile exposes that latency half as often. 16-deep: 20 KB a stage (XBig), 32: 44 KB, so
// 3 stages (132 KB) fit the A100's 163 KB where 4 would not.
#ifndef MM_EXACT_BK
#define MM_EXACT_BK 32
#endif
#ifndef MM_EXACT_STAGES
#define MM_EXACT_STAGES 3
#endif
using XBig = XTile<128, 128, 2, 4, MM_EXACT_BK, MM_EXACT_STAGES>;  // 8 warps of 64×32
using XMid = XTile<128, 64, 2, 2, MM_EXACT_BK, MM_EXACT_STAGES>;   // 4 warps of 64×32
static_assert(XBig::SMEM <= 163 * 1024, "the A100's shared memory a block");
// A shallow depth that 32-deep k-tiles would pad (ceil(depth/16) odd, depth < 128: 9–16, 33–48,
// 65–80, 97–112) keeps 16-deep ones: at 3800×16×8055 32-deep tiles did twice the DMMAs (1.16×).
using XBig16 = XTile<128, 128, 2, 4>;
using XMid16 = XTile<128, 64, 2, 2>;
static bool shallow_pads(int bk, int depth) { return bk > 16 && depth < 128 && (depth + 15) / 16 % 2 == 1; }
// The 64×64 tile's k-tile depth and ring: 32 deep halves its waits and barriers as for the
// 128-row tiles; 3 stages are 66 KB a block (3 an SM on H100/H200, as its registers allow)
#ifndef MM_SMALL_BK
#define MM_SMALL_BK 32
#endif
#ifndef MM_SMALL_STAGES
#define MM_SMALL_STAGES 3
#endif
using XSmall = XTile<64, 64, 2, 2, MM_SMALL_BK, MM_SMALL_STAGES>;  // 4 warps of 32×32
using XSmall16 = XTile<64, 64, 2, 2>;
// Depth ≤ 16 (MM_SHALLOW_SMALL): one k-tile, so 2 stages (the staged epilogue's 64×72 floats
// fit), and registers for MM_SHALLOW_BLOCKS CTAs an SM: C's writes are the cost, and 3 CTAs an
// SM (154 registers, 40 KB) wrote 3800×16×8055's C at 1.26 TB/s (ncu)
#ifndef MM_SHALLOW_BLOCKS
#define MM_SHALLOW_BLOCKS 4
#endif
using XShallow = XTile<64, 64, 2, 2, 16, 2, MM_SHALLOW_BLOCKS>;
// C of at most 8 columns: 64×8 tiles, 4 warps of 16×8 (one m16n8k8 a k-step). A 64-wide tile
// there does 8× the DMMAs C needs and reads A at under the DMMA's pace (2136×7585×8: 1.23×).
// 9–16 columns: 64×16 tiles, 4 warps of 16×16 (two a k-step; batched_matmul_fp32 03's DSkinny).
#ifndef MM_SKINNY_COLS
#define MM_SKINNY_COLS 16  // exact tiles 8 or 16 wide for C of at most this many columns (0: never, ≤ 16)
#endif
// 64×16 tiles past 16 columns, up to MM_SKINNY_WIDE_COLS, while they are at most
// MM_SKINNY_WIDE_PER_SM an SM: few 64×64 tiles leave SMs idle (784×702×50: 13 tiles, 65 split
// CTAs for 132 SMs), where 4 times as many fill them. A 64×16 tile does 2.5× the loads a DMMA of
// a 64×64 one, so they pay only where the grid is small (at most MM_SKINNY_WIDE_MAX_MACS
// multiply-adds) or they pad C's columns a third less (71 columns: 80, not 128) with A at most
// MM_SKINNY_WIDE_MAX_A floats (each 16 columns re-read it): past both, 1200×1200×120 and
// 2577×1433×48 took 1.15× and 1.02–1.26× the 64×64 tiles' time.
#ifndef MM_SKINNY_WIDE_COLS
#define MM_SKINNY_WIDE_COLS 256  // exact: 64×16 tiles for C of at most this many columns ... (0: never)
#endif
#ifndef MM_SKINNY_WIDE_PER_SM
#define MM_SKINNY_WIDE_PER_SM 4  // ... while they are at most this many an SM ...
#endif
#ifndef MM_SKINNY_WIDE_MAX_MACS
#define MM_SKINNY_WIDE_MAX_MACS 67108864.0  // ... and C takes at most this many multiply-adds ...
#endif
#ifndef MM_SKINNY_WIDE_MAX_A
#define MM_SKINNY_WIDE_MAX_A 2097152LL  // ... or they pad a third less with A at most this many floats
#endif
using XSkinny = XTile<64, 8, 4, 1, MM_SMALL_BK, MM_SMALL_STAGES>;
using XSkinny16 = XTile<64, 16, 4, 1, MM_SMALL_BK, MM_SMALL_STAGES>;
// Few rows under split K: 32×64 exact tiles (4 warps of 16×32) where they pad C's rows at least a
// fifth less than 64×64 tiles (74 rows: 96 against 128). They load 1.5× the bytes a DMMA, but at
// a few rows the DMMAs spent on rows past C's cost more than those bytes.
#ifndef MM_SHORT_TILES
#define MM_SHORT_TILES 1  // 32×64 exact tiles under split K where they pad a fifth fewer rows (0: never)
#endif
using XShort = XTile<32, 64, 2, 2, MM_SMALL_BK, MM_SMALL_STAGES>;
static_assert(XShort::BK == XSmall::BK, "fit_pieces sizes a split's pieces in XSmall's k-tiles");

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Split K in one launch (Hopper): a tile's pieces are the CTAs of one cluster (blockIdx.z the
// piece). Each leaves its fp64 partial tile in its own shared memory; after the cluster barrier
// CTA r adds a 1/s share of the tile's outputs over the s pieces in piece order (as mm_split_sum:
// the same sums, bit for bit), reading the others' shared memory, and rounds once. No planes in
// global memory, no second kernel and its launch.
template <class T>
__device__ __forceinline__ void cluster_sum(const double (&acc)[T::FM][T::FN][4], float* smem, float* C,
                                            int rows, int cols, int m0, int n0, int wm, int wn) {
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    constexpr int RS = T::BN + 8;  // doubles a row: the fragments' 16-byte stores, rows g at banks 16g
    static_assert(T::BM * RS * 2 <= T::STAGE_FLOATS * T::STAGES, "the fp64 tile fits the ring");
    const int tid = threadIdx.x, g = (tid & 31) >> 2, t = tid & 3;
    double* red = reinterpret_cast<double*>(smem);
    __syncthreads();  // every warp's last fragment reads of the ring are done
    T::each_pair(wm, wn, g, t, [&](int i, int j, int h, int r, int c) {
        *reinterpret_cast<double2*>(red + r * RS + c) = make_double2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
    });
    cl.sync();  // every piece's tile is written, and visible to the cluster
    const int s = (int)gridDim.z, r = (int)blockIdx.z;
    constexpr int PAIRS = T::BM * T::BN / 2;
    for (int p = r * T::NT + tid; p < PAIRS; p += s * T::NT) {
        const int row = p / (T::BN / 2), col = p % (T::BN / 2) * 2, m = m0 + row, n = n0 + col;
        double x = 0.0, y = 0.0;
        for (int z0 = 0; z0 < s; z0 += 8) {  // 8 remote loads in flight
            double2 v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u)
                if (z0 + u < s) v[u] = *reinterpret_cast<const double2*>(cl.map_shared_rank(red, z0 + u) + row * RS + col);
#pragma unroll
            for (int u = 0; u < 8; ++u)
                if (z0 + u < s) x += v[u].x, y += v[u].y;
        }
        if (m < rows) {
            if (n < cols) C[(size_t)m * cols + n] = static_cast<float>(x);
            if (n + 1 < cols) C[(size_t)m * cols + n + 1] = static_cast<float>(y);
        }
    }
    cl.sync();  // no CTA leaves while another still reads its shared memory
}
#endif

// C (rows×cols) = A (rows×depth) · B (depth×cols). A_VEC / B_VEC: that matrix's rows are 16-byte
// aligned, on the 128-row tiles each its width rounded up to 4 floats long (a padded copy's rows
// end in zeros). SPLIT: piece z = blockIdx.z sums k in [z·k_per, (z+1)·k_per) into
// ws + z·rows·cols (fp64); mm_split_sum then adds the pieces in order into C (CL, Hopper: no
// planes, the pieces are one cluster and cluster_sum adds them; its own instantiation, so that
// the planes' kernel is compiled as without it). STAGE (C's rows
// not 16-byte aligned): the tile goes through the freed ring as fp32 and is written a row at a
// time, a warp 32 consecutive columns, not in the fragment layout's 4-byte pieces over 8 rows
// (02's staged epilogue: 0.64–0.97× the scattered stores' time where the tiles fill the SMs).
template <class T, bool A_VEC, bool B_VEC, bool SPLIT, bool STAGE = false, bool CL = false, bool A8 = false>
__global__ void __launch_bounds__(T::NT, T::MINB)
    mm_exact(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int rows,
             int depth, int cols, int k_per, double* __restrict__ ws) {
    constexpr bool PADS = T::BM == 128;  // only the 128-row tiles read padded copies
    const int lda = A_VEC && PADS ? (depth + 3) & ~3 : depth, ldb = B_VEC && PADS ? (cols + 3) & ~3 : cols;
    const int m0 = blockIdx.y * T::BM, n0 = blockIdx.x * T::BN;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / T::WARPS_N) * T::WM, wn = (warp % T::WARPS_N) * T::WN;
    const int kb = SPLIT ? blockIdx.z * k_per : 0, ke = SPLIT ? min(depth, kb + k_per) : depth;
    const int tiles = (ke - kb + T::BK - 1) / T::BK;

    auto load = [&](int kt, int stage) {  // one k-tile of A and B into a stage, zeros outside
        float* as = smem + stage * T::STAGE_FLOATS;
        float* bs = as + T::A_FLOATS;
        const int k0 = kb + kt * T::BK;
        if (A_VEC) {  // lda % 4 == 0, k_per % 16 == 0: a chunk is in, out, or ends in the row's zeros
            for (int c = tid; c < T::BM * T::BK / 4; c += T::NT) {
                const int r = c / (T::BK / 4), q = (c % (T::BK / 4)) * 4;
                const bool ok = m0 + r < rows && k0 + q < ke;
                cp16_zfill(as + r * T::LDA + q, ok ? A + (size_t)(m0 + r) * lda + k0 + q : A, ok);
            }
        } else if (A8) {  // depth even, A 8-byte aligned, no split: a pair is in or out
            for (int c = tid; c < T::BM * T::BK / 2; c += T::NT) {
                const int r = c / (T::BK / 2), q = (c % (T::BK / 2)) * 2;
                const bool ok = m0 + r < rows && k0 + q < ke;
                cp8_zfill(as + r * T::LDA + q, ok ? A + (size_t)(m0 + r) * lda + k0 + q : A, ok);
            }
        } else {
            for (int c = tid; c < T::BM * T::BK; c += T::NT) {
                const int r = c / T::BK, q = c % T::BK;
                const bool ok = m0 + r < rows && k0 + q < ke;
                cp4_zfill(as + r * T::LDA + q, ok ? A + (size_t)(m0 + r) * lda + k0 + q : A, ok);
            }
        }
        if (B_VEC) {  // ldb % 4 == 0
            for (int c = tid; c < T::BK * T::BN / 4; c += T::NT) {
                const int r = c / (T::BN / 4), q = (c % (T::BN / 4)) * 4;
                const bool ok = k0 + r < ke && n0 + q < cols;
                cp16_zfill(bs + T::bidx(r, q), ok ? B + (size_t)(k0 + r) * ldb + n0 + q : B, ok);
            }
        } else {
            for (int c = tid; c < T::BK * T::BN; c += T::NT) {
                const int r = c / T::BN, q = c % T::BN;
                const bool ok = k0 + r < ke && n0 + q < cols;
                cp4_zfill(bs + T::bidx(r, q), ok ? B + (size_t)(k0 + r) * ldb + n0 + q : B, ok);
            }
        }
    };

    double acc[T::FM][T::FN][4];  // D[16i + g][8j + 2t + e] at e, D[16i + 8 + g][…] at 2 + e
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
        for (int j = 0; j < T::FN; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0;

#pragma unroll
    for (int s = 0; s < T::STAGES - 1; ++s) {  // empty groups past the last tile keep the count
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
                fa[i][0] = as[(wm + 16 * i + g) * T::LDA + kk + t];
                fa[i][1] = as[(wm + 16 * i + 8 + g) * T::LDA + kk + t];
            }
#pragma unroll
            for (int j = 0; j < T::FN; ++j) fb[j] = bs[T::bidx(kk + t, wn + 8 * j + g)];
#pragma unroll
            for (int i = 0; i < T::FM; ++i)
#pragma unroll
                for (int j = 0; j < T::FN; ++j) {
                    dmma8(acc[i][j][0], acc[i][j][1], fa[i][0], fb[j]);
                    dmma8(acc[i][j][2], acc[i][j][3], fa[i][1], fb[j]);
                }
        }
#endif
    }
    cp_wait<0>();
    if constexpr (CL) {  // the pieces are one cluster: added in piece order over DSMEM
#if __CUDA_ARCH__ >= 900
        cluster_sum<T>(acc, smem, C, rows, cols, m0, n0, wm, wn);
#else
        __trap();  // launched only where cluster_ok(): PTX ≥ 9.0
#endif
        return;
    }
    if (SPLIT) {  // this piece's partial tile in fp64; a second kernel adds the pieces in order
        const size_t plane = (size_t)rows * cols;
        double* part = ws + blockIdx.z * plane;
#pragma unroll
        for (int i = 0; i < T::FM; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + wm + 16 * i + 8 * h + g;
                if (m >= rows) continue;
#pragma unroll
                for (int j = 0; j < T::FN; ++j)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int n = n0 + wn + 8 * j + 2 * t + e;
                        if (n < cols) part[(size_t)m * cols + n] = acc[i][j][2 * h + e];
                    }
            }
        return;  // mm_split_sum adds the pieces
    }
    if constexpr (STAGE) {
        constexpr int RS = T::BN + 8;  // the fragment layout's float2 writes: rows g at banks 8g
        static_assert(T::BM * RS <= T::STAGE_FLOATS * T::STAGES, "the tile fits the ring");
        __syncthreads();  // every warp's last fragment reads of the ring are done
        T::each_pair(wm, wn, g, t, [&](int i, int j, int h, int r, int c) {
            *reinterpret_cast<float2*>(smem + r * RS + c) =
                make_float2(static_cast<float>(acc[i][j][2 * h]), static_cast<float>(acc[i][j][2 * h + 1]));
        });
        __syncthreads();
#pragma unroll 4
        for (int e = tid; e < T::BM * T::BN; e += T::NT) {
            const int r = e / T::BN, c = e % T::BN, m = m0 + r, n = n0 + c;
            if (m < rows && n < cols) C[(size_t)m * cols + n] = smem[r * RS + c];
        }
        return;
    }
    // D fragment: rows g and g + 8, columns 2t and 2t + 1; one rounding to fp32
    const bool pair_ok = (cols % 2 == 0) && (reinterpret_cast<size_t>(C) % 8 == 0);
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = m0 + wm + 16 * i + 8 * h + g;
            if (m >= rows) continue;
#pragma unroll
            for (int j = 0; j < T::FN; ++j) {
                const int n = n0 + wn + j * 8 + 2 * t;
                const float v0 = static_cast<float>(acc[i][j][2 * h]), v1 = static_cast<float>(acc[i][j][2 * h + 1]);
                float* dst = C + (size_t)m * cols + n;
                if (pair_ok && n + 1 < cols) {
                    *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
                } else {
                    if (n < cols) dst[0] = v0;
                    if (n + 1 < cols) dst[1] = v1;
                }
            }
        }
#else
    // sm_75 has no DMMA and solve() never launches this there (mm_exact_ok); should it run, it
    // is still exact: a thread an output by fp64 FMAs, the whole sum in piece 0
    if (blockIdx.z != 0) return;
    for (int e = threadIdx.x; e < T::BM * T::BN; e += T::NT) {
        const int m = m0 + e / T::BN, n = n0 + e % T::BN;
        if (m >= rows || n >= cols) continue;
        double s = 0.0;
        for (int k = 0; k < depth; ++k) s = fma((double)A[(size_t)m * lda + k], (double)B[(size_t)k * ldb + n], s);
        C[(size_t)m * cols + n] = static_cast<float>(s);
    }
#endif
}

// ---------------------------------------------------------------- host side
static int sm_count() {
    static int count = 0;  // one device per process in practice; the query is cheap anyway
    if (count == 0) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            count <= 0)
            count = 1;
    }
    return count;
}

// The exact path runs where DMMA is as fast as the FP32 SIMT pipe (A100: compute capability 8.0;
// H100, H200: 9.0) and the kernel was built for it: this file compiled as sm_75 PTX and run on
// an H200 by the driver has no DMMA in it. B200 (10.0) runs DMMA at half its FP32 rate: the fp32
// path there, as on the T4.
static bool mm_exact_ok() {
    static int ok = -1;
    if (ok < 0) {
        int dev = 0, major = 0, minor = 0;
        cudaFuncAttributes fa;
        ok = cudaGetDevice(&dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
             ((major == 8 && minor == 0) || major == 9) &&
             cudaFuncGetAttributes(&fa, mm_exact<XSmall, false, false, false>) == cudaSuccess &&
             fa.ptxVersion >= 80;
        (void)cudaGetLastError();
    }
    return ok == 1;
}

// Split K's pieces as one cluster (cluster_sum) on Hopper, where the kernel was built for it (the
// file compiled as sm_80 PTX and run on an H100 has no cluster code in it), and only while every
// cluster of the grid is resident at once (cudaOccupancyMaxActiveClusters, asked once a cluster
// size): past that (CTAs ≥ 240 filling the SMs) clusters of 5–11 left CTAs over for a second round,
// 1.18–1.36× the planes' time. Under the old bound (one CTA an SM) grids of up to 3 CTAs an SM
// took the planes, where clusters took 0.82–0.96× their time (500×1000×300, 700×800×500).
#ifndef MM_SPLIT_CLUSTER
#define MM_SPLIT_CLUSTER 16  // at most this many pieces a tile as one cluster (0: never; past 8: Hopper's)
#endif
static bool cluster_ok() {
    static int ok = -1;
    if (ok < 0) {
        int dev = 0, major = 0, launch = 0;
        cudaFuncAttributes fa;
        ok = MM_SPLIT_CLUSTER >= 2 && cudaGetDevice(&dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&launch, cudaDevAttrClusterLaunch, dev) == cudaSuccess && major == 9 &&
             launch != 0 && cudaFuncGetAttributes(&fa, mm_exact<XSmall, false, false, true, false, true>) == cudaSuccess &&
             fa.ptxVersion >= 90;
        (void)cudaGetLastError();
    }
    return ok == 1;
}

template <class CF>
static void launch(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                   float beta, bool vec, int splits = 1, int k_per = 0, float* ws = nullptr,
                   int* counters = nullptr, bool stage = false) {
    const int gm = (M + CF::BM - 1) / CF::BM, gn = (N + CF::BN - 1) / CF::BN;
    const dim3 grid((unsigned)gm * (unsigned)gn, (unsigned)splits);
    if (splits > 1 && vec)
        sgemm_tuned<CF, true, true><<<grid, CF::NT>>>(A, B, C, M, N, K, alpha, beta, gm, gn, K, k_per, ws, counters);
    else if (splits > 1)
        sgemm_tuned<CF, false, true><<<grid, CF::NT>>>(A, B, C, M, N, K, alpha, beta, gm, gn, K, k_per, ws, counters);
    else if (vec)
        sgemm_tuned<CF, true, false><<<grid, CF::NT>>>(A, B, C, M, N, K, alpha, beta, gm, gn, K, 0, nullptr, nullptr);
    else if (stage)
        sgemm_tuned<CF, false, false, true><<<grid, CF::NT>>>(A, B, C, M, N, K, alpha, beta, gm, gn, K, 0, nullptr, nullptr);
    else
        sgemm_tuned<CF, false, false><<<grid, CF::NT>>>(A, B, C, M, N, K, alpha, beta, gm, gn, K, 0, nullptr, nullptr);
}

// mm_exact<T, …> with its shared memory asked for: past 48 KB a kernel must ask, once per
// process (one device, as sm_count); false if it could not (its launch then fails and says why)
template <class T, bool AV, bool BV, bool SPLIT, bool STAGE, bool CL = false, bool A8 = false>
static bool exact_ready() {
    static const bool asked =
        T::SMEM <= 48 * 1024 ||
        cudaFuncSetAttribute(mm_exact<T, AV, BV, SPLIT, STAGE, CL, A8>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)T::SMEM) == cudaSuccess;
    return asked;
}
// How many CTAs of that kernel an SM holds (its registers and shared memory on this GPU), asked
// once; 1 where the query fails
template <class T, bool AV, bool BV, bool SPLIT>
static int exact_resident() {
    static const int n = [] {
        int k = 0;
        if (!exact_ready<T, AV, BV, SPLIT, false>() ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, mm_exact<T, AV, BV, SPLIT, false>, T::NT, T::SMEM) !=
                cudaSuccess ||
            k < 1) {
            (void)cudaGetLastError();
            k = 1;
        }
        return k;
    }();
    return n;
}
// CL: split with no planes, the pieces of a tile as one cluster (cluster_sum); false when that
// launch is refused (nothing ran)
template <class T, bool AV, bool BV, bool SPLIT, bool STAGE = false, bool CL = false, bool A8 = false>
static bool launch_exact_as(const float* A, const float* B, float* C, int rows, int depth, int cols,
                            int splits, int k_per, double* ws) {
    const auto kern = mm_exact<T, AV, BV, SPLIT, STAGE, CL, A8>;
    (void)exact_ready<T, AV, BV, SPLIT, STAGE, CL, A8>();
    const dim3 grid((unsigned)((cols + T::BN - 1) / T::BN), (unsigned)((rows + T::BM - 1) / T::BM),
                    (unsigned)splits);
    if (!CL) {
        kern<<<grid, T::NT, T::SMEM>>>(A, B, C, rows, depth, cols, k_per, ws);
        return true;
    }
    static const bool wide = [&] {  // clusters past 8 CTAs (Hopper: 16); a refusal leaves no error behind
        const bool ok = cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
        if (!ok) (void)cudaGetLastError();
        return ok;
    }();
    if (splits > 8 && !wide) return false;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 1, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = (unsigned)splits;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid, cfg.blockDim = dim3(T::NT), cfg.dynamicSmemBytes = T::SMEM, cfg.stream = 0;
    cfg.attrs = at, cfg.numAttrs = 1;
    // every cluster resident at once, or the planes
    static int resident[MM_SPLIT_CLUSTER + 1] = {};  // clusters of s CTAs the GPU holds (0: not asked yet)
    int& n = resident[splits];
    if (n == 0 && cudaOccupancyMaxActiveClusters(&n, kern, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        n = -1;
    }
    if ((long long)grid.x * grid.y > n) return false;
    if (cudaLaunchKernelEx(&cfg, kern, A, B, C, rows, depth, cols, k_per, ws) == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
}
// Every row of a matrix `width` floats wide at p is 16-byte aligned (a padded copy's rows are
// rounded up to 4 floats: `padded`)
static bool rows16(const float* p, int width, bool padded = false) {
    return (padded || width % 4 == 0) && ((size_t)p & 15) == 0;
}
// Every row of A (depth floats wide) is 8-byte aligned
static bool a8(const float* A, int depth) { return depth % 2 == 0 && ((size_t)A & 7) == 0; }
// Operands: A and B, or their padded copies (pa, pb: rows of their width rounded up to 4 floats)
struct Ops {
    const float* A;
    const float* B;
    bool pa, pb;
};
template <class T, bool SPLIT, bool CL = false>
static bool launch_exact(const Ops& o, float* C, int rows, int depth, int cols, int splits = 1,
                         int k_per = 0, double* ws = nullptr, bool stage = false) {
    const float *A = o.A, *B = o.B;
    const bool av = rows16(A, depth, o.pa), bv = rows16(B, cols, o.pb);
    if (!SPLIT && stage && !bv)  // B's rows unaligned too (cols % 4 != 0, not padded)
        return av ? launch_exact_as<T, true, false, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr)
                  : launch_exact_as<T, false, false, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr);
    if (!SPLIT && stage && o.pb)  // C's rows unaligned, B read from its padded copy
        return av ? launch_exact_as<T, true, true, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr)
                  : launch_exact_as<T, false, true, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr);
    // A's rows 8-byte aligned and not copied padded (under 2^28 multiply-adds, or few columns): pairs,
    // not floats (1000×130×1000: 0.90×). Where the copy is made it stays: reading the unpadded A in
    // pairs instead took 0.98× at 3005×3002×608 but 1.05× at 4096×4094×4096.
    if (!SPLIT && !stage && !av && a8(A, depth))
        return bv ? launch_exact_as<T, false, true, false, false, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr)
                  : launch_exact_as<T, false, false, false, false, false, true>(A, B, C, rows, depth, cols, 1, 0, nullptr);
    if (av && bv) return launch_exact_as<T, true, true, SPLIT, false, CL>(A, B, C, rows, depth, cols, splits, k_per, ws);
    if (av) return launch_exact_as<T, true, false, SPLIT, false, CL>(A, B, C, rows, depth, cols, splits, k_per, ws);
    if (bv) return launch_exact_as<T, false, true, SPLIT, false, CL>(A, B, C, rows, depth, cols, splits, k_per, ws);
    return launch_exact_as<T, false, false, SPLIT, false, CL>(A, B, C, rows, depth, cols, splits, k_per, ws);
}

// The split-K workspace: a counter per tile (zeroed once; the last piece of a tile resets its
// own), then the pieces' partial products. Grows on demand (zeroed again), never freed.
struct SplitSpace {
    void* ptr;
    size_t bytes;
};
static bool split_space(SplitSpace& w, size_t bytes) {
    if (w.ptr && w.bytes >= bytes) return true;
    if (w.ptr) cudaFree(w.ptr);  // synchronizes: no earlier launch still uses it
    w.ptr = nullptr;
    w.bytes = 0;
    if (cudaMalloc(&w.ptr, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        w.ptr = nullptr;
        return false;
    }
    if (cudaMemset(w.ptr, 0, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        cudaFree(w.ptr);
        w.ptr = nullptr;
        return false;
    }
    w.bytes = bytes;
    return true;
}

// Unaligned operands of a large product: A's rows (depth % 4 != 0) or B's (cols % 4 != 0) that
// are not 16-byte aligned make the exact tiles copy them 4 bytes at a time: 4× the cp.async, each
// with its own index arithmetic (128×128: 16 a thread a k-tile against 4). mm_pad copies such a
// matrix once into rows of ld = its width rounded up to 4 floats, the rest zero (a k past depth
// then meets B's zero-filled rows; a column past cols lands outside C), and the tiles read the
// copy 16 bytes at a time. A float of A feeds cols products and one of B rows: the copy (~8
// bytes of traffic a float) pays only where that is many, and the product large enough to cover
// its launch.
#ifndef MM_PAD_MIN
#define MM_PAD_MIN 256                // pad A where cols ≥ this, B where rows ≥ this ...
#endif
#ifndef MM_PAD_MACS
#define MM_PAD_MACS 268435456.0       // ... and rows·depth·cols ≥ this (2^28)
#endif
constexpr int kPadThreads = 256;
__global__ void __launch_bounds__(kPadThreads)
    mm_pad(const float* __restrict__ src, float* __restrict__ dst, int width, int ld) {
    const int r = blockIdx.y, c = (blockIdx.x * kPadThreads + threadIdx.x) * 4;  // a float4 of dst
    if (c >= ld) return;
    const float* s = src + (size_t)r * width + c;
    float4 v;
    v.x = c < width ? __ldg(s) : 0.0f;
    v.y = c + 1 < width ? __ldg(s + 1) : 0.0f;
    v.z = c + 2 < width ? __ldg(s + 2) : 0.0f;
    v.w = c + 3 < width ? __ldg(s + 3) : 0.0f;
    *reinterpret_cast<float4*>(dst + (size_t)r * ld + c) = v;
}
static bool pad_one(const float* src, float* dst, int height, int width, int ld) {
    if (height > 65535) return false;  // a grid row a matrix row
    const dim3 grid((unsigned)((ld / 4 + kPadThreads - 1) / kPadThreads), (unsigned)height);
    mm_pad<<<grid, kPadThreads>>>(src, dst, width, ld);
    return true;
}
static Ops aligned_ops(const float* A, const float* B, int rows, int depth, int cols) {
    Ops o{A, B, false, false};
    const bool macs = (double)rows * depth * cols >= MM_PAD_MACS;
    const bool pad_a = macs && cols >= MM_PAD_MIN && !rows16(A, depth);
    const bool pad_b = macs && rows >= MM_PAD_MIN && !rows16(B, cols);
    if (!pad_a && !pad_b) return o;
    const int lda = (depth + 3) / 4 * 4, ldb = (cols + 3) / 4 * 4;
    const size_t a_bytes = pad_a ? ((size_t)rows * lda * sizeof(float) + 255) / 256 * 256 : 0;
    const size_t b_bytes = pad_b ? (size_t)depth * ldb * sizeof(float) : 0;
    static SplitSpace space = {nullptr, 0};
    if (!split_space(space, a_bytes + b_bytes)) return o;  // no room: the 4-byte copies
    float* ap = static_cast<float*>(space.ptr);
    float* bp = reinterpret_cast<float*>(static_cast<char*>(space.ptr) + a_bytes);
    if (pad_a && pad_one(A, ap, rows, depth, lda)) o.A = ap, o.pa = true;
    if (pad_b && pad_one(B, bp, depth, cols, ldb)) o.B = bp, o.pb = true;
    return o;
}

#ifndef MM_MID_DEPTH
#define MM_MID_DEPTH 256  // exact tiles: 128×64 rather than 128×128 at this depth or less (0: never)
#endif
// Past the thin kernel's depth a shallow product is C's writes: 3800×16×8055's 128×64 tiles wrote
// 100 MB at 1.2 TB/s with 8 warps an SM (two CTAs, their 64 doubles a thread of accumulators);
// 64×64 tiles (32 doubles a thread) hold more CTAs an SM, more stores in flight: 0.91–0.96× at
// depth 9–16 with 3001–8055 columns (4 shapes), 0.98–1.02× on 6 others
#ifndef MM_SHALLOW_SMALL
#define MM_SHALLOW_SMALL 16  // exact tiles: 64×64 at this depth or less (0: never)
#endif
// Makespan model: the busiest SM runs ceil(tiles / SMs) tiles; a tile costs its area divided by
// the tile shape's relative efficiency (64×64 does ~20% more work per output: more LDS and more
// global traffic per FMA).
constexpr double kMidEff = 0.94;  // 128×64 (batched fp32 02: 1.05–1.06× 128×128's time over several waves)
static double makespan(long long tiles, int bm, int bn, double eff, int sms) {
    return (double)((tiles + sms - 1) / sms) * bm * bn / eff;
}

// depth ≤ kThinMaxDepth: mm_thin with the smallest register depth D that holds it. Deeper, the
// tile kernel wins: at 4096×16×4096 mm_thin (16 rows of B in registers) took 1.21× its time.
constexpr int kThinMaxDepth = 8;
// Threads along the columns: a power of 2 up to kThinThreads covering the 4-column groups; where
// the full width leaves over a sixth of its lanes idle past the last group (615 columns: 154
// groups on 256 lanes, the second block's warps doing a whole row's loads for 1 output a lane
// where the first's do 4), 32 or 64, whichever pads fewer. Full blocks keep 128: 32 there took
// 1.09–1.28× its time (1000×3×999, 4096×8×4096, 8192×4×8192).
static int thin_tx(int groups) {
    int tx = 1;
    while (tx < groups && tx < kThinThreads) tx *= 2;
    const auto padded = [&](int t) { return (long long)(groups + t - 1) / t * t; };
    if (tx < kThinThreads || padded(tx) * 5 <= 6LL * groups) return tx;
    return padded(32) < padded(64) ? 32 : 64;
}
template <int D, class Acc>
static void launch_thin(const float* A, const float* B, float* C, int rows, int depth, int cols,
                        bool vec, int sms) {
    const int groups = (cols + 3) / 4;
    const int tx = thin_tx(groups);
    const int ty = kThinThreads / tx;
    const long long gx = (groups + tx - 1) / tx;
    // 8 rows a thread (a block writes more of C than it reads of B), halved while that leaves
    // under 2 blocks an SM: small shapes are latency-bound, and more blocks hide it
    int per = kThinRows;
    auto blocks = [&](int p) { return gx * ((rows + (long long)ty * p - 1) / ((long long)ty * p)); };
    while (per > 1 && blocks(per) < 2LL * sms) per /= 2;
    const bool a16 = rows16(A, depth);
    const dim3 grid((unsigned)gx, (unsigned)((rows + ty * per - 1) / (ty * per)));
    if (vec)
        mm_thin<D, true, Acc><<<grid, kThinThreads>>>(A, B, C, rows, depth, cols, tx, per, a16);
    else
        mm_thin<D, false, Acc><<<grid, kThinThreads>>>(A, B, C, rows, depth, cols, tx, per, a16);
}
template <class Acc>
static void solve_thin(const float* A, const float* B, float* C, int rows, int depth, int cols,
                       bool vec, int sms) {
    if (depth <= 2) launch_thin<2, Acc>(A, B, C, rows, depth, cols, vec, sms);
    else if (depth <= 4) launch_thin<4, Acc>(A, B, C, rows, depth, cols, vec, sms);
    else launch_thin<8, Acc>(A, B, C, rows, depth, cols, vec, sms);
}

// mm_dot's slices: enough blocks for 2 an SM, each slice at least 128 deep, at most 64 slices.
template <class Acc>
static bool solve_dot(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    int cp = 1;
    while (cp < cols) cp *= 2;
    long long s = std::min<long long>((2LL * sms + rows - 1) / rows, depth / 128);
    s = std::max<long long>(1, std::min<long long>(s, 64));
    const int d_per = (int)((depth + s - 1) / s);
    s = (depth + d_per - 1) / d_per;
    Acc* ws = nullptr;
    int* counters = nullptr;
    if (s > 1) {
        // counters first, at a fixed place (see solve_split): one a row, reset by its last block
        static SplitSpace space = {nullptr, 0};
        constexpr size_t kCounterBytes = kDotMaxRows * sizeof(int);
        const size_t planes = (size_t)s * rows * cols * sizeof(Acc);
        if (!split_space(space, kCounterBytes + planes)) return false;
        counters = static_cast<int*>(space.ptr);
        ws = reinterpret_cast<Acc*>(static_cast<char*>(space.ptr) + kCounterBytes);
    }
    const dim3 grid((unsigned)rows, (unsigned)s);
    mm_dot<Acc><<<grid, kDotThreads>>>(A, B, C, depth, cols, cp, d_per, ws, counters);
    return true;
}

// Split K's sum on the exact tiles: a thread an output of C adds its pieces' fp64 partials in
// piece order, 8 loads in flight, and rounds once. Spread over the whole grid: the tile's last
// piece doing it alone left one CTA a tile walking up to 4096 outputs × 64 pieces (32 outputs a
// thread, a dependent L2 round trip each 8 pieces), which outlasted the tiles' own work.
constexpr int kSumThreads = 256;
__global__ void __launch_bounds__(kSumThreads)
    mm_split_sum(const double* __restrict__ ws, float* __restrict__ C, size_t plane, int pieces) {
    const size_t e = (size_t)blockIdx.x * kSumThreads + threadIdx.x;
    if (e >= plane) return;
    const double* p = ws + e;
    double sum = 0.0;
    int z = 0;
    for (; z + 8 <= pieces; z += 8) {
        double v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) v[u] = __ldcg(p + (size_t)(z + u) * plane);
#pragma unroll
        for (int u = 0; u < 8; ++u) sum += v[u];
    }
    for (; z < pieces; ++z) sum += __ldcg(p + (size_t)z * plane);
    C[e] = static_cast<float>(sum);
}

// The fp64 planes for s slices of C's sums (none for one slice), from the caller's own space
// (grown on demand, never freed); false when it cannot be had. sum_slices adds them in slice
// order into C after the kernel that wrote them, and rounds once.
static bool slice_planes(SplitSpace& space, long long s, int rows, int cols, double*& ws) {
    ws = nullptr;
    if (s <= 1) return true;
    if (!split_space(space, (size_t)s * rows * cols * sizeof(double))) return false;
    ws = static_cast<double*>(space.ptr);
    return true;
}
static void sum_slices(const double* ws, float* C, int rows, int cols, long long s) {
    if (s <= 1) return;
    const size_t plane = (size_t)rows * cols;
    mm_split_sum<<<(unsigned)((plane + kSumThreads - 1) / kSumThreads), kSumThreads>>>(ws, C, plane, (int)s);
}

// Few 64×64 tiles and a long inner dimension: split it over pieces of at least 128; fp32 tiles
// (02's rule: under one wave, pieces for 2 CTAs an SM): one launch, the last piece of a tile adds
// them up; exact tiles: the pieces, then mm_split_sum. 3×6144×2 otherwise takes 768 k-steps on
// one SM. Counters first, at a fixed place: the pieces' planes are not cleared after use, so
// counters that moved with the shape would start from an earlier shape's partial sums.
// The exact tiles' rule: their sum is a kernel of its own, so a piece costs only its plane and
// more pieces pay: 4 CTAs an SM took 0.74–0.91× where 2 split, and splitting under 1.5 waves
// (not 1) 0.67–0.77× on 142–176 tiles; at 256 tiles (1024³) two pieces only doubled the waves
// and added the planes' traffic: 1.13×.
#ifndef MM_SPLIT_WAVES
#define MM_SPLIT_WAVES 1.5   // split K where C has fewer 64×64 tiles than this many times the SMs ...
#endif
#ifndef MM_SPLIT_CTAS
#define MM_SPLIT_CTAS 4      // ... into pieces enough for this many CTAs an SM ...
#endif
#ifndef MM_SPLIT_MIN_DEPTH
#define MM_SPLIT_MIN_DEPTH 128 // ... each at least this deep (and the depth at least twice it)
#endif
// Exact pieces of C with many rows take 128×64 tiles (XMid: 64×32 warp tiles, 25% fewer shared
// loads a DMMA than XSmall's 32×32, two CTAs an SM) and the padded copies the 128-row tiles read.
#ifndef MM_SPLIT_MID_ROWS
#define MM_SPLIT_MID_ROWS 512  // exact split K: 128×64 tiles where C has at least this many rows (0: never)
#endif
#ifndef MM_SPLIT_MID_CTAS
#define MM_SPLIT_MID_CTAS 2    // ... in pieces enough for this many of them an SM ...
#endif
#ifndef MM_SPLIT_MID_DEPTH
#define MM_SPLIT_MID_DEPTH 320 // ... each at least this deep (20 k-tiles: a 128-row tile's ring fills)
#endif
#ifndef MM_SPLIT_FIT
#define MM_SPLIT_FIT 1  // exact 64×64 pieces past one wave: their count by makespan (0: the rule alone)
#endif
#ifndef MM_SPLIT_FILL
#define MM_SPLIT_FILL 4  // ... counting a CTA's ring fill and epilogue as this many k-tiles
#endif
constexpr int kSplitMinDepth = 128, kSplitMax = 64;
// The exact 64×64 pieces' count where the rule's s puts them past one wave: the rule assumes
// MM_SPLIT_CTAS an SM, and the 32-deep tile holds 3 on H100/H200 (registers), 2 on the A100
// (shared memory), so 142 tiles × 3 pieces took 1.08 waves, that is two. Past one wave, of s' in
// [2, 2s] (pieces ≥ min_depth, none empty), the one with the least waves × (a piece's k-tiles +
// MM_SPLIT_FILL); the fewer pieces on a tie.
static long long fit_pieces(long long tiles, long long s, int depth, int min_depth, long long slots) {
    if (!MM_SPLIT_FIT || tiles * s <= slots) return s;
    long long best = s, best_cost = -1;
    for (long long t = 2; t <= 2 * s && t <= kSplitMax && t <= depth / min_depth; ++t) {
        const long long kt = ((depth + t - 1) / t + XSmall::BK - 1) / XSmall::BK;  // a piece's k-tiles
        if ((depth + kt * XSmall::BK - 1) / (kt * XSmall::BK) != t) continue;       // an empty piece
        const long long cost = (tiles * t + slots - 1) / slots * (kt + MM_SPLIT_FILL);
        if (best_cost < 0 || cost < best_cost) best = t, best_cost = cost;
    }
    return best;
}
template <class T>
static int split_resident(bool av, bool bv) {  // as launch_exact<T, true> picks its kernel
    return av ? (bv ? exact_resident<T, true, true, true>() : exact_resident<T, true, false, true>())
              : (bv ? exact_resident<T, false, true, true>() : exact_resident<T, false, false, true>());
}
// s pieces of the depth rounded to whole k-tiles of `step` (k_per each); how many that leaves (none
// empty)
static long long whole_pieces(long long s, int depth, int step, int& k_per) {
    k_per = (int)((depth + s - 1) / s + step - 1) / step * step;
    return (depth + k_per - 1) / k_per;
}
static bool solve_split(const float* A, const float* B, float* C, int rows, int depth, int cols,
                        bool vec, bool exact, int sms) {
    const long long small_tiles = (long long)((rows + 63) / 64) * ((cols + 63) / 64);
    const double waves = exact ? MM_SPLIT_WAVES : 1.0;
    const int min_depth = exact ? MM_SPLIT_MIN_DEPTH : kSplitMinDepth;
    if (small_tiles >= waves * sms || depth < 2 * min_depth || small_tiles > 4096) return false;
    // pieces for `ctas` CTAs an SM, each at least min_depth deep
    const auto plan = [&](long long tiles, int ctas, int step, int& k_per) {
        const long long s = std::min<long long>(std::max(1LL, (long long)ctas * sms / tiles), depth / min_depth);
        return whole_pieces(std::min<long long>(s, kSplitMax), depth, step, k_per);
    };
    int k_per = 0, k_mid = 0;
    long long s = plan(small_tiles, exact ? MM_SPLIT_CTAS : 2, exact ? XSmall::BK : SmallCfg::BK, k_per);
    const long long mid_tiles = (long long)((rows + 127) / 128) * ((cols + 63) / 64);
    const long long s_mid = plan(mid_tiles, MM_SPLIT_MID_CTAS, XMid::BK, k_mid);
    // only where its pieces still give every SM one (the depth bounds how many there are)
    const bool mid = exact && MM_SPLIT_MID_ROWS > 0 && rows >= MM_SPLIT_MID_ROWS && mid_tiles * s_mid >= sms &&
                     k_mid >= MM_SPLIT_MID_DEPTH;
    // 32×64 tiles where they pad a fifth fewer rows and still split (else the 64×64 plan)
    bool shrt = exact && !mid && MM_SHORT_TILES && (rows + 31) / 32 * 32 * 5 <= (rows + 63) / 64 * 64 * 4;
    const long long short_tiles = (long long)((rows + 31) / 32) * ((cols + 63) / 64);
    int k_short = 0;
    const long long s_short = shrt ? plan(short_tiles, MM_SPLIT_CTAS, XShort::BK, k_short) : 1;
    shrt = shrt && s_short >= 2;
    if (mid) {
        s = s_mid, k_per = k_mid;
    } else if (shrt) {
        const long long slots = (long long)split_resident<XShort>(rows16(A, depth), rows16(B, cols)) * sms;
        s = whole_pieces(fit_pieces(short_tiles, s_short, depth, min_depth, slots), depth, XShort::BK, k_per);
    } else if (exact && s >= 2) {
        const long long slots = (long long)split_resident<XSmall>(rows16(A, depth), rows16(B, cols)) * sms;
        s = whole_pieces(fit_pieces(small_tiles, s, depth, min_depth, slots), depth, XSmall::BK, k_per);
    }
    if (s < 2) return false;
    const Ops o = exact && mid ? aligned_ops(A, B, rows, depth, cols) : Ops{A, B, false, false};  // once
    if (exact && s <= MM_SPLIT_CLUSTER && cluster_ok() &&
        (mid    ? launch_exact<XMid, true, true>(o, C, rows, depth, cols, (int)s, k_per, nullptr)
         : shrt ? launch_exact<XShort, true, true>(o, C, rows, depth, cols, (int)s, k_per, nullptr)
                : launch_exact<XSmall, true, true>(o, C, rows, depth, cols, (int)s, k_per, nullptr)))
        return true;  // one launch, no planes
    static SplitSpace space = {nullptr, 0};
    constexpr size_t kCounterBytes = 4096 * sizeof(int);  // tiles < SMs: one each
    const size_t planes = (size_t)rows * cols * (exact ? sizeof(double) : sizeof(float)) * (size_t)s;
    if (!split_space(space, kCounterBytes + planes)) return false;
    int* counters = static_cast<int*>(space.ptr);
    void* ws = static_cast<char*>(space.ptr) + kCounterBytes;
    if (exact) {
        double* planes_ws = static_cast<double*>(ws);
        if (mid) launch_exact<XMid, true>(o, C, rows, depth, cols, (int)s, k_per, planes_ws);
        else if (shrt) launch_exact<XShort, true>(o, C, rows, depth, cols, (int)s, k_per, planes_ws);
        else launch_exact<XSmall, true>(o, C, rows, depth, cols, (int)s, k_per, planes_ws);
        sum_slices(planes_ws, C, rows, cols, s);
    } else
        launch<SmallCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, (int)s, k_per, static_cast<float*>(ws), counters);
    return true;
}

// C of at most MM_SKINNY_COLS columns (mm_narrow's aside), at least 128 deep: 64×8 exact tiles
// (64×16 past 8 columns), the depth split for the CTAs an SM holds (pieces ≥ MM_SKINNY_MIN_DEPTH),
// the pieces added in one cluster or by mm_split_sum. False when the workspace cannot be had.
// Past 16 columns (MM_SKINNY_WIDE_COLS) the same on 64×16 tiles, a tile per 16 columns.
// A skinny tile's partial sums are few (64×16: 8 KB of fp64), so where few tiles have a long depth
// its pieces go down to 64 deep, not the wide tiles' 128: 99×1457×13's 2 tiles made 20 CTAs for
// 132 SMs. Still at most kSplitMax a tile: 128 pieces 64 deep (64×8192×16) took 1.07×.
#ifndef MM_SKINNY_MIN_DEPTH
#define MM_SKINNY_MIN_DEPTH 64  // a skinny split's pieces at least this deep (MM_SPLIT_MIN_DEPTH: 128)
#endif
template <class XS>
static bool solve_skinny_as(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    const long long slots = (long long)split_resident<XS>(rows16(A, depth), rows16(B, cols)) * sms;
    const long long tiles = (long long)((rows + XS::BM - 1) / XS::BM) * ((cols + XS::BN - 1) / XS::BN);
    long long s = std::min<long long>(slots / tiles, depth / MM_SKINNY_MIN_DEPTH);
    s = std::max<long long>(1, std::min<long long>(s, kSplitMax));
    int k_per = 0;
    s = whole_pieces(s, depth, XS::BK, k_per);
    const Ops o{A, B, false, false};
    if (s > 1 && s <= MM_SPLIT_CLUSTER && cluster_ok() &&
        launch_exact<XS, true, true>(o, C, rows, depth, cols, (int)s, k_per, nullptr))
        return true;  // one launch, no planes
    static SplitSpace space = {nullptr, 0};
    double* ws = nullptr;
    if (!slice_planes(space, s, rows, cols, ws)) return false;
    if (s > 1) launch_exact<XS, true>(o, C, rows, depth, cols, (int)s, k_per, ws);
    else launch_exact<XS, false>(o, C, rows, depth, cols);
    sum_slices(ws, C, rows, cols, s);
    return true;
}
static bool solve_skinny(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    if (cols <= MM_SKINNY_COLS && cols <= 16 && depth >= 128)
        return cols <= 8 ? solve_skinny_as<XSkinny>(A, B, C, rows, depth, cols, sms)
                         : solve_skinny_as<XSkinny16>(A, B, C, rows, depth, cols, sms);
    const long long tiles = (long long)((rows + 63) / 64) * ((cols + 15) / 16);
    if (cols <= 16 || cols > MM_SKINNY_WIDE_COLS || rows < 32 || depth < 16 ||
        tiles > (long long)MM_SKINNY_WIDE_PER_SM * sms)
        return false;
    const bool small = (double)rows * depth * cols <= MM_SKINNY_WIDE_MAX_MACS;
    const bool pads_less = 2 * ((cols + 63) / 64 * 64) >= 3 * ((cols + 15) / 16 * 16) &&
                           (long long)rows * depth <= MM_SKINNY_WIDE_MAX_A;
    if (!small && !pads_less) return false;
    return solve_skinny_as<XSkinny16>(A, B, C, rows, depth, cols, sms);
}

// mm_gemv's launch: slabs of cw columns (the narrowest power of two from 32 that C's width
// fills to at least 3/4, at most 256), slices of the depth for 4 blocks an SM, each at least 32
// deep and at most what shared memory holds of A's R rows. False when the workspace cannot be had.
template <int R>
static bool launch_gemv(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    const int cw = cols >= 192 ? 256 : cols >= 96 ? 128 : cols >= 48 ? 64 : 32;
    const long long slabs = (cols + cw - 1) / cw;
    const long long most = kGemvSmemDoubles / R;  // the deepest slice shared memory holds
    long long s = std::min<long long>((4LL * sms + slabs - 1) / slabs, std::max(1, depth / 32));
    s = std::max<long long>(s, (depth + most - 1) / most);
    const int d_per = (int)((depth + s - 1) / s);
    s = (depth + d_per - 1) / d_per;  // no empty slice
    static SplitSpace space = {nullptr, 0};
    double* ws = nullptr;
    if (!slice_planes(space, s, rows, cols, ws)) return false;
    const dim3 grid((unsigned)slabs, (unsigned)s);
    mm_gemv<R><<<grid, kGemvThreads>>>(A, B, C, rows, depth, cols, cw, d_per, ws);
    sum_slices(ws, C, rows, cols, s);
    return true;
}
static bool solve_gemv(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    if (rows > MM_GEMV_ROWS || rows > 16 || cols <= kDotMaxCols) return false;
    if (rows == 1) return launch_gemv<1>(A, B, C, rows, depth, cols, sms);
    if (rows == 2) return launch_gemv<2>(A, B, C, rows, depth, cols, sms);
    if (rows <= 4) return launch_gemv<4>(A, B, C, rows, depth, cols, sms);
    if (rows <= 8) return launch_gemv<8>(A, B, C, rows, depth, cols, sms);
    return launch_gemv<16>(A, B, C, rows, depth, cols, sms);
}

// mm_narrow's launch: 8 warps a block, slices of the depth (whole 128-k steps, at least 512
// deep) for 4 blocks an SM. False when the workspace cannot be had.
template <int NC, bool VB>
static bool launch_narrow(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    constexpr int RB = kNarrowThreads / 32 * kNarrowRows;  // rows a block
    const long long blocks = (rows + RB - 1) / RB;
    long long s = std::min<long long>((4LL * sms + blocks - 1) / blocks, std::max(1, depth / kNarrowMinSlice));
    s = std::max<long long>(1, std::min<long long>(s, kSplitMax));
    const int d_per = (int)(((depth + s - 1) / s + kNarrowStep - 1) / kNarrowStep * kNarrowStep);
    s = (depth + d_per - 1) / d_per;  // no empty slice
    static SplitSpace space = {nullptr, 0};
    double* ws = nullptr;
    if (!slice_planes(space, s, rows, cols, ws)) return false;
    mm_narrow<NC, VB><<<dim3((unsigned)blocks, (unsigned)s), kNarrowThreads>>>(A, B, C, rows, depth, cols, d_per, ws);
    sum_slices(ws, C, rows, cols, s);
    return true;
}
static bool solve_narrow(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    if (cols > MM_NARROW_COLS || cols > 4 || rows < MM_NARROW_MIN_ROWS || depth < kNarrowMinSlice) return false;
    if (cols <= 2) return cols == 1 ? launch_narrow<1, false>(A, B, C, rows, depth, cols, sms)
                                    : launch_narrow<2, false>(A, B, C, rows, depth, cols, sms);
    if (cols == 3) return launch_narrow<4, false>(A, B, C, rows, depth, cols, sms);  // 3 of 4 used
    if (((size_t)B & 15) != 0) return false;  // 4 scalar gathers a k: slower than the tiles
    return launch_narrow<4, true>(A, B, C, rows, depth, cols, sms);
}

// A, B, C are device pointers (i.e. pointers to memory on the GPU)
// Challenge 2 names the sizes differently: A is M×N, B is N×K, C is M×K (inner dimension N).
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    const int rows = M, depth = N, cols = K;
    if (rows <= 0 || cols <= 0) return;
    const bool vec = cols % 4 == 0 && (((size_t)B | (size_t)C) & 15) == 0;
    const int sms = sm_count();
    const bool exact = mm_exact_ok();
    if (depth <= kThinMaxDepth) {
        if (exact) solve_thin<double>(A, B, C, rows, depth, cols, vec, sms);
        else solve_thin<float>(A, B, C, rows, depth, cols, vec, sms);
        return;
    }
    // mm_dot re-reads B for every row of C: only while that stays within the measured range
    // (rows · depth · cols ≤ 2^22 floats read from L2)
    if (rows <= kDotMaxRows && cols <= kDotMaxCols && (double)rows * depth * cols <= 4194304.0 &&
        (exact ? solve_dot<double>(A, B, C, rows, depth, cols, sms)
               : solve_dot<float>(A, B, C, rows, depth, cols, sms)))
        return;
    if (exact && solve_gemv(A, B, C, rows, depth, cols, sms)) return;
    if (exact && solve_narrow(A, B, C, rows, depth, cols, sms)) return;
    if (exact && solve_skinny(A, B, C, rows, depth, cols, sms)) return;
    if (solve_split(A, B, C, rows, depth, cols, vec, exact, sms)) return;
    const long long big_tiles = (long long)((rows + 127) / 128) * ((cols + 127) / 128);
    const long long small_tiles = (long long)((rows + 63) / 64) * ((cols + 63) / 64);
    const bool big = !(exact && depth <= MM_SHALLOW_SMALL) &&
                     makespan(big_tiles, 128, 128, 1.0, sms) <= makespan(small_tiles, 64, 64, 0.8, sms);
    // Where 128×128 wins, 128×64 where its makespan is shorter (8×8 a thread, or 4 warps of 64×32
    // exact, at efficiency kMidEff; a 128×128 block alone on its SM at 0.75)
    // For the exact tiles a shallow depth (≤ MM_MID_DEPTH) takes 128×64 wherever 128×128 runs: a
    // 128×128 tile is alone on its SM (its registers), so its prologue's wait and its epilogue's
    // stores stand between its few k-tiles; two 128×64 tiles an SM overlap one's with the other's.
    const long long mid_tiles = (long long)((rows + 127) / 128) * ((cols + 63) / 64);
    const bool mid = big && ((exact && depth <= MM_MID_DEPTH) ||
                             makespan(mid_tiles, 128, 64, kMidEff, sms) <
                                 makespan(big_tiles, 128, 128, big_tiles <= sms ? 0.75 : 1.0, sms));
    const long long tiles = mid ? mid_tiles : big ? big_tiles : small_tiles;
    // C's rows not 16-byte aligned: the staged epilogue where the tiles fill the SMs (0.64–0.97×
    // the scattered stores' time there; under one wave its barriers cost up to 5%)
    const bool stage = !vec && tiles >= sms;
    if (exact) {
        const bool pads = shallow_pads(XBig::BK, depth);
        const Ops o = mid || big ? aligned_ops(A, B, rows, depth, cols) : Ops{A, B, false, false};
        if (mid && pads) launch_exact<XMid16, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        else if (mid) launch_exact<XMid, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        else if (big && pads) launch_exact<XBig16, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        else if (big) launch_exact<XBig, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        // B's rows aligned: the 128-register bound spills its 16-byte loads' kernels (1.03–1.05× on 3
        // of 10 shapes); the 4-byte ones fit, 0.90–0.94× where the grid is many waves
        else if (depth <= XShallow::BK && !rows16(B, cols)) launch_exact<XShallow, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        else if (shallow_pads(XSmall::BK, depth)) launch_exact<XSmall16, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        else launch_exact<XSmall, false>(o, C, rows, depth, cols, 1, 0, nullptr, stage);
        return;
    }
    if (mid)
        launch<MidCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
    else if (big)
        launch<BigCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
    else
        launch<SmallCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
}
