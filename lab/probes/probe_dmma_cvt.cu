// probe_dmma_cvt.cu — what holds matmul_fp32 03_exact's DMMA back (the pipe 67% busy at 4096³)?
// Its warp tile (64×32: 4×4 fragments of 16×8) over 16 k at a time, fed from shared memory five
// ways, everything else equal:
//   mode 0: m16n8k8 ×2, the tile stored as fp64 (fragments loaded as doubles, no conversion)
//   mode 1: m16n8k8 ×2, fp32 tiles converted by cvt.f64.f32 at the fragment load, as 03 does
//           (48 conversions per 16 k)
//   mode 2: m16n8k8 ×2, fp32 converted with integer ops (exact for normal numbers and zero;
//           the probe's data has nothing else)
//   mode 3: m16n8k16 ×1 from fp64 tiles (half the mma instructions; A's four k in a row)
//   mode 4: m16n8k16 ×1 from fp32 tiles with cvt (A in 16-byte loads of 4 k)
// DMMA TF/s for each, one block of 8 warps an SM (03's 128×128 tile allows no second).
// If 1 is well under 0 and 2 near 0, the conversion shares a pipe with DMMA; if 3 or 4 beat 0 or
// 1, the k16 shape is the better instruction (CUTLASS's default Hopper fp64 atom is 16x8x16).
// m16n8k16 fragments (CUTLASS's SM90_16x8x16_F64F64F64F64_TN layouts): a_i = A[g + 8(i%2)][t + 4(i/2)],
// b_i = B[t + 4i][g]; any bijection of the 16 k that A and B share is the same sum, so tile k
// 4t + v stands for the instruction's k t + 4v.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/pdc lab/probes/probe_dmma_cvt.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

__device__ __forceinline__ void dmma8(double (&c)[4], const double* a, const double* b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}
__device__ __forceinline__ void dmma16(double (&c)[4], const double* a, const double* b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

// fp32 bits → fp64 by integer ops: exact for normal numbers and ±0 (denormals, inf and NaN
// would need the slow path; the probe's data has none)
__device__ __forceinline__ double cvt_int(float x) {
    const unsigned u = __float_as_uint(x), a = u & 0x7FFFFFFFu;
    const unsigned hi = (a ? (a >> 3) + 0x38000000u : 0u) | (u & 0x80000000u);
    return __hiloint2double(static_cast<int>(hi), static_cast<int>(u << 29));
}

constexpr int FM = 4, FN = 4, LDA = 24, ROWS = 128;
constexpr int SMEM_FLOATS = ROWS * LDA * 2;  // 24 KB: fp32 tiles, or as many bytes of fp64
template <int MODE>
__global__ void __launch_bounds__(256) probe(const float* src, double* out, int steps) {
    __shared__ __align__(16) float sf[SMEM_FLOATS];
    for (int i = threadIdx.x; i < SMEM_FLOATS; i += blockDim.x) sf[i] = src[i % 4096];
    __syncthreads();
    const double* sd = reinterpret_cast<const double*>(sf);
    const float* sb = sf + ROWS * LDA;  // fp32 B: rows of 128
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
    double acc[FM][FN][4] = {};
    for (int s = 0; s < steps; ++s) {
        const int rs = s & 15;  // addresses move: nothing to hoist
        if (MODE <= 2) {
#pragma unroll
            for (int kk = 0; kk < 16; kk += 8) {
                double fa[FM][4], fb[FN][2];
#pragma unroll
                for (int i = 0; i < FM; ++i) {
                    const int r0 = (wm + 16 * i + g + rs) % ROWS, r1 = (r0 + 8) % ROWS;
                    if (MODE == 0) {  // 48 rows of 24 doubles: 16-byte loads conflict-free
                        const double2 lo = *reinterpret_cast<const double2*>(sd + (r0 % 48) * 24 + kk + 2 * t);
                        const double2 hi = *reinterpret_cast<const double2*>(sd + (r1 % 48) * 24 + kk + 2 * t);
                        fa[i][0] = lo.x, fa[i][1] = hi.x, fa[i][2] = lo.y, fa[i][3] = hi.y;
                    } else {
                        const float2 lo = *reinterpret_cast<const float2*>(sf + r0 * LDA + kk + 2 * t);
                        const float2 hi = *reinterpret_cast<const float2*>(sf + r1 * LDA + kk + 2 * t);
                        if (MODE == 1) fa[i][0] = lo.x, fa[i][1] = hi.x, fa[i][2] = lo.y, fa[i][3] = hi.y;
                        else fa[i][0] = cvt_int(lo.x), fa[i][1] = cvt_int(hi.x), fa[i][2] = cvt_int(lo.y), fa[i][3] = cvt_int(hi.y);
                    }
                }
#pragma unroll
                for (int j = 0; j < FN; ++j) {
                    const int c = (wn + 8 * j + g + rs) % 128, r = kk + 2 * t;
                    if (MODE == 0) {  // rows 130 doubles apart: rows 2t on distinct bank groups
                        fb[j][0] = sd[(r * 130 + c) % 3072], fb[j][1] = sd[((r + 1) * 130 + c) % 3072];
                    } else {
                        const float b0 = sb[r * 128 + c], b1 = sb[(r + 1) * 128 + c];
                        if (MODE == 1) fb[j][0] = b0, fb[j][1] = b1;
                        else fb[j][0] = cvt_int(b0), fb[j][1] = cvt_int(b1);
                    }
                }
#pragma unroll
                for (int i = 0; i < FM; ++i)
#pragma unroll
                    for (int j = 0; j < FN; ++j) dmma8(acc[i][j], fa[i], fb[j]);
            }
        } else {
            double fa[FM][8], fb[FN][4];
#pragma unroll
            for (int i = 0; i < FM; ++i) {
                const int r0 = (wm + 16 * i + g + rs) % ROWS, r1 = (r0 + 8) % ROWS;
                if (MODE == 3) {  // 32-byte pairs of loads: rows of 24 doubles
                    const double2* p0 = reinterpret_cast<const double2*>(sd + (r0 % 48) * 24 + 4 * t);
                    const double2* p1 = reinterpret_cast<const double2*>(sd + (r1 % 48) * 24 + 4 * t);
                    const double2 a = p0[0], b = p0[1], c = p1[0], d = p1[1];
                    fa[i][0] = a.x, fa[i][1] = c.x, fa[i][2] = a.y, fa[i][3] = c.y;
                    fa[i][4] = b.x, fa[i][5] = d.x, fa[i][6] = b.y, fa[i][7] = d.y;
                } else {  // fp32 rows of LDA = 24 floats: one 16-byte load per row
                    const float4 lo = *reinterpret_cast<const float4*>(sf + r0 * LDA + 4 * t);
                    const float4 hi = *reinterpret_cast<const float4*>(sf + r1 * LDA + 4 * t);
                    fa[i][0] = lo.x, fa[i][1] = hi.x, fa[i][2] = lo.y, fa[i][3] = hi.y;
                    fa[i][4] = lo.z, fa[i][5] = hi.z, fa[i][6] = lo.w, fa[i][7] = hi.w;
                }
            }
#pragma unroll
            for (int j = 0; j < FN; ++j) {
                const int c = (wn + 8 * j + g + rs) % 128;
#pragma unroll
                for (int v = 0; v < 4; ++v) {
                    const int r = 4 * t + v;
                    if (MODE == 3) fb[j][v] = sd[(r * 130 + c) % 3072];
                    else fb[j][v] = sb[r * 128 + c];
                }
            }
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) dmma16(acc[i][j], fa[i], fb[j]);
        }
    }
    double sum = 0;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) sum += acc[i][j][0] + acc[i][j][1] + acc[i][j][2] + acc[i][j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the work
}

