/* judge_int.h — what the judge's files share; for src/judge.c, src/judge_front.c and
 * src/judge_sizes.c only. judge.c: the pipeline (file, architecture, build, --gpu's plan, run,
 * status); judge_front.c: the signature's answer and the problem's front (the signature's
 * verdict, --size, --sweep's shapes, the --vs file's check); judge_sizes.c: whether a size or a
 * shape fits the problem and the machine, and --sweep's options. */
#ifndef JUDGE_INT_H
#define JUDGE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "judge.h"

/* judge.c */
bool jd_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* judge_front.c */
int jd_take_answer(ld_status ls, const char *path, sc_answer *a, jd_result *r);
ld_options jd_check_options(const jd_options *o);
int jd_front(const jd_options **op, jd_options *sweep_o, jd_result *r);

/* judge_sizes.c */
bool jd_values_fit(const pb_problem *p, const double *v, bool any, const char *what,
                   jd_result *r);
bool jd_buffers_fit(const jd_options *o, const pb_problem *p, const double *v,
                    const char *what, jd_result *r);
int jd_size_arg(const jd_options *o, const pb_problem *p, pb_size *sz, jd_result *r);
int jd_sweep_options(const jd_options *o, const pb_problem *p, jd_options *eff, jd_result *r);

#endif
