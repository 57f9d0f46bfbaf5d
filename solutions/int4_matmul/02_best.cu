// 02_best — int4 nibbles dequantized in registers into exact mma.sync m16n8k16 B fragments, fp32 group scaling, cp.async ring, split-K (M > 4); CUDA-core GEMV streaming w_q (M ≤ 4)
//
// Changed from 01: 01 gives every output its own pass over a strided w_q row (L1-wavefront
//   bound, ~150 ms predicted). Here each block tile reads its int4 bytes once and turns them
//   into fp16 operands in registers; no dequantized copy of W exists anywhere in memory.
//   (1) M > 4, tensor cores. y = x·Wᵀ with W N×K k-contiguous is mma's ".col" B operand as
//   stored. Per 64-k tile a 4-stage cp.async ring brings the x tile (XOR-swizzled for
//   ldmatrix.x4) and the raw w_q bytes of BN columns into shared memory. The m16n8k16 B fragment
//   of thread (g, t) is byte t of two w_q words of column g: one LDS.128 a quad gives a k32
//   slice, a PRMT builds [a_t, b_t, a_t, b_t], LOP3 (& 0x000F00F0 | 0x64006400) makes the half2
//   (1024 + 16·hi, 1024 + lo), and one HFMA2 by (1/16, 1) plus (−72, −1032) gives w − 8 exactly.
//   Scales are applied in fp32, never folded into fp16 weights: (w − 8)·s rounded to fp16 errs
//   by up to 2^-11 a weight and fails atol = 0.01 on ~7e-5 of the outputs at 4096³. So the mma
//   accumulate exact x·(w − 8) into a per-group fp32 partial, and at the group's end
//   acc += scale·partial (one FFMA an accumulator a group); groups of 2, 4, 8 fold the scale
//   into B as two fp16 halves whose products with w − 8 are both exact. Block tiles 64×256 to
//   16×128 and split-K 1–16 by a wave/cost model; the slices are summed in slice order by the
//   last block to take an atomic ticket (deterministic, one launch).
//   (2) M ≤ 4, memory-bound GEMV: a warp serves 16 columns with 2 lanes each, one 16-byte __ldg
//   a lane covering a 32-byte sector of a w_q row; 8 warps split K (or columns) and reduce in a
//   fixed order; x staged as fp32 in padded shared memory; nibbles to fp32 by the 2^23 magic
//   (LOP3 + FADD, exact), scaled once a 32-weight block; 4 blocks a lane in flight.
//   Odd shapes (K % 32 ≠ 0, misaligned x / w_q): guarded loads into the same layouts. sm_75
//   (T4): synchronous 16-byte copies and two m16n8k8 a step.
// Prediction (before measuring): 4096³ g128 ≈ 0.42 ms (~330 TF/s): 09's mma.sync loop (0.347 ms
//   dense) with more shared traffic per mma (~224 B against 176) and ~2.7 extra instructions
//   per mma; slower than cuBLAS dense (0.203), since mma.sync reaches ~63% of Hopper's wgmma
//   peak: the next stage is wgmma (03). M = 1, N = K = 4096: ≈ 8 µs a call (a ~5.5 µs launch
//   floor + ~2.5 µs with w_q in L2); M = 16: ≈ 9 µs.
// Measured (H200, harness, dequantize + cuBLAS fp16 GEMM beside it): 4096³ g128 0.6426 ms vs
//   0.2243 (2.86× its time; 0.6415 in the leaderboard): 1.5× the prediction; M = 1 0.0140 ms vs
//   0.0537 (the 8 µs missed, yet 3.8× faster than the dequantize + GEMM); M = 16 0.0236 ms.
//   Memcheck clean on the functional tests. The full derivation: lab/stages/int4_matmul_02_best.md.
// Tiles: mma BK=64, 4 cp.async stages, warp tile 16·MT × 32 (MT m16 × 4 n8); BM×BN = 64×256 (8
//   warps 1×8, 64 KB), 128×128 (8 warps 2×4, 80 KB), 64×128 / 32×128 / 16×128 (4 warps, 48/32/24
//   KB), split-K 1–16 (only when tiles < SMs); group sizes < 64 use 64×128 or 16×128; ragged K
//   or misaligned pointers: 64×128 with guarded loads. GEMV (M ≤ 4): 256 threads, 16 columns ×
//   2 lanes a warp, 8 warps over K (or over columns when N/16 ≥ 1.5×SMs·2^l), 2×4 16-byte
//   loads in flight per lane, x rows in fp32 shared memory (chunks of ≤ 4 rows).
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

// ============================================================== common device helpers
constexpr int kBK = 64;          // k per pipeline tile
constexpr int kXRow = kBK * 2;   // bytes of one x tile row (8 chunks of 16 bytes)
constexpr int kWRow = kBK / 2;   // bytes of one w_q tile row (one column n, 64 weights)
constexpr int kGroupM = 8;       // tile-rows per rasterization group

// fp16 constants for the nibble -> half trick (bit patterns of half2 = (low, high)).
constexpr unsigned kMagic = 0x64006400u;  // (1024, 1024): nibble bits OR-ed into the mantissa
constexpr unsigned kDqMul = 0x3C002C00u;  // (1/16, 1)
constexpr unsigned kDqAdd = 0xE408D480u;  // (-72, -1032): (1024+16h)/16-72 = h-8, (1024+l)-1032 = l-8

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy; pred false writes zeros and reads nothing (src must still be a
// valid address). sm_75: a synchronous load and store, same semantics for the pipeline below.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(pred ? 16 : 0)
                 : "memory");
#else
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (pred) v = *reinterpret_cast<const uint4*>(src);
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
__device__ __forceinline__ void sts128(unsigned dst, unsigned a, unsigned b, unsigned c, unsigned d) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(a), "r"(b), "r"(c),
                 "r"(d)
                 : "memory");
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// D += A·B, one m16n8k16 step (fp16 in, fp32 accumulate). sm_75: two m16n8k8 (k 0-7 from
// a0,a1,b0; k 8-15 from a2,a3,b1), same fragment layouts.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

