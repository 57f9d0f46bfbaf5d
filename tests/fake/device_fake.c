/* device_fake.c — device.h on the host, for the protocol suite (tests/test_protocol.c): "device"
 * buffers are host memory between the same guard zones, copies are memcpy, events read the
 * monotonic clock, the reference's GEMM is refcpu.c's, and so is the baseline's (C rounded to its type). With it the
 * parent, the oracle and the solution's child run their real code on a machine without a GPU;
 * the fake solutions (tests/fake/fake_*.c) compute on host pointers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "fp16.h"
#include "refcpu.h"

bool dv_probe(dv_info *info)
{
    memset(info, 0, sizeof(*info));
    info->present = true;
    snprintf(info->name, sizeof(info->name), "fake device (host memory)");
    info->cc_major = 9;
    info->sm_count = 1;
    return true;
}

double dv_peak_flops(const dv_info *info, pb_type compute)
{
    (void)info;
    (void)compute;
    return 0; /* unknown: no "faster than the chip" flag */
}

size_t dv_guard_bytes(void)
{
    const char *s = getenv("HARNESS_SANITIZER");
    return s && *s ? 0 : DV_GUARD_BYTES;
}

int dv_buf_alloc(dv_buf *b, size_t bytes)
{
    memset(b, 0, sizeof(*b));
    size_t guard = dv_guard_bytes();
    b->base = malloc(bytes + 2 * guard);
    if (!b->base) return 2;
    memset(b->base, DV_GUARD_BYTE, bytes + 2 * guard);
    b->ptr = b->base + guard;
    b->bytes = bytes;
    return 0;
}

void dv_buf_free(dv_buf *b)
{
    free(b->base);
    memset(b, 0, sizeof(*b));
}

int dv_buf_read_whole(const dv_buf *b, void *host)
{
    size_t guard = (size_t)((unsigned char *)b->ptr - b->base);
    memcpy(host, b->base, b->bytes + 2 * guard);
    return 0;
}

int dv_upload(void *dst, const void *src, size_t bytes) { return memcpy(dst, src, bytes), 0; }
int dv_download(void *dst, const void *src, size_t bytes) { return memcpy(dst, src, bytes), 0; }
int dv_copy(void *dst, const void *src, size_t bytes) { return memcpy(dst, src, bytes), 0; }
int dv_sync(void) { return 0; }
int dv_last_error(void) { return 0; }
const char *dv_error_name(int err) { return err == 2 ? "cudaErrorMemoryAllocation" : "fakeError"; }
const char *dv_error_string(int err) { return err == 2 ? "out of memory" : "fake error"; }
bool dv_error_is_oom(int err) { return err == 2; }
bool dv_error_is_sticky(int err) { return err != 0 && err != 2; }

struct dv_blas { int unused; };

int dv_blas_create(dv_blas **h, char *err, size_t errlen)
{
    *h = calloc(1, sizeof(**h));
    if (!*h) snprintf(err, errlen, "out of host memory");
    return *h ? 0 : -1;
}

void dv_blas_destroy(dv_blas *h) { free(h); }

/* The reference: refcpu.c's. With HARNESS_FAKE_REF_SKEW=s its fp32 GEMM (cuBLAS's in the
 * oracle) moves every element by s·(1 + |c|), as cuBLAS's fp32 sits off the exact answer; the
 * exact GEMM (pb_gemm.exact) stays as it is, or finds no memory with HARNESS_FAKE_EXACT_NOMEM. */
static int df_ref_gemm(const pb_ref_env *env, const pb_gemm *g, char *err, size_t errlen)
{
    (void)env;
    if (g->exact && getenv("HARNESS_FAKE_EXACT_NOMEM")) {
        snprintf(err, errlen, "exact reference: no device memory for 1 MiB");
        return PB_ERR_MEMORY;
    }
    pb_ref_env cpu;
    rc_env_init(&cpu);
    int r = cpu.gemm(&cpu, g, err, errlen);
    const char *skew = getenv("HARNESS_FAKE_REF_SKEW");
    double s = skew ? strtod(skew, NULL) : 0;
    if (r || s == 0 || g->type != PB_F32 || g->exact) return r;
    float *c = g->c;
    for (size_t i = 0; i < (size_t)g->batch * g->m * g->n; i++)
        c[i] = (float)(c[i] + s * (1 + fabs(c[i])));
    return 0;
}

void dv_ref_env_init(pb_ref_env *env, dv_blas *b)
{
    env->gemm = df_ref_gemm;
    env->ctx = b;
}

