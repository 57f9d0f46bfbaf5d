/* allclose as the judge does it, NaN and Inf failing, the error map, and the fp32 problems'
 * second reference (in the compare and in the report's mismatch lines). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "report.h"

Test(check, allclose_rule)
{
    cr_expect(ck_close(1.04, 1.0, 0.05, 0.0));
    cr_expect(!ck_close(1.06, 1.0, 0.05, 0.0));
    cr_expect(ck_close(110.0, 100.0, 0.05, 0.1)); /* 10 <= 0.05 + 10 */
    cr_expect(!ck_close(NAN, 1.0, 0.05, 0.05));
    cr_expect(!ck_close(INFINITY, 1.0, 0.05, 0.05));
    cr_expect(!ck_close(-INFINITY, 1e30, 0.05, 0.05));
    cr_expect(!ck_close(1.0, NAN, 0.05, 0.05));
}

Test(check, nan_and_inf_fail_with_counts)
{
    float ref[6] = {1, 2, 3, 4, 5, 6}, got[6] = {1, NAN, 3, INFINITY, 5, 6.5f};
    ck_summary s;
    cr_expect(!ck_compare_f32(got, ref, 2, 3, 0.05, 0.05, &s));
    cr_expect_eq(s.n_bad, 3);
    cr_expect_eq(s.n_nonfinite, 2);
    cr_expect_eq(s.n_shown, 3);
    cr_expect(s.shown[0].row == 0 && s.shown[0].col == 1);
    cr_expect(s.shown[2].row == 1 && s.shown[2].col == 2);
    cr_expect(isnan(s.max_abs)); /* NaN errors are not hidden by a max() */
}

Test(check, passes_within_tolerance)
{
    float ref[4] = {10, -10, 0, 1}, got[4] = {10.5f, -10.5f, 0.04f, 1.0f};
    ck_summary s;
    cr_expect(ck_compare_f32(got, ref, 2, 2, 0.05, 0.05, &s));
    cr_expect_eq(s.n_bad, 0);
}

Test(check, map_shows_the_right_edge)
{
    enum { R = 100, C = 130 };
    static float ref[R * C], got[R * C];
    for (int i = 0; i < R * C; i++) ref[i] = got[i] = 1.0f;
    for (int r = 0; r < R; r++) got[r * C + C - 1] = 9.0f; /* the last column is wrong */
    ck_summary s;
    cr_expect(!ck_compare_f32(got, ref, R, C, 0.05, 0.05, &s));
    cr_expect_eq(s.n_bad, R);
    char buf[4096];
    ck_render_map(&s, 200, buf, sizeof(buf));
    /* every row of the map: right cells only, then a failing last cell */
    char *line = strtok(buf, "\n");
    int rows = 0;
    while (line) {
        size_t n = strlen(line);
        cr_expect(line[n - 1] == '+' || line[n - 1] == '#', "last cell marks the failing column: %s", line);
        for (size_t i = 4; i + 1 < n; i++) cr_expect_eq(line[i], '.');
        rows++;
        line = strtok(NULL, "\n");
    }
    cr_expect_eq(rows, s.map_rows);
    /* a narrow terminal merges columns but keeps the failure visible */
    ck_render_map(&s, 20, buf, sizeof(buf));
    cr_expect(strchr(buf, '+') || strchr(buf, '#'));
    cr_expect(strlen(strtok(buf, "\n")) <= 20);
}

Test(check, whole_cells_are_hashes)
{
    float ref[16 * 16], got[16 * 16];
    for (int i = 0; i < 256; i++) ref[i] = 1, got[i] = (i / 16 < 8) ? 1 : -1; /* bottom half wrong */
    ck_summary s;
    ck_compare_f32(got, ref, 16, 16, 0.05, 0.05, &s);
    cr_expect_eq(s.map_rows, 16);
    cr_expect_eq(s.map[0][0], 0);
    cr_expect_eq(s.map[15][15], 255);
}

/* Extents are 64-bit: a batched output's BATCH·M rows may pass 2^31 (once cast to int: an
 * all-NaN output of 2^31 + 4 rows compared nothing and passed; 2^32 rows divided by zero). */
Test(check, map_geometry_past_int)
{
    ck_summary s;
    ck_map_shape((int64_t)1 << 32, 1, &s);
    cr_expect_eq(s.n_total, (int64_t)1 << 32);
    cr_expect_eq(s.map_rows, CK_MAP_ROWS);
    cr_expect_eq(s.cell_h, (((int64_t)1 << 32) + CK_MAP_ROWS - 1) / CK_MAP_ROWS);
    cr_expect_eq(s.map_cols, 1);
    ck_map_shape(((int64_t)3 << 31) + 5, 70, &s);
    cr_expect_eq(s.n_total, (((int64_t)3 << 31) + 5) * 70);
    cr_expect(s.map_rows <= CK_MAP_ROWS && s.map_cols <= CK_MAP_COLS);
    cr_expect((int64_t)s.map_rows * s.cell_h >= ((int64_t)3 << 31) + 5);
    ck_map_shape(INT64_MAX, 3, &s); /* no such array: nothing, never an overflow */
    cr_expect_eq(s.n_total, 0);
    ck_map_shape(0, 5, &s);
    cr_expect_eq(s.map_rows, 0);
}

