// 09_mma_ldmatrix — mma.sync m16n8k16 via PTX, ldmatrix from XOR-swizzled smem, 4-stage cp.async, grouped tile order
//
// Changed from 08: same 128×256×32 block tile and 64×64 warp tiles, but the tensor cores are
//   driven without WMMA, which removes what WMMA forces. (1) Register double buffering: the
//   fragments of k16 step s+1 are loaded (ldmatrix.x4 for A, ldmatrix.x4.trans for B, which is
//   row-major K×N: .trans hands each thread the k-pairs mma wants) while the 32 mma.sync
//   m16n8k16 of step s issue, and the barrier for the next stage sits before the last k16 step,
//   so its mma cover the barrier and the first loads of the next stage; 08 loads, then waits,
//   then computes. (2) Shared tiles are unpadded and XOR-swizzled on 16-byte chunks: the 8 rows
//   an ldmatrix phase reads and the 8 chunks a cp.async phase writes fall in 8 distinct bank
//   groups with no padding bytes (96 KB ring against 106 KB). (3) Blocks walk the tiles in
//   groups of 16 tile-rows (grouped rasterization): the ~132 tiles in flight share A rows and
//   B columns, ~35 MB at 8192³ instead of all of B, so L2 serves the re-reads. (4) The
//   accumulator layout is known: the fp32 scratch is written with conflict-free float2 stores
//   (row stride ≡ 8 words mod 32) and alpha is folded in there. The C tile still arrives by
//   cp.async at kernel start (beta ≠ 0) and leaves in 8-byte runs, 256 bytes per warp store.
// Prediction (before measuring): 4096³ ≈ 0.32 ms (~430 TF/s, ~60% of cuBLAS, ~1.3× 08): one
//   8-warp block per SM; ~176 B of shared traffic per m16n8k16 (128 of ldmatrix, 48 of cp.async
//   fills) against 128 B/clk caps the loop near 73% of the tensor peak and mma.sync itself sits
//   near 63%; 512 tiles are 3.9 waves (97%). 8192³ ≈ 2.6 ms (~420 TF/s): same loop, 15.5 waves,
//   grouping keeps the in-flight panels in L2. 1024³ ≈ 0.012 ms: 128×64 tiles give 128 blocks
//   (one wave); ~4–6 µs of main loop bounded by L2→SM traffic (50 MB), ~1 µs fill and epilogue,
//   ~5 µs launch floor; ~10% under 08 (same tiles, overlapped fragment loads), near cuBLAS's
//   0.0167 ms.
// Measured (H200, harness): 0.0177 ms at 1024³ (faster than 07's 0.0212), 0.3466 ms at 4096³ (397 TF/s,
//   62.7% of cuBLAS beside it). Close to the prediction (0.32 ms; 0.012 ms at 1024³ missed).
//   8192³: 2.624 ms (56.0% of cuBLAS) and 2.729 ms (61.1%) in two runs; 2048³ 0.0518 ms.
// Tiles: BM=128 BN=256 BK=32 stages=4, warps=8 (2×4), warp tile=64×64 when a wave-count cost
//   model says so (more than ~half a wave of such tiles); else BM=128 BN=128 (warp tile 64×32) or
//   BM=128 BN=64 (warps 4×2, warp tile 32×32). 160 KB smem (96 KB ring + 64 KB C tile).
//   Unaligned K/N (K%8 or N%8 ≠ 0) or pointers: 128×64 tiles filled by guarded scalar loads,
//   same mma core, scalar epilogue. Also tried on the model: BK=64 stages=3 (254 registers).
// Targets: sm_80 sm_90a sm_100a
// Judge GPUs: A100 H100 H200 B200
// Does not run on a T4 (sm_75): cp.async needs sm_80.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kChunk = 8;  // halves in one 16-byte copy / one ldmatrix row

