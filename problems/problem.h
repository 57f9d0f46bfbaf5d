/* problem.h — what a problem is: its signature, tolerance, constraints and test tables, as data.
 *
 * One file per problem in problems/ fills a pb_problem; registry.c is the one list of them.
 * Sizes in a case are the site's names (passed to solve unchanged); pb_gemm_dims() maps them to
 * the GEMM shape C[m×n] = A[m×k]·B[k×n] that the reference and the buffers use.
 */
#ifndef PROBLEM_H
#define PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { PB_F16, PB_F32 } pb_elem;

/* C is read and written (C = alpha·AB + beta·C) or only written (C = AB). */
typedef enum { PB_C_INOUT, PB_C_OUT } pb_c_role;

/* How the site names the sizes. */
typedef enum {
    PB_DIMS_MNK, /* A M×K, B K×N, C M×N: inner dimension K (gemm_fp16, sgemm) */
    PB_DIMS_MKN  /* A M×N, B N×K, C M×K: inner dimension N (matmul_fp32, LeetGPU challenge 2) */
} pb_dims;

typedef enum {
    PB_FILL_UNIFORM,  /* U(lo, hi) from the case's seed */
    PB_FILL_ZEROS,
    PB_FILL_ONES,
    PB_FILL_NAN,      /* quiet NaN everywhere: C that must not be read */
    PB_FILL_IDENTITY, /* 1 on the diagonal */
    PB_FILL_DATA      /* the values in data, row-major */
} pb_fill_kind;

typedef struct {
    pb_fill_kind kind;
    float lo, hi;
    const float *data;
} pb_fill;

/* Table shorthands for the problem files. */
#define PB_U(lo_, hi_) {PB_FILL_UNIFORM, (lo_), (hi_), NULL}
#define PB_ZEROS {PB_FILL_ZEROS, 0, 0, NULL}
#define PB_ONES {PB_FILL_ONES, 0, 0, NULL}
#define PB_NANS {PB_FILL_NAN, 0, 0, NULL}
#define PB_IDENT {PB_FILL_IDENTITY, 0, 0, NULL}
#define PB_DATA(p_) {PB_FILL_DATA, 0, 0, (p_)}
#define PB_COUNT(a_) (sizeof(a_) / sizeof((a_)[0]))

typedef enum { PB_SET_EXAMPLE, PB_SET_FUNCTIONAL, PB_SET_EXTRA, PB_SET_PERFORMANCE } pb_set;
#define PB_N_SETS 4

typedef struct {
    const char *name;
    int m, n, k;            /* the site's names, passed to solve as they are */
    float alpha, beta;      /* unused when the problem has no alpha/beta */
    pb_fill a, b, c;        /* c: initial C (inout) or what sits in C before the call (out) */
    const float *expected;  /* official expected output (example cases); NULL when none */
    uint64_t seed;
} pb_case;

typedef struct { int m, n, k; } pb_shape; /* C m×n = A m×k · B k×n */

/* A size in the site's names (a case's m, n, k), e.g. one shape of a sweep. */
typedef struct { int m, n, k; } pb_size;
#define PB_MAX_SHAPES 64 /* the most shapes one sweep or --shapes list holds */

typedef struct pb_problem pb_problem;
struct pb_problem {
    const char *name;       /* command-line name: "gemm_fp16" */
    const char *title;      /* "General Matrix Multiplication (GEMM)" */
    const char *origin;     /* "LeetGPU challenge 22 (official)" */
    const char *signature;  /* the declaration as the site's starter writes it */
    const char *const *param_types; /* normalized parameter types, for the signature check */
    int n_params;
    pb_elem elem;
    bool has_alpha_beta;
    pb_c_role c_role;
    pb_dims dims;
    double atol, rtol;      /* fixed tolerance, unless tolerance() is set */
    /* Tolerance that depends on the case (sgemm scales with K); NULL: atol/rtol above. */
    void (*tolerance)(const pb_problem *p, const pb_case *c, double *atol, double *rtol);
    const char *tolerance_note; /* one line: where the tolerance comes from */
    int min_dim, max_dim;   /* constraint on every size a user may ask for with --size */
    const pb_case *cases[PB_N_SETS];
    size_t n_cases[PB_N_SETS];
    const char *starter;    /* the site's starter file, for `harness new` */
    /* --sweep: sizes (site names, inside the constraints) that the performance case's recipe is
     * timed at, to show what the tables' sizes hide (ragged, skinny, off-multiple shapes). */
    const pb_size *sweep;
    size_t n_sweep;
};

/* registry.c */
size_t pb_count(void);
const pb_problem *pb_at(size_t i);
const pb_problem *pb_find(const char *name);
const char *pb_set_name(pb_set s);

/* problem.c: helpers every problem shares */
pb_shape pb_gemm_shape(const pb_problem *p, const pb_case *c);
double pb_flops(const pb_problem *p, const pb_case *c);
void pb_case_tolerance(const pb_problem *p, const pb_case *c, double *atol, double *rtol);
size_t pb_elem_size(const pb_problem *p);
/* Whether m, n, k (site names) are inside the problem's constraints. */
bool pb_size_ok(const pb_problem *p, int m, int n, int k);
/* Where the problem's stages live, relative to the repository root: solutions/ for gemm_fp16
 * (the main problem), solutions/NAME/ for the others. */
void pb_stage_dir(const pb_problem *p, char *out, size_t len);
/* Parse "MxNxK" (also "M,N,K"); false on anything else. */
bool pb_parse_size(const char *s, int *m, int *n, int *k);
/* Parse a comma list of MxNxK or N (N³) into out (at most max); false on a bad or empty list
 * or more than max entries. */
bool pb_parse_size_list(const char *list, pb_size *out, size_t max, size_t *n);
/* The performance case's recipe (fills, alpha, beta) at size s, as the i-th of a list: its seed
 * is the recipe's + i, so each size gets its own inputs. name must outlive the case. */
pb_case pb_perf_case(const pb_problem *p, pb_size s, size_t i, const char *name);

#endif
