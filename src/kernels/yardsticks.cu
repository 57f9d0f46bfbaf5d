// yardsticks.cu — the element-wise passes of the library yardsticks that have no library call:
// int8's requantization after cuBLAS's int8 GEMM, and int4's dequantization before cuBLAS's fp16
// GEMM (what a PyTorch user runs: torch._int_mm then a requantize; dequantize then matmul). Built
// as its own module (harness_kernels.so) that only the solution's child loads, after fork: the
// parent never holds device code. Compiled as compute_75 PTX, so every newer GPU JITs it.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// The site's requantization in its fp32 order (problems/int8_matmul.c: the divide as torch does it
// on CUDA, a multiply by the fp32 reciprocal), round half to even, + zero point, clamp.
__global__ void yk_requant_kernel(const int32_t* acc, size_t n, float sa, float sb, float sc,
                                  int zc, int8_t* out)
{
    const float inv = __frcp_rn(sc);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = __fmul_rn(__fmul_rn(__fmul_rn(__int2float_rn(acc[i]), sa), sb), inv);
        float r = rintf(v) + (float)zc;
        out[i] = (int8_t)fminf(fmaxf(r, -128.0f), 127.0f);
    }
}

// W[n][k] = (nibble − 8) · scales[n][k / group], high nibble first: one byte, two weights.
__global__ void yk_dequant4_kernel(const uint8_t* w_q, const __half* scales, __half* w, int n,
                                   int k, int group)
{
    const size_t bytes = (size_t)n * (k / 2);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < bytes;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t row = i / (k / 2);
        const int col = (int)(i % (k / 2)) * 2;
        const uint8_t b = w_q[i];
        const float s = __half2float(scales[row * (k / group) + col / group]);
        w[row * k + col] = __float2half_rn((float)((b >> 4) - 8) * s);
        w[row * k + col + 1] = __float2half_rn((float)((b & 15) - 8) * s);
    }
}

static unsigned yk_blocks(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

extern "C" int yk_requant_int8(const int32_t* acc, size_t n, float sa, float sb, float sc, int zc,
                               int8_t* out)
{
    yk_requant_kernel<<<yk_blocks(n), 256>>>(acc, n, sa, sb, sc, zc, out);
    return (int)cudaGetLastError();
}

extern "C" int yk_dequant_int4(const uint8_t* w_q, const void* scales, void* w, int n, int k,
                               int group)
{
    yk_dequant4_kernel<<<yk_blocks((size_t)n * (k / 2)), 256>>>(
        w_q, (const __half*)scales, (__half*)w, n, k, group);
    return (int)cudaGetLastError();
}
