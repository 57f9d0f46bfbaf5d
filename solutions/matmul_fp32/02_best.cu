// 02_best — the sgemm ladder's best kernel (09_tuned) under challenge 2's signature: 128×128, 128×64 or 64×64 tiles by a makespan model, split K for few tiles with a long inner dimension, a streaming kernel for an inner dimension of 8 or less, a block a row for a C of at most 64×32
//
// Changed from 01: everything the sgemm ladder built, in its 09 form: 128×128 block tiles on 128
//   threads (2×2 warps of 64×64, 8×16 outputs per thread) fed by a 4-stage cp.async ring (sm_80+)
//   into a transposed, padded (conflict-free) A tile and a row-major B tile; fragments double-
//   buffered in registers. Only solve() differs: the inner dimension is N, C is M×K and output
//   only, so it calls 09's kernel itself with alpha = 1, beta = 0 (C never read); a re-typed copy
//   compiled to a slower main loop (233 registers against 226, 9.37 ms against 8.47).
// Tile shape: the busiest SM runs ceil(tiles / SMs) tiles, each its area ÷ efficiency (64×64 0.8,
//   128×64 0.94, a 128×128 block alone on its SM 0.75). 128×64 (8×8 a thread, batched fp32 02's) is
//   new, and only where 128×128 would run: there its finer waves win (872×10×5856: 322 tiles of
//   128×128 for 132 SMs, 644 of 128×64); against 64×64 it lost (832×56×966 1.11×).
// Few 64×64 tiles (fewer than SMs) and an inner dimension of 256 or more: SPLIT, pieces of K over
//   blockIdx.y filling the SMs twice, the last piece of a tile adding them in order (one launch).
// Inner dimension ≤ 8: mm_thin. C is the whole cost; a thread holds B's rows for 4 columns in
//   registers and streams 8 rows of C out (float4 streaming stores). Its column threads: 32 or 64
//   where C's rows take 4-byte stores and 128 would leave over a sixth of its lanes idle (with
//   float4 stores DRAM's write rate binds, and idle lanes cost little).
// C of at most 64×32, inner dimension over 8: mm_dot, a block a row of C and a slice of the inner
//   dimension, the slices added in order by the last block of a row.
// C's rows not 16-byte aligned (K off 4) with a wave of tiles or more: the epilogue stages 32 rows
//   at a time in the freed ring and writes each row as warp-wide runs (a warp's 4-byte stores fell
//   16 bytes apart in 8 rows): 0.64–0.97× the old epilogue's time, yet 1.19× cuBLAS at
//   4192×184×3987 (the aligned ×3988 0.98×). Earlier headers: lab/stages/matmul_fp32_02_best.md.
// Summation order: the tiles and mm_thin sum each output k = 0, 1, … in order (cuBLAS's SIMT
//   order where it does not split K itself); split K and mm_dot do not. At U(−10, 10) and 1e-4 an
//   order other than cuBLAS's misses both references where a long sum cancels, and keeping the
//   order does not help where cuBLAS splits too (measured): such random shapes fail either way.
// Prediction (before measuring): ~8.6 ms at M=8192, N=6144, K=4096 (≈48 TF/s, ~96% of cuBLAS).
//   Split K: 3×6144×2 from ~13× cuBLAS's time to about 1×. mm_thin: C's write time (~18 µs for
//   3728×2×4778's 71 MB); mm_dot: near the launch floor (~9 µs). 128×64: the model's makespans,
//   0.85–0.9× the 128×128 tiles' where it takes them. Thin column threads: 0.85–0.88× at
//   5008×6×615 and 8192×6×615, 1.00 ± 0.02 where C's rows take float4 stores or blocks are full.
// Measured (H200, harness): 8.4690 ms, 96.2% of cuBLAS (8.4798 ms, 96.8%, in the leaderboard).
//   mm_thin: 0.0277 ms at 3728×2×4778 (0.36× the tile path, 0.67× cuBLAS), 0.63–0.80× the tiles
//   at 4096 and 8192 a side with depths 1–8. mm_dot: 0.41–0.65× the split on C of at most 46×32
//   with inner dimensions 413–8192; 0.39–0.56× cuBLAS's time (20×1336×2, 8×1560×3, 24×6792×5).
//   128×64 against the file before, where it replaced 128×128: 0.78–0.98× on 13 shapes
//   (872×10×5856 0.78×, 4545×24×4644 0.88×, 7062×6709×2110 0.96×); 8192×6144×4096 keeps 128×128.
//   Thin column threads (H100): 0.89× at 5008×6×615, 0.86× at 8192×6×615, 1.00–1.01× on 5 others;
//   every test passes, memcheck clean.
// Tiles: big BM=128 BN=128 BK=8 TM=8 TN=16 (2×2 warps of 64×64), mid BM=128 BN=64 TM=8 TN=8 (2×2 warps of 64×32), small BM=64 BN=64 BK=8 TM=4 TN=8 (2×2 warps of 32×32); 128 threads per block, 4 cp.async stages
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

