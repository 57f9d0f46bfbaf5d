/* cli.c — the judge's command line: argv to cl_args, or a usage error in one line naming the
 * option. Nothing here prints or exits (main.c does), so the parsers run in-process in the
 * fuzz suite (tests/test_fuzz.c). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "archs.h"
#include "gpus.h"
#include "shapes.h"

void cl_usage(FILE *out)
{
    fputs(
        "usage: harness [options] SOLUTION.cu\n"
        "       harness --sweep [random[:N[:SEED]]] | --shapes LIST [options] SOLUTION.cu\n"
        "       harness --vs OTHER.cu [options] SOLUTION.cu\n"
        "       harness leaderboard [--problem P] [--sizes 1024,4096] [--json FILE]\n"
        "       harness leaderboard --sweep [--problem P] [--stages 09,10,11,12]\n"
        "       harness leaderboard --check [--problem P]\n"
        "       harness new NAME [--problem P] [--dir DIR] [--json]\n"
        "\n"
        "Compiles SOLUTION.cu (at most 4 MiB) with nvcc, loads its extern \"C\" solve(), runs the\n"
        "problem's tests against a cuBLAS reference and times the performance case, like the\n"
        "LeetGPU judge.\n"
        "\n"
        "options:\n"
        "  -p, --problem NAME   gemm_fp16 | sgemm | matmul_fp32 | batched_matmul_fp32 |\n"
        "                       batched_matmul_fp16 | int8_matmul | int4_matmul\n"
        "                       (default: from solve's signature)\n"
        "  -t, --tests LIST     comma list of example, functional, perf, extra, judge, all, at\n"
        "                       least one (default all; judge = example,functional,perf)\n"
        "      --judge-only     same as --tests judge: what the site's Submit runs\n"
        "      --perf-only      same as --tests perf\n"
        "  -s, --size MxNxK     one case of this size (BATCHxMxNxK for the batched problems), checked\n"
        "                       then timed, instead of the tables (--tests: only perf)\n"
        "      --alpha A, --beta B   alpha and beta for --size (default 1 and 1; only with --size)\n"
        "      --no-constraints let --size or --shapes leave the problem's constraints; never a\n"
        "                       size below 1 or past 2147483647, nor buffers past 64 GiB or the\n"
        "                       host's memory (exit 4)\n"
        "      --sweep          only the performance case's recipe, at every shape of the problem's\n"
        "                       sweep list: each checked, then timed beside cuBLAS (as --baseline);\n"
        "                       one table, a row per shape (not with --size, --tests,\n"
        "                       --judge-only, --perf-only, --no-timing or an inspection mode)\n"
        "      --sweep random[:N[:SEED]]   --sweep over N shapes (default 64, at most 256)\n"
        "                       drawn from SEED (default 1) inside the constraints: log-uniform,\n"
        "                       1/4 odd, 1/4 off a multiple of 8; the same list on any machine\n"
        "      --shapes LIST    --sweep over these shapes: comma list of MxNxK or N (N³), at most 64\n"
        "      --seed N         change every case's random inputs (an integer, 0..2^64-1)\n"
        "      --baseline [cublas|lt|both]  time cuBLAS on the same case, alternating with the\n"
        "                       solution call by call, and print the ratio; lt (or cublaslt):\n"
        "                       cuBLASLt's matmul, the fastest of its top 8 heuristics per shape;\n"
        "                       both: the two in the same rounds (lt, both: not for int8_matmul)\n"
        "      --vs OTHER.cu    judge OTHER.cu on the same timed cases and time the two in\n"
        "                       alternation, twice: each file's first call first, in a fresh\n"
        "                       process each time (where a file's first allocations land can\n"
        "                       move its time); each median, the ratio (both orders weighed\n"
        "                       alike), a 95% interval for it and a verdict (faster / slower /\n"
        "                       no difference beyond the noise); with --size, --sweep, --gpu,\n"
        "                       --json (not with --baseline, --no-timing, --gpu all or an\n"
        "                       inspection mode)\n",
        out);
    fputs( /* split: ISO C's limit on one string's length */
        "      --flush-l2       flush L2 before every timed call\n"
        "      --no-timing      check only\n"
        "      --min-runs N     timed calls before the noise test may stop early (3..1000,\n"
        "                       default 30)\n"
        "      --max-time SEC   stop repeating after this long, sooner than --min-runs for a\n"
        "                       slow solution, never under 3 calls (0.01..600, default 1);\n"
        "                       2000 calls at most\n"
        "      --timeout SEC    per-test time limit, per call while timing (0.1..3600, default 10); a\n"
        "                       PTX build run here (--gpu T4/A100 on a newer GPU): the first\n"
        "                       call of each process gets 300 s more, for the driver's compile\n"
        "      --arch sm_XX     compile for this architecture (default: the device's; sm_90a\n"
        "                       for compute capability 9.0; sm_90a when there is no device); one\n"
        "                       that `nvcc --list-gpu-arch` does not list is exit 2\n",
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
        "      --nvcc-flags F   extra nvcc flags, space separated, at most 64; only letters,\n"
        "                       digits and -_=.,/:+@% (nvcc passes them through a shell)\n"
        "      --rebuild        ignore the cached object\n"
        "      --json           the whole result as JSON on stdout: one object on every exit\n"
        "                       (usage errors too; not --help, --version), with exit_code and\n"
        "                       error (the stderr line, null for a test's verdict)\n"
        "  -q, --quiet          no progress on stderr\n"
        "  -h, --help           this text\n"
        "      --version        the harness's version\n"
        "\n"
        "inspection (separate modes, each --json too; no verdict or timing of a normal run\n"
        "changes; --sanitize and --profile each alone, the solution confined as in a run):\n"
        "      --resources      registers, shared memory, stack, spills per kernel (ptxas -v) and\n"
        "                       the occupancy they allow at 128/256/384 threads\n"
        "      --ptx, --sass    the PTX / SASS instruction mix (FFMA, HMMA, LDS widths, LDGSTS...);\n"
        "                       files next to the cached object\n"
        "      --sanitize[=T]   run the tests under compute-sanitizer T (memcheck, racecheck,\n"
        "                       synccheck, initcheck); a finding is an error (exit 11)\n"
        "      --profile        the performance case once under Nsight Compute: duration,\n"
        "                       occupancy, throughput, SM clock, L2, DRAM bytes, tensor\n"
        "                       pipes, top stalls\n"
        "  new NAME [--problem P] [--dir DIR] [--json]   the starter as the next stage file, header\n"
        "                       to fill in\n"
        "\n"
        "exit codes:\n"
        "  0 success            1 test-case-failed      2 bad option or argument (also\n"
        "    --nvcc-flags that leave nvcc no loadable object: -E, -c, unknown flags)\n"
        "  3 missing, unreadable, over 4 MiB or not a .cu file\n"
        "  4 --size/--shapes outside the constraints (or not a size at all: below 1, past int,\n"
        "    buffers past 64 GiB or the host's memory)\n"
        "  5 compile-error      6 no extern \"C\" solve   7 solve's signature is not the problem's\n"
        "  8 no CUDA device     9 timeout              10 out-of-memory\n"
        " 11 error (crash, CUDA error, signal)         12 the harness itself failed\n"
        " 13 compiled for the --gpu target, which this machine's GPU cannot run (solve found;\n"
        "    nothing run)\n"
        " 14 output-exceeded: the solution wrote more than 1 MiB to stdout/stderr in one test\n"
        "    (its output is shown on stderr up to 64 KiB per test)\n"
        " 15 interrupted: SIGINT or SIGTERM; the tests run so far keep their verdicts\n",
        out);
}

