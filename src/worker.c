/* worker.c — the solution's child: loads the solution, runs what the parent commands on the
 * GPU, and reports raw facts only.
 *
 * Everything untrusted runs here, so nothing here decides a verdict. Per command: copy the
 * inputs the parent wrote into the shared arena into guarded device buffers, call solve,
 * synchronise, and copy every buffer back whole (guard | data | guard) into the arena, with the
 * CUDA error codes in the reply. The timed loop repeats solve (the output restored and one
 * pair of the first input's elements swapped before each call, so no two calls see the same
 * inputs), alternating with the library baseline, and writes every sample into the arena; the
 * parent computes the statistics and checks them against its own clock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sandbox.h"
#include "stats.h"
#include "wire.h"

/* solve through the type its signature has: pointers, ints and floats in one of the shapes the
 * problems use (checked against the problem at start-up) */
typedef union {
    void *p;
    int i;
    float f;
} wk_arg;
typedef void (*wk_fn)(void);
typedef const void *P;

typedef struct {
    const char *shape;
    void (*call)(wk_fn fn, const wk_arg *a);
} wk_thunk;

static void wk_pppiiiff(wk_fn fn, const wk_arg *a)
{
    ((void (*)(P, P, P, int, int, int, float, float))fn)(a[0].p, a[1].p, a[2].p, a[3].i, a[4].i,
                                                         a[5].i, a[6].f, a[7].f);
}
static void wk_pppiii(wk_fn fn, const wk_arg *a)
{
    ((void (*)(P, P, P, int, int, int))fn)(a[0].p, a[1].p, a[2].p, a[3].i, a[4].i, a[5].i);
}
static void wk_pppiiii(wk_fn fn, const wk_arg *a)
{
    ((void (*)(P, P, P, int, int, int, int))fn)(a[0].p, a[1].p, a[2].p, a[3].i, a[4].i, a[5].i,
                                                a[6].i);
}
static void wk_pppiiifffiii(wk_fn fn, const wk_arg *a)
{
    ((void (*)(P, P, P, int, int, int, float, float, float, int, int, int))fn)(
        a[0].p, a[1].p, a[2].p, a[3].i, a[4].i, a[5].i, a[6].f, a[7].f, a[8].f, a[9].i, a[10].i,
        a[11].i);
}
static void wk_ppppiiii(wk_fn fn, const wk_arg *a)
{
    ((void (*)(P, P, P, P, int, int, int, int))fn)(a[0].p, a[1].p, a[2].p, a[3].p, a[4].i, a[5].i,
                                                   a[6].i, a[7].i);
}

static const wk_thunk wk_thunks[] = {
    {"pppiiiff", wk_pppiiiff}, {"pppiii", wk_pppiii},         {"pppiiii", wk_pppiiii},
    {"pppiiifffiii", wk_pppiiifffiii}, {"ppppiiii", wk_ppppiiii},
};

typedef struct {
    const rn_plan *plan;
    unsigned char *arena;
    size_t arena_bytes;
    int msg_fd;
    dv_info dev;
    dv_blas *blas;
    dv_lt *lt;             /* --baseline lt or both: cuBLASLt, or NULL */
    pb_dev_env denv;       /* the baseline's env: cuBLAS's, or cuBLASLt's (lt) */
    pb_dev_env lenv;       /* --baseline both: cuBLASLt's, the second yardstick */
    wk_fn solve;
    wk_fn solve_vs;        /* --vs: the other file's solve, or NULL */
    const wk_thunk *thunk;
    /* the current test's device state */
    int index;             /* -1: none */
    wr_layout l;
    dv_buf bufs[PB_MAX_BUFS];
    dv_buf pristine;       /* the output buffer's contents before the call, for restores */
    /* the timed loop's swapped pair of the first input (wire.h): its elements, the pair now
     * swapped on the device (sw_on), the sequence's seed and next index */
    int sw_buf;
    size_t sw_es, sw_n, sw_p, sw_q;
    bool sw_on;
    uint64_t sw_seed, sw_j;
    wr_msg msg;            /* the reply being built */
    wr_msg beat;           /* heartbeats, sent while msg is being built */
} wk_ctx;

static void wk_send(wk_ctx *x, wr_msg *m)
{
    if (!wr_write(x->msg_fd, m, sizeof(*m))) _exit(3); /* parent gone */
}

