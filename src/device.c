/* device.c — CUDA runtime and cuBLAS calls, each checked; used only inside child processes. */
#include "device.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_int.h"

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

double dv_peak_flops(const dv_info *info, pb_type compute)
{
    /* Dense FLOP (or OP) per clock per SM: tensor cores for fp16 (fp32 accumulate) and int8
     * (twice fp16's from Turing on), FMA units for fp32. */
    int cc = info->cc_major * 10 + info->cc_minor;
    double per_sm;
    if (compute == PB_F16)
        per_sm = cc >= 90 ? 4096 : cc >= 80 ? 2048 : cc >= 70 ? 1024 : 256;
    else if (compute == PB_I8)
        per_sm = cc >= 90 ? 8192 : cc >= 80 ? 4096 : cc >= 75 ? 2048 : 256;
    else
        per_sm = cc >= 80 ? 256 : 128;
    if (info->clock_khz <= 0) return 0;
    return per_sm * info->sm_count * info->clock_khz * 1e3;
}

/* Under --sanitize ($HARNESS_SANITIZER, set by src/inspect/mode_sanitize.c) buffers get no guard zones: memcheck
 * sees an access past a buffer only at its allocation's end, and a guard zone would hide it. */
size_t dv_guard_bytes(void)
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

int dv_buf_read_whole(const dv_buf *b, void *host)
{
    size_t guard = (size_t)(b->ptr ? (unsigned char *)b->ptr - b->base : 0);
    return (int)cudaMemcpy(host, b->base, b->bytes + 2 * guard, cudaMemcpyDeviceToHost);
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

void *dv_open(const char *soname, char *err, size_t errlen)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) snprintf(err, errlen, "%s did not load: %s", soname, dlerror());
    return lib;
}

bool dv_sym(void *lib, const char *name, void *fn, char *err, size_t errlen)
{
    void *p = dlsym(lib, name);
    memcpy(fn, &p, sizeof(p)); /* POSIX: dlsym results convert to functions */
    if (!p) snprintf(err, errlen, "no %s in cuBLAS: %s", name, dlerror());
    return p != NULL;
}

/* The cuBLAS entry points the harness calls (device_int.h: opened, not linked). */
typedef struct {
    __typeof__(cublasCreate) *create;
    __typeof__(cublasDestroy) *destroy;
    __typeof__(cublasSetMathMode) *set_math_mode;
    __typeof__(cublasGemmEx) *gemm_ex;
    __typeof__(cublasGemmStridedBatchedEx) *gemm_batched_ex;
    __typeof__(cublasDgemmStridedBatched) *dgemm_batched;
    __typeof__(cublasSgemm) *sgemm;
    __typeof__(cublasSgemmStridedBatched) *sgemm_batched;
} dv_blas_api;

static bool dv_blas_load(dv_blas_api *a, char *err, size_t errlen)
{
    void *lib = dv_open(DV_SONAME("libcublas"), err, errlen);
#define DV_LOAD(field, fn) dv_sym(lib, DV_SYMBOL(fn), &a->field, err, errlen)
    return lib && DV_LOAD(create, cublasCreate) && DV_LOAD(destroy, cublasDestroy) &&
           DV_LOAD(set_math_mode, cublasSetMathMode) && DV_LOAD(gemm_ex, cublasGemmEx) &&
           DV_LOAD(gemm_batched_ex, cublasGemmStridedBatchedEx) &&
           DV_LOAD(dgemm_batched, cublasDgemmStridedBatched) && DV_LOAD(sgemm, cublasSgemm) &&
           DV_LOAD(sgemm_batched, cublasSgemmStridedBatched);
#undef DV_LOAD
}

/* The cuBLAS handle and its entry points, and what the yardsticks keep across calls: two
 * scratch buffers and the element-wise kernels' module (loaded on first use, in the child that
 * uses them). */
struct dv_blas {
    dv_blas_api api;
    cublasHandle_t h;
    void *scratch[2];
    size_t scratch_bytes[2];
    void *kernels; /* dlopen handle of harness_kernels.so */
    int (*requant)(const int32_t *, size_t, float, float, float, int, int8_t *);
    int (*dequant4)(const uint8_t *, const void *, void *, int, int, int);
};

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
    if (!dv_blas_load(&b->api, err, errlen)) {
        free(b);
        return -1;
    }
    cublasStatus_t s = b->api.create(&b->h);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cublasCreate: %s", dv_blas_status(s));
        free(b);
        return -1;
    }
    /* The reference must not use TF32 or reduced-precision reductions. */
    b->api.set_math_mode(b->h, CUBLAS_PEDANTIC_MATH);
    *out = b;
    return 0;
}

