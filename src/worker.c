/* worker.c — the child side: load the solution, run each test on the GPU, report through a pipe.
 *
 * Everything untrusted runs here. Per test: make the inputs on the host, put them in guarded
 * device buffers, compute the cuBLAS reference, call solve, synchronise and check the CUDA error
 * state, check the guard zones and that A and B are unchanged, compare C. A timed test then
 * repeats solve with C restored before each call, checks the last output, and runs once more on
 * new inputs in the same buffers, so a cached or only-once-right result is caught.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fp16.h"
#include "rng.h"
#include "stats.h"
#include "wire.h"

typedef void (*wk_solve_ab)(const void *, const void *, void *, int, int, int, float, float);
typedef void (*wk_solve_plain)(const void *, const void *, void *, int, int, int);

typedef struct {
    const rn_plan *plan;
    int fd;
    dv_info dev;
    dv_blas *blas;
    wk_solve_ab solve_ab;       /* one of the two, by the problem's signature */
    wk_solve_plain solve_plain;
    int current;                /* the test being run, for heartbeats */
    wk_msg *msg;                /* scratch for the next message (a few KB) */
} wk_ctx;

/* One case's data: host copies in float (values exactly representable in the element type)
 * and in the element type, device buffers, the reference. */
typedef struct {
    pb_shape s;
    size_t na, nb, nc, esize;
    float *a, *b, *c0, *ref, *out;
    void *a_e, *b_e, *c_e, *scratch;
    dv_buf A, B, C;
    dv_buf C32;   /* reference output, fp32 */
    dv_buf Cinit; /* pristine C, to restore before each timed call */
} wk_data;

static double wk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void wk_send(wk_ctx *ctx, wk_msg *m)
{
    const char *p = (const char *)m;
    size_t left = sizeof(*m);
    while (left) {
        ssize_t w = write(ctx->fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(3); /* parent gone */
        p += w;
        left -= (size_t)w;
    }
}

static void wk_send_kind(wk_ctx *ctx, wk_kind kind, int index, const char *detail)
{
    wk_msg *m = ctx->msg;
    memset(m, 0, sizeof(*m));
    m->kind = kind;
    m->index = index;
    if (detail) snprintf(m->detail, sizeof(m->detail), "%s", detail);
    m->device = ctx->dev;
    wk_send(ctx, m);
}

static void wk_fill(const pb_fill *f, int rows, int cols, rg_state *rg, float *out)
{
    size_t n = (size_t)rows * cols;
    switch (f->kind) {
    case PB_FILL_UNIFORM:
        for (size_t i = 0; i < n; i++) out[i] = rg_uniform(rg, f->lo, f->hi);
        break;
    case PB_FILL_ZEROS:
        memset(out, 0, n * sizeof(*out));
        break;
    case PB_FILL_ONES:
        for (size_t i = 0; i < n; i++) out[i] = 1.0f;
        break;
    case PB_FILL_NAN:
        for (size_t i = 0; i < n; i++) out[i] = NAN;
        break;
    case PB_FILL_IDENTITY:
        memset(out, 0, n * sizeof(*out));
        for (int i = 0; i < rows && i < cols; i++) out[(size_t)i * cols + i] = 1.0f;
        break;
    case PB_FILL_DATA:
        memcpy(out, f->data, n * sizeof(*out));
        break;
    }
}

/* Host float -> element type (and round the floats to what the element type holds). */
static void wk_to_elem(bool fp16, float *v, void *dst, size_t n)
{
    if (fp16) {
        f16_from_float_n(v, dst, n);
        f16_to_float_n(dst, v, n);
    } else {
        memcpy(dst, v, n * sizeof(float));
    }
}

static void wk_from_elem(bool fp16, const void *src, float *dst, size_t n)
{
    if (fp16)
        f16_to_float_n(src, dst, n);
    else
        memcpy(dst, src, n * sizeof(float));
}

static void wk_data_free(wk_data *d)
{
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->ref);
    free(d->out);
    free(d->a_e);
    free(d->b_e);
    free(d->c_e);
    free(d->scratch);
    dv_buf_free(&d->A);
    dv_buf_free(&d->B);
    dv_buf_free(&d->C);
    dv_buf_free(&d->C32);
    dv_buf_free(&d->Cinit);
    memset(d, 0, sizeof(*d));
}

