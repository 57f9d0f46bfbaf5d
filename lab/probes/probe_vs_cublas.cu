// probe_vs_cublas — where a small shape's time goes, 12_best against cublasGemmEx: each call
// timed the harness's way (C restored, device synchronized, events around the call), the two
// alternated, medians of many calls; beside them a launch of an empty kernel the same way (the
// floor every call pays). With --once each call runs twice and nothing is timed: for ncu, whose
// gpu__time_duration then gives each kernel's own time and cuBLAS's kernel names and grids.
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o build/probe_vs_cublas \
//        lab/probes/probe_vs_cublas.cu -lcublas -lcuda
//   build/probe_vs_cublas [--once] [--calls N] MxNxK ...       (alpha = 1, beta = 1)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "../../solutions/12_best.cu"
#include "probe_check.h"

namespace {

__global__ void probe_empty() {}

struct Shape {
    int m, n, k;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    bool once = false;
    int calls = 200;
    std::vector<Shape> shapes;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--once")) {
            once = true;
        } else if (!std::strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = std::max(3, std::atoi(argv[++i]));
        } else {
            Shape s{};
            if (std::sscanf(argv[i], "%dx%dx%d", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 || s.k < 1) {
                std::fprintf(stderr, "probe_vs_cublas: bad shape %s\n", argv[i]);
                return 2;
            }
            shapes.push_back(s);
        }
    }
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "probe_vs_cublas: cublasCreate failed\n");
        return 1;
    }
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const float alpha = 1.0f, beta = 1.0f;
    if (!once) std::printf("%-18s %9s %9s %9s %7s\n", "shape", "12_best", "cuBLAS", "empty", "ratio");
    for (const Shape& s : shapes) {
        const size_t na = size_t(s.m) * s.k, nb = size_t(s.k) * s.n, nc = size_t(s.m) * s.n;
        std::vector<half> h_a(na), h_b(nb), h_c(nc);
        for (auto& x : h_a) x = __float2half(u(rng));
        for (auto& x : h_b) x = __float2half(u(rng));
        for (auto& x : h_c) x = __float2half(u(rng));
        half *a, *b, *c, *c0;
        CHECK(cudaMalloc(&a, na * 2));
        CHECK(cudaMalloc(&b, nb * 2));
        CHECK(cudaMalloc(&c, nc * 2));
        CHECK(cudaMalloc(&c0, nc * 2));
        CHECK(cudaMemcpy(a, h_a.data(), na * 2, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, h_b.data(), nb * 2, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(c0, h_c.data(), nc * 2, cudaMemcpyHostToDevice));
        // which: 0 12_best, 1 cuBLAS, 2 the empty kernel; returns the call's event time in µs
        auto timed = [&](int which) {
            CHECK(cudaMemcpy(c, c0, nc * 2, cudaMemcpyDeviceToDevice));
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaEventRecord(e0));
            if (which == 0) {
                solve(a, b, c, s.m, s.n, s.k, alpha, beta);
            } else if (which == 1) {
                if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, CUDA_R_16F, s.n, a,
                                 CUDA_R_16F, s.k, &beta, c, CUDA_R_16F, s.n, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
                    std::fprintf(stderr, "probe_vs_cublas: cublasGemmEx failed\n");
                    std::exit(1);
                }
            } else {
                probe_empty<<<1, 32>>>();
            }
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            return 1e3 * ms;
        };
        if (once) {
            for (int r = 0; r < 2; ++r)
                for (int w = 0; w < 2; ++w) timed(w);
        } else {
            std::vector<double> t[3];
            for (int r = -10; r < calls; ++r)
                for (int w = 1; w >= 0; --w) {
                    const double us = timed(w);
                    if (r >= 0) t[w].push_back(us);
                    if (w == 0 && r >= 0) t[2].push_back(timed(2));
                }
            const double ours = median(t[0]), lib = median(t[1]);
            char name[48];
            std::snprintf(name, sizeof name, "%dx%dx%d", s.m, s.n, s.k);
            std::printf("%-18s %9.2f %9.2f %9.2f %7.3f\n", name, ours, lib, median(t[2]), ours / lib);
        }
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
        CHECK(cudaFree(c0));
    }
    cublasDestroy(h);
    return 0;
}
