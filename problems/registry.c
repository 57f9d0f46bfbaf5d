/* registry.c — the one list of problems in the project. */
#include "problem.h"

#include <string.h>

extern const pb_problem pb_gemm_fp16;
extern const pb_problem pb_sgemm;
extern const pb_problem pb_matmul_fp32;
extern const pb_problem pb_batched_matmul_fp32;
extern const pb_problem pb_batched_matmul_fp16;
extern const pb_problem pb_int8_matmul;
extern const pb_problem pb_int4_matmul;

static const pb_problem *const pb_all[] = {&pb_gemm_fp16,           &pb_sgemm,
                                           &pb_matmul_fp32,         &pb_batched_matmul_fp32,
                                           &pb_batched_matmul_fp16, &pb_int8_matmul,
                                           &pb_int4_matmul};

size_t pb_count(void) { return sizeof(pb_all) / sizeof(pb_all[0]); }

const pb_problem *pb_at(size_t i) { return i < pb_count() ? pb_all[i] : NULL; }

const pb_problem *pb_find(const char *name)
{
    for (size_t i = 0; i < pb_count(); i++)
        if (strcmp(pb_all[i]->name, name) == 0) return pb_all[i];
    return NULL;
}

const char *pb_set_name(pb_set s)
{
    static const char *const names[PB_N_SETS] = {"example", "functional", "extra", "performance"};
    return (unsigned)s < PB_N_SETS ? names[s] : "?";
}