/* 300 s: 16 GiB of zero pages read on two busy cores took past 120 s while the stage builds ran */
Test(check, compares_every_row_past_int, .timeout = 300)
{
    /* 2^31 + 4 rows of one column, zero pages (reserved, never backed): got is NaN at the first
     * and the last element only */
#ifdef __SANITIZE_ADDRESS__
    cr_skip_test("2^31 elements: too slow instrumented (the map's arithmetic is checked above)");
#endif
    const int64_t rows = ((int64_t)1 << 31) + 4;
    size_t bytes = (size_t)rows * sizeof(float);
    int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    float *got = mmap(NULL, bytes, prot, flags, -1, 0);
    float *ref = mmap(NULL, bytes, prot, flags, -1, 0);
    if (got == MAP_FAILED || ref == MAP_FAILED) cr_skip_test("cannot reserve 2 x 8 GiB of address space");
    /* huge pages where the kernel offers them: a read of an untouched page then maps the huge
     * zero page, 2 x 4096 faults instead of 2 x 2 million (seconds of system time); the same
     * zeros either way */
    madvise(got, bytes, MADV_HUGEPAGE);
    madvise(ref, bytes, MADV_HUGEPAGE);
    got[0] = NAN;
    got[rows - 1] = NAN;
    ck_summary s;
    cr_expect_not(ck_compare_f32(got, ref, rows, 1, 0.05, 0.05, &s));
    cr_expect_eq(s.n_total, rows);
    cr_expect_eq(s.n_bad, 2);
    cr_expect_eq(s.n_nonfinite, 2);
    cr_expect_eq(s.shown[1].row, rows - 1);
    cr_expect_eq(s.map[CK_MAP_ROWS - 1][0], 1, "the last cell shows its one failure");
    munmap(got, bytes);
    munmap(ref, bytes);
}

/* Two references (fp32: cuBLAS's and the exact one): close to either passes, close to neither
 * fails and is listed against ref with alt as its note; NaN never passes; a NaN in alt leaves
 * ref alone; the map counts only the elements close to neither. */
Test(check, alternative_reference)
{
    /*                 ref only  alt only  neither  all NaN  alt NaN  Inf */
    float ref[6] = {1.0f, 2.0f, 3.0f, NAN, 5.0f, 6.0f};
    float alt[6] = {1.5f, 2.5f, 3.5f, NAN, NAN, 6.0f};
    float got[6] = {1.0f, 2.5f, 4.0f, NAN, 5.01f, INFINITY};
    ck_summary s;
    cr_expect(!ck_compare_alt(got, ref, alt, 2, 3, 0.05, 0.0, &s));
    cr_expect_eq(s.n_bad, 3, "%lld", (long long)s.n_bad);
    cr_expect_eq(s.n_nonfinite, 1, "Inf where the references are finite; not NaN where neither is");
    cr_expect_eq(s.n_ref_off, 1, "(0, 2): ref 3 is 0.5 from alt 3.5; the Inf's references agree");
    cr_expect_eq(s.n_shown, 3);
    cr_expect(s.shown[0].row == 0 && s.shown[0].col == 2 && s.shown[0].got == 4.0 &&
              s.shown[0].expected == 3.0 && s.shown[0].note == 3.5, "(%lld, %lld) %g %g %g",
              (long long)s.shown[0].row, (long long)s.shown[0].col, s.shown[0].got,
              s.shown[0].expected, s.shown[0].note);
    cr_expect_float_eq(s.shown[0].allowed, 0.05, 1e-12);
    cr_expect(s.shown[1].row == 1 && s.shown[1].col == 0 && isnan(s.shown[1].note));
    cr_expect(s.shown[2].row == 1 && s.shown[2].col == 2 && s.shown[2].note == 6.0);
    cr_expect(isnan(s.max_abs) && isnan(s.max_rel), "errors against ref, NaN sticks");
    const uint8_t map[2][3] = {{0, 0, 255}, {255, 0, 255}};
    cr_assert(s.map_rows == 2 && s.map_cols == 3);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) cr_expect_eq(s.map[i][j], map[i][j], "cell (%d, %d)", i, j);
    /* the note as a note only (int8's): the element close to alt alone fails */
    cr_expect(!ck_compare_notes(got, ref, alt, 2, 3, 0.05, 0.0, &s));
    cr_expect_eq(s.n_bad, 4);
    cr_expect_eq(s.n_ref_off, 0, "a note is not a reference");
    cr_expect(s.shown[0].col == 1 && s.shown[0].note == 2.5);
    /* no alt: ck_compare_f32 */
    cr_expect(!ck_compare_alt(got, ref, NULL, 2, 3, 0.05, 0.0, &s));
    cr_expect_eq(s.n_bad, 4);
    cr_expect(isnan(s.shown[0].note));
    /* the tolerance is each reference's own: rtol scales with |alt| for alt */
    float r1[1] = {1.0f}, a1[1] = {100.0f}, g1[1] = {109.0f};
    cr_expect(ck_compare_alt(g1, r1, a1, 1, 1, 0.0, 0.1, &s));
    g1[0] = 111.0f;
    cr_expect(!ck_compare_alt(g1, r1, a1, 1, 1, 0.0, 0.1, &s));
}

