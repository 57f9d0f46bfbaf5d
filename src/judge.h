/* judge.h — the whole pipeline for one solution file: read its signature, pick the problem,
 * find the device (in a child), compile, run the tests, decide the status and exit code. The
 * command line (main.c) and the leaderboard both go through here. */
#ifndef JUDGE_H
#define JUDGE_H

#include <stdbool.h>

#include "loader.h"
#include "runner.h"
#include "shapes.h"
#include "sig.h"
#include "sigcheck.h"

/* Exit codes, one per kind of outcome (documented in the README and --help). */
enum {
    HX_SUCCESS = 0,
    HX_FAILED = 1,      /* test-case-failed */
    HX_USAGE = 2,       /* bad option or argument */
    HX_BAD_FILE = 3,    /* missing, unreadable or not a .cu file */
    HX_BAD_SIZE = 4,    /* --size outside the problem's constraints */
    HX_COMPILE = 5,     /* compile-error */
    HX_NO_SOLVE = 6,    /* no extern "C" solve in the object */
    HX_SIGNATURE = 7,   /* solve's declared signature is not the problem's */
    HX_NO_DEVICE = 8,   /* compiled, but no CUDA device to run on */
    HX_TIMEOUT = 9,
    HX_OOM = 10,        /* out-of-memory */
    HX_ERROR = 11,      /* error: crash, CUDA error, signal */
    HX_INTERNAL = 12,   /* the harness itself failed (nvcc missing, fork failed...) */
    HX_CANNOT_RUN = 13, /* compiled for the --gpu target, which this machine's GPU cannot run
                           (solve found; nothing run) */
    HX_OUTPUT_EXCEEDED = 14, /* the solution wrote more than RN_OUTPUT_CAP to stdout/stderr */
    HX_INTERRUPTED = 15 /* SIGINT or SIGTERM: children ended, the partial report printed */
};

/* The largest solution file read (checked by stat, before reading): exit 3 above it. */
#define JD_MAX_SOURCE_BYTES (4 << 20)

typedef struct {
    const char *solution;
    const char *problem;      /* NULL: inferred from the signature */
    const char *arch;         /* NULL: the device's */
    const char *nvcc_flags;
    const char *cache_dir;
    bool rebuild;
    bool sets[PB_N_SETS];     /* which tables to run */
    bool custom;              /* one case of the user's size instead of the tables */
    const char *size;         /* --size as given: the problem's sizes joined by x */
    float alpha, beta;        /* --alpha, --beta: for problems that have them */
    bool timing;              /* time the performance case(s) */
    rn_timing_opts topts;
    bool any_size;            /* --size may leave the constraints (benchmarking) */
    double timeout_s;
    uint64_t seed;
    bool progress;
    bool quiet;
    const pb_case *override_perf; /* leaderboard: time these shapes instead of the table's */
    size_t n_override_perf;
    /* --sweep: only the performance recipe, at every shape, checked then timed beside cuBLAS */
    bool sweep;
    const char *shapes;       /* --shapes as given; NULL: the problem's sweep list */
    sh_random random;         /* --sweep random[:N[:SEED]]: n > 0; instead of the list */
    const char *gpu;          /* --gpu: a judge GPU's name (gpus.h); its target replaces arch */
    bool check_only;          /* stop after the file, problem, signature and size checks */
    const char *vs;           /* --vs: a second file, judged on the timed cases and timed
                                 against, in cuBLAS's place */
} jd_options;

typedef struct {
    int exit_code;
    rs_status status;
    char detail[1024];        /* one line for what is not a test's verdict */
    const pb_problem *problem;
    sc_answer check;          /* what the compiler says solve is (sigcheck.h) */
    char arch[16];
    ld_build build;
    bool built;
    rs_run run;
    bool ran;
    rn_item *items;
    size_t n_items;
    pb_case *sweep_cases;     /* --sweep: the cases, and their names ("MxNxK") */
    char (*sweep_names)[48];
    pb_size *shapes;          /* --shapes, parsed for the problem */
    char gpu[16];             /* --gpu's name, "" without it */
    char ran_as[640];         /* --gpu: what ran here, on which GPU ("" when nothing ran) */
    ld_build ptx_build;       /* --gpu: the PTX-only object that ran, when ptx_built */
    bool ptx_built;
    bool ptx_failed;          /* --gpu: that build failed (its log is the one to print) */
    ld_build vs_build;        /* --vs: the other file's object (PTX-only when ptx_built) */
    bool vs_built;
    bool vs_failed;           /* --vs: that build failed (its log is the one to print) */
} jd_result;

/* The command line's defaults: every table, timing on, 10 s per test. */
void jd_default_options(jd_options *o);

int jd_judge(const jd_options *o, jd_result *r);
void jd_free(jd_result *r);

/* The problem whose signature the source declares (NULL when none matches). */
const pb_problem *jd_infer_problem(const sig_info *sig);
/* The problem's parameter types as the signature check compares them ("const half*", "int"). */
sig_verdict jd_compare_signature(const sig_info *sig, const pb_problem *p);
void jd_format_signature(const pb_problem *p, char *buf, size_t len);

/* build/cache beside the harness binary, unless $HARNESS_CACHE says otherwise. */
void jd_cache_dir(char *out, size_t len);

/* A number in [lo, hi] and nothing after it (option values). */
bool jd_parse_number(const char *s, double lo, double hi, double *out);

/* A solution's file name: its last component ends in ".cu" after at least one character, however
 * the path is written ("./.cu" and ".cu" alike are not). */
bool jd_cu_name(const char *path);

/* A one-line description of how times are taken, for reports. */
void jd_timing_note(const rn_timing_opts *t, char *buf, size_t len);

#endif
