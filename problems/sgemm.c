/* sgemm.c — fp32 GEMM with alpha/beta: the problem the seed 000/004 kernels solve (not a site
 * challenge). Same semantics and shapes as gemm_fp16, in fp32.
 *
 * Tolerance: |out − ref| ≤ atol + rtol·|ref| with atol = 3e-5·√K and rtol = 1e-5.
 * Why: two correct fp32 kernels differ only in summation order. With inputs U(−1, 1) a dot
 * product of length K has magnitude ≈ √K/3, and reordering its K roundings moves it by about
 * √K · ½ulp(|partial sum|) ≈ 6e-5 at K = 4096 (a 5.5σ tail over 16M outputs ≈ 3e-4): atol
 * gives that a 6× margin and grows with √K like the error does. Accumulating in fp16 (error
 * ≈ 0.3 at K = 4096) or multiplying in TF32 (≈ 0.02) stays far outside it. tests/test_sgemm_tol.c
 * shows cuBLAS and a float64 reference both pass at K = 4096 and an fp16-accumulating fixture
 * fails.
 */
#include "problem.h"

#include <math.h>

static const pb_param sg_params[] = {
    {.name = "A", .kind = PB_PTR, .type = PB_F32, .role = PB_IN, .rows = "M", .cols = "K"},
    {.name = "B", .kind = PB_PTR, .type = PB_F32, .role = PB_IN, .rows = "K", .cols = "N"},
    {.name = "C", .kind = PB_PTR, .type = PB_F32, .role = PB_INOUT, .rows = "M", .cols = "N"},
    {.name = "M", .kind = PB_INT, .size = true, .lo = 16, .hi = 8192},
    {.name = "N", .kind = PB_INT, .size = true, .lo = 16, .hi = 8192},
    {.name = "K", .kind = PB_INT, .size = true, .lo = 16, .hi = 8192},
    {.name = "alpha", .kind = PB_FLOAT, .lo = -1e30, .hi = 1e30},
    {.name = "beta", .kind = PB_FLOAT, .lo = -1e30, .hi = 1e30},
};
static const pb_gemm_dims sg_dims = {NULL, "M", "N", "K"};

static int sg_reference(const pb_problem *p, const pb_ref_env *env, const double *v,
                        const void *const *in, float *out, float *note, char *err, size_t errlen)
{
    return pb_gemm_reference_fp32(p, &sg_dims, env, v, in, out, note, err, errlen);
}

static int sg_baseline(const pb_problem *p, const pb_dev_env *env, const double *v,
                       void *const *bufs, char *err, size_t errlen)
{
    return pb_gemm_baseline(p, &sg_dims, PB_F32, env, v, bufs, err, errlen);
}


static const float sg_ex_a[] = {1, 2, 3, 4, 5, 6};
static const float sg_ex_b[] = {1, 2, 3, 4, 5, 6};
static const float sg_ex_expected[] = {22, 28, 49, 64};

static const pb_case sg_example[] = {
    {"example", {2, 2, 3, 1.0f, 0.0f}, {PB_DATA(sg_ex_a), PB_DATA(sg_ex_b), PB_ONES}, sg_ex_expected, 1},
};

static const pb_case sg_functional[] = {
    {"functional 1", {16, 16, 16, 1.0f, 0.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_ZEROS}, NULL, 101},
    {"functional 2", {16, 16, 16, 1.0f, 1.0f}, {PB_U(-0.5f, 0.5f), PB_U(-0.5f, 0.5f), PB_U(-0.5f, 0.5f)}, NULL, 102},
    {"functional 3", {32, 16, 16, 0.5f, 0.5f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 103},
    {"functional 4", {16, 32, 16, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 104},
    {"functional 5", {16, 16, 32, 0.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 105},
    {"functional 6", {128, 96, 64, 1.5f, -0.5f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 106},
};

static const pb_case sg_extra[] = {
    {"ragged 17", {17, 17, 17, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 201},
    {"ragged 33", {33, 33, 33, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 202},
    {"ragged 100", {100, 100, 100, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 203},
    {"ragged 127", {127, 127, 127, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 204},
    {"ragged 129", {129, 129, 129, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 205},
    {"ragged 1000", {1000, 1000, 1000, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 206},
    {"mixed 17x129x33", {17, 129, 33, 0.5f, -1.5f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 207},
    {"tall 4096x16x64", {4096, 16, 64, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 209},
    {"wide 16x4096x64", {16, 4096, 64, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 210},
    {"K=16 4096x4096x16", {4096, 4096, 16, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 211},
    {"K=4096 64x64x4096", {64, 64, 4096, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 212},
    {"ragged K=4095 80x72x4095", {80, 72, 4095, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 213},
    {"4096x4096x4096", {4096, 4096, 4096, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 214},
    {"alpha=0", {129, 65, 33, 0.0f, 0.75f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 215},
    {"beta=0, C holds NaN", {100, 130, 70, 1.25f, 0.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 216},
};

static const pb_case sg_performance[] = {
    {"performance 4096³", {4096, 4096, 4096, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 301},
    {"performance 8192x6144x4096", {8192, 6144, 4096, 1.0f, 1.0f}, {PB_U(-1, 1), PB_U(-1, 1), PB_U(-1, 1)}, NULL, 302},
};

/* --sweep: off-multiple sizes beside the performance sizes, skinny shapes. */
static const pb_size sg_sweep[] = {
    {{4096, 4096, 4096}}, {{4095, 4095, 4095}}, {{4096, 4096, 4095}}, {{4096, 4095, 4096}},
    {{8192, 6144, 4096}}, {{1000, 1000, 1000}}, {{17, 4096, 4096}},   {{4096, 17, 4096}},
    {{512, 512, 512}},
};

static void sg_tolerance(const pb_problem *p, const pb_case *c, double *atol, double *rtol)
{
    *atol = 3e-5 * sqrt(pb_get(p, c->v, "K"));
    *rtol = 1e-5;
}

const pb_problem pb_sgemm = {
    .name = "sgemm",
    .title = "fp32 GEMM with alpha and beta (SGEMM)",
    .origin = "the seed kernels' problem (not a site challenge)",
    .signature = "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, "
                 "int K, float alpha, float beta)",
    .params = sg_params,
    .n_params = (int)PB_COUNT(sg_params),
    .flops = "2*M*N*K",
    .compute = PB_F32,
    .reference = sg_reference,
    .reference_note = "cuBLAS SGEMM, pedantic fp32 (no TF32), or the exact alpha·AB + beta·C "
                      "rounded once to fp32 (float64 GEMM): within tolerance of either passes",
    .alt_reference = PB_EXACT_LABEL,
    .baseline = sg_baseline,
    .baseline_note = "cublasSgemm, no TF32",
    .atol = 0,
    .rtol = 1e-5,
    .tolerance = sg_tolerance,
    .tolerance_note = "atol = 3e-5·sqrt(K), rtol = 1e-5 (the project's; see problems/sgemm.c)",
    .cases = {sg_example, sg_functional, sg_extra, sg_performance},
    .n_cases = {PB_COUNT(sg_example), PB_COUNT(sg_functional), PB_COUNT(sg_extra), PB_COUNT(sg_performance)},
    .starter = "#include <cuda_runtime.h>\n"
               "\n"
               "// A, B, and C are device pointers\n"
               "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, "
               "int K, float alpha, float beta) {\n"
               "}\n",
    .sweep = sg_sweep,
    .n_sweep = PB_COUNT(sg_sweep),
};
