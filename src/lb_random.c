/* lb_random.c — the leaderboard's random-shapes section (lb_random.h): a stage's run through the
 * judge, then markdown and JSON from the finished runs. */
#include "lb_random.h"

#include <stdlib.h>
#include <string.h>

#include "lb_int.h"
#include "report.h"
#include "stats.h"

static const char *const lr_names[LR_YARDS] = {"cuBLAS", "cuBLASLt"};
static const char *const lr_keys[LR_YARDS] = {"cublas", "cublaslt"};

int lr_yardsticks(const pb_problem *p) { return p->compute == PB_I8 ? 1 : LR_YARDS; }

/* The yardstick's refusal as one line of plain text (it lands in markdown): control characters
 * and the table bar become spaces. */
static void lr_keep_why(char *dst, size_t len, const char *why)
{
    size_t i = 0;
    for (; why[i] && i + 1 < len; i++) {
        unsigned char c = (unsigned char)why[i];
        dst[i] = c < 0x20 || c == 0x7f || c == '|' ? ' ' : (char)c;
    }
    dst[i] = '\0';
}

int lr_run_stage(const jd_options *o, const pb_problem *p, const char *path, const char *stem,
                 lb_sweep_stage *runs, dv_info *dev, bool *have_dev, char *detail, size_t dlen)
{
    int n_yards = lr_yardsticks(p);
    jd_options so = *o;
    so.solution = path;
    so.sweep = true;
    so.shapes = NULL;
    so.random = (sh_random){LR_N, LR_SEED};
    so.topts.yardstick = n_yards > 1 ? RN_YS_BOTH : RN_YS_CUBLAS;
    jd_result r;
    int code = jd_judge(&so, &r);
    snprintf(detail, dlen, "%s", r.detail);
    if (r.ran && r.run.device.present) {
        *dev = r.run.device;
        *have_dev = true;
    }
    for (int y = 0; y < n_yards; y++) {
        lb_sweep_stage *s = &runs[y];
        memset(s, 0, sizeof(*s));
        snprintf(s->stem, sizeof(s->stem), "%s", stem);
        s->status = r.status;
        for (int si = 0; si < LR_N; si++) s->shape_status[si] = r.ran ? RS_NOT_RUN : r.status;
        for (size_t t = 0; r.ran && t < r.run.n_tests && t < LR_N; t++) {
            const rs_timing *tm = &r.run.tests[t].timing;
            s->shape_status[t] = r.run.tests[t].status;
            if (!tm->done) continue;
            s->timed[t] = true;
            s->ms[t] = rs_reported_ms(tm);
            bool have = y ? tm->alt_done : tm->base_done; /* yardstick 1: cuBLASLt's series */
            s->base_ms[t] = have ? (y ? tm->alt_median_ms : tm->base_median_ms) : 0;
            const char *why = y ? tm->alt_error : tm->base_error;
            if (!have && !s->base_why[0] && s->shape_status[t] == RS_SUCCESS)
                lr_keep_why(s->base_why, sizeof(s->base_why), why[0] ? why : "no reason given");
        }
    }
    jd_free(&r);
    return code;
}

/* A passed shape's time over the yardstick's beside it; 0 otherwise (failed, not timed, or no
 * yardstick time). */
static double lr_ratio(const lb_sweep_stage *s, int si)
{
    return s->shape_status[si] == RS_SUCCESS && s->timed[si] && s->base_ms[si] > 0
               ? s->ms[si] / s->base_ms[si]
               : 0;
}

/* A shape that passed and was timed, but beside which the yardstick gave no time (cuBLAS
 * refuses some int8 shapes, for one): no ratio, and not a failure either. */
static bool lr_no_yard(const lb_sweep_stage *s, int si)
{
    return s->shape_status[si] == RS_SUCCESS && s->timed[si] && !(s->base_ms[si] > 0);
}

typedef struct {
    int passed, ratios, no_yard;
    st_ratio_dist d;
    int worst_shape; /* -1: none */
} lr_sum;

static lr_sum lr_summarize(const lb_sweep_stage *s, int n)
{
    double v[PB_MAX_SHAPES] = {0};
    int at[PB_MAX_SHAPES] = {0};
    lr_sum r = {0, 0, 0, {0}, -1};
    for (int si = 0; si < n && si < PB_MAX_SHAPES; si++) {
        r.passed += s->shape_status[si] == RS_SUCCESS;
        r.no_yard += lr_no_yard(s, si);
        if (lr_ratio(s, si) > 0) {
            at[r.ratios] = si;
            v[r.ratios++] = lr_ratio(s, si);
        }
    }
    r.d = st_ratio_distribution(v, (size_t)r.ratios);
    if (r.ratios) r.worst_shape = at[r.d.worst_i];
    return r;
}

static int lr_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One chart: a line per stage, its ratios beside yardstick y sorted best to worst (a failed
 * shape, or one above LR_CAP, at LR_CAP; a shape without a yardstick time left out, so the line
 * ends early). */
