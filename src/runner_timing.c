/* runner_timing.c — the timing samples the solution's child wrote, copied and checked against
 * the parent's clock, then summarised (with cuBLAS's, cuBLASLt's and the --vs file's). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner_int.h"
#include "stats.h"
#include "wire.h"

/* cuBLASLt's pick as the solution's child reported it: shown only, so anything out of range
 * is dropped rather than judged (the ids are small enums; the workspace is at most 32 MiB). */
static dv_lt_pick rn_lt_pick(const dv_lt_pick *in)
{
    dv_lt_pick k = *in, none;
    memset(&none, 0, sizeof(none));
    int ids[] = {k.algo_id, k.tile_id, k.stages_id, k.splitk, k.swizzle, k.cluster_id};
    bool ok = k.chosen && k.candidates >= 1 && k.candidates <= 64 && k.workspace_bytes >= 0 &&
              k.workspace_bytes <= (1ll << 30) && isfinite(k.trial_ms) && k.trial_ms >= 0;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) ok = ok && ids[i] >= -1 && ids[i] < 1 << 20;
    return ok ? k : none;
}

/* --baseline both: cuBLASLt's samples (checked with the others), or why it was not timed (its
 * text quoted, never trusted: only NUL-terminated within its field). */
static void rn_alt(rs_timing *tt, double *ev, int n, const char *why)
{
    if (n > 0) {
        st_summary s = st_summarize(ev, (size_t)n);
        tt->alt_done = true;
        tt->alt_runs = n;
        tt->alt_median_ms = s.median;
        tt->alt_min_ms = s.min;
        tt->alt_noise_pct = s.noise_pct;
    } else {
        snprintf(tt->alt_error, sizeof(tt->alt_error), "%.*s", (int)sizeof(tt->alt_error) - 1,
                 why[0] ? why : "cuBLASLt was not timed");
    }
}

/* --vs's verdict on an interval of this file's time over the other's: a difference under 3% is
 * not called. The interval holds the samples' noise only, and byte-identical copies of a file
 * that allocates its own workspace still read 0.99–1.02× with both orders timed (runs 189–190:
 * what the two processes' memory did, not the code). */
static int rn_vs_verdict(bool have, double lo, double hi)
{
    return !have ? 0 : hi < 0.97 ? -1 : lo > 1.03 ? 1 : 0;
}

/* Samples as the child wrote them, copied here and checked: finite, non-negative, an event
 * interval inside the host interval around it, all of them inside the parent's clock. */
bool rn_timing(rn_ctx *x, const wr_layout *l, size_t i, const wr_msg *m, double parent_ms,
                      rs_test *t)
{
    const rn_plan *plan = x->plan;
    const pb_problem *p = plan->problem;
    size_t max = (size_t)plan->timing.max_runs;
    memcpy(x->samples, x->sol + l->sol_samples, WR_SAMPLE_SERIES * max * sizeof(double));
    double *ser[WR_SAMPLE_SERIES];
    for (int s = 0; s < WR_SAMPLE_SERIES; s++) ser[s] = x->samples + (size_t)s * max;
    int n[3] = {m->n_sol, m->n_base, plan->timing.yardstick == RN_YS_BOTH ? m->n_alt : 0};
    static const char *const what[3] = {"solution", "baseline", "cuBLASLt"};
    double host_sum = 0;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < n[k]; j++) {
            double ev = ser[2 * k][j], host = ser[2 * k + 1][j];
            bool ok = isfinite(ev) && isfinite(host) && ev >= 0 && host >= 0 &&
                      ev <= host * 1.05 + 0.02;
            if (!ok) {
                t->status = RS_ERROR;
                snprintf(t->detail, sizeof(t->detail),
                         "impossible timing sample from the solution's process (%s call %d: "
                         "events %.6g ms inside a host interval of %.6g ms)",
                         what[k], j, ev, host);
                return false;
            }
            host_sum += host;
        }
    if (m->n_sol < 1 || host_sum > parent_ms * 1.02 + 1.0) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail),
                 m->n_sol < 1 ? "the timed loop reported no samples"
                              : "impossible timing: the samples add up to %.3f ms, more than the "
                                "%.3f ms the parent's clock saw",
                 host_sum, parent_ms);
        return false;
    }
    rs_timing *tt = &t->timing;
    tt->warmup = plan->timing.warmup;
    tt->flush_l2 = plan->timing.flush_l2;
    if (plan->timing.baseline) {
        if (m->n_base == 0) {
            snprintf(tt->base_error, sizeof(tt->base_error), "%s",
                     m->detail[0] ? m->detail : "cuBLAS was not timed");
        } else {
            st_summary sb = st_summarize(ser[WR_BASE_EV], (size_t)m->n_base);
            tt->base_done = true;
            tt->base_runs = m->n_base;
            tt->base_median_ms = sb.median;
            tt->base_min_ms = sb.min;
            tt->base_noise_pct = sb.noise_pct;
        }
        if (plan->timing.yardstick != RN_YS_CUBLAS) tt->lt = rn_lt_pick(&m->lt);
        if (plan->timing.yardstick == RN_YS_BOTH) rn_alt(tt, ser[WR_ALT_EV], n[2], m->alt_detail);
    }
    st_summary bh = {0};
    if (m->n_base) bh = st_summarize(ser[WR_BASE_HOST], (size_t)m->n_base);
    st_summary se = st_summarize(ser[WR_SOL_EV], (size_t)m->n_sol);
    st_summary sh = st_summarize(ser[WR_SOL_HOST], (size_t)m->n_sol);
    tt->done = true;
    tt->n_runs = m->n_sol;
    tt->median_ms = se.median;
    tt->min_ms = se.min;
    tt->max_ms = se.max;
    tt->noise_pct = se.noise_pct;
    tt->host_median_ms = sh.median;
    /* Work on a stream of the solution's own escapes the events but not the synchronize. */
    tt->escaped = sh.median > 1.5 * se.median + 0.05;
    /* What the parent saw per round beyond the host times: restores, syncs, warm-up. A forged
     * small time leaves the real one here. */
    int rounds = m->n_sol + plan->timing.warmup;
    tt->parent_ms = parent_ms;
    tt->overhead_ms = (parent_ms - host_sum) / (rounds > 0 ? rounds : 1);
    st_summary ah = {0};
    if (n[2]) ah = st_summarize(ser[WR_ALT_HOST], (size_t)n[2]);
    tt->unaccounted = tt->overhead_ms > 2.0 &&
                      tt->overhead_ms > 3.0 * (sh.median + (m->n_base ? bh.median : 0) + ah.median);
    tt->vs = plan->vs_path != NULL;
    tt->vs_orders = tt->vs ? 1 : 0;
    if (tt->vs && tt->base_done) {
        tt->vs_interval = st_ratio_interval(ser[WR_SOL_EV], (size_t)m->n_sol, ser[WR_BASE_EV],
                                            (size_t)m->n_base, 1000, &tt->vs_lo, &tt->vs_hi);
        tt->vs_verdict = rn_vs_verdict(tt->vs_interval, tt->vs_lo, tt->vs_hi);
    }
    double peak = dv_peak_flops(&x->run->device, p->compute);
    tt->peak_tflops = peak * 1e-12;
    double best_ms = rs_reported_ms(tt);
    tt->impossible =
        peak > 0 && pb_flops(p, plan->items[i].c.v) / (best_ms * 1e-3) > 1.05 * peak;
    return true;
}