static int cl_fail(cl_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cl_fail(cl_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof(a->error), fmt, ap);
    va_end(ap);
    for (char *p = a->error; *p; p++) /* one line, whatever an argument held */
        if (*p == '\n' || *p == '\r') *p = ' ';
    return HX_USAGE;
}

/* --tests's list: every word a set, at least one set chosen ("" and "," choose none). */
static bool cl_parse_sets(const char *list, bool sets[PB_N_SETS])
{
    memset(sets, 0, sizeof(bool) * PB_N_SETS);
    char *copy = strdup(list), *save = NULL;
    if (!copy) return false;
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
    bool any = false;
    for (int s = 0; s < PB_N_SETS; s++) any |= sets[s];
    return ok && any;
}

/* Integers joined by x (--size) or a comma list of them (--shapes) for some problem: how many
 * sizes it takes and their range are the judge's to check once the problem is known. */
static bool cl_size_syntax(const char *s)
{
    int v[PB_MAX_SIZES], n;
    return pb_scan_sizes(s, false, v, &n) != PB_SCAN_SYNTAX;
}

static bool cl_shapes_syntax(const char *s)
{
    pb_size *sh = calloc(PB_MAX_SHAPES, sizeof(*sh));
    size_t count;
    bool ok = false;
    for (int n = 1; sh && n <= PB_MAX_SIZES && !ok; n++)
        ok = pb_scan_size_list(n, s, sh, PB_MAX_SHAPES, &count) != PB_SCAN_SYNTAX;
    free(sh);
    return ok;
}

