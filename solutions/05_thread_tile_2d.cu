// 05_thread_tile_2d — each thread computes a TM×TN register tile (outer product from shared memory)
//
// Changed from 04: a thread keeps an 8×8 tile of C in registers. Per k it loads 8 A values and 8 B
//   values as four 16-byte shared loads and does 64 FMAs with them (1 shared load per 16 FMAs,
//   against 3 per 8 in 04). The thread's rows and columns are split into two 4-wide halves 64
//   apart, so the 16 threads along N read 256 contiguous bytes per load (no bank conflicts). The
//   block tile grows to 128×128 (half the global/L2 traffic per FLOP of 64×64), and when K and N
//   are multiples of 8 (and the pointers 16-byte aligned) tiles arrive as 16-byte global loads
//   and C leaves as 8-byte stores.
// Prediction (before measuring): ~0.07 ms at 1024³ (64 blocks for 132 SMs: half the chip idles)
//   and ~3.3 ms at 4096³ (~42 TF/s, ~65% of the 67 TF/s fp32 peak: now FMA bound, 6 shared
//   wavefronts per 64 FMAs), ~1.4× faster than 04; with one tile buffer the loads overlap the
//   FMAs only across the 2 blocks per SM.
// Measured (H200, harness): 0.1518 ms at 1024³, 3.525 ms at 4096³ (39.0 TF/s). 4096³ held (2.0× over 04);
//   1024³ missed by 2× and is slower than 04 there: 64 blocks leave half of the 132 SMs idle.
// Tiles: BM=128 BN=128 BK=16 TM=8 TN=8, 256 threads per block
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda_fp16.h>
#include <cuda_runtime.h>

constexpr int BM = 128, BN = 128, BK = 16, TM = 8, TN = 8;
constexpr int kThreadsN = BN / TN;                 // 16 threads along N
constexpr int kThreads = (BM / TM) * kThreadsN;    // 256
constexpr int kChunk = 8;                          // halves per 16-byte global load
static_assert(TM == 8 && TN == 8, "the compute loop splits each thread tile into two float4 halves");
static_assert(BM * BK == kThreads * kChunk, "each thread loads exactly one 8-half chunk of A");
static_assert(BK * BN == kThreads * kChunk, "each thread loads exactly one 8-half chunk of B");
static_assert(BK % kChunk == 0 && BN % kChunk == 0, "chunks must not straddle tile rows");
static_assert(32 % kThreadsN == 0, "a warp spans whole thread rows");

__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[kChunk]) {
    const half2* h = reinterpret_cast<const half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 p = __half22float2(h[i]);
        f[2 * i] = p.x;
        f[2 * i + 1] = p.y;
    }
}

// kVec: K % 8 == 0, N % 8 == 0 and A, B, C 16-byte aligned (checked in solve). Then an 8-half
// chunk that starts in range ends in range, so one predicate per chunk is exact.
template <bool kVec>
__global__ void __launch_bounds__(kThreads)
gemm_thread_tile_2d(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
                    int M, int N, int K, float alpha, float beta) {
    __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];  // Bs[k][n]

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    // Load mapping: two threads cover one 16-half row of the A tile (one 32-byte sector).
    const int aRow = tid / (BK / kChunk), aK = (tid % (BK / kChunk)) * kChunk;
    const int bRow = tid / (BN / kChunk), bCol = (tid % (BN / kChunk)) * kChunk;
    // Compute mapping: rows tr*4+{0..3} and BM/2+tr*4+{0..3}; same split for columns.
    const int tr = tid / kThreadsN, tc = tid % kThreadsN;

    const int gmA = m0 + aRow;  // global row of A this thread loads
    const int gnB = n0 + bCol;  // first global column of B this thread loads

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        float a[kChunk], b[kChunk];
        const int gkA = k0 + aK, gkB = k0 + bRow;
        if (kVec) {
            if (gmA < M && gkA < K) {
                unpack8(*reinterpret_cast<const uint4*>(A + gmA * K + gkA), a);
            } else {
#pragma unroll
                for (int j = 0; j < kChunk; ++j) a[j] = 0.0f;
            }
            if (gkB < K && gnB < N) {
                unpack8(*reinterpret_cast<const uint4*>(B + gkB * N + gnB), b);
            } else {
#pragma unroll
                for (int j = 0; j < kChunk; ++j) b[j] = 0.0f;
            }
        } else {
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                a[j] = (gmA < M && gkA + j < K) ? __half2float(A[gmA * K + gkA + j]) : 0.0f;
                b[j] = (gkB < K && gnB + j < N) ? __half2float(B[gkB * N + gnB + j]) : 0.0f;
            }
        }
#pragma unroll
        for (int j = 0; j < kChunk; ++j) As[aK + j][aRow] = a[j];
        *reinterpret_cast<float4*>(&Bs[bRow][bCol]) = make_float4(b[0], b[1], b[2], b[3]);
        *reinterpret_cast<float4*>(&Bs[bRow][bCol + 4]) = make_float4(b[4], b[5], b[6], b[7]);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][tr * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][BM / 2 + tr * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tc * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][BN / 2 + tc * 4]);
            const float ra[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + (i < 4 ? tr * 4 + i : BM / 2 + tr * 4 + (i - 4));
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = n0 + h * (BN / 2) + tc * 4;
            half* c = C + row * N + col;
            float v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) v[j] = alpha * acc[i][h * 4 + j];
            if (kVec) {
                if (col >= N) continue;  // N % 8 == 0 and col % 4 == 0: col < N means all 4 fit
                // beta == 0 must not read C: it may hold NaN/Inf (BLAS semantics).
                if (beta != 0.0f) {
                    const uint2 old = *reinterpret_cast<const uint2*>(c);
                    const float2 o0 = __half22float2(*reinterpret_cast<const half2*>(&old.x));
                    const float2 o1 = __half22float2(*reinterpret_cast<const half2*>(&old.y));
                    v[0] = fmaf(beta, o0.x, v[0]);
                    v[1] = fmaf(beta, o0.y, v[1]);
                    v[2] = fmaf(beta, o1.x, v[2]);
                    v[3] = fmaf(beta, o1.y, v[3]);
                }
                const half2 r0 = __floats2half2_rn(v[0], v[1]);
                const half2 r1 = __floats2half2_rn(v[2], v[3]);
                uint2 out;
                out.x = *reinterpret_cast<const unsigned int*>(&r0);
                out.y = *reinterpret_cast<const unsigned int*>(&r1);
                *reinterpret_cast<uint2*>(c) = out;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    if (col + j < N) {
                        const float o = beta == 0.0f ? v[j] : fmaf(beta, __half2float(c[j]), v[j]);
                        c[j] = __float2half_rn(o);
                    }
                }
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
        gemm_thread_tile_2d<true><<<grid, kThreads>>>(A, B, C, M, N, K, alpha, beta);
    else
        gemm_thread_tile_2d<false><<<grid, kThreads>>>(A, B, C, M, N, K, alpha, beta);
}
