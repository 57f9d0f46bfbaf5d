/* runner.c — the parent side: make inputs, drive the oracle and the solution's child, validate
 * what they send, and decide every verdict here (the checks are check.c's host arithmetic). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen.h"
#include "runner_int.h"
#include "stats.h"
#include "wire.h"

double rs_reported_ms(const rs_timing *t) { return t->escaped ? t->host_median_ms : t->median_ms; }

const char *rs_status_name(rs_status s)
{
    static const char *const names[] = {"success",       "test-case-failed", "timeout",
                                        "out-of-memory", "error",            "compile-error",
                                        "not-run",       "compiled-only",    "output-exceeded",
                                        "interrupted"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* A mutable global, as a signal handler needs it (cache.c keeps the compile's own): the SIGINT
 * or SIGTERM that reached the harness (0: none). Set once, never cleared: an interrupted process
 * runs no more tests. */
volatile sig_atomic_t rn_stop_signal;

static void rn_on_stop(int sig)
{
    if (rn_stop_signal) { /* the second one: the default action, at once */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    rn_stop_signal = sig;
}


static void rn_progress(const rn_plan *plan, const rs_test *t, size_t i)
{
    if (!plan->progress) return;
    fprintf(stderr, "  [%zu/%zu] %-28s %s", i + 1, plan->n_items, t->name, rs_status_name(t->status));
    if (t->timing.done) fprintf(stderr, "  %.4f ms", t->timing.median_ms);
    if (t->timing.done && t->timing.base_done && t->timing.base_median_ms > 0) /* --baseline, --sweep */
        fprintf(stderr, "  %.2fx %s", t->timing.median_ms / t->timing.base_median_ms,
                plan->vs_path                              ? "the other file"
                : plan->timing.yardstick == RN_YS_LT ? "cuBLASLt"
                                                     : "cuBLAS");
    fprintf(stderr, "  (%.0f ms)\n", t->wall_ms);
}

static void rn_init_test(const rn_plan *plan, size_t i, rs_test *t)
{
    const pb_case *c = &plan->items[i].c;
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", c->name);
    t->set = plan->items[i].set;
    memcpy(t->v, c->v, sizeof(t->v));
    t->status = RS_NOT_RUN;
    pb_case_tolerance(plan->problem, c, &t->atol, &t->rtol);
}

static const char *rn_at_phrase(wr_at at)
{
    switch (at) {
    case WR_AT_ALLOC: return "allocating the test's buffers";
    case WR_AT_UPLOAD: return "uploading the inputs";
    case WR_AT_LAUNCH:
    case WR_AT_SYNC: return "after solve";
    case WR_AT_READBACK: return "reading the buffers back";
    case WR_AT_TIMING: return "while timing";
    case WR_AT_REFERENCE: return "computing the reference";
    case WR_AT_HOST_MEMORY: return "in host memory";
    case WR_AT_NONE: break;
    }
    return "?";
}

/* The verdict of a CUDA error the solution's child reported. */
void rn_cuda_fail(const wr_msg *m, rs_test *t)
{
    if (m->err < 0) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", m->detail);
        return;
    }
    t->status = dv_error_is_oom(m->err) ? RS_OOM : RS_ERROR;
    snprintf(t->detail, sizeof(t->detail), "CUDA error %s: %s", rn_at_phrase(m->at), m->detail);
}

