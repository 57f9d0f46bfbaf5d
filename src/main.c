/* main.c — the command line: parse options, run the pipeline, print, map to an exit code. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpus.h"
#include "inspect.h"
#include "judge.h"
#include "leaderboard.h"
#include "report.h"

#define HARNESS_VERSION "0.1.0"

static void hm_usage(FILE *out)
{
    fputs(
        "usage: harness [options] SOLUTION.cu\n"
        "       harness --sweep [random[:N[:SEED]]] | --shapes LIST [options] SOLUTION.cu\n"
        "       harness --vs OTHER.cu [options] SOLUTION.cu\n"
        "       harness leaderboard [--problem P] [--sizes 1024,4096] [--json FILE]\n"
        "       harness leaderboard --sweep [--problem P] [--stages 09,10,11,12]\n"
        "       harness new NAME [--problem P] [--dir DIR]\n"
        "\n"
        "Compiles SOLUTION.cu with nvcc, loads its extern \"C\" solve(), runs the problem's tests\n"
        "against a cuBLAS reference and times the performance case, like the LeetGPU judge.\n"
        "\n"
        "options:\n"
        "  -p, --problem NAME   gemm_fp16 | sgemm | matmul_fp32 | batched_matmul_fp32 |\n"
        "                       batched_matmul_fp16 | int8_matmul | int4_matmul\n"
        "                       (default: from solve's signature)\n"
        "  -t, --tests LIST     comma list of example, functional, perf, extra, judge, all\n"
        "                       (default all; judge = example,functional,perf)\n"
        "      --judge-only     same as --tests judge: what the site's Submit runs\n"
        "      --perf-only      same as --tests perf\n"
        "  -s, --size MxNxK     one case of this size (BATCHxMxNxK for the batched problems), checked\n"
        "                       then timed, instead of the tables\n"
        "      --alpha A, --beta B   alpha and beta for --size (default 1 and 1)\n"
        "      --no-constraints let --size or --shapes leave the problem's constraints\n"
        "      --sweep          only the performance case's recipe, at every shape of the problem's\n"
        "                       sweep list: each checked, then timed beside cuBLAS (as --baseline);\n"
        "                       one table, a row per shape (not with --size, --tests, --no-timing)\n"
        "      --sweep random[:N[:SEED]]   --sweep over N shapes (default 64, at most 256)\n"
        "                       drawn from SEED (default 1) inside the constraints: log-uniform,\n"
        "                       1/4 odd, 1/4 off a multiple of 8; the same list on any machine\n"
        "      --shapes LIST    --sweep over these shapes: comma list of MxNxK or N (N³)\n"
        "      --seed N         change every case's random inputs\n"
        "      --baseline [cublas|lt|both]  time cuBLAS on the same case, alternating with the\n"
        "                       solution call by call, and print the ratio; lt (or cublaslt):\n"
        "                       cuBLASLt's matmul, the fastest of its top 8 heuristics per shape;\n"
        "                       both: the two in the same rounds (lt, both: not for int8_matmul)\n"
        "      --vs OTHER.cu    judge OTHER.cu on the same timed cases and time the two in\n"
        "                       alternation: each median, the ratio, a 95% interval for it and\n"
        "                       a verdict (faster / slower / no difference beyond the noise);\n"
        "                       with --size, --sweep, --gpu, --json (not with --baseline)\n"
        "      --flush-l2       flush L2 before every timed call\n"
        "      --no-timing      check only\n"
        "      --min-runs N     timed calls at least (default 30)\n"
        "      --max-time SEC   stop repeating after this long (default 1)\n"
        "      --timeout SEC    per-test time limit, per call while timing (default 10); a\n"
        "                       PTX build run here (--gpu T4/A100 on a newer GPU): the first\n"
        "                       call of each process gets 300 s more, for the driver's compile\n"
        "      --arch sm_XX     compile for this architecture (default: the device's; sm_90a\n"
        "                       for compute capability 9.0; sm_90a when there is no device)\n",
        out);
    fputs( /* a second literal: ISO C's limit on one string's length */
        "      --gpu NAME       compile the way the judge does for that GPU, and run there what\n"
        "                       this machine can: T4 (sm_75), A100 (sm_80), H100 and H200\n"
        "                       (sm_90a), B200 (sm_100a); case-insensitive; not with --arch.\n"
        "                       sm_75/sm_80 code runs on a newer GPU as PTX the driver compiles;\n"
        "                       sm_90a/sm_100a code on another chip is only compiled and its\n"
        "                       solve looked up (exit 13)\n"
        "      --gpu all        one table, a row per judge GPU: compiles, ran here, tests, runtime\n"
        "                       (exit 5 if any target fails to compile, else the first failing\n"
        "                       row's code, else 8 without a device, else 0)\n"
        "      --nvcc-flags F   extra nvcc flags, space separated\n"
        "      --rebuild        ignore the cached object\n"
        "      --json           print the whole result as JSON on stdout\n"
        "  -q, --quiet          no progress on stderr\n"
        "  -h, --help           this text\n"
        "      --version        the harness's version\n"
        "\n"
        "inspection (separate modes; no verdict or timing of a normal run changes):\n"
        "      --resources      registers, shared memory, stack, spills per kernel (ptxas -v) and\n"
        "                       the occupancy they allow at 128/256/384 threads\n"
        "      --ptx, --sass    the PTX / SASS instruction mix (FFMA, HMMA, LDS widths, LDGSTS...);\n"
        "                       files next to the cached object\n"
        "      --sanitize[=T]   run the tests under compute-sanitizer T (memcheck, racecheck,\n"
        "                       synccheck, initcheck); a finding is an error (exit 11)\n"
        "      --profile        the performance case once under Nsight Compute: duration,\n"
        "                       occupancy, throughput, SM clock, L2, tensor pipes, top stalls\n"
        "  new NAME [--problem P] [--dir DIR]   the starter as the next stage file, header to fill in\n"
        "\n"
        "exit codes:\n"
        "  0 success            1 test-case-failed      2 bad option or argument\n"
        "  3 missing, unreadable or not a .cu file      4 --size/--shapes outside the constraints\n"
        "  5 compile-error      6 no extern \"C\" solve   7 solve's signature is not the problem's\n"
        "  8 no CUDA device     9 timeout              10 out-of-memory\n"
        " 11 error (crash, CUDA error, signal)         12 the harness itself failed\n"
        " 13 compiled for the --gpu target, which this machine's GPU cannot run (solve found;\n"
        "    nothing run)\n",
        out);
}

