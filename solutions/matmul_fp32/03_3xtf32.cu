// 03_3xtf32 — fp32 GEMM on TF32 tensor cores in three passes (3xTF32), each k-tile's passes promoted into an fp32 sum; 02_best's CUDA-core paths for the rest
//
// Technique: split each operand x into hi = x rounded to TF32 (10-bit mantissa) and lo = x − hi.
//   a·b = hi_a·hi_b + hi_a·lo_b + lo_a·hi_b + lo_a·lo_b; the last term is 2^-22 of a·b and is
//   dropped, the other three are mma.sync m16n8k8 TF32 products (sm_80+), exact in the tensor
//   core. Three tensor-core passes still cost less than one CUDA-core pass: TF32 mma runs at
//   ~8× the FFMA rate of the same chip.
// Accuracy: the tensor core's adds into its fp32 accumulator do not round to nearest; a CPU
//   model that truncates them put 52–83 of 400 dot products of depth 6144–8192 (U(−1, 1) and
//   U(−10, 10)) outside 1e-4 when every pass adds into one accumulator. Here each 32-deep k-tile's
//   three passes start from zero and are added to the running sum by an ordinary fp32 add: in
//   the same model the worst error fell to 0.76 of the tolerance at depth 6144, under
//   sequential fp32 FMAs' 1.65.
// Changed from 02: where 128×128 tiles fill a wave of the SMs on sm_80+, mm_x3: 128×128×32 block
//   tiles on 8 warps of 64×32, a 4-stage cp.async ring (140 KB; 16-byte copies where a row is
//   16-byte aligned, else 4-byte ones), A rows padded to 36 floats and read by ldmatrix, B rows
//   padded to 136 floats (conflict-free fragment reads), hi/lo split in registers after the
//   fragment loads. Fewer tiles, an inner dimension of 8 or less, a tiny C, and T4: 02's paths.
// Paths by judge GPU: T4 (sm_75, no TF32 mma): 02_best's CUDA-core kernels only. A100, H100,
//   H200, B200: mm_x3 as above (an sm_75 build run on a newer GPU as PTX keeps 02's paths: the
//   kernel's PTX version is checked, not the device's).
// Prediction (before measuring): ~0.6× cuBLAS's time at 8192×6144×4096 (TF32 mma.sync at ~60% of
//   the tensor peak, three passes: ~100 TF/s of fp32 work before the power limit).
// Measured (H200, harness): pending.
// Tiles: mm_x3 BM=128 BN=128 BK=32, 256 threads, 4 stages; FFMA kernel as 02_best
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

// ---------------------------------------------------------------- 3xTF32 tensor-core kernel (sm_80+)
// x = hi + lo with hi = x rounded to TF32 (cvt.rna) and lo = x − hi (exact in fp32; the tensor
// core reads its top 19 bits). a·b ≈ lo_a·hi_b + hi_a·lo_b + hi_a·hi_b: three mma.sync m16n8k8
// TF32 products, each term exact in the tensor core; lo_a·lo_b (2^-22 of a·b) is dropped.
// Tensor cores add into their fp32 accumulator without round-to-nearest, so each k-tile's three
// passes go into a fresh accumulator that is then added to the running sum with an ordinary
// fp32 add: the bias of the tensor core's adds never builds up past 12 of them.
// Block 128×128×32, 8 warps as 2 (M) × 4 (N) of 64×32; S-stage cp.async ring, A row-major with
// rows padded to 36 floats (ldmatrix rows 16 B apart in 8 rows: conflict-free), B row-major with
// rows padded to 136 floats (b fragment (k = t, n = g) lands in bank 8t + g: conflict-free).
namespace x3 {
constexpr int BM = 128, BN = 128, BK = 32, S = 4, NT = 256;
constexpr int AP = BK + 4, BP = BN + 8;  // padded row lengths (floats)
constexpr int WM = 64, WN = 32, MI = WM / 16, NI = WN / 8;
constexpr size_t kSmemBytes = (size_t)S * (BM * AP + BK * BP) * sizeof(float);
static_assert(BM / WM * (BN / WN) * 32 == NT, "warps tile the block");
static_assert(MI * 16 == WM && NI * 8 == WN, "warp tiles are whole m16n8 pieces");
static_assert((BM * BK / 4) % NT == 0 && (BK * BN / 4) % NT == 0, "16-byte copies divide evenly");
static_assert((AP * 4) % 16 == 0 && (BP * 4) % 16 == 0, "padded rows keep 16-byte alignment");

__device__ __forceinline__ void split(float x, unsigned& hi, unsigned& lo) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(hi) : "f"(x));
    lo = __float_as_uint(x - __uint_as_float(hi));
#else
    hi = __float_as_uint(x);
    lo = 0u;
#endif
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                         unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