static void wk_send_kind(wk_ctx *x, wr_msg_kind kind, const char *detail)
{
    wr_msg *m = &x->beat;
    memset(m, 0, sizeof(*m));
    m->kind = kind;
    m->index = -1;
    if (detail) snprintf(m->detail, sizeof(m->detail), "%s", detail);
    m->device = x->dev;
    wk_send(x, m);
}

static const wk_thunk *wk_thunk_for(const pb_problem *p)
{
    char shape[PB_MAX_PARAMS + 1];
    int n = 0;
    for (int i = 0; i < p->n_params && n < PB_MAX_PARAMS; i++)
        shape[n++] = p->params[i].kind == PB_PTR ? 'p' : p->params[i].kind == PB_INT ? 'i' : 'f';
    shape[n] = '\0';
    for (size_t i = 0; i < sizeof(wk_thunks) / sizeof(wk_thunks[0]); i++)
        if (strcmp(wk_thunks[i].shape, shape) == 0) return &wk_thunks[i];
    return NULL;
}

static void wk_call_fn(wk_ctx *x, wk_fn fn, const double *v)
{
    const pb_problem *p = x->plan->problem;
    wk_arg a[PB_MAX_PARAMS];
    int b = 0, s = 0;
    for (int i = 0; i < p->n_params; i++) {
        const pb_param *q = &p->params[i];
        if (q->kind == PB_PTR) a[i].p = x->bufs[b++].ptr;
        else if (q->kind == PB_INT) a[i].i = (int)v[s++];
        else a[i].f = (float)v[s++];
    }
    x->thunk->call(fn, a);
}

static void wk_call(wk_ctx *x, const double *v) { wk_call_fn(x, x->solve, v); }

static void wk_free_test(wk_ctx *x)
{
    for (int b = 0; b < PB_MAX_BUFS; b++) dv_buf_free(&x->bufs[b]);
    dv_buf_free(&x->pristine);
    x->index = -1;
}

/* A CUDA failure into the reply; the context is gone when the error is sticky. */
static void wk_fail(wk_ctx *x, int err, wr_at at)
{
    x->msg.err = err;
    x->msg.at = at;
    x->msg.sticky = dv_error_is_sticky(err);
    snprintf(x->msg.detail, sizeof(x->msg.detail), "%s (%s)", dv_error_string(err),
             dv_error_name(err));
}

static int wk_upload(wk_ctx *x)
{
    int e = 0;
    x->sw_on = false; /* every input as the parent wrote it */
    for (int b = 0; b < x->l.n_bufs && !e; b++)
        e = dv_upload(x->bufs[b].ptr, x->arena + x->l.sol_in[b], x->l.bytes[b]);
    if (!e) e = dv_copy(x->pristine.ptr, x->bufs[x->l.out].ptr, x->l.bytes[x->l.out]);
    if (!e) e = dv_sync();
    return e;
}

static int wk_readback(wk_ctx *x)
{
    int e = 0;
    for (int b = 0; b < x->l.n_bufs && !e; b++)
        e = dv_buf_read_whole(&x->bufs[b], x->arena + x->l.sol_back[b]);
    return e;
}

/* solve (or the --vs file's) once on the buffers as they are, then everything read back */
static void wk_call_and_read(wk_ctx *x, wk_fn fn)
{
    const double *v = x->plan->items[x->index].c.v;
    wk_call_fn(x, fn, v);
    int e = dv_last_error();
    if (e) {
        wk_fail(x, e, WR_AT_LAUNCH);
        return;
    }
    if ((e = dv_sync())) {
        wk_fail(x, e, WR_AT_SYNC);
        return;
    }
    if ((e = wk_readback(x))) wk_fail(x, e, WR_AT_READBACK);
}

/* --baseline lt or both: one untimed cuBLASLt call, so it picks its algorithm for this shape
 * here, outside the timed loop (the output is restored before every timed call). A refusal is
 * the timed loop's to report; a CUDA error is this command's. */
