/* check.c — allclose over a whole output, the first mismatches and an error map by tile. */
#include "check.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int64_t ck_ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

bool ck_compare_f32(const float *got, const float *ref, int64_t rows, int64_t cols, double atol,
                    double rtol, ck_summary *out)
{
    return ck_compare_notes(got, ref, NULL, rows, cols, atol, rtol, out);
}

void ck_map_shape(int64_t rows, int64_t cols, ck_summary *out)
{
    memset(out, 0, sizeof(*out));
    int64_t n;
    if (rows <= 0 || cols <= 0 || __builtin_mul_overflow(rows, cols, &n))
        return; /* nothing to compare (or no such array), no map */
    out->n_total = n;
    out->cell_h = ck_ceil_div(rows, CK_MAP_ROWS);
    out->cell_w = ck_ceil_div(cols, CK_MAP_COLS);
    out->map_rows = (int)ck_ceil_div(rows, out->cell_h);
    out->map_cols = (int)ck_ceil_div(cols, out->cell_w);
}

/* The comparison; alt: the note is a second reference, not only shown. */
static bool ck_compare(const float *got, const float *ref, const float *note, bool alt,
                       int64_t rows, int64_t cols, double atol, double rtol, ck_summary *out)
{
    ck_map_shape(rows, cols, out);
    if (out->n_total == 0) return rows == 0 || cols == 0; /* a negative extent is never right */

    static_assert(CK_MAP_ROWS * CK_MAP_COLS <= 4096, "map counts fit the stack");
    int64_t bad_in_cell[CK_MAP_ROWS][CK_MAP_COLS];
    memset(bad_in_cell, 0, sizeof(bad_in_cell));

    for (int64_t r = 0; r < rows; r++) {
        const float *g = got + (size_t)r * (size_t)cols;
        const float *e = ref + (size_t)r * (size_t)cols;
        for (int64_t c = 0; c < cols; c++) {
            double gv = g[c], ev = e[c];
            if (ck_close(gv, ev, atol, rtol)) continue;
            double nv = note ? note[(size_t)r * (size_t)cols + (size_t)c] : NAN;
            if (alt && ck_close(gv, nv, atol, rtol)) continue;
            out->n_bad++;
            if (!isfinite(gv) && (isfinite(ev) || (alt && isfinite(nv)))) out->n_nonfinite++;
            if (alt && isfinite(nv) && !ck_close(ev, nv, atol, rtol)) out->n_ref_off++;
            double abs_err = fabs(gv - ev);
            double rel_err = ev != 0 ? abs_err / fabs(ev) : INFINITY;
            /* a NaN error sticks: no later finite error may hide it */
            if (isnan(abs_err) || (!isnan(out->max_abs) && abs_err > out->max_abs)) out->max_abs = abs_err;
            if (isnan(rel_err) || (!isnan(out->max_rel) && rel_err > out->max_rel)) out->max_rel = rel_err;
            if (out->n_shown < CK_MAX_SHOWN)
                out->shown[out->n_shown++] =
                    (ck_mismatch){r, c, gv, ev, atol + rtol * fabs(ev), nv};
            bad_in_cell[r / out->cell_h][c / out->cell_w]++;
        }
    }
    for (int i = 0; i < out->map_rows; i++) {
        for (int j = 0; j < out->map_cols; j++) {
            int64_t h = i == out->map_rows - 1 ? rows - i * out->cell_h : out->cell_h;
            int64_t w = j == out->map_cols - 1 ? cols - j * out->cell_w : out->cell_w;
            int64_t cells = h * w, bad = bad_in_cell[i][j];
            /* any failure shows as at least 1; only a wholly wrong cell reaches 255 */
            out->map[i][j] = bad == 0 ? 0 : bad == cells ? 255 : (uint8_t)(1 + bad * 253 / cells);
        }
    }
    return out->n_bad == 0;
}

bool ck_compare_notes(const float *got, const float *ref, const float *note, int64_t rows,
                      int64_t cols, double atol, double rtol, ck_summary *out)
{
    return ck_compare(got, ref, note, false, rows, cols, atol, rtol, out);
}

bool ck_compare_alt(const float *got, const float *ref, const float *alt, int64_t rows,
                    int64_t cols, double atol, double rtol, ck_summary *out)
{
    return ck_compare(got, ref, alt, alt != NULL, rows, cols, atol, rtol, out);
}

bool ck_guard_hit(const unsigned char *whole, size_t data_bytes, size_t guard, unsigned char pattern,
                  long long *offset)
{
    /* front guard from the data backwards, so the offset reported is the nearest to the data */
    for (size_t i = guard; i-- > 0;)
        if (whole[i] != pattern) {
            *offset = (long long)i - (long long)guard;
            return true;
        }
    const unsigned char *back = whole + guard + data_bytes;
    for (size_t i = 0; i < guard; i++)
        if (back[i] != pattern) {
            *offset = (long long)(data_bytes + i);
            return true;
        }
    return false;
}

bool ck_first_change(const void *a, const void *b, size_t bytes, size_t *at)
{
    if (memcmp(a, b, bytes) == 0) return false;
    const unsigned char *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i]) i++;
    *at = i;
    return true;
}

char *ck_render_map(const ck_summary *s, int width, char *buf, size_t len)
{
    /* Merge columns when the terminal is narrower than the map. */
    int avail = width > 8 ? width - 4 : 4;
    int merge = ck_ceil_div(s->map_cols, avail);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->map_rows; i++) {
        if (used + 8 >= len) break;
        used += (size_t)snprintf(buf + used, len - used, "    ");
        for (int j = 0; j < s->map_cols && used + 2 < len; j += merge) {
            int worst = 0, any_ok = 0;
            for (int t = j; t < j + merge && t < s->map_cols; t++) {
                if (s->map[i][t] > worst) worst = s->map[i][t];
                if (s->map[i][t] < 255) any_ok = 1;
            }
            buf[used++] = worst == 0 ? '.' : (worst == 255 && !any_ok) ? '#' : '+';
        }
        if (used + 1 < len) buf[used++] = '\n';
        buf[used] = '\0';
    }
    return buf;
}