// Physical 16-byte chunk for logical chunk c of row r in a tile whose rows hold kRowChunks
// chunks. Bank groups are 16-byte slots of a 128-byte line. Rows of >= 128 bytes: XOR the low 3
// chunk bits with r % 8. Shorter rows share a line (64-byte rows: 2 per line), so the key comes
// from the row bits above those: (r / (8 / kRowChunks)) % kRowChunks. Either way 8 consecutive
// rows of one logical chunk land in 8 distinct bank groups, and the key repeats every 8 rows.
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
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
    static constexpr int MT = WM / 16, NT = WN / 8, KK = BK / 16;  // m16 / n8 / k16 steps per warp
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
    static constexpr int RING = STAGES * STAGE > EPI_BYTES ? STAGES * STAGE : EPI_BYTES;
    // C tile (beta != 0) lands by cp.async at kernel start in its own region after the ring.
    static constexpr int C_TILE = BM * BN * 2;
    static constexpr int C_LOADS = BM * B_ROW_CHUNKS / THREADS;
    static constexpr int SMEM = RING + C_TILE;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warp grid divides the block tile");
    static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile: m16 steps, and n16 pairs for ldmatrix.x4.trans");
    static_assert(BK % 32 == 0 && KK % 2 == 0,
                  "BK >= 32: the stage barrier sits in the last k16 step; even KK keeps the "
                  "fragment double buffer indices static across k-tiles");
    static_assert(THREADS % A_ROW_CHUNKS == 0 && THREADS % B_ROW_CHUNKS == 0, "copy mapping");
    static_assert(A_LOADS * THREADS == BM * A_ROW_CHUNKS && B_LOADS * THREADS == BK * B_ROW_CHUNKS,
                  "tiles split evenly into 16-byte copies");
    static_assert(A_ROW_STEP % 8 == 0 && B_ROW_STEP % 8 == 0,
                  "a thread's copies sit a multiple of 8 rows apart: same swizzle key");
    static_assert(STAGES >= 3, "wait_group STAGES-2 with the refill issued a step before the barrier");
    static_assert(WN >= 32 && 32 % EPI_LANES_PER_ROW == 0 && 16 % EPI_ROWS_PER_PASS == 0, "epilogue mapping");
    static_assert(C_LOADS * THREADS == BM * B_ROW_CHUNKS, "C tile splits evenly into 16-byte copies");
    static_assert(SMEM <= 227 * 1024, "fits one SM");
};

//                 BM   BN  BK st WM WN minB group
using CfgL = Cfg<128, 256, 32, 4, 2, 4, 1, 16>;  // warp 64×64, 96 KB
using CfgM = Cfg<128, 128, 32, 4, 2, 4, 1, 8>;   // warp 64×32, 64 KB
using CfgS = Cfg<128, 64, 32, 4, 4, 2, 2, 8>;    // warp 32×32, 48 KB

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte global→shared copy; src-size 0 reads nothing and zero-fills (edges of the matrices).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool pred) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(pred ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
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

// D += A·B for one m16n8k16 step, fp32 accumulators.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
}

// ALIGNED: K % 8 == 0, N % 8 == 0 and A, B, C 16-byte aligned (checked in solve): a 16-byte
// chunk that starts in range lies wholly in range, so one predicate per copy is exact.
template <class CF, bool ALIGNED>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
hgemm_mma_ldmatrix(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
                   int M, int N, int K, float alpha, float beta) {
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, STAGES = CF::STAGES;
    constexpr int MT = CF::MT, NT = CF::NT, KK = CF::KK;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;

    // Grouped rasterization: consecutive blocks run down GROUP_M tile-rows, then step right.
    const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
    const int per_group = CF::GROUP_M * grid_n;
    const int group = blockIdx.x / per_group, in_group = blockIdx.x - group * per_group;
    const int first_m = group * CF::GROUP_M;
    const int group_rows = min(grid_m - first_m, CF::GROUP_M);
    const int m0 = (first_m + in_group % group_rows) * BM;
    const int n0 = (in_group / group_rows) * BN;

    const unsigned s_base = smem_addr(smem);

    // ---- global→shared copy mapping: thread copies chunk a_c of rows a_r0 + i*A_ROW_STEP, etc.
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
        if constexpr (ALIGNED) {
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
        } else {
            // Guarded scalar loads (rows of A or B not 16-byte aligned), same smem layout.
            unsigned char* st = smem + stage * CF::STAGE;
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
                *reinterpret_cast<uint4*>(st + a_sts + i * CF::A_ROW_STEP * (BK * 2)) = make_uint4(w[0], w[1], w[2], w[3]);
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
                *reinterpret_cast<uint4*>(st + b_sts + i * CF::B_ROW_STEP * (BN * 2)) = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    };

    // ---- ldmatrix addresses (byte offsets within a stage). x4 lane l addresses row l % 16 of
    // the 16×16 block, chunk l / 16: matrices 0..3 = (rows 0-7, k 0-7), (rows 8-15, k 0-7),
    // (rows 0-7, k 8-15), (rows 8-15, k 8-15) = mma A registers a0a1, a2a3, a4a5, a6a7.
    // For B (.trans) rows are k and chunks are n: matrices = (k 0-7, n 0-7), (k 8-15, n 0-7),
    // (k 0-7, n 8-15), (k 8-15, n 8-15) = b0b1, b2b3 of n8 tile 2jj, then of tile 2jj+1.
    // Steps of 16 rows (next m16 tile, next k16 of B) keep the swizzle key: immediates.
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

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

    const int KT = (K + BK - 1) / BK;

    // The C tile is read up front, in the first commit group, so its latency hides under the
    // main loop (beta == 0 must not read C: it may hold NaN). Row-major BM×BN halves.
    if constexpr (ALIGNED) {
        if (beta != 0.f) {
#pragma unroll
            for (int i = 0; i < CF::C_LOADS; ++i) {
                const int r = b_r0 + i * (CF::THREADS / CF::B_ROW_CHUNKS), gr = m0 + r;
                const bool ok = gr < M && b_col_ok;  // N % 8 == 0: whole chunk in or out
                const half* src = C + (size_t)gr * N + n0 + b_c * kChunk;
                cp_async_16(s_base + CF::RING + r * (BN * 2) + b_c * 16, ok ? src : C, ok);
            }
        }
    }

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

    // ---- epilogue: out = alpha·acc + beta·C, rounded once. Accumulators go through a per-warp
    // fp32 scratch one 16-row slice at a time; in the coalesced pass lane l owns row
    // p*ROWS_PER_PASS + l/LANES_PER_ROW of the slice, columns (l % LANES_PER_ROW)*4 .. +3, so a
    // warp reads C (from the smem copy) and writes it in 8-byte runs, 128 contiguous bytes a row.
    const int e_row = lane / CF::EPI_LANES_PER_ROW, e_col = (lane % CF::EPI_LANES_PER_ROW) * 4;
    const int gc = n0 + wn0 + e_col;

    cp_async_wait<0>();  // the C tile (and empty groups) landed
    __syncthreads();     // all warps done with the ring before it becomes scratch

    float* scratch = reinterpret_cast<float*>(smem) + warp * (16 * CF::EPI_LD);
    const unsigned char* c_tile = smem + CF::RING;
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            *reinterpret_cast<float2*>(scratch + g * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(alpha * acc[i][j][0], alpha * acc[i][j][1]);
            *reinterpret_cast<float2*>(scratch + (g + 8) * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(alpha * acc[i][j][2], alpha * acc[i][j][3]);
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
                if (gc < N) {  // N % 8 == 0: gc < N covers all 4 columns
                    float o[4] = {v.x, v.y, v.z, v.w};
                    if (beta != 0.f) {
                        const uint2 old = *reinterpret_cast<const uint2*>(
                            c_tile + (wm0 + i * 16 + r) * (BN * 2) + (wn0 + e_col) * 2);
                        const float2 c01 = __half22float2(*reinterpret_cast<const __half2*>(&old.x));
                        const float2 c23 = __half22float2(*reinterpret_cast<const __half2*>(&old.y));
                        o[0] += beta * c01.x;
                        o[1] += beta * c01.y;
                        o[2] += beta * c23.x;
                        o[3] += beta * c23.y;
                    }
                    *reinterpret_cast<uint2*>(out) = make_uint2(pack_half2(o[0], o[1]), pack_half2(o[2], o[3]));
                }
            } else {
                const float o[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (gc + e < N) {
                        float x = o[e];
                        if (beta != 0.f) x += beta * __half2float(out[e]);
                        out[e] = __float2half_rn(x);
                    }
                }
            }
        }
        __syncwarp();  // reads of this slice done before the next slice overwrites the scratch
    }
}