/* Set the test's verdict from a CUDA error code; true when the context is now unusable. */
static bool wk_cuda_fail(rs_test *t, int err, const char *when)
{
    t->status = dv_error_is_oom(err) ? RS_OOM : RS_ERROR;
    snprintf(t->detail, sizeof(t->detail), "CUDA error %s: %s (%s)", when, dv_error_string(err),
             dv_error_name(err));
    return dv_error_is_sticky(err);
}

/* Make the inputs for seed on the host (floats and element copies). */
static bool wk_make_inputs(const rn_plan *plan, const pb_case *c, uint64_t seed, wk_data *d)
{
    bool fp16 = plan->problem->elem == PB_F16;
    rg_state rg = {seed};
    wk_fill(&c->a, d->s.m, d->s.k, &rg, d->a);
    wk_fill(&c->b, d->s.k, d->s.n, &rg, d->b);
    wk_fill(&c->c, d->s.m, d->s.n, &rg, d->c0);
    wk_to_elem(fp16, d->a, d->a_e, d->na);
    wk_to_elem(fp16, d->b, d->b_e, d->nb);
    wk_to_elem(fp16, d->c0, d->c_e, d->nc);
    return true;
}

static int wk_alloc(wk_data *d, size_t esize)
{
    d->esize = esize;
    d->a = malloc(d->na * sizeof(float));
    d->b = malloc(d->nb * sizeof(float));
    d->c0 = malloc(d->nc * sizeof(float));
    d->ref = malloc(d->nc * sizeof(float));
    d->out = malloc(d->nc * sizeof(float));
    d->a_e = malloc(d->na * esize);
    d->b_e = malloc(d->nb * esize);
    d->c_e = malloc(d->nc * esize);
    size_t big = d->na > d->nb ? d->na : d->nb;
    d->scratch = malloc((big > d->nc ? big : d->nc) * esize);
    if (!d->a || !d->b || !d->c0 || !d->ref || !d->out || !d->a_e || !d->b_e || !d->c_e ||
        !d->scratch)
        return 2; /* cudaErrorMemoryAllocation's value: reported as out-of-memory */
    int e;
    if ((e = dv_buf_alloc(&d->A, d->na * esize))) return e;
    if ((e = dv_buf_alloc(&d->B, d->nb * esize))) return e;
    if ((e = dv_buf_alloc(&d->C, d->nc * esize))) return e;
    if ((e = dv_buf_alloc(&d->C32, d->nc * sizeof(float)))) return e;
    return dv_buf_alloc(&d->Cinit, d->nc * esize);
}

/* Upload the inputs and compute the reference into d->ref (rounded like the judge's). */
static int wk_reference(wk_ctx *ctx, const pb_case *c, wk_data *d, char *err, size_t errlen)
{
    const pb_problem *p = ctx->plan->problem;
    bool fp16 = p->elem == PB_F16;
    float alpha = p->has_alpha_beta ? c->alpha : 1.0f;
    float beta = p->has_alpha_beta && p->c_role == PB_C_INOUT ? c->beta : 0.0f;
    int e;
    if ((e = dv_upload(d->A.ptr, d->a_e, d->na * d->esize)) ||
        (e = dv_upload(d->B.ptr, d->b_e, d->nb * d->esize)) ||
        (e = dv_upload(d->C.ptr, d->c_e, d->nc * d->esize)) ||
        (e = dv_upload(d->Cinit.ptr, d->c_e, d->nc * d->esize))) {
        snprintf(err, errlen, "uploading inputs: %s", dv_error_string(e));
        return e;
    }
    /* C32 holds C's values for beta != 0; NaN otherwise, which BLAS must not read. */
    if (beta != 0.0f) {
        e = dv_upload(d->C32.ptr, d->c0, d->nc * sizeof(float));
    } else {
        for (size_t i = 0; i < d->nc; i++) d->ref[i] = NAN;
        e = dv_upload(d->C32.ptr, d->ref, d->nc * sizeof(float));
    }
    if (e) {
        snprintf(err, errlen, "uploading C: %s", dv_error_string(e));
        return e;
    }
    if (dv_blas_reference(ctx->blas, fp16, d->s.m, d->s.n, d->s.k, alpha, d->A.ptr, d->B.ptr, beta,
                          d->C32.ptr, err, errlen))
        return -1;
    if ((e = dv_download(d->ref, d->C32.ptr, d->nc * sizeof(float)))) {
        snprintf(err, errlen, "downloading the reference: %s", dv_error_string(e));
        return e;
    }
    if (fp16) f16_round_n(d->ref, d->nc); /* the judge casts its fp32 result to fp16 */
    return 0;
}

