/* leaderboard.c — every stage of a problem through the judge, one markdown section out.
 *
 * The directory is the list: each *.cu under the problem's folder is a stage, in name order.
 * Each stage runs in its own worker processes (jd_judge), so one that fails to compile, crashes
 * or hangs gets its verdict in its row and the run goes on. cuBLAS is timed beside every stage
 * in the same process; its row shows the median of those measurements.
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

#include "judge.h"
#include "loader.h"
#include "report.h"
#include "stats.h"

#define LB_MAX_STAGES 64
#define LB_MAX_SIZES 4

typedef struct {
    char path[PATH_MAX];
    char stem[128];
    char technique[256];
    int exit_code;
    rs_status status;
    char detail[256];
    int judge_pass, judge_n, extra_pass, extra_n;
    bool timed[LB_MAX_SIZES];
    double ms[LB_MAX_SIZES], base_ms[LB_MAX_SIZES];
    char size_status[LB_MAX_SIZES][32];
} lb_stage;

void lb_technique(const char *line, char *out, size_t len)
{
    const char *dash = strstr(line, " — ");
    out[0] = '\0';
    if (!dash) return;
    snprintf(out, len, "%s", dash + strlen(" — "));
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) out[--n] = '\0';
    for (char *p = out; *p; p++)
        if (*p == '|') *p = '/'; /* keep the table intact */
}

static void lb_markers(const char *problem, char *begin, char *end, size_t len)
{
    snprintf(begin, len, "<!-- leaderboard:%s:begin -->", problem);
    snprintf(end, len, "<!-- leaderboard:%s:end -->", problem);
}

char *lb_splice(const char *old, const char *problem, const char *section)
{
    char begin[128], end[128];
    lb_markers(problem, begin, end, sizeof(begin));
    const char *b = old ? strstr(old, begin) : NULL;
    const char *e = b ? strstr(b, end) : NULL;
    if (b && !e) return NULL;
    size_t need = (old ? strlen(old) : 0) + strlen(section) + strlen(begin) + strlen(end) + 8;
    char *out = malloc(need);
    if (!out) return NULL;
    if (b) {
        size_t head = (size_t)(b - old);
        const char *tail = e + strlen(end);
        snprintf(out, need, "%.*s%s\n%s%s%s", (int)head, old, begin, section, end, tail);
    } else {
        const char *sep = old && *old ? (old[strlen(old) - 1] == '\n' ? "\n" : "\n\n") : "";
        snprintf(out, need, "%s%s%s\n%s%s\n", old ? old : "", sep, begin, section, end);
    }
    return out;
}

int lb_write_atomic(const char *path, const char *text)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    ok = fflush(f) == 0 && ok;
    ok = fsync(fileno(f)) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

static int lb_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stage files of a folder, sorted. */
static int lb_find_stages(const char *dir, lb_stage *st, int max)
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
        char line[512] = "";
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

static void lb_size_label(const pb_case *c, char *out, size_t len)
{
    if (c->m == c->n && c->n == c->k)
        snprintf(out, len, "%d³", c->m);
    else
        snprintf(out, len, "%d×%d×%d", c->m, c->n, c->k);
}

static double lb_tflops(const pb_problem *p, const pb_case *c, double ms)
{
    return pb_flops(p, c) / (ms * 1e-3) * 1e-12;
}

static void lb_usage(FILE *out)
{
    fputs("usage: harness leaderboard [--problem P] [--sizes LIST] [--dir DIR] [--out FILE]\n"
          "                           [--json FILE] [--flush-l2] [--timeout SEC] [--commit REV] [-q]\n"
          "Runs every stage in DIR (default solutions/ for gemm_fp16, solutions/P/ otherwise)\n"
          "with the judge's and extra tests, times each at every size beside cuBLAS, and rewrites\n"
          "P's section of FILE (default leaderboard.md) between its markers, atomically.\n"
          "LIST: comma list of N (N³) or MxNxK; default 1024,4096 for gemm_fp16.\n"
          "REV labels the section (default: git rev-parse HEAD, marked when solutions/ has changes).\n",
          out);
}

