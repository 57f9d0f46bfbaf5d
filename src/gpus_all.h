/* gpus_all.h — --gpu all: one file judged for every judge GPU, a row each. */
#ifndef GPUS_ALL_H
#define GPUS_ALL_H

#include "gpus.h"
#include "judge.h"

/* --gpu all: a row per judge GPU. */
typedef struct {
    const gp_gpu *gpu;
    bool compiled;          /* the target's SASS build succeeded */
    char compile_error[400]; /* nvcc's first error line when it did not */
    bool ran;               /* its tests ran here */
    bool load_failed;       /* they did not (no device, or code this GPU cannot run), but loading
                               the object did and failed: detail says how */
    char ran_here[300];     /* "yes, as SASS", "yes, as compute_75 PTX on NVIDIA H200", "no: ..." */
    int exit_code;          /* jd_judge's for this row (HX_COMPILE when it did not compile) */
    rs_status status;
    int judge_pass, judge_n, extra_pass, extra_n;
    bool timed;
    double perf_ms;         /* the performance case's runtime */
    char detail[400];
} gp_row;

typedef struct {
    const pb_problem *problem;
    dv_info device;          /* the local GPU (device.present false without one) */
    gp_row rows[GP_N];
    int exit_code;
    char detail[1024];       /* why nothing was judged (a bad file, option or signature) */
    char error[512];         /* the "harness: " line on stderr and JSON's "error" when the rows
                                were judged but the exit is not a test's verdict ("" when it is) */
} gp_matrix;

/* Compile for every judge target at once, then judge each target this machine can run.
 * Exit code: the file's own error (3, 4, 7, 2) before any compile; 5 when any target fails to
 * compile; else the first failing row's code (1, 6, 9, 10, 11...); else 8 when there is no
 * device; else 0 (rows that cannot run here, 13 on their own, do not count). m->error then
 * says why when that is not a test's verdict: 5, the first target that does not compile and
 * nvcc's first error; 8, no device; another (6, 12...), the first such row's target and error,
 * also a load that failed where no test ran (11, 9...: without a device, the object is still
 * loaded, and a constructor's crash or hang is the row's verdict). */
int gp_judge_all(const jd_options *o, gp_matrix *m);

#endif
