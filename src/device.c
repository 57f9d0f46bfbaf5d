/* device.c — CUDA runtime and cuBLAS calls, each checked; used only inside child processes. */
#include "device.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dv_probe(dv_info *info)
{
    memset(info, 0, sizeof(*info));
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(info->error, sizeof(info->error), "%s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device is visible");
        return false;
    }
    struct cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) {
        snprintf(info->error, sizeof(info->error), "%s", cudaGetErrorString(e));
        return false;
    }
    info->present = true;
    snprintf(info->name, sizeof(info->name), "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->l2_bytes = p.l2CacheSize;
    info->mem_bytes = (long long)p.totalGlobalMem;
    int clk = 0;
    if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0) == cudaSuccess) info->clock_khz = clk;
    cudaGetLastError();
    return true;
}

double dv_peak_flops(const dv_info *info, bool fp16)
{
    /* Dense FLOP per clock per SM: tensor cores for fp16 (fp32 accumulate), FMA units for fp32. */
    int cc = info->cc_major * 10 + info->cc_minor;
    double per_sm;
    if (fp16)
        per_sm = cc >= 90 ? 4096 : cc >= 80 ? 2048 : cc >= 70 ? 1024 : 256;
    else
        per_sm = cc >= 80 ? 256 : 128;
    if (info->clock_khz <= 0) return 0;
    return per_sm * info->sm_count * info->clock_khz * 1e3;
}

/* Under --sanitize ($HARNESS_SANITIZER, set by src/inspect/mode_sanitize.c) buffers get no guard zones: memcheck
 * sees an access past a buffer only at its allocation's end, and a guard zone would hide it. */
static size_t dv_guard_bytes(void)
{
    const char *s = getenv("HARNESS_SANITIZER");
    return s && *s ? 0 : DV_GUARD_BYTES;
}

int dv_buf_alloc(dv_buf *b, size_t bytes)
{
    memset(b, 0, sizeof(*b));
    size_t guard = dv_guard_bytes();
    size_t total = bytes + 2 * guard;
    void *base = NULL;
    cudaError_t e = cudaMalloc(&base, total);
    if (e != cudaSuccess) return (int)e;
    b->base = base;
    b->ptr = b->base + guard;
    b->bytes = bytes;
    return (int)cudaMemset(base, DV_GUARD_BYTE, total);
}

void dv_buf_free(dv_buf *b)
{
    if (b->base) cudaFree(b->base);
    memset(b, 0, sizeof(*b));
}

bool dv_buf_guard_hit(const dv_buf *b, long long *offset, int *cuda_err)
{
    *cuda_err = 0;
    if (dv_guard_bytes() == 0) return false; /* the sanitizer watches the edges instead */
    unsigned char *host = malloc(DV_GUARD_BYTES);
    if (!host) return false;
    bool hit = false;
    /* front guard: scan from the data backwards so the reported offset is nearest to C */
    cudaError_t e = cudaMemcpy(host, b->base, DV_GUARD_BYTES, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        *cuda_err = (int)e;
        free(host);
        return false;
    }
    for (long long i = DV_GUARD_BYTES - 1; i >= 0 && !hit; i--)
        if (host[i] != DV_GUARD_BYTE) {
            *offset = i - (long long)DV_GUARD_BYTES;
            hit = true;
        }
    if (!hit) {
        e = cudaMemcpy(host, b->base + DV_GUARD_BYTES + b->bytes, DV_GUARD_BYTES,
                       cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            *cuda_err = (int)e;
            free(host);
            return false;
        }
        for (long long i = 0; i < (long long)DV_GUARD_BYTES && !hit; i++)
            if (host[i] != DV_GUARD_BYTE) {
                *offset = (long long)b->bytes + i;
                hit = true;
            }
    }
    free(host);
    return hit;
}

int dv_upload(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}

int dv_download(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

int dv_copy(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0);
}

int dv_sync(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    cudaError_t last = cudaGetLastError();
    return (int)(e != cudaSuccess ? e : last);
}

int dv_last_error(void) { return (int)cudaGetLastError(); }

const char *dv_error_name(int err) { return cudaGetErrorName((cudaError_t)err); }

const char *dv_error_string(int err) { return cudaGetErrorString((cudaError_t)err); }

bool dv_error_is_oom(int err) { return err == cudaErrorMemoryAllocation; }

bool dv_error_is_sticky(int err)
{
    switch ((cudaError_t)err) {
    case cudaSuccess:
    case cudaErrorMemoryAllocation:
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidResourceHandle:
    case cudaErrorNotReady:
        return false;
    default:
        return true;
    }
}