static void lb_default_sizes(const pb_problem *p, pb_case *sizes, int *n)
{
    if (strcmp(p->name, "gemm_fp16") == 0) {
        sizes[0] = (pb_case){.m = 1024, .n = 1024, .k = 1024};
        sizes[1] = (pb_case){.m = 4096, .n = 4096, .k = 4096};
        *n = 2;
    } else {
        *n = 0;
        for (size_t i = 0; i < p->n_cases[PB_SET_PERFORMANCE] && *n < LB_MAX_SIZES; i++)
            sizes[(*n)++] = p->cases[PB_SET_PERFORMANCE][i];
    }
}

static bool lb_parse_sizes(const char *list, pb_case *sizes, int *n)
{
    char *copy = strdup(list), *save = NULL;
    *n = 0;
    bool ok = true;
    for (char *w = strtok_r(copy, ",", &save); w && ok; w = strtok_r(NULL, ",", &save)) {
        if (*n >= LB_MAX_SIZES) {
            ok = false;
            break;
        }
        int m, nn, k;
        char *end;
        long v = strtol(w, &end, 10);
        if (*end == '\0' && v > 0 && v <= 16384) {
            m = nn = k = (int)v;
        } else if (!pb_parse_size(w, &m, &nn, &k)) {
            ok = false;
            break;
        }
        sizes[(*n)++] = (pb_case){.m = m, .n = nn, .k = k};
    }
    free(copy);
    return ok && *n > 0;
}

static int lb_run(const pb_problem *p, const jd_options *o_in, const char *dir, lb_stage *stages,
                  const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
                  const char *commit_opt, bool quiet);

