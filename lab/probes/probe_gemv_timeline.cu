// probe_gemv_timeline — where int4 03's M = 1 GEMV call spends its time (run 104). Each warp of
// i4_gemv_v3 stamps %globaltimer at six marks (entry, loads issued, w_q words in, math done,
// after the block barrier, after the y stores); this program calls solve() warm and with L2
// flushed, and prints the marks' percentiles over warps, relative to the first warp's entry.
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -DI4_SRC='"/tmp/v/trace.cu"'
//        -DI4_GEMV_TMA=0 lab/probes/probe_gemv_timeline.cu -o /tmp/v/timeline   (the source with
//        the marks: lab/experiments/run104_gemv_marks.patch applied to
//        solutions/int4_matmul/03_wgmma.cu; I4_GEMV_TMA=0 since i4_gemv_tma, which has no marks,
//        took the 4096² case after run 105). Run: /tmp/v/timeline M N K CALLS.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.h"

constexpr int kTrBlocks = 256, kTrWarps = 32, kTrSlots = 8;
__device__ unsigned long long tl_stamp[kTrBlocks * kTrWarps * kTrSlots];  // globaltimer, ns
__device__ unsigned tl_sink[kTrBlocks * 1024];

// dep: a value the mark waits for (its store precedes the timer read).
__device__ __forceinline__ void tl_mark(int slot, unsigned dep) {
    if (blockIdx.x >= kTrBlocks) return;
    const int w = threadIdx.x >> 5;
    if (slot == 2) *(volatile unsigned*)&tl_sink[blockIdx.x * 1024 + threadIdx.x] = dep;
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    if ((threadIdx.x & 31) == 0 && w < kTrWarps) tl_stamp[(blockIdx.x * kTrWarps + w) * kTrSlots + slot] = t;
}
#define I4_V3_MARK(k, dep) tl_mark(k, dep)
#include I4_SRC

__global__ void tl_empty() {}

static double pct(std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[(size_t)(p * (double)(v.size() - 1) + 0.5)];
}

int main(int argc, char** argv) {
    const int M = argc > 1 ? atoi(argv[1]) : 1, N = argc > 2 ? atoi(argv[2]) : 4096,
              K = argc > 3 ? atoi(argv[3]) : 4096, reps = argc > 4 ? atoi(argv[4]) : 30;
    const int G = 128;
    std::vector<__half> hx((size_t)M * K), hs((size_t)N * (K / G));
    std::vector<uint8_t> hw((size_t)N * K / 2);
    srand(1);
    for (auto& v : hx) v = __float2half((float)rand() / RAND_MAX * 2.f - 1.f);
    for (auto& v : hs) v = __float2half(0.001f + 0.01f * (float)rand() / RAND_MAX);
    for (auto& v : hw) v = (uint8_t)rand();
    __half *x, *s, *y;
    uint8_t* w;
    void* flush;
    const size_t flush_bytes = 256u << 20;
    CHECK(cudaMalloc(&x, hx.size() * 2));
    CHECK(cudaMalloc(&s, hs.size() * 2));
    CHECK(cudaMalloc(&w, hw.size()));
    CHECK(cudaMalloc(&y, (size_t)M * N * 2));
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(s, hs.data(), hs.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(w, hw.data(), hw.size(), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto timed_us = [&](auto launch) {  // one call between two events, in µs
        CHECK(cudaEventRecord(e0));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        return ms * 1000.0;
    };
    for (int i = 0; i < 5; ++i) solve(x, w, s, y, M, N, K, G);
    CHECK(cudaDeviceSynchronize());

    unsigned long long* stamp;
    CHECK(cudaGetSymbolAddress((void**)&stamp, tl_stamp));
    const size_t nst = (size_t)kTrBlocks * kTrWarps * kTrSlots;
    std::vector<unsigned long long> st(nst);
    // the reference: an empty kernel of one block, and one of the GEMV's grid, timed the same way
    for (int g = 0; g < 2; ++g) {
        std::vector<double> ev;
        for (int r = 0; r < reps; ++r)
            ev.push_back(timed_us([&] {
                if (g == 0)
                    tl_empty<<<1, 32>>>();
                else
                    tl_empty<<<(N + 31) / 32, 1024>>>();
            }));
        printf("empty kernel %s: event time median %.2f us (p10 %.2f)\n", g ? "of the GEMV's grid" : "<<<1, 32>>>",
               pct(ev, 0.5), pct(ev, 0.1));
    }
    for (int cold = 0; cold < 2; ++cold) {
        std::vector<double> ev, span, ent, iss, dat, mth, bar, fin, last, gran;
        for (int r = 0; r < reps; ++r) {
            CHECK(cudaMemset(stamp, 0, nst * sizeof(unsigned long long)));
            if (cold) CHECK(cudaMemset(flush, r & 0xff, flush_bytes));
            CHECK(cudaDeviceSynchronize());
            ev.push_back(timed_us([&] { solve(x, w, s, y, M, N, K, G); }));
            CHECK(cudaMemcpy(st.data(), stamp, nst * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            unsigned long long t0 = ~0ull, tend = 0;
            for (size_t i = 0; i < nst; i += kTrSlots)
                if (st[i]) t0 = std::min(t0, st[i]);
            if (t0 == ~0ull) {
                fprintf(stderr, "no marks: the kernel traced is not the one that ran\n");
                return 1;
            }
            double last_d = 0.0;
            for (size_t i = 0; i < nst; i += kTrSlots) {
                if (!st[i]) continue;
                auto at = [&](int k) { return st[i + k] ? (double)(st[i + k] - t0) / 1000.0 : -1.0; };
                if (r == reps - 1) {
                    ent.push_back(at(0));
                    iss.push_back(at(1));
                    dat.push_back(at(2));
                    mth.push_back(at(3));
                    if (st[i + 4]) bar.push_back(at(4));
                    if (st[i + 5]) fin.push_back(at(5));
                }
                last_d = std::max(last_d, at(2));
                for (int k = 0; k < 6; ++k) tend = std::max(tend, st[i + k]);
                if (st[i + 1] > st[i]) gran.push_back((double)(st[i + 1] - st[i]));
            }
            span.push_back((double)(tend - t0) / 1000.0);
            last.push_back(last_d);
        }
        printf("%s, M %d N %d K %d, %d calls: event time median %.2f us (p10 %.2f, p90 %.2f); kernel span "
               "(first entry to last mark) median %.2f us; last w_q arrival median %.2f us\n",
               cold ? "L2 flushed" : "warm", M, N, K, reps, pct(ev, 0.5), pct(ev, 0.1), pct(ev, 0.9), pct(span, 0.5),
               pct(last, 0.5));
        printf("  smallest nonzero entry-to-issued gap %.0f ns (the timer's step)\n", gran.empty() ? 0.0 : pct(gran, 0.0));
        printf("  last call, us after the first entry (p0 / p10 / p50 / p90 / max over warps):\n");
        const char* names[] = {"entry", "loads issued", "w_q in", "math done", "after barrier", "y stored"};
        std::vector<double>* cols[] = {&ent, &iss, &dat, &mth, &bar, &fin};
        for (int k = 0; k < 6; ++k)
            printf("    %-14s %6.2f %6.2f %6.2f %6.2f %6.2f  (%zu warps)\n", names[k], pct(*cols[k], 0.0),
                   pct(*cols[k], 0.1), pct(*cols[k], 0.5), pct(*cols[k], 0.9), pct(*cols[k], 1.0), cols[k]->size());
    }
    return 0;
}