// D = A·B (C = 0): starts a fresh partial sum without zeroing registers first.
__device__ __forceinline__ void mma_16816_zc(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                             unsigned b1) {
    const float z = 0.f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%10, %10, %10, %10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(z));
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%7, %7, %7, %7};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0), "f"(z));
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

__device__ __forceinline__ unsigned hfma2_u32(unsigned a, unsigned b, unsigned c) {
    unsigned d;
    asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ __forceinline__ unsigned hmul2_u32(unsigned a, unsigned b) {
    unsigned d;
    asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ unsigned hsub2_u32(unsigned a, unsigned b) {
    unsigned d;
    asm("sub.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

// The two B registers of one n8 tile for one k16 step, as the exact integers w - 8 in fp16.
// wa holds the bytes of k 0-7 and wb those of k 8-15 of this thread's column (byte i = weights
// 2i in bits 7:4 and 2i+1 in bits 3:0); sel picks byte t of each: r = [wa.t, wb.t, wa.t, wb.t].
// The half2 (low, high) of b0 is (W[2t], W[2t+1]), of b1 (W[2t+8], W[2t+9]): mma's b0 / b1 for
// thread (g, t). Scales are NOT folded in: (w - 8)·s rounded to fp16 has a relative error of
// up to 2^-11 per weight, which over K = 4096 random terms gives ~0.004 rms in y and fails
// atol = 0.01 on ~1e-4 of the outputs (measured on the judge's distributions).
__device__ __forceinline__ void dequant_b(unsigned wa, unsigned wb, unsigned sel, unsigned& b0,
                                          unsigned& b1) {
    const unsigned r = __byte_perm(wa, wb, sel);
    const unsigned lo = (r & 0x000F00F0u) | kMagic;         // (1024 + 16·hi(wa.t), 1024 + lo(wa.t))
    const unsigned hi = ((r >> 8) & 0x000F00F0u) | kMagic;  // same from wb.t
    b0 = hfma2_u32(lo, kDqMul, kDqAdd);                     // (w - 8), exact
    b1 = hfma2_u32(hi, kDqMul, kDqAdd);
}

// ============================================================== tensor-core path (M > 4)
template <int MT_, int WARPS_M_, int WARPS_N_, int STAGES_>
struct MCfg {
    static constexpr int MT = MT_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
    static constexpr int NT = 4;  // n8 tiles per warp: warp tile = 16·MT rows × 32 columns
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
    static constexpr int WM = 16 * MT, BM = WM * WARPS_M, BN = 32 * WARPS_N;
    static constexpr int X_BYTES = BM * kXRow, W_BYTES = BN * kWRow, STAGE = X_BYTES + W_BYTES;
    static constexpr int SMEM = STAGES * STAGE;
    static constexpr int X_ITERS = BM * 8 / THREADS;  // 16-byte x copies per thread per tile
    static constexpr int X_RSTEP = THREADS / 8;       // rows between a thread's x copies
    static constexpr int W_ITERS = BN * 2 / THREADS;  // 16-byte w copies per thread per tile
    static constexpr int W_RSTEP = THREADS / 2;       // w tile rows between a thread's copies
    static constexpr int NACC = MT * NT * 4;          // fp32 accumulators per thread
    static constexpr int MINB = WARPS == 8 ? 1 : 2;
    static_assert(BM * 8 % THREADS == 0 && X_ITERS >= 1, "x tile splits evenly into 16-byte copies");
    static_assert(BN * 2 % THREADS == 0 && W_ITERS >= 1, "w tile splits evenly into 16-byte copies");
    static_assert(X_RSTEP % 8 == 0, "a thread's x copies keep one swizzle key");
    static_assert(SMEM <= 227 * 1024, "fits one SM");
};

// Warp tiles are 16·MT × 32: acc and the group partial take 2·NACC = 128 registers at MT = 4,
// so 8 warps of 64×32 make the largest block tiles (128×256 would need 16 warps).
//                 MT WM WN st
using Cfg0 = MCfg<4, 1, 8, 4>;  //  64×256, 8 warps of 64×32, 64 KB (each weight dequantized once)
using Cfg1 = MCfg<4, 2, 4, 4>;  // 128×128, 8 warps of 64×32, 80 KB
using Cfg2 = MCfg<4, 1, 4, 4>;  //  64×128, 4 warps of 64×32, 48 KB (also the guarded-load fallback)
using Cfg3 = MCfg<2, 1, 4, 4>;  //  32×128, 4 warps of 32×32, 32 KB
using Cfg4 = MCfg<1, 1, 4, 4>;  //  16×128, 4 warps of 16×32, 24 KB

template <bool B>
struct BoolTag {
    static constexpr bool value = B;
};

// FAST: K % 32 == 0 and x, w_q 16-byte aligned (every 16-byte chunk of x (8 k) and of a w_q row
// (32 k) is wholly in or out of range).
// SMODE = how group scales are applied, always in fp32 to sums of x·(w - 8) that are exact
// products: 4: group_size >= 64 — one partial per group (1 or 2 whole 64-k tiles), scaled at the
// group's end; 2: group_size 32 — per k32 half-tile; 1: group_size 16 — per k16 step; 0:
// group_size <= 8 (a k16 step spans several groups) — the scale is folded into B as two fp16
// parts s_hi (8 significant bits) and s_lo = s - s_hi (3 bits), whose products with w - 8 are
// both exact, and two mma accumulate them.
template <class CF, bool FAST, int SMODE>
__global__ void __launch_bounds__(CF::THREADS, CF::MINB)
i4_mma(const half* __restrict__ x, const uint8_t* __restrict__ wq,
       const unsigned short* __restrict__ sc, half* __restrict__ y, int M, int N, int K,
       int gshift, int kts, int y2ok, float* __restrict__ ws, int* __restrict__ counters) {
    constexpr int MT = CF::MT, NT = CF::NT, BM = CF::BM, BN = CF::BN;
    constexpr int STAGES = CF::STAGES, THREADS = CF::THREADS;
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ int s_last;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * 32;

    // Grouped rasterization: consecutive blocks walk down kGroupM tile-rows, then step right.
    const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
    const int per_group = kGroupM * grid_n;
    const int bid = blockIdx.x;
    const int group = bid / per_group, in_group = bid - group * per_group;
    const int first_m = group * kGroupM;
    const int group_rows = min(grid_m - first_m, kGroupM);
    const int m0 = (first_m + in_group % group_rows) * BM;
    const int n0 = (in_group / group_rows) * BN;

    const int KT = (K + kBK - 1) / kBK;
    const int kt_beg = blockIdx.z * kts;
    const int nkt = min(KT, kt_beg + kts) - kt_beg;  // >= 1 (the host makes every slice non-empty)
    const int KB = K >> 1, KG = K >> gshift;
    const unsigned s_base = smem_u32(smem);

    // ---- copy mapping. x: thread copies chunk xc of rows xr0 + i·X_RSTEP (swizzled chunk
    // xc ^ (row & 7)); w: 16-byte half wp of tile rows wr0 + i·W_RSTEP, stored linearly.
    const int xc = tid & 7, xr0 = tid >> 3;
    const int wr0 = tid >> 1, wp = tid & 1;
    unsigned x_row_ok = 0, w_row_ok = 0;
#pragma unroll
    for (int i = 0; i < CF::X_ITERS; ++i) x_row_ok |= (m0 + xr0 + i * CF::X_RSTEP < M) ? 1u << i : 0u;
#pragma unroll
    for (int i = 0; i < CF::W_ITERS; ++i) w_row_ok |= (n0 + wr0 + i * CF::W_RSTEP < N) ? 1u << i : 0u;
    const unsigned x_sts = xr0 * kXRow + ((xc ^ (xr0 & 7)) << 4);
    const unsigned w_sts = CF::X_BYTES + tid * 16;
    const half* x_src = x + (size_t)(m0 + xr0) * K + xc * 8;        // dereferenced only in range
    const uint8_t* w_src = wq + (size_t)(n0 + wr0) * KB + wp * 16;  // dereferenced only in range

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * kBK;
        const unsigned st = s_base + stage * CF::STAGE;
        if constexpr (FAST) {
            const bool xk_ok = k0 + xc * 8 < K;
#pragma unroll
            for (int i = 0; i < CF::X_ITERS; ++i) {
                const bool ok = xk_ok && ((x_row_ok >> i) & 1u);
                const half* src = x_src + (size_t)i * CF::X_RSTEP * K + k0;
                cp_async_16(st + x_sts + i * CF::X_RSTEP * kXRow, ok ? src : x, ok);
            }
            const bool wk_ok = (k0 >> 1) + wp * 16 < KB;
#pragma unroll
            for (int i = 0; i < CF::W_ITERS; ++i) {
                const bool ok = wk_ok && ((w_row_ok >> i) & 1u);
                const uint8_t* src = w_src + (size_t)i * CF::W_RSTEP * KB + (k0 >> 1);
                cp_async_16(st + w_sts + i * THREADS * 16, ok ? src : wq, ok);
            }
        } else {
            // Guarded element loads (K % 32 != 0 or misaligned pointers), same smem layout.
            const unsigned short* xh = reinterpret_cast<const unsigned short*>(x);
#pragma unroll
            for (int i = 0; i < CF::X_ITERS; ++i) {
                const int m = m0 + xr0 + i * CF::X_RSTEP, k = k0 + xc * 8;
                unsigned v[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (m < M && k + 2 * e < K) ? xh[(size_t)m * K + k + 2 * e] : 0u;
                    const unsigned hi = (m < M && k + 2 * e + 1 < K) ? xh[(size_t)m * K + k + 2 * e + 1] : 0u;
                    v[e] = lo | (hi << 16);
                }
                sts128(st + x_sts + i * CF::X_RSTEP * kXRow, v[0], v[1], v[2], v[3]);
            }
#pragma unroll
            for (int i = 0; i < CF::W_ITERS; ++i) {
                const int n = n0 + wr0 + i * CF::W_RSTEP, b = (k0 >> 1) + wp * 16;
                unsigned v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
                for (int e = 0; e < 16; ++e) {
                    const unsigned byte = (n < N && b + e < KB) ? wq[(size_t)n * KB + b + e] : 0u;
                    v[e >> 2] |= byte << (8 * (e & 3));
                }
                sts128(st + w_sts + i * THREADS * 16, v[0], v[1], v[2], v[3]);
            }
        }
    };

    // ---- scales. Out-of-range columns and k >= K read nothing and give 0 (their weights and
    // x are zero-filled, so nothing non-finite can appear).
    // C-fragment columns of this thread: nc0 + 8j and nc0 + 8j + 1 (fp32 group scaling).
    const int nc0 = n0 + wn0 + 2 * t;
    auto col_scale = [&](int n, int k) -> float {
        return (n < N && k < K)
                   ? __half2float(__ushort_as_half(__ldg(sc + (size_t)n * KG + (k >> gshift))))
                   : 0.f;
    };
    float csc[NT][2];
    auto load_col_scales = [&](int k) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            csc[j][0] = col_scale(nc0 + 8 * j, k);
            csc[j][1] = col_scale(nc0 + 8 * j + 1, k);
        }
    };
    // B column of this thread in n8 tile j: nb0 + 8j (SMODE 0: per-pair fp16 scales).
    const int nb0 = n0 + wn0 + g;
    auto pair_scale = [&](int j, int k) -> unsigned {  // duplicated half2 bits
        const int n = nb0 + 8 * j;
        const unsigned v = (n < N && k < K) ? (unsigned)__ldg(sc + (size_t)n * KG + (k >> gshift)) : 0u;
        return v | (v << 16);
    };

    float acc[MT][NT][4], part[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = part[i][j][e] = 0.f;
#pragma unroll
    for (int j = 0; j < NT; ++j) csc[j][0] = csc[j][1] = 0.f;
    auto flush = [&]() {  // acc += scale(column) · part, fp32
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[i][j][e] = fmaf(part[i][j][e], csc[j][e & 1], acc[i][j][e]);
    };

    // PRMT selector [wa.t, wb.t, wa.t, wb.t]; ldmatrix lane addresses (row lane%16, chunk
    // 2kk + lane/16 → matrices a0..a3 of the m16k16 A fragment); this thread's w tile row.
    const unsigned sel = (unsigned)t | ((unsigned)(t + 4) << 4) | ((unsigned)t << 8) |
                         ((unsigned)(t + 4) << 12);
    unsigned a_off[4];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
        a_off[kk] = (wm0 + (lane & 15)) * kXRow + ((((2 * kk) + (lane >> 4)) ^ (lane & 7)) << 4);
    const int w_lds = CF::X_BYTES + (wn0 + g) * kWRow;
    const int tpg_mask = SMODE == 4 ? (1 << (gshift - 6)) - 1 : 0;  // 64-k tiles per group - 1

    // One 64-k tile from stage `stage`. ZC: the tile's first k16 step starts a fresh partial.
    auto run_tile = [&](auto zc_tag, int stage, int k0) {
        constexpr bool ZC = decltype(zc_tag)::value;
        const unsigned xa = s_base + stage * CF::STAGE;
        const unsigned char* wsm = smem + stage * CF::STAGE + w_lds;
#pragma unroll
        for (int kp = 0; kp < 2; ++kp) {  // k32 halves of the tile
            uint4 wv[NT];                  // words = k 0-7, 8-15, 16-23, 24-31 of this k32
#pragma unroll
            for (int j = 0; j < NT; ++j)
                wv[j] = *reinterpret_cast<const uint4*>(wsm + j * 8 * kWRow + kp * 16);
            if (SMODE == 2) load_col_scales(k0 + 32 * kp);
#pragma unroll
            for (int kk2 = 0; kk2 < 2; ++kk2) {
                const int kk = 2 * kp + kk2;
                if (SMODE == 1) load_col_scales(k0 + 16 * kk);
                unsigned bf[NT][2];
#pragma unroll
                for (int j = 0; j < NT; ++j)
                    dequant_b(kk2 ? wv[j].z : wv[j].x, kk2 ? wv[j].w : wv[j].y, sel, bf[j][0], bf[j][1]);
                if constexpr (SMODE == 0) {
                    (void)ZC;
                    unsigned bh[NT][2], bl[NT][2];
#pragma unroll
                    for (int j = 0; j < NT; ++j)
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            const unsigned s = pair_scale(j, k0 + 16 * kk + 8 * h + 2 * t);
                            const unsigned s_hi = s & 0xFFF8FFF8u;  // 8 significant bits
                            const unsigned s_lo = hsub2_u32(s, s_hi);  // the other 3, exact
                            bh[j][h] = hmul2_u32(bf[j][h], s_hi);  // exact products
                            bl[j][h] = hmul2_u32(bf[j][h], s_lo);
                        }
#pragma unroll
                    for (int i = 0; i < MT; ++i) {
                        unsigned a[4];
                        ldsm_x4(a, xa + a_off[kk] + i * 16 * kXRow);
#pragma unroll
                        for (int j = 0; j < NT; ++j) {
                            mma_16816(acc[i][j], a, bh[j][0], bh[j][1]);
                            mma_16816(acc[i][j], a, bl[j][0], bl[j][1]);
                        }
                    }
                } else {
                    const bool fresh = SMODE == 4 ? (ZC && kk == 0) : SMODE == 2 ? kk2 == 0 : true;
#pragma unroll
                    for (int i = 0; i < MT; ++i) {
                        unsigned a[4];
                        ldsm_x4(a, xa + a_off[kk] + i * 16 * kXRow);
#pragma unroll
                        for (int j = 0; j < NT; ++j) {
                            if (fresh)
                                mma_16816_zc(part[i][j], a, bf[j][0], bf[j][1]);
                            else
                                mma_16816(part[i][j], a, bf[j][0], bf[j][1]);
                        }
                    }
                    if (SMODE == 1 || (SMODE == 2 && kk2 == 1)) flush();
                }
            }
        }
    };

    // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < nkt) load_tile(kt_beg + s, s);
        cp_async_commit();
    }

    int rstage = 0, wstage = STAGES - 1;
    for (int it = 0; it < nkt; ++it) {
        // Committed groups: STAGES-1 + it; at most STAGES-2 pending => tile `it` landed. The
        // barrier also says every warp is done with the stage tile it-1 used, refilled now.
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (it + STAGES - 1 < nkt) load_tile(kt_beg + it + STAGES - 1, wstage);
        cp_async_commit();
        wstage = wstage + 1 == STAGES ? 0 : wstage + 1;

        const int kt = kt_beg + it, k0 = kt * kBK;
        if constexpr (SMODE == 4) {
            // A group covers tpg_mask + 1 whole tiles; a slice may start or end inside one
            // (split-K), and each slice scales its own partial.
            const bool fresh = it == 0 || (kt & tpg_mask) == 0;
            if (fresh) {
                load_col_scales(k0);  // used at the group's end, a tile or two later
                run_tile(BoolTag<true>{}, rstage, k0);
            } else {
                run_tile(BoolTag<false>{}, rstage, k0);
            }
            if (it == nkt - 1 || ((kt + 1) & tpg_mask) == 0) flush();
        } else {
            run_tile(BoolTag<false>{}, rstage, k0);
        }
        rstage = rstage + 1 == STAGES ? 0 : rstage + 1;
    }
    cp_async_wait<0>();  // only empty groups can remain; leave nothing in flight

    // ---- split-K: every slice stores its partial tile (register order, coalesced across the
    // block); the last slice to take a ticket sums all of them in slice order and stores y.
    if (gridDim.z > 1) {
        const int S = gridDim.z, z = blockIdx.z;
        const size_t tile_base = (size_t)blockIdx.x * S;
        float* mine = ws + (tile_base + z) * CF::NACC * THREADS + tid;
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    __stcg(mine + (size_t)((i * NT + j) * 4 + e) * THREADS, acc[i][j][e]);
        __threadfence();
        __syncthreads();
        if (tid == 0) s_last = atomicAdd(counters + blockIdx.x, 1) == S - 1;
        __syncthreads();
        if (!s_last) return;
        __threadfence();
        // Its own slice is re-read as well, so the accumulators are dead across the sum (no
        // spills) and the order is slice 0, 1, ..., S-1 whichever block came last.
        const float* part_ws = ws + tile_base * CF::NACC * THREADS + tid;
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int r = (i * NT + j) * 4 + e;
                    float sum = 0.f;
                    for (int zz = 0; zz < S; ++zz)
                        sum += __ldcg(part_ws + ((size_t)zz * CF::NACC + r) * THREADS);
                    acc[i][j][e] = sum;
                }
        if (tid == 0) counters[blockIdx.x] = 0;  // ready for the next launch
    }

    // ---- epilogue: C fragment = rows g / g+8, columns 2t, 2t+1 of each m16×n8 tile.
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            const int col = nc0 + 8 * j;
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const int row = m0 + wm0 + 16 * i + g + 8 * hh;
                if (row >= M || col >= N) continue;
                half* out = y + (size_t)row * N + col;
                const float v0 = acc[i][j][2 * hh], v1 = acc[i][j][2 * hh + 1];
                if (y2ok) {  // N even and y 4-byte aligned: col + 1 < N too
                    *reinterpret_cast<__half2*>(out) = __floats2half2_rn(v0, v1);
                } else {
                    out[0] = __float2half_rn(v0);
                    if (col + 1 < N) out[1] = __float2half_rn(v1);
                }
            }
        }
}

