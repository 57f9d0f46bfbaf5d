/* report.h — printers: the judge's text, JSON. Measuring and printing stay apart: these only
 * read a finished run. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "gpus_all.h"
#include "loader.h"
#include "runner.h"
#include "shapes.h"

typedef struct {
    const char *solution;      /* the path as given */
    const pb_problem *problem;
    const ld_build *build;
    const char *arch;
    const rs_run *run;         /* NULL when nothing ran (compile error, no device) */
    rs_status status;
    const char *status_detail; /* one line when the status is not about a test */
    const char *timing_note;   /* how times were taken */
    const sh_random *random;   /* --sweep random: its N and seed, NULL otherwise */
    rn_yardstick yardstick;    /* --baseline's library call: cuBLAS's, cuBLASLt's or both */
    int width;                 /* terminal columns for the error map */
    const char *gpu;           /* --gpu's name, NULL without it */
    const char *ran_as;        /* --gpu: what ran, where (the times are this GPU's) */
    const char *vs;            /* --vs: the other file (its times are in the baseline's place) */
    int exit_code;             /* the harness's exit code, in the JSON */
    const char *error;         /* the one line on stderr when the exit is not a test's verdict
                                  (bad file, size, compile error, no device...); NULL: none */
} rp_report;

void rp_text(FILE *out, const rp_report *r);
void rp_json(FILE *out, const rp_report *r);
/* --sweep: a row per shape (time, TF/s, cuBLAS beside it, ratio, status), a footer with how
 * many passed and the geometric-mean ratio; the same as JSON. */
void rp_sweep_text(FILE *out, const rp_report *r);
void rp_sweep_json(FILE *out, const rp_report *r);
/* The JSON of an exit before any report (a usage error, a bad file): {"solution", "exit_code",
 * "error"}; solution NULL when none was given. */
void rp_json_error(FILE *out, const char *solution, int exit_code, const char *error);
/* JSON string with escapes. */
void rp_json_string(FILE *out, const char *s);
/* --gpu all (report_gpus.c): a row per judge GPU; the same as JSON. */
void rp_gpus_text(FILE *out, const char *solution, const gp_matrix *m);
void rp_gpus_json(FILE *out, const char *solution, const gp_matrix *m);

/* report_lt.c: the yardstick's name ("cuBLAS", "cuBLASLt", or --vs's file); cuBLASLt's pick as
 * text (brief: for a table's row; "" when none) and as JSON (,"lt_algo":{...} or null). */
const char *rp_yardstick_name(const rp_report *r);
void rp_lt_describe(const dv_lt_pick *k, bool brief, char *out, size_t len);
void rp_lt_json(FILE *out, const dv_lt_pick *k);
/* A judged run's cuBLASLt lines (both: its time and ratio; lt, both: the pick), and JSON's
 * "cublaslt" object (both). Sweeps with --baseline both: the header's and each row's "Lt ms",
 * "× Lt" cells, a footer line of cuBLASLt's distribution, and the same in JSON (per shape
 * cublaslt_ms, ratio_lt, lt_algo; the footer's "lt" object). Each prints nothing otherwise. */
void rp_lt_lines(FILE *out, const rp_report *r, const rs_test *t);
/* A sweep row's tail with --baseline lt or both: "  Lt: " and the brief pick ("" otherwise);
 * either flags an fp32 problem's cuBLASLt time faster than the chip's FP32 peak (TF32 in use). */
void rp_lt_cell(const rp_report *r, const rs_test *t, char *out, size_t len);
void rp_alt_json(FILE *out, const rp_report *r, const rs_test *t);
void rp_alt_head(FILE *out, const rp_report *r);
void rp_alt_cells(FILE *out, const rp_report *r, const rs_test *t);
void rp_alt_footer(FILE *out, const rp_report *r, const rs_run *run);
void rp_alt_json_shape(FILE *out, const rp_report *r, const rs_test *t);
void rp_alt_json_footer(FILE *out, const rp_report *r, const rs_run *run);

#endif