bool cl_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (*s < '0' || *s > '9') return false; /* strtoull would take a sign and leading spaces */
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool cl_parse_decimal(const char *s, double lo, double hi, double *out)
{
    /* the grammar first: strtod alone also takes spaces, hex, inf and nan */
    const char *q = s + (*s == '+' || *s == '-');
    size_t whole = strspn(q, "0123456789");
    q += whole;
    size_t frac = 0;
    if (*q == '.') {
        frac = strspn(q + 1, "0123456789");
        q += 1 + frac;
    }
    if (!whole && !frac) return false;
    if (*q == 'e' || *q == 'E') {
        q += 1 + (q[1] == '+' || q[1] == '-');
        size_t exp = strspn(q, "0123456789");
        if (!exp) return false;
        q += exp;
    }
    if (*q) return false;
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* Characters no shell treats specially: nvcc hands its options to a shell, so anything else in
 * --nvcc-flags could run a command. Enough for -DNAME=VALUE, -I/path, -Xptxas -v, --opt=a,b. */
static bool cl_flag_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("-_=.,/:+@%", ch));
}

/* --nvcc-flags: only safe characters, split on spaces, at most CL_MAX_NVCC_FLAGS words (the
 * builds' argv have room for 80, and would drop the rest without a word). */
static int cl_nvcc_flags(cl_args *a, const char *flags)
{
    size_t words = 0;
    for (const char *q = flags; *q; q++) {
        unsigned char ch = (unsigned char)*q;
        if (ch == ' ') continue;
        if (!cl_flag_char(ch)) {
            char shown[16];
            if (ch == '\n') snprintf(shown, sizeof(shown), "a newline");
            else if (ch == '\t') snprintf(shown, sizeof(shown), "a tab");
            else if (ch < 0x20 || ch >= 0x7f) snprintf(shown, sizeof(shown), "byte 0x%02x", ch);
            else snprintf(shown, sizeof(shown), "'%c'", ch);
            return cl_fail(a, "--nvcc-flags: %s at character %zu is not allowed: nvcc passes its "
                              "flags through a shell, so only letters, digits, spaces and "
                              "-_=.,/:+@%% may appear (see --help)", shown, (size_t)(q - flags) + 1);
        }
        if (q == flags || q[-1] == ' ') words++;
    }
    if (words > CL_MAX_NVCC_FLAGS)
        return cl_fail(a, "--nvcc-flags: %zu flags, at most %d (see --help)", words,
                       CL_MAX_NVCC_FLAGS);
    a->o.nvcc_flags = flags;
    return HX_SUCCESS;
}

/* --baseline's values: which library call is the yardstick. */
static bool cl_yardstick_word(const char *s)
{
    return strcmp(s, "cublas") == 0 || strcmp(s, "lt") == 0 || strcmp(s, "cublaslt") == 0 ||
           strcmp(s, "both") == 0;
}