static void lr_chart(FILE *f, const lr_table *t, int y)
{
    int n = t->random.n;
    fprintf(f, "```mermaid\nxychart-beta\n    title \"%s, %d random shapes: × %s, sorted (lines:",
            t->problem->name, n, lr_names[y]);
    for (int i = 0; i < t->n_stages; i++)
        fprintf(f, " %.2s%s", t->runs[i * t->n_yards + y].stem, i + 1 < t->n_stages ? "," : ")\"\n");
    fprintf(f, "    x-axis \"shapes, best to worst\" 1 --> %d\n", n);
    fprintf(f, "    y-axis \"× %s (under 1 is faster)\" 0 --> %.1f\n", lr_names[y], LR_CAP);
    for (int i = 0; i < t->n_stages; i++) {
        const lb_sweep_stage *s = &t->runs[i * t->n_yards + y];
        double v[PB_MAX_SHAPES];
        int nv = 0;
        for (int si = 0; si < n; si++) {
            if (lr_no_yard(s, si)) continue;
            double q = lr_ratio(s, si);
            v[nv++] = q > 0 && q < LR_CAP ? q : LR_CAP;
        }
        qsort(v, (size_t)nv, sizeof(double), lr_cmp);
        fprintf(f, "    line [");
        for (int si = 0; si < nv; si++) fprintf(f, "%s%.3f", si ? ", " : "", v[si]);
        fprintf(f, "]\n");
    }
    fprintf(f, "```\n\n");
}

