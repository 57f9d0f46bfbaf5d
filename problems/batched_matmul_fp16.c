/* batched_matmul_fp16.c — LeetGPU challenge 57, "FP16 Batched Matrix Multiplication" (official).
 *
 * C[b] = A[b]·B[b] for b < BATCH in fp16 (fp32 accumulation), C output only. Official: signature,
 * atol = rtol = 0.05, 1 ≤ BATCH ≤ 128, 1 ≤ M, N, K ≤ 1024, the six tests of challenge 30 with its
 * fixed data but U(−5, 5) in functional 4 and 6, the performance test U(−5, 5)
 * (../shared/JUDGE.md). Reference: upcast to fp32, strided-batched GEMM in fp32, cast to fp16.
 */
#include "problem.h"

static const pb_param b16_params[] = {
    {.name = "A", .kind = PB_PTR, .type = PB_F16, .role = PB_IN, .rows = "BATCH*M", .cols = "K"},
    {.name = "B", .kind = PB_PTR, .type = PB_F16, .role = PB_IN, .rows = "BATCH*K", .cols = "N"},
    {.name = "C", .kind = PB_PTR, .type = PB_F16, .role = PB_OUT, .rows = "BATCH*M", .cols = "N"},
    {.name = "BATCH", .kind = PB_INT, .size = true, .lo = 1, .hi = 128},
    {.name = "M", .kind = PB_INT, .size = true, .lo = 1, .hi = 1024},
    {.name = "N", .kind = PB_INT, .size = true, .lo = 1, .hi = 1024},
    {.name = "K", .kind = PB_INT, .size = true, .lo = 1, .hi = 1024},
};
static const pb_gemm_dims b16_dims = {"BATCH", "M", "N", "K"};

static int b16_reference(const pb_problem *p, const pb_ref_env *env, const double *v,
                         const void *const *in, float *out, float *note, char *err, size_t errlen)
{
    (void)note;
    return pb_gemm_reference(p, &b16_dims, PB_F16, env, v, in, out, err, errlen);
}

static int b16_baseline(const pb_problem *p, const pb_dev_env *env, const double *v,
                        void *const *bufs, char *err, size_t errlen)
{
    return pb_gemm_baseline(p, &b16_dims, PB_F16, env, v, bufs, err, errlen);
}

/* the official fixed data, shared with challenge 30 (batched_matmul_fp32.c) */
extern const float pb_bmm_ex_a[], pb_bmm_ex_b[], pb_bmm_ex_e[];
extern const float pb_bmm_f2_a[], pb_bmm_f2_b[], pb_bmm_f2_e[];

static const pb_case b16_example[] = {
    {"example", {2, 2, 2, 3}, {PB_DATA(pb_bmm_ex_a), PB_DATA(pb_bmm_ex_b), PB_NANS}, pb_bmm_ex_e, 1},
};

static const pb_case b16_functional[] = {
    {"functional 1", {2, 2, 2, 3}, {PB_DATA(pb_bmm_ex_a), PB_DATA(pb_bmm_ex_b), PB_NANS}, pb_bmm_ex_e, 1},
    {"functional 2", {1, 3, 3, 3}, {PB_DATA(pb_bmm_f2_a), PB_DATA(pb_bmm_f2_b), PB_NANS}, pb_bmm_f2_e, 2},
    {"functional 3", {4, 2, 2, 2}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 3},
    {"functional 4", {8, 4, 3, 2}, {PB_U(-5, 5), PB_U(-5, 5), PB_NANS}, NULL, 4},
    {"functional 5", {16, 16, 16, 16}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 5},
    {"functional 6", {2, 8, 6, 4}, {PB_U(-5, 5), PB_U(-5, 5), PB_NANS}, NULL, 6},
};

static const pb_case b16_extra[] = {
    {"ragged 3x17x33x65", {3, 17, 33, 65}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 201},
    {"ragged 5x100x127x129", {5, 100, 127, 129}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 202},
    {"BATCH=1 1x1024x1024x1024", {1, 1024, 1024, 1024}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 203},
    {"BATCH=128 128x1024x1024x1024", {128, 1024, 1024, 1024}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 204},
    {"BATCH=128 128x1x1x1", {128, 1, 1, 1}, {PB_U(-5, 5), PB_U(-5, 5), PB_NANS}, NULL, 205},
    {"M=1 64x1x1024x1024", {64, 1, 1024, 1024}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 206},
    {"N=1 64x1024x1x1024", {64, 1024, 1, 1024}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 207},
    {"K=1 64x1024x1024x1", {64, 1024, 1024, 1}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 208},
    {"U(-5,5) 32x255x257x256", {32, 255, 257, 256}, {PB_U(-5, 5), PB_U(-5, 5), PB_NANS}, NULL, 209},
    {"odd K and N 8x640x1001x999", {8, 640, 1001, 999}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 210},
    {"odd K 8x640x1024x999", {8, 640, 1024, 999}, {PB_U(-1, 1), PB_U(-1, 1), PB_NANS}, NULL, 211},
};

static const pb_case b16_performance[] = {
    {"performance", {32, 256, 256, 256}, {PB_U(-5, 5), PB_U(-5, 5), PB_NANS}, NULL, 301},
};

static const pb_size b16_sweep[] = {
    {{32, 256, 256, 256}}, {{128, 1024, 1024, 1024}}, {{1, 1024, 1024, 1024}},
    {{128, 64, 64, 64}},   {{32, 255, 255, 255}},     {{64, 1, 1024, 1024}},
};

/* the leaderboard: the performance case and the large target */
static const pb_size b16_board[] = {{{32, 256, 256, 256}}, {{128, 1024, 1024, 1024}}};

const pb_problem pb_batched_matmul_fp16 = {
    .name = "batched_matmul_fp16",
    .title = "FP16 Batched Matrix Multiplication",
    .origin = "LeetGPU challenge 57 (official)",
    .signature = "extern \"C\" void solve(const half* A, const half* B, half* C, int BATCH, int M, "
                 "int N, int K)",
    .params = b16_params,
    .n_params = (int)PB_COUNT(b16_params),
    .flops = "2*BATCH*M*N*K",
    .compute = PB_F16,
    .reference = b16_reference,
    .reference_note = "cuBLAS strided-batched GemmEx: fp16 A and B, fp32 C and compute, cast to fp16",
    .baseline = b16_baseline,
    .baseline_note = "cublasGemmStridedBatchedEx, fp16 in and out, fp32 compute",
    .atol = 0.05,
    .rtol = 0.05,
    .tolerance_note = "atol = rtol = 0.05 (official)",
    .cases = {b16_example, b16_functional, b16_extra, b16_performance},
    .n_cases = {PB_COUNT(b16_example), PB_COUNT(b16_functional), PB_COUNT(b16_extra),
                PB_COUNT(b16_performance)},
    .starter = "#include <cuda_fp16.h>\n"
               "#include <cuda_runtime.h>\n"
               "\n"
               "// A, B, C are device pointers\n"
               "extern \"C\" void solve(const half* A, const half* B, half* C, int BATCH, int M, "
               "int N, int K) {\n"
               "}\n",
    .sweep = b16_sweep,
    .n_sweep = PB_COUNT(b16_sweep),
    .board_sizes = b16_board,
    .n_board_sizes = PB_COUNT(b16_board),
};
