/* refcpu.c — pb_gemm as loops in float64 on the host. */
#include "refcpu.h"

#include <stdlib.h>

#include "fp16.h"

static double rc_at(pb_type t, const void *p, size_t i)
{
    switch (t) {
    case PB_F16: return f16_to_float(((const uint16_t *)p)[i]);
    case PB_F32: return ((const float *)p)[i];
    case PB_F64: return ((const double *)p)[i];
    case PB_I8: return ((const int8_t *)p)[i];
    case PB_U8: return ((const uint8_t *)p)[i];
    }
    return 0;
}

/* Every GEMM here is pb_gemm.exact's: exact products, a float64 sum, alpha·AB + beta·C in
 * float64, one rounding to the output type. */
static int rc_gemm(const pb_ref_env *env, const pb_gemm *g, char *err, size_t errlen)
{
    (void)env;
    (void)err;
    (void)errlen;
    size_t sa = (size_t)g->m * g->k, sb = (size_t)g->k * g->n, sc = (size_t)g->m * g->n;
    for (int b = 0; b < g->batch; b++)
        for (int i = 0; i < g->m; i++)
            for (int j = 0; j < g->n; j++) {
                double acc = 0;
                for (int k = 0; k < g->k; k++) {
                    size_t bi = g->trans_b ? (size_t)j * g->k + k : (size_t)k * g->n + j;
                    acc += rc_at(g->type, g->a, b * sa + (size_t)i * g->k + k) *
                           rc_at(g->type, g->b, b * sb + bi);
                }
                size_t ci = b * sc + (size_t)i * g->n + j;
                if (g->type == PB_F64) {
                    double *c = g->c;
                    c[ci] = g->alpha * acc + (g->beta != 0 ? g->beta * c[ci] : 0);
                } else {
                    float *c = g->c;
                    c[ci] = (float)(g->alpha * acc + (g->beta != 0 ? g->beta * c[ci] : 0));
                }
            }
    return 0;
}

void rc_env_init(pb_ref_env *env)
{
    env->gemm = rc_gemm;
    env->ctx = NULL;
}
