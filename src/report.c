/* report.c — the judge's text format and JSON, from a finished run. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stats.h"

static void rp_case_line(FILE *out, const pb_problem *p, const rs_test *t)
{
    char line[256];
    pb_format_values(p, t->v, line, sizeof(line));
    fputs(line, out);
}

/* The case's scalars as JSON members: "M":16,"N":16,"K":16,"alpha":1,"beta":0 */
static void rp_json_num(FILE *out, double v);
void rp_json_values(FILE *out, const pb_problem *p, const double *v, bool sizes_only)
{
    bool first = true;
    for (int i = 0; i < pb_n_scalars(p); i++) {
        const pb_param *q = pb_scalar(p, i);
        if (sizes_only && !q->size) continue;
        fprintf(out, "%s\"%s\":", first ? "" : ",", q->name);
        if (q->kind == PB_INT) fprintf(out, "%d", (int)v[i]);
        else rp_json_num(out, v[i]);
        first = false;
    }
}

static void rp_failure(FILE *out, const pb_problem *p, const rs_test *t, int width)
{
    fprintf(out, "    %s\n", t->detail);
    if (!t->checked || t->check.n_bad == 0) return;
    const ck_summary *s = &t->check;
    fprintf(out, "    %lld of %lld elements off", (long long)s->n_bad, (long long)s->n_total);
    if (s->n_nonfinite) fprintf(out, " (%lld NaN/Inf)", (long long)s->n_nonfinite);
    fprintf(out, "; max abs err %.4g, max rel err %.4g; allowed |got-exp| <= %g + %g*|exp|\n",
            s->max_abs, s->max_rel, t->atol, t->rtol);
    fprintf(out, "    first mismatches (row, col): got, expected, allowed\n");
    for (int i = 0; i < s->n_shown; i++) {
        fprintf(out, "      (%lld, %lld): %.6g, %.6g, %.4g", (long long)s->shown[i].row,
                (long long)s->shown[i].col,
                s->shown[i].got, s->shown[i].expected, s->shown[i].allowed);
        if (p->alt_reference && isnan(s->shown[i].note)) /* left out: ref alone judged */
            fprintf(out, "  (no %s value)", p->alt_reference);
        else if (p->alt_reference) /* the second reference, which it is not close to either */
            fprintf(out, "  (or %s: %.9g)", p->alt_reference, s->shown[i].note);
        else if (isfinite(s->shown[i].note)) /* what the expected value was rounded from */
            fprintf(out, "  (the reference's fp32 value before rounding: %.9g)", s->shown[i].note);
        fputc('\n', out);
    }
    fprintf(out,
            "    error map (%d×%d cells of %lld×%lld elements; '#' all wrong, '+' some, '.' right):\n",
            s->map_rows, s->map_cols, (long long)s->cell_h, (long long)s->cell_w);
    char buf[CK_MAP_ROWS * (CK_MAP_COLS + 8) + 16];
    fputs(ck_render_map(s, width, buf, sizeof(buf)), out);
}

static void rp_test(FILE *out, const rp_report *r, const rs_test *t)
{
    const pb_problem *ab = r->problem;
    if (t->status == RS_SUCCESS) {
        fprintf(out, "✓ Test passed  %-26s ", t->name);
        rp_case_line(out, ab, t);
        fputc('\n', out);
    } else if (t->status == RS_NOT_RUN) {
        fprintf(out, "- Not run      %-26s ", t->name);
        rp_case_line(out, ab, t);
        fputc('\n', out);
    } else {
        fprintf(out, "✗ Test failed: %-26s ", t->name);
        rp_case_line(out, ab, t);
        fprintf(out, "  [%s]\n", rs_status_name(t->status));
        rp_failure(out, ab, t, r->width);
    }
}

const char *rp_vs_word(int verdict)
{
    return verdict < 0 ? "faster" : verdict > 0 ? "slower" : "no difference beyond the noise";
}

