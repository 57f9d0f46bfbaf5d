/* problem.c — what every problem shares: its parameters by kind, extents, FLOPs, tolerance,
 * constraints, size parsing, and the reference and baseline of a problem that is one GEMM. */
#include "problem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp16.h"

static const pb_param *pb_nth(const pb_problem *p, int i, bool ptr)
{
    for (int j = 0; j < p->n_params; j++)
        if ((p->params[j].kind == PB_PTR) == ptr && i-- == 0) return &p->params[j];
    return NULL;
}

const pb_param *pb_buf(const pb_problem *p, int i) { return pb_nth(p, i, true); }
const pb_param *pb_scalar(const pb_problem *p, int i) { return pb_nth(p, i, false); }

int pb_n_bufs(const pb_problem *p)
{
    int n = 0;
    for (int j = 0; j < p->n_params; j++) n += p->params[j].kind == PB_PTR;
    return n;
}

int pb_n_scalars(const pb_problem *p) { return p->n_params - pb_n_bufs(p); }

int pb_n_sizes(const pb_problem *p)
{
    int n = 0;
    for (int i = 0; i < pb_n_scalars(p); i++) n += pb_scalar(p, i)->size;
    return n;
}

int pb_size_scalar(const pb_problem *p, int i)
{
    for (int s = 0; s < pb_n_scalars(p); s++)
        if (pb_scalar(p, s)->size && i-- == 0) return s;
    return -1;
}

int pb_scalar_index(const pb_problem *p, const char *name)
{
    for (int s = 0; s < pb_n_scalars(p); s++)
        if (strcmp(pb_scalar(p, s)->name, name) == 0) return s;
    return -1;
}

double pb_get(const pb_problem *p, const double *v, const char *name)
{
    int s = pb_scalar_index(p, name);
    return s < 0 ? NAN : v[s];
}

int pb_out_buf(const pb_problem *p)
{
    for (int b = 0; b < pb_n_bufs(p); b++)
        if (pb_buf(p, b)->role != PB_IN) return b;
    return -1;
}

bool pb_eval(const pb_problem *p, const char *expr, const double *v, long long *out)
{
    long long acc = 0;
    char op = 0; /* 0: the first term */
    const char *s = expr;
    for (;;) {
        while (*s == ' ') s++;
        long long term;
        if (isdigit((unsigned char)*s)) {
            errno = 0;
            term = strtoll(s, (char **)&s, 10);
            if (errno) return false;
        } else if (isalpha((unsigned char)*s) || *s == '_') {
            const char *a = s;
            while (isalnum((unsigned char)*s) || *s == '_') s++;
            char name[32];
            if ((size_t)(s - a) >= sizeof(name)) return false;
            snprintf(name, sizeof(name), "%.*s", (int)(s - a), a);
            int i = pb_scalar_index(p, name);
            if (i < 0 || !(fabs(v[i]) < 9e15)) return false; /* unknown, NaN or past exact */
            term = (long long)v[i];
        } else {
            return false;
        }
        if (op == 0) acc = term;
        else if (op == '*') {
            if (__builtin_mul_overflow(acc, term, &acc)) return false; /* an extent past 64 bits */
        } else if (term == 0 || (acc == LLONG_MIN && term == -1)) {
            return false;
        } else {
            acc /= term;
        }
        while (*s == ' ') s++;
        if (*s == '\0') break;
        if (*s != '*' && *s != '/') return false;
        op = *s++;
    }
    *out = acc;
    return true;
}

void pb_buf_dims(const pb_problem *p, int buf, const double *v, long long *rows, long long *cols)
{
    const pb_param *q = pb_buf(p, buf);
    if (!q || !pb_eval(p, q->rows, v, rows) || !pb_eval(p, q->cols, v, cols) || *rows < 0 ||
        *cols < 0)
        *rows = *cols = 0;
}

size_t pb_type_size(pb_type t)
{
    switch (t) {
    case PB_F16: return 2;
    case PB_F32: return 4;
    case PB_I8:
    case PB_U8: return 1;
    case PB_F64: return 8;
    }
    return 1;
}