/* Guard zones, inputs unchanged, the output against the reference: from the bytes read back. */
bool rn_check(rn_ctx *x, const wr_layout *l, rs_test *t, const char *what)
{
    const pb_problem *p = x->plan->problem;
    for (int b = 0; b < l->n_bufs; b++) {
        long long off;
        if (ck_guard_hit(x->sol + l->sol_back[b], l->bytes[b], l->guard, DV_GUARD_BYTE, &off)) {
            const char *n = pb_buf(p, b)->name;
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "wrote outside %s: byte offset %lld from %s's start (%s holds %zu bytes)", n,
                     off, n, n, l->bytes[b]);
            return false;
        }
    }
    for (int b = 0; b < l->n_bufs; b++) {
        const pb_param *q = pb_buf(p, b);
        size_t at;
        if (q->role == PB_IN && ck_first_change(x->sol + l->sol_back[b] + l->guard,
                                                x->orc + l->or_in[b], l->bytes[b], &at)) {
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "input %s was modified (first changed element %zu): solve must not write its "
                     "inputs", q->name, at / pb_type_size(q->type));
            return false;
        }
    }
    const pb_param *o = pb_buf(p, l->out);
    gen_to_float(o->type, x->sol + l->sol_back[l->out] + l->guard, x->outf, l->n_out);
    const float *ref = (const float *)(x->orc + l->or_ref);
    const float *note = (const float *)(x->orc + l->or_note);
    t->checked = true;
    /* 64-bit extents: BATCH·M rows may pass 2^31. fp32: the note is the exact answer, which
     * passes as cuBLAS's does */
    bool ok = p->alt_reference
                  ? ck_compare_alt(x->outf, ref, note, l->rows[l->out], l->cols[l->out], t->atol,
                                   t->rtol, &t->check)
                  : ck_compare_notes(x->outf, ref, note, l->rows[l->out], l->cols[l->out],
                                     t->atol, t->rtol, &t->check);
    if (ok) return true;
    t->status = RS_FAILED;
    bool both = p->alt_reference && !x->ref_remark[0]; /* a remark: the second was left out */
    snprintf(t->detail, sizeof(t->detail), "%s%lld of %lld elements outside tolerance%s%s%s%s",
             what, (long long)t->check.n_bad, (long long)t->check.n_total,
             both ? " of both references (cuBLAS's fp32 and " : "",
             both ? p->alt_reference : "", both ? ")" : "", x->ref_remark[0] ? "; " : "");
    if (x->ref_remark[0]) {
        size_t u = strlen(t->detail);
        snprintf(t->detail + u, sizeof(t->detail) - u, "%s", x->ref_remark);
    } else if (both && t->check.n_ref_off > 0) {
        /* the tolerance is finer than fp32's rounding there: another summation order may miss it */
        size_t u = strlen(t->detail);
        snprintf(t->detail + u, sizeof(t->detail) - u,
                 "; at %lld of them cuBLAS's fp32 misses the %s one too (order-sensitive)",
                 (long long)t->check.n_ref_off, p->alt_reference);
    }
    return false;
}

/* Make the inputs for seed, have the oracle compute their reference, and hand them to the
 * solution's arena. False: t says why. */
static bool rn_inputs(rn_ctx *x, size_t i, const wr_layout *l, uint64_t seed, rs_test *t)
{
    const pb_case *c = &x->plan->items[i].c;
    void *dst[PB_MAX_BUFS];
    for (int b = 0; b < l->n_bufs; b++) dst[b] = x->orc + l->or_in[b];
    gen_inputs(x->plan->problem, c, c->v, seed, dst);
    if (!rn_ask_oracle(x, (int)i, t)) return false;
    for (int b = 0; b < l->n_bufs; b++) memcpy(x->sol + l->sol_in[b], dst[b], l->bytes[b]);
    return true;
}

/* WR_CHECK_SWAPS pairs of the first input's elements swapped in the parent's copy and in the
 * one the solution's child uploads, and their reference computed (wire.h): the timed calls'
 * inputs differed from one another by such swaps only, so a result cached by a sample of the
 * inputs, or by where they lie, is stale here. False: t says why. */
static bool rn_swapped_inputs(rn_ctx *x, size_t i, const wr_layout *l, uint64_t seed, rs_test *t)
{
    const pb_problem *p = x->plan->problem;
    int b = wr_swap_buf(p);
    if (b >= 0) {
        unsigned char *in = x->orc + l->or_in[b];
        size_t es = pb_type_size(pb_buf(p, b)->type), n = es ? l->bytes[b] / es : 0, u, v;
        unsigned char tmp[8];
        for (int k = 0; k < WR_CHECK_SWAPS && es <= sizeof(tmp); k++) {
            if (!wr_swap_pick(in, n, es, seed, (uint64_t)k, &u, &v)) continue;
            memcpy(tmp, in + u * es, es);
            memcpy(in + u * es, in + v * es, es);
            memcpy(in + v * es, tmp, es);
        }
    }
    if (!rn_ask_oracle(x, (int)i, t)) return false;
    for (int c = 0; c < l->n_bufs; c++)
        memcpy(x->sol + l->sol_in[c], x->orc + l->or_in[c], l->bytes[c]);
    return true;
}

/* A case without --vs's other file (runner_int.h). */
bool rn_case_alone(rn_ctx *x, const wr_layout *l, size_t i, rs_test *t)
{
    if (!rn_ask_worker(x, WR_CMD_RUN, (int)i, t, NULL)) return false;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        return false;
    }
    if (!rn_check(x, l, t, "")) return false;
    t->status = RS_SUCCESS;
    if (!x->plan->items[i].timed) return false;
    double parent_ms = 0;
    if (!rn_ask_worker(x, WR_CMD_TIME, (int)i, t, &parent_ms)) return false;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        return false;
    }
    wr_msg done = x->m;
    return rn_timing(x, l, i, &done, parent_ms, t);
}

/* A signal to stop came during the test: whatever it was becoming, it is interrupted (its
 * processes were killed by the harness, not by what they did). */
