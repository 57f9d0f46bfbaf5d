/* gpus.h — the judge's GPUs: the target each one compiles for, whether this machine's GPU can
 * run that code (as SASS, or as PTX the driver compiles at load), compiles of several targets at
 * once, and one file judged for every judge GPU (--gpu all). */
#ifndef GPUS_H
#define GPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "judge.h"

typedef struct {
    const char *name;   /* what --gpu takes: "A100" */
    const char *model;  /* the site's name: "A100-80GB" */
    const char *arch;   /* the judge's target: "sm_80" */
} gp_gpu;

#define GP_N 5

size_t gp_count(void);
const gp_gpu *gp_at(size_t i);
/* Case-insensitive; NULL when the name is not a judge GPU. */
const gp_gpu *gp_find(const char *name);
/* "T4, A100, H100, H200, B200" */
void gp_list(char *out, size_t len);
/* The judge GPUs that compile for arch, space separated ("H100 H200"); "" when none. */
void gp_names_for_arch(const char *arch, char *out, size_t len);

typedef enum {
    GP_RUN_SASS, /* the local GPU runs the target's SASS */
    GP_RUN_PTX,  /* a PTX-only build of the target, compiled by the driver for the local GPU */
    GP_RUN_NONE  /* arch-specific code of another chip, or an older GPU */
} gp_how;

/* How a GPU of compute capability major.minor runs code built for arch ("sm_80", "sm_90a"). */
gp_how gp_how_runs(const char *arch, int major, int minor);

/* One compile of many: fill src and lo; gp_build_all sets build and status. */
typedef struct {
    const char *src;
    ld_options lo;
    ld_build build;
    ld_status status;
} gp_job;

/* Run the jobs' nvcc processes side by side, at most `parallel` at once (0: one per CPU). */
void gp_build_all(gp_job *jobs, size_t n, int parallel);

/* For each file, the judge GPUs it compiles for ("T4 A100 H100 H200 B200"; "" for none), from
 * real SASS builds of every distinct target with the harness's recipe: cached, all side by side. */
void gp_judge_gpus(const char *const *files, size_t n, const char *nvcc_flags,
                   const char *cache_dir, char (*out)[64]);

/* The distinct judge targets in table order ("sm_75", "sm_80", "sm_90a", "sm_100a"). */
size_t gp_targets(const char **out, size_t max);

/* --gpu all: a row per judge GPU. */
typedef struct {
    const gp_gpu *gpu;
    bool compiled;          /* the target's SASS build succeeded */
    char compile_error[400]; /* nvcc's first error line when it did not */
    bool ran;               /* its tests ran here */
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
} gp_matrix;

/* Compile for every judge target at once, then judge each target this machine can run.
 * Exit code: the file's own error (3, 4, 7, 2) before any compile; 5 when any target fails to
 * compile; else the first failing row's code (1, 6, 9, 10, 11...); else 8 when there is no
 * device; else 0 (rows that cannot run here, 13 on their own, do not count). */
int gp_judge_all(const jd_options *o, gp_matrix *m);

#endif
