/* runner_vs.c — a timed case with --vs, in both orders of the two files' first calls.
 *
 * A file's first call allocates what it keeps (a workspace), and where that lands can move its
 * time: two byte-identical copies of one file read 0.81–0.89× (or 1.04–1.07×) each other by
 * which of them called first, whichever was loaded first (run 187, lab/probes/probe_vs_order.cu;
 * which was loaded or timed first in a round moved them by up to 2%: the worker rotates the
 * rounds, and each order loads its first caller first). So the case runs in a fresh solution
 * process for each order, each file checked on its first call there, and the ratio weighs the
 * two orders alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_int.h"

/* A fresh solution process, loading the other file first or not: nothing either file
 * allocated before is left (one that loaded the judged file first and has run nothing yet is
 * fresh already for order 0). */
static rn_outcome rn_vs_fresh(rn_ctx *x, rs_test *t, bool vs_first)
{
    if (!vs_first && x->wk.alive && x->wk_fresh) return RN_OK;
    if (x->wk.alive) rn_child_kill(&x->wk, NULL);
    x->wk_vs_first = vs_first;
    rn_outcome o = rn_worker_up(x, t);
    x->wk_vs_first = false; /* the next start (a later test's) loads the judged file first */
    return o;
}

/* The other file's verdict on its call, kept beside the judged file's. */
static void rn_vs_note(rs_test *t, const rs_test *tb)
{
    t->vs_status = tb->status;
    snprintf(t->vs_detail, sizeof(t->vs_detail), "%s", tb->detail);
}

/* The other file failed to load (rs_run.vs_lost): its verdict on every timed case, not compared. */
static void rn_vs_lost_note(const rn_ctx *x, rs_test *t)
{
    t->vs_status = x->run->vs_lost;
    snprintf(t->vs_detail, sizeof(t->vs_detail), "%s", x->run->vs_lost_detail);
}

/* One command's call (the judged file's into t, the other's into tb), checked. False: the
 * process is gone or t holds a verdict that ends the case. */
static bool rn_vs_call(rn_ctx *x, const wr_layout *l, size_t i, wr_cmd_kind kind, bool other,
                       const char *what, rs_test *t, rs_test *tb)
{
    rs_test *w = other ? tb : t;
    if (!rn_ask_worker(x, kind, (int)i, w, NULL)) {
        if (!other) return false;
        rn_vs_note(t, tb);
        t->status = RS_ERROR; /* the child is gone with both files' state */
        snprintf(t->detail, sizeof(t->detail), "the --vs file: %s", tb->detail);
        return false;
    }
    if (x->m.err) rn_cuda_fail(&x->m, w);
    else rn_check(x, l, w, what);
    if (!other) return t->status == RS_SUCCESS;
    rn_vs_note(t, tb);
    if (x->m.sticky) { /* its error took the context: nothing left to time */
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "the --vs file: %s", tb->detail);
        return false;
    }
    return true;
}

/* The two orders' samples (copies: the next order's timing overwrites x->samples). */
typedef struct {
    double *sol[2], *other[2];
} rn_vs_keep;

static bool rn_vs_save(rn_ctx *x, const rs_timing *h, int o, rn_vs_keep *k)
{
    size_t max = (size_t)x->plan->timing.max_runs;
    k->sol[o] = malloc(((size_t)h->n_runs + 1) * sizeof(double));
    k->other[o] = malloc(((size_t)h->base_runs + 1) * sizeof(double));
    if (!k->sol[o] || !k->other[o]) return false;
    memcpy(k->sol[o], x->samples + (size_t)WR_SOL_EV * max, (size_t)h->n_runs * sizeof(double));
    memcpy(k->other[o], x->samples + (size_t)WR_BASE_EV * max, (size_t)h->base_runs * sizeof(double));
    return true;
}

rn_outcome rn_vs_case(rn_ctx *x, const wr_layout *l, size_t i, rs_test *t, bool *ok)
{
    static const char *const what[2] = {"--vs, this file's first call first: ",
                                        "--vs, the other file's first call first: "};
    *ok = false;
    if (x->run->vs_lost != RS_SUCCESS) { /* the other file is not loaded: this file alone */
        rn_vs_lost_note(x, t);
        *ok = rn_case_alone(x, l, i, t);
        return RN_OK;
    }
    rs_test half[2];
    rn_vs_keep keep = {{NULL, NULL}, {NULL, NULL}};
    int orders = 0;
    rn_outcome out = RN_OK;
    for (int o = 0; o < 2; o++) {
        if ((out = rn_vs_fresh(x, t, o == 1)) != RN_OK || !x->wk.alive) break; /* t holds why */
        if (x->run->vs_lost != RS_SUCCESS) { /* it failed to load just now: this file alone */
            rn_vs_lost_note(x, t);
            if (o == 0) {
                *ok = rn_case_alone(x, l, i, t);
                return RN_OK;
            }
            /* order 0's times stand; this file's first call in the fresh process, checked, gives
             * it the case's buffers for the checks that follow */
            if (rn_ask_worker(x, WR_CMD_RUN, (int)i, t, NULL)) {
                if (x->m.err) rn_cuda_fail(&x->m, t);
                else rn_check(x, l, t, "");
            }
            break;
        }
        rs_test tb = *t;
        tb.status = RS_SUCCESS;
        tb.detail[0] = '\0';
        t->status = RS_SUCCESS;
        bool go = o == 0 ? rn_vs_call(x, l, i, WR_CMD_RUN, false, what[0], t, &tb) &&
                               rn_vs_call(x, l, i, WR_CMD_RUN_VS, true, what[0], t, &tb)
                         : rn_vs_call(x, l, i, WR_CMD_RUN_VS_FIRST, true, what[1], t, &tb) &&
                               rn_vs_call(x, l, i, WR_CMD_RERUN, false, what[1], t, &tb);
        if (!go) break;
        if (o == 1 && tb.status != RS_SUCCESS) break; /* not compared: order 0's times stand */
        double parent_ms = 0;
        if (!rn_ask_worker(x, WR_CMD_TIME, (int)i, t, &parent_ms)) break;
        if (x->m.err) {
            rn_cuda_fail(&x->m, t);
            break;
        }
        wr_msg done = x->m;
        half[o] = *t;
        if (!rn_timing(x, l, i, &done, parent_ms, &half[o])) {
            t->status = half[o].status;
            snprintf(t->detail, sizeof(t->detail), "%s", half[o].detail);
            break;
        }
        if (!rn_vs_save(x, &half[o].timing, o, &keep)) {
            t->status = RS_ERROR;
            snprintf(t->detail, sizeof(t->detail), "harness: out of host memory");
            break;
        }
        orders = o + 1;
        if (tb.status != RS_SUCCESS) break; /* the other file failed: no second order */
    }
    if (orders == 2 && t->status == RS_SUCCESS) {
        const double *sol[2] = {keep.sol[0], keep.sol[1]}, *other[2] = {keep.other[0], keep.other[1]};
        const rs_timing h[2] = {half[0].timing, half[1].timing};
        rn_vs_merge(&t->timing, h, sol, other);
        *ok = true;
    } else if (orders == 1 && t->status == RS_SUCCESS && t->vs_status != RS_SUCCESS) {
        t->timing = half[0].timing; /* timed, not compared: the other file failed */
        t->timing.vs_orders = 1;
        *ok = true;
    }
    for (int o = 0; o < 2; o++) {
        free(keep.sol[o]);
        free(keep.other[o]);
    }
    return out;
}
