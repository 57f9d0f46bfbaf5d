/* lb_stages.c — the stages section: every stage at the leaderboard's sizes beside cuBLAS, the
 * judge GPUs column, then the table, its charts and the JSON. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpus.h"
#include "lb_int.h"
#include "report.h"
#include "stats.h"

/* Each stage's "judge GPUs": every judge target built at once (gpus.c; cached). */
static void lb_judge_gpus(lb_stage *stages, int n, const jd_options *o, bool quiet)
{
    const char **files = calloc((size_t)n, sizeof(*files));
    char (*names)[64] = calloc((size_t)n, sizeof(*names));
    if (!names || !files) {
        free(files);
        free(names);
        return;
    }
    for (int i = 0; i < n; i++) files[i] = stages[i].path;
    if (!quiet) fprintf(stderr, "compiling %d stages for the judge's GPUs, side by side...\n", n);
    gp_judge_gpus(files, (size_t)n, o->nvcc_flags, o->cache_dir, names);
    for (int i = 0; i < n; i++) snprintf(stages[i].judge_gpus, sizeof(stages[i].judge_gpus), "%s", names[i]);
    free(files);
    free(names);
}

/* Everything after the options: run the stages, write the section (and the JSON). */
int lb_run(const pb_problem *p, const jd_options *o_in, lb_stage *stages, int n,
           const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
           const char *commit_opt, bool quiet)
{
    char cache[PATH_MAX];
    jd_options o = lb_stage_options(o_in, p, cache, sizeof(cache));
    o.topts.baseline = true;
    o.override_perf = sizes;
    o.n_override_perf = (size_t)n_sizes;

    dv_info dev = {0};
    bool have_dev = false;
    for (int i = 0; i < n; i++) {
        lb_stage *s = &stages[i];
        if (!quiet) fprintf(stderr, "[%d/%d] %s ...\n", i + 1, n, s->stem);
        o.solution = s->path;
        jd_result r;
        s->exit_code = jd_judge(&o, &r);
        s->status = r.status;
        snprintf(s->detail, sizeof(s->detail), "%s", r.detail);
        if (s->exit_code == HX_NO_DEVICE || s->exit_code == HX_INTERNAL) {
            fprintf(stderr, "harness leaderboard: %s: %s; %s left untouched\n", s->stem, r.detail, out_path);
            jd_free(&r);
            return s->exit_code;
        }
        if (r.ran && r.run.device.present) {
            dev = r.run.device;
            have_dev = true;
        }
        int si = 0; /* performance tests come in the order of sizes[] */
        for (size_t t = 0; r.ran && t < r.run.n_tests; t++) {
            const rs_test *tt = &r.run.tests[t];
            bool pass = tt->status == RS_SUCCESS;
            if (tt->set == PB_SET_EXTRA) {
                s->extra_n++;
                s->extra_pass += pass;
            } else if (tt->set == PB_SET_PERFORMANCE) {
                if (si < n_sizes) {
                    snprintf(s->size_status[si], sizeof(s->size_status[si]), "%s", rs_status_name(tt->status));
                    if (tt->timing.done) {
                        s->timed[si] = true;
                        s->ms[si] = rs_reported_ms(&tt->timing);
                        s->base_ms[si] = tt->timing.base_done ? tt->timing.base_median_ms : 0;
                    }
                }
                si++;
            } else {
                s->judge_n++;
                s->judge_pass += pass;
            }
        }
        if (!quiet) {
            fprintf(stderr, "[%d/%d] %s: %s", i + 1, n, s->stem, rs_status_name(s->status));
            for (int k = 0; k < n_sizes; k++)
                if (s->timed[k]) fprintf(stderr, "  %s %.4f ms", sizes[k].name + 12, s->ms[k]);
            fputc('\n', stderr);
        }
        jd_free(&r);
    }
    if (!have_dev) {
        fprintf(stderr, "harness leaderboard: no stage ran on a device; %s left untouched\n", out_path);
        return HX_NO_DEVICE;
    }
    lb_judge_gpus(stages, n, &o, quiet); /* only for a section that will be written */

    /* cuBLAS: the median of its measurements beside each stage */
    double base[LB_MAX_SIZES] = {0};
    double *v = calloc((size_t)n, sizeof(*v));
    if (!v) return HX_INTERNAL;
    for (int si = 0; si < n_sizes; si++) {
        size_t nv = 0;
        for (int i = 0; i < n; i++)
            if (stages[i].timed[si] && stages[i].base_ms[si] > 0) v[nv++] = stages[i].base_ms[si];
        base[si] = nv ? st_summarize(v, nv).median : 0;
    }
    free(v);

    /* the section */
    size_t cap = 1 << 16;
    char *sec = malloc(cap);
    if (!sec) return HX_INTERNAL;
    size_t u = 0;
#define OUT(...) (u += (size_t)snprintf(sec + u, u < cap ? cap - u : 0, __VA_ARGS__))
    char commit[96], header[4608], note[400];
    char dir[PATH_MAX]; /* the stages' folder: its repository names the commit */
    snprintf(dir, sizeof(dir), "%s", n > 0 ? stages[0].path : ".");
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof(dir), ".");
    lb_commit_label(commit_opt, dir, commit, sizeof(commit));
    lb_run_header(&dev, commit, header, sizeof(header));
    const char *stems[LB_MAX_STAGES];
    int n_stems = 0;
    for (int i = 0; i < n && n_stems < LB_MAX_STAGES; i++) stems[n_stems++] = stages[i].stem;
    lb_measured_note(dir, stems, n_stems, header, sizeof(header));
    jd_timing_note(&o.topts, note, sizeof(note));
    OUT("\n## %s — %s\n\n", p->name, p->title);
    OUT("%s\n\n", header);
    OUT("Regenerated by `./harness leaderboard --problem %s` from one run; never edited by hand. "
        "Each stage %s; cuBLAS (%s) is timed the same way beside each stage in the same process, "
        "call by call in alternation with it, "
        "its row is the median of those, and %% cuBLAS compares each stage with the cuBLAS run "
        "beside it.\n\n",
        p->name, note,
        p->baseline_note ? p->baseline_note : "none yet for this problem");
    OUT("judge GPUs: the judge's GPUs whose target the stage compiles for (T4 sm_75, A100 sm_80, "
        "H100 and H200 sm_90a, B200 sm_100a), from real SASS builds with the harness's recipe; "
        "the times are this GPU's.\n\n");
    OUT("| stage | technique | judge GPUs | judge tests | extra tests |");
    for (int si = 0; si < n_sizes; si++) {
        char label[40];
        lb_size_label(p, &sizes[si], label, sizeof(label));
        OUT(" %s ms | TF/s | %% cuBLAS | vs prev | vs 01 |", label);
    }
    OUT("\n|---|---|---|---|---|");
    for (int si = 0; si < n_sizes; si++) OUT("---:|---:|---:|---:|---:|");
    OUT("\n| cuBLAS | the yardstick | – | – | – |");
    for (int si = 0; si < n_sizes; si++) {
        if (base[si] > 0)
            OUT(" %.4f | %.1f | 100%% | | |", base[si], lb_tflops(p, &sizes[si], base[si]));
        else
            OUT(" – | | | | |");
    }
    OUT("\n");
    for (int i = 0; i < n; i++) {
        const lb_stage *s = &stages[i];
        OUT("| %s | %s |", s->stem, s->technique[0] ? s->technique : "");
        OUT(" %s |", s->judge_gpus[0] ? s->judge_gpus : "none");
        if (s->judge_n)
            OUT(" %d/%d |", s->judge_pass, s->judge_n);
        else
            OUT(" %s |", rs_status_name(s->status));
        if (s->extra_n) OUT(" %d/%d |", s->extra_pass, s->extra_n);
        else OUT(" – |");
        for (int si = 0; si < n_sizes; si++) {
            if (!s->timed[si]) {
                OUT(" %s | | | | |", s->size_status[si][0] ? s->size_status[si] : rs_status_name(s->status));
                continue;
            }
            OUT(" %.4f | %.1f |", s->ms[si], lb_tflops(p, &sizes[si], s->ms[si]));
            if (s->base_ms[si] > 0) OUT(" %.1f%% |", 100.0 * s->base_ms[si] / s->ms[si]);
            else OUT(" – |");
            if (i > 0 && stages[i - 1].timed[si]) OUT(" %.2f× |", stages[i - 1].ms[si] / s->ms[si]);
            else OUT(" – |");
            if (stages[0].timed[si]) OUT(" %.2f× |", stages[0].ms[si] / s->ms[si]);
            else OUT(" – |");
        }
        OUT("\n");
    }
    /* charts: the judge's size (first) and the largest (last) */
    int charts[2] = {0, n_sizes - 1};
    for (int ci = 0; ci < (n_sizes > 1 ? 2 : 1); ci++) {
        int si = charts[ci];
        char label[40];
        lb_size_label(p, &sizes[si], label, sizeof(label));
        double top = base[si] > 0 ? lb_tflops(p, &sizes[si], base[si]) : 0;
        OUT("\n```mermaid\nxychart-beta\n    title \"%s, TF/s at %s on %s (last bar: cuBLAS)\"\n    x-axis [",
            p->name, label, dev.name);
        for (int i = 0; i < n; i++) OUT("%s\"%.2s\"", i ? ", " : "", stages[i].stem);
        OUT(", \"cuBLAS\"]\n    y-axis \"TF/s\"\n    bar [");
        for (int i = 0; i < n; i++) {
            double tf = stages[i].timed[si] ? lb_tflops(p, &sizes[si], stages[i].ms[si]) : 0;
            if (tf > top) top = tf;
            OUT("%s%.1f", i ? ", " : "", tf);
        }
        OUT(", %.1f]\n```\n", base[si] > 0 ? lb_tflops(p, &sizes[si], base[si]) : 0.0);
    }
    OUT("\n");