/* Close to alt everywhere but ref off everywhere passes; a block close to neither shows on the
 * map alone (its cells '#', the rest '.'). */
Test(check, alternative_reference_map)
{
    enum { R = 48, C = 128 };
    static float ref[R * C], alt[R * C], got[R * C];
    for (int i = 0; i < R * C; i++) {
        alt[i] = got[i] = (float)(i % 7) - 3.0f;
        ref[i] = alt[i] + 0.5f; /* cuBLAS off, every element */
    }
    ck_summary s;
    cr_expect(ck_compare_alt(got, ref, alt, R, C, 0.01, 0.01, &s));
    cr_expect_eq(s.n_bad, 0);
    cr_expect(!ck_compare_f32(got, ref, R, C, 0.01, 0.01, &s), "ref alone fails it");
    for (int r = 0; r < R / 2; r++)
        for (int c = 0; c < C / 2; c++) got[r * C + c] += 0.25f; /* the top-left quarter */
    cr_expect(!ck_compare_alt(got, ref, alt, R, C, 0.01, 0.01, &s));
    cr_expect_eq(s.n_bad, (R / 2) * (C / 2));
    cr_expect_eq(s.n_ref_off, s.n_bad, "ref is off alt at every element");
    for (int i = 0; i < s.map_rows; i++)
        for (int j = 0; j < s.map_cols; j++)
            cr_expect_eq(s.map[i][j], i < s.map_rows / 2 && j < s.map_cols / 2 ? 255 : 0,
                         "cell (%d, %d)", i, j);
}

static char *printed(void (*print)(FILE *, const rp_report *), const rp_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    print(f, r);
    fclose(f);
    return buf;
}

/* A failing test of problem name whose output is compared as the runner does (alt or notes). */
static char *report_one(const char *name, bool json, const float *got, const float *ref,
                        const float *note)
{
    static rs_test t;
    static rs_run run;
    memset(&t, 0, sizeof(t));
    memset(&run, 0, sizeof(run));
    const pb_problem *p = pb_find(name);
    cr_assert(p);
    snprintf(t.name, sizeof(t.name), "functional 3");
    t.set = PB_SET_FUNCTIONAL;
    t.status = RS_FAILED;
    t.atol = t.rtol = 1e-5;
    t.checked = true;
    bool ok = p->alt_reference ? ck_compare_alt(got, ref, note, 1, 2, 1e-5, 1e-5, &t.check)
                               : ck_compare_notes(got, ref, note, 1, 2, 1e-5, 1e-5, &t.check);
    cr_assert(!ok);
    run.outcome = RN_OK;
    run.tests = &t;
    run.n_tests = 1;
    rp_report r = {.solution = "x.cu", .problem = p, .arch = "sm_90a", .run = &run,
                   .status = RS_FAILED, .width = 80};
    return printed(json ? rp_json : rp_text, &r);
}

/* The fp32 problems' mismatch lines show the second reference by its label, "none" when it was
 * left out; JSON gives it as alt_expected (null when left out); int8 keeps "before rounding".
 * Where cuBLAS's own value is outside the exact one's tolerance (0.4 against 0.3), JSON counts it
 * (ref_off); the text says so in the verdict line, which the runner writes (test_protocol). */
Test(check, report_labels_the_alternative_reference)
{
    float got[2] = {0.5f, 0.25f}, ref[2] = {0.4f, 0.2f}, alt[2] = {0.3f, NAN};
    char *buf = report_one("batched_matmul_fp32", false, got, ref, alt);
    cr_expect(strstr(buf, "(0, 0): 0.5, 0.4, 1.4e-05  (or exact: 0.300000012)\n"), "%s", buf);
    cr_expect(strstr(buf, "(0, 1): 0.25, 0.2, 1.2e-05  (no exact value)\n"), "%s", buf);
    cr_expect(!strstr(buf, "before rounding"), "%s", buf);
    free(buf);
    buf = report_one("batched_matmul_fp32", true, got, ref, alt);
    cr_expect(strstr(buf, "\"alt_reference\":\"exact\",\"ref_off\":1,\"first\":[{\"row\":0,\"col\":0,\"got\":0.5,"
                          "\"expected\":0.400000006,\"allowed\":1.40000001e-05,\"alt_expected\":0.300000012}"),
              "%s", buf);
    cr_expect(strstr(buf, "\"alt_expected\":null}"), "%s", buf);
    free(buf);
    buf = report_one("int8_matmul", false, got, ref, alt);
    cr_expect(strstr(buf, "(0, 0): 0.5, 0.4, 1.4e-05  (the reference's fp32 value before rounding: "
                          "0.300000012)\n"), "%s", buf);
    cr_expect(!strstr(buf, "exact"), "%s", buf);
    free(buf);
}
