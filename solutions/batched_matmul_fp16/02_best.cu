// 02_best — tensor cores over the whole batch in one launch: grid (tiles of one matrix, BATCH), cp.async 4-stage ring + ldmatrix + mma.sync m16n8k16 (fp32 accumulate) on sm_80+, register-staged ldmatrix + m16n8k8 on sm_75, tile shape picked by a wave-count cost model
//
// Changed from 01: 01 is one thread per output with an fp32 FMA loop over K, bound by L1 loads
//   (one 2-byte load of B per FMA) and by CUDA-core fp32, ~4 TF/s. This stage moves the
//   product onto the tensor cores with the main-line GEMM's machinery (09_mma_ldmatrix and
//   12_best's mma_path): fp16 tiles of A and B go global→shared through a 4-stage cp.async
//   ring (16-byte copies, zero-fill at the edges via src-size 0) into XOR-swizzled,
//   unpadded shared tiles; warps read fragments with ldmatrix.x4 (A) and ldmatrix.x4.trans
//   (B, row-major K×N), double-buffered in registers one k16 step ahead, and issue
//   mma.sync.m16n8k16.f32.f16.f16.f32; the stage barrier sits before the last k16 step of a
//   k-tile. The batch is blockIdx.y (A, B, C offset by b·M·K, b·K·N, b·M·N), the tile within a
//   matrix is blockIdx.x (09's grouped order), so one launch covers every matrix and small
//   matrices still fill the GPU. Four tile shapes, picked per call by 09's cost model (busiest
//   SM's tile count × tile area / per-shape efficiency): 64×64 (4 warps of 32×32), 128×64 (4
//   warps of 64×32), 128×128 (8 warps of 64×32), 128×256 (8 warps of 64×64). Epilogue: fp32
//   accumulators through a per-warp shared scratch so a warp stores C in 8-byte runs (128
//   contiguous bytes a row), each value rounded once to nearest-even.
//   sm_75 (T4; also any build whose PTX arch is < 8.0): no cp.async and no f16 m16n8k16, so the
//   same kernels run a register-staged double buffer (ld.global.v4 one k-tile ahead into
//   registers, st.shared, one barrier a k-tile) with ldmatrix at k8 granularity and m16n8k8.
//   Any M, N, K ≥ 1: rows of A or B are 16-byte aligned only when K % 8 == 0 and N % 8 == 0
//   (and the base pointers are), which also makes every batch offset a multiple of 16 bytes;
//   otherwise the ALIGNED = false kernels fill the same shared layout by guarded 2-byte loads
//   (zero outside the matrix) through the register-staged loop, and store C element by element.
//   No tensor-core kernel can be prepared (no image, smem opt-in refused): 01's kernel runs.
// Prediction (before measuring): 32×256³ (1.07 GFLOP): the model picks 128×128 (32 × 4 = 128
//   tiles, one 8-warp CTA per SM on 128 of 132 SMs): 2048 mma.sync per SM at ~256 shared bytes
//   per mma (192 of ldmatrix + 64 of cp.async fill) against 128 B/clk ≈ 4.1k clocks ≈ 2.2 µs,
//   plus ~1 µs to fill the first stages and ~0.5 µs of epilogue: kernel ≈ 4 µs, ≈ 0.0065 ms
//   per call by events with launch overhead (~165 TF/s) — about 3× faster than torch.bmm's
//   0.0190 ms per call (its kernel alone is 4.9 µs).
//   128×1024³ (275 GFLOP): the model picks 128×256 (4096 tiles, 31 waves), 09's tile and loop,
//   which reached 397 TF/s at 4096³; with 32 k-tiles per tile instead of 128 each tile's fill
//   and epilogue weigh ~4× more, so ~360 TF/s ≈ 0.76 ms, ~60% of cuBLAS's speed (0.461 ms).
// Measured (H200, harness, cuBLAS strided-batched beside it in the same process): 32×256³
//   0.0118 ms vs 0.0150 (0.79×; 0.0128 vs 0.0167 in the leaderboard): 0.0065 was optimistic,
//   yet faster than cuBLAS; 128×1024³ 0.791 ms vs 0.416 (1.90×; 0.730 vs 0.464 in the
//   leaderboard): the 0.76 ms prediction held, mma.sync cannot feed the H200 (03 adds wgmma).
// Tiles: BK=32, 4 stages (sm_80+; 2 of them on the register-staged path), per-warp fp32
//   epilogue scratch in the ring. 64×64 (warps 2×2, warp 32×32, 32 KB), 128×64 (2×2, 64×32,
//   48 KB), 128×128 (2×4, 64×32, 64 KB), 128×256 (2×4, 64×64, 96 KB); on devices below sm_80
//   16/24/32/48 KB. Cost-model efficiencies 0.5 / 0.7 / 0.8 / 1.0 (estimates to tune).
//   -DBMM16_FORCE=0..3 forces a shape (tests only).
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stddef.h>