// ============================================================== GEMV path (M <= 4)
constexpr int kGemvThreads = 256;  // 8 warps
constexpr int kGemvUnroll = 4;     // 16-byte blocks per lane per batch (x2 with the prefetch)
constexpr int kGemvMaxM = 4;       // M <= this takes the GEMV path

__device__ __forceinline__ float2 half2_bits_to_float2(unsigned u) {
    __half2 h;
    *reinterpret_cast<unsigned*>(&h) = u;
    return __half22float2(h);
}

// x rows live in shared memory as fp32 at index k + 4·(k / 32) (4 floats of padding per 32).
// Lane 2c + h of a warp serves column c of the warp's 16 and 16-byte blocks h, h+2, ... of the
// warp's K slice (block j = bytes 16j..16j+15 = k 32j..32j+31). VEC: K % 32 == 0 and w_q
// 16-byte aligned; BIGG: group_size >= 32 (a block lies in one group).
template <int R, bool VEC, bool BIGG>
__global__ void __launch_bounds__(kGemvThreads)
i4_gemv(const half* __restrict__ x, const uint8_t* __restrict__ wq,
        const unsigned short* __restrict__ sc, half* __restrict__ y, int N, int K, int gshift,
        int wcl, int xvec) {
    extern __shared__ float4 gemv_smem[];
    float* xs = reinterpret_cast<float*>(gemv_smem);
    const int XP = K + 4 * ((K + 31) >> 5);  // padded row (a multiple of 4 when K % 8 == 0)
    float* red = xs + R * XP;                // [KS][R][CB] partial sums

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int WC = 1 << wcl, KS = 8 >> wcl, CB = 16 << wcl;  // warps over columns / over K
    const int cw = warp & (WC - 1), ks = warp >> wcl;
    const int c = lane >> 1, h = lane & 1;
    const int col = cw * 16 + c;
    const int n = blockIdx.x * CB + col;
    const bool nok = n < N;
    const int KB = K >> 1, KG = K >> gshift;
    const uint8_t* wrow = wq + (size_t)(nok ? n : 0) * KB;
    const unsigned short* srow = sc + (size_t)(nok ? n : 0) * KG;

    float acc[R];
#pragma unroll
    for (int m = 0; m < R; ++m) acc[m] = 0.f;

    auto fill_x = [&]() {
        if (xvec) {  // K % 8 == 0 and x 16-byte aligned
            const int C8 = K >> 3;
            for (int idx = tid; idx < R * C8; idx += kGemvThreads) {
                const int m = idx / C8, k = (idx - m * C8) * 8;
                const uint4 v = __ldg(reinterpret_cast<const uint4*>(x + (size_t)m * K + k));
                const float2 f0 = half2_bits_to_float2(v.x), f1 = half2_bits_to_float2(v.y);
                const float2 f2 = half2_bits_to_float2(v.z), f3 = half2_bits_to_float2(v.w);
                float4* d = reinterpret_cast<float4*>(xs + m * XP + k + 4 * (k >> 5));
                d[0] = make_float4(f0.x, f0.y, f1.x, f1.y);
                d[1] = make_float4(f2.x, f2.y, f3.x, f3.y);
            }
        } else {
            for (int idx = tid; idx < R * K; idx += kGemvThreads) {
                const int m = idx / K, k = idx - m * K;
                xs[m * XP + k + 4 * (k >> 5)] = __half2float(x[(size_t)m * K + k]);
            }
        }
    };

    if constexpr (VEC) {
        const int NB = KB >> 4;  // 16-byte blocks per row
        const int jb = ks * NB / KS, je = (ks + 1) * NB / KS;
        auto load_batch = [&](uint4 (&q)[kGemvUnroll], unsigned short (&sv)[kGemvUnroll], int j0) {
#pragma unroll
            for (int u = 0; u < kGemvUnroll; ++u) {
                const int j = j0 + 2 * u;
                const bool ok = nok && j < je;
                q[u] = ok ? __ldg(reinterpret_cast<const uint4*>(wrow) + j) : make_uint4(0u, 0u, 0u, 0u);
                sv[u] = (BIGG && ok) ? __ldg(srow + ((32 * j) >> gshift)) : (unsigned short)0;
            }
        };
        auto process = [&](const uint4 (&q)[kGemvUnroll], const unsigned short (&sv)[kGemvUnroll], int j0) {
#pragma unroll
            for (int u = 0; u < kGemvUnroll; ++u) {
                const int j = j0 + 2 * u;
                if (!(nok && j < je)) continue;
                const unsigned wd[4] = {q[u].x, q[u].y, q[u].z, q[u].w};
                float ph[R], pl[R];  // Σ x·16(w-8) over even k, Σ x·(w-8) over odd k
#pragma unroll
                for (int m = 0; m < R; ++m) ph[m] = pl[m] = 0.f;
#pragma unroll
                for (int v = 0; v < 4; ++v) {  // word v = k 32j + 8v .. +7
                    float xv[R][8];
#pragma unroll
                    for (int m = 0; m < R; ++m) {
                        const float4 a = *reinterpret_cast<const float4*>(xs + m * XP + 36 * j + 8 * v);
                        const float4 b = *reinterpret_cast<const float4*>(xs + m * XP + 36 * j + 8 * v + 4);
                        xv[m][0] = a.x; xv[m][1] = a.y; xv[m][2] = a.z; xv[m][3] = a.w;
                        xv[m][4] = b.x; xv[m][5] = b.y; xv[m][6] = b.z; xv[m][7] = b.w;
                    }
#pragma unroll
                    for (int i = 0; i < 4; ++i) {  // byte i: k even = bits 7:4, k odd = bits 3:0
                        const unsigned tt = wd[v] >> (8 * i);
                        const float fh = __int_as_float((int)((tt & 0xF0u) | 0x4B000000u)) - 8388736.0f;  // 16(w-8)
                        const float fl = __int_as_float((int)((tt & 0x0Fu) | 0x4B000000u)) - 8388616.0f;  // w-8
                        if constexpr (BIGG) {
#pragma unroll
                            for (int m = 0; m < R; ++m) {
                                ph[m] = fmaf(xv[m][2 * i], fh, ph[m]);
                                pl[m] = fmaf(xv[m][2 * i + 1], fl, pl[m]);
                            }
                        } else {
                            const int k = 32 * j + 8 * v + 2 * i;
                            const float s = __half2float(__ushort_as_half(__ldg(srow + (k >> gshift))));
#pragma unroll
                            for (int m = 0; m < R; ++m)
                                acc[m] = fmaf(s, fmaf(xv[m][2 * i], fh * 0.0625f, xv[m][2 * i + 1] * fl), acc[m]);
                        }
                    }
                }
                if constexpr (BIGG) {
                    const float s = __half2float(__ushort_as_half(sv[u]));
#pragma unroll
                    for (int m = 0; m < R; ++m) acc[m] = fmaf(s, fmaf(ph[m], 0.0625f, pl[m]), acc[m]);
                }
            }
        };

        int j0 = jb + h;
        uint4 q[kGemvUnroll];
        unsigned short sv[kGemvUnroll];
        load_batch(q, sv, j0);  // first weights in flight while x is staged
        fill_x();
        __syncthreads();
        for (; j0 < je; j0 += 2 * kGemvUnroll) {
            uint4 qn[kGemvUnroll];
            unsigned short svn[kGemvUnroll];
            load_batch(qn, svn, j0 + 2 * kGemvUnroll);
            process(q, sv, j0);
#pragma unroll
            for (int u = 0; u < kGemvUnroll; ++u) {
                q[u] = qn[u];
                sv[u] = svn[u];
            }
        }
    } else {
        fill_x();
        __syncthreads();
        const int bb = ks * KB / KS, be = (ks + 1) * KB / KS;  // this warp's bytes of the row
        if (nok) {
            for (int b = bb + h; b < be; b += 2) {
                const unsigned byte = wrow[b];
                const int k = 2 * b;
                const float wh = (float)((int)(byte >> 4) - 8), wl = (float)((int)(byte & 15u) - 8);
                const float s = __half2float(__ushort_as_half(srow[k >> gshift]));
                const int xi = k + 4 * (k >> 5);  // k even: k + 1 sits at xi + 1
#pragma unroll
                for (int m = 0; m < R; ++m)
                    acc[m] = fmaf(s, fmaf(xs[m * XP + xi], wh, xs[m * XP + xi + 1] * wl), acc[m]);
            }
        }
    }

    // Two lanes per column, then the KS warps of a column group, summed in a fixed order.
#pragma unroll
    for (int m = 0; m < R; ++m) acc[m] += __shfl_xor_sync(0xffffffffu, acc[m], 1);
    if (h == 0) {
#pragma unroll
        for (int m = 0; m < R; ++m) red[(ks * R + m) * CB + col] = acc[m];
    }
    __syncthreads();
    for (int o = tid; o < R * CB; o += kGemvThreads) {
        const int m = o / CB, cc = o - m * CB, nn = blockIdx.x * CB + cc;
        if (nn >= N) continue;
        float s = 0.f;
        for (int k2 = 0; k2 < KS; ++k2) s += red[(k2 * R + m) * CB + cc];
        y[(size_t)m * N + nn] = __float2half_rn(s);
    }
}

