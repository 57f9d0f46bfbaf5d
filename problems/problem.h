/* problem.h — what a problem is, as data: its parameters (each pointer's element type, role and
 * extent; each size and scalar with its range), its reference, tolerance and test tables.
 *
 * One file per problem in problems/ fills a pb_problem; registry.c is the one list of them.
 * A case holds the values of the scalar parameters in the signature's order (v[]) and the fills
 * of the pointer parameters in the signature's order (f[]). Extents are expressions over the
 * integer parameters ("BATCH*M", "K/group_size"), evaluated by pb_eval.
 */
#ifndef PROBLEM_H
#define PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Element types of buffers (PB_F64 only inside references). */
typedef enum { PB_F16, PB_F32, PB_I8, PB_U8, PB_F64 } pb_type;
typedef enum { PB_IN, PB_OUT, PB_INOUT } pb_role;
typedef enum { PB_PTR, PB_INT, PB_FLOAT } pb_kind;

#define PB_MAX_PARAMS 12 /* signature length */
#define PB_MAX_BUFS 4    /* pointer parameters */
#define PB_MAX_SCALARS 9 /* int and float parameters */
#define PB_MAX_SIZES 4   /* size parameters (--size, sweeps) */

typedef struct {
    const char *name;      /* as the site's signature names it: "A", "M", "scale_A" */
    pb_kind kind;
    /* pointers */
    pb_type type;
    pb_role role;
    const char *rows, *cols; /* extent: rows × cols elements, row-major (expressions) */
    /* scalars */
    bool size;             /* a size: --size and sweeps set it (in signature order) */
    double lo, hi;         /* the constraint on its value */
} pb_param;

typedef enum {
    PB_FILL_UNIFORM,  /* U(lo, hi) from the case's seed (float types) */
    PB_FILL_ZEROS,
    PB_FILL_ONES,
    PB_FILL_NAN,      /* quiet NaN everywhere: an output that must not be read */
    PB_FILL_IDENTITY, /* 1 on the diagonal */
    PB_FILL_DATA,     /* the values in data, row-major */
    PB_FILL_INT,      /* integers uniform in [lo, hi) (torch.randint(lo, hi)) */
    PB_FILL_NORMAL,   /* N(lo, hi²): mean lo, standard deviation hi */
    PB_FILL_GARBAGE   /* random bytes: an integer output that must not be read */
} pb_fill_kind;

typedef struct {
    pb_fill_kind kind;
    float lo, hi;
    const float *data;
} pb_fill;

/* Table shorthands for the problem files. */
#define PB_U(lo_, hi_) {PB_FILL_UNIFORM, (lo_), (hi_), NULL}
#define PB_RANDINT(lo_, hi_) {PB_FILL_INT, (lo_), (hi_), NULL}
#define PB_NORMAL(mean_, std_) {PB_FILL_NORMAL, (mean_), (std_), NULL}
#define PB_ZEROS {PB_FILL_ZEROS, 0, 0, NULL}
#define PB_ONES {PB_FILL_ONES, 0, 0, NULL}
#define PB_NANS {PB_FILL_NAN, 0, 0, NULL}
#define PB_GARBAGE {PB_FILL_GARBAGE, 0, 0, NULL}
#define PB_IDENT {PB_FILL_IDENTITY, 0, 0, NULL}
#define PB_DATA(p_) {PB_FILL_DATA, 0, 0, (p_)}
#define PB_COUNT(a_) (sizeof(a_) / sizeof((a_)[0]))

typedef enum { PB_SET_EXAMPLE, PB_SET_FUNCTIONAL, PB_SET_EXTRA, PB_SET_PERFORMANCE } pb_set;
#define PB_N_SETS 4

typedef struct {
    const char *name;
    double v[PB_MAX_SCALARS]; /* the scalar parameters' values, in signature order */
    pb_fill f[PB_MAX_BUFS];   /* the pointer parameters' contents, in signature order */
    const float *expected;    /* official expected output (example cases); NULL when none */
    uint64_t seed;
} pb_case;

/* Sizes in the site's names (the size parameters, in signature order), e.g. a sweep's shape. */
typedef struct { int v[PB_MAX_SIZES]; } pb_size;
#define PB_MAX_SHAPES 64 /* the most shapes one sweep or --shapes list holds */

