/* int8_matmul.c — LeetGPU challenge 32, "INT8 Quantized MatMul" (official).
 *
 * C = clamp(round_half_even(((float)acc · scale_A · scale_B) / scale_C) + zero_point_C, −128, 127)
 * with acc = Σ_k (A − zero_point_A)(B − zero_point_B); A M×K, B K×N, C M×N, int8, C output only.
 * Official: signature, exact (atol = rtol = 0), 1 ≤ M, N, K ≤ 4096, scales positive, zero points
 * in [−128, 127], the example, five functional tests and the performance test
 * (../shared/JUDGE.md). Random A and B are randint(−128, 128) unless the table says otherwise.
 *
 * Reference: acc exactly (a float64 GEMM of the shifted values: every partial sum is an integer
 * below 2^53), then the site's fp32 steps in its order on the host. The division: the site's
 * reference (challenge.py) is torch's `C * scale_A * scale_B / scale_C` on a CUDA tensor, and
 * torch divides a tensor by a Python scalar there as a multiply by the scalar's fp32 reciprocal,
 * so that is what the reference does: fl(fl(fl(acc·sA)·sB)·fl(1/sC)). A true division differs on
 * a few exact ties (functional 4's scales: acc = 9 gives 4.50000048 against 4.5). The site itself accumulates
 * in fp32, exact only while partial sums stay below 2^24; the "zero points −128, K=4096" extra
 * test goes past that, where only exact accumulation is right. Each mismatch shows the fp32
 * value before rounding.
 */
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const pb_param i8_params[] = {
    {.name = "A", .kind = PB_PTR, .type = PB_I8, .role = PB_IN, .rows = "M", .cols = "K"},
    {.name = "B", .kind = PB_PTR, .type = PB_I8, .role = PB_IN, .rows = "K", .cols = "N"},
    {.name = "C", .kind = PB_PTR, .type = PB_I8, .role = PB_OUT, .rows = "M", .cols = "N"},
    {.name = "M", .kind = PB_INT, .size = true, .lo = 1, .hi = 4096},
    {.name = "N", .kind = PB_INT, .size = true, .lo = 1, .hi = 4096},
    {.name = "K", .kind = PB_INT, .size = true, .lo = 1, .hi = 4096},
    /* scales: any positive fp32 (the smallest denormal to the largest finite) */
    {.name = "scale_A", .kind = PB_FLOAT, .lo = 1.401298464e-45, .hi = 3.402823466e38},
    {.name = "scale_B", .kind = PB_FLOAT, .lo = 1.401298464e-45, .hi = 3.402823466e38},
    {.name = "scale_C", .kind = PB_FLOAT, .lo = 1.401298464e-45, .hi = 3.402823466e38},
    {.name = "zero_point_A", .kind = PB_INT, .lo = -128, .hi = 127},
    {.name = "zero_point_B", .kind = PB_INT, .lo = -128, .hi = 127},
    {.name = "zero_point_C", .kind = PB_INT, .lo = -128, .hi = 127},
};

/* The site's requantization of one exact accumulator, in its fp32 order; *before_round gets
 * the fp32 value that is rounded. */
float pb_int8_requant(double acc, float sa, float sb, float sc, int zc, float *before_round)
{
    volatile float v = (float)acc; /* volatile: each step rounded to fp32, in this order */
    v = v * sa;
    v = v * sb;
    volatile float inv = 1.0f / sc; /* torch on CUDA divides by a scalar as a multiply by its */
    v = v * inv;                    /* fp32 reciprocal (BinaryDivTrueKernel.cu) */
    *before_round = v;
    float r = rintf(v) + (float)zc; /* the default rounding mode: half to even */
    return r < -128.0f ? -128.0f : r > 127.0f ? 127.0f : r;
}