/* --size's one case is a performance case: a test-set choice fits it when it is perf alone or
 * everything (the default's meaning); any other would be silently ignored. */
static bool cl_sets_fit_size(const bool sets[PB_N_SETS])
{
    bool all = true, other = false;
    for (int s = 0; s < PB_N_SETS; s++) {
        all = all && sets[s];
        other = other || (sets[s] && s != PB_SET_PERFORMANCE);
    }
    return all || (sets[PB_SET_PERFORMANCE] && !other);
}

/* The checks between options, once all are read. */
static int cl_combinations(cl_args *a, bool sets_given, bool scalars_given)
{
    jd_options *o = &a->o;
    if (o->sweep && (o->custom || sets_given || !o->timing || a->inspect.modes))
        return cl_fail(a, "--sweep and --shapes time the performance recipe at each shape: not "
                          "with --size, --tests, --judge-only, --perf-only, --no-timing or an "
                          "inspection mode (see --help)");
    if (o->custom && sets_given && !cl_sets_fit_size(o->sets))
        return cl_fail(a, "--tests does not apply with --size: --size runs one case, the "
                          "performance recipe at that size (--tests perf, --perf-only or all "
                          "go with it; --judge-only and other sets do not; see --help)");
    if (o->random.n > 0 && o->shapes)
        return cl_fail(a, "--sweep random and --shapes both choose the shapes: give one (see --help)");
    if (o->vs && (o->topts.baseline || !o->timing || a->inspect.modes || a->gpu_all))
        return cl_fail(a, "--vs times the two files against each other: not with --baseline, "
                          "--no-timing, --gpu all or an inspection mode (see --help)");
    if (scalars_given && !o->custom)
        return cl_fail(a, "--alpha and --beta set --size's case: give --size too (see --help)");
    if (o->gpu || a->gpu_all) {
        if (o->arch)
            return cl_fail(a, "--gpu and --arch both choose the target: give one (see --help)");
        if (a->gpu_all && (a->inspect.modes || o->sweep))
            return cl_fail(a, "--gpu all is its own table: not with --sweep or an inspection "
                              "mode (give one GPU)");
        if (a->inspect.modes) { /* an inspection mode takes the GPU's target */
            o->arch = gp_find(o->gpu)->arch;
            o->gpu = NULL;
        }
    }
    unsigned dyn = a->inspect.modes & (IN_SANITIZE | IN_PROFILE);
    if (dyn && (a->inspect.modes != dyn || dyn == (IN_SANITIZE | IN_PROFILE)))
        return cl_fail(a, "--sanitize and --profile each run alone, with no other inspection mode "
                          "(see --help)");
    a->inspect.json = a->json;
    return HX_SUCCESS;
}

enum { O_JUDGE = 256, O_PERF, O_ALPHA, O_BETA, O_SEED, O_BASE, O_FLUSH, O_NOTIME, O_MINRUNS,
       O_MAXTIME, O_TIMEOUT, O_ARCH, O_FLAGS, O_REBUILD, O_JSON, O_VERSION, O_ANYSIZE,
       O_RESOURCES, O_PTX, O_SASS, O_SANITIZE, O_PROFILE, O_SWEEP, O_SHAPES, O_VS, O_GPU };

static const struct option cl_longs[] = {
    {"problem", required_argument, 0, 'p'},   {"tests", required_argument, 0, 't'},
    {"judge-only", no_argument, 0, O_JUDGE},  {"perf-only", no_argument, 0, O_PERF},
    {"size", required_argument, 0, 's'},      {"alpha", required_argument, 0, O_ALPHA},
    {"beta", required_argument, 0, O_BETA},   {"seed", required_argument, 0, O_SEED},
    {"baseline", optional_argument, 0, O_BASE},     {"flush-l2", no_argument, 0, O_FLUSH},
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
    /* the sweep (judge.c, report.c), --vs, the judge's GPUs (gpus.c) */
    {"sweep", optional_argument, 0, O_SWEEP},       {"shapes", required_argument, 0, O_SHAPES},
    {"vs", required_argument, 0, O_VS},       {"gpu", required_argument, 0, O_GPU},
    {0, 0, 0, 0}};

