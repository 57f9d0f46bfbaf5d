/* leaderboard.c — every stage of a problem through the judge, one markdown section out.
 *
 * The directory is the list: each *.cu under the problem's folder is a stage, in name order.
 * Each stage runs in its own worker processes (jd_judge), so one that fails to compile, crashes
 * or hangs gets its verdict in its row and the run goes on. cuBLAS is timed beside every stage
 * in the same process; its row shows the median of those measurements.
 * Beside it (leaderboard_int.h): --sweep's run (leaderboard_sweep.c), the shapes section's
 * writers (leaderboard_shapes.c), the splice between markers (leaderboard_file.c).
 */
#include "leaderboard.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpus.h"
#include "leaderboard_int.h"
#include "judge.h"
#include "loader.h"
#include "report.h"
#include "stats.h"


void lb_technique(const char *line, char *out, size_t len)
{
    const char *dash = strstr(line, " — ");
    out[0] = '\0';
    if (!dash || len < 8) return;
    const char *t = dash + strlen(" — ");
    size_t n = strcspn(t, "\r\n");
    while (n && t[n - 1] == ' ') n--;
    if (n < len) {
        memcpy(out, t, n);
        out[n] = '\0';
    } else { /* too long for the cell: cut at the last space that leaves room for " …" */
        const char *ell = " …";
        size_t cut = len - 1 - strlen(ell);
        while (cut && t[cut] != ' ') cut--;
        while (cut && t[cut - 1] == ' ') cut--;
        if (!cut) cut = len - 1 - strlen(ell);
        while (cut && ((unsigned char)t[cut] & 0xC0) == 0x80) cut--; /* never inside a UTF-8 character */
        memcpy(out, t, cut);
        memcpy(out + cut, ell, strlen(ell) + 1);
    }
    for (char *p = out; *p; p++)
        if (*p == '|') *p = '/'; /* keep the table intact */
}

static int lb_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stage files of a folder, sorted. */
int lb_find_stages(const char *dir, lb_stage *st, int max)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char *names[LB_MAX_STAGES];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".cu") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), lb_cmp_str);
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0, sizeof(st[i]));
        snprintf(st[i].path, sizeof(st[i].path), "%s/%s", dir, names[i]);
        snprintf(st[i].stem, sizeof(st[i].stem), "%.*s", (int)(strlen(names[i]) - 3), names[i]);
        FILE *f = fopen(st[i].path, "r");
        char line[1024] = "";
        if (f) {
            if (!fgets(line, sizeof(line), f)) line[0] = '\0';
            fclose(f);
        }
        lb_technique(line, st[i].technique, sizeof(st[i].technique));
        free(names[i]);
    }
    return n;
}

static void lb_git_commit(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *p = popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");
    if (!p) return;
    char buf[64] = "";
    if (fgets(buf, sizeof(buf), p)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (*buf) snprintf(out, len, "%s", buf);
    }
    pclose(p);
    p = popen("git status --porcelain -- solutions 2>/dev/null", "r");
    if (!p) return;
    if (fgets(buf, sizeof(buf), p)) strncat(out, " (solutions modified since)", len - strlen(out) - 1);
    pclose(p);
}

/* The commit a section names: the one given (a copy of the tree without .git, the GPU
 * machine's), or git's. */
void lb_commit_label(const char *given, char *out, size_t len)
{
    if (given)
        snprintf(out, len, "%s", given);
    else
        lb_git_commit(out, len);
}

/* The line under a section's title: device, driver, runtime, date, commit. */
void lb_run_header(const dv_info *dev, const char *commit, char *out, size_t len)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    snprintf(out, len, "%s · sm_%d%d · %d SMs · driver %d.%d · CUDA runtime %d.%d · %s · solutions at commit %s",
             dev->name, dev->cc_major, dev->cc_minor, dev->sm_count, dev->driver_version / 1000,
             dev->driver_version % 1000 / 10, dev->runtime_version / 1000,
             dev->runtime_version % 1000 / 10, date, commit);
}

