/* device_lt.c — the `--baseline lt` yardstick: cuBLASLt's matmul with the fastest of its top
 * heuristics, chosen once per shape (the first call at a new shape tries each candidate a few
 * calls; later calls run the pick). Only the solution's child calls this (device.h). */
#include "device.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_int.h"

#define DVL_CANDIDATES 8                /* asked of cublasLtMatmulAlgoGetHeuristic */
#define DVL_TRIAL_CALLS 3               /* timed per candidate, after one untimed call */
#define DVL_WORKSPACE ((size_t)32 << 20) /* what NVIDIA suggests for Hopper */

/* The tuned shape: its descriptors and the pick, kept until the shape changes. */
typedef struct {
    bool valid;                 /* key holds a shape that was tuned (ok or failed) */
    bool ok;
    pb_type type;
    bool trans_b;
    int batch, m, n, k;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc; /* A' (the B buffer), B' (the A buffer), C = D */
    cublasLtMatmulAlgo_t algo;
    size_t ws;
    char why[200];              /* when !ok: why the yardstick refuses this shape */
} dvl_plan;

/* The cuBLASLt entry points the yardstick calls (device_int.h: opened, not linked). */
typedef struct {
    __typeof__(cublasLtGetStatusString) *status_string;
    __typeof__(cublasLtCreate) *create;
    __typeof__(cublasLtDestroy) *destroy;
    __typeof__(cublasLtMatmulDescCreate) *desc_create;
    __typeof__(cublasLtMatmulDescDestroy) *desc_destroy;
    __typeof__(cublasLtMatmulDescSetAttribute) *desc_set;
    __typeof__(cublasLtMatrixLayoutCreate) *layout_create;
    __typeof__(cublasLtMatrixLayoutDestroy) *layout_destroy;
    __typeof__(cublasLtMatrixLayoutSetAttribute) *layout_set;
    __typeof__(cublasLtMatmulPreferenceCreate) *pref_create;
    __typeof__(cublasLtMatmulPreferenceDestroy) *pref_destroy;
    __typeof__(cublasLtMatmulPreferenceSetAttribute) *pref_set;
    __typeof__(cublasLtMatmulAlgoGetHeuristic) *heuristic;
    __typeof__(cublasLtMatmulAlgoConfigGetAttribute) *config_get;
    __typeof__(cublasLtMatmul) *matmul;
} dvl_api;

static bool dvl_load(dvl_api *a, char *err, size_t errlen)
{
    void *lib = dv_open(DV_SONAME("libcublasLt"), err, errlen);
#define DVL_LOAD(field, fn) dv_sym(lib, DV_SYMBOL(fn), &a->field, err, errlen)
    return lib && DVL_LOAD(status_string, cublasLtGetStatusString) &&
           DVL_LOAD(create, cublasLtCreate) && DVL_LOAD(destroy, cublasLtDestroy) &&
           DVL_LOAD(desc_create, cublasLtMatmulDescCreate) &&
           DVL_LOAD(desc_destroy, cublasLtMatmulDescDestroy) &&
           DVL_LOAD(desc_set, cublasLtMatmulDescSetAttribute) &&
           DVL_LOAD(layout_create, cublasLtMatrixLayoutCreate) &&
           DVL_LOAD(layout_destroy, cublasLtMatrixLayoutDestroy) &&
           DVL_LOAD(layout_set, cublasLtMatrixLayoutSetAttribute) &&
           DVL_LOAD(pref_create, cublasLtMatmulPreferenceCreate) &&
           DVL_LOAD(pref_destroy, cublasLtMatmulPreferenceDestroy) &&
           DVL_LOAD(pref_set, cublasLtMatmulPreferenceSetAttribute) &&
           DVL_LOAD(heuristic, cublasLtMatmulAlgoGetHeuristic) &&
           DVL_LOAD(config_get, cublasLtMatmulAlgoConfigGetAttribute) &&
           DVL_LOAD(matmul, cublasLtMatmul);
#undef DVL_LOAD
}

struct dv_lt {
    dvl_api api;
    cublasLtHandle_t h;
    pb_dev_env base;            /* the cuBLAS yardsticks' env: dequantize, scratch */
    void *workspace;
    size_t workspace_bytes;
    bool workspace_tried;
    dvl_plan plan;
    dv_lt_pick pick;
};

