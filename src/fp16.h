/* fp16.h — host conversions between float and IEEE binary16, through the compiler's _Float16
 * (round to nearest even, as __float2half_rn and torch's .half() do). */
#ifndef FP16_H
#define FP16_H

#include <stddef.h>
#include <stdint.h>

uint16_t f16_from_float(float f);
float f16_to_float(uint16_t h);
void f16_from_float_n(const float *src, uint16_t *dst, size_t n);
void f16_to_float_n(const uint16_t *src, float *dst, size_t n);
/* Round each value to the nearest fp16 and back, in place. */
void f16_round_n(float *v, size_t n);

#endif
