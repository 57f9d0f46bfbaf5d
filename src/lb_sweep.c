/* lb_sweep.c — harness leaderboard --sweep: the picked stages over the sweep list and (or) the
 * random shapes, one judge run each, then the sections written (lb_shapes.c, lb_random.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb_int.h"
#include "lb_random.h"
#include "shapes.h"

/* Whether stem starts with one of the comma list's prefixes; marks which prefixes matched. */
static bool lb_stage_picked(const char *stem, const char *list, bool *matched, int max)
{
    bool picked = false;
    int i = 0;
    for (const char *w = list; *w && i < max; i++) {
        size_t n = strcspn(w, ",");
        if (n && strncmp(stem, w, n) == 0) picked = matched[i] = true;
        w += n + (w[n] == ',');
    }
    return picked;
}

int lb_sweep_pick(const pb_problem *p, const lb_stage *found, int n_found, const char *list,
                  int *picked, int *n_picked, bool quiet)
{
    *n_picked = 0;
    if (!list && !p->sweep_stages) { /* the last four: the fastest */
        for (int i = n_found > 4 ? n_found - 4 : 0; i < n_found; i++) picked[(*n_picked)++] = i;
        return HX_SUCCESS;
    }
    bool given = list != NULL;
    if (!given) list = p->sweep_stages;
    int n_words = 1; /* the list's prefixes, each of which must name a stage */
    for (const char *w = list; *w; w++) n_words += *w == ',';
    bool *matched = calloc((size_t)n_words, sizeof(*matched));
    if (!matched) return HX_INTERNAL;
    for (int i = 0; i < n_found; i++)
        if (lb_stage_picked(found[i].stem, list, matched, n_words)) picked[(*n_picked)++] = i;
    int wi = 0;
    for (const char *w = list; given && *w; wi++) {
        size_t n = strcspn(w, ",");
        if (!n || wi >= n_words || !matched[wi]) {
            if (!quiet)
                fprintf(stderr, "harness leaderboard: --stages: no stage file starts with '%.*s'\n", (int)n, w);
            free(matched);
            return HX_USAGE;
        }
        w += n + (w[n] == ',');
    }
    free(matched);
    if (!*n_picked && !quiet) fprintf(stderr, "harness leaderboard: no stage starts with any of %s\n", list);
    return *n_picked ? HX_SUCCESS : HX_USAGE;
}

/* One stage through the judge's --sweep: its verdict and times per shape into s. The judge's
 * exit code. */
static int lb_sweep_stage_run(const jd_options *o, const char *path, int n_shapes, lb_sweep_stage *s,
                              dv_info *dev, bool *have_dev, char *detail, size_t dlen)
{
    jd_options so = *o;
    so.solution = path;
    jd_result r;
    int code = jd_judge(&so, &r);
    s->status = r.status;
    snprintf(detail, dlen, "%s", r.detail);
    for (int si = 0; si < n_shapes; si++) s->shape_status[si] = r.ran ? RS_NOT_RUN : r.status;
    if (r.ran && r.run.device.present) {
        *dev = r.run.device;
        *have_dev = true;
    }
    for (size_t t = 0; r.ran && t < r.run.n_tests && (int)t < n_shapes; t++) {
        const rs_test *tt = &r.run.tests[t];
        s->shape_status[t] = tt->status;
        if (!tt->timing.done) continue;
        s->timed[t] = true;
        s->ms[t] = rs_reported_ms(&tt->timing);
        s->base_ms[t] = tt->timing.base_done ? tt->timing.base_median_ms : 0;
    }
    jd_free(&r);
    return code;
}

/* The random-shapes section (lb_random.c) from the same run: its own markers, and a second JSON
 * line after the shapes section's. An exit code. */
