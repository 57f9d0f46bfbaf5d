/* check.h — the judge's allclose, and a summary of what is wrong when it fails. */
#ifndef CHECK_H
#define CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CK_MAX_SHOWN 6    /* mismatches listed in a report */
#define CK_MAP_ROWS 24    /* the error map's largest grid */
#define CK_MAP_COLS 64

typedef struct {
    int64_t row, col;
    double got, expected, allowed;
    double note; /* what explains the expected value (int8: the fp32 value before rounding), or
                    the alternative reference (ck_compare_alt); NaN when there is none */
} ck_mismatch;

typedef struct {
    int64_t n_total, n_bad, n_nonfinite; /* nonfinite: NaN/Inf where the reference is finite */
    int64_t n_ref_off; /* two references: failing elements where ref itself is outside tolerance
                          of alt (cuBLAS's fp32 sum farther from the exact one than allowed: there
                          the tolerance is finer than fp32's rounding of that sum) */
    double max_abs, max_rel;             /* over the elements that fail */
    int n_shown;
    ck_mismatch shown[CK_MAX_SHOWN];
    /* The output cut into map_rows × map_cols cells of cell_h × cell_w elements; each cell holds
     * the share of its elements that fail, 0..255 (0: none, 255: all). */
    int map_rows, map_cols;
    int64_t cell_h, cell_w;
    uint8_t map[CK_MAP_ROWS][CK_MAP_COLS];
} ck_summary;

/* The judge's test for one element: NaN or Inf fails where the reference is finite. */
static inline bool ck_close(double got, double ref, double atol, double rtol)
{
    double diff = got - ref;
    if (diff < 0) diff = -diff;
    double r = ref < 0 ? -ref : ref;
    return diff <= atol + rtol * r; /* false for NaN */
}

/* Compare rows×cols row-major outputs (already in double or float precision). Extents are 64-bit:
 * a batched output's BATCH·M rows may pass 2^31. */
bool ck_compare_f32(const float *got, const float *ref, int64_t rows, int64_t cols, double atol,
                    double rtol, ck_summary *out);

/* The same, with a note per reference element shown beside each listed mismatch (NULL: none). */
bool ck_compare_notes(const float *got, const float *ref, const float *note, int64_t rows,
                      int64_t cols, double atol, double rtol, ck_summary *out);

/* Two legitimate references (fp32: cuBLAS's, and the exact product rounded once): an element
 * passes within tolerance of ref or of alt (NaN in alt: ref alone; alt NULL: ck_compare_f32).
 * Errors, listed expected values and their allowance are against ref, with alt as the note;
 * n_nonfinite counts NaN/Inf where either reference is finite, n_ref_off those where ref is not
 * within tolerance of alt either; the map only elements close to neither. */
bool ck_compare_alt(const float *got, const float *ref, const float *alt, int64_t rows,
                    int64_t cols, double atol, double rtol, ck_summary *out);

/* The summary cleared, with the element count and the error map's geometry for rows×cols
 * (what the comparison fills in; apart so that its arithmetic can be checked at any extent). */
void ck_map_shape(int64_t rows, int64_t cols, ck_summary *out);

/* Whether a guard zone read back (guard bytes, data, guard bytes) changed: the byte offset from
 * the data's start nearest to the data (negative before it). */
bool ck_guard_hit(const unsigned char *whole, size_t data_bytes, size_t guard, unsigned char pattern,
                  long long *offset);

/* The first byte where two equal-length byte strings differ, or false when they are equal. */
bool ck_first_change(const void *a, const void *b, size_t bytes, size_t *at);

/* Render the map as text lines (each ≤ width columns) into buf; returns buf. */
char *ck_render_map(const ck_summary *s, int width, char *buf, size_t len);

#endif
