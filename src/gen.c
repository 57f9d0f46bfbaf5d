/* gen.c — a case's inputs on the host, from its fills and seed. */
#include "gen.h"

#include <math.h>
#include <string.h>

#include "fp16.h"
#include "rng.h"

/* Normal deviates by Box-Muller, from two uniforms. */
static float gen_normal(rg_state *rg, float mean, float sd)
{
    double u1 = ((double)(rg_next(rg) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    double u2 = (double)(rg_next(rg) >> 11) * (1.0 / 9007199254740992.0);
    return mean + sd * (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

static float gen_value(const pb_fill *f, rg_state *rg, long long r, long long c, size_t i)
{
    switch (f->kind) {
    case PB_FILL_UNIFORM: return rg_uniform(rg, f->lo, f->hi);
    case PB_FILL_ZEROS: return 0.0f;
    case PB_FILL_ONES: return 1.0f;
    case PB_FILL_NAN: return NAN;
    case PB_FILL_IDENTITY: return r == c ? 1.0f : 0.0f;
    case PB_FILL_DATA: return f->data[i];
    case PB_FILL_INT: {
        long long span = (long long)f->hi - (long long)f->lo;
        return (float)((long long)f->lo + (long long)(rg_next(rg) % (uint64_t)(span > 0 ? span : 1)));
    }
    case PB_FILL_NORMAL: return gen_normal(rg, f->lo, f->hi);
    case PB_FILL_GARBAGE: return 0.0f; /* bytes, below */
    }
    return 0.0f;
}

static void gen_store(pb_type t, float x, void *dst, size_t i)
{
    switch (t) {
    case PB_F16: ((uint16_t *)dst)[i] = f16_from_float(x); break;
    case PB_F32: ((float *)dst)[i] = x; break;
    case PB_I8: ((int8_t *)dst)[i] = (int8_t)(x < -128 ? -128 : x > 127 ? 127 : x); break;
    case PB_U8: ((uint8_t *)dst)[i] = (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x); break;
    case PB_F64: ((double *)dst)[i] = x; break;
    }
}

void gen_inputs(const pb_problem *p, const pb_case *c, const double *v, uint64_t seed,
                void *const *dst)
{
    rg_state rg = {seed};
    for (int b = 0; b < pb_n_bufs(p); b++) {
        const pb_param *q = pb_buf(p, b);
        const pb_fill *f = &c->f[b];
        long long rows, cols;
        pb_buf_dims(p, b, v, &rows, &cols);
        size_t n = (size_t)rows * (size_t)cols;
        if (f->kind == PB_FILL_GARBAGE) {
            unsigned char *d = dst[b];
            size_t bytes = n * pb_type_size(q->type);
            for (size_t i = 0; i < bytes; i++) d[i] = (unsigned char)(rg_next(&rg) >> 56);
            continue;
        }
        size_t i = 0;
        for (long long r = 0; r < rows; r++)
            for (long long col = 0; col < cols; col++, i++)
                gen_store(q->type, gen_value(f, &rg, r, col, i), dst[b], i);
    }
}

void gen_to_float(pb_type t, const void *src, float *dst, size_t n)
{
    switch (t) {
    case PB_F16: f16_to_float_n(src, dst, n); break;
    case PB_F32: memcpy(dst, src, n * sizeof(float)); break;
    case PB_I8:
        for (size_t i = 0; i < n; i++) dst[i] = (float)((const int8_t *)src)[i];
        break;
    case PB_U8:
        for (size_t i = 0; i < n; i++) dst[i] = (float)((const uint8_t *)src)[i];
        break;
    case PB_F64:
        for (size_t i = 0; i < n; i++) dst[i] = (float)((const double *)src)[i];
        break;
    }
}
