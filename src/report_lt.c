/* report_lt.c — what the reports say about the cuBLASLt yardstick: the algorithm it picked for
 * a shape (--baseline lt and both), as text and JSON; and with --baseline both, its columns,
 * lines and footer beside cuBLAS's, which report.c's printers call. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const char *rp_yardstick_name(const rp_report *r)
{
    return r->vs ? r->vs : r->yardstick == RN_YS_LT ? "cuBLASLt" : "cuBLAS";
}

/* An id, or "?" when the library could not say (-1). */
static int rp_lt_id(char *out, size_t len, const char *name, int v)
{
    return v < 0 ? snprintf(out, len, "%s ?", name) : snprintf(out, len, "%s %d", name, v);
}

void rp_lt_describe(const dv_lt_pick *k, bool brief, char *out, size_t len)
{
    if (!k->chosen) {
        snprintf(out, len, "%s", brief ? "" : "no algorithm ran");
        return;
    }
    char a[24], t[24], s[24], c[24];
    rp_lt_id(a, sizeof(a), "algo", k->algo_id);
    rp_lt_id(t, sizeof(t), brief ? "tile" : "tile id", k->tile_id);
    rp_lt_id(s, sizeof(s), brief ? "stages" : "stages id", k->stages_id);
    rp_lt_id(c, sizeof(c), brief ? "cluster" : "cluster id", k->cluster_id);
    double mib = (double)k->workspace_bytes / (1024.0 * 1024.0);
    if (brief)
        snprintf(out, len, "%s %s %s split-K %d ws %.1fM", a, t, s, k->splitk, mib);
    else
        snprintf(out, len,
                 "%s, %s, %s, split-K %d, swizzle %d, %s, workspace %.1f MiB (%lld B); the fastest "
                 "of %d heuristic candidates, %.4fms a call in the trial",
                 a, t, s, k->splitk, k->swizzle, c, mib, k->workspace_bytes, k->candidates,
                 k->trial_ms);
}

void rp_lt_json(FILE *out, const dv_lt_pick *k)
{
    if (!k->chosen) {
        fputs(",\"lt_algo\":null", out);
        return;
    }
    fprintf(out,
            ",\"lt_algo\":{\"algo_id\":%d,\"tile_id\":%d,\"stages_id\":%d,\"splitk\":%d,"
            "\"swizzle\":%d,\"cluster_id\":%d,\"workspace_bytes\":%lld,\"candidates\":%d,"
            "\"trial_ms\":%.6f}",
            k->algo_id, k->tile_id, k->stages_id, k->splitk, k->swizzle, k->cluster_id,
            k->workspace_bytes, k->candidates, k->trial_ms);
}

/* ---- --baseline both: cuBLASLt's columns beside cuBLAS's ---- */

static bool rp_both(const rp_report *r) { return !r->vs && r->yardstick == RN_YS_BOTH; }

/* A passed-or-not shape's time over cuBLASLt's beside it; 0 when either is missing. */
static double rp_alt_ratio(const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    return tm->done && tm->alt_done && tm->alt_median_ms > 0 ? rs_reported_ms(tm) / tm->alt_median_ms : 0;
}

static void rp_alt_num(FILE *out, const char *key, bool have, double v)
{
    fprintf(out, ",\"%s\":", key);
    if (have && isfinite(v)) fprintf(out, "%.9g", v);
    else fputs("null", out);
}

/* cuBLASLt's time for t (its own series with both, the baseline's with lt), 0 when none. */
static double rp_lt_ms(const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (r->yardstick == RN_YS_BOTH) return tm->alt_done ? tm->alt_median_ms : 0;
    return r->yardstick == RN_YS_LT && tm->base_done ? tm->base_median_ms : 0;
}

/* An fp32 problem's cuBLASLt faster than the chip's FP32 (FMA) peak: it cannot be without TF32,
 * which CUBLAS_COMPUTE_32F must never use. */
static bool rp_lt_over_fp32_peak(const rp_report *r, const rs_test *t)
{
    double ms = rp_lt_ms(r, t);
    if (r->vs || r->problem->compute != PB_F32 || ms <= 0 || !r->run || !r->run->device.present)
        return false;
    double peak = dv_peak_flops(&r->run->device, PB_F32);
    return peak > 0 && pb_flops(r->problem, t->v) / (ms * 1e-3) > 1.05 * peak;
}

void rp_lt_cell(const rp_report *r, const rs_test *t, char *out, size_t len)
{
    out[0] = '\0';
    if (r->vs || r->yardstick == RN_YS_CUBLAS) return;
    char pick[160];
    rp_lt_describe(&t->timing.lt, true, pick, sizeof(pick));
    bool over = rp_lt_over_fp32_peak(r, t);
    if (pick[0] || over)
        snprintf(out, len, "  Lt:%s%s%s", pick[0] ? " " : "", pick,
                 over ? " (faster than the FP32 peak: TF32?)" : "");
}

