/* The problems' tables equal the official ones (../shared/JUDGE.md), and the interface holds all
 * three problems. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "problem.h"

typedef struct { int m, n, k; float alpha, beta, lo, hi; pb_fill_kind c; float clo, chi; } official;

Test(gemm_fp16, official_tables)
{
    const pb_problem *p = pb_find("gemm_fp16");
    cr_assert_not_null(p);
    cr_expect_float_eq(p->atol, 0.05, 1e-12);
    cr_expect_float_eq(p->rtol, 0.05, 1e-12);
    cr_expect_eq(p->min_dim, 16);
    cr_expect_eq(p->max_dim, 4096);
    cr_expect(p->has_alpha_beta && p->elem == PB_F16 && p->c_role == PB_C_INOUT && p->dims == PB_DIMS_MNK);

    /* example: A=[[1,2,3],[4,5,6]], B=[[1,2],[3,4],[5,6]], C all 1.0, alpha 1, beta 0 */
    cr_assert_eq(p->n_cases[PB_SET_EXAMPLE], 1);
    const pb_case *ex = &p->cases[PB_SET_EXAMPLE][0];
    cr_expect(ex->m == 2 && ex->n == 2 && ex->k == 3 && ex->alpha == 1.0f && ex->beta == 0.0f);
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 2, 3, 4, 5, 6}, e[] = {22, 28, 49, 64};
    cr_assert_eq(ex->a.kind, PB_FILL_DATA);
    cr_assert_eq(ex->b.kind, PB_FILL_DATA);
    cr_expect_arr_eq(ex->a.data, a, sizeof(a));
    cr_expect_arr_eq(ex->b.data, b, sizeof(b));
    cr_expect_eq(ex->c.kind, PB_FILL_ONES);
    cr_expect_arr_eq(ex->expected, e, sizeof(e));

    const official fn[] = {
        {16, 16, 16, 1.0f, 0.0f, -1, 1, PB_FILL_ZEROS, 0, 0},
        {16, 16, 16, 1.0f, 1.0f, -0.5f, 0.5f, PB_FILL_UNIFORM, -0.5f, 0.5f},
        {32, 16, 16, 0.5f, 0.5f, -1, 1, PB_FILL_UNIFORM, -1, 1},
        {16, 32, 16, 1.0f, 1.0f, -1, 1, PB_FILL_UNIFORM, -1, 1},
        {16, 16, 32, 0.0f, 1.0f, -1, 1, PB_FILL_UNIFORM, -1, 1},
    };
    cr_assert_eq(p->n_cases[PB_SET_FUNCTIONAL], 5);
    for (int i = 0; i < 5; i++) {
        const pb_case *c = &p->cases[PB_SET_FUNCTIONAL][i];
        cr_expect(c->m == fn[i].m && c->n == fn[i].n && c->k == fn[i].k, "functional %d shape", i + 1);
        cr_expect(c->alpha == fn[i].alpha && c->beta == fn[i].beta, "functional %d alpha/beta", i + 1);
        cr_expect(c->a.kind == PB_FILL_UNIFORM && c->a.lo == fn[i].lo && c->a.hi == fn[i].hi);
        cr_expect(c->b.kind == PB_FILL_UNIFORM && c->b.lo == fn[i].lo && c->b.hi == fn[i].hi);
        cr_expect_eq(c->c.kind, fn[i].c, "functional %d C", i + 1);
        if (fn[i].c == PB_FILL_UNIFORM) cr_expect(c->c.lo == fn[i].clo && c->c.hi == fn[i].chi);
    }
    cr_assert_eq(p->n_cases[PB_SET_PERFORMANCE], 1);
    const pb_case *pf = &p->cases[PB_SET_PERFORMANCE][0];
    cr_expect(pf->m == 1024 && pf->n == 1024 && pf->k == 1024 && pf->alpha == 1.0f && pf->beta == 1.0f);
    cr_expect(pf->a.kind == PB_FILL_UNIFORM && pf->a.lo == -1 && pf->a.hi == 1);
    cr_expect(pf->c.kind == PB_FILL_UNIFORM && pf->c.lo == -1 && pf->c.hi == 1);
}