void dv_blas_destroy(dv_blas *b)
{
    if (!b) return;
    for (int i = 0; i < 2; i++)
        if (b->scratch[i]) cudaFree(b->scratch[i]);
    b->api.destroy(b->h);
    free(b);
}

/* Row-major C = A·op(B) is column-major Cᵀ = op(B)ᵀ·Aᵀ: swap the operands, keep the buffers.
 * B row-major k×n is column-major n×k (ld n); B row-major n×k (trans_b) is its transpose (ld k). */
typedef struct {
    cublasOperation_t opb;
    int ldb;
    long long sa, sb, sc; /* batch strides in elements */
} dv_shape;

static dv_shape dv_shape_of(bool trans_b, int m, int n, int k)
{
    dv_shape d = {trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? k : n, (long long)m * k,
                  (long long)k * n, (long long)m * n};
    return d;
}

static cublasStatus_t dv_gemm_ex(const dv_blas *b, bool trans_b, int batch, int m, int n, int k,
                                 float alpha, const void *A, cudaDataType_t ab, const void *B,
                                 float beta, void *C, cudaDataType_t ct,
                                 cublasComputeType_t compute)
{
    dv_shape d = dv_shape_of(trans_b, m, n, k);
    if (batch == 1)
        return b->api.gemm_ex(b->h, d.opb, CUBLAS_OP_N, n, m, k, &alpha, B, ab, d.ldb, A, ab, k,
                              &beta, C, ct, n, compute, CUBLAS_GEMM_DEFAULT);
    return b->api.gemm_batched_ex(b->h, d.opb, CUBLAS_OP_N, n, m, k, &alpha, B, ab, d.ldb, d.sb,
                                  A, ab, k, d.sa, &beta, C, ct, n, d.sc, batch, compute,
                                  CUBLAS_GEMM_DEFAULT);
}

static int dv_ref_gemm_dev(dv_blas *b, const pb_gemm *g, const void *A, const void *B, void *C,
                           char *err, size_t errlen)
{
    b->api.set_math_mode(b->h, CUBLAS_PEDANTIC_MATH);
    cublasStatus_t s;
    if (g->type == PB_F64) {
        dv_shape d = dv_shape_of(g->trans_b, g->m, g->n, g->k);
        double alpha = g->alpha, beta = g->beta;
        s = b->api.dgemm_batched(b->h, d.opb, CUBLAS_OP_N, g->n, g->m, g->k, &alpha, B, d.ldb,
                                 d.sb, A, g->k, d.sa, &beta, C, g->n, d.sc, g->batch);
    } else {
        cudaDataType_t ab = g->type == PB_F16 ? CUDA_R_16F : CUDA_R_32F;
        float alpha = (float)g->alpha, beta = (float)g->beta;
        s = dv_gemm_ex(b, g->trans_b, g->batch, g->m, g->n, g->k, alpha, A, ab, B, beta, C,
                       CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
        if (s == CUBLAS_STATUS_NOT_SUPPORTED) /* pedantic fp16 inputs: plain fp32 compute */
            s = dv_gemm_ex(b, g->trans_b, g->batch, g->m, g->n, g->k, alpha, A, ab, B, beta, C,
                           CUDA_R_32F, CUBLAS_COMPUTE_32F);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "reference GEMM: %s", dv_blas_status(s));
        return -1;
    }
    int e = dv_sync();
    if (e) snprintf(err, errlen, "reference GEMM: %s", dv_error_string(e));
    return e;
}

/* Widen n floats into the host scratch h, then upload them as doubles (a pageable copy returns
 * once h is read, so h serves the next array). */
static int dv_widen_upload(void *dst, double *h, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++) h[i] = src[i];
    return dv_upload(dst, h, n * sizeof(double));
}

/* pb_gemm.exact: A, B (and C when beta reads it) widened to float64 on the host one array at a
 * time through one scratch, a float64 GEMM, each result rounded once to fp32. Memory: the
 * largest array in float64 on the host, all three on the device, freed before returning. No
 * memory for them is PB_ERR_MEMORY (the caller judges with the fp32 reference alone). */
