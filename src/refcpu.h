/* refcpu.h — a reference environment on the CPU: the problems' GEMM steps as plain loops in
 * float64 (results rounded to the output type). The tests check the problems' references with
 * it against the official expected outputs and against the GPU's. */
#ifndef REFCPU_H
#define REFCPU_H

#include "problem.h"

void rc_env_init(pb_ref_env *env);

#endif