#include <algorithm>

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
// streaming store (C is not read again).
// Threads: tx along columns (4 each), 128/tx along rows, rows r_first + i·(128/tx), i < per.
// VEC: cols % 4 == 0 and B, C 16-byte aligned; otherwise column j of a thread's 4 is tx apart,
// so each scalar store of a warp is still one contiguous run.
constexpr int kThinThreads = 128, kThinRows = 8;
template <int D, bool VEC>
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
        float o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int d = 0; d < D; ++d) {
            if (d < depth) {
#pragma unroll
                for (int j = 0; j < 4; ++j) o[j] = fmaf(av[d], b[d][j], o[j]);
            }
        }
        float* out = C + (size_t)r * cols;
        if (VEC) {
            __stcs(reinterpret_cast<float4*>(out + col[0]), make_float4(o[0], o[1], o[2], o[3]));
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (ok[j]) __stcs(out + col[j], o[j]);
        }
    }
}

// ---------------------------------------------------------------- small C, long inner dimension
// rows ≤ 64 and cols ≤ 32 (C of at most 2048 elements; 20×1336×2 has 40), depth > 8: a 64×64
// tile would leave most of its outputs empty. A block takes one row of C and a slice of the
// inner dimension. Its threads form 256/cp groups of cp lanes (cp: cols rounded up to a power of
// two); lane c of a group reads B[d][c], so a group reads one contiguous run of B's row d, and
// the group's lanes share A[r][d]. The groups' sums meet in shuffles, then shared memory; with
// more than one slice (gridDim.y), the last block of a row (a counter) adds the slices' partials
// in slice order, as the tile kernel's split does.
constexpr int kDotThreads = 256, kDotMaxCols = 32, kDotMaxRows = 64;
__global__ void __launch_bounds__(kDotThreads)
    mm_dot(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int depth,
           int cols, int cp, int d_per, float* __restrict__ ws, int* __restrict__ counters) {
    const int r = blockIdx.x, z = blockIdx.y, slices = (int)gridDim.y;
    const int c = threadIdx.x % cp, group = threadIdx.x / cp, groups = kDotThreads / cp;
    const int d_end = min(depth, (z + 1) * d_per);
    const float* a = A + (size_t)r * depth;
    float acc = 0.0f;
    if (c < cols) {
#pragma unroll 4
        for (int d = z * d_per + group; d < d_end; d += groups)
            acc = fmaf(__ldg(a + d), __ldg(B + (size_t)d * cols + c), acc);
    }
    for (int o = cp; o < 32; o <<= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);  // cp divides 32
    __shared__ float part[kDotThreads / 32][32];
    __shared__ bool last;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane < cp) part[warp][lane] = acc;
    __syncthreads();
    const int t = threadIdx.x;  // t < cols: column t's sum over this block's slice
    float sum = 0.0f;
    if (t < cols)
        for (int w = 0; w < kDotThreads / 32; ++w) sum += part[w][t];
    float* out = C + (size_t)r * cols;
    if (slices == 1) {
        if (t < cols) out[t] = sum;
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
        float total = 0.0f;
        for (int zz = 0; zz < slices; ++zz) total += __ldcg(ws + zz * plane + (size_t)r * cols + t);
        out[t] = total;
    }
    if (t == 0) counters[r] = 0;
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

// Makespan model: the busiest SM runs ceil(tiles / SMs) tiles; a tile costs its area divided by
// the tile shape's relative efficiency (64×64 does ~20% more work per output: more LDS and more
// global traffic per FMA, and 4×8 thread tiles).
constexpr double kMidEff = 0.94;  // 128×64 (batched fp32 02: 1.05–1.06× 128×128's time over several waves)
static double makespan(long long tiles, int bm, int bn, double eff, int sms) {
    return (double)((tiles + sms - 1) / sms) * bm * bn / eff;
}