static void wk_call(wk_ctx *ctx, const pb_case *c, wk_data *d)
{
    if (ctx->solve_ab)
        ctx->solve_ab(d->A.ptr, d->B.ptr, d->C.ptr, c->m, c->n, c->k, c->alpha, c->beta);
    else
        ctx->solve_plain(d->A.ptr, d->B.ptr, d->C.ptr, c->m, c->n, c->k);
}

/* After a call: CUDA state, guard zones, A and B intact. False (with t set) on failure;
 * *sticky when the context is gone. */
static bool wk_after_call(wk_data *d, rs_test *t, bool *sticky)
{
    int e = dv_last_error();
    int s = dv_sync();
    if (e || s) {
        *sticky = wk_cuda_fail(t, e ? e : s, "after solve");
        return false;
    }
    const struct { dv_buf *b; const char *name; } bufs[] = {{&d->A, "A"}, {&d->B, "B"}, {&d->C, "C"}};
    for (int i = 0; i < 3; i++) {
        long long off = 0;
        int ce = 0;
        if (dv_buf_guard_hit(bufs[i].b, &off, &ce)) {
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "wrote outside %s: byte offset %lld from %s's start (%s holds %zu bytes)",
                     bufs[i].name, off, bufs[i].name, bufs[i].name, bufs[i].b->bytes);
            return false;
        }
        if (ce) {
            *sticky = wk_cuda_fail(t, ce, "reading guard zones");
            return false;
        }
    }
    const struct { dv_buf *b; const void *host; const char *name; } ins[] = {
        {&d->A, d->a_e, "A"}, {&d->B, d->b_e, "B"}};
    for (int i = 0; i < 2; i++) {
        if ((e = dv_download(d->scratch, ins[i].b->ptr, ins[i].b->bytes))) {
            *sticky = wk_cuda_fail(t, e, "reading inputs back");
            return false;
        }
        if (memcmp(d->scratch, ins[i].host, ins[i].b->bytes) != 0) {
            const unsigned char *x = d->scratch, *y = ins[i].host;
            size_t at = 0;
            while (x[at] == y[at]) at++;
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "input %s was modified (first changed element %zu): solve must not write its inputs",
                     ins[i].name, at / d->esize);
            return false;
        }
    }
    return true;
}

/* Compare C with the reference; fills t->check. */
static bool wk_compare(const pb_problem *p, wk_data *d, rs_test *t, bool *sticky, const char *what)
{
    int e = dv_download(d->scratch, d->C.ptr, d->nc * d->esize);
    if (e) {
        *sticky = wk_cuda_fail(t, e, "reading C");
        return false;
    }
    wk_from_elem(p->elem == PB_F16, d->scratch, d->out, d->nc);
    t->checked = true;
    if (ck_compare_f32(d->out, d->ref, d->s.m, d->s.n, t->atol, t->rtol, &t->check)) return true;
    t->status = RS_FAILED;
    snprintf(t->detail, sizeof(t->detail), "%s%lld of %lld elements outside tolerance", what,
             (long long)t->check.n_bad, (long long)t->check.n_total);
    return false;
}

/* While timing, tell the parent twice a second that the test is alive: its time limit then
 * bounds each call, not a loop of slow calls. */
static void wk_beat(wk_ctx *ctx, double *last)
{
    double now = wk_now();
    if (now - *last < 0.5) return;
    wk_send_kind(ctx, WK_TIMING_BEGIN, ctx->current, NULL);
    *last = now;
}

/* Samples of one timed target: event times and host times (max_runs each), count. */
typedef struct {
    double *ev, *host;
    int n;
} wk_samples;

/* One timed call, C restored first: the solution's (base false) or cuBLAS's. 0, a CUDA error,
 * or -1 when cuBLAS refused (berr says why). */
