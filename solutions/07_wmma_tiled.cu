// 07_wmma_tiled — each warp holds several WMMA tiles and reuses its A/B fragments
//
// Changed from 06: a warp now owns a 64×32 (or 32×32) tile of C as 4×2 (2×2) accumulator
//   fragments. Per k16 step it loads 4 A + 2 B fragments and issues 8 mma: 384 bytes of shared
//   memory per mma against 1024 in 06, so the tensor cores, not shared-memory bandwidth, set the
//   pace. The 128×128×32 block tile halves L2 traffic per FLOP against 64×64. Tiles arrive by
//   cp.async (16 bytes, zero-filled past the edges, no registers held) in a 3-stage pipeline, so
//   the loads of tiles k+1 and k+2 overlap the mma of tile k (sm_75 has no cp.async and copies
//   synchronously through the same pipeline). At most 128 registers let 2 blocks (16 warps)
//   share an SM. Rows are padded by 16 bytes (80/272-byte strides: the 8 rows of a fragment load
//   fall in distinct banks). When 128×128 tiles would leave SMs idle (1024³: 64 tiles for 132
//   SMs) solve picks 64×128 or 64×64 tiles instead.
// Prediction (before measuring): ~0.018 ms at 1024³ (64×128 tiles, one 8-warp block per SM:
//   ~6 µs of shared-memory traffic, ~2 µs fill/drain, ~5 µs launch floor) and ~0.6 ms at 4096³
//   (~230 TF/s: the ~500 clk/k-tile shared-memory bound gives ~0.27 ms, mma.sync latency and the
//   barrier per k-tile roughly double it); ~2.5× faster than 06, ~3× under the 1.89 ms target.
// Measured (H200, harness): 0.0212 ms at 1024³ (64×128 tiles), 0.4757 ms at 4096³ (289 TF/s, 42% of
//   cuBLAS). 4096³ beat the prediction (0.6 ms), 1024³ 18% slower than predicted. Seed 001's
//   best measured in the same session: 0.0932 ms at 1024³ (4.4× slower than this stage).
// Tiles: BM×BN 128×128|64×128|64×64 (chosen in solve), BK=32, warp tile 64×32|32×32|32×32,
//   stages 3|3|4, 256|256|128 threads per block
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;
constexpr int kChunk = 8;  // halves per 16-byte copy

template <int BM_, int BN_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = 32, WM = WM_, WN = WN_;
    static constexpr int STAGES = STAGES_, kMinBlocks = MIN_BLOCKS_;
    static constexpr int kWarpsN = BN / WN, kWarps = (BM / WM) * kWarpsN, kThreads = kWarps * 32;
    static constexpr int FM = WM / WMMA_M, FN = WN / WMMA_N;  // fragments per warp
    static constexpr int kLdA = BK + 8, kLdB = BN + 8;         // halves; +16 bytes per row
    static constexpr int kLdC = WMMA_N + 4;                    // floats, per-warp epilogue scratch
    static constexpr int kStageA = BM * kLdA, kStageB = BK * kLdB, kStage = kStageA + kStageB;  // halves
    static constexpr int kPipeBytes = STAGES * kStage * 2;
    static constexpr int kEpiBytes = kWarps * WMMA_M * kLdC * 4;
    static constexpr int kSmemBytes = kPipeBytes > kEpiBytes ? kPipeBytes : kEpiBytes;
    static constexpr int kAChunks = BM * BK / kChunk / kThreads;  // per thread per tile
    static constexpr int kBChunks = BK * BN / kChunk / kThreads;

    static_assert(BM % WM == 0 && BN % WN == 0 && WM % WMMA_M == 0 && WN % WMMA_N == 0, "warp tiling");
    static_assert(BK % WMMA_K == 0 && BK % kChunk == 0 && BN % kChunk == 0, "tile shape");
    static_assert(kAChunks * kChunk * kThreads == BM * BK, "A tile splits evenly into 16-byte chunks");
    static_assert(kBChunks * kChunk * kThreads == BK * BN, "B tile splits evenly into 16-byte chunks");
    static_assert(STAGES >= 2, "pipeline needs at least two stages");
    static_assert(kLdA % 8 == 0 && kLdB % 8 == 0 && kLdC % 4 == 0, "WMMA ldm must be a multiple of 16 bytes");
    // WMMA pointers must be 32-byte aligned: fragment origins are multiples of 16 rows/columns.
    static_assert((WMMA_M * kLdA * 2) % 32 == 0 && (WMMA_K * kLdB * 2) % 32 == 0 &&
                  (kStageA * 2) % 32 == 0 && (kStage * 2) % 32 == 0 && (WMMA_M * kLdC * 4) % 32 == 0,
                  "fragment origins must be 32-byte aligned");
    static_assert(WMMA_M * WMMA_N == 32 * 8, "epilogue: each lane handles 8 consecutive elements");
};

