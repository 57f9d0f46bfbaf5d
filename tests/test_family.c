/* The GEMM family's machinery on the CPU: every problem's reference (through the float64 CPU
 * environment) against the official expected outputs, the fp32 problems' two references (which
 * GEMM fills which array, the exact one left out without memory), the int8 requantization's
 * order and rounding, the int4 nibble order, the signature inference over all seven problems, the arena
 * layout, the input fills, and check.c's guard, input and note helpers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen.h"
#include "judge.h"
#include "problem.h"
#include "refcpu.h"
#include "sig.h"
#include "util.h"
#include "wire.h"

/* The reference of case c on the CPU; out holds the output's elements (caller frees). */
static float *cpu_reference(const pb_problem *p, const pb_case *c, float *note, size_t *n_out)
{
    tu_bufs t;
    tu_bufs_make(p, c, c->seed, &t);
    *n_out = t.l.n_out;
    float *ref = malloc(*n_out * sizeof(float) + 4);
    pb_ref_env env;
    rc_env_init(&env);
    char err[200];
    cr_assert_eq(p->reference(p, &env, c->v, t.in, ref, note, err, sizeof(err)), 0, "%s", err);
    tu_bufs_free(&t);
    return ref;
}

Test(family, references_give_the_official_expected_outputs)
{
    int with_expected = 0;
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        for (int s = 0; s < PB_N_SETS; s++)
            for (size_t i = 0; i < p->n_cases[s]; i++) {
                const pb_case *c = &p->cases[s][i];
                if (!c->expected) continue;
                size_t n;
                float *ref = cpu_reference(p, c, NULL, &n);
                for (size_t e = 0; e < n; e++)
                    cr_expect(ref[e] == c->expected[e], "%s %s element %zu: %g, expected %g",
                              p->name, c->name, e, ref[e], c->expected[e]);
                free(ref);
                with_expected++;
            }
    }
    cr_expect_geq(with_expected, 10, "official expected outputs checked: %d", with_expected);
}

Test(family, int8_requant_is_the_sites_fp32_order)
{
    float before;
    /* example: acc 19, 0.1·0.2·(1/0.05) in fp32 → 7.6 → 8 */
    cr_expect_eq(pb_int8_requant(19, 0.1f, 0.2f, 0.05f, 0, &before), 8.0f);
    /* ties go to even: v = acc / 2 exactly */
    cr_expect_eq(pb_int8_requant(5, 0.5f, 1.0f, 1.0f, 0, &before), 2.0f);
    cr_expect_eq(before, 2.5f);
    cr_expect_eq(pb_int8_requant(7, 0.5f, 1.0f, 1.0f, 0, &before), 4.0f);
    cr_expect_eq(pb_int8_requant(-5, 0.5f, 1.0f, 1.0f, 0, &before), -2.0f);
    /* torch divides by a scalar on CUDA as a multiply by its fp32 reciprocal: with functional
     * 4's scales acc = 9 lands exactly on 4.5 (→ 4), where a true division gives 4.50000048 */
    cr_expect_eq(pb_int8_requant(9, 0.05f, 0.1f, 0.01f, 0, &before), 4.0f);
    cr_expect_eq(before, 4.5f);
    volatile float t = 9.0f;
    t = t * 0.05f;
    t = t * 0.1f;
    t = t / 0.01f;
    cr_expect_gt(t, 4.5f, "a true division would round this tie up: %.9g", (double)t);
    /* zero point C, then the clamp */
    cr_expect_eq(pb_int8_requant(100, 1.0f, 1.0f, 1.0f, 100, &before), 127.0f);
    cr_expect_eq(pb_int8_requant(-1000, 1.0f, 1.0f, 1.0f, 0, &before), -128.0f);
}

Test(family, int8_exact_past_2_24_and_notes)
{
    /* the "zero points -128, K=4096" extra test: sums past 2^24, where fp32 accumulation drifts */
    const pb_problem *p = pb_find("int8_matmul");
    const pb_case *c = NULL;
    for (size_t i = 0; i < p->n_cases[PB_SET_EXTRA]; i++)
        if (strstr(p->cases[PB_SET_EXTRA][i].name, "2^24")) c = &p->cases[PB_SET_EXTRA][i];
    cr_assert_not_null(c);
    pb_case small = *c;
    small.v[0] = small.v[1] = 8; /* 8×8 outputs, the same K and zero points */
    size_t n;
    float *note = malloc(64 * sizeof(float));
    float *ref = cpu_reference(p, &small, note, &n);
    cr_assert_eq(n, 64);
    for (size_t e = 0; e < n; e++) {
        cr_expect(isfinite(note[e]), "every int8 element has its value before rounding");
        cr_expect(ref[e] >= -128 && ref[e] <= 127);
    }
    free(ref);
    free(note);
}