static bool dvl_ok(const dv_lt *l, cublasStatus_t s, const char *what, char *err, size_t errlen)
{
    if (s == CUBLAS_STATUS_SUCCESS) return true;
    snprintf(err, errlen, "cuBLASLt %s: %s", what, l->api.status_string(s));
    return false;
}

int dv_lt_create(dv_lt **out, dv_blas *b, char *err, size_t errlen)
{
    dv_lt *l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    if (!dvl_load(&l->api, err, errlen) ||
        !dvl_ok(l, l->api.create(&l->h), "cublasLtCreate", err, errlen)) {
        free(l);
        return -1;
    }
    dv_dev_env_init(&l->base, b);
    *out = l;
    return 0;
}

static void dvl_plan_free(dv_lt *l)
{
    dvl_plan *p = &l->plan;
    if (p->desc) l->api.desc_destroy(p->desc);
    if (p->la) l->api.layout_destroy(p->la);
    if (p->lb) l->api.layout_destroy(p->lb);
    if (p->lc) l->api.layout_destroy(p->lc);
    memset(p, 0, sizeof(*p));
}

void dv_lt_destroy(dv_lt *l)
{
    if (!l) return;
    dvl_plan_free(l);
    if (l->workspace) cudaFree(l->workspace);
    l->api.destroy(l->h);
    free(l);
}

/* A stored rows×cols column-major matrix (ld rows), batch of them stride elements apart. */
static bool dvl_layout(const dv_lt *l, cublasLtMatrixLayout_t *out, cudaDataType_t t, int rows,
                       int cols, int batch, long long stride, char *err, size_t errlen)
{
    if (!dvl_ok(l, l->api.layout_create(out, t, (uint64_t)rows, (uint64_t)cols, rows),
                "cublasLtMatrixLayoutCreate", err, errlen))
        return false;
    if (batch == 1) return true;
    int32_t count = batch;
    int64_t offset = stride;
    return dvl_ok(l, l->api.layout_set(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                       sizeof(count)),
                  "batch count", err, errlen) &&
           dvl_ok(l, l->api.layout_set(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                       sizeof(offset)),
                  "batch stride", err, errlen);
}

/* Row-major C = A·op(B) is column-major Cᵀ = op(B)ᵀ·Aᵀ (as device.c's cuBLAS calls): A' is the
 * B buffer (n×k stored, or k×n transposed), B' the A buffer (k×m), C and D n×m. fp32 computes
 * with CUBLAS_COMPUTE_32F: TF32 only ever runs under CUBLAS_COMPUTE_32F_FAST_TF32. */
static bool dvl_describe(dv_lt *l, const pb_dev_gemm *g, char *err, size_t errlen)
{
    dvl_plan *p = &l->plan;
    cudaDataType_t t = g->type == PB_F16 ? CUDA_R_16F : CUDA_R_32F;
    cublasOperation_t opa = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, opb = CUBLAS_OP_N;
    long long sa = (long long)g->m * g->k, sb = (long long)g->k * g->n, sc = (long long)g->m * g->n;
    if (!dvl_ok(l, l->api.desc_create(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                "cublasLtMatmulDescCreate", err, errlen) ||
        !dvl_ok(l, l->api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof(opa)),
                "transa", err, errlen) ||
        !dvl_ok(l, l->api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof(opb)),
                "transb", err, errlen))
        return false;
    return (g->trans_b ? dvl_layout(l, &p->la, t, g->k, g->n, g->batch, sb, err, errlen)
                       : dvl_layout(l, &p->la, t, g->n, g->k, g->batch, sb, err, errlen)) &&
           dvl_layout(l, &p->lb, t, g->k, g->m, g->batch, sa, err, errlen) &&
           dvl_layout(l, &p->lc, t, g->n, g->m, g->batch, sc, err, errlen);
}

static cublasStatus_t dvl_run(dv_lt *l, const cublasLtMatmulAlgo_t *algo, const pb_dev_gemm *g)
{
    dvl_plan *p = &l->plan;
    return l->api.matmul(l->h, p->desc, &g->alpha, g->b, p->la, g->a, p->lb, &g->beta, g->c,
                         p->lc, g->c, p->lc, algo, l->workspace, l->workspace_bytes, 0);
}

/* A call that failed may leave a launch error behind: take it here, so the solution's next
 * check never meets it as its own; a sticky one goes to *cuda (the context is gone). */
static void dvl_take_error(cudaError_t *cuda)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess && dv_error_is_sticky((int)e)) *cuda = e;
}