static bool hm_parse_sets(const char *list, bool sets[PB_N_SETS])
{
    memset(sets, 0, sizeof(bool) * PB_N_SETS);
    char *copy = strdup(list), *save = NULL;
    bool ok = true;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (strcmp(w, "example") == 0) sets[PB_SET_EXAMPLE] = true;
        else if (strcmp(w, "functional") == 0) sets[PB_SET_FUNCTIONAL] = true;
        else if (strcmp(w, "perf") == 0 || strcmp(w, "performance") == 0) sets[PB_SET_PERFORMANCE] = true;
        else if (strcmp(w, "extra") == 0) sets[PB_SET_EXTRA] = true;
        else if (strcmp(w, "judge") == 0)
            sets[PB_SET_EXAMPLE] = sets[PB_SET_FUNCTIONAL] = sets[PB_SET_PERFORMANCE] = true;
        else if (strcmp(w, "all") == 0)
            for (int s = 0; s < PB_N_SETS; s++) sets[s] = true;
        else
            ok = false;
    }
    free(copy);
    return ok;
}

/* 1 to PB_MAX_SIZES positive integers joined by x (how many a problem takes is the judge's to
 * check, once the problem is known). */
static bool hm_size_syntax(const char *s)
{
    for (int n = 1; n <= PB_MAX_SIZES; n++) {
        int v[PB_MAX_SIZES];
        if (pb_parse_sizes(s, n, v)) return true;
    }
    return false;
}

static bool hm_parse_double(const char *s, double lo, double hi, double *out)
{
    return jd_parse_number(s, lo, hi, out);
}

/* --baseline's values: which library call is the yardstick. */
static bool hm_yardstick_word(const char *s)
{
    return strcmp(s, "cublas") == 0 || strcmp(s, "lt") == 0 || strcmp(s, "cublaslt") == 0 ||
           strcmp(s, "both") == 0;
}

static int hm_term_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    return c && atoi(c) > 0 ? atoi(c) : 80;
}

/* --gpu's value: a judge GPU's name or "all"; one line listing them when it is neither. */
static bool hm_parse_gpu(const char *arg, const char **gpu, bool *all)
{
    if (strcasecmp(arg, "all") == 0) {
        *all = true;
        *gpu = NULL;
        return true;
    }
    const gp_gpu *g = gp_find(arg);
    if (!g) {
        char names[128];
        gp_list(names, sizeof(names));
        fprintf(stderr, "harness: --gpu: unknown GPU '%s' (the judge's: %s, or all)\n", arg, names);
        return false;
    }
    *gpu = g->name;
    *all = false;
    return true;
}