Test(family, int4_high_nibble_first)
{
    const uint8_t w[] = {0x1F, 0x80};
    cr_expect_eq(pb_int4_weight(w, 4, 0, 0), 1 - 8);
    cr_expect_eq(pb_int4_weight(w, 4, 0, 1), 15 - 8);
    cr_expect_eq(pb_int4_weight(w, 4, 0, 2), 0);
    cr_expect_eq(pb_int4_weight(w, 4, 0, 3), -8);
}

Test(family, seven_signatures_infer_seven_problems)
{
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        sig_info s;
        sig_read(p->starter, strlen(p->starter), &s);
        cr_assert(s.found, "%s's starter declares solve", p->name);
        cr_expect(jd_compare_signature(&s, p) == SIG_MATCH, "%s: %s", p->name, s.text);
        const pb_problem *got = jd_infer_problem(&s);
        cr_expect(got == p, "%s's starter infers %s", p->name, got ? got->name : "nothing");
        for (size_t pj = 0; pj < pb_count(); pj++)
            if (pj != pi)
                cr_expect(jd_compare_signature(&s, pb_at(pj)) == SIG_MISMATCH,
                          "%s's signature must not pass as %s's", p->name, pb_at(pj)->name);
    }
}

Test(family, layout_regions_do_not_overlap)
{
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        const pb_case *c = &p->cases[PB_SET_PERFORMANCE][0];
        wr_layout l;
        cr_assert(wr_layout_for(p, c->v, 1 << 20, 100, &l), "%s", p->name);
        size_t end = 0;
        for (int b = 0; b < l.n_bufs; b++) {
            cr_expect_geq(l.sol_in[b], end);
            end = l.sol_in[b] + l.bytes[b];
        }
        for (int b = 0; b < l.n_bufs; b++) {
            cr_expect_geq(l.sol_back[b], end);
            end = l.sol_back[b] + l.bytes[b] + 2 * l.guard;
        }
        cr_expect_geq(l.sol_samples, end);
        cr_expect_geq(l.sol_total, l.sol_samples + WR_SAMPLE_SERIES * 100 * sizeof(double));
        cr_expect_geq(l.or_ref, l.or_in[l.n_bufs - 1] + l.bytes[l.n_bufs - 1]);
        cr_expect_geq(l.or_note, l.or_ref + l.n_out * sizeof(float));
        cr_expect_geq(l.or_total, l.or_note + l.n_out * sizeof(float));
    }
    /* an extent that cannot be right is refused */
    const pb_problem *p = pb_find("int4_matmul");
    double v[PB_MAX_SCALARS] = {4, 4, 4, 0};
    wr_layout l;
    cr_expect_not(wr_layout_for(p, v, 0, 10, &l), "group_size 0: K/group_size fails");
}