Test(gemm_fp16, extra_cases_cover_the_issue)
{
    const pb_problem *p = pb_find("gemm_fp16");
    int ragged[] = {17, 33, 100, 127, 129, 1000};
    bool seen[6] = {0}, tall = false, wide = false, k16 = false, k4096 = false, max = false,
         alpha0 = false, beta0_nan = false;
    for (size_t i = 0; i < p->n_cases[PB_SET_EXTRA]; i++) {
        const pb_case *c = &p->cases[PB_SET_EXTRA][i];
        for (int r = 0; r < 6; r++) seen[r] |= c->m == ragged[r] && c->n == ragged[r] && c->k == ragged[r];
        tall |= c->m >= 16 * c->n;
        wide |= c->n >= 16 * c->m;
        k16 |= c->k == 16;
        k4096 |= c->k == 4096;
        max |= c->m == 4096 && c->n == 4096 && c->k == 4096;
        alpha0 |= c->alpha == 0.0f;
        beta0_nan |= c->beta == 0.0f && c->c.kind == PB_FILL_NAN;
        cr_expect(c->m >= p->min_dim && c->m <= p->max_dim && c->n >= p->min_dim &&
                  c->n <= p->max_dim && c->k >= p->min_dim && c->k <= p->max_dim,
                  "extra case %s inside the constraints", c->name);
    }
    for (int r = 0; r < 6; r++) cr_expect(seen[r], "ragged %d", ragged[r]);
    cr_expect(tall && wide && k16 && k4096 && max && alpha0 && beta0_nan);
}

Test(matmul_fp32, official_tables)
{
    const pb_problem *p = pb_find("matmul_fp32");
    cr_assert_not_null(p);
    cr_expect(!p->has_alpha_beta && p->c_role == PB_C_OUT && p->dims == PB_DIMS_MKN);
    cr_expect_float_eq(p->atol, 1e-4, 1e-12);
    cr_expect_float_eq(p->rtol, 1e-4, 1e-12);
    cr_expect(p->min_dim == 1 && p->max_dim == 8192);
    cr_assert_eq(p->n_cases[PB_SET_FUNCTIONAL], 14);
    const int shapes[14][3] = {{2, 2, 2}, {1, 3, 1}, {3, 3, 3}, {2, 2, 2}, {2, 3, 1},
                               {4, 4, 4}, {8, 6, 10}, {16, 12, 20}, {32, 8, 16}, {8, 16, 32},
                               {1, 1, 1}, {1, 5, 3}, {5, 3, 1}, {8192, 6144, 4096}};
    for (int i = 0; i < 14; i++) {
        const pb_case *c = &p->cases[PB_SET_FUNCTIONAL][i];
        cr_expect(c->m == shapes[i][0] && c->n == shapes[i][1] && c->k == shapes[i][2], "case %d", i + 1);
        if (i >= 5 && i < 10) cr_expect(c->a.kind == PB_FILL_UNIFORM && c->a.lo == -10 && c->a.hi == 10);
        if (i >= 10) cr_expect(c->a.kind == PB_FILL_UNIFORM && c->a.lo == -1 && c->a.hi == 1);
    }
    const pb_case *pf = &p->cases[PB_SET_PERFORMANCE][0];
    cr_expect(pf->m == 8192 && pf->n == 6144 && pf->k == 4096 && pf->a.lo == -10 && pf->a.hi == 10);
    /* A is M×N and B is N×K: the inner dimension is N */
    pb_shape s = pb_gemm_shape(p, &p->cases[PB_SET_FUNCTIONAL][4]); /* 2x3 · 3x1 */
    cr_expect(s.m == 2 && s.k == 3 && s.n == 1);
}

Test(sgemm, tolerance_scales_with_k)
{
    const pb_problem *p = pb_find("sgemm");
    cr_assert_not_null(p);
    pb_case c16 = {.m = 64, .n = 64, .k = 16}, c4096 = {.m = 64, .n = 64, .k = 4096};
    double a16, r16, a4096, r4096;
    pb_case_tolerance(p, &c16, &a16, &r16);
    pb_case_tolerance(p, &c4096, &a4096, &r4096);
    cr_expect_float_eq(a4096 / a16, 16.0, 1e-9); /* sqrt(4096/16) */
    cr_expect(r16 == r4096);
    cr_expect_eq(p->n_cases[PB_SET_PERFORMANCE], 2);
}

Test(registry, names_and_sizes)
{
    cr_expect_eq(pb_count(), 3);
    cr_expect_null(pb_find("nope"));
    int m, n, k;
    cr_expect(pb_parse_size("1024x512x16", &m, &n, &k) && m == 1024 && n == 512 && k == 16);
    cr_expect(pb_parse_size("3,4,5", &m, &n, &k) && m == 3 && n == 4 && k == 5);
    cr_expect(!pb_parse_size("1024x512", &m, &n, &k));
    cr_expect(!pb_parse_size("0x1x1", &m, &n, &k));
    cr_expect(!pb_parse_size("-4x1x1", &m, &n, &k));
    cr_expect(!pb_parse_size("4x1x1x", &m, &n, &k));
    const pb_problem *g = pb_find("gemm_fp16");
    cr_expect(pb_size_ok(g, 16, 4096, 17));
    cr_expect(!pb_size_ok(g, 15, 16, 16));
    cr_expect(!pb_size_ok(g, 16, 16, 4097));
}
