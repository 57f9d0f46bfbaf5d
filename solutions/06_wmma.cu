// 06_wmma — tensor cores through WMMA m16n16k16, fp32 accumulators, one 16×16 tile per warp
//
// Changed from 05: the multiply-accumulate moves from fp32 FMAs to tensor cores (mma.sync through
//   WMMA): one m16n16k16 step is 4096 multiply-adds in a single warp instruction, and fp16
//   operands halve shared-memory bytes. Each warp still owns just one 16×16 tile of C (4×4 warps
//   = a 64×64 block tile), so it reloads both fragments for every mma: shared-memory bandwidth
//   (1 KB of fragments per mma), not the tensor cores, is the limit. Tiles are staged through
//   padded shared memory (rows 144 bytes apart: the 8 rows a fragment load touches fall in
//   different banks), filled by 16-byte global loads when K and N are multiples of 8, zero-filled
//   at the edges, with the next tile's loads held in registers while the current one is
//   multiplied; the accumulator goes through shared memory for a bounds-checked epilogue.
// Prediction (before measuring): ~0.03 ms at 1024³ and ~1.3 ms at 4096³ (~105 TF/s): shared
//   memory allows ~0.65 ms (10 wavefronts per mma); two barriers per 4 mma per warp and the
//   L2 traffic of 64×64 tiles cost about as much again; ~2.5× faster than 05 at 4096³ (seed
//   001's unpadded version of this, with 4-8-way bank conflicts on the fragment loads and
//   scalar fills, measured 4.45 ms).
// Measured (H200, harness): 0.0250 ms at 1024³, 0.986 ms at 4096³ (139 TF/s). Beat the prediction: 3.6× over 05
//   at 4096³ (predicted 2.5×).
// Tiles: BM=64 BN=64 BK=64, warp tile 16×16 (WMMA m16n16k16), 16 warps = 512 threads per block
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;
constexpr int BM = 64, BN = 64, BK = 64;
constexpr int kWarpsM = BM / WMMA_M, kWarpsN = BN / WMMA_N;  // 4×4 warps
constexpr int kThreads = kWarpsM * kWarpsN * 32;             // 512
constexpr int kChunk = 8;                                    // halves per 16-byte load
constexpr int kPad = 8;                                      // halves; keeps rows 16-byte aligned
constexpr int kLdA = BK + kPad, kLdB = BN + kPad;            // 72 halves = 144 bytes
constexpr int kLdC = WMMA_N + 4;                             // floats, per-warp epilogue scratch
constexpr int kSmemAB = (BM * kLdA + BK * kLdB) * 2;         // bytes
constexpr int kSmemC = kWarpsM * kWarpsN * WMMA_M * kLdC * 4;
constexpr int kSmem = kSmemAB > kSmemC ? kSmemAB : kSmemC;
static_assert(BM * BK == kThreads * kChunk, "each thread loads exactly one 8-half chunk of A");
static_assert(BK * BN == kThreads * kChunk, "each thread loads exactly one 8-half chunk of B");
static_assert(BK % WMMA_K == 0 && BK % kChunk == 0 && BN % kChunk == 0, "tile shape");
static_assert(kLdA % 8 == 0 && kLdB % 8 == 0 && kLdC % 4 == 0, "WMMA ldm must be a multiple of 16 bytes");
// WMMA pointers must be 32-byte aligned: fragment origins sit at multiples of 16 rows/columns.
static_assert((16 * kLdA * 2) % 32 == 0 && (16 * kLdB * 2) % 32 == 0 && (BM * kLdA * 2) % 32 == 0 &&
              (WMMA_M * kLdC * 4) % 32 == 0, "fragment origins must be 32-byte aligned");
static_assert(WMMA_M * WMMA_N == 32 * 8, "epilogue: each lane handles 8 consecutive elements");

// 8 halves of row `row`, columns col..col+7 of a rows×cols row-major matrix with leading
// dimension ld; zero where out of range. kVec: ld % 8 == 0 and base 16-byte aligned, so a chunk
// starting in range is entirely in range.
template <bool kVec>
__device__ __forceinline__ uint4 load_chunk(const half* __restrict__ base, int row, int col,
                                            int rows, int cols, int ld) {
    if (kVec) {
        if (row < rows && col < cols) return *reinterpret_cast<const uint4*>(base + row * ld + col);
        return make_uint4(0u, 0u, 0u, 0u);
    } else {
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
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
gemm_wmma(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
          int M, int N, int K, float alpha, float beta) {
    __shared__ __align__(128) unsigned char smem[kSmem];
    half* As = reinterpret_cast<half*>(smem);  // As[m][k], ld kLdA
    half* Bs = As + BM * kLdA;                 // Bs[k][n], ld kLdB
    float* Cs = reinterpret_cast<float*>(smem);  // reused after the main loop

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / kWarpsN, wn = warp % kWarpsN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    const int aRow = tid / (BK / kChunk), aK = (tid % (BK / kChunk)) * kChunk;
    const int bRow = tid / (BN / kChunk), bCol = (tid % (BN / kChunk)) * kChunk;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    // Register prefetch: the global loads of tile k+1 are in flight while tile k is multiplied.
    uint4 ra = load_chunk<kVec>(A, m0 + aRow, aK, M, K, K);
    uint4 rb = load_chunk<kVec>(B, bRow, n0 + bCol, K, N, N);
    for (int k0 = 0; k0 < K; k0 += BK) {
        *reinterpret_cast<uint4*>(&As[aRow * kLdA + aK]) = ra;
        *reinterpret_cast<uint4*>(&Bs[bRow * kLdB + bCol]) = rb;
        __syncthreads();
        if (k0 + BK < K) {
            ra = load_chunk<kVec>(A, m0 + aRow, k0 + BK + aK, M, K, K);
            rb = load_chunk<kVec>(B, k0 + BK + bRow, n0 + bCol, K, N, N);
        }
#pragma unroll
        for (int kk = 0; kk < BK; kk += WMMA_K) {
            wmma::load_matrix_sync(fa, &As[(wm * WMMA_M) * kLdA + kk], kLdA);
            wmma::load_matrix_sync(fb, &Bs[kk * kLdB + wn * WMMA_N], kLdB);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        __syncthreads();  // also orders the last reads of As/Bs before Cs overwrites them
    }

    // The fragment's element layout is unspecified: go through shared memory, then each lane
    // owns 8 consecutive columns of one row.
    float* cs = Cs + warp * (WMMA_M * kLdC);
    wmma::store_matrix_sync(cs, acc, kLdC, wmma::mem_row_major);
    __syncwarp();
    const int r = lane / 2, cc = (lane % 2) * 8;
    const int gm = m0 + wm * WMMA_M + r, gn = n0 + wn * WMMA_N + cc;
    if (gm >= M) return;
    float v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = alpha * cs[r * kLdC + cc + j];
    half* c = C + gm * N + gn;
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

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    const bool aligned16 = ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) |
                             reinterpret_cast<size_t>(C)) & 15) == 0;
    if (aligned16 && K % kChunk == 0 && N % kChunk == 0)
        gemm_wmma<true><<<grid, kThreads>>>(A, B, C, M, N, K, alpha, beta);
    else
        gemm_wmma<false><<<grid, kThreads>>>(A, B, C, M, N, K, alpha, beta);
}