/* path opened for the JSON, or NULL after saying why. */
FILE *lb_open_json(const char *path)
{
    FILE *j = fopen(path, "w");
    if (!j) fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", path, strerror(errno));
    return j;
}

void lb_size_label(const pb_problem *p, const pb_case *c, char *out, size_t len)
{
    pb_size s = pb_case_size(p, c);
    int n = pb_n_sizes(p);
    bool cube = n == 3 && s.v[0] == s.v[1] && s.v[1] == s.v[2];
    if (cube) {
        snprintf(out, len, "%d³", s.v[0]);
        return;
    }
    size_t u = 0;
    out[0] = '\0';
    for (int i = 0; i < n && u < len; i++)
        u += (size_t)snprintf(out + u, len - u, "%s%d", i ? "×" : "", s.v[i]);
}

double lb_tflops(const pb_problem *p, const pb_case *c, double ms)
{
    return pb_flops(p, c->v) / (ms * 1e-3) * 1e-12;
}

/* "M":1024,"N":1024,"K":1024: a case's sizes as JSON members */
void lb_json_sizes(FILE *j, const pb_problem *p, const pb_case *c)
{
    for (int i = 0; i < pb_n_sizes(p); i++) {
        int s = pb_size_scalar(p, i);
        fprintf(j, "%s\"%s\":%d", i ? "," : "", pb_scalar(p, s)->name, (int)c->v[s]);
    }
}

static void lb_usage(FILE *out)
{
    fputs("usage: harness leaderboard [--problem P] [--sizes LIST] [--dir DIR] [--out FILE]\n"
          "                           [--json FILE] [--flush-l2] [--timeout SEC] [--commit REV] [-q]\n"
          "Runs every stage in DIR (default solutions/ for gemm_fp16, solutions/P/ otherwise)\n"
          "with the judge's and extra tests, times each at every size beside cuBLAS, and rewrites\n"
          "P's section of FILE (default leaderboard.md) between its markers, atomically.\n"
          "LIST: comma list of N (N³) or MxNxK; default 1024,4096 for gemm_fp16.\n"
          "REV labels the section (default: git rev-parse HEAD, marked when solutions/ has changes).\n"
          "       harness leaderboard --sweep [--problem P] [--stages LIST] [--dir DIR] [--out FILE]\n"
          "                           [--json FILE] [--max-time SEC] [--min-runs N] [-q]\n"
          "Runs the stages named in LIST (prefixes of stage file names; default 09,10,11,12 for\n"
          "gemm_fp16, the last four stages otherwise) over P's sweep shapes, each beside cuBLAS,\n"
          "and rewrites P's shapes section (markers leaderboard:P-shapes) only.\n"
          "--max-time SEC, --min-runs N: timing per size or shape (default 1 s, 0.5 s with --sweep;\n"
          "30 runs).\n",
          out);
}

static void lb_default_sizes(const pb_problem *p, pb_case *sizes, int *n)
{
    if (p->board_sizes) {
        *n = 0;
        for (size_t i = 0; i < p->n_board_sizes && *n < LB_MAX_SIZES; i++, (*n)++)
            sizes[*n] = pb_perf_case(p, p->board_sizes[i], i, "");
    } else {
        *n = 0;
        for (size_t i = 0; i < p->n_cases[PB_SET_PERFORMANCE] && *n < LB_MAX_SIZES; i++)
            sizes[(*n)++] = p->cases[PB_SET_PERFORMANCE][i];
    }
}

static bool lb_parse_sizes(const pb_problem *p, const char *list, pb_case *sizes, int *n)
{
    pb_size s[LB_MAX_SIZES];
    size_t ns = 0;
    if (!pb_parse_size_list(p, list, s, LB_MAX_SIZES, &ns)) return false;
    for (size_t i = 0; i < ns; i++) sizes[i] = pb_perf_case(p, s[i], i, "");
    *n = (int)ns;
    return true;
}

