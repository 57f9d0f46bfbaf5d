/* int4_matmul.c — LeetGPU challenge 81, "INT4 Weight-Only Quantized MatMul" (official).
 *
 * y = x·Wᵀ: x M×K fp16, w_q N×(K/2) uint8, scales N×(K/group_size) fp16, y M×N fp16 (output
 * only). Byte w_q[n][i] holds weight (n, 2i) in its high nibble and (n, 2i+1) in its low one,
 * each unsigned with offset 8; W[n][k] = (nibble − 8) · scales[n][k / group_size]. Official:
 * signature, atol = rtol = 0.01, 1 ≤ M, N, K ≤ 8192, K divisible by 2 and by group_size,
 * group_size ∈ {2, 4, ..., 128}, the example, ten functional tests and the performance test
 * (../shared/JUDGE.md). Reference: dequantize in fp32 on the host, x (as fp32) · Wᵀ as an fp32
 * GEMM without TF32, cast to fp16.
 */
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>

#include "fp16.h"

static const pb_param i4_params[] = {
    {.name = "x", .kind = PB_PTR, .type = PB_F16, .role = PB_IN, .rows = "M", .cols = "K"},
    {.name = "w_q", .kind = PB_PTR, .type = PB_U8, .role = PB_IN, .rows = "N", .cols = "K/2"},
    {.name = "scales", .kind = PB_PTR, .type = PB_F16, .role = PB_IN, .rows = "N",
     .cols = "K/group_size"},
    {.name = "y", .kind = PB_PTR, .type = PB_F16, .role = PB_OUT, .rows = "M", .cols = "N"},
    {.name = "M", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
    {.name = "N", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
    {.name = "K", .kind = PB_INT, .size = true, .lo = 1, .hi = 8192},
    {.name = "group_size", .kind = PB_INT, .lo = 2, .hi = 128},
};

/* The weight (n, k) of an N×K matrix packed two a byte, high nibble first, offset 8. */
int pb_int4_weight(const uint8_t *w_q, int K, int n, int k)
{
    uint8_t byte = w_q[(size_t)n * (K / 2) + k / 2];
    return (k % 2 == 0 ? byte >> 4 : byte & 15) - 8;
}

static int i4_reference(const pb_problem *p, const pb_ref_env *env, const double *v,
                        const void *const *in, float *out, float *note, char *err, size_t errlen)
{
    (void)note;
    int m = (int)v[0], n = (int)v[1], k = (int)v[2], g = (int)v[3];
    size_t nx = (size_t)m * k, nw = (size_t)n * k;
    float *x = malloc(nx * sizeof(float)), *w = malloc(nw * sizeof(float));
    int rc = -1;
    if (!x || !w) {
        snprintf(err, errlen, "%s reference: out of host memory", p->name);
        goto out;
    }
    f16_to_float_n(in[0], x, nx);
    const uint8_t *wq = in[1];
    const uint16_t *sc = in[2];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < k; c++)
            w[(size_t)r * k + c] =
                (float)pb_int4_weight(wq, k, r, c) * f16_to_float(sc[(size_t)r * (k / g) + c / g]);
    pb_gemm gm = {.type = PB_F32, .trans_b = true, .batch = 1, .m = m, .n = n, .k = k,
                  .alpha = 1, .beta = 0, .a = x, .b = w, .c = out};
    if ((rc = env->gemm(env, &gm, err, errlen))) goto out;
    f16_round_n(out, (size_t)m * n);
out:
    free(x);
    free(w);
    return rc;
}

/* The yardstick a PyTorch user gets: dequantize the weight to fp16, then an fp16 GEMM
 * (cublasGemmEx, fp32 compute) of x and Wᵀ. */
static int i4_baseline(const pb_problem *p, const pb_dev_env *env, const double *v,
                       void *const *bufs, char *err, size_t errlen)
{
    int m = (int)v[0], n = (int)v[1], k = (int)v[2], g = (int)v[3];
    if (!env->dequant4 || !env->scratch) {
        snprintf(err, errlen, "no dequantize pass here");
        return -1;
    }
    void *w = env->scratch(env, 0, (size_t)n * k * 2);
    if (!w) {
        snprintf(err, errlen, "%s yardstick: no device memory for the dense weight", p->name);
        return -1;
    }
    int e = env->dequant4(env, n, k, g, bufs[1], bufs[2], w, err, errlen);
    if (e) return e;
    pb_dev_gemm gm = {.type = PB_F16, .trans_b = true, .batch = 1, .m = m, .n = n, .k = k,
                      .alpha = 1.0f, .beta = 0.0f, .a = bufs[0], .b = w, .c = bufs[3]};
    return env->gemm(env, &gm, err, errlen);
}

static const char *i4_check(const pb_problem *p, const double *v)
{
    (void)p;
    int k = (int)v[2], g = (int)v[3];
    if (g < 2 || g > 128 || (g & (g - 1))) return "group_size must be one of 2, 4, 8, 16, 32, 64, 128";
    /* the value named: --size takes group_size from the performance case, unseen by the user;
     * a literal per power of two, as the message must outlive the call without a buffer */
#define I4_K_WHY(n) "K must be divisible by 2 and by group_size = " #n
    static const char *const why[] = {I4_K_WHY(2),  I4_K_WHY(4),  I4_K_WHY(8),  I4_K_WHY(16),
                                      I4_K_WHY(32), I4_K_WHY(64), I4_K_WHY(128)};
#undef I4_K_WHY
    int log2g = 0;
    while ((2 << log2g) < g) log2g++;
    if (k % 2 || k % g) return why[log2g];
    return NULL;
}

static const float i4_ex_x[] = {1, 0, 1, 0, 0, 1, 0, 1};
static const float i4_ex_w[] = {153, 153, 170, 170, 119, 119, 136, 136};
static const float i4_ex_s[] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float i4_ex_e[] = {1, 2, -1, 0, 1, 2, -1, 0}; /* weights 1, 2, −1, 0 times 0.5, twice */

#define I4_X PB_NORMAL(0, 1)
#define I4_W PB_RANDINT(0, 256)
#define I4_S PB_U(0.01f, 0.11f) /* U(0, 1)·0.1 + 0.01 */

static const pb_case i4_example[] = {
    {"example", {2, 4, 4, 2}, {PB_DATA(i4_ex_x), PB_DATA(i4_ex_w), PB_DATA(i4_ex_s), PB_NANS}, i4_ex_e, 1},
};

static const pb_case i4_functional[] = {
    {"functional 1 (x = 0)", {1, 2, 4, 2}, {PB_ZEROS, I4_W, I4_S, PB_NANS}, NULL, 101},
    {"functional 2", {2, 4, 4, 2}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 102},
    {"functional 3", {3, 5, 8, 4}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 103},
    {"functional 4", {16, 16, 32, 16}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 104},
    {"functional 5", {32, 64, 64, 32}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 105},
    {"functional 6", {64, 128, 128, 64}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 106},
    {"functional 7", {30, 50, 64, 32}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 107},
    {"functional 8", {100, 200, 128, 64}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 108},
    {"functional 9", {255, 100, 128, 64}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 109},
    {"functional 10", {128, 256, 512, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 110},
};

static const pb_case i4_extra[] = {
    {"group 2 33x65x256", {33, 65, 256, 2}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 201},
    {"group 4 33x65x256", {33, 65, 256, 4}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 202},
    {"group 8 33x65x256", {33, 65, 256, 8}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 203},
    {"group 16 33x65x256", {33, 65, 256, 16}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 204},
    {"group 32 33x65x256", {33, 65, 256, 32}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 205},
    {"group 64 33x65x256", {33, 65, 256, 64}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 206},
    {"group 128 33x65x256", {33, 65, 256, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 207},
    {"ragged 17x33x130 group 2", {17, 33, 130, 2}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 208},
    {"M=1 decode 1x4096x4096", {1, 4096, 4096, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 209},
    {"M=16 16x4096x4096", {16, 4096, 4096, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 210},
    {"K=8192 8x1024x8192", {8, 1024, 8192, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 211},
    {"N=1 64x1x1024", {64, 1, 1024, 32}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 212},
    {"K=2 100x100x2 group 2", {100, 100, 2, 2}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 213},
    {"max 8192x8192x8192", {8192, 8192, 8192, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 214},
};

static const pb_case i4_performance[] = {
    {"performance", {4096, 4096, 4096, 128}, {I4_X, I4_W, I4_S, PB_NANS}, NULL, 301},
};

static const pb_size i4_sweep[] = {
    {{4096, 4096, 4096}}, {{1, 4096, 4096}}, {{16, 4096, 4096}}, {{1, 8192, 8192}},
    {{4096, 4096, 8192}}, {{1000, 1000, 1024}},
};

/* the leaderboard: the performance case and two decode steps (M = 1, M = 16) */
static const pb_size i4_board[] = {{{4096, 4096, 4096}}, {{1, 4096, 4096}}, {{16, 4096, 4096}}};

const pb_problem pb_int4_matmul = {
    .name = "int4_matmul",
    .title = "INT4 Weight-Only Quantized MatMul",
    .origin = "LeetGPU challenge 81 (official)",
    .signature = "extern \"C\" void solve(const __half* x, const uint8_t* w_q, const __half* "
                 "scales, __half* y, int M, int N, int K, int group_size)",
    .params = i4_params,
    .n_params = (int)PB_COUNT(i4_params),
    .flops = "2*M*N*K",
    .compute = PB_F16,
    .reference = i4_reference,
    .reference_note = "dequantized in fp32 on the host, fp32 GEMM x·Wᵀ without TF32, cast to fp16",
    .baseline = i4_baseline,
    .baseline_note = "dequantize to fp16, then cublasGemmEx (fp16 in and out, fp32 compute)",
    .atol = 0.01,
    .rtol = 0.01,
    .tolerance_note = "atol = rtol = 0.01 (official)",
    .check = i4_check,
    .cases = {i4_example, i4_functional, i4_extra, i4_performance},
    .n_cases = {PB_COUNT(i4_example), PB_COUNT(i4_functional), PB_COUNT(i4_extra),
                PB_COUNT(i4_performance)},
    .starter = "#include <cuda_fp16.h>\n"
               "#include <cuda_runtime.h>\n"
               "#include <stdint.h>\n"
               "\n"
               "// x, w_q, scales, y are device pointers\n"
               "extern \"C\" void solve(const __half* x, const uint8_t* w_q, const __half* scales, "
               "__half* y, int M, int N, int K, int group_size) {\n"
               "}\n",
    .sweep = i4_sweep,
    .n_sweep = PB_COUNT(i4_sweep),
    .board_sizes = i4_board,
    .n_board_sizes = PB_COUNT(i4_board),
};
