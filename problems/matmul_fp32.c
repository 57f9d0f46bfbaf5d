/* matmul_fp32.c — LeetGPU challenge 2, "Matrix Multiplication" (official).
 *
 * The site's naming: A is M×N, B is N×K, C is M×K — N is the inner dimension. C is output only
 * (the harness fills it with NaN before each call, so a solution that reads it fails).
 * Official: signature, tolerance (atol = rtol = 1e-4), constraints 1 ≤ M, N, K ≤ 8192, the 14
 * functional cases (five fixed, five U(−10, 10), four U(−1, 1)) and the performance case.
 * The fixed cases' values are the challenge's examples where it gives them; the "2×2 zeros"
 * case multiplies zeros by a non-zero B.
 */
#include "problem.h"

static const pb_param mm_params[] = {
    {.name = "A", .kind = PB_PTR, .type = PB_F32, .role = PB_IN, .rows = "M", .cols = "N"},
    {.name = "B", .kind = PB_PTR, .type = PB_F32, .role = PB_IN, .rows = "N", .cols = "K"},
    {.name = "C", .kind = PB_PTR, .type = PB_F32, .role = PB_OUT, .rows = "M", .cols = "K"},
    {.name = "M", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
    {.name = "N", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
    {.name = "K", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
};
/* the site's naming: the GEMM's m, n, k are M, K, N */
static const pb_gemm_dims mm_dims = {NULL, "M", "K", "N"};

static int mm_reference(const pb_problem *p, const pb_ref_env *env, const double *v,
                        const void *const *in, float *out, float *note, char *err, size_t errlen)
{
    return pb_gemm_reference_fp32(p, &mm_dims, env, v, in, out, note, err, errlen);
}

static int mm_baseline(const pb_problem *p, const pb_dev_env *env, const double *v,
                       void *const *bufs, char *err, size_t errlen)
{
    return pb_gemm_baseline(p, &mm_dims, PB_F32, env, v, bufs, err, errlen);
}


static const float mm_a1[] = {1, 2, 3, 4}, mm_b1[] = {5, 6, 7, 8}, mm_e1[] = {19, 22, 43, 50};
static const float mm_a2[] = {1, 2, 3}, mm_b2[] = {4, 5, 6}, mm_e2[] = {32};
static const float mm_e3[] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const float mm_b4[] = {1, 2, 3, 4}, mm_e4[] = {0, 0, 0, 0};
static const float mm_a5[] = {1, 2, 3, 4, 5, 6}, mm_b5[] = {1, 2, 3}, mm_e5[] = {14, 32};

static const pb_case mm_example[] = {
    {"example", {2, 2, 2}, {PB_DATA(mm_a1), PB_DATA(mm_b1), PB_NANS}, mm_e1, 1},
};

static const pb_case mm_functional[] = {
    {"functional 1 (2x2·2x2)", {2, 2, 2}, {PB_DATA(mm_a1), PB_DATA(mm_b1), PB_NANS}, mm_e1, 1},
    {"functional 2 (1x3·3x1)", {1, 3, 1}, {PB_DATA(mm_a2), PB_DATA(mm_b2), PB_NANS}, mm_e2, 2},
    {"functional 3 (identity·identity)", {3, 3, 3}, {PB_IDENT, PB_IDENT, PB_NANS}, mm_e3, 3},
    {"functional 4 (2x2 zeros)", {2, 2, 2}, {PB_ZEROS, PB_DATA(mm_b4), PB_NANS}, mm_e4, 4},
    {"functional 5 (2x3·3x1)", {2, 3, 1}, {PB_DATA(mm_a5), PB_DATA(mm_b5), PB_NANS}, mm_e5, 5},
    {"functional 6", {4, 4, 4}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 6},
    {"functional 7", {8, 6, 10}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 7},
    {"functional 8", {16, 12, 20}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 8},
    {"functional 9", {32, 8, 16}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 9},
    {"functional 10", {8, 16, 32}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 10},
    {"functional 11", {1, 1, 1}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 11},
    {"functional 12", {1, 5, 3}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 12},
    {"functional 13", {5, 3, 1}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 13},
    {"functional 14", {8192, 6144, 4096}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 14},
};

static const pb_case mm_extra[] = {
    {"ragged 17", {17, 17, 17}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 201},
    {"ragged 129x33x100", {129, 33, 100}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 202},
    {"ragged 1000", {1000, 1000, 1000}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 203},
    {"inner 8192 (64x8192x64)", {64, 8192, 64}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 204},
    {"single row 1x4096x4096", {1, 4096, 4096}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 205},
    {"single column 4096x4096x1", {4096, 4096, 1}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 206},
};

static const pb_case mm_performance[] = {
    {"performance", {8192, 6144, 4096}, {PB_U(-10, 10), PB_U(-10, 10), PB_NANS}, NULL, 301},
};

/* --sweep (site names: A M×N, B N×K, inner N): off-multiple sizes, vectors, the official size. */
static const pb_size mm_sweep[] = {
    {{8192, 6144, 4096}}, {{4096, 4096, 4096}}, {{4095, 4095, 4095}}, {{4096, 4095, 4096}},
    {{1000, 1000, 1000}}, {{1, 4096, 4096}},    {{4096, 4096, 1}},    {{512, 512, 512}},
};

const pb_problem pb_matmul_fp32 = {
    .name = "matmul_fp32",
    .title = "Matrix Multiplication",
    .origin = "LeetGPU challenge 2 (official)",
    .signature = "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, "
                 "int K)",
    .params = mm_params,
    .n_params = (int)PB_COUNT(mm_params),
    .flops = "2*M*N*K",
    .compute = PB_F32,
    .reference = mm_reference,
    .reference_note = "cuBLAS SGEMM, pedantic fp32 (no TF32), or the exact product rounded once "
                      "to fp32 (float64 GEMM): within tolerance of either passes",
    .alt_reference = PB_EXACT_LABEL,
    .baseline = mm_baseline,
    .baseline_note = "cublasSgemm, no TF32",
    .atol = 1e-4,
    .rtol = 1e-4,
    .tolerance = NULL,
    .tolerance_note = "atol = rtol = 1e-4 (official)",
    .cases = {mm_example, mm_functional, mm_extra, mm_performance},
    .n_cases = {PB_COUNT(mm_example), PB_COUNT(mm_functional), PB_COUNT(mm_extra), PB_COUNT(mm_performance)},
    .starter = "#include <cuda_runtime.h>\n"
               "\n"
               "// A, B, C are device pointers (i.e. pointers to memory on the GPU)\n"
               "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, "
               "int K) {\n"
               "}\n",
    .sweep = mm_sweep,
    .n_sweep = PB_COUNT(mm_sweep),
};