template <class CF, bool ALIGNED>
void launch(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    // Opt in to > 48 KB of dynamic shared memory once per process (a host-side attribute).
    static const cudaError_t attr = cudaFuncSetAttribute(
        hgemm_mma_ldmatrix<CF, ALIGNED>, cudaFuncAttributeMaxDynamicSharedMemorySize, CF::SMEM);
    (void)attr;
    const int tiles = ((M + CF::BM - 1) / CF::BM) * ((N + CF::BN - 1) / CF::BN);
    hgemm_mma_ldmatrix<CF, ALIGNED><<<tiles, CF::THREADS, CF::SMEM>>>(A, B, C, M, N, K, alpha, beta);
}

// Relative time of a configuration: the busiest SM runs ceil(tiles / SMs) tiles of BM×BN, each
// at a throughput that falls with the tile (more shared/L2 bytes per mma). The efficiencies are
// estimates to tune on the device.
template <class CF>
double cost(int M, int N, int sms, double efficiency) {
    const long tiles = (long)((M + CF::BM - 1) / CF::BM) * ((N + CF::BN - 1) / CF::BN);
    const long per_sm = (tiles + sms - 1) / sms;
    return (double)per_sm * CF::BM * CF::BN / efficiency;
}

}  // namespace

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    if (K < 0) K = 0;

    static const int sms = [] {
        int dev = 0, n = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0)
            n = 132;
        return n;
    }();

    const bool aligned = K % kChunk == 0 && N % kChunk == 0 &&
                         ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) |
                           reinterpret_cast<size_t>(C)) & 15) == 0;
    if (!aligned) {
        launch<CfgS, false>(A, B, C, M, N, K, alpha, beta);
        return;
    }
    const double cl = cost<CfgL>(M, N, sms, 1.0);
    const double cm = cost<CfgM>(M, N, sms, 0.8);
    const double cs = cost<CfgS>(M, N, sms, 0.65);
    if (cl <= cm && cl <= cs)
        launch<CfgL, true>(A, B, C, M, N, K, alpha, beta);
    else if (cm <= cs)
        launch<CfgM, true>(A, B, C, M, N, K, alpha, beta);
    else
        launch<CfgS, true>(A, B, C, M, N, K, alpha, beta);
}