/* What a reference computes with: C[b] = alpha·A[b]·op(B[b]) + beta·C[b] for b < batch, on host
 * arrays, row-major. The oracle's runs on the GPU (cuBLAS); tests have one on the CPU. */
typedef struct {
    pb_type type;     /* A and B: PB_F16 (fp32 compute, C fp32), PB_F32 (no TF32, C fp32),
                         PB_F64 (C double: exact for integers below 2^53) */
    bool trans_b;     /* B is n×k (C = A·Bᵀ) instead of k×n */
    int batch, m, n, k;
    double alpha, beta; /* C is not read when beta == 0 */
    const void *a, *b;
    void *c;
    /* PB_F32 only: A, B (and C when read) widened exactly to float64, the GEMM in float64, each
     * result rounded once to fp32 (a product of two floats is exact in float64, so this is the
     * correctly rounded answer but for ties a float64 rounding apart) */
    bool exact;
} pb_gemm;

/* A reference environment's gemm (or a reference) that had no memory (host or device) for a
 * computation the caller may do without: the exact alternative of an fp32 reference. */
#define PB_ERR_MEMORY (-2)

typedef struct pb_ref_env pb_ref_env;
struct pb_ref_env {
    int (*gemm)(const pb_ref_env *env, const pb_gemm *g, char *err, size_t errlen);
    void *ctx;
};

/* A library call a user would make instead (the --baseline yardstick), on device pointers. */
typedef struct {
    pb_type type;     /* PB_F16: fp16 in and out, fp32 compute; PB_F32: fp32, no TF32 */
    bool trans_b;
    int batch, m, n, k;
    float alpha, beta;
    const void *a, *b;
    void *c;
} pb_dev_gemm;

typedef struct pb_dev_env pb_dev_env;
struct pb_dev_env {
    int (*gemm)(const pb_dev_env *env, const pb_dev_gemm *g, char *err, size_t errlen);
    /* C[m×n] = A·B, int8 in, int32 out, row-major (cuBLAS's integer GEMM). */
    int (*igemm)(const pb_dev_env *env, int m, int n, int k, const void *a, const void *b,
                 int32_t *c, char *err, size_t errlen);
    /* out[i] = int8_matmul's requantization of acc[i] (its fp32 steps, clamp). */
    int (*requant)(const pb_dev_env *env, size_t n, const int32_t *acc, float sa, float sb,
                   float sc, int zc, int8_t *out, char *err, size_t errlen);
    /* w[n×k] fp16 from int4_matmul's packed weights and group scales. */
    int (*dequant4)(const pb_dev_env *env, int n, int k, int group, const uint8_t *w_q,
                    const void *scales, void *w, char *err, size_t errlen);
    /* Device scratch, one of two slots: kept across calls, grown when asked for more (never
     * inside a timed call after the first). NULL when it cannot be had. */
    void *(*scratch)(const pb_dev_env *env, int slot, size_t bytes);
    void *ctx;
};

typedef struct pb_problem pb_problem;

/* The reference of one case: in[] are the pointer parameters' host contents before the call
 * (in signature order, their element types), out the output's rows×cols reference values;
 * note (NULL: not wanted), when the problem gives it, a value per element: what explains out in
 * a mismatch report (int8: the fp32 value before rounding) or, when the problem sets
 * alt_reference, a second legitimate reference (NaN where it has none). 0, or nonzero with err
 * set; on 0, err holds a remark or "" (a caller that shows it clears err first). */
typedef int (*pb_reference_fn)(const pb_problem *p, const pb_ref_env *env, const double *v,
                               const void *const *in, float *out, float *note, char *err,
                               size_t errlen);
/* The library yardstick on device buffers (signature order); NULL: the problem has none. */
typedef int (*pb_baseline_fn)(const pb_problem *p, const pb_dev_env *env, const double *v,
                              void *const *bufs, char *err, size_t errlen);