// Two blocks per SM (<= 128 registers, 16 warps) to hide mma and load latency, rather than a
// deeper pipeline for one block; 3 stages of 128×128 also fit the 64 KB per block of sm_75.
using CfgLarge = Cfg<128, 128, 64, 32, 3, 2>;  // 56832 B smem: needs the opt-in above 48 KB
using CfgMid = Cfg<64, 128, 32, 32, 3, 2>;     // 41472 B
using CfgSmall = Cfg<64, 64, 32, 32, 4, 2>;    // 38912 B
static_assert(CfgMid::kSmemBytes <= 48 * 1024 && CfgSmall::kSmemBytes <= 48 * 1024,
              "only the large configuration opts in to more than 48 KB");
static_assert(CfgLarge::kSmemBytes <= 64 * 1024, "sm_75 allows at most 64 KB per block");

__device__ __forceinline__ void cp_async_16(half* dst, const half* src, bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(dst));
    // src-size 0 reads nothing and zero-fills the 16 destination bytes.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
#else
    *reinterpret_cast<uint4*>(dst) = pred ? *reinterpret_cast<const uint4*>(src) : make_uint4(0u, 0u, 0u, 0u);
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Scalar path: 8 halves of row `row`, columns col..col+7, zero where out of range.
__device__ __forceinline__ uint4 load_chunk_scalar(const half* __restrict__ base, int row, int col,
                                                   int rows, int cols, int ld) {
    unsigned int w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int c = col + 2 * i;
        const bool inRow = row < rows;
        const unsigned int lo = (inRow && c < cols) ? __half_as_ushort(base[row * ld + c]) : 0u;
        const unsigned int hi = (inRow && c + 1 < cols) ? __half_as_ushort(base[row * ld + c + 1]) : 0u;
        w[i] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// kVec: K % 8 == 0, N % 8 == 0 and A, B, C 16-byte aligned (checked in solve), so a chunk that
// starts in range lies entirely in range and one predicate per chunk is exact.
template <class CF, bool kVec>
__device__ __forceinline__ void load_tile(half* __restrict__ sA, half* __restrict__ sB,
                                          const half* __restrict__ A, const half* __restrict__ B,
                                          int M, int N, int K, int m0, int n0, int k0, int tid) {
#pragma unroll
    for (int s = 0; s < CF::kAChunks; ++s) {
        const int i = tid + s * CF::kThreads;
        const int r = i / (CF::BK / kChunk), c = (i % (CF::BK / kChunk)) * kChunk;
        const int gm = m0 + r, gk = k0 + c;
        half* dst = sA + r * CF::kLdA + c;
        if (kVec) {
            const bool ok = gm < M && gk < K;
            cp_async_16(dst, ok ? A + gm * K + gk : A, ok);
        } else {
            *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(A, gm, gk, M, K, K);
        }
    }
#pragma unroll
    for (int s = 0; s < CF::kBChunks; ++s) {
        const int i = tid + s * CF::kThreads;
        const int r = i / (CF::BN / kChunk), c = (i % (CF::BN / kChunk)) * kChunk;
        const int gk = k0 + r, gn = n0 + c;
        half* dst = sB + r * CF::kLdB + c;
        if (kVec) {
            const bool ok = gk < K && gn < N;
            cp_async_16(dst, ok ? B + gk * N + gn : B, ok);
        } else {
            *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(B, gk, gn, K, N, N);
        }
    }
}

// Writes 8 consecutive outputs C[gm][gn..gn+7] from fp32 accumulators in shared memory.
template <bool kVec>
__device__ __forceinline__ void store_out8(half* __restrict__ C, const float* acc, int gm, int gn,
                                           int M, int N, float alpha, float beta) {
    if (gm >= M) return;
    half* c = C + gm * N + gn;
    float v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = alpha * acc[j];
    if (kVec) {
        if (gn >= N) return;  // N % 8 == 0: gn < N means all 8 columns are in range
        // beta == 0 must not read C: it may hold NaN/Inf (BLAS semantics).
        if (beta != 0.0f) {
            const uint4 old = *reinterpret_cast<const uint4*>(c);
            const half2* oh = reinterpret_cast<const half2*>(&old);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const float2 o = __half22float2(oh[j]);
                v[2 * j] = fmaf(beta, o.x, v[2 * j]);
                v[2 * j + 1] = fmaf(beta, o.y, v[2 * j + 1]);
            }
        }
        uint4 out;
        unsigned int* ow = reinterpret_cast<unsigned int*>(&out);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const half2 h = __floats2half2_rn(v[2 * j], v[2 * j + 1]);
            ow[j] = *reinterpret_cast<const unsigned int*>(&h);
        }
        *reinterpret_cast<uint4*>(c) = out;
    } else {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if (gn + j < N) {
                const float o = beta == 0.0f ? v[j] : fmaf(beta, __half2float(c[j]), v[j]);
                c[j] = __float2half_rn(o);
            }
        }
    }
}

template <class CF, bool kVec>
__global__ void __launch_bounds__(CF::kThreads, CF::kMinBlocks)
gemm_wmma_tiled(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
                int M, int N, int K, float alpha, float beta) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    half* smem = reinterpret_cast<half*>(smem_raw);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / CF::kWarpsN, wn = warp % CF::kWarpsN;
    const int m0 = blockIdx.y * CF::BM, n0 = blockIdx.x * CF::BN;

    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc[CF::FM][CF::FN];