static int lb_random_write(const lr_table *rt, const char *out_path, FILE *j, bool quiet)
{
    char *sec = lr_section(rt);
    if (!sec) return HX_INTERNAL;
    char marker[96];
    snprintf(marker, sizeof(marker), "%s-random", rt->problem->name);
    int rc = lb_write_section(out_path, marker, sec);
    if (rc == HX_SUCCESS && j) lr_json(j, rt);
    if (rc == HX_SUCCESS && !quiet) fprintf(stderr, "wrote the %s section of %s\n", marker, out_path);
    return rc;
}

/* The shapes section and its JSON from a finished sweep run, then the random-shapes section's
 * (rnd: n stages × lr_yardsticks runs). An exit code. */
static int lb_sweep_write(const pb_problem *p, const jd_options *o, const lb_sweep_stage *st, int n,
                          const lb_sweep_stage *rnd, const dv_info *dev, const char *dir,
                          const char *stages_opt, const char *out_path, const char *json_path,
                          const char *commit_opt, bool quiet, unsigned parts)
{
    pb_case shapes[PB_MAX_SHAPES];
    int n_shapes = (int)p->n_sweep;
    for (int si = 0; si < n_shapes; si++) shapes[si] = pb_perf_case(p, p->sweep[si], (size_t)si, "");
    char command[512], commit[96], header[4608], note[400];
    snprintf(command, sizeof(command), "./harness leaderboard --problem %s --sweep%s%s%s", p->name,
             parts == LB_PART_SHAPES ? "=shapes" : parts == LB_PART_RANDOM ? "=random" : "",
             stages_opt ? " --stages " : "", stages_opt ? stages_opt : "");
    lb_commit_label(commit_opt, dir, commit, sizeof(commit));
    lb_run_header(dev, commit, header, sizeof(header));
    const char *stems[LB_MAX_STAGES];
    int n_stems = 0;
    for (int i = 0; i < n && n_stems < LB_MAX_STAGES; i++) stems[n_stems++] = st[i].stem;
    lb_measured_note(dir, stems, n_stems, header, sizeof(header));
    jd_timing_note(&o->topts, note, sizeof(note));
    lb_sweep_table t = {.problem = p, .command = command, .header = header, .timing_note = note,
                        .device_name = dev->name, .commit = commit, .shapes = shapes,
                        .n_shapes = n_shapes, .stages = st, .n_stages = n};
    int rc = HX_SUCCESS;
    if (parts & LB_PART_SHAPES) {
        char *sec = lb_shapes_section(&t);
        if (!sec) return HX_INTERNAL;
        char marker[96];
        snprintf(marker, sizeof(marker), "%s-shapes", p->name);
        rc = lb_write_section(out_path, marker, sec);
        if (rc != HX_SUCCESS) return rc;
        if (!quiet) fprintf(stderr, "wrote the %s section of %s\n", marker, out_path);
    }
    lb_json js = {0};
    if (json_path && !lb_json_open(&js, json_path)) return HX_INTERNAL;
    FILE *j = js.f;
    if (j && (parts & LB_PART_SHAPES)) lb_shapes_json(j, &t);
    if (!(parts & LB_PART_RANDOM)) return lb_json_close(&js);
    pb_size rshapes[LR_N];
    lr_table rt = {.problem = p, .command = command, .header = header, .timing_note = note,
                   .device_name = dev->name, .commit = commit, .random = {LR_N, LR_SEED},
                   .shapes = rshapes, .runs = rnd, .n_stages = n, .n_yards = lr_yardsticks(p)};
    rc = sh_random_shapes(p, &rt.random, rshapes) ? lb_random_write(&rt, out_path, j, quiet) : HX_INTERNAL;
    /* what was written to --out is in the JSON (the shapes line) even when the random part failed */
    int jrc = lb_json_close(&js);
    return rc != HX_SUCCESS ? rc : jrc;
}

