// 08_async_pipeline — WMMA on a 4-stage cp.async pipeline, 128×256 block tiles, 64×64 warp tiles, C prefetched
//
// Changed from 07: 07 already streams tiles with cp.async through a 4-stage padded ring; what
//   limits it is shared-memory bandwidth per mma. Here a warp owns 64×64 of C (4×4 WMMA
//   accumulators, 128 fp32 registers a thread) instead of 64×32: per k16 step it loads 4 A + 4 B
//   fragments for 16 WMMA mma, 128 bytes of fragment traffic per m16n8k16 against 192 in 07, and
//   the 128×256 block tile reads 25% fewer bytes from L2 per FLOP than 128×128. The C tile
//   (beta ≠ 0) is fetched by cp.async at kernel start into its own shared region, so the epilogue
//   never waits on global memory: it stages alpha·acc one 16-row slice at a time through a
//   per-warp fp32 scratch and writes C in 8-byte runs, 256 contiguous bytes per warp store.
//   Smaller problems (1024³: 32 tiles of 128×256 for 132 SMs) fall back to 128×128 or 128×64
//   tiles through a wave-count cost model.
// Prediction (before measuring): 4096³ ≈ 0.42 ms (~330 TF/s, ~1.4× 07's ~0.6 ms prediction):
//   one 8-warp block per SM; ~176 B of shared traffic per m16n8k16 (128 of fragment loads, 48
//   of cp.async fills; 07: ~256) against 128 B/clk bounds the loop near 73% of the tensor peak,
//   mma.sync's own ~63% ceiling and the fragment loads that wait in front of each k16 step's
//   mma (one fragment buffer, barrier in front of every k-tile) take it to ~45%. 8192³ ≈ 3.4 ms
//   (~325 TF/s): same loop, 15.5 waves, row-major tile order. 1024³ ≈ 0.013 ms: 128×64 tiles
//   (128 blocks, one wave), L2→SM traffic and the ~5 µs launch floor dominate; about 07's time.
// Measured (H200, harness): 0.0210 ms at 1024³, 0.4866 ms at 4096³ (282 TF/s, 40% of cuBLAS).
//   Missed: no faster than 07 (0.4757 ms) at 4096³; the 128×256 tile's fragment loads from padded
//   WMMA tiles, not the copies, bound the loop, and 07 already had the cp.async pipeline.
// Tiles: BM=128 BN=256 BK=32 stages=4, warps=8 (2×4), warp tile=64×64 (WMMA m16n16k16) when a
//   wave-count cost model says so (more than ~half a wave of such tiles); else BM=128 BN=128
//   (warp tile 64×32) or BM=128 BN=64 (warps 4×2, warp tile 32×32). Rows padded by 16 bytes;
//   170 KB smem (106 KB ring + 64 KB C tile). Unaligned K/N (K%8 or N%8 ≠ 0) or pointers: 128×64
//   tiles filled by guarded scalar loads, scalar epilogue.
// Targets: sm_80 sm_90a sm_100a
// Judge GPUs: A100 H100 H200 B200
// Does not run on a T4 (sm_75): cp.async needs sm_80.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