namespace bmm16 {

constexpr int kChunk = 8;  // halves in one 16-byte copy / one ldmatrix row

// Physical 16-byte chunk for logical chunk c of row r in a tile whose rows hold kRowChunks
// chunks (09's swizzle). Rows of >= 128 bytes: XOR the low 3 chunk bits with r % 8. Shorter
// rows share a 128-byte line, so the key comes from the row bits above those. Either way 8
// consecutive rows of one logical chunk land in 8 distinct bank groups; the key repeats every
// 8 rows.
template <int kRowChunks>
__host__ __device__ constexpr int swizzle(int r, int c) {
    return kRowChunks >= 8 ? (c ^ (r & 7)) : (c ^ ((r / (8 / kRowChunks)) & (kRowChunks - 1)));
}

template <int BM_, int BN_, int BK_, int STAGES_, int WARPS_M_, int WARPS_N_, int MIN_BLOCKS_, int GROUP_M_>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int GROUP_M = GROUP_M_;  // tile-rows per rasterization group
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = WARPS * 32;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;     // warp tile
    static constexpr int MT = WM / 16, NT = WN / 8, KK = BK / 16;  // m16 / n8 / k16 steps per warp
    static constexpr int KS = BK / 8;                              // k8 steps (register-staged loop)
    static constexpr int A_ROW_CHUNKS = BK / kChunk, B_ROW_CHUNKS = BN / kChunk;
    static constexpr int A_STAGE = BM * BK * 2, B_STAGE = BK * BN * 2, STAGE = A_STAGE + B_STAGE;  // bytes
    static constexpr int A_LOADS = BM * A_ROW_CHUNKS / THREADS;  // 16-byte copies per thread per tile
    static constexpr int B_LOADS = BK * B_ROW_CHUNKS / THREADS;
    static constexpr int A_ROW_STEP = THREADS / A_ROW_CHUNKS;  // rows between one thread's copies
    static constexpr int B_ROW_STEP = THREADS / B_ROW_CHUNKS;
    // Epilogue scratch: one 16-row slice of the warp tile in fp32. Row stride ≡ 8 words (mod 32):
    // the float2 writes of a half-warp (rows g, columns 2t) cover all 32 banks once.
    static constexpr int EPI_LD = WN + 8;
    static constexpr int EPI_BYTES = WARPS * 16 * EPI_LD * 4;
    static constexpr int EPI_LANES_PER_ROW = WN / 4;  // each lane moves 4 columns
    static constexpr int EPI_ROWS_PER_PASS = 32 / EPI_LANES_PER_ROW;
    static constexpr int EPI_PASSES = 16 / EPI_ROWS_PER_PASS;
    // Dynamic shared memory: the cp.async ring (sm_80+) or the two buffers of the
    // register-staged loop (sm_75), and the epilogue scratch, which reuses the same bytes.
    static constexpr int SMEM_ASYNC = STAGES * STAGE > EPI_BYTES ? STAGES * STAGE : EPI_BYTES;
    static constexpr int SMEM_STAGED = 2 * STAGE > EPI_BYTES ? 2 * STAGE : EPI_BYTES;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warp grid divides the block tile");
    static_assert(WM % 32 == 0 && WN % 32 == 0,
                  "warp tile: k16 loads take m16 tiles and n16 pairs; k8 loads take m16 pairs "
                  "(ldmatrix.x4 of A) and four n8 tiles (ldmatrix.x4.trans of B)");
    static_assert(BK % 32 == 0 && KK % 2 == 0 && KS % 2 == 0,
                  "BK >= 32: the stage barrier sits in the last k step; even step counts keep the "
                  "fragment double buffer indices static across k-tiles");
    static_assert(THREADS % A_ROW_CHUNKS == 0 && THREADS % B_ROW_CHUNKS == 0, "copy mapping");
    static_assert(A_LOADS * THREADS == BM * A_ROW_CHUNKS && B_LOADS * THREADS == BK * B_ROW_CHUNKS,
                  "tiles split evenly into 16-byte copies");
    static_assert(A_ROW_STEP % 8 == 0 && B_ROW_STEP % 8 == 0,
                  "a thread's copies sit a multiple of 8 rows apart: same swizzle key");
    static_assert(STAGES >= 3, "cp.async ring: wait_group STAGES-2 with the refill issued a step before the barrier");
    static_assert(WN >= 32 && 32 % EPI_LANES_PER_ROW == 0 && 16 % EPI_ROWS_PER_PASS == 0, "epilogue mapping");
    static_assert(SMEM_ASYNC <= 227 * 1024, "fits one SM");
};