template <int MODE>
static double run(int blocks, int steps, const float* src, double* out) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    probe<MODE><<<blocks, 256>>>(src, out, steps);  // warm-up
    CK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        CK(cudaEventRecord(a));
        probe<MODE><<<blocks, 256>>>(src, out, steps);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (ms < best) best = ms;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    // a step: 16 fragments of 16×8 over 16 k, 8 warps a block
    return 2.0 * 16 * 8 * 16 * 16 * (double)steps * 8.0 * blocks / (best * 1e-3) / 1e12;
}

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    float* src;
    double* out;
    CK(cudaMalloc(&src, 4096 * sizeof(float)));
    CK(cudaMalloc(&out, (size_t)sms * 256 * sizeof(double)));
    float h[4096];
    for (int i = 0; i < 4096; ++i) h[i] = 0.5f + (float)((i * 2654435761u) % 1000) / 997.0f;
    CK(cudaMemcpy(src, h, sizeof(h), cudaMemcpyHostToDevice));
    const int steps = 10000;
    printf("probe_dmma_cvt: %d SMs, a block of 8 warps an SM, %d steps of 16 k a warp; DMMA TF/s\n", sms, steps);
    const double t0 = run<0>(sms, steps, src, out), t1 = run<1>(sms, steps, src, out), t2 = run<2>(sms, steps, src, out);
    const double t3 = run<3>(sms, steps, src, out), t4 = run<4>(sms, steps, src, out);
    printf("  k8:  fp64 tiles %.1f | cvt.f64.f32 %.1f (%.2fx) | integer ops %.1f (%.2fx)\n", t0, t1, t1 / t0, t2, t2 / t0);
    printf("  k16: fp64 tiles %.1f (%.2fx) | cvt.f64.f32 %.1f (%.2fx)\n", t3, t3 / t0, t4, t4 / t0);
    CK(cudaFree(src));
    CK(cudaFree(out));
    return 0;
}
