/* report_sweep.c — --sweep's printers, from a finished run: the table (one row per shape), its
 * footer (passed shapes, the ratios' geometric mean and spread) and the same as JSON. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stats.h"

/* --sweep: one row per shape (every test is a performance case timed beside cuBLAS). */

/* The shape's time over cuBLAS's beside it; 0 when either is missing. */
static double rp_sweep_ratio(const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (tm->vs && t->vs_status != RS_SUCCESS) return 0; /* no ratio against a wrong answer (as --size says) */
    return tm->done && tm->base_done && tm->base_median_ms > 0 ? rs_reported_ms(tm) / tm->base_median_ms : 0;
}

static double rp_tflops(const rp_report *r, const rs_test *t, double ms)
{
    return pb_flops(r->problem, t->v) / (ms * 1e-3) * 1e-12;
}

typedef struct {
    int n, passed, ratios;
    int failed, order_sensitive; /* failed checks; of those, failing only where cuBLAS's own fp32
                                    misses the exact answer too (ck_summary.n_ref_off) */
    double geomean;    /* of the ratios; 0 when no shape has one */
    st_ratio_dist d;   /* their spread */
    size_t worst_test; /* the test of the worst ratio */
    int no_yard;       /* passed, timed shapes the yardstick gave no time beside (it said why) */
    size_t no_yard_test; /* the first of them */
} rp_sweep_totals;

/* A passed, timed shape beside which the yardstick was asked for and gave no time (cuBLAS's
 * int8 GEMM refuses many shapes whose sizes are not multiples of 4): no ratio, nor a failure. */
static bool rp_no_yard(const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    return t->status == RS_SUCCESS && tm->done && !tm->vs && !tm->base_done && tm->base_error[0];
}

static rp_sweep_totals rp_sweep_sum(const rs_run *run)
{
    rp_sweep_totals s;
    memset(&s, 0, sizeof(s));
    if (!run || run->outcome != RN_OK) return s;
    size_t nt = run->n_tests ? run->n_tests : 1;
    double *v = calloc(nt, sizeof(double));
    size_t *at = calloc(nt, sizeof(size_t));
    for (size_t i = 0; i < run->n_tests; i++) {
        const rs_test *t = &run->tests[i];
        s.n++;
        s.passed += t->status == RS_SUCCESS;
        s.failed += t->status == RS_FAILED;
        s.order_sensitive += t->status == RS_FAILED && t->checked && t->check.n_bad > 0 &&
                             t->check.n_ref_off == t->check.n_bad;
        if (rp_no_yard(t) && s.no_yard++ == 0) s.no_yard_test = i;
        double q = rp_sweep_ratio(t);
        /* a shape timed but then failing its check (the timed calls' output, new inputs) counts
         * as failed, never towards the mean: a fast wrong answer must not improve it */
        if (t->status == RS_SUCCESS && q > 0 && v && at) {
            at[s.ratios] = i;
            v[s.ratios++] = q;
        }
    }
    if (v && at) {
        s.d = st_ratio_distribution(v, (size_t)s.ratios);
        s.geomean = s.d.geomean;
        s.worst_test = s.ratios ? at[s.d.worst_i] : 0;
    }
    free(v);
    free(at);
    return s;
}

