/* report.h — printers: the judge's text, JSON. Measuring and printing stay apart: these only
 * read a finished run. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "gpus_all.h"
#include "loader.h"
#include "runner.h"

typedef struct {
    const char *solution;      /* the path as given */
    const pb_problem *problem;
    const ld_build *build;
    const char *arch;
    const rs_run *run;         /* NULL when nothing ran (compile error, no device) */
    rs_status status;
    const char *status_detail; /* one line when the status is not about a test */
    const char *timing_note;   /* how times were taken */
    int width;                 /* terminal columns for the error map */
    const char *gpu;           /* --gpu's name, NULL without it */
    const char *ran_as;        /* --gpu: what ran, where (the times are this GPU's) */
    const char *vs;            /* --vs: the other file (its times are in the baseline's place) */
} rp_report;

void rp_text(FILE *out, const rp_report *r);
void rp_json(FILE *out, const rp_report *r);
/* --sweep: a row per shape (time, TF/s, cuBLAS beside it, ratio, status), a footer with how
 * many passed and the geometric-mean ratio; the same as JSON. */
void rp_sweep_text(FILE *out, const rp_report *r);
void rp_sweep_json(FILE *out, const rp_report *r);
/* JSON string with escapes. */
void rp_json_string(FILE *out, const char *s);
/* --gpu all (report_gpus.c): a row per judge GPU; the same as JSON. */
void rp_gpus_text(FILE *out, const char *solution, const gp_matrix *m);
void rp_gpus_json(FILE *out, const char *solution, const gp_matrix *m);

#endif
