/* gpus.h — the judge's GPUs: the target each one compiles for, whether this machine's GPU can
 * run that code (as SASS, or as PTX the driver compiles at load), and compiles of several targets
 * at once. The judge calls these; --gpu all, which calls the judge, is gpus_all.h. */
#ifndef GPUS_H
#define GPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "loader.h"

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

#endif