#pragma unroll
    for (int i = 0; i < CF::FM; ++i)
#pragma unroll
        for (int j = 0; j < CF::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int kTiles = (K + CF::BK - 1) / CF::BK;

    // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
    for (int s = 0; s < CF::STAGES - 1; ++s) {
        if (s < kTiles) {
            half* sA = smem + s * CF::kStage;
            load_tile<CF, kVec>(sA, sA + CF::kStageA, A, B, M, N, K, m0, n0, s * CF::BK, tid);
        }
        cp_async_commit();
    }

    for (int kt = 0; kt < kTiles; ++kt) {
        // Groups committed so far: STAGES-1+kt. Leaving STAGES-2 pending means tile kt has landed
        // for this thread; the barrier makes every thread's part visible, and also guarantees
        // that all warps are done with tile kt-1, whose stage is refilled just below.
        cp_async_wait<CF::STAGES - 2>();
        __syncthreads();

        const int next = kt + CF::STAGES - 1;
        if (next < kTiles) {
            half* sA = smem + (next % CF::STAGES) * CF::kStage;
            load_tile<CF, kVec>(sA, sA + CF::kStageA, A, B, M, N, K, m0, n0, next * CF::BK, tid);
        }
        cp_async_commit();

        const half* sA = smem + (kt % CF::STAGES) * CF::kStage;
        const half* sB = sA + CF::kStageA;
#pragma unroll
        for (int kk = 0; kk < CF::BK; kk += WMMA_K) {
            wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> fa[CF::FM];
            wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> fb[CF::FN];
#pragma unroll
            for (int i = 0; i < CF::FM; ++i)
                wmma::load_matrix_sync(fa[i], sA + (wm * CF::WM + i * WMMA_M) * CF::kLdA + kk, CF::kLdA);
#pragma unroll
            for (int j = 0; j < CF::FN; ++j)
                wmma::load_matrix_sync(fb[j], sB + kk * CF::kLdB + wn * CF::WN + j * WMMA_N, CF::kLdB);
#pragma unroll
            for (int i = 0; i < CF::FM; ++i)
#pragma unroll
                for (int j = 0; j < CF::FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }

    // Only empty groups can be pending here, but drain them and let every warp finish its last
    // fragment loads before the pipeline buffers become epilogue scratch.
    cp_async_wait<0>();
    __syncthreads();

    // The fragment's element layout is unspecified: go through shared memory one 16×16 tile at a
    // time; each lane then owns 8 consecutive columns of one row.
    float* cs = reinterpret_cast<float*>(smem_raw) + warp * (WMMA_M * CF::kLdC);
    const int r = lane / 2, cc = (lane % 2) * 8;
#pragma unroll
    for (int i = 0; i < CF::FM; ++i) {
#pragma unroll
        for (int j = 0; j < CF::FN; ++j) {
            wmma::store_matrix_sync(cs, acc[i][j], CF::kLdC, wmma::mem_row_major);
            __syncwarp();
            const int gm = m0 + wm * CF::WM + i * WMMA_M + r;
            const int gn = n0 + wn * CF::WN + j * WMMA_N + cc;
            store_out8<kVec>(C, cs + r * CF::kLdC + cc, gm, gn, M, N, alpha, beta);
            __syncwarp();  // reads done before the next fragment overwrites the scratch
        }
    }
}

template <class CF>
static void launch(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta,
                   bool vec) {
    dim3 grid((N + CF::BN - 1) / CF::BN, (M + CF::BM - 1) / CF::BM);
    if (vec) {
        if (CF::kSmemBytes > 48 * 1024)
            cudaFuncSetAttribute(gemm_wmma_tiled<CF, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 CF::kSmemBytes);
        gemm_wmma_tiled<CF, true><<<grid, CF::kThreads, CF::kSmemBytes>>>(A, B, C, M, N, K, alpha, beta);
    } else {
        if (CF::kSmemBytes > 48 * 1024)
            cudaFuncSetAttribute(gemm_wmma_tiled<CF, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 CF::kSmemBytes);
        gemm_wmma_tiled<CF, false><<<grid, CF::kThreads, CF::kSmemBytes>>>(A, B, C, M, N, K, alpha, beta);
    }
}

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    const bool vec = ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) |
                       reinterpret_cast<size_t>(C)) & 15) == 0 &&
                     K % kChunk == 0 && N % kChunk == 0;

    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
        sms = 132;

    // Largest tile that still gives every SM a block; 1024³ has only 64 tiles of 128×128.
    const long tilesLarge = (long)((M + 127) / 128) * ((N + 127) / 128);
    const long tilesMid = (long)((M + 63) / 64) * ((N + 127) / 128);
    if (tilesLarge >= sms)
        launch<CfgLarge>(A, B, C, M, N, K, alpha, beta, vec);
    else if (N > 64 && 2 * tilesMid >= sms)
        launch<CfgMid>(A, B, C, M, N, K, alpha, beta, vec);
    else
        launch<CfgSmall>(A, B, C, M, N, K, alpha, beta, vec);
}