/* --vs: the other file's verdict on this case, its time, the ratio, the interval, the verdict */
static void rp_vs_line(FILE *out, const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    if (t->vs_status != RS_SUCCESS) {
        fprintf(out, "  vs %s: %s on this case (%s): not compared\n", r->vs,
                rs_status_name(t->vs_status), t->vs_detail);
        return;
    }
    if (!tm->base_done) {
        fprintf(out, "  vs %s: not timed (%s)\n", r->vs, tm->base_error);
        return;
    }
    fprintf(out, "  vs %s: %.4fms (median of %d, noise ±%.1f%%) -> this file takes %.3f× its time",
            r->vs, tm->base_median_ms, tm->base_runs, tm->base_noise_pct,
            tm->median_ms / tm->base_median_ms);
    if (tm->vs_interval)
        fprintf(out, ", 95%% interval [%.3f, %.3f]: %s\n", tm->vs_lo, tm->vs_hi,
                rp_vs_word(tm->vs_verdict));
    else
        fputs("\n", out);
    if (tm->vs_orders == 2)
        fprintf(out, "    %.3f× with this file's first call first, %.3f× with the other's (each in a "
                "fresh process)%s\n", tm->vs_order_ratio[0], tm->vs_order_ratio[1],
                tm->vs_order_moves ? ": the order moves the ratio beyond the noise (where a file's "
                                     "first allocations land changes its time)" : "");
}

/* --vs in JSON: the ratio's interval and verdict (null when not timed), then the two orders of
 * the files' first calls (null when only one was timed) */
void rp_vs_verdict_json(FILE *out, const rs_timing *tm)
{
    rp_json_ms(out, "interval_lo", tm->vs_interval, tm->vs_lo);
    rp_json_ms(out, "interval_hi", tm->vs_interval, tm->vs_hi);
    fputs(",\"verdict\":", out);
    if (tm->vs_interval) rp_json_string(out, rp_vs_word(tm->vs_verdict));
    else fputs("null", out);
    fputs(",\"orders\":", out);
    if (tm->vs_orders != 2) {
        fputs("null", out);
        return;
    }
    fputs("[", out);
    for (int o = 0; o < 2; o++) {
        fprintf(out, "%s{\"first_call\":\"%s\",\"ratio\":%.6f", o ? "," : "",
                o ? "other" : "this", tm->vs_order_ratio[o]);
        rp_json_ms(out, "interval_lo", tm->vs_order_interval[o], tm->vs_order_lo[o]);
        rp_json_ms(out, "interval_hi", tm->vs_order_interval[o], tm->vs_order_hi[o]);
        fputc('}', out);
    }
    fprintf(out, "],\"order_moves_ratio\":%s", tm->vs_order_moves ? "true" : "false");
}

static void rp_timing(FILE *out, const rp_report *r, const rs_test *t)
{
    const rs_timing *tm = &t->timing;
    double flops = pb_flops(r->problem, t->v);
    double ms = rs_reported_ms(tm);
    fprintf(out, "\nPerformance  %s  ", t->name);
    rp_case_line(out, r->problem, t);
    fprintf(out, "\nRuntime: %.4fms\n", ms);
    fprintf(out, "  median of %d calls after %d warm-up (min %.4fms, noise ±%.1f%%), %.1f TF/s\n",
            tm->n_runs, tm->warmup, tm->min_ms, tm->noise_pct, flops / (ms * 1e-3) * 1e-12);
    if (tm->vs)
        rp_vs_line(out, r, t);
    else if (tm->base_done)
        fprintf(out, "  %s: %.4fms (%.1f TF/s) -> this solution takes %.2f× %s's time (%.1f%% of its speed)\n",
                rp_yardstick_name(r), tm->base_median_ms, flops / (tm->base_median_ms * 1e-3) * 1e-12,
                ms / tm->base_median_ms, rp_yardstick_name(r), 100.0 * tm->base_median_ms / ms);
    else if (tm->base_error[0])
        fprintf(out, "  %s: not timed (%s)\n", rp_yardstick_name(r), tm->base_error);
    rp_lt_lines(out, r, t);
    if (tm->escaped)
        fprintf(out, "  warning: host time (%.4fms) far above the events' (%.4fms): work escaped the "
                     "default stream; the host time is reported\n",
                tm->host_median_ms, tm->median_ms);
    if (tm->impossible)
        fprintf(out, "  warning: faster than the chip's peak (%.0f TF/s): suspect the result\n",
                tm->peak_tflops);
    if (tm->unaccounted)
        fprintf(out, "  warning: the harness's own clock saw %.3fms a call beyond the times the "
                     "solution's process reported: a busy machine, or times that cannot be "
                     "trusted\n",
                tm->overhead_ms);
    if (r->timing_note) fprintf(out, "  %s\n", r->timing_note);
}

/* "NAME · sm_XY · N SMs · driver A.B · runtime C.D", no newline: the text reports' device. */
void rp_device_line(FILE *out, const dv_info *d)
{
    fprintf(out, "%s · sm_%d%d · %d SMs · driver %d.%d · runtime %d.%d", d->name, d->cc_major,
            d->cc_minor, d->sm_count, d->driver_version / 1000, d->driver_version % 1000 / 10,
            d->runtime_version / 1000, d->runtime_version % 1000 / 10);
}