//                  BM   BN  BK st WM WN minB group
using Cfg0 = Cfg<64, 64, 32, 4, 2, 2, 4, 8>;      // 4 warps of 32×32; 32 KB (sm_75: 16 KB)
using Cfg1 = Cfg<128, 64, 32, 4, 2, 2, 2, 8>;     // 4 warps of 64×32; 48 KB (24 KB)
using Cfg2 = Cfg<128, 128, 32, 4, 2, 4, 1, 8>;    // 8 warps of 64×32; 64 KB (32 KB)
using Cfg3 = Cfg<128, 256, 32, 4, 2, 4, 1, 16>;   // 8 warps of 64×64; 96 KB (48 KB)
static_assert(Cfg0::SMEM_ASYNC == 32 * 1024 && Cfg1::SMEM_ASYNC == 48 * 1024 && Cfg2::SMEM_ASYNC == 64 * 1024 &&
                  Cfg3::SMEM_ASYNC == 96 * 1024 && Cfg3::SMEM_STAGED == 48 * 1024,
              "smem sizes quoted in the header");

// ------------------------------------------------------------------ device helpers

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte global load into registers; pred false reads nothing and yields zeros.
__device__ __forceinline__ uint4 ldg_16(const void* src, bool pred) {
    uint4 v;
    asm volatile(
        "{\n"
        "  .reg .pred p;\n"
        "  setp.ne.b32 p, %5, 0;\n"
        "  mov.b32 %0, 0;\n"
        "  mov.b32 %1, 0;\n"
        "  mov.b32 %2, 0;\n"
        "  mov.b32 %3, 0;\n"
        "  @p ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n"
        "}\n"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(src), "r"(pred ? 1 : 0));
    return v;
}

__device__ __forceinline__ void sts_16(unsigned dst, const uint4& v) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// 16-byte global→shared copy; src-size 0 reads nothing and zero-fills (edges of the matrices).
// Only the sm_80+ loop calls it; below sm_80 it is a synchronous copy so that it stays correct.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(pred ? 16 : 0)
                 : "memory");
#else
    sts_16(dst, ldg_16(src, pred));
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

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// D += A·B for one m16n8k16 step, fp32 accumulators (sm_80+).
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    // The same product as two k8 halves: a0/a1 (rows g, g+8; k 2t..2t+1) with b0 (k 2t..2t+1),
    // then a2/a3 (k 8+2t..) with b1 (k 8+2t..). (Not reached: sm_75 runs the staged loop.)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

// D += A·B for one m16n8k8 step (sm_75+). A: a0 = rows g, k 2t..2t+1; a1 = rows g+8. B: k 2t..2t+1,
// column g. D as m16n8k16.
__device__ __forceinline__ void mma_1688(float (&d)[4], unsigned a0, unsigned a1, unsigned b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(b));
}

// Round-to-nearest-even of both values (what __float2half_rn does to each), packed low = lo.
__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
}

// Where a block's tile sits in its matrix (09's grouped rasterization: consecutive blocks run
// down GROUP_M tile-rows, then step right). blockIdx.x only; the batch is blockIdx.y.
template <class CF>
__device__ __forceinline__ void tile_origin(int M, int N, int& m0, int& n0) {
    const int grid_m = (M + CF::BM - 1) / CF::BM, grid_n = (N + CF::BN - 1) / CF::BN;
    const int per_group = CF::GROUP_M * grid_n;
    const int group = blockIdx.x / per_group, in_group = blockIdx.x - group * per_group;
    const int first_m = group * CF::GROUP_M;
    const int group_rows = min(grid_m - first_m, CF::GROUP_M);
    m0 = (first_m + in_group % group_rows) * CF::BM;
    n0 = (in_group / group_rows) * CF::BN;
}