static int lb_run(const pb_problem *p, const jd_options *o_in, const char *dir, lb_stage *stages,
                  const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
                  const char *commit_opt, bool quiet);

/* Each stage's "judge GPUs": every judge target built at once (gpus.c; cached). */
static void lb_judge_gpus(lb_stage *stages, int n, const jd_options *o, bool quiet)
{
    const char *files[LB_MAX_STAGES];
    char (*names)[64] = calloc((size_t)n, sizeof(*names));
    if (!names) return;
    for (int i = 0; i < n; i++) files[i] = stages[i].path;
    if (!quiet) fprintf(stderr, "compiling %d stages for the judge's GPUs, side by side...\n", n);
    gp_judge_gpus(files, (size_t)n, o->nvcc_flags, o->cache_dir, names);
    for (int i = 0; i < n; i++) snprintf(stages[i].judge_gpus, sizeof(stages[i].judge_gpus), "%s", names[i]);
    free(names);
}


int lb_main(int argc, char **argv)
{
    const char *problem_name = "gemm_fp16", *dir_opt = NULL, *out_path = "leaderboard.md",
               *json_path = NULL, *sizes_opt = NULL, *commit_opt = NULL;
    jd_options o;
    jd_default_options(&o);
    bool quiet = false, sweep = false, max_time_given = false;
    const char *stages_opt = NULL;
    double d;
    enum { L_SWEEP = 512, L_STAGES, L_MAXTIME, L_MINRUNS }; /* the shapes section's */
    enum { L_SIZES = 256, L_DIR, L_OUT, L_JSON, L_FLUSH, L_TIMEOUT, L_COMMIT };
    static const struct option longs[] = {
        {"problem", required_argument, 0, 'p'}, {"sizes", required_argument, 0, L_SIZES},
        {"dir", required_argument, 0, L_DIR},   {"out", required_argument, 0, L_OUT},
        {"json", required_argument, 0, L_JSON}, {"flush-l2", no_argument, 0, L_FLUSH},
        {"timeout", required_argument, 0, L_TIMEOUT}, {"quiet", no_argument, 0, 'q'},
        {"commit", required_argument, 0, L_COMMIT},
        {"sweep", no_argument, 0, L_SWEEP},     {"stages", required_argument, 0, L_STAGES},
        {"max-time", required_argument, 0, L_MAXTIME}, {"min-runs", required_argument, 0, L_MINRUNS},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "p:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'p': problem_name = optarg; break;
        case L_SIZES: sizes_opt = optarg; break;
        case L_DIR: dir_opt = optarg; break;
        case L_OUT: out_path = optarg; break;
        case L_JSON: json_path = optarg; break;
        case L_FLUSH: o.topts.flush_l2 = true; break;
        case L_TIMEOUT: o.timeout_s = atof(optarg) > 0 ? atof(optarg) : 10.0; break;
        case L_COMMIT: commit_opt = optarg; break;
        case L_SWEEP: sweep = true; break;
        case L_STAGES: stages_opt = optarg; break;
        case L_MAXTIME:
            if (!jd_parse_number(optarg, 0.01, 600, &d)) {
                fprintf(stderr, "harness leaderboard: --max-time: expected seconds in 0.01..600, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.max_time_s = d;
            max_time_given = true;
            break;
        case L_MINRUNS:
            if (!jd_parse_number(optarg, 3, 1000, &d)) {
                fprintf(stderr, "harness leaderboard: --min-runs: expected 3..1000, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.min_runs = (int)d;
            break;
        case 'q': quiet = true; break;
        case 'h': lb_usage(stdout); return HX_SUCCESS;
        default:
            fprintf(stderr, "harness leaderboard: unknown option or missing argument (see --help)\n");
            return HX_USAGE;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "harness leaderboard: unexpected argument '%s' (see --help)\n", argv[optind]);
        return HX_USAGE;
    }
    const pb_problem *p = pb_find(problem_name);
    if (!p) {
        fprintf(stderr, "harness leaderboard: unknown problem '%s'\n", problem_name);
        return HX_USAGE;
    }
    if (sweep ? sizes_opt != NULL : stages_opt != NULL) {
        fprintf(stderr, sweep ? "harness leaderboard: --sweep times the problem's sweep shapes: not with --sizes\n"
                              : "harness leaderboard: --stages goes with --sweep (the main section has every stage)\n");
        return HX_USAGE;
    }
    pb_case sizes[LB_MAX_SIZES];
    int n_sizes = 0;
    if (!sizes_opt) {
        lb_default_sizes(p, sizes, &n_sizes);
    } else if (!lb_parse_sizes(p, sizes_opt, sizes, &n_sizes)) {
        fprintf(stderr, "harness leaderboard: --sizes: expected a comma list of N or MxNxK (at most %d), got '%s'\n",
                LB_MAX_SIZES, sizes_opt);
        return HX_USAGE;
    }
    char names[LB_MAX_SIZES][48]; /* sizes[i].name points here: lives as long as sizes */
    for (int i = 0; i < n_sizes; i++) { /* timed cases: the judge's recipe at other sizes */
        char label[40];
        lb_size_label(p, &sizes[i], label, sizeof(label));
        snprintf(names[i], sizeof(names[i]), "performance %s", label);
        sizes[i] = pb_perf_case(p, pb_case_size(p, &sizes[i]), (size_t)i, names[i]);
    }
    char dir[PATH_MAX];
    if (dir_opt)
        snprintf(dir, sizeof(dir), "%s", dir_opt);
    else
        pb_stage_dir(p, dir, sizeof(dir));
    if (sweep) {
        if (!max_time_given) o.topts.max_time_s = 0.5; /* 17 shapes × 4 stages in a few minutes */
        return lb_sweep_run(p, &o, dir, stages_opt, out_path, json_path, commit_opt, quiet);
    }

    lb_stage *stages = calloc(LB_MAX_STAGES, sizeof(lb_stage));
    if (!stages) return HX_INTERNAL;
    int rc = lb_run(p, &o, dir, stages, sizes, n_sizes, out_path, json_path, commit_opt, quiet);
    free(stages);
    return rc;
}

/* Everything after the options: run the stages, write the section (and the JSON). */
static int lb_run(const pb_problem *p, const jd_options *o_in, const char *dir, lb_stage *stages,
                  const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
                  const char *commit_opt, bool quiet)
{
    jd_options o = *o_in;
    int n = lb_find_stages(dir, stages, LB_MAX_STAGES);
    if (n <= 0) {
        fprintf(stderr, "harness leaderboard: no stages (*.cu) in %s\n", dir);
        return HX_BAD_FILE;
    }
    char cache[PATH_MAX];
    jd_cache_dir(cache, sizeof(cache));
    o.cache_dir = cache;
    o.problem = p->name;
    o.quiet = true;
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
    for (int si = 0; si < n_sizes; si++) {
        double v[LB_MAX_STAGES];
        size_t nv = 0;
        for (int i = 0; i < n; i++)
            if (stages[i].timed[si] && stages[i].base_ms[si] > 0) v[nv++] = stages[i].base_ms[si];
        base[si] = nv ? st_summarize(v, nv).median : 0;
    }

    /* the section */
    size_t cap = 1 << 16;
    char *sec = malloc(cap);
    if (!sec) return HX_INTERNAL;
    size_t u = 0;
#define OUT(...) (u += (size_t)snprintf(sec + u, u < cap ? cap - u : 0, __VA_ARGS__))
    char commit[96], header[512], note[400];
    lb_commit_label(commit_opt, commit, sizeof(commit));
    lb_run_header(&dev, commit, header, sizeof(header));
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
        FILE *j = lb_open_json(json_path);
        if (!j) return HX_INTERNAL;
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
        fclose(j);
    }
    if (!quiet) fprintf(stderr, "wrote the %s section of %s\n", p->name, out_path);
    return HX_SUCCESS;
}