/* --gpu with the other options: never with --arch; an inspection mode takes the GPU's target. */
static int hm_gpu_checks(jd_options *o, bool all, bool inspecting)
{
    if (o->arch) {
        fprintf(stderr, "harness: --gpu and --arch both choose the target: give one (see --help)\n");
        return HX_USAGE;
    }
    if (all && (inspecting || o->sweep)) {
        fprintf(stderr, "harness: --gpu all is its own table: not with --sweep or an inspection "
                        "mode (give one GPU)\n");
        return HX_USAGE;
    }
    if (inspecting) {
        o->arch = gp_find(o->gpu)->arch;
        o->gpu = NULL;
    }
    return HX_SUCCESS;
}

/* --gpu all: the matrix, as a table or JSON. */
static int hm_gpu_all(const jd_options *o, bool json)
{
    gp_matrix *m = malloc(sizeof(*m));
    if (!m) return HX_INTERNAL;
    int code = gp_judge_all(o, m);
    if (!m->problem || m->detail[0]) {
        fprintf(stderr, "harness: %s\n", m->detail);
        if (json) { /* --json always prints JSON: here what stopped it */
            fprintf(stdout, "{\"solution\":");
            rp_json_string(stdout, o->solution);
            fprintf(stdout, ",\"exit_code\":%d,\"detail\":", code);
            rp_json_string(stdout, m->detail);
            fputs("}\n", stdout);
        }
    } else if (json) {
        rp_gpus_json(stdout, o->solution, m);
    } else {
        rp_gpus_text(stdout, o->solution, m);
    }
    free(m);
    return code;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "leaderboard") == 0) return lb_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "new") == 0) return in_new_main(argc - 1, argv + 1);

    jd_options o;
    jd_default_options(&o);
    char cache[PATH_MAX];
    jd_cache_dir(cache, sizeof(cache));
    o.cache_dir = cache;
    bool json = false;
    enum { O_JUDGE = 256, O_PERF, O_ALPHA, O_BETA, O_SEED, O_BASE, O_FLUSH, O_NOTIME, O_MINRUNS,
           O_MAXTIME, O_TIMEOUT, O_ARCH, O_FLAGS, O_REBUILD, O_JSON, O_VERSION, O_ANYSIZE,
           O_RESOURCES, O_PTX, O_SASS, O_SANITIZE, O_PROFILE };
    enum { O_SWEEP = 512, O_SHAPES, O_VS }; /* apart from the list above: --sweep's own, --vs */
    enum { O_GPU = 768 };
    bool gpu_all = false;
    static const struct option longs[] = {
        {"problem", required_argument, 0, 'p'},   {"tests", required_argument, 0, 't'},
        {"judge-only", no_argument, 0, O_JUDGE},  {"perf-only", no_argument, 0, O_PERF},
        {"size", required_argument, 0, 's'},      {"alpha", required_argument, 0, O_ALPHA},
        {"beta", required_argument, 0, O_BETA},   {"seed", required_argument, 0, O_SEED},
        {"baseline", optional_argument, 0, O_BASE}, {"flush-l2", no_argument, 0, O_FLUSH},
        {"no-timing", no_argument, 0, O_NOTIME},  {"min-runs", required_argument, 0, O_MINRUNS},
        {"max-time", required_argument, 0, O_MAXTIME},
        {"timeout", required_argument, 0, O_TIMEOUT},
        {"arch", required_argument, 0, O_ARCH},   {"nvcc-flags", required_argument, 0, O_FLAGS},
        {"rebuild", no_argument, 0, O_REBUILD},   {"json", no_argument, 0, O_JSON},
        {"quiet", no_argument, 0, 'q'},           {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, O_VERSION},   {"no-constraints", no_argument, 0, O_ANYSIZE},
        /* inspection (src/inspect/) */
        {"resources", no_argument, 0, O_RESOURCES}, {"ptx", no_argument, 0, O_PTX},
        {"sass", no_argument, 0, O_SASS},         {"sanitize", optional_argument, 0, O_SANITIZE},
        {"profile", no_argument, 0, O_PROFILE},
        /* the sweep (judge.c, report.c) */
        {"sweep", optional_argument, 0, O_SWEEP}, {"shapes", required_argument, 0, O_SHAPES},
        {"vs", required_argument, 0, O_VS},
        {"gpu", required_argument, 0, O_GPU}, /* the judge's GPUs (gpus.c) */
        {0, 0, 0, 0}};
    in_request inspect = {0, NULL};
    bool sets_given = false;
    int c;
    double d;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "p:t:s:qh", longs, NULL)) != -1) {
        if (c == 't' || c == O_JUDGE || c == O_PERF) sets_given = true; /* --sweep refuses them */
        switch (c) {
        case 'p': o.problem = optarg; break;
        case 't':
            if (!hm_parse_sets(optarg, o.sets)) {
                fprintf(stderr, "harness: --tests: unknown set in '%s' (example, functional, perf, extra, judge, all)\n", optarg);
                return HX_USAGE;
            }
            break;
        case O_JUDGE: hm_parse_sets("judge", o.sets); break;
        case O_PERF: hm_parse_sets("perf", o.sets); break;
        case 's':
            if (!hm_size_syntax(optarg)) {
                fprintf(stderr, "harness: --size: expected positive integers joined by x (MxNxK; "
                                "BATCHxMxNxK for the batched problems), got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.size = optarg;
            o.custom = true;
            break;
        case O_ALPHA:
        case O_BETA:
            if (!hm_parse_double(optarg, -1e6, 1e6, &d)) {
                fprintf(stderr, "harness: --%s: not a number: '%s'\n", c == O_ALPHA ? "alpha" : "beta", optarg);
                return HX_USAGE;
            }
            if (c == O_ALPHA) o.alpha = (float)d; else o.beta = (float)d;
            break;
        case O_SEED:
            if (!hm_parse_double(optarg, 0, 1e18, &d)) {
                fprintf(stderr, "harness: --seed: expected a non-negative integer, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.seed = (uint64_t)d;
            break;
        case O_BASE: /* --baseline [cublas | lt | cublaslt | both], the value also after a space */
            if (!optarg && optind < argc && hm_yardstick_word(argv[optind])) optarg = argv[optind++];
            if (optarg && !hm_yardstick_word(optarg)) {
                fprintf(stderr, "harness: --baseline: expected cublas, lt, cublaslt or both, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.baseline = true;
            o.topts.yardstick = !optarg || strcmp(optarg, "cublas") == 0 ? RN_YS_CUBLAS
                                : strcmp(optarg, "both") == 0        ? RN_YS_BOTH
                                                                     : RN_YS_LT;
            break;
        case O_FLUSH: o.topts.flush_l2 = true; break;
        case O_NOTIME: o.timing = false; break;
        case O_MINRUNS:
            if (!hm_parse_double(optarg, 3, 1000, &d)) {
                fprintf(stderr, "harness: --min-runs: expected 3..1000, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.min_runs = (int)d;
            break;
        case O_MAXTIME:
            if (!hm_parse_double(optarg, 0.01, 600, &d)) {
                fprintf(stderr, "harness: --max-time: expected seconds in 0.01..600, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.topts.max_time_s = d;
            break;
        case O_TIMEOUT:
            if (!hm_parse_double(optarg, 0.1, 3600, &d)) {
                fprintf(stderr, "harness: --timeout: expected seconds in 0.1..3600, got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.timeout_s = d;
            break;
        case O_ARCH:
            if (!ld_arch_valid(optarg)) {
                fprintf(stderr, "harness: --arch: expected sm_NN or sm_NNa (e.g. sm_90a), got '%s'\n", optarg);
                return HX_USAGE;
            }
            o.arch = optarg;
            break;
        case O_FLAGS: o.nvcc_flags = optarg; break;
        case O_REBUILD: o.rebuild = true; break;
        case O_ANYSIZE: o.any_size = true; break;
        case O_JSON: json = true; break;
        /* inspection (src/inspect/) */
        case O_RESOURCES: inspect.modes |= IN_RESOURCES; break;
        case O_PTX: inspect.modes |= IN_PTX; break;
        case O_SASS: inspect.modes |= IN_SASS; break;
        case O_PROFILE: inspect.modes |= IN_PROFILE; break;
        case O_SANITIZE:
            if (optarg && !in_sanitize_tool_valid(optarg)) {
                fprintf(stderr, "harness: --sanitize=%s: expected memcheck, racecheck, synccheck or initcheck\n", optarg);
                return HX_USAGE;
            }
            inspect.modes |= IN_SANITIZE;
            inspect.san_tool = optarg;
            break;
        case O_SWEEP: /* --sweep, --sweep=random:N:SEED or --sweep random:N:SEED */
            if (!optarg && optind < argc && sh_is_random(argv[optind])) optarg = argv[optind++];
            if (optarg) {
                char why[200];
                if (!sh_parse_random(optarg, &o.random, why, sizeof(why))) {
                    fprintf(stderr, "harness: %s\n", why);
                    return HX_USAGE;
                }
            }
            o.sweep = true;
            break;
        case O_VS: o.vs = optarg; break;
        case O_SHAPES:
            o.shapes = optarg; /* parsed for the problem (its number of sizes) by the judge */
            o.sweep = true;
            break;
        case O_GPU:
            if (!hm_parse_gpu(optarg, &o.gpu, &gpu_all)) return HX_USAGE;
            break;
        case 'q': o.quiet = true; break;
        case 'h': hm_usage(stdout); return HX_SUCCESS;
        case O_VERSION: printf("harness %s\n", HARNESS_VERSION); return HX_SUCCESS;
        default:
            if (optopt && optopt < 256)
                fprintf(stderr, "harness: option -%c: unknown or missing its argument (see --help)\n", optopt);
            else
                fprintf(stderr, "harness: %s: unknown option or missing argument (see --help)\n", argv[optind - 1]);
            return HX_USAGE;
        }
    }
    if (o.sweep && (o.custom || sets_given || !o.timing || inspect.modes)) {
        fprintf(stderr, "harness: --sweep and --shapes time the performance recipe at each shape: "
                        "not with --size, --tests, --judge-only, --perf-only, --no-timing or an "
                        "inspection mode (see --help)\n");
        return HX_USAGE;
    }
    if (o.random.n > 0 && o.shapes) {
        fprintf(stderr, "harness: --sweep random and --shapes both choose the shapes: give one "
                        "(see --help)\n");
        return HX_USAGE;
    }
    if (o.vs && (o.topts.baseline || !o.timing || inspect.modes || gpu_all)) {
        fprintf(stderr, "harness: --vs times the two files against each other: not with "
                        "--baseline, --no-timing, --gpu all or an inspection mode (see --help)\n");
        return HX_USAGE;
    }
    if (optind != argc - 1) {
        fprintf(stderr, optind >= argc ? "harness: no solution file given (see --help)\n"
                                       : "harness: one solution file at a time (see --help)\n");
        return HX_USAGE;
    }
    o.solution = argv[optind];
    o.progress = !o.quiet && isatty(STDERR_FILENO);
    if (o.gpu || gpu_all) {
        int gc = hm_gpu_checks(&o, gpu_all, inspect.modes != 0);
        if (gc != HX_SUCCESS) return gc;
        if (gpu_all) return hm_gpu_all(&o, json);
    }
    if (inspect.modes) { /* inspection: its own modes (src/inspect/), never a judged run */
        unsigned dyn = inspect.modes & (IN_SANITIZE | IN_PROFILE);
        if (json || (dyn && inspect.modes != dyn) || dyn == (IN_SANITIZE | IN_PROFILE)) {
            fprintf(stderr, "harness: --sanitize and --profile run alone, and no inspection mode "
                            "prints JSON (see --help)\n");
            return HX_USAGE;
        }
        return in_main(&o, &inspect);
    }

    jd_result r;
    int code = jd_judge(&o, &r);
    if (!r.problem) { /* failed before a problem was known: one line */
        fprintf(stderr, "harness: %s\n", r.detail);
        jd_free(&r);
        return code;
    }
    if (code == HX_COMPILE)
        ld_print_log(r.ptx_failed ? &r.ptx_build : r.vs_failed ? &r.vs_build : &r.build, stderr);
    char note[400];
    jd_timing_note(&o.topts, note, sizeof(note));
    rp_report rep = {.solution = o.solution, .problem = r.problem,
                     .build = r.built ? &r.build : NULL, .arch = r.arch,
                     .run = r.ran ? &r.run : NULL, .status = r.status,
                     .status_detail = r.detail, .timing_note = note, .width = hm_term_width()};
    rep.gpu = r.gpu[0] ? r.gpu : NULL;
    rep.random = o.random.n > 0 ? &o.random : NULL; /* --sweep random's N and seed */
    rep.yardstick = o.topts.yardstick;
    rep.ran_as = r.ran_as[0] ? r.ran_as : NULL;
    rep.vs = o.vs;
    void (*print_json)(FILE *, const rp_report *) = o.sweep ? rp_sweep_json : rp_json;
    void (*print_text)(FILE *, const rp_report *) = o.sweep ? rp_sweep_text : rp_text;
    if (code == HX_BAD_FILE || code == HX_USAGE || code == HX_BAD_SIZE || code == HX_SIGNATURE ||
        code == HX_NO_SOLVE || code == HX_NO_DEVICE || code == HX_INTERNAL ||
        code == HX_CANNOT_RUN) {
        fprintf(stderr, "harness: %s\n", r.detail);
        if (json) print_json(stdout, &rep);
    } else if (json) {
        print_json(stdout, &rep);
    } else {
        print_text(stdout, &rep);
    }
    jd_free(&r);
    return code;
}