// ------------------------------------------------------------------ sm_80+ main loop (09's)
// ALIGNED only: K % 8 == 0, N % 8 == 0 and A, B 16-byte aligned (checked in solve): a 16-byte
// chunk that starts in range lies wholly in range, so one predicate per copy is exact.
// A and B already point at this block's matrices.
template <class CF>
__device__ __forceinline__ void mainloop_async(const half* __restrict__ A, const half* __restrict__ B, int M,
                                               int N, int K, int m0, int n0, unsigned char* smem,
                                               float (&acc)[CF::MT][CF::NT][4]) {
    constexpr int BK = CF::BK, BN = CF::BN, STAGES = CF::STAGES;
    constexpr int MT = CF::MT, NT = CF::NT, KK = CF::KK;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const unsigned s_base = smem_addr(smem);

    // global→shared copy mapping: thread copies chunk a_c of rows a_r0 + i*A_ROW_STEP, etc.
    const int a_c = tid % CF::A_ROW_CHUNKS, a_r0 = tid / CF::A_ROW_CHUNKS;
    const int b_c = tid % CF::B_ROW_CHUNKS, b_r0 = tid / CF::B_ROW_CHUNKS;
    const unsigned a_sts = a_r0 * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(a_r0, a_c) * 16;
    const unsigned b_sts = CF::A_STAGE + b_r0 * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(b_r0, b_c) * 16;
    unsigned a_row_ok = 0;
#pragma unroll
    for (int i = 0; i < CF::A_LOADS; ++i) a_row_ok |= (m0 + a_r0 + i * CF::A_ROW_STEP < M) ? 1u << i : 0u;
    const bool b_col_ok = n0 + b_c * kChunk < N;
    const half* a_src = A + (size_t)(m0 + a_r0) * K + a_c * kChunk;  // used only where in range
    const half* b_src = B + (size_t)b_r0 * N + n0 + b_c * kChunk;

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * BK;
        const unsigned sa = s_base + stage * CF::STAGE;
        const bool k_ok = k0 + a_c * kChunk < K;
#pragma unroll
        for (int i = 0; i < CF::A_LOADS; ++i) {
            const bool ok = k_ok && ((a_row_ok >> i) & 1u);
            const half* src = a_src + (size_t)i * CF::A_ROW_STEP * K + k0;
            cp_async_16(sa + a_sts + i * CF::A_ROW_STEP * (BK * 2), ok ? src : A, ok);
        }
#pragma unroll
        for (int i = 0; i < CF::B_LOADS; ++i) {
            const bool ok = b_col_ok && (k0 + b_r0 + i * CF::B_ROW_STEP < K);
            const half* src = b_src + (size_t)(k0 + i * CF::B_ROW_STEP) * N;
            cp_async_16(sa + b_sts + i * CF::B_ROW_STEP * (BN * 2), ok ? src : B, ok);
        }
    };

    // ldmatrix addresses (byte offsets within a stage). x4 lane l addresses row l % 16 of the
    // 16×16 block, chunk l / 16: matrices = (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7,
    // k 8-15), (rows 8-15, k 8-15) = mma A registers a0a1, a2a3, a4a5, a6a7. For B (.trans) rows
    // are k and chunks are n: matrices = (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
    // (k 8-15, n 8-15) = b0b1, b2b3 of n8 tile 2jj, then of tile 2jj+1. Steps of 16 rows keep
    // the swizzle key: immediates.
    unsigned a_lds[KK], b_lds[NT / 2];
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {
        const int r = wm0 + (lane & 15), c = kk * 2 + (lane >> 4);
        a_lds[kk] = r * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(r, c) * 16;
    }
#pragma unroll
    for (int jj = 0; jj < NT / 2; ++jj) {
        const int r = lane & 15, c = wn0 / kChunk + jj * 2 + (lane >> 4);
        b_lds[jj] = CF::A_STAGE + r * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(r, c) * 16;
    }

    unsigned af[2][MT][4], bf[2][NT][2];
    auto load_frags = [&](int buf, unsigned stage_addr, int kk) {
#pragma unroll
        for (int i = 0; i < MT; ++i) ldsm_x4(af[buf][i], stage_addr + a_lds[kk] + i * 16 * (BK * 2));
#pragma unroll
        for (int jj = 0; jj < NT / 2; ++jj) {
            unsigned r[4];
            ldsm_x4_trans(r, stage_addr + b_lds[jj] + kk * 16 * (BN * 2));
            bf[buf][2 * jj][0] = r[0];
            bf[buf][2 * jj][1] = r[1];
            bf[buf][2 * jj + 1][0] = r[2];
            bf[buf][2 * jj + 1][1] = r[3];
        }
    };

    const int KT = (K + BK - 1) / BK;

    // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) load_tile(s, s);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // tile 0 landed (this thread's part) ...
    __syncthreads();              // ... and everyone's

    int read_stage = 0, write_stage = STAGES - 1;
    unsigned read_addr = s_base;
    load_frags(0, read_addr, 0);

    for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
        for (int kk = 0; kk < KK; ++kk) {
            if (kk == KK - 1) {
                // Committed groups: STAGES-1 + kt+1 (this tile's refill went out at kk == 0).
                // STAGES-2 pending => tile kt+1 has landed. The barrier also says every warp
                // has read its last fragments of stage kt (loaded at kk <= KK-2), which the
                // refill at the next k-tile's kk == 0 overwrites.
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
                read_addr = s_base + read_stage * CF::STAGE;
            }
            // Next k16 step's fragments (first step of tile kt+1 when kk == KK-1; on the last
            // tile that reads a stale stage, harmlessly).
            load_frags((kk + 1) & 1, read_addr, (kk + 1) % KK);
            if (kk == 0) {
                // Refill the stage that tile kt-1 used (all warps left it at the last barrier).
                if (kt + STAGES - 1 < KT) load_tile(kt + STAGES - 1, write_stage);
                cp_async_commit();
                write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    const int jn = (i & 1) ? NT - 1 - j : j;  // serpentine: reuse B registers
                    mma_16816(acc[i][jn], af[kk & 1][i], bf[kk & 1][jn][0], bf[kk & 1][jn][1]);
                }
        }
    }
    cp_async_wait<0>();  // no copy still writing the ring when it becomes the epilogue scratch
}