// A16: A's rows 16-byte aligned (depth % 4 == 0, A aligned); B16: the same for B (cols % 4).
// M, N, K are the GEMM's (rows of C, columns of C, depth); never launched below sm_80.
template <bool A16, bool B16>
__global__ void __launch_bounds__(NT, 1)
    mm_x3(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
          int N, int K, int grid_m, int grid_n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) float smem[];
    float* const As = smem;                   // [S][BM][AP]
    float* const Bs = smem + S * BM * AP;     // [S][BK][BP]

    const int pid = blockIdx.x;               // grouped raster, as the FFMA kernel's
    const int width = kGroupM * grid_n;
    const int first_m = pid / width * kGroupM;
    const int gsz = min(grid_m - first_m, kGroupM);
    const int m0 = (first_m + pid % width % gsz) * BM, n0 = (pid % width / gsz) * BN;
    const bool edge = m0 + BM > M || n0 + BN > N;  // block-uniform
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN;
    const int KT = (K + BK - 1) / BK, KT_full = K / BK;

    // Copy k-tile kt into stage s; PRED zero-fills rows ≥ M, columns ≥ N and k ≥ K (masked copies
    // point at the matrix itself: no address outside it is formed for use). A thread's copies
    // keep one column and step rows: one pointer and one stride each.
    constexpr int A_CP = A16 ? 4 : 1, B_CP = B16 ? 4 : 1;  // floats per copy
    constexpr int A_W = BK / A_CP, B_W = BN / B_CP;        // copies per row
    constexpr int A_STEP = NT / A_W, B_STEP = NT / B_W;    // rows between a thread's copies
    static_assert(NT % A_W == 0 && NT % B_W == 0, "fixed column per thread");
    const int a_r = tid / A_W, a_k = tid % A_W * A_CP;
    const int b_k = tid / B_W, b_n = tid % B_W * B_CP;
    const float* const a_src = A + (size_t)(m0 + a_r) * K + a_k;
    const float* const b_src = B + (size_t)b_k * N + n0 + b_n;
    auto load_tile = [&](int kt, int s, auto pred_tag) {
        constexpr bool PRED = decltype(pred_tag)::value;
        const int k0 = kt * BK;
        float* const as = As + s * BM * AP + a_r * AP + a_k;
        float* const bs = Bs + s * BK * BP + b_k * BP + b_n;
        const float* const asrc = a_src + k0;
        const float* const bsrc = b_src + (size_t)k0 * N;
#pragma unroll
        for (int i = 0; i < BM / A_STEP; ++i) {
            const float* src = asrc + (size_t)i * A_STEP * K;
            // A16: K % 4 == 0, so a 16-byte piece is all inside or all outside
            const bool ok = !PRED || (m0 + a_r + i * A_STEP < M && k0 + a_k < K);
            if (A16) cp16_zfill(as + i * A_STEP * AP, ok ? src : A, ok);
            else cp4_zfill(as + i * A_STEP * AP, ok ? src : A, ok);
        }
#pragma unroll
        for (int i = 0; i < BK / B_STEP; ++i) {
            const float* src = bsrc + (size_t)i * B_STEP * N;
            const bool ok = !PRED || (k0 + b_k + i * B_STEP < K && n0 + b_n < N);
            if (B16) cp16_zfill(bs + i * B_STEP * BP, ok ? src : B, ok);
            else cp4_zfill(bs + i * B_STEP * BP, ok ? src : B, ok);
        }
    };
    auto issue = [&](int kt) {
        if (kt >= KT) return;
        if (!edge && kt < KT_full)
            load_tile(kt, kt % S, BoolTag<false>{});
        else
            load_tile(kt, kt % S, BoolTag<true>{});
    };

    float acc[MI][NI][4] = {};
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        issue(s);
        cp_commit();
    }
    // ldmatrix.x4 rows: lanes 0-7 matrix 0 (rows +0..7, k +0), 8-15 matrix 1 (rows +8..15, k +0),
    // 16-23 matrix 2 (rows +0..7, k +4), 24-31 matrix 3 (rows +8..15, k +4) = a0..a3 of m16n8k8
    const int lrow = wm + lane % 16, lk = lane / 16 * 4;
    for (int kt = 0; kt < KT; ++kt) {
        cp_wait<S - 2>();  // k-tile kt has landed
        __syncthreads();   // ... for every thread, and stage (kt − 1) % S is no longer read
        issue(kt + S - 1);
        cp_commit();
        const float* as = As + (kt % S) * BM * AP;
        const float* bs = Bs + (kt % S) * BK * BP;
        float part[MI][NI][4] = {};
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            unsigned ah[MI][4], al[MI][4], bh[NI][2], bl[NI][2];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                unsigned v[4];
                const unsigned addr = smem_u32(as + (lrow + mi * 16) * AP + kk + lk);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                             : "r"(addr));