static int dv_ref_gemm_exact(dv_blas *b, const pb_gemm *g, char *err, size_t errlen)
{
    if (g->type != PB_F32) {
        snprintf(err, errlen, "exact reference GEMM: fp32 inputs only");
        return -1;
    }
    size_t na = (size_t)g->batch * g->m * g->k, nb = (size_t)g->batch * g->k * g->n,
           nc = (size_t)g->batch * g->m * g->n;
    size_t most = na > nb ? na : nb;
    most = most > nc ? most : nc;
    double *h = malloc(most > 0 ? most * sizeof(double) : 1);
    if (!h) {
        snprintf(err, errlen, "exact reference: no host memory for %zu MiB", (most * 8) >> 20);
        return PB_ERR_MEMORY;
    }
    void *A = NULL, *B = NULL, *C = NULL;
    cudaError_t ce = cudaMalloc(&A, na > 0 ? na * sizeof(double) : 1);
    if (ce == cudaSuccess) ce = cudaMalloc(&B, nb > 0 ? nb * sizeof(double) : 1);
    if (ce == cudaSuccess) ce = cudaMalloc(&C, nc > 0 ? nc * sizeof(double) : 1);
    int e = 0;
    if (ce == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it, or the next sync reports it */
        snprintf(err, errlen, "exact reference: no device memory for %zu MiB",
                 ((na + nb + nc) * 8) >> 20);
        e = PB_ERR_MEMORY;
    } else if (ce != cudaSuccess) {
        e = (int)ce;
        snprintf(err, errlen, "exact reference buffers: %s", dv_error_string(e));
    }
    if (!e) {
        e = dv_widen_upload(A, h, g->a, na);
        if (!e) e = dv_widen_upload(B, h, g->b, nb);
        if (!e && g->beta != 0.0) e = dv_widen_upload(C, h, g->c, nc);
        if (e) snprintf(err, errlen, "exact reference upload: %s", dv_error_string(e));
    }
    if (!e) {
        pb_gemm d = *g;
        d.type = PB_F64;
        d.exact = false;
        e = dv_ref_gemm_dev(b, &d, A, B, C, err, errlen);
    }
    if (!e) {
        e = dv_download(h, C, nc * sizeof(double));
        if (e) snprintf(err, errlen, "reading the exact reference: %s", dv_error_string(e));
    }
    float *out = g->c;
    for (size_t i = 0; i < nc && !e; i++) out[i] = (float)h[i]; /* the one rounding */
    free(h);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return e;
}

