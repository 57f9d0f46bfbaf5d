/* lb_random.h — the leaderboard's "random shapes" section: a few stages over one fixed seed's
 * random shapes (shapes.h), each timed beside each yardstick (cuBLAS; cuBLASLt where offered)
 * in the same rounds, summarised per stage and yardstick as the sweep footer's distribution,
 * with a chart of each stage's sorted ratios. A stage's run and the writer live here;
 * leaderboard.c picks the stages and splices the section. */
#ifndef LB_RANDOM_H
#define LB_RANDOM_H

#include <stdio.h>

#include "judge.h"
#include "leaderboard.h"
#include "shapes.h"

#define LR_N 64      /* shapes: one seed's, the same for every stage and yardstick */
#define LR_SEED 1
#define LR_YARDS 2   /* cuBLAS, cuBLASLt */
#define LR_CAP 4.0   /* the chart's top: ratios above it (and failed shapes) plot there */
_Static_assert(LR_N <= PB_MAX_SHAPES, "a stage's run holds at most PB_MAX_SHAPES shapes");

/* The yardsticks a problem's section times beside: 2 (cuBLAS, cuBLASLt), or 1 where cuBLASLt
 * is not offered (int8). */
int lr_yardsticks(const pb_problem *p);

/* One stage (path, its stem) through the judge over the section's shapes, beside every
 * yardstick in one run (--baseline both; cuBLAS alone for int8): runs[y] gets its verdict and
 * times per shape beside yardstick y (runs: lr_yardsticks(p) entries). dev and have_dev as the
 * shapes section's runs set them; detail the judge's line. The judge's exit code. */
int lr_run_stage(const jd_options *o, const pb_problem *p, const char *path, const char *stem,
                 lb_sweep_stage *runs, dv_info *dev, bool *have_dev, char *detail, size_t dlen);

typedef struct {
    const pb_problem *problem;
    const char *command;      /* the command that regenerates the section */
    const char *header;       /* device · driver · date · commit */
    const char *timing_note;
    const char *device_name;
    const char *commit;
    sh_random random;         /* its n at most PB_MAX_SHAPES */
    const pb_size *shapes;    /* random.n, as sh_random_shapes draws them */
    const lb_sweep_stage *runs; /* n_stages × n_yards: runs[stage * n_yards + yardstick] */
    int n_stages, n_yards;
} lr_table;

/* The section (what goes between its markers): the distribution table, a chart per yardstick,
 * the legend, every shape's ratios folded away. malloc'd; NULL when out of memory. */
char *lr_section(const lr_table *t);
/* The same as JSON (one object and a newline). */
void lr_json(FILE *out, const lr_table *t);

#endif
