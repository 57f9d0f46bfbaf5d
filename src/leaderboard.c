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

#include "gpus.h"
#include "judge.h"
#include "lb_random.h"
#include "loader.h"
#include "report.h"
#include "stats.h"

#define LB_MAX_SIZES 4

typedef struct {
    char path[PATH_MAX];
    char stem[128];
    char technique[512];
    int exit_code;
    rs_status status;
    char detail[256];
    int judge_pass, judge_n, extra_pass, extra_n;
    bool timed[LB_MAX_SIZES];
    double ms[LB_MAX_SIZES], base_ms[LB_MAX_SIZES];
    char size_status[LB_MAX_SIZES][32];
    char judge_gpus[64];     /* the judge GPUs it compiles for (gpus.c) */
} lb_stage;

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

int lb_stage_files(const char *dir, char ***names)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **v = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
        if (n == cap) { /* any number of stages: the list grows */
            cap = cap ? 2 * cap : 32;
            char **g = cap <= INT_MAX ? realloc(v, cap * sizeof(*v)) : NULL;
            if (!g) {
                ok = false;
                break;
            }
            v = g;
        }
        if (!(v[n] = strdup(e->d_name))) ok = false;
        else n++;
    }
    closedir(d);
    if (!ok) {
        lb_free_names(v, (int)n);
        errno = ENOMEM;
        return -1;
    }
    if (n) qsort(v, n, sizeof(char *), lb_cmp_str);
    *names = v;
    return (int)n;
}