// ------------------------------------------------------------------ register-staged main loop
// sm_75 (no cp.async, no m16n8k16 f16), and the unaligned case everywhere. Buffers 0 and 1 of
// the ring; tile kt lives in buffer kt & 1.
//   prologue: regs <- tile 0; smem[0] <- regs; regs <- tile 1; barrier
//   tile kt, k8 steps s = 0..KS-1; at s == KS-1, before that step's fragment loads:
//     smem[(kt+1)&1] <- regs (tile kt+1)   buffer last read by tile kt-1, before barrier kt-1
//     barrier kt                           tile kt+1 visible; everyone is done with tile kt's
//                                          steps 0..KS-2, so only step KS-1 (in registers) is left
//     regs <- tile kt+2                    in flight for a whole k-tile of mma
// ALIGNED == false: rows of A or B not 16-byte aligned (K % 8, N % 8 or pointers): guarded
// scalar loads into the same registers, same smem layout.
template <class CF, bool ALIGNED>
__device__ __forceinline__ void mainloop_staged(const half* __restrict__ A, const half* __restrict__ B, int M,
                                                int N, int K, int m0, int n0, unsigned char* smem,
                                                float (&acc)[CF::MT][CF::NT][4]) {
    constexpr int BK = CF::BK, BN = CF::BN;
    constexpr int MT = CF::MT, NT = CF::NT, KS = CF::KS;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const unsigned s_base = smem_addr(smem);

    // Copy mapping: as the async loop (same swizzled destinations, so the same conflict-free
    // 8-thread phases for st.shared.v4 as for cp.async).
    const int a_c = tid % CF::A_ROW_CHUNKS, a_r0 = tid / CF::A_ROW_CHUNKS;
    const int b_c = tid % CF::B_ROW_CHUNKS, b_r0 = tid / CF::B_ROW_CHUNKS;
    const unsigned a_sts = a_r0 * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(a_r0, a_c) * 16;
    const unsigned b_sts = CF::A_STAGE + b_r0 * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(b_r0, b_c) * 16;

    uint4 ra[CF::A_LOADS], rb[CF::B_LOADS];
    auto gload = [&](int kt) {
        const int k0 = kt * BK;
        if constexpr (ALIGNED) {
            const bool k_ok = k0 + a_c * kChunk < K;
            const bool b_col_ok = n0 + b_c * kChunk < N;
            const half* a_src = A + (size_t)(m0 + a_r0) * K + a_c * kChunk;  // used only where in range
            const half* b_src = B + (size_t)b_r0 * N + n0 + b_c * kChunk;
#pragma unroll
            for (int i = 0; i < CF::A_LOADS; ++i) {
                const bool ok = k_ok && (m0 + a_r0 + i * CF::A_ROW_STEP < M);
                ra[i] = ldg_16(ok ? a_src + (size_t)i * CF::A_ROW_STEP * K + k0 : A, ok);
            }
#pragma unroll
            for (int i = 0; i < CF::B_LOADS; ++i) {
                const bool ok = b_col_ok && (k0 + b_r0 + i * CF::B_ROW_STEP < K);
                rb[i] = ldg_16(ok ? b_src + (size_t)(k0 + i * CF::B_ROW_STEP) * N : B, ok);
            }
        } else {
            const unsigned short* Ah = reinterpret_cast<const unsigned short*>(A);
            const unsigned short* Bh = reinterpret_cast<const unsigned short*>(B);
#pragma unroll
            for (int i = 0; i < CF::A_LOADS; ++i) {
                const int gm = m0 + a_r0 + i * CF::A_ROW_STEP, gk = k0 + a_c * kChunk;
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gm < M && gk + 2 * e < K) ? Ah[(size_t)gm * K + gk + 2 * e] : 0u;
                    const unsigned hi = (gm < M && gk + 2 * e + 1 < K) ? Ah[(size_t)gm * K + gk + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                ra[i] = make_uint4(w[0], w[1], w[2], w[3]);
            }
#pragma unroll
            for (int i = 0; i < CF::B_LOADS; ++i) {
                const int gk = k0 + b_r0 + i * CF::B_ROW_STEP, gn = n0 + b_c * kChunk;
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gk < K && gn + 2 * e < N) ? Bh[(size_t)gk * N + gn + 2 * e] : 0u;
                    const unsigned hi = (gk < K && gn + 2 * e + 1 < N) ? Bh[(size_t)gk * N + gn + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                rb[i] = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    };
    auto sstore = [&](int buf) {
        const unsigned sa = s_base + buf * CF::STAGE;
#pragma unroll
        for (int i = 0; i < CF::A_LOADS; ++i) sts_16(sa + a_sts + i * CF::A_ROW_STEP * (BK * 2), ra[i]);
#pragma unroll
        for (int i = 0; i < CF::B_LOADS; ++i) sts_16(sa + b_sts + i * CF::B_ROW_STEP * (BN * 2), rb[i]);
    };

    // ldmatrix at k8 granularity. A (x4): lane l addresses row wm0 + 32*ip + l, logical chunk s
    // (k 8s..8s+7): matrices = rows 0-7, 8-15 of m16 tile 2ip, then of tile 2ip+1 = the a0a1 /
    // a2a3 registers of m16n8k8 for those two tiles. +32 rows keeps the swizzle key (it repeats
    // every 8 rows): immediates; the chunk is s ^ key.
    // B (x4.trans): lane l addresses k row 8s + (l & 7) of n chunk wn0/8 + 4*jq + (l >> 3):
    // matrix q = (k 8s..8s+7, n8 tile 4jq+q), transposed so a thread holds k 2t..2t+1 of column
    // g = the b0b1 register of m16n8k8. The key is (l & 7) for every s: the k step is an
    // immediate (8 rows).
    const int a_r = wm0 + lane;
    const unsigned a_row = a_r * (BK * 2);
    const unsigned a_key = swizzle<CF::A_ROW_CHUNKS>(a_r, 0);
    unsigned b_lds[NT / 4];
#pragma unroll
    for (int jq = 0; jq < NT / 4; ++jq) {
        const int r = lane & 7, c = wn0 / kChunk + jq * 4 + (lane >> 3);
        b_lds[jq] = CF::A_STAGE + r * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(r, c) * 16;
    }

    unsigned af[2][MT][2], bf[2][NT];
    auto load_frags = [&](int buf, unsigned stage_addr, int s) {
#pragma unroll
        for (int ip = 0; ip < MT / 2; ++ip) {
            unsigned r[4];
            ldsm_x4(r, stage_addr + a_row + ip * 32 * (BK * 2) + ((s ^ a_key) << 4));
            af[buf][2 * ip][0] = r[0];
            af[buf][2 * ip][1] = r[1];
            af[buf][2 * ip + 1][0] = r[2];
            af[buf][2 * ip + 1][1] = r[3];
        }
#pragma unroll
        for (int jq = 0; jq < NT / 4; ++jq) {
            unsigned r[4];
            ldsm_x4_trans(r, stage_addr + b_lds[jq] + s * 8 * (BN * 2));
#pragma unroll
            for (int q = 0; q < 4; ++q) bf[buf][4 * jq + q] = r[q];
        }
    };

    const int KT = (K + BK - 1) / BK;

    gload(0);
    sstore(0);
    if (KT > 1) gload(1);
    __syncthreads();

    unsigned read_addr = s_base;
    load_frags(0, read_addr, 0);

    for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
        for (int s = 0; s < KS; ++s) {
            if (s == KS - 1) {
                if (kt + 1 < KT) sstore((kt + 1) & 1);
                __syncthreads();
                read_addr = s_base + ((kt + 1) & 1) * CF::STAGE;
                if (kt + 2 < KT) gload(kt + 2);
            }
            // Next k8 step's fragments (first step of tile kt+1 when s == KS-1; on the last tile
            // that reads a stale buffer, harmlessly).
            load_frags((s + 1) & 1, read_addr, (s + 1) % KS);
            // All MT×NT mma of this k8 step before the next step touches the same accumulators.
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    const int jn = (i & 1) ? NT - 1 - j : j;  // serpentine: reuse B registers
                    mma_1688(acc[i][jn], af[s & 1][i][0], af[s & 1][i][1], bf[s & 1][jn]);
                }
        }
    }
}