#define CL_SHORTS ":p:t:s:qh" /* ":": a missing value is told apart from an unknown option */
#define CL_SHORTS_VALUED "pts"  /* the short options of CL_SHORTS that take a value */

/* The long option a word names as getopt_long reads it: an exact name, or a prefix of exactly
 * one name. -1: none; -2: ambiguous. */
static int cl_find_long(const char *name, size_t len)
{
    int prefix = -1;
    for (int i = 0; cl_longs[i].name; i++) {
        if (strncmp(cl_longs[i].name, name, len) != 0) continue;
        if (cl_longs[i].name[len] == '\0') return i;
        prefix = prefix == -1 ? i : -2;
    }
    return prefix;
}

/* Whether --json is on the line as an option, read the way getopt_long will read it (prefixes,
 * values after a space skipped, "--" ends the options), but by hand: getopt_long would permute
 * argv, and this look comes first so that an error before --json is JSON too. */
static bool cl_json_asked(int argc, char **argv)
{
    bool in_order = getenv("POSIXLY_CORRECT") != NULL; /* getopt then stops at the first operand */
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0) break;
        if (w[0] != '-' || w[1] == '\0') { /* an operand */
            if (in_order) break;
            continue;
        }
        if (w[1] != '-') { /* short options, clustered: a valued one takes the rest or the next word */
            for (const char *c = w + 1; *c; c++)
                if (strchr(CL_SHORTS_VALUED, *c)) {
                    if (c[1] == '\0') i++;
                    break;
                }
            continue;
        }
        size_t len = strcspn(w + 2, "=");
        bool attached = w[2 + len] == '=';
        int k = cl_find_long(w + 2, len);
        if (k < 0) continue; /* unknown or ambiguous: the parse stops there; --json after it counts */
        int val = cl_longs[k].val;
        if (val == O_JSON) json = json || !attached; /* --json=1 is an error, not JSON */
        else if (!attached && cl_longs[k].has_arg == required_argument) i++;
        else if (!attached && i + 1 < argc &&
                 ((val == O_BASE && cl_yardstick_word(argv[i + 1])) ||
                  (val == O_SWEEP && sh_is_random(argv[i + 1]))))
            i++; /* as cl_parse takes these optional values after a space */
    }
    return json;
}

