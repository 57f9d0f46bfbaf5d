/* fp16.c — float <-> binary16 on the host. */
#include "fp16.h"

#include <string.h>

/* _Float16 is ISO/IEC TS 18661-3, an extension to C11 that GCC and Clang implement. */
__extension__ typedef _Float16 f16_t;

uint16_t f16_from_float(float f)
{
    f16_t h = (f16_t)f;
    uint16_t bits;
    memcpy(&bits, &h, sizeof(bits));
    return bits;
}

float f16_to_float(uint16_t bits)
{
    f16_t h;
    memcpy(&h, &bits, sizeof(h));
    return (float)h;
}

void f16_from_float_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = f16_from_float(src[i]);
}

void f16_to_float_n(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = f16_to_float(src[i]);
}

void f16_round_n(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) v[i] = (float)(f16_t)v[i];
}
