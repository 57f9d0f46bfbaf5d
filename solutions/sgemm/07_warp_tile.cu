// 07_warp_tile — warp tiles: each warp owns a 32×64 patch, each lane 2×2 scattered 4×4 sub-tiles
//
// Changed from 06: outputs are assigned warp by warp. The 8 warps split the 128×128 tile 4×2 into
//   32×64 warp tiles; inside a warp the lanes form a 4×8 grid and each lane owns four 4×4
//   sub-tiles spaced 16 rows and 32 columns apart. For one k a warp's LDS.128 of B then covers 8
//   consecutive float4 (128 contiguous bytes: one wavefront, no conflict) and of A 4 consecutive
//   float4, where 06's lanes read float4 at a 32-byte stride (two wavefronts each). The C stores
//   of a warp become 64-byte contiguous row segments.
// Prediction (before measuring): ~3.9 ms at 4096³ (≈35 TF/s, ~70% of cuBLAS): shared-memory
//   wavefronts per FMA drop by a third; still one tile in flight, so every k-tile waits for its
//   global loads at the barrier (no overlap; fixed in 08).
// Measured (H200, harness): 3.60 ms at 4096³ (38.2 TF/s, 75.6%), 10.68 ms at 8192×6144×4096 (cuBLAS beside it).
//   Held (3.9 ms predicted).
// Tiles: BM=128 BN=128 BK=8, warp 32×64 (4×2 warps), lanes 4×8, TM=8 TN=8 per thread, 256 threads
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int WARPS_M = 4, WARPS_N = 2;
constexpr int LM = 4, LN = 8;  // lanes of a warp along M and N
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 32×64 warp tile
constexpr int TM = WM / LM, TN = WN / LN;            // 8×8 per thread
constexpr int NT = WARPS_M * WARPS_N * 32;           // 256 threads
static_assert(LM * LN == 32, "a warp is 32 lanes");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4×4 sub-tiles (float4 reads)");
static_assert(LM * 16 <= 128 && LN * 16 <= 128, "a warp's fragment read fits one 128-byte wavefront");
static_assert(BM * BK == 4 * NT && BK * BN == 4 * NT, "one float4 of A and one of B per thread");
static_assert(BK == 8, "loader maps two threads to one 8-float row of the A tile");

template <bool VEC>
__device__ __forceinline__ float4 load4(const float* p, bool row_ok, int rem) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (!row_ok || rem <= 0) return v;
    if (VEC) return *reinterpret_cast<const float4*>(p);  // rem ≥ 4 under the VEC alignment check
    v.x = p[0];
    if (rem > 1) v.y = p[1];
    if (rem > 2) v.z = p[2];
    if (rem > 3) v.w = p[3];
    return v;
}

template <bool VEC>
__device__ __forceinline__ void store4(float* c, float4 v, int rem, float alpha, float beta) {
    if (rem <= 0) return;
    if (VEC) {
        float4 o = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
        if (beta != 0.0f) {  // beta == 0: C may hold NaN, never read it
            const float4 old = *reinterpret_cast<const float4*>(c);
            o.x += beta * old.x; o.y += beta * old.y; o.z += beta * old.z; o.w += beta * old.w;
        }
        *reinterpret_cast<float4*>(c) = o;
        return;
    }
    const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (i < rem) c[i] = (beta == 0.0f) ? alpha * e[i] : alpha * e[i] + beta * c[i];
}

template <bool VEC>
__global__ void __launch_bounds__(NT) sgemm_warptile(const float* A, const float* B, float* C,
                                                     int M, int N, int K, float alpha, float beta) {
    __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    // this lane's first row/column inside the block tile; sub-tiles repeat every 4*LM rows / 4*LN cols
    const int row0 = warp / WARPS_N * WM + lane / LN * 4;
    const int col0 = warp % WARPS_N * WN + lane % LN * 4;

    const int a_r = tid / 2, a_k4 = tid % 2 * 4;
    const int b_k = tid / (BN / 4), b_c4 = tid % (BN / 4) * 4;
    const bool a_row_ok = m0 + a_r < M;
    const int b_col_rem = N - (n0 + b_c4);
    const float* a_ptr = A + (size_t)(m0 + a_r) * K + a_k4;
    const float* b_ptr = B + (size_t)b_k * N + n0 + b_c4;

    float acc[TM][TN] = {};
    float a[TM], b[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 av = load4<VEC>(a_ptr + k0, a_row_ok, K - (k0 + a_k4));
        const float4 bv = load4<VEC>(b_ptr + (size_t)k0 * N, k0 + b_k < K, b_col_rem);
        As[a_k4 + 0][a_r] = av.x;
        As[a_k4 + 1][a_r] = av.y;
        As[a_k4 + 2][a_r] = av.z;
        As[a_k4 + 3][a_r] = av.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_c4]) = bv;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int g = 0; g < TM / 4; ++g)
                *reinterpret_cast<float4*>(&a[g * 4]) =
                    *reinterpret_cast<const float4*>(&As[k][row0 + g * 4 * LM]);
#pragma unroll
            for (int h = 0; h < TN / 4; ++h)
                *reinterpret_cast<float4*>(&b[h * 4]) =
                    *reinterpret_cast<const float4*>(&Bs[k][col0 + h * 4 * LN]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + row0 + i / 4 * 4 * LM + i % 4;
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < TN / 4; ++h) {
            const int col = n0 + col0 + h * 4 * LN;
            const int j = h * 4;
            store4<VEC>(C + (size_t)row * N + col,
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                        N - col, alpha, beta);
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                      float beta) {
    if (M <= 0 || N <= 0) return;
    const bool vec = K % 4 == 0 && N % 4 == 0 &&
                     (((size_t)A | (size_t)B | (size_t)C) & 15) == 0;  // 16-byte aligned
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    if (vec)
        sgemm_warptile<true><<<grid, NT>>>(A, B, C, M, N, K, alpha, beta);
    else
        sgemm_warptile<false><<<grid, NT>>>(A, B, C, M, N, K, alpha, beta);
}