void rp_text(FILE *out, const rp_report *r)
{
    const pb_problem *p = r->problem;
    fprintf(out, "%s — %s, %s\n", p->name, p->title, p->origin);
    fprintf(out, "solution  %s", r->solution);
    if (r->build && r->build->so_path[0])
        fprintf(out, "  (%s, %s)", r->arch,
                r->build->cached ? "cached build" : "compiled now");
    fputc('\n', out);
    if (r->gpu) /* --gpu: the judge GPU modelled, and what actually ran here */
        fprintf(out, "judge GPU %s (%s)%s%s\n", r->gpu, r->arch, r->ran_as ? "; ran as " : "",
                r->ran_as ? r->ran_as : "");
    const rs_run *run = r->run;
    if (run && run->device.present) {
        fputs("device    ", out);
        rp_device_line(out, &run->device);
        fputc('\n', out);
    }
    if (run && run->sandbox[0]) fprintf(out, "sandbox   %s\n", run->sandbox); /* what did not hold */
    if (run && run->outcome == RN_OK) {
        static const char *const heads[PB_N_SETS] = {"Judge tests", "Judge tests",
                                                     "Extra tests (the harness's own)",
                                                     "Judge tests"};
        /* the judge's tests first (example, functional, performance check), then the extras */
        const pb_set order[] = {PB_SET_EXAMPLE, PB_SET_FUNCTIONAL, PB_SET_PERFORMANCE, PB_SET_EXTRA};
        int shown_judge = 0, shown_extra = 0;
        for (size_t oi = 0; oi < sizeof(order) / sizeof(order[0]); oi++) {
            for (size_t i = 0; i < run->n_tests; i++) {
                const rs_test *t = &run->tests[i];
                if (t->set != order[oi]) continue;
                bool extra = t->set == PB_SET_EXTRA;
                if (extra && !shown_extra++) fprintf(out, "\n%s\n", heads[PB_SET_EXTRA]);
                if (!extra && !shown_judge++) fprintf(out, "\n%s\n", heads[PB_SET_EXAMPLE]);
                rp_test(out, r, t);
            }
        }
        for (size_t i = 0; i < run->n_tests; i++)
            if (run->tests[i].timing.done) rp_timing(out, r, &run->tests[i]);
        /* a test that never ran (a load that failed, an interrupt) is neither passed nor
         * failed: counted apart, so that no summary claims it passed */
        int judge_bad = 0, judge_skipped = 0, extra_passed = 0, extra_skipped = 0, extra_n = 0;
        for (size_t i = 0; i < run->n_tests; i++) {
            const rs_test *t = &run->tests[i];
            bool skipped = t->status == RS_NOT_RUN;
            if (t->set == PB_SET_EXTRA) {
                extra_n++;
                extra_passed += t->status == RS_SUCCESS;
                extra_skipped += skipped;
            } else {
                judge_bad += t->status != RS_SUCCESS && !skipped;
                judge_skipped += skipped;
            }
        }
        fprintf(out, "\nJudge tests: %s",
                judge_bad ? "failed" : judge_skipped ? "none failed" : "passed");
        if (judge_skipped) fprintf(out, ", %d not run", judge_skipped);
        if (extra_n) fprintf(out, "; extra tests: %d of %d passed", extra_passed, extra_n);
        if (extra_skipped) fprintf(out, ", %d not run", extra_skipped);
        fputc('\n', out);
    }
    fprintf(out, "Status: %s\n", rs_status_name(r->status));
    if (r->status_detail && *r->status_detail) fprintf(out, "  %s\n", r->status_detail);
}

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 with *bad set to the bytes
 * one U+FFFD stands for: an invalid byte, or the valid start of a sequence cut short (Unicode's
 * "maximal subpart", as Python and browsers decode). The second byte's range shuts out
 * overlongs, surrogates and code points past U+10FFFF; a NUL is never a continuation. */
static int rp_utf8_len(const unsigned char *s, int *bad)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    int k = 1;
    if (s[1] >= lo && s[1] <= hi)
        for (k = 2; k < n && (s[k] & 0xC0) == 0x80; k++) {}
    if (k == n) return n;
    *bad = k;
    return 0;
}

/* Always valid JSON in UTF-8, whatever the bytes: messages are cut mid-character by the fixed
 * buffers they are formatted into, and file names and arguments need not be UTF-8. */
void rp_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        int bad = 1, n = rp_utf8_len(p, &bad);
        if (n == 0) {
            fputs("\\ufffd", out);
            p += bad;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, out);
            p += n;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
        p++;
    }
    fputc('"', out);
}