namespace {

using namespace nvcuda;

constexpr int kChunk = 8;  // halves in one 16-byte copy

template <int BM_, int BN_, int BK_, int STAGES_, int WARPS_M_, int WARPS_N_, int MIN_BLOCKS_>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = WARPS * 32;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
    static constexpr int FM = WM / 16, FN = WN / 16;            // 16×16 fragments per warp
    // +16 bytes a row: row strides of an odd number of 16-byte chunks (80, 528, 272, 144 bytes)
    // put the 8 rows of a fragment load in 8 different bank groups.
    static constexpr int LDA = BK + 8, LDB = BN + 8;  // halves
    static constexpr int A_STAGE = BM * LDA * 2, B_STAGE = BK * LDB * 2, STAGE = A_STAGE + B_STAGE;  // bytes
    static constexpr int A_ROW_CHUNKS = BK / kChunk, B_ROW_CHUNKS = BN / kChunk;
    static constexpr int A_LOADS = BM * A_ROW_CHUNKS / THREADS, B_LOADS = BK * B_ROW_CHUNKS / THREADS;
    static constexpr int A_ROW_STEP = THREADS / A_ROW_CHUNKS, B_ROW_STEP = THREADS / B_ROW_CHUNKS;
    // Epilogue scratch: a 16-row slice of the warp tile in fp32 (ldm multiple of 4 floats).
    static constexpr int EPI_LD = WN + 4;
    static constexpr int EPI_BYTES = WARPS * 16 * EPI_LD * 4;
    static constexpr int EPI_LANES_PER_ROW = WN / 4;  // each lane moves 4 columns
    static constexpr int EPI_ROWS_PER_PASS = 32 / EPI_LANES_PER_ROW;
    static constexpr int EPI_PASSES = 16 / EPI_ROWS_PER_PASS;
    static constexpr int RING = STAGES * STAGE > EPI_BYTES ? STAGES * STAGE : EPI_BYTES;
    static constexpr int C_TILE = BM * BN * 2;  // C prefetch (beta != 0), row-major, unpadded
    static constexpr int C_LOADS = BM * B_ROW_CHUNKS / THREADS;
    static constexpr int SMEM = RING + C_TILE;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0 && WM % 16 == 0 && WN % 16 == 0, "warp tiling");
    static_assert(BK % 16 == 0 && BK % kChunk == 0 && BN % kChunk == 0, "tile shape");
    static_assert(THREADS % (8 * A_ROW_CHUNKS) == 0 && THREADS % B_ROW_CHUNKS == 0 && B_ROW_CHUNKS % 8 == 0,
                  "copy mapping");
    static_assert(A_LOADS * THREADS == BM * A_ROW_CHUNKS && B_LOADS * THREADS == BK * B_ROW_CHUNKS &&
                      C_LOADS * THREADS == BM * B_ROW_CHUNKS,
                  "tiles split evenly into 16-byte copies");
    static_assert(STAGES >= 2, "pipeline");
    static_assert((LDA / kChunk) % 2 == 1 && (LDB / kChunk) % 2 == 1, "odd chunk stride: conflict-free rows");
    // WMMA pointers must be 32-byte aligned: fragment origins sit at multiples of 16 rows/columns.
    static_assert((16 * LDA * 2) % 32 == 0 && (16 * LDB * 2) % 32 == 0 && A_STAGE % 32 == 0 &&
                      STAGE % 32 == 0 && (16 * EPI_LD * 4) % 32 == 0 && RING % 128 == 0,
                  "fragment origins 32-byte aligned");
    static_assert(WN >= 32 && 32 % EPI_LANES_PER_ROW == 0 && 16 % EPI_ROWS_PER_PASS == 0, "epilogue mapping");
    static_assert(SMEM <= 227 * 1024, "fits one SM");
};

//                 BM   BN  BK st WM WN minB
using CfgL = Cfg<128, 256, 32, 4, 2, 4, 1>;  // warp 64×64; 106 KB ring + 64 KB C
using CfgM = Cfg<128, 128, 32, 4, 2, 4, 1>;  // warp 64×32;  74 KB ring + 32 KB C
using CfgS = Cfg<128, 64, 32, 4, 4, 2, 2>;   // warp 32×32;  58 KB ring + 16 KB C

// 16-byte global→shared copy; src-size 0 reads nothing and zero-fills (edges of the matrices).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool pred) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
}