static int wk_time_one(wk_ctx *ctx, const pb_case *c, wk_data *d, bool base, dv_flusher *fl,
                       dv_timer *tm, double *ev_ms, double *host_ms, char *berr, size_t berrlen)
{
    const pb_problem *p = ctx->plan->problem;
    float alpha = p->has_alpha_beta ? c->alpha : 1.0f;
    float beta = p->has_alpha_beta ? c->beta : 0.0f;
    int e;
    if ((e = dv_copy(d->C.ptr, d->Cinit.ptr, d->nc * d->esize))) return e;
    if (fl && (e = dv_flush(fl))) return e;
    if ((e = dv_sync())) return e;
    double h0 = wk_now();
    if ((e = dv_timer_start(tm))) return e;
    if (!base)
        wk_call(ctx, c, d);
    else if (dv_blas_baseline(ctx->blas, p->elem == PB_F16, d->s.m, d->s.n, d->s.k, alpha,
                              d->A.ptr, d->B.ptr, beta, d->C.ptr, berr, berrlen))
        return -1;
    if ((e = dv_timer_stop(tm))) return e;
    if ((e = dv_sync())) return e;
    *host_ms = (wk_now() - h0) * 1e3;
    return dv_timer_ms(tm, ev_ms);
}

static bool wk_quiet_enough(const wk_samples *s, double *tmp, double target)
{
    memcpy(tmp, s->ev, (size_t)s->n * sizeof(double));
    return st_summarize(tmp, (size_t)s->n).noise_pct <= target;
}

/* Repeat the solution's call and, when bs is given, cuBLAS's, in alternation: each round times
 * cuBLAS first and the solution last, so both see the same clocks and temperature (a GPU that
 * heats up over a second of work favours whichever is timed first), and C holds the solution's
 * output when the loop ends. A cuBLAS refusal ends only cuBLAS's samples (berr says why).
 * Returns 0 or a CUDA error. */
static int wk_time_loop(wk_ctx *ctx, const pb_case *c, wk_data *d, dv_flusher *fl,
                        wk_samples *ss, wk_samples *bs, char *berr, size_t berrlen)
{
    const rn_timing_opts *o = &ctx->plan->timing;
    dv_timer tm = {0};
    int e = dv_timer_init(&tm);
    if (e) return e;
    double t_begin = wk_now(), last_beat = t_begin;
    double *tmp = malloc((size_t)o->max_runs * sizeof(double));
    if (!tmp) {
        dv_timer_free(&tm);
        return 2;
    }
    ss->n = 0;
    if (bs) bs->n = 0;
    for (int i = -o->warmup; i < o->max_runs; i++) {
        double ms = 0.0, hms = 0.0;
        if (bs) {
            int be = wk_time_one(ctx, c, d, true, fl, &tm, &ms, &hms, berr, berrlen);
            if (be > 0) { /* a CUDA error: the context may be gone, and the solution's timing too */
                e = be;
                break;
            }
            if (be < 0) {
                bs = NULL; /* cuBLAS refused this case: keep timing the solution */
            } else if (i >= 0) {
                bs->ev[bs->n] = ms;
                bs->host[bs->n] = hms;
                bs->n++;
            }
        }
        if ((e = wk_time_one(ctx, c, d, false, fl, &tm, &ms, &hms, berr, berrlen))) break;
        wk_beat(ctx, &last_beat);
        if (i < 0) continue;
        ss->ev[ss->n] = ms;
        ss->host[ss->n] = hms;
        ss->n++;
        double spent = wk_now() - t_begin;
        if (ss->n >= o->min_runs && ss->n % 10 == 0 && o->noise_target_pct > 0 && spent > 0.05 &&
            wk_quiet_enough(ss, tmp, o->noise_target_pct) &&
            (!bs || wk_quiet_enough(bs, tmp, o->noise_target_pct)))
            break;
        if (spent >= o->max_time_s && ss->n >= 3) break; /* slow solutions: fewer runs */
    }
    free(tmp);
    dv_timer_free(&tm);
    return e;
}