struct pb_problem {
    const char *name;       /* command-line name: "gemm_fp16" */
    const char *title;      /* "General Matrix Multiplication (GEMM)" */
    const char *origin;     /* "LeetGPU challenge 22 (official)" */
    const char *signature;  /* the declaration as the site's starter writes it */
    const pb_param *params; /* in signature order */
    int n_params;
    const char *flops;      /* expression: "2*M*N*K" */
    pb_type compute;        /* the peak that bounds its speed: PB_F16 tensor cores, PB_F32
                               FMA units, PB_I8 integer tensor cores */
    pb_reference_fn reference;
    const char *reference_note; /* one line: how the reference computes */
    /* NULL, or the note is a second reference (fp32: the exact product rounded once, beside
     * cuBLAS's fp32 in out): an element passes within tolerance of either; its label in mismatch
     * reports ("exact") */
    const char *alt_reference;
    pb_baseline_fn baseline;
    const char *baseline_note;  /* "cublasGemmEx, fp16 in and out, fp32 compute" */
    double atol, rtol;      /* fixed tolerance, unless tolerance() is set */
    /* Tolerance that depends on the case (sgemm scales with K); NULL: atol/rtol above. */
    void (*tolerance)(const pb_problem *p, const pb_case *c, double *atol, double *rtol);
    const char *tolerance_note; /* one line: where the tolerance comes from */
    /* Constraints beyond each parameter's range (K divisible by group_size...): NULL when the
     * values are valid, else why not. */
    const char *(*check)(const pb_problem *p, const double *v);
    const pb_case *cases[PB_N_SETS];
    size_t n_cases[PB_N_SETS];
    const char *starter;    /* the site's starter file, for `harness new` */
    /* --sweep: sizes (inside the constraints) that the performance case's recipe is timed at,
     * to show what the tables' sizes hide (ragged, skinny, off-multiple shapes). */
    const pb_size *sweep;
    size_t n_sweep;
    /* `harness leaderboard`: the sizes its table times (NULL: the performance cases), and the
     * stages its shapes section runs by default (NULL: the last four). */
    const pb_size *board_sizes;
    size_t n_board_sizes;
    const char *sweep_stages;
};

/* registry.c */
size_t pb_count(void);
const pb_problem *pb_at(size_t i);
const pb_problem *pb_find(const char *name);
const char *pb_set_name(pb_set s);

/* problem.c: what every problem shares */
/* The i-th pointer / scalar / size parameter (NULL past the end), and how many there are. */
const pb_param *pb_buf(const pb_problem *p, int i);
const pb_param *pb_scalar(const pb_problem *p, int i);
int pb_n_bufs(const pb_problem *p);
int pb_n_scalars(const pb_problem *p);
int pb_n_sizes(const pb_problem *p);
/* The scalar index of the i-th size parameter. */
int pb_size_scalar(const pb_problem *p, int i);
/* The scalar index of the parameter called name, -1 when none. */
int pb_scalar_index(const pb_problem *p, const char *name);
/* A scalar's value in a case by name (NAN when there is none). */
double pb_get(const pb_problem *p, const double *v, const char *name);
/* The one output buffer's index (its role out or inout; every problem has one). */
int pb_out_buf(const pb_problem *p);

/* Evaluate an expression of integer literals and the problem's scalar names joined by * and /
 * (left to right, integer division). False on a syntax error, an unknown name, or a value past
 * 64 bits (checked at every step). */
bool pb_eval(const pb_problem *p, const char *expr, const double *v, long long *out);
/* A buffer's rows and columns for the values v (0 × 0 when an expression fails). */
void pb_buf_dims(const pb_problem *p, int buf, const double *v, long long *rows, long long *cols);
size_t pb_type_size(pb_type t);
const char *pb_type_name(pb_type t);       /* "f16", "f32", "int8", "uint8", "f64" */
/* The normalized C type as the signature check compares it: "const half*", "int". */
void pb_param_type(const pb_param *q, char *out, size_t len);
double pb_flops(const pb_problem *p, const double *v);
void pb_case_tolerance(const pb_problem *p, const pb_case *c, double *atol, double *rtol);
/* Whether v is inside the problem's constraints; when not, why in err ("M = 8; 16 <= M <= 4096"
 * or the problem's own reason), for "... is outside P's constraints (why)". */
bool pb_values_ok(const pb_problem *p, const double *v, char *err, size_t errlen);
/* Only the problem's own check (what the buffers' extents rely on: K divisible by group_size),
 * which --no-constraints does not lift. */
