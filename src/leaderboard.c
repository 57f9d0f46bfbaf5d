/* leaderboard.c — every stage of a problem through the judge, one markdown section out.
 *
 * The directory is the list: each *.cu under the problem's folder is a stage, in name order.
 * Each stage runs in its own worker processes (jd_judge), so one that fails to compile, crashes
 * or hangs gets its verdict in its row and the run goes on. cuBLAS is timed beside every stage
 * in the same process; its row shows the median of those measurements.
 *
 * Here: the command (lb_main), the stage list, and what every section uses (commit label, run
 * header, size labels). The stages section is lb_stages.c; --sweep's run lb_sweep.c, its shapes
 * section's writers lb_shapes.c, the random-shapes section lb_random.c; the splice between
 * markers lb_file.c; lb_int.h is what they share.
 */
#include "leaderboard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"
#include "judge.h"
#include "lb_int.h"
#include "loader.h"

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

/* Stage order: by the leading number (99_x before 100_y, as `harness new` numbers them), then
 * by name. */
static int lb_cmp_str(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t dx = strspn(x, "0123456789"), dy = strspn(y, "0123456789");
    if (dx && dy) {
        const char *px = x, *py = y; /* leading zeros do not count */
        while (dx > 1 && *px == '0') px++, dx--;
        while (dy > 1 && *py == '0') py++, dy--;
        if (dx != dy) return dx < dy ? -1 : 1;
        int c = strncmp(px, py, dx);
        if (c) return c;
    }
    return strcmp(x, y);
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
    struct stat sb;
    while (ok && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
        /* a stage is a regular file (or a link to one): a FIFO or a folder named *.cu is not */
        if (fstatat(dirfd(d), e->d_name, &sb, 0) != 0 || !S_ISREG(sb.st_mode)) continue;
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
int lb_find_stages(const char *dir, lb_stage **out)
{
    char **names;
    *out = NULL;
    int n = lb_stage_files(dir, &names);
    if (n <= 0) return n;
    lb_stage *st = calloc((size_t)n, sizeof(*st));
    struct stat sb;
    if (!st) {
        lb_free_names(names, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        snprintf(st[i].path, sizeof(st[i].path), "%s/%s", dir, names[i]);
        snprintf(st[i].stem, sizeof(st[i].stem), "%.*s", (int)(strlen(names[i]) - 3), names[i]);
        /* its first line; the open must not wait, should the file have become a FIFO since */
        int fd = open(st[i].path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        FILE *f = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? fdopen(fd, "r") : NULL;
        char line[1024] = "";
        if (f) {
            if (!fgets(line, sizeof(line), f)) line[0] = '\0';
            fclose(f);
        } else if (fd >= 0) {
            close(fd);
        }
        lb_technique(line, st[i].technique, sizeof(st[i].technique));
    }
    lb_free_names(names, n);
    *out = st;
    return n;
}

/* The commit the stage folder is at, in its own repository (`git -C dir`, no shell: dir is the
 * user's --dir), and whether its files changed since; "unknown" when git says nothing of it. */
static void lb_git_commit(const char *dir, char *out, size_t len)
{
    char *head[] = {"git", "-C", (char *)dir, "rev-parse", "--short=12", "HEAD", NULL};
    char *dirty[] = {"git", "-C", (char *)dir, "status", "--porcelain", "--", ".", NULL};
    char buf[64];
    snprintf(out, len, "unknown");
    /* stderr with stdout, so "not a git repository" is never printed: only exit 0 and a hash count */
    if (ld_run_capture(head, true, buf, sizeof(buf)) != 0) return;
    buf[strcspn(buf, "\n")] = '\0';
    if (!buf[0] || buf[strspn(buf, "0123456789abcdef")]) return;
    snprintf(out, len, "%s", buf);
    if (ld_run_capture(dirty, false, buf, sizeof(buf)) == 0 && buf[0])
        strncat(out, " (stages modified since)", len - strlen(out) - 1);
}

/* The commit a section names: the one given (a copy of the tree without .git, the GPU
 * machine's), or git's for the stage folder dir. */
void lb_commit_label(const char *given, const char *dir, char *out, size_t len)
{
    if (given)
        snprintf(out, len, "%s", given);
    else
        lb_git_commit(dir, out, len);
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

void lb_measured_note(const char *dir, const char *const *stems, int n, char *out, size_t len)
{
    char note[4096] = " <!-- measured:";
    size_t u = strlen(note);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        size_t size = 0;
        if (snprintf(path, sizeof(path), "%s/%s.cu", dir, stems[i]) >= (int)sizeof(path)) continue;
        char *text = ch_read_file(path, &size);
        if (!text) continue;
        int w = snprintf(note + u, sizeof(note) - u, " %s.cu=%016llx", stems[i],
                         (unsigned long long)ch_digest(text, size));
        free(text);
        if (w < 0 || (size_t)w >= sizeof(note) - u) return; /* no note rather than a cut one */
        u += (size_t)w;
    }
    size_t have = strlen(out);
    if (u + 4 < sizeof(note) && have + u + 4 < len) snprintf(out + have, len - have, "%s -->", note);
}

void lb_size_label(const pb_problem *p, const pb_case *c, char *out, size_t len)
{
    lb_shape_label(p, pb_case_size(p, c), out, len);
}

void lb_shape_label(const pb_problem *p, pb_size s, char *out, size_t len)
{
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

jd_options lb_stage_options(const jd_options *in, const pb_problem *p, char *cache, size_t len)
{
    jd_options o = *in;
    jd_cache_dir(cache, len);
    o.cache_dir = cache;
    o.problem = p->name;
    o.quiet = true;
    return o;
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
          "LIST: comma list of at most 4 entries, N (N³) or MxNxK; default 1024,4096 for gemm_fp16.\n"
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
          "30 runs).\n"
          "       harness leaderboard --check [--problem P] [--out FILE] [--json FILE] [-q]\n"
          "Runs nothing: says which sections of FILE (every problem's, or P's) still describe the\n"
          "stages as they are, from the commit each names (git; a change in comments only keeps a\n"
          "section current) and the stages it should list; a problem with no section is stale.\n"
          "Each section records a digest of every stage file its run read: one that is not the\n"
          "named commit's file (a label given for a tree with a change not committed) is stale.\n"
          "Exit 0 all current, 1 one is not, 3 FILE unreadable or its markers ambiguous.\n"
          "-q: no table, the exit code alone.\n"
          "--json FILE (every mode): written whole (a temporary beside it, renamed); never the\n"
          "--out file (exit 2); '-' is stdout, which then holds the JSON alone (--check's table on\n"
          "stderr).\n",
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

/* A usage error into bad (the first one only): lb_main says it once the whole line is read, so
 * that --check --json - can answer with its JSON object whatever came first. */
static void lb_bad(char *bad, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void lb_bad(char *bad, size_t len, const char *fmt, ...)
{
    if (bad[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bad, len, fmt, ap);
    va_end(ap);
    for (char *p = bad; *p; p++) /* one line, whatever an argument held */
        if (*p == '\n' || *p == '\r') *p = ' ';
}

int lb_main(int argc, char **argv)
{
    const char *problem_name = "gemm_fp16", *dir_opt = NULL, *out_path = "leaderboard.md",
               *json_path = NULL, *sizes_opt = NULL, *commit_opt = NULL;
    jd_options o;
    jd_default_options(&o);
    bool quiet = false, sweep = false, max_time_given = false, check = false, problem_given = false;
    int run_opts = 0; /* options that only a run takes (not --check) */
    unsigned parts = 0;
    const char *stages_opt = NULL;
    double d;
    uint64_t u;
    char bad[PATH_MAX + 160] = ""; /* the first usage error: said once the whole line is read */
    enum { L_SWEEP = 512, L_STAGES, L_MAXTIME, L_MINRUNS }; /* the shapes section's */
    enum { L_SIZES = 256, L_DIR, L_OUT, L_JSON, L_FLUSH, L_TIMEOUT, L_COMMIT, L_CHECK };
    static const struct option longs[] = {
        {"problem", required_argument, 0, 'p'}, {"sizes", required_argument, 0, L_SIZES},
        {"dir", required_argument, 0, L_DIR},   {"out", required_argument, 0, L_OUT},
        {"json", required_argument, 0, L_JSON}, {"flush-l2", no_argument, 0, L_FLUSH},
        {"timeout", required_argument, 0, L_TIMEOUT}, {"quiet", no_argument, 0, 'q'},
        {"commit", required_argument, 0, L_COMMIT},
        {"sweep", optional_argument, 0, L_SWEEP}, {"stages", required_argument, 0, L_STAGES},
        {"max-time", required_argument, 0, L_MAXTIME}, {"min-runs", required_argument, 0, L_MINRUNS},
        {"check", no_argument, 0, L_CHECK},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "p:qh", longs, NULL)) != -1) {
        run_opts += c != 'p' && c != L_OUT && c != L_JSON && c != L_CHECK && c != 'q' && c != 'h';
        if (bad[0] && c == 'h') continue; /* a usage error stands, --help or not */
        switch (c) {
        case 'p':
            problem_name = optarg;
            problem_given = true;
            break;
        case L_CHECK: check = true; break;
        case L_SIZES: sizes_opt = optarg; break;
        case L_DIR: dir_opt = optarg; break;
        case L_OUT: out_path = optarg; break;
        case L_JSON: json_path = optarg; break;
        case L_FLUSH: o.topts.flush_l2 = true; break;
        case L_TIMEOUT:
            if (!cl_parse_decimal(optarg, 0.1, 3600, &d)) /* the main command's parsers */
                lb_bad(bad, sizeof(bad), "--timeout: expected seconds in 0.1..3600, got '%s'", optarg);
            else o.timeout_s = d;
            break;
        case L_COMMIT: commit_opt = optarg; break;
        case L_SWEEP: /* --sweep[=shapes|random], the value also after a space */
            if (!optarg && optind < argc &&
                (strcmp(argv[optind], "shapes") == 0 || strcmp(argv[optind], "random") == 0))
                optarg = argv[optind++];
            if (optarg && strcmp(optarg, "shapes") && strcmp(optarg, "random")) {
                lb_bad(bad, sizeof(bad), "--sweep: expected shapes or random (or nothing: both sections), got '%s'",
                       optarg);
                break;
            }
            sweep = true;
            parts = !optarg ? LB_PART_SHAPES | LB_PART_RANDOM
                    : strcmp(optarg, "shapes") == 0 ? LB_PART_SHAPES : LB_PART_RANDOM;
            break;
        case L_STAGES: stages_opt = optarg; break;
        case L_MAXTIME:
            if (!cl_parse_decimal(optarg, 0.01, 600, &d))
                lb_bad(bad, sizeof(bad), "--max-time: expected seconds in 0.01..600, got '%s'", optarg);
            else o.topts.max_time_s = d;
            max_time_given = true;
            break;
        case L_MINRUNS:
            if (!cl_parse_uint(optarg, 3, 1000, &u))
                lb_bad(bad, sizeof(bad), "--min-runs: expected a whole number in 3..1000, got '%s'", optarg);
            else o.topts.min_runs = (int)u;
            break;
        case 'q': quiet = true; break;
        case 'h': lb_usage(stdout); return HX_SUCCESS;
        default: /* the option as written */
            lb_bad(bad, sizeof(bad), "%s: unknown option or missing its value (see --help)",
                   optind > 0 && optind <= argc ? argv[optind - 1] : "?");
        }
    }
    if (optind != argc) lb_bad(bad, sizeof(bad), "unexpected argument '%s' (see --help)", argv[optind]);
    const pb_problem *p = pb_find(problem_name);
    if (!p) lb_bad(bad, sizeof(bad), "unknown problem '%s'", problem_name);
    if (check && run_opts)
        lb_bad(bad, sizeof(bad), "--check reads the file and runs nothing: only --problem, --out, --json and -q go "
                                 "with it");
    /* the JSON is written last: naming --out it would replace the leaderboard it describes */
    if (json_path && strcmp(json_path, "-") && lb_same_file(json_path, out_path))
        lb_bad(bad, sizeof(bad), "--json %s is the --out file (%s): name another file, or - for stdout", json_path,
               out_path);
    if (bad[0]) {
        fprintf(stderr, "harness leaderboard: %s\n", bad);
        /* --check --json -: stdout holds its one object on every exit, as the main command's */
        if (check && json_path && !strcmp(json_path, "-")) lb_check_json_error(stdout, out_path, HX_USAGE, bad);
        return HX_USAGE;
    }
    if (check) return lb_check(out_path, problem_given ? p->name : NULL, json_path, quiet);
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