// ============================================================== host side
struct DevInfo {
    int sms = 132;
    int optin = 48 * 1024;  // max dynamic shared memory per block after opt-in
};

const DevInfo& dev_info() {
    static const DevInfo d = [] {
        DevInfo r;
        int id = 0, v = 0;
        if (cudaGetDevice(&id) == cudaSuccess) {
            if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, id) == cudaSuccess && v > 0)
                r.sms = v;
            if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, id) == cudaSuccess &&
                v > 0)
                r.optin = v;
        }
        return r;
    }();
    return d;
}

// Split-K workspace and per-tile tickets: allocated once, grown on demand, never freed per call;
// a function-local cache. Tickets start at zero and every launch leaves them at zero.
struct SplitBuffers {
    float* ws = nullptr;
    size_t ws_bytes = 0;
    int* cnt = nullptr;
    size_t cnt_n = 0;
};
SplitBuffers& split_buffers() {
    static SplitBuffers b;
    return b;
}
constexpr double kMaxWsBytes = 256.0 * 1024 * 1024;

bool ensure_split_buffers(size_t ws_bytes, size_t tiles) {
    SplitBuffers& b = split_buffers();
    if (ws_bytes > b.ws_bytes) {
        if (b.ws) {  // grown: no kernel of an earlier call may still use the old one
            if (cudaDeviceSynchronize() != cudaSuccess || cudaFree(b.ws) != cudaSuccess) {
                cudaGetLastError();  // kept as it is; the unsplit launch runs instead
                return false;
            }
            b.ws = nullptr;
            b.ws_bytes = 0;
        }
        if (cudaMalloc(&b.ws, ws_bytes) != cudaSuccess) {
            cudaGetLastError();  // the unsplit launch runs instead
            b.ws = nullptr;
            return false;
        }
        b.ws_bytes = ws_bytes;
    }
    if (tiles > b.cnt_n) {
        if (b.cnt) {  // grown: no kernel of an earlier call may still use the old one
            if (cudaDeviceSynchronize() != cudaSuccess || cudaFree(b.cnt) != cudaSuccess) {
                cudaGetLastError();  // kept as it is; the unsplit launch runs instead
                return false;
            }
            b.cnt = nullptr;
            b.cnt_n = 0;
        }
        if (cudaMalloc(&b.cnt, tiles * sizeof(int)) != cudaSuccess) {
            cudaGetLastError();
            b.cnt = nullptr;
            return false;
        }
        if (cudaMemset(b.cnt, 0, tiles * sizeof(int)) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        b.cnt_n = tiles;
    }
    return true;
}

constexpr int kNumCfg = 5;
constexpr int kCfgBM[kNumCfg] = {Cfg0::BM, Cfg1::BM, Cfg2::BM, Cfg3::BM, Cfg4::BM};
constexpr int kCfgBN[kNumCfg] = {Cfg0::BN, Cfg1::BN, Cfg2::BN, Cfg3::BN, Cfg4::BN};
constexpr int kCfgWarps[kNumCfg] = {Cfg0::WARPS, Cfg1::WARPS, Cfg2::WARPS, Cfg3::WARPS, Cfg4::WARPS};
constexpr int kCfgWarpsM[kNumCfg] = {Cfg0::WARPS_M, Cfg1::WARPS_M, Cfg2::WARPS_M, Cfg3::WARPS_M, Cfg4::WARPS_M};
constexpr int kCfgSmem[kNumCfg] = {Cfg0::SMEM, Cfg1::SMEM, Cfg2::SMEM, Cfg3::SMEM, Cfg4::SMEM};
constexpr int kFallbackCfg = 2;
constexpr int kStaticSmemSlack = 256;  // the kernel's static __shared__ (split-K ticket) and margin

struct Choice {
    int cfg, splits, kts;
};

// Relative time of (config, split): the busiest SM runs per_sm blocks of kts k-tiles; a k-tile
// costs ~BN·(1.1·BM + 110·WARPS_M) (mma + fp32 scaling ∝ BM·BN; dequant ∝ BN, done once per warp
// row; 110 is an estimate of a column's dequant in units of one row's mma, to tune on the
// device) plus 0.5 per byte the tile pulls from L2 (x 128·BM, w_q 32·BN), which favours wide
// tiles when the waves tie; under 8 resident warps an SM runs at ~60%. Split-K adds the partial tile store and the serial sum by the last block, and
// is only tried when the tiles alone leave SMs idle (a full grid gains little from it).
Choice choose_mma(int M, int N, int K, bool fast, bool all_cfgs, const DevInfo& d) {
    const int KT = (K + kBK - 1) / kBK;
    Choice best{kFallbackCfg, 1, KT};
    double best_t = 1e300;
    static const int kSplits[] = {1, 2, 3, 4, 6, 8, 12, 16};
    for (int c = 0; c < kNumCfg; ++c) {
        if (!fast && c != kFallbackCfg) continue;
        if (!all_cfgs && c != kFallbackCfg && c != kNumCfg - 1) continue;
        if (kCfgSmem[c] + kStaticSmemSlack > d.optin) continue;
        const int BM = kCfgBM[c], BN = kCfgBN[c];
        const double tiles = (double)((M + BM - 1) / BM) * (double)((N + BN - 1) / BN);
        for (int s : kSplits) {
            if (s > 1 && (KT < 2 * s || tiles >= d.sms)) break;  // split only an under-filled
                                                                   // grid, >= 2 k-tiles a slice
            const int kts = (KT + s - 1) / s;
            if ((KT + kts - 1) / kts != s) continue;  // every slice non-empty
            if (s > 1 && (double)s * tiles * BM * BN * 4.0 > kMaxWsBytes) continue;
            const double ctas = tiles * s;
            const double per_sm = (double)(long long)((ctas + d.sms - 1) / d.sms);
            const double par = 8.0 / kCfgWarps[c];
            const double resident = per_sm < par ? per_sm : par;
            const double eff = resident * kCfgWarps[c] >= 8.0 ? 1.0 : 0.6;
            const double unit = BN * (1.1 * BM + 110.0 * kCfgWarpsM[c]) + 0.5 * (BM * 128.0 + BN * 32.0);
            double tm = per_sm * kts * unit / eff;
            if (s > 1) tm += 4.25 * BM * BN * s;
            if (tm < best_t) {
                best_t = tm;
                best = Choice{c, s, kts};
            }
        }
    }
    return best;
}

template <class CF, bool FAST, int SMODE>
void launch_mma(const half* x, const uint8_t* wq, const unsigned short* sc, half* y, int M, int N,
                int K, int gshift, const Choice& ch, int y2ok, float* ws, int* cnt) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        i4_mma<CF, FAST, SMODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, CF::SMEM);
    (void)attr;
    const int tiles = ((M + CF::BM - 1) / CF::BM) * ((N + CF::BN - 1) / CF::BN);
    i4_mma<CF, FAST, SMODE><<<dim3(tiles, 1, ch.splits), CF::THREADS, CF::SMEM>>>(
        x, wq, sc, y, M, N, K, gshift, ch.kts, y2ok, ws, cnt);
}

