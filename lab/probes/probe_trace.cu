// probe_trace — where one call of solutions/12_best.cu spends its time on the GPU. The solution
// is included here with its GEMM_TRACE_* hooks defined: the first thread of each warpgroup of
// each CTA records its clock at entry, after the set-up barrier and at exit, and adds up the
// cycles it spends waiting on barriers, in K loops and in epilogues. Calls are timed the
// harness's way (C restored, device synchronized, CUDA events around solve).
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o build/probe_trace lab/probes/probe_trace.cu
//   build/probe_trace 1024x1024x1024 4096x4096x4096 ... [--beta B MxNxK ...]   (alpha = 1, beta = 1 until --beta)
//   (-DPROBE_NO_LOADS, -DPROBE_B_KMAJOR: the diagnostic builds described below)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace probe {
constexpr int kMaxCtas = 1024, kRoles = 4, kSlots = 12;
// slots: 0 entry clock, 1 after set-up, 2 cycles waiting (consumers: full stages after the first
// of a tile; producer: empty stages), 3 K-loop cycles, 4 epilogue cycles, 5 exit clock,
// 6 entry globaltimer, 7 exit globaltimer, 8 consumers' wait for a tile's first stage, 9 tiles,
// 10 split-K: the finishing warpgroup's wait for the peer's partial
__device__ unsigned long long trace[kMaxCtas][kRoles][kSlots];
__device__ __forceinline__ unsigned long long gtimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
}  // namespace probe

#define GEMM_TRACE_CLOCK() static_cast<long long>(clock64())
#define GEMM_TRACE_SET(slot)                                                             \
    do {                                                                                 \
        if ((threadIdx.x & 127) == 0 && blockIdx.x < probe::kMaxCtas) {                  \
            auto& r_ = probe::trace[blockIdx.x][threadIdx.x / 128];                      \
            r_[slot] = clock64();                                                        \
            if ((slot) == 0) r_[6] = probe::gtimer();                                    \
            if ((slot) == 5) r_[7] = probe::gtimer();                                    \
        }                                                                                \
    } while (0)
#define GEMM_TRACE_ADD(slot, cycles)                                                     \
    do {                                                                                 \
        if ((threadIdx.x & 127) == 0 && blockIdx.x < probe::kMaxCtas)                    \
            probe::trace[blockIdx.x][threadIdx.x / 128][slot] += (cycles);               \
    } while (0)

// -DPROBE_NO_LOADS: the big kernel's producer loads only each tile's first STAGES k-tiles and
// completes the other stages' barriers without data (results are wrong by design): the K loop
// then shows what the wgmma issue alone costs, without TMA writes into shared memory or L2 reads.
#ifdef PROBE_NO_LOADS
#define GEMM_TRACE_NO_LOAD(kt) ((kt) >= STAGES)
#endif
// -DPROBE_B_KMAJOR: the big kernel's wgmma reads its B stage as if it were K-major (no transpose),
// the same bytes; wrong results by design: the K loop without the transposed-B operand path.
#ifdef PROBE_B_KMAJOR
#define GEMM_TRACE_B_KMAJOR 1
#endif

#include "../../solutions/12_best.cu"

#include "probe_check.h"

using Trace = unsigned long long[probe::kMaxCtas][probe::kRoles][probe::kSlots];