Test(family, fills)
{
    const pb_problem *p = pb_find("int4_matmul");
    const pb_case *c = &p->cases[PB_SET_PERFORMANCE][0];
    pb_case small = *c;
    small.v[0] = 64, small.v[1] = 64, small.v[2] = 256, small.v[3] = 128;
    uint16_t *x = malloc(64 * 256 * 2), *sc = malloc(64 * 2 * 2), *y = malloc(64 * 64 * 2);
    uint8_t *w = malloc(64 * 128);
    void *dst[] = {x, w, sc, y};
    gen_inputs(p, &small, small.v, 1, dst);
    float *xf = malloc(64 * 256 * 4);
    gen_to_float(PB_F16, x, xf, 64 * 256);
    double mean = 0, var = 0;
    for (int i = 0; i < 64 * 256; i++) mean += xf[i];
    mean /= 64 * 256;
    for (int i = 0; i < 64 * 256; i++) var += (xf[i] - mean) * (xf[i] - mean);
    var /= 64 * 256;
    cr_expect(fabs(mean) < 0.05 && fabs(var - 1) < 0.1, "x ~ N(0, 1): mean %g var %g", mean, var);
    bool lo = false, hi = false;
    for (int i = 0; i < 64 * 128; i++) lo |= w[i] == 0, hi |= w[i] == 255;
    cr_expect(lo && hi, "w_q covers randint(0, 256)");
    float s[128];
    gen_to_float(PB_F16, sc, s, 128);
    for (int i = 0; i < 128; i++) cr_expect(s[i] >= 0.0099f && s[i] <= 0.1101f, "scale %g", s[i]);
    float yf[64 * 64];
    gen_to_float(PB_F16, y, yf, 64 * 64);
    for (int i = 0; i < 64 * 64; i++) cr_expect(isnan(yf[i]), "y holds NaN before the call");
    free(x), free(sc), free(y), free(w), free(xf);

    /* int8: randint(-50, 51) stays in [-50, 50]; C is garbage */
    const pb_problem *q = pb_find("int8_matmul");
    pb_case f4 = q->cases[PB_SET_FUNCTIONAL][3];
    int8_t a[6], b[10], cc[15];
    void *d8[] = {a, b, cc};
    gen_inputs(q, &f4, f4.v, 9, d8);
    for (int i = 0; i < 6; i++) cr_expect(a[i] >= -50 && a[i] <= 50);
    for (int i = 0; i < 10; i++) cr_expect(b[i] >= -50 && b[i] <= 50);
}

Test(family, check_helpers)
{
    unsigned char whole[4 + 8 + 4];
    memset(whole, 0xA5, sizeof(whole));
    long long off;
    cr_expect_not(ck_guard_hit(whole, 8, 4, 0xA5, &off));
    whole[2] = 0; /* two bytes before the data */
    cr_expect(ck_guard_hit(whole, 8, 4, 0xA5, &off));
    cr_expect_eq(off, -2);
    whole[2] = 0xA5;
    whole[4 + 8 + 1] = 0; /* one byte past the end */
    cr_expect(ck_guard_hit(whole, 8, 4, 0xA5, &off));
    cr_expect_eq(off, 9);
    size_t at;
    const char x[] = "abcdef", y[] = "abcXef";
    cr_expect_not(ck_first_change(x, x, 6, &at));
    cr_expect(ck_first_change(x, y, 6, &at));
    cr_expect_eq(at, 3);
    const float got[] = {1, 2}, ref[] = {1, 3}, note[] = {0.5f, 2.5f};
    ck_summary s;
    cr_expect_not(ck_compare_notes(got, ref, note, 1, 2, 0, 0, &s));
    cr_assert_eq(s.n_shown, 1);
    cr_expect_eq(s.shown[0].note, 2.5);
    cr_expect_not(ck_compare_f32(got, ref, 1, 2, 0, 0, &s));
    cr_expect(isnan(s.shown[0].note));
}

/* A reference environment that records its calls: the fp32 GEMM writes 3, the exact one 7 (or
 * fails with exact_fails), each after noting what it was asked. */
typedef struct {
    int calls;
    bool exact[2];
    pb_type type[2];
    double alpha[2], beta[2];
    float c0[2]; /* C's first element on entry (the initial C when beta reads it) */
    int exact_fails;
} rec_env;

static int rec_gemm(const pb_ref_env *env, const pb_gemm *g, char *err, size_t errlen)
{
    rec_env *r = env->ctx;
    int i = r->calls++;
    cr_assert_lt(i, 2, "at most two GEMMs a reference");
    r->exact[i] = g->exact;
    r->type[i] = g->type;
    r->alpha[i] = g->alpha;
    r->beta[i] = g->beta;
    r->c0[i] = ((float *)g->c)[0];
    if (g->exact && r->exact_fails) {
        snprintf(err, errlen, "exact: no");
        return r->exact_fails;
    }
    for (size_t e = 0; e < (size_t)g->batch * g->m * g->n; e++)
        ((float *)g->c)[e] = g->exact ? 7.0f : 3.0f;
    return 0;
}

static bool fp32_problem(const char *name)
{
    return !strcmp(name, "matmul_fp32") || !strcmp(name, "batched_matmul_fp32") ||
           !strcmp(name, "sgemm");
}

/* The fp32 problems have two references: out from the environment's fp32 GEMM (cuBLAS's in
 * the oracle), the note from its exact GEMM; the others keep theirs. Through the CPU (float64)
 * environment both are the float64 result; with no memory for the exact one the note is NaN,
 * the reference still succeeds and says so; its other errors fail the reference. */