struct dv_blas { cublasHandle_t h; };

static const char *dv_blas_status(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "cuBLAS not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "cuBLAS allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "cuBLAS invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "cuBLAS architecture mismatch";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "cuBLAS execution failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "cuBLAS: not supported";
    default: return "cuBLAS error";
    }
}

int dv_blas_create(dv_blas **out, char *err, size_t errlen)
{
    dv_blas *b = calloc(1, sizeof(*b));
    if (!b) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    cublasStatus_t s = cublasCreate(&b->h);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cublasCreate: %s", dv_blas_status(s));
        free(b);
        return -1;
    }
    /* The reference must not use TF32 or reduced-precision reductions. */
    cublasSetMathMode(b->h, CUBLAS_PEDANTIC_MATH);
    *out = b;
    return 0;
}

void dv_blas_destroy(dv_blas *b)
{
    if (!b) return;
    cublasDestroy(b->h);
    free(b);
}

/* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, keep the buffers. */
static cublasStatus_t dv_gemm_ex(cublasHandle_t h, int m, int n, int k, float alpha,
                                 const void *A, cudaDataType_t ab, const void *B, float beta,
                                 void *C, cudaDataType_t ct, cublasComputeType_t compute)
{
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, ab, n, A, ab, k, &beta,
                        C, ct, n, compute, CUBLAS_GEMM_DEFAULT);
}

int dv_blas_reference(dv_blas *b, bool fp16, int m, int n, int k, float alpha, const void *A,
                      const void *B, float beta, float *C32, char *err, size_t errlen)
{
    cublasSetMathMode(b->h, CUBLAS_PEDANTIC_MATH);
    cudaDataType_t ab = fp16 ? CUDA_R_16F : CUDA_R_32F;
    cublasStatus_t s =
        dv_gemm_ex(b->h, m, n, k, alpha, A, ab, B, beta, C32, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) /* pedantic fp16 inputs: plain fp32 compute */
        s = dv_gemm_ex(b->h, m, n, k, alpha, A, ab, B, beta, C32, CUDA_R_32F, CUBLAS_COMPUTE_32F);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "reference GEMM: %s", dv_blas_status(s));
        return -1;
    }
    int e = dv_sync();
    if (e) {
        snprintf(err, errlen, "reference GEMM: %s", dv_error_string(e));
        return -1;
    }
    return 0;
}

int dv_blas_baseline(dv_blas *b, bool fp16, int m, int n, int k, float alpha, const void *A,
                     const void *B, float beta, void *C, char *err, size_t errlen)
{
    cublasStatus_t s;
    cublasSetMathMode(b->h, CUBLAS_DEFAULT_MATH);
    if (fp16)
        s = dv_gemm_ex(b->h, m, n, k, alpha, A, CUDA_R_16F, B, beta, C, CUDA_R_16F,
                       CUBLAS_COMPUTE_32F);
    else
        s = cublasSgemm(b->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k, &beta, C, n);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuBLAS baseline: %s", dv_blas_status(s));
        return -1;
    }
    return 0;
}

int dv_flusher_init(dv_flusher *f, const dv_info *info)
{
    f->bytes = (size_t)(info->l2_bytes > 0 ? info->l2_bytes : 64ll << 20) * 2;
    return (int)cudaMalloc(&f->buf, f->bytes);
}

int dv_flush(dv_flusher *f) { return (int)cudaMemsetAsync(f->buf, 0x5a, f->bytes, 0); }

void dv_flusher_free(dv_flusher *f)
{
    if (f->buf) cudaFree(f->buf);
    f->buf = NULL;
}

int dv_timer_init(dv_timer *t)
{
    cudaError_t e = cudaEventCreate((cudaEvent_t *)&t->start);
    if (e == cudaSuccess) e = cudaEventCreate((cudaEvent_t *)&t->stop);
    return (int)e;
}

int dv_timer_start(dv_timer *t) { return (int)cudaEventRecord((cudaEvent_t)t->start, 0); }

int dv_timer_stop(dv_timer *t) { return (int)cudaEventRecord((cudaEvent_t)t->stop, 0); }

int dv_timer_ms(dv_timer *t, double *ms)
{
    cudaError_t e = cudaEventSynchronize((cudaEvent_t)t->stop);
    float f = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&f, (cudaEvent_t)t->start, (cudaEvent_t)t->stop);
    *ms = f;
    return (int)e;
}

void dv_timer_free(dv_timer *t)
{
    if (t->start) cudaEventDestroy((cudaEvent_t)t->start);
    if (t->stop) cudaEventDestroy((cudaEvent_t)t->stop);
    t->start = t->stop = NULL;
}
