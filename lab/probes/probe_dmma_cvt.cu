// probe_dmma_cvt.cu — does the fp32 → fp64 conversion at the fragment load hold DMMA back?
// matmul_fp32 03_exact's warp tile (64×32 of m16n8k8 .f64, 16 DMMAs a k8 step) fed from shared
// memory three ways, everything else equal:
//   mode 0: the tile stored as fp64, fragments loaded as doubles (no conversion; 2× the bytes)
//   mode 1: fp32, converted by cvt.f64.f32 (F2F), as 03_exact does: 24 a step
//   mode 2: fp32, converted with integer ops (exact for normal numbers and zero; timing only)
// DMMA TF/s for each, a block of 8 warps an SM. If mode 1 is well under mode 0 and
// mode 2 near it, the conversion shares a pipe with DMMA (03's pipe was 67% busy at 4096³).
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

__device__ __forceinline__ void dmma16(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
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
template <int MODE>
__global__ void __launch_bounds__(256) probe(const float* src, double* out, int steps) {
    __shared__ __align__(16) float sf[ROWS * LDA * 2];  // fp32 tiles (or half as many doubles)
    for (int i = threadIdx.x; i < ROWS * LDA * 2; i += blockDim.x) sf[i] = src[i % 4096];
    __syncthreads();
    const double* sd = reinterpret_cast<const double*>(sf);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
    double acc[FM][FN][4] = {};
    for (int s = 0; s < steps; ++s) {
        const int kk = (s & 1) * 8, rs = (s >> 1) & 15;  // addresses move: nothing to hoist
        double fa[FM][4], fb[FN][2];
#pragma unroll
        for (int i = 0; i < FM; ++i) {
            const int r0 = (wm + 16 * i + g + rs) % ROWS, r1 = (wm + 16 * i + 8 + g + rs) % ROWS;
            if (MODE == 0) {
                // 48 rows of 24 doubles (the fp32 area holds 3072): 16-byte loads conflict-free
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
            if (MODE == 0) {
                // rows 130 doubles apart: rows 2t land on distinct 32-byte bank groups
                fb[j][0] = sd[(r * 130 + c) % 3072], fb[j][1] = sd[((r + 1) * 130 + c) % 3072];
            } else {
                const float b0 = sf[ROWS * LDA + r * 128 + c], b1 = sf[ROWS * LDA + (r + 1) * 128 + c];
                if (MODE == 1) fb[j][0] = b0, fb[j][1] = b1;
                else fb[j][0] = cvt_int(b0), fb[j][1] = cvt_int(b1);
            }
        }
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j) dmma16(acc[i][j], fa[i], fb[j]);
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
    return 2.0 * 1024 * 16 * steps * 8.0 * blocks / (best * 1e-3) / 1e12;  // 8 warps, 16 DMMAs a step
}

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    float* src;
    double* out;
    CK(cudaMalloc(&src, 4096 * sizeof(float)));
    CK(cudaMalloc(&out, (size_t)4 * sms * 256 * sizeof(double)));
    float h[4096];
    for (int i = 0; i < 4096; ++i) h[i] = 0.5f + (float)((i * 2654435761u) % 1000) / 997.0f;
    CK(cudaMemcpy(src, h, sizeof(h), cudaMemcpyHostToDevice));
    const int steps = 20000;
    printf("probe_dmma_cvt: %d SMs, %d k8 steps a warp, 16 m16n8k8 a step; DMMA TF/s\n", sms, steps);
    // one block of 8 warps an SM, as 03_exact's 128×128 tile (its registers allow no second)
    const double t0 = run<0>(sms, steps, src, out), t1 = run<1>(sms, steps, src, out), t2 = run<2>(sms, steps, src, out);
    printf("  fp64 tiles %.1f | cvt.f64.f32 %.1f (%.2fx) | integer ops %.1f (%.2fx)\n", t0, t1, t1 / t0, t2, t2 / t0);
    CK(cudaFree(src));
    CK(cudaFree(out));
    return 0;
}