static void wk_tune_lt(wk_ctx *x)
{
    const pb_problem *p = x->plan->problem;
    void *ptrs[PB_MAX_BUFS];
    char why[200];
    for (int b = 0; b < x->l.n_bufs; b++) ptrs[b] = x->bufs[b].ptr;
    const pb_dev_env *env = x->plan->timing.yardstick == RN_YS_BOTH ? &x->lenv : &x->denv;
    if (!p->baseline || p->baseline(p, env, x->plan->items[x->index].c.v, ptrs, why, sizeof(why)))
        return;
    int e = dv_sync();
    if (e) {
        wk_fail(x, e, WR_AT_TIMING);
        snprintf(x->msg.detail, sizeof(x->msg.detail), "cuBLASLt's trial calls: %s (%s)",
                 dv_error_string(e), dv_error_name(e));
    }
}

static void wk_run(wk_ctx *x, int index, wk_fn fn)
{
    wk_free_test(x);
    const double *v = x->plan->items[index].c.v;
    if (!wr_layout_for(x->plan->problem, v, dv_guard_bytes(), x->plan->timing.max_runs, &x->l) ||
        x->l.sol_total > x->arena_bytes) {
        x->msg.err = -1;
        x->msg.at = WR_AT_HOST_MEMORY;
        snprintf(x->msg.detail, sizeof(x->msg.detail), "the test's buffers do not fit the arena");
        return;
    }
    x->index = index;
    int e = 0;
    for (int b = 0; b < x->l.n_bufs && !e; b++) e = dv_buf_alloc(&x->bufs[b], x->l.bytes[b]);
    if (!e) e = dv_buf_alloc(&x->pristine, x->l.bytes[x->l.out]);
    if (e) {
        wk_fail(x, e, WR_AT_ALLOC);
        return;
    }
    if ((e = wk_upload(x))) {
        wk_fail(x, e, WR_AT_UPLOAD);
        return;
    }
    wk_call_and_read(x, fn);
    if (x->lt && !x->msg.err && x->plan->items[index].timed) wk_tune_lt(x);
}

static void wk_rerun(wk_ctx *x, wk_fn fn)
{
    int e = wk_upload(x);
    if (e) {
        wk_fail(x, e, WR_AT_UPLOAD);
        return;
    }
    wk_call_and_read(x, fn);
}

/* ---- the timed loop ---- */

/* The pair swapped for the previous call put back from the arena's copy (wire.h). */
static int wk_unswap(wk_ctx *x)
{
    if (!x->sw_on) return 0;
    unsigned char *d = x->bufs[x->sw_buf].ptr;
    const unsigned char *h = x->arena + x->l.sol_in[x->sw_buf];
    size_t es = x->sw_es;
    int e = dv_upload(d + x->sw_p * es, h + x->sw_p * es, es);
    if (!e) e = dv_upload(d + x->sw_q * es, h + x->sw_q * es, es);
    x->sw_on = e != 0; /* on a failure the context is gone: the next upload rewrites it all */
    return e;
}

/* Before every timed call, outside the events: the previous pair put back and the next pair
 * of the first input swapped, so no two calls see the same inputs (a result cached by their
 * contents is computed each time). 0 or a CUDA error. */
static int wk_swap_next(wk_ctx *x)
{
    int e = wk_unswap(x);
    if (e || x->sw_buf < 0) return e;
    unsigned char *d = x->bufs[x->sw_buf].ptr;
    const unsigned char *h = x->arena + x->l.sol_in[x->sw_buf];
    size_t es = x->sw_es, p, q;
    if (!wr_swap_pick(h, x->sw_n, es, x->sw_seed, x->sw_j++, &p, &q)) return 0;
    x->sw_p = p;
    x->sw_q = q;
    x->sw_on = true; /* set first: a half-done swap is put back too */
    e = dv_upload(d + p * es, h + q * es, es);
    if (!e) e = dv_upload(d + q * es, h + p * es, es);
    return e;
}

/* The swap sequence of the test's timed loop: its seed from the case's and the plan's, so a
 * run repeats; every order of a --vs case sees the same sequence. */
static void wk_swap_begin(wk_ctx *x)
{
    const pb_problem *p = x->plan->problem;
    x->sw_buf = wr_swap_buf(p);
    x->sw_on = false;
    x->sw_j = 0;
    x->sw_seed = wr_case_seed(x->plan, (size_t)x->index) ^ 0x7157ed5a9ull;
    if (x->sw_buf < 0) return;
    x->sw_es = pb_type_size(pb_buf(p, x->sw_buf)->type);
    x->sw_n = x->sw_es ? x->l.bytes[x->sw_buf] / x->sw_es : 0;
}