static void run_case(int M, int N, int K, float beta) {
    const size_t na = static_cast<size_t>(M) * K, nb = static_cast<size_t>(K) * N,
                 nc = static_cast<size_t>(M) * N;
    std::vector<half> h(std::max(na, std::max(nb, nc)));
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    half *A, *B, *C, *C0;
    CHECK(cudaMalloc(&A, na * 2));
    CHECK(cudaMalloc(&B, nb * 2));
    CHECK(cudaMalloc(&C, nc * 2));
    CHECK(cudaMalloc(&C0, nc * 2));
    for (auto [p, n] : {std::pair<half*, size_t>{A, na}, {B, nb}, {C0, nc}}) {
        for (size_t i = 0; i < n; ++i) h[i] = __float2half(u(rng));
        CHECK(cudaMemcpy(p, h.data(), n * 2, cudaMemcpyHostToDevice));
    }
    void* tr = nullptr;
    CHECK(cudaGetSymbolAddress(&tr, probe::trace));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int i = -10; i < 200; ++i) {
        CHECK(cudaMemcpy(C, C0, nc * 2, cudaMemcpyDeviceToDevice));
        CHECK(cudaMemset(tr, 0, sizeof(Trace)));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(e0));
        solve(A, B, C, M, N, K, 1.0f, beta);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        if (i >= 0) ms.push_back(t);
    }
    const float last = ms.back();
    std::vector<float> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    static Trace host;  // the last call's trace (static: 384 KB is too much for the stack)
    CHECK(cudaMemcpy(host, tr, sizeof(Trace), cudaMemcpyDeviceToHost));

    // clock rate from the CTAs' own clock and globaltimer spans (role 0 runs entry to exit)
    double cyc = 0, ns = 0;
    unsigned long long g0 = ~0ull, g1 = 0;
    int ctas = 0;
    for (int b = 0; b < probe::kMaxCtas; ++b) {
        const auto& r = host[b][0];
        if (r[6] == 0) continue;
        ++ctas;
        cyc += static_cast<double>(r[5] - r[0]);
        ns += static_cast<double>(r[7] - r[6]);
        g0 = std::min(g0, r[6]);
        g1 = std::max(g1, r[7]);
    }
    const double ghz = ns > 0 ? cyc / ns : 0;
    std::printf("\n## %dx%dx%d: median %.2f µs over 200 calls (this call %.2f µs); %d CTAs traced; "
                "SM clock %.2f GHz; first entry to last exit %.2f µs (globaltimer)\n",
                M, N, K, sorted[sorted.size() / 2] * 1e3, last * 1e3, ctas, ghz, (g1 - g0) * 1e-3);
    std::printf("| role | CTAs | entry µs (min/max after first) | set-up µs | first-fill wait µs | "
                "other waits µs | K loop µs | epilogue µs | tiles | exit µs after first entry (mean / max) | "
                "split-K finisher: peer wait µs, epilogue µs (CTAs) |\n"
                "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (int role = 0; role < probe::kRoles; ++role) {
        double s[12] = {};
        int n = 0;
        unsigned long long emin = ~0ull, emax = 0, xmax = 0;
        double xsum = 0, fin_wait = 0, fin_epi = 0;
        int fin = 0;
        for (int b = 0; b < probe::kMaxCtas; ++b) {
            const auto& r = host[b][role];
            if (r[5] == 0 || host[b][0][6] == 0) continue;
            ++n;
            s[1] += static_cast<double>(r[1] - r[0]);
            s[2] += static_cast<double>(r[2]);
            s[3] += static_cast<double>(r[3]);
            s[4] += static_cast<double>(r[4]);
            s[8] += static_cast<double>(r[8]);
            s[9] += static_cast<double>(r[9]);
            if (r[10] != 0) {
                ++fin;
                fin_wait += static_cast<double>(r[10]);
                fin_epi += static_cast<double>(r[4]);
            }
            // this role's entry/exit on the globaltimer axis: the CTA's entry plus its own clocks
            const auto at = [&](unsigned long long clk) {  // this CTA's clock on the globaltimer axis
                const double d = (static_cast<double>(clk) - static_cast<double>(host[b][0][0])) / ghz;
                return static_cast<unsigned long long>(static_cast<double>(host[b][0][6]) + d);
            };
            const unsigned long long ent = std::max(at(r[0]), g0), ext = at(r[5]);
            emin = std::min(emin, ent);
            emax = std::max(emax, ent);
            xmax = std::max(xmax, ext);
            xsum += static_cast<double>(ext - g0);
        }
        if (n == 0) continue;
        const double us = 1e-3 / ghz / n;  // mean cycles per CTA → µs
        char split[64] = "–";
        if (fin) std::snprintf(split, sizeof(split), "%.2f, %.2f (%d)", fin_wait * 1e-3 / ghz / fin,
                               fin_epi * 1e-3 / ghz / fin, fin);
        std::printf("| %s | %d | %.2f / %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.2f / %.2f | %s |\n",
                    role == 0 ? "producer wg" : role == 1 ? "consumer wg 1" : role == 2 ? "consumer wg 2" : "wg 3",
                    n, (emin - g0) * 1e-3, (emax - g0) * 1e-3, s[1] * us, s[8] * us, s[2] * us, s[3] * us,
                    s[4] * us, s[9] / n, xsum * 1e-3 / n, (xmax - g0) * 1e-3, split);
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    for (half* p : {A, B, C, C0}) CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("probe_trace on %s: 12_best with trace hooks; per role, the mean over CTAs of the "
                "last call's phases (cycles converted at the measured SM clock)\n", prop.name);
#ifdef PROBE_NO_LOADS
    std::printf("DIAGNOSTIC BUILD (PROBE_NO_LOADS): the big kernel loads only each tile's first stages; "
                "its results are wrong by design\n");
#endif
#ifdef PROBE_B_KMAJOR
    std::printf("DIAGNOSTIC BUILD (PROBE_B_KMAJOR): the big kernel reads B as K-major; its results are "
                "wrong by design\n");
#endif
    float beta = 1.0f;  // alpha = 1; --beta B applies to the sizes after it
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--beta" && i + 1 < argc) {
            beta = std::strtof(argv[++i], nullptr);
            std::printf("\nbeta = %g from here on\n", beta);
            continue;
        }
        int M, N, K;
        if (std::sscanf(argv[i], "%dx%dx%d", &M, &N, &K) != 3) {
            std::fprintf(stderr, "probe_trace: sizes are MxNxK, got %s\n", argv[i]);
            return 2;
        }
        run_case(M, N, K, beta);
    }
    return 0;
}