Test(family, fp32_problems_give_two_references)
{
    int seen = 0;
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        bool fp32 = fp32_problem(p->name);
        seen += fp32;
        cr_expect_eq(p->alt_reference != NULL, fp32, "%s: alt_reference", p->name);
        if (!fp32) continue;
        cr_expect_str_eq(p->alt_reference, "exact");
        cr_expect(strstr(p->reference_note, "exact"), "%s: %s", p->name, p->reference_note);
        /* the CPU environment: every small table case fills both, equal (both are float64's) */
        int cases = 0;
        for (int s = 0; s < PB_N_SETS; s++)
            for (size_t i = 0; i < p->n_cases[s]; i++) {
                const pb_case *c = &p->cases[s][i];
                if (pb_flops(p, c->v) > 2e7) continue;
                tu_bufs t;
                tu_bufs_make(p, c, c->seed, &t);
                size_t n = t.l.n_out;
                float *note = malloc(n * sizeof(float) + 4);
                for (size_t e = 0; e < n; e++) note[e] = NAN;
                tu_bufs_free(&t);
                size_t n2;
                float *ref = cpu_reference(p, c, note, &n2);
                cr_assert_eq(n, n2);
                for (size_t e = 0; e < n; e++)
                    cr_expect(note[e] == ref[e], "%s %s element %zu: exact %.9g, out %.9g",
                              p->name, c->name, e, note[e], ref[e]);
                free(note);
                free(ref);
                cases++;
            }
        cr_expect_geq(cases, 6, "%s: %d cases", p->name, cases);

        /* which GEMM fills which array */
        const pb_case *c = &p->cases[PB_SET_FUNCTIONAL][p->n_cases[PB_SET_FUNCTIONAL] - 1];
        pb_case pc = *c;
        bool ab = pb_scalar_index(p, "alpha") >= 0;
        if (ab) { /* not floats: the exact answer is for the floats the solution gets */
            pc.v[pb_scalar_index(p, "alpha")] = 0.1;
            pc.v[pb_scalar_index(p, "beta")] = 0.3;
        }
        tu_bufs t;
        tu_bufs_make(p, &pc, pc.seed, &t);
        size_t n = t.l.n_out;
        float *out = malloc(n * 4), *note = malloc(n * 4);
        rec_env r = {0};
        pb_ref_env env = {rec_gemm, &r};
        char err[200] = "";
        cr_assert_eq(p->reference(p, &env, pc.v, t.in, out, note, err, sizeof(err)), 0, "%s", err);
        cr_expect_eq(r.calls, 2);
        cr_expect(!r.exact[0] && r.exact[1] && r.type[0] == PB_F32 && r.type[1] == PB_F32);
        for (size_t e = 0; e < n; e++)
            cr_expect(out[e] == 3.0f && note[e] == 7.0f, "%s %zu: %g %g", p->name, e, out[e], note[e]);
        cr_expect_str_eq(err, "", "no remark");
        if (ab) {
            for (int k = 0; k < 2; k++)
                cr_expect(r.alpha[k] == (double)0.1f && r.beta[k] == (double)0.3f,
                          "%s call %d: alpha %.17g beta %.17g", p->name, k, r.alpha[k], r.beta[k]);
            cr_expect(r.c0[1] == ((const float *)t.in[2])[0], "the exact GEMM reads the initial C");
        }
        /* no note wanted: one GEMM */
        r = (rec_env){0};
        cr_assert_eq(p->reference(p, &env, pc.v, t.in, out, NULL, err, sizeof(err)), 0, "%s", err);
        cr_expect(r.calls == 1 && !r.exact[0]);
        /* no memory for the exact one: NaN notes, success, a remark */
        r = (rec_env){.exact_fails = PB_ERR_MEMORY};
        cr_assert_eq(p->reference(p, &env, pc.v, t.in, out, note, err, sizeof(err)), 0, "%s", err);
        for (size_t e = 0; e < n; e++) cr_expect(out[e] == 3.0f && isnan(note[e]));
        cr_expect(strstr(err, "exact reference was left out"), "%s", err);
        /* any other failure is the reference's */
        r = (rec_env){.exact_fails = 700};
        cr_expect_eq(p->reference(p, &env, pc.v, t.in, out, note, err, sizeof(err)), 700);
        cr_expect_str_eq(err, "exact: no");
        free(out);
        free(note);
        tu_bufs_free(&t);
    }
    cr_expect_eq(seen, 3);
}