// depth ≤ kThinMaxDepth: mm_thin with the smallest register depth D that holds it. Deeper, the
// tile kernel wins: at 4096×16×4096 mm_thin (16 rows of B in registers) took 1.21× its time,
// 1.42× at depth 12, 1.85–2.09× at 20–32.
#ifndef MM_THIN_MAX_DEPTH
#define MM_THIN_MAX_DEPTH 8
#endif
constexpr int kThinMaxDepth = MM_THIN_MAX_DEPTH;
static_assert(kThinMaxDepth <= 8, "solve_thin's deepest kernel holds 8 rows of B");
// Threads along the columns: a power of 2 up to kThinThreads covering the 4-column groups. Where
// C's rows take 4-byte stores and the full width leaves over a sixth of its lanes idle past the
// last group (615 columns: 154 groups on 256 lanes, the second block's warps doing a whole row's
// loads for 1 output a lane), 32 or 64, whichever pads fewer. With float4 stores it runs near
// DRAM's write rate (8000×6×1100: C's 35 MB at 1.96 TB/s), where idle lanes cost little: 32 there
// took 1.08× its time. Full blocks keep 128: 32 took 1.09–1.28× (1000×3×999, 4096×8×4096).
static int thin_tx(int groups, bool vec) {
    int tx = 1;
    while (tx < groups && tx < kThinThreads) tx *= 2;
    const auto padded = [&](int t) { return (long long)(groups + t - 1) / t * t; };
    if (vec || tx < kThinThreads || padded(tx) * 5 <= 6LL * groups) return tx;
    return padded(32) < padded(64) ? 32 : 64;
}
template <int D>
static void launch_thin(const float* A, const float* B, float* C, int rows, int depth, int cols,
                        bool vec, int sms) {
    const int groups = (cols + 3) / 4;
    const int tx = thin_tx(groups, vec);
    const int ty = kThinThreads / tx;
    const long long gx = (groups + tx - 1) / tx;
    // 8 rows a thread (a block writes more of C than it reads of B), halved while that leaves
    // under 2 blocks an SM: small shapes are latency-bound, and more blocks hide it
    int per = kThinRows;
    auto blocks = [&](int p) { return gx * ((rows + (long long)ty * p - 1) / ((long long)ty * p)); };
    while (per > 1 && blocks(per) < 2LL * sms) per /= 2;
    const bool a16 = depth % 4 == 0 && ((size_t)A & 15) == 0;
    const dim3 grid((unsigned)gx, (unsigned)((rows + ty * per - 1) / (ty * per)));
    if (vec)
        mm_thin<D, true><<<grid, kThinThreads>>>(A, B, C, rows, depth, cols, tx, per, a16);
    else
        mm_thin<D, false><<<grid, kThinThreads>>>(A, B, C, rows, depth, cols, tx, per, a16);
}
static void solve_thin(const float* A, const float* B, float* C, int rows, int depth, int cols,
                       bool vec, int sms) {
    if (depth <= 2) launch_thin<2>(A, B, C, rows, depth, cols, vec, sms);
    else if (depth <= 4) launch_thin<4>(A, B, C, rows, depth, cols, vec, sms);
    else launch_thin<8>(A, B, C, rows, depth, cols, vec, sms);
}

// mm_dot's slices: enough blocks for 2 an SM, each slice at least 128 deep, at most 64 slices.
static bool solve_dot(const float* A, const float* B, float* C, int rows, int depth, int cols, int sms) {
    int cp = 1;
    while (cp < cols) cp *= 2;
    long long s = std::min<long long>((2LL * sms + rows - 1) / rows, depth / 128);
    s = std::max<long long>(1, std::min<long long>(s, 64));
    const int d_per = (int)((depth + s - 1) / s);
    s = (depth + d_per - 1) / d_per;
    float* ws = nullptr;
    int* counters = nullptr;
    if (s > 1) {
        // counters first, at a fixed place (see solve's split): one a row, reset by its last block
        static SplitSpace space = {nullptr, 0};
        constexpr size_t kCounterBytes = kDotMaxRows * sizeof(int);
        const size_t planes = (size_t)s * rows * cols * sizeof(float);
        if (!split_space(space, kCounterBytes + planes)) return false;
        counters = static_cast<int*>(space.ptr);
        ws = reinterpret_cast<float*>(static_cast<char*>(space.ptr) + kCounterBytes);
    }
    const dim3 grid((unsigned)rows, (unsigned)s);
    mm_dot<<<grid, kDotThreads>>>(A, B, C, depth, cols, cp, d_per, ws, counters);
    return true;
}