/* The baseline: refcpu.c's GEMM into an fp32 copy of C, rounded back to C's type. */
static int df_base_gemm(const pb_dev_env *env, const pb_dev_gemm *g, char *err, size_t errlen)
{
    (void)env;
    size_t n = (size_t)g->batch * g->m * g->n;
    float *c = malloc((n ? n : 1) * sizeof(float));
    if (!c) {
        snprintf(err, errlen, "fake baseline: out of host memory");
        return -1;
    }
    bool half = g->type == PB_F16;
    for (size_t i = 0; i < n && g->beta != 0; i++)
        c[i] = half ? f16_to_float(((const uint16_t *)g->c)[i]) : ((const float *)g->c)[i];
    pb_gemm rg = {g->type, g->trans_b, g->batch, g->m, g->n, g->k, g->alpha, g->beta, g->a, g->b, c,
                  false};
    pb_ref_env cpu;
    rc_env_init(&cpu);
    int r = cpu.gemm(&cpu, &rg, err, errlen);
    for (size_t i = 0; i < n && r == 0; i++) {
        if (half) ((uint16_t *)g->c)[i] = f16_from_float(c[i]);
        else ((float *)g->c)[i] = c[i];
    }
    free(c);
    return r;
}

void dv_dev_env_init(pb_dev_env *env, dv_blas *b)
{
    env->gemm = df_base_gemm;
    env->ctx = b;
}

/* --baseline lt: the same CPU GEMM; its pick tells the tests how the worker used it: candidates
 * is how many times the current shape was tuned (1: once), trial_ms how many calls the shape
 * got in all (the tuning call outside the timed loop, then warm-up and timed calls). */
struct dv_lt {
    int batch, m, n, k;
    dv_lt_pick pick;
};

int dv_lt_create(dv_lt **out, dv_blas *b, char *err, size_t errlen)
{
    (void)b;
    *out = calloc(1, sizeof(**out));
    if (!*out) snprintf(err, errlen, "out of host memory");
    return *out ? 0 : -1;
}

void dv_lt_destroy(dv_lt *l) { free(l); }

static int df_lt_gemm(const pb_dev_env *env, const pb_dev_gemm *g, char *err, size_t errlen)
{
    dv_lt *l = env->ctx;
    if (!l->pick.chosen || l->batch != g->batch || l->m != g->m || l->n != g->n || l->k != g->k) {
        memset(&l->pick, 0, sizeof(l->pick));
        l->batch = g->batch, l->m = g->m, l->n = g->n, l->k = g->k;
        l->pick = (dv_lt_pick){.chosen = true, .algo_id = 21, .tile_id = 20, .stages_id = 8,
                               .splitk = 1, .swizzle = 0, .cluster_id = -1, .candidates = 0,
                               .workspace_bytes = 4096, .trial_ms = 0};
    }
    if (l->pick.trial_ms == 0) l->pick.candidates++; /* a tune is the shape's first call */
    l->pick.trial_ms += 1;
    return df_base_gemm(env, g, err, errlen);
}

void dv_lt_env_init(pb_dev_env *env, dv_lt *l)
{
    env->gemm = df_lt_gemm;
    env->ctx = l;
}

dv_lt_pick dv_lt_last_pick(const dv_lt *l) { return l->pick; }

int dv_flusher_init(dv_flusher *f, const dv_info *info)
{
    (void)info;
    f->bytes = 1 << 20;
    f->buf = malloc(f->bytes);
    return f->buf ? 0 : 2;
}

int dv_flush(dv_flusher *f) { return memset(f->buf, 0x5a, f->bytes), 0; }

void dv_flusher_free(dv_flusher *f)
{
    free(f->buf);
    f->buf = NULL;
}

static double df_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int dv_timer_init(dv_timer *t)
{
    t->start = malloc(sizeof(double));
    t->stop = malloc(sizeof(double));
    return t->start && t->stop ? 0 : 2;
}

int dv_timer_start(dv_timer *t) { return *(double *)t->start = df_now_ms(), 0; }
int dv_timer_stop(dv_timer *t) { return *(double *)t->stop = df_now_ms(), 0; }

int dv_timer_ms(dv_timer *t, double *ms)
{
    *ms = *(double *)t->stop - *(double *)t->start;
    return 0;
}

void dv_timer_free(dv_timer *t)
{
    free(t->start);
    free(t->stop);
    t->start = t->stop = NULL;
}
