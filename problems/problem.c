/* problem.c — helpers every problem shares: shapes, FLOPs, tolerance, size parsing. */
#include "problem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pb_shape pb_gemm_shape(const pb_problem *p, const pb_case *c)
{
    pb_shape s;
    if (p->dims == PB_DIMS_MKN) { /* A M×N · B N×K = C M×K */
        s.m = c->m;
        s.n = c->k;
        s.k = c->n;
    } else {
        s.m = c->m;
        s.n = c->n;
        s.k = c->k;
    }
    return s;
}

double pb_flops(const pb_problem *p, const pb_case *c)
{
    pb_shape s = pb_gemm_shape(p, c);
    return 2.0 * (double)s.m * (double)s.n * (double)s.k;
}

void pb_case_tolerance(const pb_problem *p, const pb_case *c, double *atol, double *rtol)
{
    if (p->tolerance) {
        p->tolerance(p, c, atol, rtol);
    } else {
        *atol = p->atol;
        *rtol = p->rtol;
    }
}

void pb_stage_dir(const pb_problem *p, char *out, size_t len)
{
    if (strcmp(p->name, "gemm_fp16") == 0)
        snprintf(out, len, "solutions");
    else
        snprintf(out, len, "solutions/%s", p->name);
}

size_t pb_elem_size(const pb_problem *p) { return p->elem == PB_F16 ? 2 : 4; }

bool pb_size_ok(const pb_problem *p, int m, int n, int k)
{
    return m >= p->min_dim && m <= p->max_dim && n >= p->min_dim && n <= p->max_dim &&
           k >= p->min_dim && k <= p->max_dim;
}

static bool pb_parse_int(const char *s, char **end, int *out)
{
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    long v = strtol(s, end, 10);
    if (errno || v <= 0 || v > 1 << 20) return false;
    *out = (int)v;
    return true;
}

bool pb_parse_size(const char *s, int *m, int *n, int *k)
{
    char *end;
    int v[3];
    for (int i = 0; i < 3; i++) {
        if (!pb_parse_int(s, &end, &v[i])) return false;
        if (i < 2) {
            if (*end != 'x' && *end != 'X' && *end != ',') return false;
            s = end + 1;
        } else if (*end != '\0') {
            return false;
        }
    }
    *m = v[0];
    *n = v[1];
    *k = v[2];
    return true;
}

bool pb_parse_size_list(const char *list, pb_size *out, size_t max, size_t *n)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy) return false;
    bool ok = true;
    *n = 0;
    for (char *w = strtok_r(copy, ",", &save); w && ok; w = strtok_r(NULL, ",", &save)) {
        pb_size s;
        char *end;
        if (*n >= max) {
            ok = false;
        } else if (pb_parse_int(w, &end, &s.m) && *end == '\0') {
            s.n = s.k = s.m; /* N: a cube */
            out[(*n)++] = s;
        } else if (pb_parse_size(w, &s.m, &s.n, &s.k)) {
            out[(*n)++] = s;
        } else {
            ok = false;
        }
    }
    free(copy);
    return ok && *n > 0;
}

pb_case pb_perf_case(const pb_problem *p, pb_size s, size_t i, const char *name)
{
    pb_case c = p->cases[PB_SET_PERFORMANCE][0];
    c.name = name;
    c.m = s.m;
    c.n = s.n;
    c.k = s.k;
    c.seed += (uint64_t)i;
    return c;
}