/* One option's value into a; HX_SUCCESS or the usage error. */
static int cl_option(cl_args *a, int c, const char *arg, bool *scalars_given)
{
    jd_options *o = &a->o;
    double d;
    uint64_t u;
    switch (c) {
    case 'p':
        if (!pb_find(arg)) {
            char names[256] = "";
            for (size_t i = 0; i < pb_count(); i++)
                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                         i ? ", " : "", pb_at(i)->name);
            return cl_fail(a, "--problem: unknown problem '%s' (%s)", arg, names);
        }
        o->problem = arg;
        return HX_SUCCESS;
    case 't':
        if (!cl_parse_sets(arg, o->sets))
            return cl_fail(a, "--tests: expected a comma list of example, functional, perf, "
                              "extra, judge, all; got '%s'", arg);
        return HX_SUCCESS;
    case O_JUDGE: cl_parse_sets("judge", o->sets); return HX_SUCCESS;
    case O_PERF: cl_parse_sets("perf", o->sets); return HX_SUCCESS;
    case 's':
        if (!cl_size_syntax(arg))
            return cl_fail(a, "--size: expected integers joined by x (MxNxK; BATCHxMxNxK for "
                              "the batched problems), got '%s'", arg);
        o->size = arg;
        o->custom = true;
        return HX_SUCCESS;
    case O_ALPHA:
    case O_BETA:
        if (!cl_parse_decimal(arg, -1e6, 1e6, &d))
            return cl_fail(a, "--%s: expected a number in -1e6..1e6, got '%s'",
                           c == O_ALPHA ? "alpha" : "beta", arg);
        if (c == O_ALPHA) o->alpha = (float)d;
        else o->beta = (float)d;
        *scalars_given = true;
        return HX_SUCCESS;
    case O_SEED:
        if (!cl_parse_uint(arg, 0, UINT64_MAX, &u))
            return cl_fail(a, "--seed: expected a non-negative integer below 2^64, got '%s'", arg);
        o->seed = u;
        return HX_SUCCESS;
    case O_BASE: /* --baseline [cublas | lt | cublaslt | both] */
        if (arg && !cl_yardstick_word(arg))
            return cl_fail(a, "--baseline: expected cublas, lt, cublaslt or both, got '%s'", arg);
        o->topts.baseline = true;
        o->topts.yardstick = !arg || strcmp(arg, "cublas") == 0 ? RN_YS_CUBLAS
                             : strcmp(arg, "both") == 0        ? RN_YS_BOTH
                                                               : RN_YS_LT;
        return HX_SUCCESS;
    case O_FLUSH: o->topts.flush_l2 = true; return HX_SUCCESS;
    case O_NOTIME: o->timing = false; return HX_SUCCESS;
    case O_MINRUNS:
        if (!cl_parse_uint(arg, 3, 1000, &u))
            return cl_fail(a, "--min-runs: expected a whole number in 3..1000, got '%s'", arg);
        o->topts.min_runs = (int)u;
        return HX_SUCCESS;
    case O_MAXTIME:
        if (!cl_parse_decimal(arg, 0.01, 600, &d))
            return cl_fail(a, "--max-time: expected seconds in 0.01..600, got '%s'", arg);
        o->topts.max_time_s = d;
        return HX_SUCCESS;
    case O_TIMEOUT:
        if (!cl_parse_decimal(arg, 0.1, 3600, &d))
            return cl_fail(a, "--timeout: expected seconds in 0.1..3600, got '%s'", arg);
        o->timeout_s = d;
        return HX_SUCCESS;
    case O_ARCH:
        if (!ld_arch_valid(arg))
            return cl_fail(a, "--arch: expected sm_NN, sm_NNa or sm_NNNf (e.g. sm_90a), got '%s'", arg);
        o->arch = arg;
        return HX_SUCCESS;
    case O_FLAGS: return cl_nvcc_flags(a, arg);
    case O_REBUILD: o->rebuild = true; return HX_SUCCESS;
    case O_ANYSIZE: o->any_size = true; return HX_SUCCESS;
    case O_JSON: return HX_SUCCESS; /* a->json: cl_parse */
    case O_RESOURCES: a->inspect.modes |= IN_RESOURCES; return HX_SUCCESS;
    case O_PTX: a->inspect.modes |= IN_PTX; return HX_SUCCESS;
    case O_SASS: a->inspect.modes |= IN_SASS; return HX_SUCCESS;
    case O_PROFILE: a->inspect.modes |= IN_PROFILE; return HX_SUCCESS;
    case O_SANITIZE:
        if (arg && !in_sanitize_tool_valid(arg))
            return cl_fail(a, "--sanitize=%s: expected memcheck, racecheck, synccheck or initcheck", arg);
        a->inspect.modes |= IN_SANITIZE;
        a->inspect.san_tool = arg;
        return HX_SUCCESS;
    case O_SWEEP: /* --sweep, --sweep=random:N:SEED */
        if (arg) {
            char why[200];
            if (!sh_parse_random(arg, &o->random, why, sizeof(why))) return cl_fail(a, "%s", why);
        }
        o->sweep = true;
        return HX_SUCCESS;
    case O_VS:
        if (!*arg) return cl_fail(a, "--vs: expected the other .cu file, got ''");
        o->vs = arg;
        return HX_SUCCESS;
    case O_SHAPES:
        if (!cl_shapes_syntax(arg))
            return cl_fail(a, "--shapes: expected a comma list of MxNxK (BATCHxMxNxK) or N, at "
                              "most %d, got '%s'", PB_MAX_SHAPES, arg);
        o->shapes = arg; /* parsed for the problem (its number of sizes) by the judge */
        o->sweep = true;
        return HX_SUCCESS;
    case O_GPU:
        if (strcasecmp(arg, "all") == 0) {
            a->gpu_all = true;
            o->gpu = NULL;
            return HX_SUCCESS;
        }
        if (!gp_find(arg)) {
            char names[128];
            gp_list(names, sizeof(names));
            return cl_fail(a, "--gpu: unknown GPU '%s' (the judge's: %s, or all)", arg, names);
        }
        o->gpu = gp_find(arg)->name;
        a->gpu_all = false;
        return HX_SUCCESS;
    case 'q': o->quiet = true; return HX_SUCCESS;
    }
    return HX_INTERNAL; /* not reached: every option of cl_longs has its case */
}