#undef OUT
    if (u >= cap) {
        fprintf(stderr, "harness leaderboard: section too large\n");
        free(sec);
        return HX_INTERNAL;
    }

    int wrc = lb_write_section(out_path, p->name, sec);
    if (wrc != HX_SUCCESS) return wrc;
    if (json_path) {
        lb_json js;
        if (!lb_json_open(&js, json_path)) return HX_INTERNAL;
        FILE *j = js.f;
        fprintf(j, "{\"problem\":\"%s\",\"device\":", p->name);
        rp_json_string(j, dev.name);
        fprintf(j, ",\"commit\":");
        rp_json_string(j, commit);
        fprintf(j, ",\"sizes\":[");
        for (int si = 0; si < n_sizes; si++)
        {
            fprintf(j, "%s{", si ? "," : "");
            lb_json_sizes(j, p, &sizes[si]);
            fprintf(j, ",\"cublas_ms\":%.6f}", base[si]);
        }
        fprintf(j, "],\"stages\":[");
        for (int i = 0; i < n; i++) {
            const lb_stage *s = &stages[i];
            fprintf(j, "%s{\"stage\":", i ? "," : "");
            rp_json_string(j, s->stem);
            fprintf(j, ",\"technique\":");
            rp_json_string(j, s->technique);
            fprintf(j, ",\"judge_gpus\":");
            rp_json_string(j, s->judge_gpus);
            fprintf(j, ",\"status\":\"%s\",\"judge\":[%d,%d],\"extra\":[%d,%d],\"ms\":[",
                    rs_status_name(s->status), s->judge_pass, s->judge_n, s->extra_pass, s->extra_n);
            for (int si = 0; si < n_sizes; si++) {
                if (s->timed[si]) fprintf(j, "%s%.6f", si ? "," : "", s->ms[si]);
                else fprintf(j, "%snull", si ? "," : "");
            }
            fprintf(j, "],\"cublas_ms\":[");
            for (int si = 0; si < n_sizes; si++) fprintf(j, "%s%.6f", si ? "," : "", s->base_ms[si]);
            fprintf(j, "]}");
        }
        fprintf(j, "]}\n");
        if (lb_json_close(&js) != HX_SUCCESS) return HX_INTERNAL;
    }
    if (!quiet) fprintf(stderr, "wrote the %s section of %s\n", p->name, out_path);
    return HX_SUCCESS;
}