static void rn_mark_stopped(rs_test *t)
{
    if (!rn_stop_signal) return;
    int sig = rn_stop_signal;
    t->status = RS_INTERRUPTED;
    snprintf(t->detail, sizeof(t->detail), "the harness got SIG%s during this test: stopped, the "
             "later tests not run", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
}

/* One test, start to verdict. RN_OK, or the outcome that ends the run (a child that cannot be
 * started again). */
static rn_outcome rn_test(rn_ctx *x, size_t i)
{
    const rn_plan *plan = x->plan;
    const pb_problem *p = plan->problem;
    const rn_item *it = &plan->items[i];
    rs_test *t = &x->run->tests[i];
    double t0 = wr_now();
    uint64_t seed = wr_case_seed(plan, i);
    wr_layout l;
    if (!wr_layout_for(p, it->c.v, dv_guard_bytes(), plan->timing.max_runs, &l)) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: the case's buffer extents are invalid");
        return RN_OK;
    }
    x->out_bytes = 0; /* the output cap is per test */
    x->out_head[0] = '\0';
    if (!x->wk.alive) {
        rn_outcome o = rn_worker_up(x, t);
        if (o != RN_OK) return o;
        if (!x->wk.alive) goto out; /* t holds why */
    }
    if (!rn_inputs(x, i, &l, seed, t)) goto out;
    if (it->c.expected) { /* the official expected output must agree with the reference (fp32:
                              with one of the two) */
        const float *ref = (const float *)(x->orc + l.or_ref);
        const float *alt = (const float *)(x->orc + l.or_note);
        for (size_t e = 0; e < l.n_out; e++)
            if (!ck_close(ref[e], it->c.expected[e], t->atol, t->rtol) &&
                !(p->alt_reference && ck_close(alt[e], it->c.expected[e], t->atol, t->rtol))) {
                t->status = RS_ERROR;
                snprintf(t->detail, sizeof(t->detail),
                         "harness: the reference disagrees with the official expected output at %zu",
                         e);
                goto out;
            }
    }
    if (it->timed && plan->vs_path) { /* checked and timed in both orders of first calls */
        bool ok = false;
        rn_outcome o = rn_vs_case(x, &l, i, t, &ok);
        if (o != RN_OK) return o;
        if (!ok) goto out;
    } else if (!rn_case_alone(x, &l, i, t)) {
        goto out;
    }
    /* The output of the last timed call must be right too. */
    if (!rn_check(x, &l, t, "output of the timed calls: ")) goto out;
    /* A few elements swapped, as the timed calls' were: a result cached by a sample fails. */
    if (!rn_swapped_inputs(x, i, &l, seed ^ 0x5a5a7157ed5ull, t)) goto out;
    if (!rn_ask_worker(x, WR_CMD_RERUN, (int)i, t, NULL)) goto out;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        goto out;
    }
    char what[96];
    int sb = wr_swap_buf(p);
    snprintf(what, sizeof(what), "%s's elements swapped in pairs (cached result?): ",
             sb >= 0 ? pb_buf(p, sb)->name : "?");
    if (!rn_check(x, &l, t, what)) goto out;
    /* New inputs in the same buffers: a result cached across calls fails here. */
    if (!rn_inputs(x, i, &l, seed ^ 0x5eed5eed5eedull, t)) goto out;
    if (!rn_ask_worker(x, WR_CMD_RERUN, (int)i, t, NULL)) goto out;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        goto out;
    }
    rn_check(x, &l, t, "second input set in the same buffers (cached result?): ");
out:
    rn_mark_stopped(t);
    t->wall_ms = (wr_now() - t0) * 1e3;
    rn_progress(plan, t, i);
    return RN_OK;
}

/* The arenas, sized for the plan's largest test (pages are only backed once touched). */
static bool rn_arenas(rn_ctx *x)
{
    size_t sol = 4096, orc = 4096, out = 1;
    for (size_t i = 0; i < x->plan->n_items; i++) {
        wr_layout l;
        if (!wr_layout_for(x->plan->problem, x->plan->items[i].c.v, dv_guard_bytes(),
                           x->plan->timing.max_runs, &l))
            continue;
        if (l.sol_total > sol) sol = l.sol_total;
        if (l.or_total > orc) orc = l.or_total;
        if (l.n_out > out) out = l.n_out;
    }
    int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE;
    x->sol = mmap(NULL, sol, prot, flags, -1, 0);
    x->orc = mmap(NULL, orc, prot, flags, -1, 0);
    x->sol_bytes = sol;
    x->orc_bytes = orc;
    x->outf = malloc(out * sizeof(float));
    x->samples = malloc((size_t)WR_SAMPLE_SERIES * (size_t)(x->plan->timing.max_runs + 1) *
                        sizeof(double));
    return x->sol != MAP_FAILED && x->orc != MAP_FAILED && x->outf && x->samples;
}

