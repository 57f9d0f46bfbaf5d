/* fp16 conversion and rounding through _Float16 (round to nearest even). */
#include <criterion/criterion.h>
#include <math.h>

#include "fp16.h"

Test(fp16, exact_values)
{
    cr_expect_eq(f16_from_float(1.0f), 0x3c00);
    cr_expect_eq(f16_from_float(-2.0f), 0xc000);
    cr_expect_eq(f16_from_float(0.0f), 0x0000);
    cr_expect_eq(f16_from_float(-0.0f), 0x8000);
    cr_expect_eq(f16_from_float(65504.0f), 0x7bff);
    cr_expect_float_eq(f16_to_float(0x3555), 0.333251953125f, 0);
}

Test(fp16, rounds_to_nearest_even)
{
    /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0) */
    cr_expect_eq(f16_from_float(1.0f + 1.0f / 2048), 0x3c00);
    /* 1 + 3·2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9 */
    cr_expect_eq(f16_from_float(1.0f + 3.0f / 2048), 0x3c02);
    cr_expect_eq(f16_from_float(1.0f + 1.0f / 2048 + 1.0f / 65536), 0x3c01); /* above half */
}

Test(fp16, overflow_subnormal_nan)
{
    cr_expect_eq(f16_from_float(65520.0f), 0x7c00); /* rounds up to infinity */
    cr_expect_eq(f16_from_float(1e10f), 0x7c00);
    cr_expect_eq(f16_from_float(5.9604645e-8f), 0x0001); /* smallest subnormal */
    cr_expect_eq(f16_from_float(2e-8f), 0x0000);
    cr_expect(isnan(f16_to_float(f16_from_float(NAN))));
    cr_expect(isinf(f16_to_float(0x7c00)));
}

Test(fp16, round_trip_and_bulk)
{
    float v[5] = {0.1f, -0.7f, 3.14159f, 1000.3f, -1e-5f}, w[5];
    uint16_t h[5];
    f16_from_float_n(v, h, 5);
    f16_to_float_n(h, w, 5);
    for (int i = 0; i < 5; i++) {
        cr_expect(fabsf(w[i] - v[i]) <= fabsf(v[i]) * 0.0005f + 6e-8f, "value %d", i);
        cr_expect_eq(f16_from_float(w[i]), h[i]); /* fp16 values survive the round trip */
    }
    f16_round_n(v, 5);
    for (int i = 0; i < 5; i++) cr_expect_eq(v[i], w[i]);
}
