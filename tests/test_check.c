/* allclose as the judge does it, NaN and Inf failing, and the error map. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

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

Test(check, compares_every_row_past_int, .timeout = 120)
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