#pragma unroll
                for (int j = 0; j < 4; ++j) split(__uint_as_float(v[j]), ah[mi][j], al[mi][j]);
            }
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                const float* bp = bs + (kk + t) * BP + wn + ni * 8 + g;
                split(bp[0], bh[ni][0], bl[ni][0]);
                split(bp[4 * BP], bh[ni][1], bl[ni][1]);
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) {
                    mma_tf32(part[mi][ni], al[mi], bh[ni][0], bh[ni][1]);
                    mma_tf32(part[mi][ni], ah[mi], bl[ni][0], bl[ni][1]);
                    mma_tf32(part[mi][ni], ah[mi], bh[ni][0], bh[ni][1]);
                }
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[mi][ni][j] += part[mi][ni][j];
    }

    // Epilogue: (row g, columns 2t, 2t+1) and (row g+8, the same) of each 16×8 piece; pairs as
    // one 8-byte store where C's rows allow it.
    const bool c8 = N % 2 == 0 && ((size_t)C & 7) == 0;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + wm + mi * 16 + g + h * 8;
            if (edge && row >= M) continue;
            float* crow = C + (size_t)row * N;
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                const int col = n0 + wn + ni * 8 + 2 * t;
                const float x = acc[mi][ni][2 * h], y = acc[mi][ni][2 * h + 1];
                if (c8 && (!edge || col + 1 < N)) {  // N even: col < N means col + 1 < N
                    *reinterpret_cast<float2*>(crow + col) = make_float2(x, y);
                } else {
                    if (edge && col >= N) continue;
                    crow[col] = x;
                    if (!edge || col + 1 < N) crow[col + 1] = y;
                }
            }
        }
#endif
}
}  // namespace x3

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
#ifndef MM_X3
#define MM_X3 1  // 0: never the 3xTF32 kernel, 1: where it fills a wave, 2: past mm_thin and mm_dot
#endif
static_assert(kThinMaxDepth <= 8, "solve_thin's deepest kernel holds 8 rows of B");
template <int D>
static void launch_thin(const float* A, const float* B, float* C, int rows, int depth, int cols,
                        bool vec, int sms) {
    const int groups = (cols + 3) / 4;
    int tx = 1;
    while (tx < groups && tx < kThinThreads) tx *= 2;
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

template <bool A16, bool B16>
static bool launch_x3(const float* A, const float* B, float* C, int M, int N, int K) {
    // Usable when the kernel's code was built for sm_80+ (its PTX version, not the device's:
    // an sm_75 build JIT-compiled on a newer GPU has the body compiled out) and the device
    // grants its 140 KB ring. Asked once per instantiation.
    static const bool ready = [] {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, x3::mm_x3<A16, B16>) == cudaSuccess && fa.ptxVersion >= 80 &&
            cudaFuncSetAttribute(x3::mm_x3<A16, B16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)x3::kSmemBytes) == cudaSuccess)
            return true;
        (void)cudaGetLastError();
        return false;
    }();
    if (!ready) return false;
    const int gm = (M + x3::BM - 1) / x3::BM, gn = (N + x3::BN - 1) / x3::BN;
    x3::mm_x3<A16, B16><<<(unsigned)gm * (unsigned)gn, x3::NT, x3::kSmemBytes>>>(A, B, C, M, N, K, gm, gn);
    return true;
}
static bool solve_x3(const float* A, const float* B, float* C, int rows, int depth, int cols) {
    const bool a16 = depth % 4 == 0 && ((size_t)A & 15) == 0;
    const bool b16 = cols % 4 == 0 && ((size_t)B & 15) == 0;
    if (a16 && b16) return launch_x3<true, true>(A, B, C, rows, cols, depth);
    if (a16) return launch_x3<true, false>(A, B, C, rows, cols, depth);
    if (b16) return launch_x3<false, true>(A, B, C, rows, cols, depth);
    return launch_x3<false, false>(A, B, C, rows, cols, depth);
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
    // sm_80+ with a wave of 128×128 tiles: the 3xTF32 kernel
    if (MM_X3 == 2 || (MM_X3 == 1 && big_tiles >= sms)) {
        if (solve_x3(A, B, C, rows, depth, cols)) return;
    }
    const bool big = makespan(big_tiles, 128, 128, 1.0, sms) <= makespan(small_tiles, 64, 64, 0.8, sms);
    // C's rows not 16-byte aligned: the staged epilogue where the tiles fill the SMs (0.64–0.97×
    // the scattered stores' time there; under one wave its barriers cost up to 5%)
    const bool stage = !vec && (big ? big_tiles : small_tiles) >= sms;
    if (big)
        launch<BigCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
    else
        launch<SmallCfg>(A, B, C, rows, cols, depth, 1.0f, 0.0f, vec, 1, 0, nullptr, nullptr, stage);
}