/* JSON has no NaN/Inf: print null for them. */
static void rp_json_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.9g", v);
    else
        fputs("null", out);
}

/* A time, or null when it was not taken. */
void rp_json_ms(FILE *out, const char *key, bool have, double v)
{
    fprintf(out, ",\"%s\":", key);
    if (have) rp_json_num(out, v);
    else fputs("null", out);
}

static void rp_json_test(FILE *out, const rp_report *r, const rs_test *t)
{
    fputs("{\"name\":", out);
    rp_json_string(out, t->name);
    fprintf(out, ",\"set\":\"%s\",", pb_set_name(t->set));
    rp_json_values(out, r->problem, t->v, false);
    fprintf(out, ",\"status\":\"%s\",\"detail\":", rs_status_name(t->status));
    rp_json_string(out, t->detail);
    fputs(",\"atol\":", out);
    rp_json_num(out, t->atol);
    fputs(",\"rtol\":", out);
    rp_json_num(out, t->rtol);
    fprintf(out, ",\"wall_ms\":%.3f", t->wall_ms);
    if (t->checked && t->check.n_bad) {
        const ck_summary *s = &t->check;
        fprintf(out, ",\"mismatch\":{\"bad\":%lld,\"total\":%lld,\"nonfinite\":%lld,\"max_abs\":",
                (long long)s->n_bad, (long long)s->n_total, (long long)s->n_nonfinite);
        rp_json_num(out, s->max_abs);
        fputs(",\"max_rel\":", out);
        rp_json_num(out, s->max_rel);
        if (r->problem->alt_reference) {
            fputs(",\"alt_reference\":", out);
            rp_json_string(out, r->problem->alt_reference);
            fprintf(out, ",\"ref_off\":%lld", (long long)s->n_ref_off);
        }
        fputs(",\"first\":[", out);
        for (int i = 0; i < s->n_shown; i++) {
            fprintf(out, "%s{\"row\":%lld,\"col\":%lld,\"got\":", i ? "," : "",
                    (long long)s->shown[i].row, (long long)s->shown[i].col);
            rp_json_num(out, s->shown[i].got);
            fputs(",\"expected\":", out);
            rp_json_num(out, s->shown[i].expected);
            fputs(",\"allowed\":", out);
            rp_json_num(out, s->shown[i].allowed);
            if (r->problem->alt_reference) { /* null when it was left out */
                fputs(",\"alt_expected\":", out);
                rp_json_num(out, s->shown[i].note);
            } else if (isfinite(s->shown[i].note)) {
                fputs(",\"before_rounding\":", out);
                rp_json_num(out, s->shown[i].note);
            }
            fputc('}', out);
        }
        fputs("]}", out);
    }
    const rs_timing *tm = &t->timing;
    if (tm->done) {
        double ms = rs_reported_ms(tm);
        fprintf(out,
                ",\"timing\":{\"runtime_ms\":%.6f,\"median_ms\":%.6f,\"min_ms\":%.6f,\"max_ms\":%.6f,"
                "\"noise_pct\":%.3f,\"runs\":%d,\"warmup\":%d,\"host_median_ms\":%.6f,"
                "\"tflops\":%.3f,\"escaped\":%s,\"impossible\":%s,\"flush_l2\":%s,"
                "\"parent_ms\":%.3f,\"overhead_ms_per_call\":%.4f,\"unaccounted\":%s",
                ms, tm->median_ms, tm->min_ms, tm->max_ms, tm->noise_pct, tm->n_runs, tm->warmup,
                tm->host_median_ms, pb_flops(r->problem, t->v) / (ms * 1e-3) * 1e-12,
                tm->escaped ? "true" : "false", tm->impossible ? "true" : "false",
                tm->flush_l2 ? "true" : "false", tm->parent_ms, tm->overhead_ms,
                tm->unaccounted ? "true" : "false");
        if (tm->vs) {
            fputs(",\"vs\":{\"file\":", out);
            rp_json_string(out, r->vs ? r->vs : "");
            fprintf(out, ",\"status\":\"%s\",\"detail\":", rs_status_name(t->vs_status));
            rp_json_string(out, t->vs_detail);
            rp_json_ms(out, "median_ms", tm->base_done, tm->base_median_ms);
            rp_json_ms(out, "ratio", tm->base_done && tm->base_median_ms > 0,
                       tm->base_median_ms > 0 ? tm->median_ms / tm->base_median_ms : 0);
            rp_vs_verdict_json(out, tm);
            fputc('}', out);
        } else if (tm->base_done) {
            fprintf(out,
                    ",\"%s\":{\"median_ms\":%.6f,\"min_ms\":%.6f,\"noise_pct\":%.3f,\"runs\":%d,"
                    "\"tflops\":%.3f,\"time_ratio\":%.4f",
                    r->yardstick == RN_YS_LT ? "cublaslt" : "cublas", tm->base_median_ms,
                    tm->base_min_ms, tm->base_noise_pct, tm->base_runs,
                    pb_flops(r->problem, t->v) / (tm->base_median_ms * 1e-3) * 1e-12,
                    ms / tm->base_median_ms);
            if (r->yardstick == RN_YS_LT) rp_lt_json(out, &tm->lt);
            fputc('}', out);
        }
        if (!tm->vs) rp_alt_json(out, r, t);
        fputc('}', out);
    }
    fputc('}', out);
}