// ALL_MODES: every scale mode (configs 2 and 4); otherwise group_size >= 64 only.
template <class CF, bool FAST, bool ALL_MODES>
void launch_mma_s(int smode, const half* x, const uint8_t* wq, const unsigned short* sc, half* y,
                  int M, int N, int K, int gshift, const Choice& ch, int y2ok, float* ws, int* cnt) {
    if constexpr (ALL_MODES) {
        switch (smode) {
            case 0: launch_mma<CF, FAST, 0>(x, wq, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); return;
            case 1: launch_mma<CF, FAST, 1>(x, wq, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); return;
            case 2: launch_mma<CF, FAST, 2>(x, wq, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); return;
            default: break;
        }
    }
    launch_mma<CF, FAST, 4>(x, wq, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt);
}

template <int R, bool VEC, bool BIGG>
void launch_gemv(const half* x, const uint8_t* wq, const unsigned short* sc, half* y, int N, int K,
                 int gshift, int wcl, int xvec, size_t smem, int optin) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        i4_gemv<R, VEC, BIGG>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    (void)attr;
    const int cb = 16 << wcl;
    i4_gemv<R, VEC, BIGG><<<(N + cb - 1) / cb, kGemvThreads, smem>>>(x, wq, sc, y, N, K, gshift,
                                                                      wcl, xvec);
}