void rp_sweep_text(FILE *out, const rp_report *r)
{
    const pb_problem *p = r->problem;
    const rs_run *run = r->run;
    fprintf(out, "%s sweep — %s", p->name, r->solution);
    if (r->build && r->build->so_path[0])
        fprintf(out, " (%s, %s)", r->arch, r->build->cached ? "cached build" : "compiled now");
    fputc('\n', out);
    if (run && run->device.present) {
        fputs("device  ", out);
        rp_device_line(out, &run->device);
        fputc('\n', out);
    }
    if (run && run->sandbox[0]) fprintf(out, "sandbox %s\n", run->sandbox);
    if (run && run->outcome == RN_OK) {
        if (r->timing_note)
            fprintf(out, "timed   per shape, %s; %s timed beside it, call by call in alternation "
                         "(the first call of each round rotating)\n",
                    r->timing_note,
                    r->vs || r->yardstick == RN_YS_CUBLAS ? rp_yardstick_name(r)
                    : r->yardstick == RN_YS_LT
                        ? "cuBLASLt (cublasLtMatmul, the fastest of its heuristic's top 8, tried "
                          "per shape before timing)"
                        : "cuBLAS and cuBLASLt (the fastest of its heuristic's top 8, tried per "
                          "shape before timing),");
        if (r->random) {
            char what[200];
            sh_describe(r->random, what, sizeof(what));
            fprintf(out, "shapes  %s\n", what);
        }
        char names[64], head[80];
        pb_size_names(r->problem, names, sizeof(names));
        snprintf(head, sizeof(head), "shape (%s)", names);
        int w = (int)strlen(head) > 16 ? (int)strlen(head) : 16; /* gemm's: 16 */
        fprintf(out, "\n%-*s %10s %8s %10s %7s", w, head, "ms", "TF/s",
                r->vs ? "other ms" : r->yardstick == RN_YS_LT ? "Lt ms" : "cuBLAS ms", "ratio");
        rp_alt_head(out, r);
        fprintf(out, "  %s\n", "status");
        for (size_t i = 0; i < run->n_tests; i++) {
            const rs_test *t = &run->tests[i];
            const rs_timing *tm = &t->timing;
            char shape[48];
            pb_format_size(r->problem, t->v, shape, sizeof(shape));
            fprintf(out, "%-*s ", w, shape);
            if (tm->done)
                fprintf(out, "%10.4f %8.1f ", rs_reported_ms(tm), rp_tflops(r, t, rs_reported_ms(tm)));
            else
                fprintf(out, "%10s %8s ", "-", "-");
            if (tm->base_done) fprintf(out, "%10.4f ", tm->base_median_ms);
            else fprintf(out, "%10s ", "-");
            if (rp_sweep_ratio(t) > 0) fprintf(out, "%6.2f×", rp_sweep_ratio(t));
            else fprintf(out, "%7s", "-");
            rp_alt_cells(out, r, t);
            if (tm->vs && tm->vs_interval)
                fprintf(out, "  [%.3f, %.3f] %s", tm->vs_lo, tm->vs_hi, rp_vs_word(tm->vs_verdict));
            if (tm->vs && tm->vs_order_moves) /* the orders disagree: both said */
                fprintf(out, " (first calls: this file's %.3f×, the other's %.3f×)",
                        tm->vs_order_ratio[0], tm->vs_order_ratio[1]);
            char pick[200];
            rp_lt_cell(r, t, pick, sizeof(pick));
            fprintf(out, "  %s%s%s%s\n", rs_status_name(t->status),
                    tm->escaped ? " (host time: work escaped the default stream)" : "",
                    tm->impossible ? " (faster than the chip's peak: suspect)" : "", pick);
        }
        for (size_t i = 0; i < run->n_tests; i++) { /* why a shape failed, one line each */
            const rs_test *t = &run->tests[i];
            char shape[48];
            pb_format_size(r->problem, t->v, shape, sizeof(shape));
            if (t->status != RS_SUCCESS && t->status != RS_NOT_RUN)
                fprintf(out, "  %s: %s\n", shape, t->detail);
            if (t->timing.vs && t->vs_status != RS_SUCCESS) /* else its ratio's "-" would say nothing */
                fprintf(out, "  %s: the --vs file %s: %s (%s)\n", shape, r->vs, rs_status_name(t->vs_status),
                        t->vs_detail);
        }
        rp_sweep_totals s = rp_sweep_sum(run);
        fprintf(out, "\n%d of %d shapes passed", s.passed, s.n);
        if (s.ratios)
            fprintf(out, "; geometric-mean ratio %.2f× %s's time (over %d passed, timed shapes)", s.geomean,
                    rp_yardstick_name(r), s.ratios);
        fputc('\n', out);
        if (s.ratios) {
            char worst[48];
            pb_format_size(r->problem, run->tests[s.worst_test].v, worst, sizeof(worst));
            fprintf(out, "ratios: worst %.2f× at %s; %.0f%% of shapes at or under 1.00×; 90th "
                         "percentile %.2f×\n",
                    s.d.worst, worst, 100.0 * s.d.share_le1, s.d.p90);
        }
        if (s.no_yard) {
            char at[48]; /* the reason is printable text: the runner cleaned it on receipt */
            const rs_test *t = &run->tests[s.no_yard_test];
            pb_format_size(r->problem, t->v, at, sizeof(at));
            fprintf(out, "no %s time beside %d of the %d passed shapes (the first, %s: %s); the ratios are over "
                         "the %d that have one\n",
                    rp_yardstick_name(r), s.no_yard, s.passed, at, t->timing.base_error, s.ratios);
        }
        if (s.order_sensitive)
            fprintf(out, "order-sensitive: %d of the %d failed shapes fail only where cuBLAS's own fp32 "
                         "misses the exact answer's tolerance too\n",
                    s.order_sensitive, s.failed);
        rp_alt_footer(out, r, run);
    }
    fprintf(out, "Status: %s\n", rs_status_name(r->status));
    if (r->status_detail && *r->status_detail) fprintf(out, "  %s\n", r->status_detail);
}