/* Twice a second while timing: the parent's time limit then bounds each call, not the loop. */
static void wk_beat(wk_ctx *x, double *last)
{
    double now = wr_now();
    if (now - *last < 0.5) return;
    wr_msg *m = &x->beat;
    memset(m, 0, sizeof(*m));
    m->kind = WR_BEAT;
    m->index = x->index;
    m->nonce = x->msg.nonce;
    m->cmd = WR_CMD_TIME;
    wk_send(x, m);
    *last = now;
}

/* One timed call, the output restored first: the solution's (base false), the baseline's, or
 * with env the second yardstick's (--baseline both). 0, a CUDA error, or -1 when the library
 * refused (berr says why). */
static int wk_time_one(wk_ctx *x, bool base, const pb_dev_env *env, dv_flusher *fl, dv_timer *tm,
                       double *ev_ms, double *host_ms, char *berr, size_t berrlen)
{
    const pb_problem *p = x->plan->problem;
    const double *v = x->plan->items[x->index].c.v;
    int e;
    if ((e = wk_swap_next(x))) return e;
    if ((e = dv_copy(x->bufs[x->l.out].ptr, x->pristine.ptr, x->l.bytes[x->l.out]))) return e;
    if (fl && (e = dv_flush(fl))) return e;
    if ((e = dv_sync())) return e;
    double h0 = wr_now();
    if ((e = dv_timer_start(tm))) return e;
    if (!base) {
        wk_call(x, v);
    } else if (env) {
        void *ptrs[PB_MAX_BUFS];
        for (int b = 0; b < x->l.n_bufs; b++) ptrs[b] = x->bufs[b].ptr;
        if (p->baseline(p, env, v, ptrs, berr, berrlen)) return -1;
    } else if (x->solve_vs) {
        wk_call_fn(x, x->solve_vs, v);
    } else {
        void *ptrs[PB_MAX_BUFS];
        for (int b = 0; b < x->l.n_bufs; b++) ptrs[b] = x->bufs[b].ptr;
        if (p->baseline(p, &x->denv, v, ptrs, berr, berrlen)) return -1;
    }
    if ((e = dv_timer_stop(tm))) return e;
    if ((e = dv_sync())) return e;
    *host_ms = (wr_now() - h0) * 1e3;
    return dv_timer_ms(tm, ev_ms);
}

static bool wk_quiet_enough(const double *s, int n, double *tmp, double target)
{
    memcpy(tmp, s, (size_t)n * sizeof(double));
    return st_summarize(tmp, (size_t)n).noise_pct <= target;
}

enum { WK_BASE, WK_ALT, WK_SOL }; /* the timed series of a round */
_Static_assert(WR_BASE_HOST == WR_BASE_EV + 1 && WR_ALT_HOST == WR_ALT_EV + 1 &&
                   WR_SOL_HOST == WR_SOL_EV + 1,
               "wk_time_slot: each host series follows its event series");

/* The solution's call once more, untimed, on the inputs as the parent wrote them (the last
 * pair put back), so the output holds its result on them. The restores are synchronised
 * before the call, as a timed call's are: work on a stream of the solution's own does not wait
 * for stream 0. 0 or a CUDA error. */
static int wk_last_call(wk_ctx *x)
{
    int e = wk_unswap(x);
    if (!e) e = dv_copy(x->bufs[x->l.out].ptr, x->pristine.ptr, x->l.bytes[x->l.out]);
    if (!e) e = dv_sync();
    if (e) return e;
    wk_call(x, x->plan->items[x->index].c.v);
    return dv_sync();
}

/* One round's call of one series: timed, and kept past the warm-up. 0, a CUDA error, or -1
 * when the library refused (its series ends; err says why). */
static int wk_time_slot(wk_ctx *x, int slot, bool keep, dv_flusher *fl, dv_timer *tm,
                        double *const *ser, int *n, char *err, size_t errlen)
{
    static const int ev[3] = {WR_BASE_EV, WR_ALT_EV, WR_SOL_EV};
    double ms = 0.0, hms = 0.0;
    int e = wk_time_one(x, slot != WK_SOL, slot == WK_ALT ? &x->lenv : NULL, fl, tm, &ms, &hms,
                        err, errlen);
    if (e || !keep) return e;
    ser[ev[slot]][*n] = ms;
    ser[ev[slot] + 1][*n] = hms; /* each host series follows its event series */
    (*n)++;
    return 0;
}