template <int R>
void launch_gemv_r(bool vec, bool bigg, const half* x, const uint8_t* wq, const unsigned short* sc,
                   half* y, int N, int K, int gshift, int wcl, int xvec, size_t smem, int optin) {
    if (vec && bigg)
        launch_gemv<R, true, true>(x, wq, sc, y, N, K, gshift, wcl, xvec, smem, optin);
    else if (vec)
        launch_gemv<R, true, false>(x, wq, sc, y, N, K, gshift, wcl, xvec, smem, optin);
    else
        launch_gemv<R, false, false>(x, wq, sc, y, N, K, gshift, wcl, xvec, smem, optin);
}

}  // namespace

// x, w_q, scales, y are device pointers
extern "C" void solve(const __half* x, const uint8_t* w_q, const __half* scales, __half* y, int M,
                      int N, int K, int group_size) {
    if (M <= 0 || N <= 0 || K <= 0 || group_size <= 0) return;
    int gshift = 0;  // group_size is a power of two (2..128)
    while ((1 << gshift) < group_size) ++gshift;
    const DevInfo& d = dev_info();
    const unsigned short* sc = reinterpret_cast<const unsigned short*>(scales);
    const bool x16 = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    const bool w16 = (reinterpret_cast<uintptr_t>(w_q) & 15) == 0;

    if (M <= kGemvMaxM) {
        const bool vec = K % 32 == 0 && w16;
        const bool bigg = group_size >= 32;
        const int xvec = (K % 8 == 0 && x16) ? 1 : 0;
        // Columns per block: the widest 16·2^l that still gives >= 1.5 blocks per SM.
        int wcl = 0;
        for (int l = 3; l >= 1; --l) {
            const long blocks = (N + (16 << l) - 1) / (16 << l);
            if (2 * blocks >= 3L * d.sms) {
                wcl = l;
                break;
            }
        }
        const size_t row_bytes = (size_t)(K + 4 * ((K + 31) / 32) + 128) * sizeof(float);
        int rmax = (int)((size_t)d.optin / row_bytes);
        if (rmax > kGemvMaxM) rmax = kGemvMaxM;
        if (rmax < 1) rmax = 1;
        for (int r0 = 0; r0 < M; r0 += rmax) {
            const int R = M - r0 < rmax ? M - r0 : rmax;
            const __half* xr = x + (size_t)r0 * K;
            __half* yr = y + (size_t)r0 * N;
            const size_t smem = (size_t)R * row_bytes;
            switch (R) {
                case 1: launch_gemv_r<1>(vec, bigg, xr, w_q, sc, yr, N, K, gshift, wcl, xvec, smem, d.optin); break;
                case 2: launch_gemv_r<2>(vec, bigg, xr, w_q, sc, yr, N, K, gshift, wcl, xvec, smem, d.optin); break;
                case 3: launch_gemv_r<3>(vec, bigg, xr, w_q, sc, yr, N, K, gshift, wcl, xvec, smem, d.optin); break;
                default: launch_gemv_r<4>(vec, bigg, xr, w_q, sc, yr, N, K, gshift, wcl, xvec, smem, d.optin); break;
            }
        }
        return;
    }

    const bool fast = K % 32 == 0 && x16 && w16;
    // Scale mode (see i4_mma): 4 for group_size >= 64, 2 for 32, 1 for 16, 0 for 2..8.
    const int smode = group_size >= kBK ? 4 : group_size == 32 ? 2 : group_size == 16 ? 1 : 0;
    const int y2ok = (N % 2 == 0 && (reinterpret_cast<uintptr_t>(y) & 3) == 0) ? 1 : 0;
    Choice ch = choose_mma(M, N, K, fast, smode == 4, d);
    float* ws = nullptr;
    int* cnt = nullptr;
    if (ch.splits > 1) {
        const int BM = kCfgBM[ch.cfg], BN = kCfgBN[ch.cfg];
        const size_t tiles = (size_t)((M + BM - 1) / BM) * ((N + BN - 1) / BN);
        if (ensure_split_buffers(tiles * ch.splits * BM * BN * sizeof(float), tiles)) {
            ws = split_buffers().ws;
            cnt = split_buffers().cnt;
        } else {
            ch.splits = 1;
            ch.kts = (K + kBK - 1) / kBK;
        }
    }
    switch (ch.cfg) {
        case 0: launch_mma_s<Cfg0, true, false>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); break;
        case 1: launch_mma_s<Cfg1, true, false>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); break;
        case 3: launch_mma_s<Cfg3, true, false>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); break;
        case 4: launch_mma_s<Cfg4, true, true>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt); break;
        default:
            if (fast)
                launch_mma_s<Cfg2, true, true>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt);
            else
                launch_mma_s<Cfg2, false, true>(smode, x, w_q, sc, y, M, N, K, gshift, ch, y2ok, ws, cnt);
            break;
    }
}