static int dv_ref_gemm(const pb_ref_env *env, const pb_gemm *g, char *err, size_t errlen)
{
    dv_blas *b = env->ctx;
    if (g->exact) return dv_ref_gemm_exact(b, g, err, errlen);
    size_t es = pb_type_size(g->type), cs = g->type == PB_F64 ? sizeof(double) : sizeof(float);
    size_t na = (size_t)g->batch * g->m * g->k, nb = (size_t)g->batch * g->k * g->n,
           nc = (size_t)g->batch * g->m * g->n;
    void *A = NULL, *B = NULL, *C = NULL;
    int e = (int)cudaMalloc(&A, na * es > 0 ? na * es : 1);
    if (!e) e = (int)cudaMalloc(&B, nb * es > 0 ? nb * es : 1);
    if (!e) e = (int)cudaMalloc(&C, nc * cs > 0 ? nc * cs : 1);
    if (!e) e = dv_upload(A, g->a, na * es);
    if (!e) e = dv_upload(B, g->b, nb * es);
    if (!e && g->beta != 0.0) e = dv_upload(C, g->c, nc * cs);
    if (e) {
        snprintf(err, errlen, "reference GEMM buffers: %s", dv_error_string(e));
    } else if ((e = dv_ref_gemm_dev(b, g, A, B, C, err, errlen)) == 0) {
        e = dv_download(g->c, C, nc * cs);
        if (e) snprintf(err, errlen, "reading the reference: %s", dv_error_string(e));
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return e;
}

void dv_ref_env_init(pb_ref_env *env, dv_blas *b)
{
    env->gemm = dv_ref_gemm;
    env->ctx = b;
}

static int dv_base_gemm(const pb_dev_env *env, const pb_dev_gemm *g, char *err, size_t errlen)
{
    dv_blas *b = env->ctx;
    cublasStatus_t s;
    b->api.set_math_mode(b->h, CUBLAS_DEFAULT_MATH);
    if (g->type == PB_F16) {
        s = dv_gemm_ex(b, g->trans_b, g->batch, g->m, g->n, g->k, g->alpha, g->a, CUDA_R_16F,
                       g->b, g->beta, g->c, CUDA_R_16F, CUBLAS_COMPUTE_32F);
    } else {
        dv_shape d = dv_shape_of(g->trans_b, g->m, g->n, g->k);
        if (g->batch == 1)
            s = b->api.sgemm(b->h, d.opb, CUBLAS_OP_N, g->n, g->m, g->k, &g->alpha, g->b, d.ldb,
                             g->a, g->k, &g->beta, g->c, g->n);
        else
            s = b->api.sgemm_batched(b->h, d.opb, CUBLAS_OP_N, g->n, g->m, g->k, &g->alpha,
                                     g->b, d.ldb, d.sb, g->a, g->k, d.sa, &g->beta, g->c,
                                     g->n, d.sc, g->batch);
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuBLAS baseline: %s", dv_blas_status(s));
        return -1;
    }
    return 0;
}

static int dv_base_igemm(const pb_dev_env *env, int m, int n, int k, const void *a, const void *b,
                         int32_t *c, char *err, size_t errlen)
{
    dv_blas *h = env->ctx;
    int alpha = 1, beta = 0;
    h->api.set_math_mode(h->h, CUBLAS_DEFAULT_MATH);
    cublasStatus_t s = h->api.gemm_ex(h->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b,
                                      CUDA_R_8I, n, a, CUDA_R_8I, k, &beta, c, CUDA_R_32I, n,
                                      CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cuBLAS int8 GEMM: %s", dv_blas_status(s));
        return -1;
    }
    return 0;
}

/* The yardsticks' element-wise kernels: a module of their own, loaded here on first use. */
static bool dv_kernels(dv_blas *h, char *err, size_t errlen)
{
    if (h->requant) return true;
#ifdef HARNESS_KERNELS
    h->kernels = dlopen(HARNESS_KERNELS, RTLD_NOW | RTLD_LOCAL);
    if (h->kernels) {
        void *r = dlsym(h->kernels, "yk_requant_int8"), *d = dlsym(h->kernels, "yk_dequant_int4");
        memcpy(&h->requant, &r, sizeof(r)); /* POSIX: dlsym results convert to functions */
        memcpy(&h->dequant4, &d, sizeof(d));
    }
    if (h->requant && h->dequant4) return true;
    snprintf(err, errlen, "the yardsticks' kernels (%s) did not load: %s", HARNESS_KERNELS,
             dlerror());
#else
    snprintf(err, errlen, "the yardsticks' kernels were not built (CMake found no CUDA compiler)");
#endif
    h->requant = NULL;
    return false;
}

static int dv_base_requant(const pb_dev_env *env, size_t n, const int32_t *acc, float sa,
                           float sb, float sc, int zc, int8_t *out, char *err, size_t errlen)
{
    dv_blas *h = env->ctx;
    if (!dv_kernels(h, err, errlen)) return -1;
    int e = h->requant(acc, n, sa, sb, sc, zc, out);
    if (e) snprintf(err, errlen, "requantize: %s", dv_error_string(e));
    return e;
}

static int dv_base_dequant4(const pb_dev_env *env, int n, int k, int group, const uint8_t *w_q,
                            const void *scales, void *w, char *err, size_t errlen)
{
    dv_blas *h = env->ctx;
    if (!dv_kernels(h, err, errlen)) return -1;
    int e = h->dequant4(w_q, scales, w, n, k, group);
    if (e) snprintf(err, errlen, "dequantize: %s", dv_error_string(e));
    return e;
}

static void *dv_base_scratch(const pb_dev_env *env, int slot, size_t bytes)
{
    dv_blas *h = env->ctx;
    if (slot < 0 || slot > 1) return NULL;
    if (h->scratch_bytes[slot] >= bytes && h->scratch[slot]) return h->scratch[slot];
    if (h->scratch[slot]) cudaFree(h->scratch[slot]);
    h->scratch[slot] = NULL;
    h->scratch_bytes[slot] = 0;
    if (cudaMalloc(&h->scratch[slot], bytes) != cudaSuccess) {
        cudaGetLastError();
        h->scratch[slot] = NULL;
        return NULL;
    }
    h->scratch_bytes[slot] = bytes;
    return h->scratch[slot];
}

void dv_dev_env_init(pb_dev_env *env, dv_blas *b)
{
    env->gemm = dv_base_gemm;
    env->igemm = dv_base_igemm;
    env->requant = dv_base_requant;
    env->dequant4 = dv_base_dequant4;
    env->scratch = dv_base_scratch;
    env->ctx = b;
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