/* One candidate: an untimed call, then DVL_TRIAL_CALLS between two events; its ms per call, or
 * a negative value when it refused (a CUDA error goes to *cuda). */
static double dvl_trial(dv_lt *l, const cublasLtMatmulAlgo_t *algo, const pb_dev_gemm *g,
                        cudaEvent_t e0, cudaEvent_t e1, cudaError_t *cuda)
{
    if (dvl_run(l, algo, g) != CUBLAS_STATUS_SUCCESS) {
        dvl_take_error(cuda);
        return -1;
    }
    if ((*cuda = cudaEventRecord(e0, 0)) != cudaSuccess) return -1;
    for (int i = 0; i < DVL_TRIAL_CALLS; i++)
        if (dvl_run(l, algo, g) != CUBLAS_STATUS_SUCCESS) {
            dvl_take_error(cuda);
            return -1;
        }
    float ms = 0;
    if ((*cuda = cudaEventRecord(e1, 0)) != cudaSuccess ||
        (*cuda = cudaEventSynchronize(e1)) != cudaSuccess ||
        (*cuda = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess)
        return -1;
    return ms / DVL_TRIAL_CALLS;
}

/* One config attribute of the pick, -1 when the library cannot say. */
static long long dvl_config(const dv_lt *l, cublasLtMatmulAlgoConfigAttributes_t at, size_t bytes)
{
    unsigned char buf[8] = {0};
    size_t got = 0;
    if (bytes > sizeof(buf) ||
        l->api.config_get(&l->plan.algo, at, buf, bytes, &got) != CUBLAS_STATUS_SUCCESS ||
        got != bytes)
        return -1;
    if (bytes == 2) {
        uint16_t v;
        memcpy(&v, buf, 2);
        return v;
    }
    int32_t v; /* int32_t and uint32_t attributes: every value in use fits either */
    memcpy(&v, buf, 4);
    return v;
}

static void dvl_record_pick(dv_lt *l, int candidates, double ms)
{
    dv_lt_pick *k = &l->pick;
    memset(k, 0, sizeof(*k));
    k->chosen = true;
    k->algo_id = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_ID, sizeof(int32_t));
    k->tile_id = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_TILE_ID, sizeof(uint32_t));
    k->stages_id = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_STAGES_ID, sizeof(uint32_t));
    k->splitk = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, sizeof(int32_t));
    k->swizzle = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, sizeof(uint32_t));
    k->cluster_id = (int)dvl_config(l, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, sizeof(uint16_t));
    k->candidates = candidates;
    k->workspace_bytes = (long long)l->plan.ws;
    k->trial_ms = ms;
}

/* Descriptors, the heuristic's top candidates, each tried; the fastest kept. False with
 * p->why set when nothing runs (a CUDA error in *cuda: the context may be gone). */
static bool dvl_tune(dv_lt *l, const pb_dev_gemm *g, cudaError_t *cuda)
{
    dvl_plan *p = &l->plan;
    char *err = p->why;
    size_t errlen = sizeof(p->why);
    if (!l->workspace_tried) { /* once: without it, algorithms that need none */
        l->workspace_tried = true;
        if (cudaMalloc(&l->workspace, DVL_WORKSPACE) == cudaSuccess) {
            l->workspace_bytes = DVL_WORKSPACE;
        } else {
            cudaGetLastError();
            l->workspace = NULL;
        }
    }
    if (!dvl_describe(l, g, err, errlen)) return false;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res[DVL_CANDIDATES];
    int found = 0;
    uint64_t ws = l->workspace_bytes;
    bool ok = dvl_ok(l, l->api.pref_create(&pref), "cublasLtMatmulPreferenceCreate", err, errlen) &&
              dvl_ok(l, l->api.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                        sizeof(ws)),
                     "max workspace", err, errlen) &&
              dvl_ok(l, l->api.heuristic(l->h, p->desc, p->la, p->lb, p->lc, p->lc, pref,
                                         DVL_CANDIDATES, res, &found),
                     "cublasLtMatmulAlgoGetHeuristic", err, errlen);
    if (pref) l->api.pref_destroy(pref);
    if (!ok) return false;
    cudaEvent_t e0 = NULL, e1 = NULL;
    if ((*cuda = cudaEventCreate(&e0)) != cudaSuccess || (*cuda = cudaEventCreate(&e1)) != cudaSuccess) {
        snprintf(err, errlen, "cuBLASLt trial events: %s", cudaGetErrorString(*cuda));
        if (e0) cudaEventDestroy(e0);
        return false;
    }
    double best = -1;
    int tried = 0;
    for (int i = 0; i < found && i < DVL_CANDIDATES && *cuda == cudaSuccess; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS || res[i].workspaceSize > l->workspace_bytes) continue;
        tried++;
        double ms = dvl_trial(l, &res[i].algo, g, e0, e1, cuda);
        if (ms >= 0 && (best < 0 || ms < best)) {
            best = ms;
            p->algo = res[i].algo;
            p->ws = res[i].workspaceSize;
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (*cuda != cudaSuccess) {
        snprintf(err, errlen, "cuBLASLt trials: %s", cudaGetErrorString(*cuda));
        return false;
    }
    if (best < 0) {
        snprintf(err, errlen, "cuBLASLt: none of the heuristic's %d candidates (%d tried) ran",
                 found, tried);
        return false;
    }
    dvl_record_pick(l, tried, best);
    return true;
}