/* The solution's calls and, with a baseline, the library's, in alternation: each round times
 * every series once, so all see the same clocks and temperature, and the rounds rotate which
 * series goes first (a call's place in the round moved identical code by up to 2%, run 187).
 * The output holds the solution's result on the unswapped inputs when the loop ends. A
 * baseline refusal ends only its samples (berr, aerr say why). Returns 0 or a CUDA error. */
static int wk_time_loop(wk_ctx *x, dv_flusher *fl, double *const *ser, int *n_sol, int *n_base,
                        int *n_alt, char *berr, size_t berrlen, char *aerr, size_t aerrlen)
{
    const rn_timing_opts *o = &x->plan->timing;
    dv_timer tm = {0};
    int e = dv_timer_init(&tm);
    if (e) return e;
    double t_begin = wr_now(), last_beat = t_begin;
    double *tmp = malloc((size_t)o->max_runs * sizeof(double));
    if (!tmp) {
        dv_timer_free(&tm);
        return 2;
    }
    bool on[3];
    /* --vs: the other file's calls, never the library's in their place (it may not be loaded) */
    on[WK_BASE] = o->baseline && (x->plan->vs_path ? x->solve_vs != NULL
                                                   : x->plan->problem->baseline != NULL);
    if (!on[WK_BASE] && o->baseline && x->plan->vs_path)
        snprintf(berr, berrlen, "the --vs file is not loaded");
    else if (!on[WK_BASE] && o->baseline)
        snprintf(berr, berrlen, "no library baseline for %s yet", x->plan->problem->name);
    /* --baseline both: cuBLASLt is a third series in the same rounds */
    on[WK_ALT] = on[WK_BASE] && o->yardstick == RN_YS_BOTH && x->lt && !x->solve_vs;
    on[WK_SOL] = true;
    int *const count[3] = {n_base, n_alt, n_sol};
    *n_sol = *n_base = *n_alt = 0;
    wk_swap_begin(x);
    for (int i = -o->warmup; i < o->max_runs; i++) {
        int slots[3], k = 0;
        for (int s = 0; s < 3; s++)
            if (on[s]) slots[k++] = s;
        for (int j = 0; j < k && !e; j++) {
            int s = slots[(i + o->warmup + j) % k];
            if (!on[s]) continue; /* refused earlier in this round */
            int r = wk_time_slot(x, s, i >= 0, fl, &tm, ser, count[s], s == WK_ALT ? aerr : berr,
                                 s == WK_ALT ? aerrlen : berrlen);
            if (r < 0) on[s] = false; /* the library refused this case: keep timing the others */
            else e = r;
        }
        if (e) break;
        wk_beat(x, &last_beat);
        if (i < 0) continue;
        double spent = wr_now() - t_begin;
        if (*n_sol >= o->min_runs && *n_sol % 10 == 0 && o->noise_target_pct > 0 && spent > 0.05 &&
            wk_quiet_enough(ser[WR_SOL_EV], *n_sol, tmp, o->noise_target_pct) &&
            (!on[WK_BASE] || wk_quiet_enough(ser[WR_BASE_EV], *n_base, tmp, o->noise_target_pct)) &&
            (!on[WK_ALT] || wk_quiet_enough(ser[WR_ALT_EV], *n_alt, tmp, o->noise_target_pct)))
            break;
        if (spent >= o->max_time_s && *n_sol >= 3) break; /* slow solutions: fewer runs */
    }
    if (!e) e = wk_last_call(x);
    free(tmp);
    dv_timer_free(&tm);
    return e;
}