void rp_sweep_json(FILE *out, const rp_report *r)
{
    const rs_run *run = r->run;
    fputs("{\"mode\":\"sweep\",", out);
    rp_json_ids(out, r);
    rp_json_exit(out, r->exit_code, r->error);
    fprintf(out, ",\"status\":\"%s\",\"detail\":", rs_status_name(r->status));
    rp_json_string(out, r->status_detail ? r->status_detail : "");
    rp_json_device(out, run);
    rp_json_process(out, run);
    fputs(",\"timing_note\":", out);
    rp_json_string(out, r->timing_note ? r->timing_note : "");
    fprintf(out, ",\"yardstick\":\"%s\"",
            r->vs                          ? "vs"
            : r->yardstick == RN_YS_LT     ? "cublaslt"
            : r->yardstick == RN_YS_BOTH   ? "both"
                                           : "cublas");
    if (r->random)
        fprintf(out, ",\"random\":{\"n\":%d,\"seed\":%llu}", r->random->n,
                (unsigned long long)r->random->seed);
    fputs(",\"shapes\":[", out);
    for (size_t i = 0; run && run->outcome == RN_OK && i < run->n_tests; i++) {
        const rs_test *t = &run->tests[i];
        const rs_timing *tm = &t->timing;
        fputs(i ? ",{" : "{", out);
        rp_json_values(out, r->problem, t->v, true);
        fprintf(out, ",\"status\":\"%s\",\"detail\":", rs_status_name(t->status));
        rp_json_string(out, t->detail);
        rp_json_ms(out, "runtime_ms", tm->done, rs_reported_ms(tm));
        rp_json_ms(out, "tflops", tm->done, tm->done ? rp_tflops(r, t, rs_reported_ms(tm)) : 0);
        bool lt = !r->vs && r->yardstick == RN_YS_LT;
        rp_json_ms(out, r->vs ? "other_ms" : lt ? "cublaslt_ms" : "cublas_ms", tm->base_done,
                   tm->base_median_ms);
        if (tm->vs) {
            fprintf(out, ",\"vs_status\":\"%s\",\"vs_detail\":", rs_status_name(t->vs_status));
            rp_json_string(out, t->vs_detail);
            rp_vs_verdict_json(out, tm);
        }
        rp_json_ms(out, lt ? "cublaslt_tflops" : "cublas_tflops", tm->base_done,
                   tm->base_done ? rp_tflops(r, t, tm->base_median_ms) : 0);
        if (lt) rp_lt_json(out, &tm->lt);
        if (rp_no_yard(t)) { /* why the yardstick's time is null */
            fputs(lt ? ",\"cublaslt_error\":" : ",\"cublas_error\":", out);
            rp_json_string(out, tm->base_error);
        }
        rp_alt_json_shape(out, r, t);
        rp_json_ms(out, "ratio", rp_sweep_ratio(t) > 0, rp_sweep_ratio(t));
        fprintf(out, ",\"escaped\":%s,\"impossible\":%s}", tm->escaped ? "true" : "false",
                tm->impossible ? "true" : "false");
    }
    rp_sweep_totals s = rp_sweep_sum(run);
    fprintf(out, "],\"passed\":%d,\"total\":%d", s.passed, s.n);
    rp_json_ms(out, "geomean_ratio", s.ratios > 0, s.geomean);
    rp_json_ms(out, "worst_ratio", s.ratios > 0, s.d.worst);
    fputs(",\"worst_shape\":", out);
    if (s.ratios) {
        char worst[48];
        pb_format_size(r->problem, run->tests[s.worst_test].v, worst, sizeof(worst));
        rp_json_string(out, worst);
    } else {
        fputs("null", out);
    }
    rp_json_ms(out, "share_at_or_under_1", s.ratios > 0, s.d.share_le1);
    rp_json_ms(out, "p90_ratio", s.ratios > 0, s.d.p90);
    fprintf(out, ",\"failed\":%d,\"order_sensitive_failed\":%d,\"no_yardstick\":%d", s.failed, s.order_sensitive,
            s.no_yard);
    rp_alt_json_footer(out, r, run);
    fputs("}\n", out);
}