static int i8_reference(const pb_problem *p, const pb_ref_env *env, const double *v,
                        const void *const *in, float *out, float *note, char *err, size_t errlen)
{
    int m = (int)v[0], n = (int)v[1], k = (int)v[2];
    float sa = (float)v[3], sb = (float)v[4], sc = (float)v[5];
    int za = (int)v[6], zb = (int)v[7], zc = (int)v[8];
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    double *a = malloc(na * sizeof(double)), *b = malloc(nb * sizeof(double)),
           *c = malloc(nc * sizeof(double));
    int rc = -1;
    if (!a || !b || !c) {
        snprintf(err, errlen, "%s reference: out of host memory", p->name);
        goto out;
    }
    const int8_t *ia = in[0], *ib = in[1];
    for (size_t i = 0; i < na; i++) a[i] = (double)(ia[i] - za);
    for (size_t i = 0; i < nb; i++) b[i] = (double)(ib[i] - zb);
    pb_gemm g = {.type = PB_F64, .batch = 1, .m = m, .n = n, .k = k, .alpha = 1, .beta = 0,
                 .a = a, .b = b, .c = c};
    if ((rc = env->gemm(env, &g, err, errlen))) goto out;
    for (size_t i = 0; i < nc; i++) {
        float before;
        out[i] = pb_int8_requant(c[i], sa, sb, sc, zc, &before);
        if (note) note[i] = before;
    }
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

/* The yardstick a PyTorch user gets: the library's int8 GEMM into int32 (torch._int_mm), then a
 * separate requantize pass. It takes zero points 0 (the performance case's): the library GEMM
 * has no zero points. */
static int i8_baseline(const pb_problem *p, const pb_dev_env *env, const double *v,
                       void *const *bufs, char *err, size_t errlen)
{
    int m = (int)v[0], n = (int)v[1], k = (int)v[2];
    if (v[6] != 0 || v[7] != 0) {
        snprintf(err, errlen, "the %s yardstick (int8 GEMM + requantize) takes zero points A "
                              "and B of 0 only", p->name);
        return -1;
    }
    if (!env->igemm || !env->requant || !env->scratch) {
        snprintf(err, errlen, "no int8 GEMM here");
        return -1;
    }
    int32_t *acc = env->scratch(env, 0, (size_t)m * n * sizeof(int32_t));
    if (!acc) {
        snprintf(err, errlen, "%s yardstick: no device memory for the int32 product", p->name);
        return -1;
    }
    int e = env->igemm(env, m, n, k, bufs[0], bufs[1], acc, err, errlen);
    if (!e)
        e = env->requant(env, (size_t)m * n, acc, (float)v[3], (float)v[4], (float)v[5],
                         (int)v[8], bufs[2], err, errlen);
    return e;
}

static const float i8_ex_a[] = {1, 2, 3, 4}, i8_ex_b[] = {5, 6, 7, 8};
static const float i8_ex_e[] = {8, 9, 17, 20}; /* 19·0.4 = 7.6, 8.8, 17.2, 20.0 rounded */

#define I8_R PB_RANDINT(-128, 128)

static const pb_case i8_example[] = {
    {"example", {2, 2, 2, 0.1f, 0.2f, 0.05f, 0, 0, 0}, {PB_DATA(i8_ex_a), PB_DATA(i8_ex_b), PB_GARBAGE}, i8_ex_e, 1},
};

static const pb_case i8_functional[] = {
    {"functional 1", {4, 4, 4, 0.1f, 0.2f, 0.05f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 101},
    {"functional 2", {2, 3, 5, 0.5f, 0.25f, 0.125f, 1, -2, 3}, {I8_R, I8_R, PB_GARBAGE}, NULL, 102},
    {"functional 3", {1, 1, 3, 1.0f, 1.0f, 1.0f, 1, 3, 5}, {I8_R, I8_R, PB_GARBAGE}, NULL, 103},
    {"functional 4", {3, 5, 2, 0.05f, 0.1f, 0.01f, 0, 0, 0}, {PB_RANDINT(-50, 51), PB_RANDINT(-50, 51), PB_GARBAGE}, NULL, 104},
    {"functional 5", {32, 32, 16, 0.2f, 0.3f, 0.1f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 105},
};

static const pb_case i8_extra[] = {
    {"ragged 17x33x65", {17, 33, 65, 0.01f, 0.02f, 0.5f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 201},
    {"ragged 129x100x127", {129, 100, 127, 0.01f, 0.01f, 2.0f, 5, -3, 7}, {I8_R, I8_R, PB_GARBAGE}, NULL, 202},
    {"ties: v = acc/2 (half to even)", {64, 64, 63, 0.5f, 1.0f, 1.0f, 0, 0, 0}, {PB_RANDINT(-3, 4), PB_RANDINT(-3, 4), PB_GARBAGE}, NULL, 203},
    {"clamp both ways, zero point C 100", {33, 65, 129, 0.05f, 0.05f, 0.5f, 3, -7, 100}, {I8_R, I8_R, PB_GARBAGE}, NULL, 204},
    {"zero points 127, clamp at 127", {64, 64, 256, 0.1f, 0.1f, 0.01f, 127, 127, -128}, {I8_R, I8_R, PB_GARBAGE}, NULL, 205},
    {"zero points -128 and 127, clamp at -128", {64, 64, 256, 0.1f, 0.1f, 0.01f, -128, 127, 127}, {I8_R, I8_R, PB_GARBAGE}, NULL, 206},
    {"zero points -128, K=4096 (sums past 2^24)", {256, 256, 4096, 0.02f, 0.02f, 266.4f, -128, -128, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 207},
    {"M=1 1x4096x4096", {1, 4096, 4096, 0.001f, 0.001f, 0.05f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 208},
    {"N=1 4096x1x4096", {4096, 1, 4096, 0.001f, 0.001f, 0.05f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 209},
    {"K=1 1000x1000x1", {1000, 1000, 1, 0.1f, 0.1f, 0.2f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 210},
    {"max 4096x4096x4096", {4096, 4096, 4096, 0.001f, 0.001f, 0.05f, 1, -1, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 211},
};

static const pb_case i8_performance[] = {
    {"performance", {8192, 4096, 2048, 0.1f, 0.1f, 0.01f, 0, 0, 0}, {I8_R, I8_R, PB_GARBAGE}, NULL, 301},
};

static const pb_size i8_sweep[] = {
    {{4096, 4096, 2048}}, {{4096, 4096, 4096}}, {{4095, 4095, 4095}}, {{1, 4096, 4096}},
    {{16, 4096, 4096}},   {{1000, 1000, 1000}},
};

/* Note: the official performance case has M = 8192, past the official constraint M <= 4096;
 * the tables are the site's, so it stays, and --size / sweeps keep to the constraint. */
static const char *i8_check(const pb_problem *p, const double *v)
{
    (void)p;
    if (!(v[3] > 0 && v[4] > 0 && v[5] > 0)) return "the scales must be positive";
    return NULL;
}

const pb_problem pb_int8_matmul = {
    .name = "int8_matmul",
    .title = "INT8 Quantized MatMul",
    .origin = "LeetGPU challenge 32 (official)",
    .signature = "extern \"C\" void solve(const int8_t* A, const int8_t* B, int8_t* C, int M, "
                 "int N, int K, float scale_A, float scale_B, float scale_C, int zero_point_A, "
                 "int zero_point_B, int zero_point_C)",
    .params = i8_params,
    .n_params = (int)PB_COUNT(i8_params),
    .flops = "2*M*N*K",
    .compute = PB_I8,
    .reference = i8_reference,
    .reference_note = "exact integer accumulation (a float64 GEMM of A − zero_point_A and "
                      "B − zero_point_B), then the site's fp32 steps in its order (the divide as "
                      "torch does it on CUDA: times the fp32 reciprocal of scale_C)",
    .baseline = i8_baseline,
    .baseline_note = "cublasGemmEx int8 in, int32 out (torch._int_mm), then a separate "
                     "requantize pass",
    .atol = 0,
    .rtol = 0,
    .tolerance_note = "exact: atol = rtol = 0 (official)",
    .check = i8_check,
    .cases = {i8_example, i8_functional, i8_extra, i8_performance},
    .n_cases = {PB_COUNT(i8_example), PB_COUNT(i8_functional), PB_COUNT(i8_extra),
                PB_COUNT(i8_performance)},
    .starter = "#include <cuda_runtime.h>\n"
               "\n"
               "// A, B, C are device pointers\n"
               "extern \"C\" void solve(const int8_t* A, const int8_t* B, int8_t* C, int M, int N, "
               "int K, float scale_A, float scale_B, float scale_C, int zero_point_A, "
               "int zero_point_B, int zero_point_C) {\n"
               "}\n",
    .sweep = i8_sweep,
    .n_sweep = PB_COUNT(i8_sweep),
};
