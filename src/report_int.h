/* report_int.h — what the report's files share; for src/report.c and src/report_sweep.c only.
 * report.c: the judge's text and JSON (and the JSON helpers); report_sweep.c: --sweep's table,
 * its footer and its JSON. */
#ifndef REPORT_INT_H
#define REPORT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* report.c */
void rp_json_ms(FILE *out, const char *key, bool have, double v);
void rp_json_values(FILE *out, const pb_problem *p, const double *v, bool sizes_only);
const char *rp_vs_word(int verdict);
void rp_vs_verdict_json(FILE *out, const rs_timing *tm);
void rp_device_line(FILE *out, const dv_info *d);
void rp_json_device(FILE *out, const rs_run *run);
void rp_json_process(FILE *out, const rs_run *run);
void rp_json_ids(FILE *out, const rp_report *r);
void rp_json_exit(FILE *out, int exit_code, const char *error);

#endif