/* The children told to quit and reaped (killed at once after a signal to stop). */
static void rn_release(rn_ctx *x)
{
    rn_child *ch[2] = {&x->wk, &x->oracle};
    for (int i = 0; i < 2; i++) {
        if (!ch[i]->alive) continue;
        if (rn_stop_signal) {
            rn_child_kill(ch[i], NULL);
            continue;
        }
        wr_cmd q = {WR_CMD_QUIT, -1, 0};
        wr_write(ch[i]->cmd_fd, &q, sizeof(q));
        rn_child_reap(ch[i], NULL);
    }
    if (x->sol && x->sol != MAP_FAILED) munmap(x->sol, x->sol_bytes);
    if (x->orc && x->orc != MAP_FAILED) munmap(x->orc, x->orc_bytes);
    free(x->outf);
    free(x->samples);
}

static rn_outcome rn_run_all(const rn_plan *plan, rs_run *run);

rn_outcome rn_run(const rn_plan *plan, rs_run *run)
{
    memset(run, 0, sizeof(*run));
    /* the solution's process runs as this user: keep it from attaching to this one */
    prctl(PR_SET_DUMPABLE, 0);
    /* a command written to a child that died must be an EPIPE to read its exit from, not this
     * process's death */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe, old_int, old_term;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    /* Ctrl-C or a SIGTERM: the children ended, the tests run so far keep their verdicts (the
     * waits poll the flag; SA_RESTART keeps every other call going) */
    struct sigaction stop = {.sa_handler = rn_on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    rn_outcome o = rn_run_all(plan, run);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return o;
}

static rn_outcome rn_run_all(const rn_plan *plan, rs_run *run)
{
    rn_ctx *x = calloc(1, sizeof(*x));
    run->tests = calloc(plan->n_items ? plan->n_items : 1, sizeof(rs_test));
    run->n_tests = plan->n_items;
    if (!x || !run->tests) {
        free(x);
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "out of host memory");
        return run->outcome;
    }
    x->plan = plan;
    x->run = run;
    /* nonces from a random start: a record written ahead of its command cannot guess one */
    if (getrandom(&x->nonce, sizeof(x->nonce), 0) != (ssize_t)sizeof(x->nonce))
        x->nonce = (uint32_t)(wr_now() * 1e6);
    for (size_t i = 0; i < plan->n_items; i++) rn_init_test(plan, i, &run->tests[i]);
    if (!rn_arenas(x)) {
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "cannot map the shared buffers: %s",
                 strerror(errno));
        rn_release(x);
        free(x);
        return run->outcome;
    }
    bool want_oracle = !plan->lookup_only && plan->n_items > 0 && !rn_stop_signal;
    if (want_oracle && !rn_oracle_start(x)) { /* both contexts come up at once */
        run->outcome = RN_INTERNAL;
        rn_release(x);
        free(x);
        return run->outcome;
    }
    rs_test scratch, *first = plan->n_items ? &run->tests[0] : &scratch;
    memset(&scratch, 0, sizeof(scratch));
    double t0 = wr_now();
    rn_outcome o = rn_stop_signal ? RN_OK : rn_worker_up(x, first);
    if (o == RN_OK && x->wk.alive && want_oracle && !rn_oracle_up(x) && !rn_stop_signal)
        o = RN_INTERNAL;
    if (o == RN_OK && (x->halt || rn_stop_signal)) { /* the first test's verdict, before it ran */
        rn_mark_stopped(first);
        first->wall_ms = (wr_now() - t0) * 1e3;
        if (plan->n_items) rn_progress(plan, first, 0);
        if (!plan->n_items && first->status != RS_SUCCESS) { /* nothing to hold it */
            o = RN_INTERNAL;
            snprintf(run->detail, sizeof(run->detail), "%s", first->detail);
        }
    }
    for (size_t i = 0; o == RN_OK && !x->halt && !rn_stop_signal && !plan->lookup_only &&
                       i < plan->n_items;
         i++)
        o = rn_test(x, i);
    run->outcome = o;
    rn_release(x);
    free(x);
    return run->outcome;
}

void rn_free(rs_run *run)
{
    free(run->tests);
    run->tests = NULL;
    run->n_tests = 0;
}

rs_status rn_overall(const rs_run *run)
{
    for (size_t i = 0; i < run->n_tests; i++)
        if (run->tests[i].status == RS_INTERRUPTED) return RS_INTERRUPTED;
    for (size_t i = 0; i < run->n_tests; i++)
        if (run->tests[i].status != RS_SUCCESS && run->tests[i].status != RS_NOT_RUN)
            return run->tests[i].status;
    return RS_SUCCESS;
}