// A, B, C are device pointers (i.e. pointers to memory on the GPU)
// Challenge 2 names the sizes differently: A is M×N, B is N×K, C is M×K (inner dimension N).
extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    const int rows = M, depth = N, cols = K;
    if (rows <= 0 || cols <= 0) return;
    const bool vec = cols % 4 == 0 && (((size_t)B | (size_t)C) & 15) == 0;
    const int sms = sm_count();
    if (depth <= kThinMaxDepth) {
        solve_thin(A, B, C, rows, depth, cols, vec, sms);
        return;
    }
    // mm_dot re-reads B for every row of C: only while that stays within the measured range
    // (rows · depth · cols ≤ 2^22 floats read from L2; the largest timed, 40×6939×15 at 0.98×
    // cuBLAS's time, is 0.99 of that)
    if (rows <= kDotMaxRows && cols <= kDotMaxCols && (double)rows * depth * cols <= 4194304.0 &&
        solve_dot(A, B, C, rows, depth, cols, sms))
        return;
    const long long big_tiles = (long long)((rows + 127) / 128) * ((cols + 127) / 128);
    const long long small_tiles = (long long)((rows + 63) / 64) * ((cols + 63) / 64);
    // Few tiles and a long inner dimension: split it over pieces of at least kSplitMinDepth so
    // that the 64×64 tiles fill the SMs twice (2 blocks an SM); one launch (the last piece of a
    // tile adds them up). 3×6144×2 otherwise takes 768 k-steps on one SM.
    constexpr int kSplitMinDepth = 128, kSplitMax = 64;
    if (small_tiles < sms && depth >= 2 * kSplitMinDepth) {
        long long s = std::min<long long>(2 * sms / small_tiles, depth / kSplitMinDepth);
        s = std::min<long long>(s, kSplitMax);
        const int k_per = (int)((depth + s - 1) / s + 7) / 8 * 8;  // whole k-tiles (BK = 8)
        s = (depth + k_per - 1) / k_per;
        // counters first, at a fixed place: the pieces' planes are not cleared after use, so
        // counters that moved with the shape would start from an earlier shape's partial sums
        static SplitSpace space = {nullptr, 0};
        constexpr size_t kCounterBytes = 4096 * sizeof(int);  // tiles < SMs: one each
        const size_t planes = (size_t)rows * cols * sizeof(float) * (size_t)s;
        if (s >= 2 && small_tiles <= 4096 && split_space(space, kCounterBytes + planes)) {
            int* counters = static_cast<int*>(space.ptr);
            float* ws = reinterpret_cast<float*>(static_cast<char*>(space.ptr) + kCounterBytes);
            launch<SmallCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, (int)s, k_per, ws, counters);
            return;
        }
    }
    const bool big = makespan(big_tiles, 128, 128, 1.0, sms) <= makespan(small_tiles, 64, 64, 0.8, sms);
    // Where 128×128 wins, 128×64 where its makespan is shorter (batched fp32 02's model: 8×8 a
    // thread at efficiency kMidEff; a 128×128 block alone on its SM at 0.75). Not against 64×64:
    // at 832×56×966 and 1172×32×432 the 128×64 tile took 1.05–1.11× the 64×64 one's time.
    const long long mid_tiles = (long long)((rows + 127) / 128) * ((cols + 63) / 64);
    const bool mid = big && makespan(mid_tiles, 128, 64, kMidEff, sms) <
                                makespan(big_tiles, 128, 128, big_tiles <= sms ? 0.75 : 1.0, sms);
    const long long tiles = mid ? mid_tiles : big ? big_tiles : small_tiles;
    // C's rows not 16-byte aligned: the staged epilogue where the tiles fill the SMs (0.64–0.97×
    // the scattered stores' time there; under one wave its barriers cost up to 5%)
    const bool stage = !vec && tiles >= sms;
    if (mid)
        launch<MidCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
    else if (big)
        launch<BigCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
    else
        launch<SmallCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
}