int lb_main(int argc, char **argv)
{
    const char *problem_name = "gemm_fp16", *dir_opt = NULL, *out_path = "leaderboard.md",
               *json_path = NULL, *sizes_opt = NULL, *commit_opt = NULL;
    jd_options o;
    jd_default_options(&o);
    bool quiet = false;
    enum { L_SIZES = 256, L_DIR, L_OUT, L_JSON, L_FLUSH, L_TIMEOUT, L_COMMIT };
    static const struct option longs[] = {
        {"problem", required_argument, 0, 'p'}, {"sizes", required_argument, 0, L_SIZES},
        {"dir", required_argument, 0, L_DIR},   {"out", required_argument, 0, L_OUT},
        {"json", required_argument, 0, L_JSON}, {"flush-l2", no_argument, 0, L_FLUSH},
        {"timeout", required_argument, 0, L_TIMEOUT}, {"quiet", no_argument, 0, 'q'},
        {"commit", required_argument, 0, L_COMMIT},
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
    pb_case sizes[LB_MAX_SIZES];
    int n_sizes = 0;
    if (!sizes_opt) {
        lb_default_sizes(p, sizes, &n_sizes);
    } else if (!lb_parse_sizes(sizes_opt, sizes, &n_sizes)) {
        fprintf(stderr, "harness leaderboard: --sizes: expected a comma list of N or MxNxK (at most %d), got '%s'\n",
                LB_MAX_SIZES, sizes_opt);
        return HX_USAGE;
    }
    char names[LB_MAX_SIZES][48]; /* sizes[i].name points here: lives as long as sizes */
    for (int i = 0; i < n_sizes; i++) { /* timed cases: the judge's recipe at other sizes */
        char label[40];
        lb_size_label(&sizes[i], label, sizeof(label));
        snprintf(names[i], sizeof(names[i]), "performance %s", label);
        const pb_case *ref = &p->cases[PB_SET_PERFORMANCE][0];
        pb_case c2 = *ref;
        c2.name = names[i];
        c2.m = sizes[i].m;
        c2.n = sizes[i].n;
        c2.k = sizes[i].k;
        c2.seed = ref->seed + (uint64_t)i;
        sizes[i] = c2;
    }
    char dir[PATH_MAX];
    if (dir_opt)
        snprintf(dir, sizeof(dir), "%s", dir_opt);
    else
        pb_stage_dir(p, dir, sizeof(dir));

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
                        s->ms[si] = tt->timing.escaped ? tt->timing.host_median_ms : tt->timing.median_ms;
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
    char commit[96], date[32], note[400];
    if (commit_opt) /* a copy of the tree without .git (the GPU machine's) names it here */
        snprintf(commit, sizeof(commit), "%s", commit_opt);
    else
        lb_git_commit(commit, sizeof(commit));
    time_t now = time(NULL);
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    jd_timing_note(&o.topts, note, sizeof(note));
    OUT("\n## %s — %s\n\n", p->name, p->title);
    OUT("%s · sm_%d%d · %d SMs · driver %d.%d · CUDA runtime %d.%d · %s · solutions at commit %s\n\n",
        dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, dev.driver_version / 1000,
        dev.driver_version % 1000 / 10, dev.runtime_version / 1000, dev.runtime_version % 1000 / 10,
        date, commit);
    OUT("Regenerated by `./harness leaderboard --problem %s` from one run; never edited by hand. "
        "Each stage %s; cuBLAS (%s) is timed the same way beside each stage in the same process, "
        "call by call in alternation with it, "
        "its row is the median of those, and %% cuBLAS compares each stage with the cuBLAS run "
        "beside it.\n\n",
        p->name, note,
        p->elem == PB_F16 ? "cublasGemmEx, fp16 in and out, fp32 compute" : "cublasSgemm, no TF32");
    OUT("| stage | technique | judge tests | extra tests |");
    for (int si = 0; si < n_sizes; si++) {
        char label[40];
        lb_size_label(&sizes[si], label, sizeof(label));
        OUT(" %s ms | TF/s | %% cuBLAS | vs prev | vs 01 |", label);
    }
    OUT("\n|---|---|---|---|");
    for (int si = 0; si < n_sizes; si++) OUT("---:|---:|---:|---:|---:|");
    OUT("\n| cuBLAS | the yardstick | – | – |");
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
        lb_size_label(&sizes[si], label, sizeof(label));
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

    char *old = ld_read_text(out_path, NULL);
    if (!old) old = strdup("# Leaderboard\n\nEvery stage of each problem, from one real GPU run per "
                           "section. Regenerate with `./harness leaderboard --problem P` (or "
                           "`make leaderboard`).\n");
    char *text = lb_splice(old, p->name, sec);
    free(old);
    free(sec);
    if (!text) {
        fprintf(stderr, "harness leaderboard: %s has a begin marker for %s without its end; left untouched\n",
                out_path, p->name);
        return HX_INTERNAL;
    }
    if (lb_write_atomic(out_path, text) != 0) {
        fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", out_path, strerror(errno));
        free(text);
        return HX_INTERNAL;
    }
    free(text);
    if (json_path) {
        FILE *j = fopen(json_path, "w");
        if (!j) {
            fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", json_path, strerror(errno));
            return HX_INTERNAL;
        }
        fprintf(j, "{\"problem\":\"%s\",\"device\":", p->name);
        rp_json_string(j, dev.name);
        fprintf(j, ",\"commit\":");
        rp_json_string(j, commit);
        fprintf(j, ",\"sizes\":[");
        for (int si = 0; si < n_sizes; si++)
            fprintf(j, "%s{\"M\":%d,\"N\":%d,\"K\":%d,\"cublas_ms\":%.6f}", si ? "," : "",
                    sizes[si].m, sizes[si].n, sizes[si].k, base[si]);
        fprintf(j, "],\"stages\":[");
        for (int i = 0; i < n; i++) {
            const lb_stage *s = &stages[i];
            fprintf(j, "%s{\"stage\":", i ? "," : "");
            rp_json_string(j, s->stem);
            fprintf(j, ",\"technique\":");
            rp_json_string(j, s->technique);
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