int cl_parse(int argc, char **argv, cl_args *a)
{
    memset(a, 0, sizeof(*a));
    jd_default_options(&a->o);
    opterr = 0;
    a->json = cl_json_asked(argc, argv); /* for an error before getopt reaches --json */
    bool sets_given = false, scalars_given = false, json_seen = false;
    optind = 0; /* 0: getopt's whole state starts again */
    for (int c; (c = getopt_long(argc, argv, CL_SHORTS, cl_longs, NULL)) != -1;) {
        if (c == 'h') a->help = true;
        else if (c == O_VERSION) a->version = true;
        if (c == 'h' || c == O_VERSION) return HX_SUCCESS;
        if (c == 't' || c == O_JUDGE || c == O_PERF) sets_given = true; /* --sweep refuses them */
        json_seen = json_seen || c == O_JSON;
        if (c == ':' || c == '?') { /* the option as it was written: "--size", "-s", "--jsn" */
            const char *w = optind > 0 && optind <= argc ? argv[optind - 1] : "";
            char name[64];
            if (strncmp(w, "--", 2) == 0)
                snprintf(name, sizeof(name), "%.*s", (int)strcspn(w, "="), w);
            else
                snprintf(name, sizeof(name), "-%c", optopt > 0 && optopt < 256 ? optopt : '?');
            return cl_fail(a, c == ':' ? "%s: missing its value (see --help)"
                                       : "%s: unknown option, ambiguous abbreviation or a value "
                                         "it does not take (see --help)", name);
        }
        /* --baseline and --sweep take their optional value after a space too */
        const char *arg = optarg;
        if (!arg && optind < argc &&
            ((c == O_BASE && cl_yardstick_word(argv[optind])) || (c == O_SWEEP && sh_is_random(argv[optind]))))
            arg = argv[optind++];
        int rc = cl_option(a, c, arg, &scalars_given);
        if (rc != HX_SUCCESS) return rc;
    }
    a->json = json_seen; /* every option read: getopt's own reading decides, not the first look */
    int rc = cl_combinations(a, sets_given, scalars_given);
    if (rc != HX_SUCCESS) return rc;
    if (optind != argc - 1)
        return cl_fail(a, optind >= argc ? "no solution file given (see --help)"
                                         : "one solution file at a time: '%s' and '%s' (see --help)",
                       optind < argc ? argv[optind] : "", optind + 1 < argc ? argv[optind + 1] : "");
    if (!*argv[optind]) return cl_fail(a, "the solution file's name is empty");
    a->o.solution = argv[optind];
    return HX_SUCCESS;
}

int cl_check_arch(cl_args *a)
{
    if (!a->o.arch) return HX_SUCCESS;
    char list[1024];
    if (!ar_nvcc_archs(list, sizeof(list))) return HX_SUCCESS; /* the compile will say */
    if (ar_arch_supported(a->o.arch, list)) return HX_SUCCESS;
    char sms[1024] = "";
    for (char *w = strstr(list, "compute_"); w; w = strstr(w + 1, "compute_")) {
        size_t n = strspn(w + 8, "0123456789");
        snprintf(sms + strlen(sms), sizeof(sms) - strlen(sms), "%ssm_%.*s", sms[0] ? " " : "",
                 (int)n, w + 8);
    }
    return cl_fail(a, "--arch %s: this nvcc does not compile for it (it does: %s; an a suffix "
                      "from sm_90, f from sm_100)", a->o.arch, sms);
}