int lb_sweep_run(const pb_problem *p, const jd_options *o_in, const char *dir,
                 const char *stages_opt, const char *out_path, const char *json_path,
                 const char *commit_opt, bool quiet, unsigned parts)
{
    int n_shapes = (int)p->n_sweep, n = 0;
    lb_stage *found;
    int n_found = lb_find_stages(dir, &found);
    size_t cap = n_found > 0 ? (size_t)n_found : 1;
    int *picked = calloc(cap, sizeof(*picked));
    lb_sweep_stage *st = calloc(cap, sizeof(lb_sweep_stage));
    int rc = picked && st ? HX_SUCCESS : HX_INTERNAL;
    if (rc == HX_SUCCESS && n_found <= 0) {
        fprintf(stderr, "harness leaderboard: no stages (*.cu) in %s\n", dir);
        rc = HX_BAD_FILE;
    } else if (rc == HX_SUCCESS && n_shapes == 0) {
        fprintf(stderr, "harness leaderboard: %s has no sweep shapes\n", p->name);
        rc = HX_USAGE;
    }
    if (rc == HX_SUCCESS) rc = lb_sweep_pick(p, found, n_found, stages_opt, picked, &n, false);
    /* the random shapes' runs: n stages × the yardsticks */
    int n_yards = lr_yardsticks(p);
    lb_sweep_stage *rnd = calloc((size_t)(n > 0 ? n : 1) * LR_YARDS, sizeof(lb_sweep_stage));
    if (rc == HX_SUCCESS && !rnd) rc = HX_INTERNAL;

    char cache[PATH_MAX];
    jd_options o = lb_stage_options(o_in, p, cache, sizeof(cache));
    o.sweep = true;
    o.progress = !quiet && isatty(STDERR_FILENO);
    dv_info dev = {0};
    bool have_dev = false;
    for (int i = 0; rc == HX_SUCCESS && i < n; i++) {
        const lb_stage *f = &found[picked[i]];
        lb_sweep_stage *s = &st[i];
        snprintf(s->stem, sizeof(s->stem), "%s", f->stem);
        char detail[1024];
        int code;
        if (parts & LB_PART_SHAPES) {
            if (!quiet) fprintf(stderr, "[%d/%d] %s over %d shapes ...\n", i + 1, n, s->stem, n_shapes);
            code = lb_sweep_stage_run(&o, f->path, n_shapes, s, &dev, &have_dev, detail, sizeof(detail));
            if (code == HX_NO_DEVICE || code == HX_INTERNAL) {
                fprintf(stderr, "harness leaderboard: %s: %s; %s left untouched\n", s->stem, detail, out_path);
                rc = code;
                break;
            }
            double gm;
            int passed = lb_sweep_totals(s, n_shapes, &gm);
            if (!quiet)
                fprintf(stderr, "[%d/%d] %s: %s  %d/%d shapes passed, geometric mean %.2f× cuBLAS\n", i + 1,
                        n, s->stem, rs_status_name(s->status), passed, n_shapes, gm);
        }
        if (parts & LB_PART_RANDOM) { /* the random shapes, beside every yardstick in one pass */
            if (!quiet) fprintf(stderr, "[%d/%d] %s over %d random shapes ...\n", i + 1, n, f->stem, LR_N);
            code = lr_run_stage(&o, p, f->path, f->stem, &rnd[i * n_yards], &dev, &have_dev, detail,
                                sizeof(detail));
            if (code == HX_NO_DEVICE || code == HX_INTERNAL || code == HX_USAGE) {
                fprintf(stderr, "harness leaderboard: %s (random shapes): %s; %s left untouched\n",
                        f->stem, detail, out_path);
                rc = code;
            }
        }
    }
    if (rc == HX_SUCCESS && !have_dev) {
        fprintf(stderr, "harness leaderboard: no stage ran on a device; %s left untouched\n", out_path);
        rc = HX_NO_DEVICE;
    }
    if (rc == HX_SUCCESS)
        rc = lb_sweep_write(p, &o, st, n, rnd, &dev, dir, stages_opt, out_path, json_path, commit_opt, quiet,
                            parts);
    free(found);
    free(picked);
    free(st);
    free(rnd);
    return rc;
}