static void wk_time(wk_ctx *ctx, const rn_item *it, uint64_t seed, wk_data *d, rs_test *t,
                    bool *sticky)
{
    const rn_timing_opts *o = &ctx->plan->timing;
    const pb_problem *p = ctx->plan->problem;
    rs_timing *tt = &t->timing;
    tt->warmup = o->warmup;
    tt->flush_l2 = o->flush_l2;
    size_t bytes = (size_t)o->max_runs * sizeof(double);
    wk_samples ss = {malloc(bytes), malloc(bytes), 0}, bs = {NULL, NULL, 0};
    if (o->baseline) bs = (wk_samples){malloc(bytes), malloc(bytes), 0};
    dv_flusher fl = {0}, *flp = NULL;
    char berr[200] = "";
    if (!ss.ev || !ss.host || (o->baseline && (!bs.ev || !bs.host))) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: out of host memory for timing");
        goto out;
    }
    if (o->flush_l2) {
        int e = dv_flusher_init(&fl, &ctx->dev);
        if (e) {
            *sticky = wk_cuda_fail(t, e, "allocating the L2 flush buffer");
            goto out;
        }
        flp = &fl;
    }
    int e = wk_time_loop(ctx, &it->c, d, flp, &ss, o->baseline ? &bs : NULL, berr, sizeof(berr));
    if (e) {
        *sticky = wk_cuda_fail(t, e, "while timing");
        goto out;
    }
    if (o->baseline) {
        if (berr[0] || bs.n == 0) {
            snprintf(tt->base_error, sizeof(tt->base_error), "%s",
                     berr[0] ? berr : "cuBLAS was not timed");
        } else {
            st_summary sb = st_summarize(bs.ev, (size_t)bs.n);
            tt->base_done = true;
            tt->base_runs = bs.n;
            tt->base_median_ms = sb.median;
            tt->base_min_ms = sb.min;
            tt->base_noise_pct = sb.noise_pct;
        }
    }
    st_summary se = st_summarize(ss.ev, (size_t)ss.n), sh = st_summarize(ss.host, (size_t)ss.n);
    tt->done = true;
    tt->n_runs = ss.n;
    tt->median_ms = se.median;
    tt->min_ms = se.min;
    tt->max_ms = se.max;
    tt->noise_pct = se.noise_pct;
    tt->host_median_ms = sh.median;
    /* Work on a stream of the solution's own escapes the events but not the synchronize. */
    tt->escaped = sh.median > 1.5 * se.median + 0.05;
    double peak = dv_peak_flops(&ctx->dev, p->elem == PB_F16);
    tt->peak_tflops = peak * 1e-12;
    double best_ms = tt->escaped ? sh.median : se.median;
    tt->impossible = peak > 0 && pb_flops(p, &it->c) / (best_ms * 1e-3) > 1.05 * peak;

    /* The output of the last timed call must be right too. */
    bool sk = false;
    if (!wk_compare(p, d, t, &sk, "output of the timed calls: ")) {
        *sticky = sk;
        goto out;
    }
    /* New inputs in the same buffers: a result cached across calls fails here. */
    char rerr[200];
    wk_make_inputs(ctx->plan, &it->c, seed ^ 0x5eed5eed5eedull, d);
    if ((e = wk_reference(ctx, &it->c, d, rerr, sizeof(rerr)))) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", rerr);
        goto out;
    }
    wk_call(ctx, &it->c, d);
    if (!wk_after_call(d, t, sticky)) goto out;
    if (!wk_compare(p, d, t, sticky, "second input set in the same buffers (cached result?): "))
        goto out;

out:
    if (flp) dv_flusher_free(flp);
    free(ss.ev);
    free(ss.host);
    free(bs.ev);
    free(bs.host);
}