static void wk_time(wk_ctx *x)
{
    const rn_timing_opts *o = &x->plan->timing;
    double *ser[WR_SAMPLE_SERIES];
    double *s0 = (double *)(x->arena + x->l.sol_samples);
    for (int i = 0; i < WR_SAMPLE_SERIES; i++) ser[i] = s0 + (size_t)i * (size_t)o->max_runs;
    dv_flusher fl = {0}, *flp = NULL;
    if (o->flush_l2) {
        int e = dv_flusher_init(&fl, &x->dev);
        if (e) {
        wk_fail(x, e, WR_AT_TIMING);
        return;
    }
        flp = &fl;
    }
    double t0 = wr_now();
    int e = wk_time_loop(x, flp, ser, &x->msg.n_sol, &x->msg.n_base, &x->msg.n_alt, x->msg.detail,
                         sizeof(x->msg.detail), x->msg.alt_detail, sizeof(x->msg.alt_detail));
    x->msg.loop_ms = (wr_now() - t0) * 1e3;
    x->msg.warmup = o->warmup;
    if (x->lt) x->msg.lt = dv_lt_last_pick(x->lt);
    if (flp) dv_flusher_free(flp);
    if (e) {
        wk_fail(x, e, WR_AT_TIMING);
        return;
    }
    if ((e = wk_readback(x))) wk_fail(x, e, WR_AT_READBACK);
}

/* The object as the harness's user could open it, loaded after the uid drop: an unprivileged uid
 * may not reach the cache's folder, so a dropped child loads a private copy (a memfd). 0, or
 * the open's errno. */
static int wk_open(const char *path, int *fd)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    return *fd < 0 ? errno : 0;
}

static void *wk_load(const char *path, int fd, bool copy, char *why, size_t len)
{
    if (!copy) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) snprintf(why, len, "%s", dlerror());
        return h;
    }
    int mfd = memfd_create("solution.so", 0);
    if (mfd < 0) {
        snprintf(why, len, "%s: memfd_create: %s", path, strerror(errno));
        return NULL;
    }
    char buf[1 << 16];
    ssize_t k;
    bool ok = true;
    while (ok && (k = read(fd, buf, sizeof(buf))) != 0) {
        if (k < 0 && errno == EINTR) continue;
        ok = k > 0 && wr_write(mfd, buf, (size_t)k);
    }
    void *h = NULL;
    if (!ok) {
        snprintf(why, len, "%s: copying it: %s", path, strerror(errno));
    } else {
        char self[64];
        snprintf(self, sizeof(self), "/proc/self/fd/%d", mfd);
        h = dlopen(self, RTLD_NOW | RTLD_LOCAL);
        if (!h) snprintf(why, len, "%s: %s", path, dlerror());
    }
    /* kept open when loaded: the dynamic loader knows objects by name, and a second object in a
     * reused descriptor number would be taken for this one */
    if (!h) close(mfd);
    return h;
}