static bool dvl_same_shape(const dvl_plan *p, const pb_dev_gemm *g)
{
    return p->valid && p->type == g->type && p->trans_b == g->trans_b && p->batch == g->batch &&
           p->m == g->m && p->n == g->n && p->k == g->k;
}

static int dvl_gemm(const pb_dev_env *env, const pb_dev_gemm *g, char *err, size_t errlen)
{
    dv_lt *l = env->ctx;
    if (g->type != PB_F16 && g->type != PB_F32) {
        snprintf(err, errlen, "cuBLASLt yardstick: fp16 and fp32 only");
        return -1;
    }
    if (!dvl_same_shape(&l->plan, g)) {
        dvl_plan_free(l);
        memset(&l->pick, 0, sizeof(l->pick));
        dvl_plan *p = &l->plan;
        p->valid = true;
        p->type = g->type;
        p->trans_b = g->trans_b;
        p->batch = g->batch;
        p->m = g->m;
        p->n = g->n;
        p->k = g->k;
        cudaError_t cuda = cudaSuccess;
        p->ok = dvl_tune(l, g, &cuda);
        if (cuda != cudaSuccess) {
            snprintf(err, errlen, "%s", p->why);
            return -1; /* a CUDA error: the next call, the solution's or ours, meets it too */
        }
    }
    if (!l->plan.ok) {
        snprintf(err, errlen, "%s", l->plan.why);
        return -1;
    }
    cublasStatus_t s = dvl_run(l, &l->plan.algo, g);
    if (dvl_ok(l, s, "cublasLtMatmul", err, errlen)) return 0;
    cudaError_t cuda = cudaSuccess;
    dvl_take_error(&cuda); /* a sticky one stays for the next call to meet */
    return -1;
}

static int dvl_igemm(const pb_dev_env *env, int m, int n, int k, const void *a, const void *b,
                     int32_t *c, char *err, size_t errlen)
{
    (void)env, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c;
    snprintf(err, errlen, "cuBLASLt yardstick: no int8 GEMM");
    return -1;
}

static int dvl_requant(const pb_dev_env *env, size_t n, const int32_t *acc, float sa, float sb,
                       float sc, int zc, int8_t *out, char *err, size_t errlen)
{
    (void)env, (void)n, (void)acc, (void)sa, (void)sb, (void)sc, (void)zc, (void)out;
    snprintf(err, errlen, "cuBLASLt yardstick: no int8 requantize");
    return -1;
}

/* int4's yardstick dequantizes with the cuBLAS env's kernel, then multiplies here. */
static int dvl_dequant4(const pb_dev_env *env, int n, int k, int group, const uint8_t *w_q,
                        const void *scales, void *w, char *err, size_t errlen)
{
    const dv_lt *l = env->ctx;
    return l->base.dequant4(&l->base, n, k, group, w_q, scales, w, err, errlen);
}

static void *dvl_scratch(const pb_dev_env *env, int slot, size_t bytes)
{
    const dv_lt *l = env->ctx;
    return l->base.scratch(&l->base, slot, bytes);
}

void dv_lt_env_init(pb_dev_env *env, dv_lt *l)
{
    env->gemm = dvl_gemm;
    env->igemm = dvl_igemm;
    env->requant = dvl_requant;
    env->dequant4 = dvl_dequant4;
    env->scratch = dvl_scratch;
    env->ctx = l;
}

dv_lt_pick dv_lt_last_pick(const dv_lt *l) { return l->pick; }