void lb_free_names(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* The stage files of a folder, in name order: *st malloc'd (NULL when none). -1: unreadable. */
static int lb_find_stages(const char *dir, lb_stage **out)
{
    char **names;
    *out = NULL;
    int n = lb_stage_files(dir, &names);
    if (n <= 0) return n;
    lb_stage *st = calloc((size_t)n, sizeof(*st));
    if (!st) {
        lb_free_names(names, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        snprintf(st[i].path, sizeof(st[i].path), "%s/%s", dir, names[i]);
        snprintf(st[i].stem, sizeof(st[i].stem), "%.*s", (int)(strlen(names[i]) - 3), names[i]);
        FILE *f = fopen(st[i].path, "r");
        char line[1024] = "";
        if (f) {
            if (!fgets(line, sizeof(line), f)) line[0] = '\0';
            fclose(f);
        }
        lb_technique(line, st[i].technique, sizeof(st[i].technique));
    }
    lb_free_names(names, n);
    *out = st;
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
static void lb_commit_label(const char *given, char *out, size_t len)
{
    if (given)
        snprintf(out, len, "%s", given);
    else
        lb_git_commit(out, len);
}

/* The line under a section's title: device, driver, runtime, date, commit. */
static void lb_run_header(const dv_info *dev, const char *commit, char *out, size_t len)
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
static FILE *lb_open_json(const char *path)
{
    FILE *j = fopen(path, "w");
    if (!j) fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", path, strerror(errno));
    return j;
}

/* Splice section (freed here) between marker's markers in out_path, atomically. An exit code. */
static int lb_write_section(const char *out_path, const char *marker, char *sec)
{
    char *old = ld_read_text(out_path, NULL);
    if (!old) old = strdup("# Leaderboard\n\nEvery stage of each problem, from one real GPU run per "
                           "section. Regenerate with `./harness leaderboard --problem P` (or "
                           "`make leaderboard`).\n");
    char *text = lb_splice(old, marker, sec);
    free(old);
    free(sec);
    if (!text) {
        fprintf(stderr, "harness leaderboard: %s has a begin marker for %s without its end; left untouched\n",
                out_path, marker);
        return HX_INTERNAL;
    }
    if (lb_write_atomic(out_path, text) != 0) {
        fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", out_path, strerror(errno));
        free(text);
        return HX_INTERNAL;
    }
    free(text);
    return HX_SUCCESS;
}

static void lb_size_label(const pb_problem *p, const pb_case *c, char *out, size_t len)
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

static double lb_tflops(const pb_problem *p, const pb_case *c, double ms)
{
    return pb_flops(p, c->v) / (ms * 1e-3) * 1e-12;
}

/* "M":1024,"N":1024,"K":1024: a case's sizes as JSON members */
static void lb_json_sizes(FILE *j, const pb_problem *p, const pb_case *c)
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
          "and rewrites P's shapes section (markers leaderboard:P-shapes); then the same stages\n"
          "over 64 random shapes (--sweep random:64:1), beside cuBLAS and cuBLASLt, into\n"
          "P's random-shapes section (leaderboard:P-random; --json FILE: a second line).\n"
          "--sweep=shapes or --sweep=random: that section only.\n"
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

/* --sizes: PB_SCAN_OK with the cases; SYNTAX (usage) or RANGE (a size that cannot be: exit 4). */
static pb_scan lb_parse_sizes(const pb_problem *p, const char *list, pb_case *sizes, int *n)
{
    pb_size s[LB_MAX_SIZES];
    size_t ns = 0;
    pb_scan sc = pb_scan_size_list(pb_n_sizes(p), list, s, LB_MAX_SIZES, &ns);
    if (sc != PB_SCAN_OK) return sc;
    for (size_t i = 0; i < ns; i++) sizes[i] = pb_perf_case(p, s[i], i, "");
    *n = (int)ns;
    return PB_SCAN_OK;
}

static int lb_run(const pb_problem *p, const jd_options *o_in, lb_stage *stages, int n,
                  const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
                  const char *commit_opt, bool quiet);

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

/* --sweep's parts: the sweep list's shapes section, the random-shapes section (lb_random.c). */
enum { LB_PART_SHAPES = 1, LB_PART_RANDOM = 2 };
static int lb_sweep_run(const pb_problem *p, const jd_options *o_in, const char *dir,
                        const char *stages_opt, const char *out_path, const char *json_path,
                        const char *commit_opt, bool quiet, unsigned parts);

int lb_main(int argc, char **argv)
{
    const char *problem_name = "gemm_fp16", *dir_opt = NULL, *out_path = "leaderboard.md",
               *json_path = NULL, *sizes_opt = NULL, *commit_opt = NULL;
    jd_options o;
    jd_default_options(&o);
    bool quiet = false, sweep = false, max_time_given = false;
    unsigned parts = 0;
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
        {"sweep", optional_argument, 0, L_SWEEP}, {"stages", required_argument, 0, L_STAGES},
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
        case L_TIMEOUT:
            if (!jd_parse_number(optarg, 0.1, 3600, &d)) {
                fprintf(stderr, "harness leaderboard: --timeout: expected seconds in 0.1..3600, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.timeout_s = d;
            break;
        case L_COMMIT: commit_opt = optarg; break;
        case L_SWEEP: /* --sweep[=shapes|random], the value also after a space */
            if (!optarg && optind < argc &&
                (strcmp(argv[optind], "shapes") == 0 || strcmp(argv[optind], "random") == 0))
                optarg = argv[optind++];
            if (optarg && strcmp(optarg, "shapes") && strcmp(optarg, "random")) {
                fprintf(stderr, "harness leaderboard: --sweep: expected shapes or random (or "
                                "nothing: both sections), got '%s'\n", optarg);
                return HX_USAGE;
            }
            sweep = true;
            parts = !optarg ? LB_PART_SHAPES | LB_PART_RANDOM
                    : strcmp(optarg, "shapes") == 0 ? LB_PART_SHAPES : LB_PART_RANDOM;
            break;
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
            if (!jd_parse_number(optarg, 3, 1000, &d) || d != (int)d) {
                fprintf(stderr, "harness leaderboard: --min-runs: expected a whole number in 3..1000, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.min_runs = (int)d;
            break;
        case 'q': quiet = true; break;
        case 'h': lb_usage(stdout); return HX_SUCCESS;
        default: /* the option as written */
            fprintf(stderr, "harness leaderboard: %s: unknown option or missing its value (see --help)\n",
                    optind > 0 && optind <= argc ? argv[optind - 1] : "?");
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
    } else {
        pb_scan sc = lb_parse_sizes(p, sizes_opt, sizes, &n_sizes);
        if (sc == PB_SCAN_RANGE) {
            fprintf(stderr, "harness leaderboard: --sizes %s: every size an integer in 1..%d\n",
                    sizes_opt, PB_SIZE_MAX);
            return HX_BAD_SIZE;
        }
        if (sc != PB_SCAN_OK) {
            fprintf(stderr, "harness leaderboard: --sizes: expected a comma list of N or MxNxK (at most %d), got '%s'\n",
                    LB_MAX_SIZES, sizes_opt);
            return HX_USAGE;
        }
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
        return lb_sweep_run(p, &o, dir, stages_opt, out_path, json_path, commit_opt, quiet, parts);
    }

    lb_stage *stages;
    int n = lb_find_stages(dir, &stages);
    if (n <= 0) {
        fprintf(stderr, "harness leaderboard: no stages (*.cu) in %s%s%s\n", dir, n < 0 ? ": " : "",
                n < 0 ? strerror(errno) : "");
        return HX_BAD_FILE;
    }
    int rc = lb_run(p, &o, stages, n, sizes, n_sizes, out_path, json_path, commit_opt, quiet);
    free(stages);
    return rc;
}

/* Everything after the options: run the stages, write the section (and the JSON). */
static int lb_run(const pb_problem *p, const jd_options *o_in, lb_stage *stages, int n,
                  const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
                  const char *commit_opt, bool quiet)
{
    jd_options o = *o_in;
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

/* --sweep: the shapes section. A few stages over the problem's sweep list, in one run. */

/* cuBLAS at shape si: the median of the times measured beside each stage (0: none). */
static double lb_sweep_base(const lb_sweep_table *t, int si)
{
    double *v = calloc(t->n_stages > 0 ? (size_t)t->n_stages : 1, sizeof(*v));
    if (!v) return 0;
    size_t nv = 0;
    for (int i = 0; i < t->n_stages; i++)
        if (t->stages[i].timed[si] && t->stages[i].base_ms[si] > 0) v[nv++] = t->stages[i].base_ms[si];
    double m = nv ? st_summarize(v, nv).median : 0;
    free(v);
    return m;
}

/* A stage's time over the cuBLAS time beside it (0: not both timed). */
static double lb_sweep_ratio(const lb_sweep_stage *s, int si)
{
    return s->timed[si] && s->base_ms[si] > 0 ? s->ms[si] / s->base_ms[si] : 0;
}

/* How many shapes a stage passed, and the geometric mean of its ratios (0: none). */
static int lb_sweep_totals(const lb_sweep_stage *s, int n_shapes, double *geomean)
{
    double v[PB_MAX_SHAPES];
    size_t nv = 0;
    int passed = 0;
    for (int si = 0; si < n_shapes; si++) {
        passed += s->shape_status[si] == RS_SUCCESS;
        /* only passed shapes: one timed and then failing its check must not improve the mean */
        if (s->shape_status[si] == RS_SUCCESS && lb_sweep_ratio(s, si) > 0) v[nv++] = lb_sweep_ratio(s, si);
    }
    *geomean = st_geomean(v, nv);
    return passed;
}

char *lb_shapes_section(const lb_sweep_table *t)
{
    const pb_problem *p = t->problem;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "\n## %s — shapes\n\n%s\n\n", p->name, t->header);
    fprintf(f, "Regenerated by `%s` from one run; never edited by hand. Each stage runs %s's "
               "performance case (its fills and scalars; a seed per shape) at every shape of the "
               "problem's sweep list (`problems/%s.c`), checked against the reference, then %s; cuBLAS "
               "is timed the same way beside each stage in the same process, call by call in "
               "alternation with it. The cuBLAS columns are the median of those; × cuBLAS is the "
               "stage's time over the cuBLAS time measured beside it (under 1× is faster). ✓ the "
               "shape passed its check, ✗ it did not (its status).\n\n",
            t->command, p->name, p->name, t->timing_note);
    char names[64];
    pb_size_names(p, names, sizeof(names));
    for (char *x = strchr(names, 'x'); x; x = strchr(x, 'x')) { /* MxNxK -> M×N×K */
        memmove(x + 2, x + 1, strlen(x + 1) + 1);
        memcpy(x, "×", 2);
    }
    fprintf(f, "| shape (%s) | cuBLAS ms | TF/s |", names);
    for (int i = 0; i < t->n_stages; i++) fprintf(f, " %s ms | TF/s | × cuBLAS |", t->stages[i].stem);
    fprintf(f, "\n|---|---:|---:|");
    for (int i = 0; i < t->n_stages; i++) fprintf(f, "---:|---:|---:|");
    fputc('\n', f);
    for (int si = 0; si < t->n_shapes; si++) {
        char label[40];
        lb_size_label(p, &t->shapes[si], label, sizeof(label));
        double base = lb_sweep_base(t, si);
        if (base > 0) fprintf(f, "| %s | %.4f | %.1f |", label, base, lb_tflops(p, &t->shapes[si], base));
        else fprintf(f, "| %s | – | |", label);
        for (int i = 0; i < t->n_stages; i++) {
            const lb_sweep_stage *s = &t->stages[i];
            if (s->shape_status[si] != RS_SUCCESS || !s->timed[si]) {
                fprintf(f, " ✗ %s | | |", rs_status_name(s->shape_status[si]));
                continue;
            }
            fprintf(f, " %.4f ✓ | %.1f |", s->ms[si], lb_tflops(p, &t->shapes[si], s->ms[si]));
            if (lb_sweep_ratio(s, si) > 0) fprintf(f, " %.2f× |", lb_sweep_ratio(s, si));
            else fprintf(f, " – |");
        }
        fputc('\n', f);
    }
    fprintf(f, "| **passed; geometric mean** | | |");
    for (int i = 0; i < t->n_stages; i++) {
        double gm;
        int passed = lb_sweep_totals(&t->stages[i], t->n_shapes, &gm);
        fprintf(f, " %d/%d | |", passed, t->n_shapes);
        if (gm > 0) fprintf(f, " %.2f× |", gm);
        else fprintf(f, " – |");
    }
    /* the chart: a line per stage and cuBLAS, TF/s over the shapes */
    fprintf(f, "\n\n```mermaid\nxychart-beta\n    title \"%s shapes, TF/s on %s (lines:", p->name, t->device_name);
    for (int i = 0; i < t->n_stages; i++) fprintf(f, " %.2s,", t->stages[i].stem);
    fprintf(f, " cuBLAS)\"\n    x-axis [");
    for (int si = 0; si < t->n_shapes; si++) {
        char label[40];
        lb_size_label(p, &t->shapes[si], label, sizeof(label));
        fprintf(f, "%s\"%s\"", si ? ", " : "", label);
    }
    fprintf(f, "]\n    y-axis \"TF/s\"\n");
    for (int i = 0; i <= t->n_stages; i++) { /* i == n_stages: cuBLAS */
        fprintf(f, "    line [");
        for (int si = 0; si < t->n_shapes; si++) {
            double ms = i < t->n_stages ? (t->stages[i].shape_status[si] == RS_SUCCESS && t->stages[i].timed[si]
                                               ? t->stages[i].ms[si] : 0)
                                        : lb_sweep_base(t, si);
            fprintf(f, "%s%.1f", si ? ", " : "", ms > 0 ? lb_tflops(p, &t->shapes[si], ms) : 0.0);
        }
        fprintf(f, "]\n");
    }
    fprintf(f, "```\n\nLines, in order (xychart has no legend):");
    for (int i = 0; i < t->n_stages; i++) fprintf(f, " %s,", t->stages[i].stem);
    fprintf(f, " cuBLAS. A shape that failed or was not timed plots at 0.\n\n");
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A time, or null. */
static void lb_json_ms(FILE *out, const char *key, double ms)
{
    if (ms > 0) fprintf(out, ",\"%s\":%.6f", key, ms);
    else fprintf(out, ",\"%s\":null", key);
}

void lb_shapes_json(FILE *j, const lb_sweep_table *t)
{
    fprintf(j, "{\"problem\":\"%s\",\"mode\":\"shapes\",\"device\":", t->problem->name);
    rp_json_string(j, t->device_name);
    fprintf(j, ",\"commit\":");
    rp_json_string(j, t->commit);
    fprintf(j, ",\"shapes\":[");
    for (int si = 0; si < t->n_shapes; si++) {
        fprintf(j, "%s{", si ? "," : "");
        lb_json_sizes(j, t->problem, &t->shapes[si]);
        lb_json_ms(j, "cublas_ms", lb_sweep_base(t, si));
        fputc('}', j);
    }
    fprintf(j, "],\"stages\":[");
    for (int i = 0; i < t->n_stages; i++) {
        const lb_sweep_stage *s = &t->stages[i];
        double gm;
        int passed = lb_sweep_totals(s, t->n_shapes, &gm);
        fprintf(j, "%s{\"stage\":", i ? "," : "");
        rp_json_string(j, s->stem);
        fprintf(j, ",\"status\":\"%s\",\"passed\":%d", rs_status_name(s->status), passed);
        lb_json_ms(j, "geomean_ratio", gm);
        fprintf(j, ",\"shapes\":[");
        for (int si = 0; si < t->n_shapes; si++) {
            fprintf(j, "%s{\"status\":\"%s\"", si ? "," : "", rs_status_name(s->shape_status[si]));
            lb_json_ms(j, "ms", s->timed[si] ? s->ms[si] : 0);
            lb_json_ms(j, "cublas_ms", s->timed[si] ? s->base_ms[si] : 0);
            lb_json_ms(j, "ratio", lb_sweep_ratio(s, si));
            fputc('}', j);
        }
        fprintf(j, "]}");
    }
    fprintf(j, "]}\n");
}

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

/* The stages the sweep runs, in name order: those LIST names (each must name one), or the
 * problem's default (those of it that exist). An exit code; picked[] indexes found[]. */
static int lb_sweep_pick(const pb_problem *p, const lb_stage *found, int n_found,
                         const char *list, int *picked, int *n_picked)
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
            fprintf(stderr, "harness leaderboard: --stages: no stage file starts with '%.*s'\n", (int)n, w);
            free(matched);
            return HX_USAGE;
        }
        w += n + (w[n] == ',');
    }
    free(matched);
    if (!*n_picked) fprintf(stderr, "harness leaderboard: no stage starts with any of %s\n", list);
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
                          const lb_sweep_stage *rnd, const dv_info *dev, const char *stages_opt,
                          const char *out_path, const char *json_path, const char *commit_opt,
                          bool quiet, unsigned parts)
{
    pb_case shapes[PB_MAX_SHAPES];
    int n_shapes = (int)p->n_sweep;
    for (int si = 0; si < n_shapes; si++) shapes[si] = pb_perf_case(p, p->sweep[si], (size_t)si, "");
    char command[512], commit[96], header[512], note[400];
    snprintf(command, sizeof(command), "./harness leaderboard --problem %s --sweep%s%s%s", p->name,
             parts == LB_PART_SHAPES ? "=shapes" : parts == LB_PART_RANDOM ? "=random" : "",
             stages_opt ? " --stages " : "", stages_opt ? stages_opt : "");
    lb_commit_label(commit_opt, commit, sizeof(commit));
    lb_run_header(dev, commit, header, sizeof(header));
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
    FILE *j = NULL;
    if (json_path && !(j = lb_open_json(json_path))) return HX_INTERNAL;
    if (j && (parts & LB_PART_SHAPES)) lb_shapes_json(j, &t);
    if (!(parts & LB_PART_RANDOM)) {
        if (j) fclose(j);
        return HX_SUCCESS;
    }
    pb_size rshapes[LR_N];
    lr_table rt = {.problem = p, .command = command, .header = header, .timing_note = note,
                   .device_name = dev->name, .commit = commit, .random = {LR_N, LR_SEED},
                   .shapes = rshapes, .runs = rnd, .n_stages = n, .n_yards = lr_yardsticks(p)};
    rc = sh_random_shapes(p, &rt.random, rshapes) ? lb_random_write(&rt, out_path, j, quiet) : HX_INTERNAL;
    if (j) fclose(j);
    return rc;
}

static int lb_sweep_run(const pb_problem *p, const jd_options *o_in, const char *dir,
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
    if (rc == HX_SUCCESS) rc = lb_sweep_pick(p, found, n_found, stages_opt, picked, &n);
    /* the random shapes' runs: n stages × the yardsticks */
    int n_yards = lr_yardsticks(p);
    lb_sweep_stage *rnd = calloc((size_t)(n > 0 ? n : 1) * LR_YARDS, sizeof(lb_sweep_stage));
    if (rc == HX_SUCCESS && !rnd) rc = HX_INTERNAL;

    jd_options o = *o_in;
    char cache[PATH_MAX];
    jd_cache_dir(cache, sizeof(cache));
    o.cache_dir = cache;
    o.problem = p->name;
    o.quiet = true;
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
        rc = lb_sweep_write(p, &o, st, n, rnd, &dev, stages_opt, out_path, json_path, commit_opt, quiet,
                            parts);
    free(found);
    free(picked);
    free(st);
    free(rnd);
    return rc;
}
