/* runner.h — run a solution's tests in child processes and decide the verdicts.
 *
 * The parent never initialises CUDA, and it alone decides. It makes each test's inputs on the
 * host, has an oracle child (which never loads the solution) compute the reference, and has the
 * solution's child (worker.c) upload the inputs, call solve and copy every buffer back through
 * shared memory; the guard zones, the inputs and the output are then checked here, and the
 * timing samples the solution's child sends are checked against the parent's own clock. When
 * the solution's child hangs (per-test time limit), dies, exits, sends a record that cannot be
 * right, or hits a CUDA error that poisons its context, the parent records that test's verdict
 * and starts a fresh child at the next test.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "device.h"
#include "problem.h"

/* Final statuses, as the judge names them. */
typedef enum {
    RS_SUCCESS,
    RS_FAILED,        /* test-case-failed */
    RS_TIMEOUT,
    RS_OOM,           /* out-of-memory */
    RS_ERROR,
    RS_COMPILE_ERROR,
    RS_NOT_RUN,
    RS_COMPILED_ONLY, /* --gpu: the target's code cannot run on this GPU; solve was found */
    RS_OUTPUT_EXCEEDED, /* output-exceeded: more than RN_OUTPUT_CAP bytes on stdout/stderr */
    RS_INTERRUPTED    /* SIGINT or SIGTERM reached the harness during the test */
} rs_status;

/* The solution's stdout and stderr go through a pipe the parent reads: past this many bytes in
 * one test (its start-up counts with it) the process is killed and the test is output-exceeded.
 * The first RN_OUTPUT_SHOWN bytes of each test are copied to the harness's stderr as they come. */
#define RN_OUTPUT_CAP (1u << 20)
#define RN_OUTPUT_SHOWN (64u << 10)

const char *rs_status_name(rs_status s);

typedef struct {
    pb_case c;       /* a copy, so custom sizes need no static table */
    pb_set set;
    bool timed;      /* check, then time it */
} rn_item;

/* Which library call --baseline times: cuBLAS's (cublasGemmEx, cublasSgemm...) or cuBLASLt's
 * matmul with the fastest of its heuristic's top candidates per shape (fp16, fp32 and int4's
 * dequantize-then-GEMM; not int8), or both in the same rounds (base_*: cuBLAS, alt_*: Lt). */
typedef enum { RN_YS_CUBLAS, RN_YS_LT, RN_YS_BOTH } rn_yardstick;

typedef struct {
    int warmup, min_runs, max_runs;
    double max_time_s;   /* stop repeating after this long (at least 3 runs) */
    double noise_target_pct; /* stop early once the noise is under this, after min_runs */
    bool flush_l2;
    bool baseline;       /* time cuBLAS on the same case too */
    rn_yardstick yardstick; /* which library call that is */
} rn_timing_opts;

typedef struct {
    const pb_problem *problem;
    const char *so_path;
    const rn_item *items;
    size_t n_items;
    double timeout_s;
    uint64_t seed;       /* mixed into every case's seed */
    rn_timing_opts timing;
    bool progress;       /* a line per test on stderr */
    bool lookup_only;    /* load the object and look solve up; call nothing on the device */
    const char *vs_path; /* --vs: a second object, checked on each timed case and timed in the
                            baseline's place */
    double first_call_extra_s; /* added to the limit of each solution process's first command:
                                  a PTX-only build is compiled by the driver on its first launch
                                  (run 91: ~20 s for int4 03, killed at --timeout 6 every time,
                                  so never cached) */
    bool output_hidden;  /* the solution's output is not copied to stderr (the tests) */
} rn_plan;

