// 05_thread_tile_2d — each thread computes a TM×TN register tile (outer product from shared memory)
//
// Changed from 04: a thread owns an 8×8 block of C. Per k it loads 8 values of A and 8 of B from
//   shared memory into registers and does 64 FMAs with them: 16 LDS per 64 FFMA (0.25 per FMA)
//   instead of 9 per 8 (1.1 per FMA). The 128×128 block tile halves global traffic per FMA again.
// Prediction (before measuring): ~7.5 ms at 4096³ (≈18 TF/s, ~36% of cuBLAS; seed 000's kernel of
//   this shape measured 8.1 ms): the scalar LDS of A (row-major tile, 2-way conflicts) and of B
//   (stride-8 columns, 4-way conflicts) keep the shared-memory pipe the bottleneck.
// Measured (H200, harness): 4.49 ms at 4096³ (30.6 TF/s, 60.6%), 13.47 ms at 8192×6144×4096 (cuBLAS beside it).
//   Better than predicted (7.5 ms): the bank conflicts cost less than estimated.
// Tiles: BM=128 BN=128 BK=8 TM=8 TN=8, 256 threads per block
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200

#include <cuda_runtime.h>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int NT = (BM / TM) * (BN / TN);  // 256 threads
constexpr int A_LOADS = BM * BK / NT;      // 4 elements of A per thread per tile
constexpr int B_LOADS = BK * BN / NT;      // 4 elements of B per thread per tile
static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile");
static_assert((BM * BK) % NT == 0 && (BK * BN) % NT == 0, "loads split evenly over threads");
static_assert(NT % BK == 0 && NT % BN == 0, "a thread keeps one column of the A and B tiles");

__global__ void __launch_bounds__(NT) sgemm_tile2d(const float* A, const float* B, float* C, int M,
                                                   int N, int K, float alpha, float beta) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tr = tid / (BN / TN) * TM;  // first row of this thread's 8×8 tile
    const int tc = tid % (BN / TN) * TN;  // first column

    // loader: element i of A is row a_r + i*(NT/BK), column a_k (8 threads cover one 32-byte row)
    const int a_r = tid / BK, a_k = tid % BK;
    const int b_k = tid / BN, b_c = tid % BN;
    const bool b_col_ok = n0 + b_c < N;

    float acc[TM][TN] = {};
    float a[TM], b[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int r = a_r + i * (NT / BK);
            const bool ok = m0 + r < M && k0 + a_k < K;
            As[r][a_k] = ok ? A[(size_t)(m0 + r) * K + k0 + a_k] : 0.0f;  // zero-fill edges
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int kk = b_k + i * (NT / BN);
            const bool ok = b_col_ok && k0 + kk < K;
            Bs[kk][b_c] = ok ? B[(size_t)(k0 + kk) * N + n0 + b_c] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[tr + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + tr + i;
        if (row >= M) break;
        float* c = C + (size_t)row * N;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = n0 + tc + j;
            if (col < N)
                c[col] = (beta == 0.0f) ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c[col];
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                      float beta) {
    if (M <= 0 || N <= 0) return;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_tile2d<<<grid, NT>>>(A, B, C, M, N, K, alpha, beta);
}