// ------------------------------------------------------------------ kernel
// grid = (tiles of one M×N matrix, batches); C[b] = A[b]·B[b], fp32 accumulation, one rounding.
template <class CF, bool ALIGNED>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
bmm16_mma(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int MT = CF::MT, NT = CF::NT;

    // This block's matrices. ALIGNED: K % 8 == 0 and N % 8 == 0, so M·K, K·N and M·N are
    // multiples of 8 halves and every matrix starts 16-byte aligned like the base pointers.
    const size_t bat = blockIdx.y;
    A += bat * (size_t)M * (size_t)K;
    B += bat * (size_t)K * (size_t)N;
    C += bat * (size_t)M * (size_t)N;

    int m0, n0;
    tile_origin<CF>(M, N, m0, n0);

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr bool kAsync = ALIGNED;
#else
    constexpr bool kAsync = false;  // sm_75: every config runs the register-staged loop
#endif
    if constexpr (kAsync)
        mainloop_async<CF>(A, B, M, N, K, m0, n0, smem, acc);
    else
        mainloop_staged<CF, ALIGNED>(A, B, M, N, K, m0, n0, smem, acc);

    // ---- epilogue (09's, without alpha/beta): C = half(acc), rounded once. Accumulators go
    // through a per-warp fp32 scratch one 16-row slice at a time (mma layout: thread (g, t) holds
    // rows g and g+8, columns 2t, 2t+1 of each n8 tile); in the coalesced pass lane l owns row
    // p*ROWS_PER_PASS + l/LANES_PER_ROW of the slice, columns (l % LANES_PER_ROW)*4 .. +3, so a
    // warp writes C in 8-byte runs, WN*2 contiguous bytes a row.
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const int e_row = lane / CF::EPI_LANES_PER_ROW, e_col = (lane % CF::EPI_LANES_PER_ROW) * 4;
    const int gc = n0 + wn0 + e_col;

    __syncthreads();  // all warps done with the ring before it becomes scratch

    float* scratch = reinterpret_cast<float*>(smem) + warp * (16 * CF::EPI_LD);
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            *reinterpret_cast<float2*>(scratch + g * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<float2*>(scratch + (g + 8) * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
        __syncwarp();
#pragma unroll
        for (int p = 0; p < CF::EPI_PASSES; ++p) {
            const int r = p * CF::EPI_ROWS_PER_PASS + e_row;
            const float4 v = *reinterpret_cast<const float4*>(scratch + r * CF::EPI_LD + e_col);
            const int gr = m0 + wm0 + i * 16 + r;
            if (gr >= M) continue;
            half* out = C + (size_t)gr * N + gc;
            if constexpr (ALIGNED) {
                if (gc < N)  // N % 8 == 0: gc < N covers all 4 columns
                    *reinterpret_cast<uint2*>(out) = make_uint2(pack_half2(v.x, v.y), pack_half2(v.z, v.w));
            } else {
                const float o[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (gc + e < N) out[e] = __float2half_rn(o[e]);
            }
        }
        __syncwarp();  // reads of this slice done before the next slice overwrites the scratch
    }
}

// ------------------------------------------------------------------ last-resort kernel (01's)
// Used only when no tensor-core kernel can be prepared on this device.
__global__ void bmm16_naive(const half* A, const half* B, half* C, int M, int N, int K) {
    const int col = blockIdx.x * 16 + threadIdx.x;
    const int row = blockIdx.y * 16 + threadIdx.y;
    const size_t b = blockIdx.z;
    if (row >= M || col >= N) return;
    const half* a = A + (b * M + row) * (size_t)K;
    const half* bb = B + b * K * (size_t)N + col;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(__half2float(a[k]), __half2float(bb[(size_t)k * N]), acc);
    C[(b * M + row) * (size_t)N + col] = __float2half_rn(acc);
}

// ------------------------------------------------------------------ host side

// A failed runtime call also sets the thread's last-error state; the failures here are
// handled (the config is not used), so the state is cleared.
inline bool cuda_ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
}

struct Caps {
    bool ok;
    int sms;         // multiprocessors
    int smem_optin;  // cudaDevAttrMaxSharedMemoryPerBlockOptin (A100 163 KB, T4 64 KB, H100 227 KB)
    int cc;          // compute capability × 10: below 80 only the register-staged loop can run
};

// Cached once per process (the current device at the first call).
inline const Caps& caps() {
    static const Caps c = [] {
        Caps r{false, 0, 0, 0};
        int dev = 0, major = 0, minor = 0;
        cudaFuncAttributes fa;
        if (!cuda_ok(cudaGetDevice(&dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&r.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) ||
            !cuda_ok(cudaFuncGetAttributes(&fa, bmm16_mma<Cfg0, false>)) || r.sms <= 0)
            return r;  // no device, or no kernel image for it
        r.cc = major * 10 + minor;
        r.ok = true;
        return r;
    }();
    return c;
}

// Shared memory a launch asks for. On a device of compute capability >= 8.0 the code may be the
// cp.async loop (ALIGNED, __CUDA_ARCH__ >= 800) or, from compute_75 PTX, the staged loop: the
// ring's size covers both. Below 8.0 only sm_75 code can run: two buffers.
template <class CF, bool ALIGNED>
int smem_bytes(const Caps& c) {
    return (ALIGNED && c.cc >= 80) ? CF::SMEM_ASYNC : CF::SMEM_STAGED;
}

// Whether this device can run config CF at all; sets the > 48 KB opt-in once. Cached per
// kernel: smem against the opt-in limit, registers against the block, occupancy >= 1.
template <class CF, bool ALIGNED>
bool prepared(const Caps& c) {
    static const bool ok = [&c] {
        const int smem = smem_bytes<CF, ALIGNED>(c);
        if (smem > c.smem_optin) return false;
        if (smem > 48 * 1024 &&
            !cuda_ok(cudaFuncSetAttribute(bmm16_mma<CF, ALIGNED>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)))
            return false;
        cudaFuncAttributes fa;
        if (!cuda_ok(cudaFuncGetAttributes(&fa, bmm16_mma<CF, ALIGNED>))) return false;
        int blocks = 0;
        if (!cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bmm16_mma<CF, ALIGNED>, CF::THREADS, smem)))
            return false;
        return fa.maxThreadsPerBlock >= CF::THREADS && blocks >= 1;
    }();
    return ok;
}