/* ,"device":{...} when the run found one. */
void rp_json_device(FILE *out, const rs_run *run)
{
    if (!run || !run->device.present) return;
    const dv_info *d = &run->device;
    fputs(",\"device\":{\"name\":", out);
    rp_json_string(out, d->name);
    fprintf(out, ",\"cc\":\"%d.%d\",\"sms\":%d,\"driver\":%d,\"runtime\":%d,\"l2_bytes\":%lld}",
            d->cc_major, d->cc_minor, d->sm_count, d->driver_version, d->runtime_version,
            d->l2_bytes);
}

/* ,"sandbox":{...} once the solution's process said how it is confined; ,"output":{...} when it
 * wrote to stdout/stderr (all of it went to the harness's stderr, up to 64 KiB per test). */
void rp_json_process(FILE *out, const rs_run *run)
{
    if (!run || !run->sandbox_known) return;
    fprintf(out, ",\"sandbox\":{\"unprivileged\":%s,\"filter\":%s,\"note\":",
            run->sandbox_dropped ? "true" : "false", run->sandbox_filtered ? "true" : "false");
    rp_json_string(out, run->sandbox);
    fputc('}', out);
    if (!run->output_bytes) return;
    fprintf(out, ",\"output\":{\"bytes\":%zu,\"head\":", run->output_bytes);
    rp_json_string(out, run->output);
    fputc('}', out);
}

/* "problem":..,"solution":..,"arch":.. : what every JSON report starts with. */
void rp_json_ids(FILE *out, const rp_report *r)
{
    fputs("\"problem\":", out);
    rp_json_string(out, r->problem->name);
    fputs(",\"solution\":", out);
    rp_json_string(out, r->solution);
    fputs(",\"arch\":", out);
    rp_json_string(out, r->arch ? r->arch : "");
    if (r->vs) {
        fputs(",\"vs\":", out);
        rp_json_string(out, r->vs);
    }
}

/* ,"exit_code":N,"error":"..." or null: in every JSON the harness prints. */
void rp_json_exit(FILE *out, int exit_code, const char *error)
{
    fprintf(out, ",\"exit_code\":%d,\"error\":", exit_code);
    if (error) rp_json_string(out, error);
    else fputs("null", out);
}

void rp_json_error(FILE *out, const char *solution, int exit_code, const char *error)
{
    fputs("{\"solution\":", out);
    if (solution) rp_json_string(out, solution);
    else fputs("null", out);
    rp_json_exit(out, exit_code, error);
    fputs("}\n", out);
}

void rp_json(FILE *out, const rp_report *r)
{
    fputc('{', out);
    rp_json_ids(out, r);
    rp_json_exit(out, r->exit_code, r->error);
    if (r->gpu) {
        fputs(",\"gpu\":", out);
        rp_json_string(out, r->gpu);
        fputs(",\"ran_as\":", out);
        if (r->ran_as)
            rp_json_string(out, r->ran_as);
        else
            fputs("null", out);
    }
    if (r->build) {
        fprintf(out, ",\"build\":{\"cached\":%s,\"seconds\":%.3f,\"object\":",
                r->build->cached ? "true" : "false", r->build->seconds);
        rp_json_string(out, r->build->so_path);
        fputs(",\"command\":", out);
        rp_json_string(out, r->build->command);
        fputc('}', out);
    }
    fprintf(out, ",\"status\":\"%s\",\"detail\":", rs_status_name(r->status));
    rp_json_string(out, r->status_detail ? r->status_detail : "");
    const rs_run *run = r->run;
    rp_json_device(out, run);
    rp_json_process(out, run);
    fputs(",\"tests\":[", out);
    if (run)
        for (size_t i = 0; i < run->n_tests; i++) {
            if (i) fputc(',', out);
            rp_json_test(out, r, &run->tests[i]);
        }
    fputs("]}\n", out);
}