// ALIGNED: K % 8 == 0, N % 8 == 0 and A, B, C 16-byte aligned (checked in solve): a 16-byte
// chunk that starts in range lies wholly in range, so one predicate per copy is exact.
template <class CF, bool ALIGNED>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
hgemm_wmma_async(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
                 int M, int N, int K, float alpha, float beta) {
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, STAGES = CF::STAGES;
    constexpr int FM = CF::FM, FN = CF::FN, LDA = CF::LDA, LDB = CF::LDB;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const unsigned s_base = static_cast<unsigned>(__cvta_generic_to_shared(smem));

    // Copy mapping: thread copies chunk a_c of rows a_r0 + i*A_ROW_STEP of A, chunk b_c of rows
    // b_r0 + i*B_ROW_STEP of B. A rows are 80 bytes: 8 consecutive lanes take one chunk of 8
    // consecutive rows (5 chunks apart, odd: 8 distinct bank groups; lanes on 2 rows × 4 chunks
    // would collide). A warp still covers 8 whole 64-byte row segments of global memory.
    // B rows are 33 chunks apart: consecutive lanes on consecutive chunks of one row are fine.
    const int a_c = (tid / 8) % CF::A_ROW_CHUNKS, a_r0 = tid % 8 + 8 * (tid / (8 * CF::A_ROW_CHUNKS));
    const int b_c = tid % CF::B_ROW_CHUNKS, b_r0 = tid / CF::B_ROW_CHUNKS;
    const bool b_col_ok = n0 + b_c * kChunk < N;

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * BK;
        const unsigned sa = stage * CF::STAGE + a_r0 * (LDA * 2) + a_c * 16;
        const unsigned sb = stage * CF::STAGE + CF::A_STAGE + b_r0 * (LDB * 2) + b_c * 16;
#pragma unroll
        for (int i = 0; i < CF::A_LOADS; ++i) {
            const int gm = m0 + a_r0 + i * CF::A_ROW_STEP, gk = k0 + a_c * kChunk;
            const unsigned dst = sa + i * CF::A_ROW_STEP * (LDA * 2);
            if constexpr (ALIGNED) {
                const bool ok = gm < M && gk < K;
                cp_async_16(s_base + dst, ok ? A + (size_t)gm * K + gk : A, ok);
            } else {
                const unsigned short* Ah = reinterpret_cast<const unsigned short*>(A);
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gm < M && gk + 2 * e < K) ? Ah[(size_t)gm * K + gk + 2 * e] : 0u;
                    const unsigned hi = (gm < M && gk + 2 * e + 1 < K) ? Ah[(size_t)gm * K + gk + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                *reinterpret_cast<uint4*>(smem + dst) = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
#pragma unroll
        for (int i = 0; i < CF::B_LOADS; ++i) {
            const int gk = k0 + b_r0 + i * CF::B_ROW_STEP, gn = n0 + b_c * kChunk;
            const unsigned dst = sb + i * CF::B_ROW_STEP * (LDB * 2);
            if constexpr (ALIGNED) {
                const bool ok = gk < K && b_col_ok;
                cp_async_16(s_base + dst, ok ? B + (size_t)gk * N + gn : B, ok);
            } else {
                const unsigned short* Bh = reinterpret_cast<const unsigned short*>(B);
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gk < K && gn + 2 * e < N) ? Bh[(size_t)gk * N + gn + 2 * e] : 0u;
                    const unsigned hi = (gk < K && gn + 2 * e + 1 < N) ? Bh[(size_t)gk * N + gn + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                *reinterpret_cast<uint4*>(smem + dst) = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

    // C tile first, in the first commit group: its latency hides under the main loop.
    // beta == 0 must not read C (it may hold NaN).
    if constexpr (ALIGNED) {
        if (beta != 0.f) {
#pragma unroll
            for (int i = 0; i < CF::C_LOADS; ++i) {
                const int r = b_r0 + i * (CF::THREADS / CF::B_ROW_CHUNKS), gr = m0 + r;
                const bool ok = gr < M && b_col_ok;  // N % 8 == 0: whole chunk in or out
                cp_async_16(s_base + CF::RING + r * (BN * 2) + b_c * 16,
                            ok ? C + (size_t)gr * N + n0 + b_c * kChunk : C, ok);
            }
        }
    }

    const int KT = (K + BK - 1) / BK;
    // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) load_tile(s, s);
        cp_async_commit();
    }

    int stage = 0;
    for (int kt = 0; kt < KT; ++kt) {
        // Groups committed: STAGES-1+kt; STAGES-2 pending => tile kt landed for this thread. The
        // barrier publishes every thread's part and says all warps left tile kt-1's stage,
        // which the refill below overwrites.
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = kt + STAGES - 1;
        if (next < KT) load_tile(next, next % STAGES);
        cp_async_commit();

        const half* sA = reinterpret_cast<const half*>(smem + stage * CF::STAGE) + wm0 * LDA;
        const half* sB = reinterpret_cast<const half*>(smem + stage * CF::STAGE + CF::A_STAGE) + wn0;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(fa[i], sA + i * 16 * LDA + kk, LDA);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(fb[j], sB + kk * LDB + j * 16, LDB);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        stage = stage + 1 == STAGES ? 0 : stage + 1;
    }

    cp_async_wait<0>();  // the C tile (and empty groups) landed
    __syncthreads();     // all warps done with the ring before it becomes scratch

    // Epilogue: out = alpha·acc + beta·C, rounded once. WMMA's register layout is opaque, so
    // each 16-row slice of the warp tile goes to scratch; then lane l owns row
    // p*ROWS_PER_PASS + l/LANES_PER_ROW of the slice, columns (l % LANES_PER_ROW)*4 .. +3.
    float* scratch = reinterpret_cast<float*>(smem) + warp * (16 * CF::EPI_LD);
    const unsigned char* c_tile = smem + CF::RING;
    const int e_row = lane / CF::EPI_LANES_PER_ROW, e_col = (lane % CF::EPI_LANES_PER_ROW) * 4;
    const int gc = n0 + wn0 + e_col;
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::store_matrix_sync(scratch + j * 16, acc[i][j], CF::EPI_LD, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int p = 0; p < CF::EPI_PASSES; ++p) {
            const int r = p * CF::EPI_ROWS_PER_PASS + e_row;
            const float4 v = *reinterpret_cast<const float4*>(scratch + r * CF::EPI_LD + e_col);
            const int gr = m0 + wm0 + i * 16 + r;
            if (gr >= M) continue;
            half* out = C + (size_t)gr * N + gc;
            float o[4] = {alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w};
            if constexpr (ALIGNED) {
                if (gc < N) {  // N % 8 == 0: gc < N covers all 4 columns
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
        hgemm_wmma_async<CF, ALIGNED>, cudaFuncAttributeMaxDynamicSharedMemorySize, CF::SMEM);
    (void)attr;
    const dim3 grid((N + CF::BN - 1) / CF::BN, (M + CF::BM - 1) / CF::BM);
    hgemm_wmma_async<CF, ALIGNED><<<grid, CF::THREADS, CF::SMEM>>>(A, B, C, M, N, K, alpha, beta);
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