template <class CF>
long long tile_count(int M, int N) {
    return (long long)((M + CF::BM - 1) / CF::BM) * ((N + CF::BN - 1) / CF::BN);
}

template <class CF, bool ALIGNED>
bool launch(const half* A, const half* B, half* C, int BATCH, int M, int N, int K) {
    const Caps& c = caps();
    if (!prepared<CF, ALIGNED>(c)) return false;
    const int smem = smem_bytes<CF, ALIGNED>(c);
    const unsigned tiles = (unsigned)tile_count<CF>(M, N);  // ≤ (1024/64)² here; ≤ 2^31-1 always for int M, N
    // gridDim.y ≤ 65535: batches in slices (one launch for BATCH ≤ 65535, the judge's ≤ 128).
    for (int b0 = 0; b0 < BATCH; b0 += 65535) {
        const int nb = BATCH - b0 < 65535 ? BATCH - b0 : 65535;
        const size_t off_a = (size_t)b0 * M * K, off_b = (size_t)b0 * K * N, off_c = (size_t)b0 * M * N;
        bmm16_mma<CF, ALIGNED><<<dim3(tiles, (unsigned)nb), CF::THREADS, smem>>>(A + off_a, B + off_b, C + off_c,
                                                                                  M, N, K);
    }
    return cudaGetLastError() == cudaSuccess;
}