const char *pb_type_name(pb_type t)
{
    static const char *const n[] = {"f16", "f32", "int8", "uint8", "f64"};
    return (unsigned)t < 5 ? n[t] : "?";
}

void pb_param_type(const pb_param *q, char *out, size_t len)
{
    if (q->kind == PB_INT) {
        snprintf(out, len, "int");
        return;
    }
    if (q->kind == PB_FLOAT) {
        snprintf(out, len, "float");
        return;
    }
    static const char *const c[] = {"half", "float", "int8_t", "uint8_t", "double"};
    snprintf(out, len, "%s%s*", q->role == PB_IN ? "const " : "", c[q->type]);
}

double pb_flops(const pb_problem *p, const double *v)
{
    long long f;
    return pb_eval(p, p->flops, v, &f) ? (double)f : 0.0;
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

bool pb_values_sound(const pb_problem *p, const double *v, char *err, size_t errlen)
{
    const char *why = p->check ? p->check(p, v) : NULL;
    if (why) snprintf(err, errlen, "%s", why);
    return why == NULL;
}

bool pb_values_ok(const pb_problem *p, const double *v, char *err, size_t errlen)
{
    for (int s = 0; s < pb_n_scalars(p); s++) {
        const pb_param *q = pb_scalar(p, s);
        if (q->kind == PB_INT && v[s] != floor(v[s])) {
            snprintf(err, errlen, "%s = %g is not an integer", q->name, v[s]);
            return false;
        }
        if (!(v[s] >= q->lo && v[s] <= q->hi)) {
            snprintf(err, errlen, "%s = %.15g; %.15g <= %s <= %.15g", q->name, v[s], q->lo, q->name,
                     q->hi);
            return false;
        }
    }
    return pb_values_sound(p, v, err, errlen);
}

void pb_format_values(const pb_problem *p, const double *v, char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (int s = 0; s < pb_n_scalars(p) && u < len; s++)
        u += (size_t)snprintf(out + u, len - u, "%s%s=%g", s ? " " : "", pb_scalar(p, s)->name,
                              v[s]);
}

void pb_format_size(const pb_problem *p, const double *v, char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (int i = 0; i < pb_n_sizes(p) && u < len; i++)
        u += (size_t)snprintf(out + u, len - u, "%s%d", i ? "x" : "",
                              (int)v[pb_size_scalar(p, i)]);
}

void pb_size_names(const pb_problem *p, char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (int i = 0; i < pb_n_sizes(p) && u < len; i++)
        u += (size_t)snprintf(out + u, len - u, "%s%s", i ? "x" : "",
                              pb_scalar(p, pb_size_scalar(p, i))->name);
}

void pb_stage_dir(const pb_problem *p, char *out, size_t len)
{
    if (strcmp(p->name, "gemm_fp16") == 0)
        snprintf(out, len, "solutions");
    else
        snprintf(out, len, "solutions/%s", p->name);
}

/* One integer: an optional sign, then digits; saturated past PB_SIZE_MAX so that no value
 * overflows (the range is the caller's to judge). False when there are no digits. */
static bool pb_scan_int(const char **s, long long *out)
{
    const char *p = *s;
    bool neg = *p == '-';
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return false;
    long long v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (v <= PB_SIZE_MAX) v = v * 10 + (*p - '0'); /* at most ~2^34: no overflow */
    *s = p;
    *out = neg ? -v : v;
    return true;
}

pb_scan pb_scan_sizes(const char *s, bool commas, int *out, int *count)
{
    long long v[PB_MAX_SIZES];
    int n = 0;
    *count = 0;
    for (;;) {
        if (n == PB_MAX_SIZES || !pb_scan_int(&s, &v[n])) return PB_SCAN_SYNTAX;
        n++;
        if (*s == '\0') break;
        if (*s != 'x' && *s != 'X' && !(commas && *s == ',')) return PB_SCAN_SYNTAX;
        s++;
    }
    *count = n;
    pb_scan r = PB_SCAN_OK;
    for (int i = 0; i < n; i++) {
        if (v[i] < 1 || v[i] > PB_SIZE_MAX) r = PB_SCAN_RANGE;
        out[i] = v[i] < 1 ? 0 : v[i] > PB_SIZE_MAX ? PB_SIZE_MAX : (int)v[i];
    }
    return r;
}

bool pb_parse_sizes(const char *s, int n, int *out)
{
    int got[PB_MAX_SIZES], count;
    if (n < 1 || n > PB_MAX_SIZES || pb_scan_sizes(s, true, got, &count) != PB_SCAN_OK ||
        count != n)
        return false;
    memcpy(out, got, (size_t)n * sizeof(int));
    return true;
}

pb_scan pb_scan_size_list(int n, const char *list, pb_size *out, size_t max, size_t *count)
{
    *count = 0;
    if (n < 1 || n > PB_MAX_SIZES) return PB_SCAN_SYNTAX;
    pb_scan r = PB_SCAN_OK;
    for (const char *w = list;; w++) { /* every entry, empty ones too: "64,,64" is a typo */
        size_t len = strcspn(w, ",");
        char entry[64];
        int v[PB_MAX_SIZES], k;
        if (*count >= max || len == 0 || len >= sizeof(entry)) return PB_SCAN_SYNTAX;
        memcpy(entry, w, len);
        entry[len] = '\0';
        pb_scan e = pb_scan_sizes(entry, false, v, &k);
        if (e == PB_SCAN_SYNTAX || (k != 1 && k != n)) return PB_SCAN_SYNTAX;
        if (e == PB_SCAN_RANGE) r = PB_SCAN_RANGE;
        pb_size sz;
        memset(&sz, 0, sizeof(sz));
        for (int i = 0; i < n; i++) sz.v[i] = v[k == 1 ? 0 : i]; /* N: every size N (a cube) */
        out[(*count)++] = sz;
        w += len;
        if (*w == '\0') break;
    }
    return r;
}

bool pb_parse_size_list(const pb_problem *p, const char *list, pb_size *out, size_t max,
                        size_t *count)
{
    return pb_scan_size_list(pb_n_sizes(p), list, out, max, count) == PB_SCAN_OK;
}

pb_case pb_perf_case(const pb_problem *p, pb_size s, size_t i, const char *name)
{
    pb_case c = p->cases[PB_SET_PERFORMANCE][0];
    c.name = name;
    for (int j = 0; j < pb_n_sizes(p); j++) c.v[pb_size_scalar(p, j)] = s.v[j];
    c.seed += (uint64_t)i;
    return c;
}

pb_size pb_case_size(const pb_problem *p, const pb_case *c)
{
    pb_size s;
    memset(&s, 0, sizeof(s));
    for (int j = 0; j < pb_n_sizes(p) && j < PB_MAX_SIZES; j++)
        s.v[j] = (int)c->v[pb_size_scalar(p, j)];
    return s;
}

/* ---- one GEMM of buffers 0 and 1 into buffer 2 ---- */

static bool pb_gemm_shape(const pb_problem *p, const pb_gemm_dims *d, const double *v, int *batch,
                          int *m, int *n, int *k)
{
    long long b = 1, mm, nn, kk;
    if ((d->batch && !pb_eval(p, d->batch, v, &b)) || !pb_eval(p, d->m, v, &mm) ||
        !pb_eval(p, d->n, v, &nn) || !pb_eval(p, d->k, v, &kk))
        return false;
    if (b < 1 || b > INT_MAX || mm < 1 || mm > INT_MAX || nn < 1 || nn > INT_MAX || kk < 1 ||
        kk > INT_MAX)
        return false; /* the libraries take int dimensions */
    *batch = (int)b;
    *m = (int)mm;
    *n = (int)nn;
    *k = (int)kk;
    return true;
}

/* One GEMM of the problem's buffers into out (fp32, cast to fp16 for fp16 inputs); exact: the
 * float64 computation rounded once (fp32 inputs only). */
static int pb_gemm_run(const pb_problem *p, const pb_gemm_dims *d, pb_type in_type, bool exact,
                       const pb_ref_env *env, const double *v, const void *const *in, float *out,
                       char *err, size_t errlen)
{
    pb_gemm g = {.type = in_type, .alpha = 1.0, .beta = 0.0, .exact = exact};
    if (!pb_gemm_shape(p, d, v, &g.batch, &g.m, &g.n, &g.k)) {
        snprintf(err, errlen, "%s: bad GEMM dimensions", p->name);
        return -1;
    }
    double alpha = pb_get(p, v, "alpha"), beta = pb_get(p, v, "beta");
    bool ab = !isnan(alpha);
    if (ab) {
        /* the solution gets them as floats: the exact answer is for those values */
        g.alpha = (float)alpha;
        g.beta = pb_buf(p, 2)->role == PB_INOUT ? (float)beta : 0.0;
    }
    size_t nc = (size_t)g.batch * g.m * g.n;
    /* C in fp32: the initial C's values where beta reads them; NaN otherwise, which BLAS must
     * not read */
    for (size_t i = 0; i < nc; i++) {
        if (g.beta == 0.0)
            out[i] = NAN;
        else if (in_type == PB_F16)
            out[i] = f16_to_float(((const uint16_t *)in[2])[i]);
        else
            out[i] = ((const float *)in[2])[i];
    }
    g.a = in[0];
    g.b = in[1];
    g.c = out;
    int e = env->gemm(env, &g, err, errlen);
    if (e) return e;
    if (in_type == PB_F16) f16_round_n(out, nc); /* the judge casts its fp32 result to fp16 */
    return 0;
}

int pb_gemm_reference(const pb_problem *p, const pb_gemm_dims *d, pb_type in_type,
                      const pb_ref_env *env, const double *v, const void *const *in, float *out,
                      char *err, size_t errlen)
{
    return pb_gemm_run(p, d, in_type, false, env, v, in, out, err, errlen);
}

int pb_gemm_reference_fp32(const pb_problem *p, const pb_gemm_dims *d, const pb_ref_env *env,
                           const double *v, const void *const *in, float *out, float *exact,
                           char *err, size_t errlen)
{
    int e = pb_gemm_run(p, d, PB_F32, false, env, v, in, out, err, errlen);
    if (e || !exact) return e;
    e = pb_gemm_run(p, d, PB_F32, true, env, v, in, exact, err, errlen);
    if (e != PB_ERR_MEMORY) return e;
    /* too large for the float64 copies: cuBLAS's fp32 alone judges this case */
    long long rows, cols;
    pb_buf_dims(p, pb_out_buf(p), v, &rows, &cols);
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++) exact[i] = NAN;
    char why[120];
    snprintf(why, sizeof(why), "%s", err);
    snprintf(err, errlen, "the exact reference was left out (%s): cuBLAS's fp32 alone judged "
                          "this test", why);
    return 0;
}

int pb_gemm_baseline(const pb_problem *p, const pb_gemm_dims *d, pb_type type,
                     const pb_dev_env *env, const double *v, void *const *bufs, char *err,
                     size_t errlen)
{
    pb_dev_gemm g = {.type = type, .alpha = 1.0f, .beta = 0.0f};
    if (!pb_gemm_shape(p, d, v, &g.batch, &g.m, &g.n, &g.k)) {
        snprintf(err, errlen, "%s: bad GEMM dimensions", p->name);
        return -1;
    }
    double alpha = pb_get(p, v, "alpha"), beta = pb_get(p, v, "beta");
    if (!isnan(alpha)) {
        g.alpha = (float)alpha;
        g.beta = (float)beta;
    }
    g.a = bufs[0];
    g.b = bufs[1];
    g.c = bufs[2];
    return env->gemm(env, &g, err, errlen);
}