void wk_main(const rn_plan *plan, unsigned char *arena, size_t arena_bytes, int cmd_fd,
             int msg_fd, wr_vs_load vs)
{
    wk_ctx *x = calloc(1, sizeof(*x)); /* a few KB: off the stack */
    if (!x) _exit(4);
    x->plan = plan;
    x->arena = arena;
    x->arena_bytes = arena_bytes;
    x->msg_fd = msg_fd;
    x->index = -1;
    pid_t parent = getppid(); /* checked by rn_spawn, under its first PR_SET_PDEATHSIG */

    x->thunk = wk_thunk_for(plan->problem);
    if (!x->thunk) {
        wk_send_kind(x, WR_FATAL, "no call shape for this problem's signature (worker.c)");
        _exit(0);
    }
    /* what the unprivileged uid may not reach: opened first */
    char why[300];
    const bool two = plan->vs_path && vs != WR_VS_JUDGED_ONLY;
    int fd = -1, vfd = -1, e = wk_open(plan->so_path, &fd);
    if (!e && two) e = wk_open(plan->vs_path, &vfd);
#ifdef HARNESS_KERNELS
    dlopen(HARNESS_KERNELS, RTLD_NOW | RTLD_LOCAL); /* device.c's later dlopen finds it by name */
#endif
    /* stdout is the output pipe now: line-buffered as on a terminal, so a line printed before a
     * crash still arrives */
    setvbuf(stdout, NULL, _IOLBF, 0);
    sb_state sb;
    bool confined = sb_enter(&sb);
    wr_msg *m = &x->beat; /* sent before anything of the solution's ran: the parent trusts it */
    memset(m, 0, sizeof(*m));
    m->kind = confined ? WR_SANDBOX : WR_FATAL;
    m->index = -1;
    m->dropped = sb.dropped;
    m->filtered = sb.filtered;
    snprintf(m->detail, sizeof(m->detail), "%s", sb.note);
    wk_send(x, m);
    if (!confined) _exit(0);
    /* the harness gone, this process goes too (set after the uid change, which clears it) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(3);
    if (e) {
        snprintf(why, sizeof(why), "cannot open %s: %s", fd < 0 ? plan->so_path : plan->vs_path,
                 strerror(e));
        wk_send_kind(x, WR_LOAD_FAILED, why);
        _exit(0);
    }
    /* the two objects in the order asked (--vs: each order of first calls loads its first
     * caller first too); the parent is told when the second starts, so a death or hang in its
     * constructors is blamed on its file */
    for (int k = 0; k < (two ? 2 : 1); k++) {
        bool other = two && (k == 0) == (vs == WR_VS_OTHER_FIRST);
        if (k == 1) wk_send_kind(x, WR_LOADED_FIRST, NULL);
        void *so = wk_load(other ? plan->vs_path : plan->so_path, other ? vfd : fd, sb.dropped,
                           why, sizeof(why));
        void *sym = so ? dlsym(so, "solve") : NULL;
        if (!sym) {
            char said[360];
            snprintf(said, sizeof(said), "%s%s", other ? "--vs: " : "", so ? dlerror() : why);
            wk_send_kind(x, so ? WR_NO_SOLVE : WR_LOAD_FAILED, said);
            _exit(0);
        }
        /* POSIX guarantees a dlsym result converts to a function pointer; ISO C has no cast
         * for it. */
        memcpy(other ? &x->solve_vs : &x->solve, &sym, sizeof(sym));
    }
    close(fd);
    if (vfd >= 0) close(vfd);
    wk_send_kind(x, WR_LOADED, NULL);
    if (plan->lookup_only) _exit(0); /* the target's code cannot run here: solve found is all */
    if (!dv_probe(&x->dev)) {
        wk_send_kind(x, WR_NO_DEVICE, x->dev.error);
        _exit(0);
    }
    char err[200];
    if (dv_blas_create(&x->blas, err, sizeof(err))) {
        wk_send_kind(x, WR_FATAL, err);
        _exit(0);
    }
    dv_dev_env_init(&x->denv, x->blas);
    if (plan->timing.baseline && plan->timing.yardstick != RN_YS_CUBLAS && !plan->vs_path) {
        if (dv_lt_create(&x->lt, x->blas, err, sizeof(err))) {
            wk_send_kind(x, WR_FATAL, err);
            _exit(0);
        }
        dv_lt_env_init(plan->timing.yardstick == RN_YS_BOTH ? &x->lenv : &x->denv, x->lt);
    }
    wk_send_kind(x, WR_READY, NULL);

    for (;;) {
        wr_cmd c;
        if (wr_read(cmd_fd, &c, sizeof(c), 1e308) != 1 || c.kind == WR_CMD_QUIT) break;
        memset(&x->msg, 0, sizeof(x->msg));
        x->msg.kind = WR_DONE;
        x->msg.cmd = c.kind;
        x->msg.index = c.index;
        x->msg.nonce = c.nonce;
        bool known = c.index >= 0 && (size_t)c.index < plan->n_items;
        if (c.kind == WR_CMD_RUN && known)
            wk_run(x, c.index, x->solve);
        else if (c.kind == WR_CMD_RUN_VS_FIRST && known && x->solve_vs)
            wk_run(x, c.index, x->solve_vs);
        else if (c.kind == WR_CMD_TIME && c.index == x->index && x->index >= 0)
            wk_time(x);
        else if (c.kind == WR_CMD_RERUN && c.index == x->index && x->index >= 0)
            wk_rerun(x, x->solve);
        else if (c.kind == WR_CMD_RUN_VS && c.index == x->index && x->index >= 0 && x->solve_vs)
            wk_rerun(x, x->solve_vs);
        else
            break; /* a command out of order: the parent is confused or gone */
        wk_send(x, &x->msg);
        if (x->msg.sticky) _exit(0); /* the context is poisoned: the parent starts a new child */
    }
    wk_free_test(x);
    dv_lt_destroy(x->lt);
    dv_blas_destroy(x->blas);
    _exit(0);
}