bool pb_values_sound(const pb_problem *p, const double *v, char *err, size_t errlen);
/* "M=16 N=16 K=16 alpha=1 beta=0": the case's scalars. */
void pb_format_values(const pb_problem *p, const double *v, char *out, size_t len);
/* "16x16x16": the size parameters joined by x; "BATCHxMxNxK" for the names. */
void pb_format_size(const pb_problem *p, const double *v, char *out, size_t len);
void pb_size_names(const pb_problem *p, char *out, size_t len);
/* Where the problem's stages live, relative to the repository root: solutions/ for gemm_fp16
 * (the main problem), solutions/NAME/ for the others. */
void pb_stage_dir(const pb_problem *p, char *out, size_t len);
/* A size is an int in solve's signature: 1..PB_SIZE_MAX whatever the constraints. */
#define PB_SIZE_MAX 2147483647
/* What a size text is: well formed and every value in 1..PB_SIZE_MAX; well formed with a value
 * outside that (0, -5, 2^40: a size that cannot be, exit 4); or not sizes at all (exit 2). */
typedef enum { PB_SCAN_OK, PB_SCAN_RANGE, PB_SCAN_SYNTAX } pb_scan;
/* 1..PB_MAX_SIZES integers (an optional sign, digits) joined by x or X (and commas when commas
 * is set): out gets them (clamped into 0..PB_SIZE_MAX), *count how many. */
pb_scan pb_scan_sizes(const char *s, bool commas, int *out, int *count);
/* n sizes joined by x (also commas), each in 1..PB_SIZE_MAX; false on anything else. */
bool pb_parse_sizes(const char *s, int n, int *out);
/* A comma list of shapes of n sizes joined by x, or single numbers (every size that number), into
 * out (at most max; more is SYNTAX, as are empty entries and an empty list). With n = 3 the list
 * "1024,4096" is two cubes; "1000x1000x1000,4096" likewise. */
pb_scan pb_scan_size_list(int n, const char *list, pb_size *out, size_t max, size_t *count);
/* pb_scan_size_list with the problem's n, true when PB_SCAN_OK. */
bool pb_parse_size_list(const pb_problem *p, const char *list, pb_size *out, size_t max,
                        size_t *count);
/* The performance case's recipe (fills and scalars) at size s, as the i-th of a list: its seed
 * is the recipe's + i, so each size gets its own inputs. name must outlive the case. */
pb_case pb_perf_case(const pb_problem *p, pb_size s, size_t i, const char *name);
/* A case's sizes as a pb_size. */
pb_size pb_case_size(const pb_problem *p, const pb_case *c);

/* Shared references and baselines for the problems that are one (batched) GEMM of their
 * buffers 0 and 1 into buffer 2, with alpha/beta scalars when the problem has them: the GEMM's
 * m, n, k and batch come from the problem's gemm_dims expressions (problem.c). */
typedef struct {
    const char *batch, *m, *n, *k; /* expressions; batch NULL for 1 */
} pb_gemm_dims;
int pb_gemm_reference(const pb_problem *p, const pb_gemm_dims *d, pb_type in_type,
                      const pb_ref_env *env, const double *v, const void *const *in, float *out,
                      char *err, size_t errlen);
/* The fp32 problems' pair: out = the environment's fp32 GEMM (cuBLAS, pedantic: what the site's
 * torch computes), exact (when not NULL) = the same GEMM with pb_gemm.exact. When the exact one
 * has no memory, exact holds NaN (the judge then has out alone), the call returns 0 and err says
 * so. */
int pb_gemm_reference_fp32(const pb_problem *p, const pb_gemm_dims *d, const pb_ref_env *env,
                           const double *v, const void *const *in, float *out, float *exact,
                           char *err, size_t errlen);
/* The alt_reference label of the fp32 problems. */
#define PB_EXACT_LABEL "exact"
int pb_gemm_baseline(const pb_problem *p, const pb_gemm_dims *d, pb_type type,
                     const pb_dev_env *env, const double *v, void *const *bufs, char *err,
                     size_t errlen);

/* int8_matmul.c: the site's requantization of one exact accumulator, in its fp32 order
 * (*before_round gets the fp32 value that is rounded). int4_matmul.c: weight (n, k) of an N×K
 * matrix packed two a byte, high nibble first, offset 8. Shared with the tests. */
float pb_int8_requant(double acc, float sa, float sb, float sc, int zc, float *before_round);
int pb_int4_weight(const uint8_t *w_q, int K, int n, int k);

#endif