/* One test, start to verdict. Returns true when the context is unusable afterwards. */
static bool wk_test(wk_ctx *ctx, size_t index, rs_test *t)
{
    const rn_plan *plan = ctx->plan;
    const pb_problem *p = plan->problem;
    const rn_item *it = &plan->items[index];
    const pb_case *c = &it->c;
    double t0 = wk_now();
    bool sticky = false;
    wk_data d;
    memset(&d, 0, sizeof(d));
    d.s = pb_gemm_shape(p, c);
    d.na = (size_t)d.s.m * d.s.k;
    d.nb = (size_t)d.s.k * d.s.n;
    d.nc = (size_t)d.s.m * d.s.n;
    uint64_t seed = c->seed * 0x9E3779B97F4A7C15ull + plan->seed;

    char err[200];
    int e = wk_alloc(&d, pb_elem_size(p));
    if (e) {
        sticky = wk_cuda_fail(t, e, "allocating the test's buffers");
        goto out;
    }
    wk_make_inputs(plan, c, seed, &d);
    if ((e = wk_reference(ctx, c, &d, err, sizeof(err)))) {
        t->status = e > 0 && dv_error_is_oom(e) ? RS_OOM : RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", err);
        sticky = e > 0 && dv_error_is_sticky(e);
        goto out;
    }
    if (c->expected) { /* the official expected output must agree with the reference */
        for (size_t i = 0; i < d.nc; i++)
            if (!ck_close(d.ref[i], c->expected[i], t->atol, t->rtol)) {
                t->status = RS_ERROR;
                snprintf(t->detail, sizeof(t->detail),
                         "harness: the reference disagrees with the official expected output at %zu",
                         i);
                goto out;
            }
    }
    wk_call(ctx, c, &d);
    if (!wk_after_call(&d, t, &sticky)) goto out;
    if (!wk_compare(p, &d, t, &sticky, "")) goto out;
    t->status = RS_SUCCESS;
    if (it->timed) {
        wk_send_kind(ctx, WK_TIMING_BEGIN, (int)index, NULL);
        wk_time(ctx, it, seed, &d, t, &sticky);
    }
out:
    if (!sticky) wk_data_free(&d); /* a poisoned context cannot free; the process exits */
    t->wall_ms = (wk_now() - t0) * 1e3;
    return sticky;
}

void wk_main(const rn_plan *plan, size_t first, int fd)
{
    wk_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.plan = plan;
    ctx.fd = fd;
    ctx.msg = malloc(sizeof(wk_msg));
    wk_msg *result = malloc(sizeof(wk_msg)); /* a test's result, built while ctx.msg sends heartbeats */
    if (!ctx.msg || !result) _exit(4);
    /* The solution's prints must not mix with the report (or the JSON) on stdout. */
    dup2(STDERR_FILENO, STDOUT_FILENO);

    void *so = dlopen(plan->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        wk_send_kind(&ctx, WK_LOAD_FAILED, -1, dlerror());
        _exit(0);
    }
    void *sym = dlsym(so, "solve");
    if (!sym) {
        wk_send_kind(&ctx, WK_NO_SOLVE, -1, dlerror());
        _exit(0);
    }
    /* POSIX guarantees a dlsym result converts to a function pointer; ISO C has no cast for it. */
    if (plan->problem->has_alpha_beta)
        memcpy(&ctx.solve_ab, &sym, sizeof(sym));
    else
        memcpy(&ctx.solve_plain, &sym, sizeof(sym));
    wk_send_kind(&ctx, WK_LOADED, -1, NULL);
    if (plan->lookup_only) { /* the target's code cannot run here: solve found is the answer */
        wk_send_kind(&ctx, WK_FINISH, -1, NULL);
        _exit(0);
    }
    if (!dv_probe(&ctx.dev)) {
        wk_send_kind(&ctx, WK_NO_DEVICE, -1, ctx.dev.error);
        _exit(0);
    }
    char err[200];
    if (dv_blas_create(&ctx.blas, err, sizeof(err))) {
        wk_send_kind(&ctx, WK_FATAL, -1, err);
        _exit(0);
    }
    wk_send_kind(&ctx, WK_DEVICE, -1, NULL);

    for (size_t i = first; i < plan->n_items; i++) {
        ctx.current = (int)i;
        wk_send_kind(&ctx, WK_BEGIN, (int)i, NULL);
        memset(result, 0, sizeof(*result));
        result->kind = WK_RESULT;
        result->index = (int)i;
        rn_init_test(plan, i, &result->test);
        bool sticky = wk_test(&ctx, i, &result->test);
        wk_send(&ctx, result);
        if (sticky) _exit(0); /* the context is poisoned: the parent starts a new worker */
    }
    wk_send_kind(&ctx, WK_FINISH, -1, NULL);
    dv_blas_destroy(ctx.blas);
    _exit(0);
}
