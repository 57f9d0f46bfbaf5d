// probe_check.h — the probes' CUDA error check: print where and why, exit 1.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                \
                         cudaGetErrorString(e_));                                          \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)