// Relative time of a configuration (09's model): the busiest SM runs ceil(tiles / SMs) tiles of
// BM×BN, each at a throughput that falls with the tile (more shared and L2 bytes per mma).
template <class CF>
double cost(long long tiles, int sms, double efficiency) {
    const long long per_sm = (tiles + sms - 1) / sms;
    return (double)per_sm * CF::BM * CF::BN / efficiency;
}

template <bool ALIGNED>
bool run(const Caps& c, const half* A, const half* B, half* C, int BATCH, int M, int N, int K) {
#ifdef BMM16_FORCE
    (void)c;
    switch (BMM16_FORCE) {
        case 0: return launch<Cfg0, ALIGNED>(A, B, C, BATCH, M, N, K);
        case 1: return launch<Cfg1, ALIGNED>(A, B, C, BATCH, M, N, K);
        case 2: return launch<Cfg2, ALIGNED>(A, B, C, BATCH, M, N, K);
        default: return launch<Cfg3, ALIGNED>(A, B, C, BATCH, M, N, K);
    }
#else
    const bool ok[4] = {prepared<Cfg0, ALIGNED>(c), prepared<Cfg1, ALIGNED>(c), prepared<Cfg2, ALIGNED>(c),
                        prepared<Cfg3, ALIGNED>(c)};
    const long long b = BATCH;
    const double cs[4] = {cost<Cfg0>(b * tile_count<Cfg0>(M, N), c.sms, 0.5),
                          cost<Cfg1>(b * tile_count<Cfg1>(M, N), c.sms, 0.7),
                          cost<Cfg2>(b * tile_count<Cfg2>(M, N), c.sms, 0.8),
                          cost<Cfg3>(b * tile_count<Cfg3>(M, N), c.sms, 1.0)};
    int which = -1;
    for (int i = 0; i < 4; ++i)
        if (ok[i] && (which < 0 || cs[i] < cs[which])) which = i;
    switch (which) {
        case 0: return launch<Cfg0, ALIGNED>(A, B, C, BATCH, M, N, K);
        case 1: return launch<Cfg1, ALIGNED>(A, B, C, BATCH, M, N, K);
        case 2: return launch<Cfg2, ALIGNED>(A, B, C, BATCH, M, N, K);
        case 3: return launch<Cfg3, ALIGNED>(A, B, C, BATCH, M, N, K);
        default: return false;
    }
#endif
}

}  // namespace bmm16

// A, B, C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int BATCH, int M, int N, int K) {
    if (BATCH <= 0 || M <= 0 || N <= 0) return;
    if (K < 0) K = 0;
    const bmm16::Caps& c = bmm16::caps();
    const bool aligned = K % bmm16::kChunk == 0 && N % bmm16::kChunk == 0 &&
                         ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) |
                           reinterpret_cast<size_t>(C)) & 15) == 0;
    if (c.ok && (aligned ? bmm16::run<true>(c, A, B, C, BATCH, M, N, K)
                         : bmm16::run<false>(c, A, B, C, BATCH, M, N, K)))
        return;
    // Last resort: CUDA cores (01's kernel), one launch per ≤ 65535 batches.
    for (int b0 = 0; b0 < BATCH; b0 += 65535) {
        const int nb = BATCH - b0 < 65535 ? BATCH - b0 : 65535;
        dim3 grid((N + 15) / 16, (M + 15) / 16, nb);
        bmm16::bmm16_naive<<<grid, dim3(16, 16)>>>(A + (size_t)b0 * M * K, B + (size_t)b0 * K * N,
                                                   C + (size_t)b0 * M * N, M, N, K);
    }
}