char *lr_section(const lr_table *t)
{
    const pb_problem *p = t->problem;
    int n = t->random.n;
    if (n < 1 || n > PB_MAX_SHAPES || t->n_stages < 1 || t->n_yards < 1 || t->n_yards > LR_YARDS)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    char what[200];
    sh_describe(&t->random, what, sizeof(what));
    fprintf(f, "\n## %s — random shapes\n\n%s\n\n", p->name, t->header);
    fprintf(f, "Regenerated by `%s` from one run; never edited by hand. The same %s, as "
               "`--sweep random:%d:%llu` draws them, for every stage and yardstick. Each stage runs %s's "
               "performance case at each shape, checked against the reference, then %s; %s timed the "
               "same way in the same process, call by call in alternation with it (the first call of "
               "each round rotating)",
            t->command, what, n, (unsigned long long)t->random.seed, p->name, t->timing_note,
            t->n_yards > 1 ? "cuBLAS and cuBLASLt (`--baseline both`: cublasLtMatmul with the fastest "
                             "of its heuristic's top 8 for the shape) are"
                           : "cuBLAS (`--baseline`) is");
    fprintf(f, ". A ratio is the stage's time over the yardstick's beside it (under 1× is faster), "
               "over the shapes that passed and that the yardstick timed too; the worst names its shape; "
               "the 90th percentile is interpolated.\n\n");
    fprintf(f, "| stage | yardstick | passed | geometric mean | worst (its shape) | at or under 1.00× "
               "| 90th percentile |\n|---|---|---:|---:|---|---:|---:|\n");
    for (int i = 0; i < t->n_stages; i++)
        for (int y = 0; y < t->n_yards; y++) {
            const lb_sweep_stage *s = &t->runs[i * t->n_yards + y];
            lr_sum r = lr_summarize(s, n);
            fprintf(f, "| %s | %s | %d/%d |", s->stem, lr_names[y], r.passed, n);
            if (!r.ratios) {
                fprintf(f, " – | – | – | – |\n");
                continue;
            }
            char label[48];
            lb_shape_label(p, t->shapes[r.worst_shape], label, sizeof(label));
            fprintf(f, " %.2f× | %.2f× (%s) | %.0f%% | %.2f× |\n", r.d.geomean, r.d.worst, label,
                    100.0 * r.d.share_le1, r.d.p90);
        }
    fputc('\n', f);
    /* the rows whose numbers leave shapes out: the yardstick gave no time there */
    for (int i = 0; i < t->n_stages; i++)
        for (int y = 0; y < t->n_yards; y++) {
            const lb_sweep_stage *s = &t->runs[i * t->n_yards + y];
            lr_sum r = lr_summarize(s, n);
            if (r.no_yard)
                fprintf(f, "%s beside %s: %d of its %d passed shapes have no %s time (%s); its row is "
                           "over the %d that do.\n\n",
                        s->stem, lr_names[y], r.no_yard, r.passed, lr_names[y],
                        s->base_why[0] ? s->base_why : "no reason given", r.ratios);
        }
    for (int y = 0; y < t->n_yards; y++) lr_chart(f, t, y);
    fprintf(f, "Lines, in order (xychart has no legend):");
    for (int i = 0; i < t->n_stages; i++)
        fprintf(f, " %s%s", t->runs[i * t->n_yards].stem, i + 1 < t->n_stages ? "," : ".");
    fprintf(f, " Each line is one stage's ratios sorted from best to worst: the further right it "
               "stays under 1, the more shapes it wins. A failed shape, or a ratio above %.1f×, "
               "plots at %.1f×; a shape the yardstick gave no time for is left out.\n\n",
            LR_CAP, LR_CAP);
    fprintf(f, "<details><summary>Every shape's ratio</summary>\n\n| shape |");
    for (int i = 0; i < t->n_stages; i++)
        for (int y = 0; y < t->n_yards; y++)
            fprintf(f, " %.2s × %s |", t->runs[i * t->n_yards + y].stem, lr_names[y]);
    fprintf(f, "\n|---|");
    for (int i = 0; i < t->n_stages * t->n_yards; i++) fprintf(f, "---:|");
    fputc('\n', f);
    for (int si = 0; si < n; si++) {
        char label[48];
        lb_shape_label(p, t->shapes[si], label, sizeof(label));
        fprintf(f, "| %s |", label);
        for (int k = 0; k < t->n_stages * t->n_yards; k++) {
            const lb_sweep_stage *s = &t->runs[k];
            if (lr_ratio(s, si) > 0) fprintf(f, " %.2f× |", lr_ratio(s, si));
            else if (lr_no_yard(s, si)) fprintf(f, " – (passed; no %s time) |", lr_names[k % t->n_yards]);
            else fprintf(f, " ✗ %s |", rs_status_name(s->shape_status[si]));
        }
        fputc('\n', f);
    }
    fprintf(f, "\n</details>\n\n");
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ,"key":v or ,"key":null */
static void lr_json_num(FILE *out, const char *key, bool have, double v)
{
    if (have) fprintf(out, ",\"%s\":%.6f", key, v);
    else fprintf(out, ",\"%s\":null", key);
}

void lr_json(FILE *j, const lr_table *t)
{
    const pb_problem *p = t->problem;
    int n = t->random.n < PB_MAX_SHAPES ? t->random.n : PB_MAX_SHAPES;
    fprintf(j, "{\"problem\":\"%s\",\"mode\":\"random\",\"device\":", p->name);
    rp_json_string(j, t->device_name);
    fprintf(j, ",\"commit\":");
    rp_json_string(j, t->commit);
    fprintf(j, ",\"n\":%d,\"seed\":%llu,\"shapes\":[", n, (unsigned long long)t->random.seed);
    for (int si = 0; si < n; si++) {
        fputs(si ? ",{" : "{", j);
        for (int i = 0; i < pb_n_sizes(p); i++)
            fprintf(j, "%s\"%s\":%d", i ? "," : "", pb_scalar(p, pb_size_scalar(p, i))->name,
                    t->shapes[si].v[i]);
        fputc('}', j);
    }
    fprintf(j, "],\"stages\":[");
    for (int i = 0; i < t->n_stages; i++) {
        fprintf(j, "%s{\"stage\":", i ? "," : "");
        rp_json_string(j, t->runs[i * t->n_yards].stem);
        fprintf(j, ",\"yardsticks\":[");
        for (int y = 0; y < t->n_yards; y++) {
            const lb_sweep_stage *s = &t->runs[i * t->n_yards + y];
            lr_sum r = lr_summarize(s, n);
            fprintf(j, "%s{\"yardstick\":\"%s\",\"status\":\"%s\",\"passed\":%d", y ? "," : "",
                    lr_keys[y], rs_status_name(s->status), r.passed);
            lr_json_num(j, "geomean_ratio", r.ratios > 0, r.d.geomean);
            lr_json_num(j, "worst_ratio", r.ratios > 0, r.d.worst);
            fputs(",\"worst_shape\":", j);
            if (r.ratios) {
                char label[48];
                pb_size ws = t->shapes[r.worst_shape];
                size_t u = 0;
                for (int k = 0; k < pb_n_sizes(p) && u < sizeof(label); k++)
                    u += (size_t)snprintf(label + u, sizeof(label) - u, "%s%d", k ? "x" : "", ws.v[k]);
                rp_json_string(j, label);
            } else {
                fputs("null", j);
            }
            lr_json_num(j, "share_at_or_under_1", r.ratios > 0, r.d.share_le1);
            lr_json_num(j, "p90_ratio", r.ratios > 0, r.d.p90);
            fputs(",\"ratios\":[", j);
            for (int si = 0; si < n; si++) {
                if (si) fputc(',', j);
                if (lr_ratio(s, si) > 0) fprintf(j, "%.6f", lr_ratio(s, si));
                else fputs("null", j);
            }
            fprintf(j, "],\"no_yardstick_time\":%d,\"no_yardstick_why\":", r.no_yard);
            if (r.no_yard) rp_json_string(j, s->base_why[0] ? s->base_why : "no reason given");
            else fputs("null", j);
            fputc('}', j);
        }
        fputs("]}", j);
    }
    fputs("]}\n", j);
}