typedef struct {
    bool done;
    int warmup, n_runs;
    double median_ms, min_ms, max_ms, noise_pct;
    double host_median_ms;   /* host clock around solve + device-wide synchronize */
    bool escaped;            /* host time far above event time: work outside the events */
    double parent_ms;        /* the parent's own clock around the whole timed loop */
    double overhead_ms;      /* per round, what the parent saw beyond the reported host times */
    bool unaccounted;        /* that is far above what a round's restores and syncs take */
    bool impossible;         /* faster than the chip's peak */
    double peak_tflops;
    bool flush_l2;
    bool base_done;
    int base_runs;
    double base_median_ms, base_min_ms, base_noise_pct;
    char base_error[200];
    dv_lt_pick lt;           /* --baseline lt, both: the algorithm cuBLASLt ran (lt.chosen) */
    /* --baseline both: cuBLASLt's calls, a third series in the same rounds */
    bool alt_done;
    int alt_runs;
    double alt_median_ms, alt_min_ms, alt_noise_pct;
    char alt_error[200];
    /* --vs: the baseline slot holds the other file's calls */
    bool vs;
    bool vs_interval;        /* vs_lo, vs_hi hold a 95% interval of median / base_median */
    double vs_lo, vs_hi;
    int vs_verdict;          /* -1 faster, 0 no difference beyond the noise, 1 slower */
    /* --vs: the case timed in each order of the two files' first calls, each in a fresh
     * process ([0] this file's first call first, [1] the other's); the medians above are then
     * the geometric means of the two orders' medians, and the interval is over both */
    int vs_orders;           /* orders timed: 2, or 1 when the other file failed its check */
    double vs_order_ratio[2];
    bool vs_order_interval[2];
    double vs_order_lo[2], vs_order_hi[2];
    bool vs_order_moves;     /* the two orders' intervals are disjoint: where a file's first
                                allocations land moves its time (or the other's) */
} rs_timing;

typedef struct {
    char name[64];
    pb_set set;
    double v[PB_MAX_SCALARS]; /* the case's scalars (the problem's order) */
    rs_status status;
    char detail[400];        /* why it failed, in one line */
    double atol, rtol;
    bool checked;            /* check holds a comparison */
    ck_summary check;
    double wall_ms;
    rs_timing timing;
    rs_status vs_status;     /* --vs: the other file's verdict on this (timed) case */
    char vs_detail[400];
} rs_test;

typedef enum {
    RN_OK,            /* tests ran (each has its verdict) */
    RN_NO_DEVICE,     /* loaded, but no CUDA device */
    RN_NO_SOLVE,      /* the object has no `solve` symbol */
    RN_LOAD_FAILED,   /* dlopen failed */
    RN_INTERNAL       /* the harness itself failed (fork, pipe, start-up, the oracle) */
} rn_outcome;

typedef struct {
    rn_outcome outcome;
    char detail[400];
    dv_info device;          /* as the oracle found it (no solution code ran there) */
    rs_test *tests;          /* n_items entries, in plan order */
    size_t n_tests;
    char sandbox[400];       /* what of the solution's confinement does not hold ("" all does) */
    bool sandbox_known;      /* the solution's process said the three below */
    bool sandbox_dropped, sandbox_filtered; /* it ran as an unprivileged uid; under the filter */
    char output[256];        /* the first bytes the solution wrote to stdout/stderr */
    size_t output_bytes;     /* all it wrote, over the run */
    /* --vs: the other file's verdict on its own loading (its constructors) when that failed
     * (RS_SUCCESS: it did not). From then on the solution's processes load this file alone,
     * and each timed case carries it as vs_status, not compared. */
    rs_status vs_lost;
    char vs_lost_detail[400];
} rs_run;

/* The time a report shows: the events' median, or the host clock's when work escaped the
 * events (launched on a stream of the solution's own). */
double rs_reported_ms(const rs_timing *t);

/* Run every item; fills run (free with rn_free). Returns run->outcome. */
rn_outcome rn_run(const rn_plan *plan, rs_run *run);
void rn_free(rs_run *run);

/* Ask a child for the device (the parent must not initialise CUDA). */
bool rn_probe(dv_info *info, double timeout_s);

/* The first failing verdict over the tests (RS_NOT_RUN counts as success); interrupted when
 * any test was. */
rs_status rn_overall(const rs_run *run);

#endif