/* --vs: the two orders of the files' first calls weighed alike. Each file's median is the
 * geometric mean of its two orders' medians (so the ratio is the geometric mean of the two
 * orders' ratios), the interval a bootstrap within each order, the spread the larger of the two
 * (the orders' difference is reported as such, not as noise). */
void rn_vs_merge(rs_timing *out, const rs_timing h[2], const double *const sol[2],
                 const double *const other[2])
{
    rs_timing m = h[0];
    m.n_runs = h[0].n_runs + h[1].n_runs;
    m.median_ms = sqrt(h[0].median_ms * h[1].median_ms);
    m.min_ms = fmin(h[0].min_ms, h[1].min_ms);
    m.max_ms = fmax(h[0].max_ms, h[1].max_ms);
    m.noise_pct = fmax(h[0].noise_pct, h[1].noise_pct);
    m.host_median_ms = sqrt(h[0].host_median_ms * h[1].host_median_ms);
    m.escaped = h[0].escaped || h[1].escaped;
    m.parent_ms = h[0].parent_ms + h[1].parent_ms;
    m.overhead_ms = fmax(h[0].overhead_ms, h[1].overhead_ms);
    m.unaccounted = h[0].unaccounted || h[1].unaccounted;
    m.impossible = h[0].impossible || h[1].impossible;
    m.base_done = h[0].base_done && h[1].base_done;
    m.vs_orders = 2;
    m.vs_order_moves = false;
    m.vs_interval = false;
    m.vs_verdict = 0;
    if (!m.base_done) { /* the other file untimed in an order: nothing to compare */
        snprintf(m.base_error, sizeof(m.base_error), "%s",
                 h[0].base_done ? h[1].base_error : h[0].base_error);
        *out = m;
        return;
    }
    m.base_runs = h[0].base_runs + h[1].base_runs;
    m.base_median_ms = sqrt(h[0].base_median_ms * h[1].base_median_ms);
    m.base_min_ms = fmin(h[0].base_min_ms, h[1].base_min_ms);
    m.base_noise_pct = fmax(h[0].base_noise_pct, h[1].base_noise_pct);
    for (int o = 0; o < 2; o++) {
        m.vs_order_ratio[o] = h[o].median_ms / h[o].base_median_ms;
        m.vs_order_interval[o] = h[o].vs_interval;
        m.vs_order_lo[o] = h[o].vs_lo;
        m.vs_order_hi[o] = h[o].vs_hi;
    }
    m.vs_order_moves = h[0].vs_interval && h[1].vs_interval &&
                       (h[0].vs_hi < h[1].vs_lo || h[1].vs_hi < h[0].vs_lo);
    const st_stratum s[2] = {{sol[0], (size_t)h[0].n_runs, other[0], (size_t)h[0].base_runs},
                             {sol[1], (size_t)h[1].n_runs, other[1], (size_t)h[1].base_runs}};
    m.vs_interval = st_ratio_interval_strata(s, 2, 1000, &m.vs_lo, &m.vs_hi);
    m.vs_verdict = rn_vs_verdict(m.vs_interval, m.vs_lo, m.vs_hi);
    *out = m;
}
