/* gen.h — a case's inputs on the host: each buffer's fill, in its element type, from the case's
 * seed; and the element types read back as floats for the comparison. Pure host code. */
#ifndef GEN_H
#define GEN_H

#include <stddef.h>
#include <stdint.h>

#include "problem.h"

/* Fill every buffer of case c (values v) for seed: dst[b] holds buffer b's bytes (its rows ×
 * cols elements of its type). One generator runs through the buffers in signature order. */
void gen_inputs(const pb_problem *p, const pb_case *c, const double *v, uint64_t seed,
                void *const *dst);

/* n elements of type t as floats. */
void gen_to_float(pb_type t, const void *src, float *dst, size_t n);

#endif