void rp_lt_lines(FILE *out, const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (r->vs || r->yardstick == RN_YS_CUBLAS) return;
    double ms = rs_reported_ms(tm), flops = pb_flops(r->problem, t->v);
    if (rp_both(r) && tm->alt_done)
        fprintf(out, "  cuBLASLt: %.4fms (%.1f TF/s) -> this solution takes %.2f× cuBLASLt's time (%.1f%% of its speed)\n",
                tm->alt_median_ms, flops / (tm->alt_median_ms * 1e-3) * 1e-12, ms / tm->alt_median_ms,
                100.0 * tm->alt_median_ms / ms);
    else if (rp_both(r))
        fprintf(out, "  cuBLASLt: not timed (%s)\n", tm->alt_error);
    if (tm->lt.chosen || tm->base_done || tm->alt_done) {
        char pick[300];
        rp_lt_describe(&tm->lt, false, pick, sizeof(pick));
        fprintf(out, "  yardstick: cublasLtMatmul, %s\n", pick);
    }
    if (rp_lt_over_fp32_peak(r, t))
        fprintf(out, "  warning: cuBLASLt ran faster than the chip's FP32 peak (%.0f TF/s): TF32, "
                     "which CUBLAS_COMPUTE_32F must not use?\n",
                dv_peak_flops(&r->run->device, PB_F32) * 1e-12);
}

void rp_alt_json(FILE *out, const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (!rp_both(r)) return;
    if (!tm->alt_done) {
        fputs(",\"cublaslt\":null", out);
        return;
    }
    double ms = rs_reported_ms(tm);
    fprintf(out,
            ",\"cublaslt\":{\"median_ms\":%.6f,\"min_ms\":%.6f,\"noise_pct\":%.3f,\"runs\":%d,"
            "\"tflops\":%.3f,\"time_ratio\":%.4f",
            tm->alt_median_ms, tm->alt_min_ms, tm->alt_noise_pct, tm->alt_runs,
            pb_flops(r->problem, t->v) / (tm->alt_median_ms * 1e-3) * 1e-12, ms / tm->alt_median_ms);
    rp_lt_json(out, &tm->lt);
    fputc('}', out);
}

void rp_alt_head(FILE *out, const rp_report *r)
{
    if (rp_both(r)) fprintf(out, " %10s %8s", "Lt ms", "× Lt"); /* × is two bytes */
}

void rp_alt_cells(FILE *out, const rp_report *r, const rs_test *t)
{
    if (!rp_both(r)) return;
    if (t->timing.alt_done) fprintf(out, " %10.4f", t->timing.alt_median_ms);
    else fprintf(out, " %10s", "-");
    if (rp_alt_ratio(t) > 0) fprintf(out, " %6.2f×", rp_alt_ratio(t));
    else fprintf(out, " %7s", "-");
}

/* cuBLASLt's ratios over the shapes that passed, and where the worst is. */
static int rp_alt_dist(const rs_run *run, st_ratio_dist *d, size_t *worst_test)
{
    size_t nt = run->n_tests ? run->n_tests : 1;
    double *v = calloc(nt, sizeof(double));
    size_t *at = calloc(nt, sizeof(size_t));
    int n = 0;
    memset(d, 0, sizeof(*d));
    *worst_test = 0;
    for (size_t i = 0; v && at && i < run->n_tests; i++)
        if (run->tests[i].status == RS_SUCCESS && rp_alt_ratio(&run->tests[i]) > 0) {
            at[n] = i;
            v[n++] = rp_alt_ratio(&run->tests[i]);
        }
    if (n) {
        *d = st_ratio_distribution(v, (size_t)n);
        *worst_test = at[d->worst_i];
    }
    free(v);
    free(at);
    return n;
}

void rp_alt_footer(FILE *out, const rp_report *r, const rs_run *run)
{
    st_ratio_dist d;
    size_t w;
    if (!rp_both(r) || !run || run->outcome != RN_OK || !rp_alt_dist(run, &d, &w)) return;
    char worst[48];
    pb_format_size(r->problem, run->tests[w].v, worst, sizeof(worst));
    fprintf(out, "beside cuBLASLt: geometric-mean ratio %.2f× (over %zu passed, timed shapes); worst "
                 "%.2f× at %s; %.0f%% of shapes at or under 1.00×; 90th percentile %.2f×\n",
            d.geomean, d.n, d.worst, worst, 100.0 * d.share_le1, d.p90);
}

void rp_alt_json_shape(FILE *out, const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (!rp_both(r)) return;
    rp_alt_num(out, "cublaslt_ms", tm->alt_done, tm->alt_median_ms);
    rp_alt_num(out, "cublaslt_tflops", tm->alt_done,
               tm->alt_done ? pb_flops(r->problem, t->v) / (tm->alt_median_ms * 1e-3) * 1e-12 : 0);
    rp_alt_num(out, "ratio_lt", rp_alt_ratio(t) > 0, rp_alt_ratio(t));
    rp_lt_json(out, &tm->lt);
}

void rp_alt_json_footer(FILE *out, const rp_report *r, const rs_run *run)
{
    if (!rp_both(r)) return;
    st_ratio_dist d;
    size_t w = 0;
    int n = run && run->outcome == RN_OK ? rp_alt_dist(run, &d, &w) : 0;
    fputs(",\"lt\":{", out);
    fprintf(out, "\"shapes\":%d", n);
    rp_alt_num(out, "geomean_ratio", n > 0, n ? d.geomean : 0);
    rp_alt_num(out, "worst_ratio", n > 0, n ? d.worst : 0);
    fputs(",\"worst_shape\":", out);
    if (n) {
        char worst[48];
        pb_format_size(r->problem, run->tests[w].v, worst, sizeof(worst));
        rp_json_string(out, worst);
    } else {
        fputs("null", out);
    }
    rp_alt_num(out, "share_at_or_under_1", n > 0, n ? d.share_le1 : 0);
    rp_alt_num(out, "p90_ratio", n > 0, n ? d.p90 : 0);
    fputc('}', out);
}
