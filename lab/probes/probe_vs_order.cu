// probe_vs_order — why does `--vs` read identical code as 0.82–1.07× on some batched fp16 shapes
// (runs 185–186)? Two builds of one file (two .so paths: two modules, two sets of statics) are
// called on the same buffers; three things are swapped one at a time: which .so is dlopen'ed
// first (--load), which one makes the first call and so allocates its workspace first (--first),
// and which one is timed first in a round (each run times half its rounds each way). Each call is
// timed the harness's way: output restored, device synchronized, events around the call.
//   nvcc -O3 -shared -Xcompiler -fPIC --cudart shared -gencode=arch=compute_90a,code=sm_90a \
//        -o /tmp/p1.so solutions/batched_matmul_fp16/03_wgmma.cu      (again as /tmp/p2.so)
//   nvcc -O2 -std=c++17 --cudart shared -o build/probe_vs_order lab/probes/probe_vs_order.cu -ldl
//   build/probe_vs_order --load 12|21 --first 12|21 [--rounds N] /tmp/p1.so /tmp/p2.so BxMxNxK
// Prints per shape the medians of p1 and p2 with p1 timed first and with p2 timed first.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_check.h"

namespace {

using SolveFn = void (*)(const half*, const half*, half*, int, int, int, int);

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

SolveFn load(const char* path) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        std::exit(1);
    }
    void* s = dlsym(h, "solve");
    if (!s) {
        std::fprintf(stderr, "dlsym solve in %s: %s\n", path, dlerror());
        std::exit(1);
    }
    SolveFn f;
    std::memcpy(&f, &s, sizeof(f));
    return f;
}

void upload_random(half* dst, size_t n, unsigned seed) {
    std::vector<half> h(n);
    unsigned x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        h[i] = __float2half((float)(x >> 8) / 8388608.0f - 1.0f);  // U(-1, 1)
    }
    CHECK(cudaMemcpy(dst, h.data(), n * sizeof(half), cudaMemcpyHostToDevice));
}

}  // namespace

int main(int argc, char** argv) {
    const char* load_order = "12";
    const char* first_order = "12";
    int rounds = 200;
    std::vector<const char*> pos;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--load") && i + 1 < argc) load_order = argv[++i];
        else if (!std::strcmp(argv[i], "--first") && i + 1 < argc) first_order = argv[++i];
        else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else pos.push_back(argv[i]);
    }
    int bt = 0, m = 0, n = 0, k = 0;
    if (pos.size() != 3 || std::sscanf(pos[2], "%dx%dx%dx%d", &bt, &m, &n, &k) != 4 || rounds < 2) {
        std::fprintf(stderr, "usage: %s --load 12|21 --first 12|21 [--rounds N] P1.so P2.so BxMxNxK\n", argv[0]);
        return 2;
    }
    SolveFn f[2];
    if (load_order[0] == '2') {
        f[1] = load(pos[1]);
        f[0] = load(pos[0]);
    } else {
        f[0] = load(pos[0]);
        f[1] = load(pos[1]);
    }
    const size_t na = (size_t)bt * m * k, nb = (size_t)bt * k * n, nc = (size_t)bt * m * n;
    half *A, *B, *C, *C0;
    CHECK(cudaMalloc(&A, na * sizeof(half)));
    CHECK(cudaMalloc(&B, nb * sizeof(half)));
    CHECK(cudaMalloc(&C, nc * sizeof(half)));
    CHECK(cudaMalloc(&C0, nc * sizeof(half)));
    upload_random(A, na, 1);
    upload_random(B, nb, 2);
    upload_random(C0, nc, 3);
    const int first = first_order[0] == '2' ? 1 : 0;
    for (int j = 0; j < 2; ++j) {  // the first calls: each file allocates what it keeps
        f[j ^ first](A, B, C, bt, m, n, k);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
    }
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto timed = [&](int j) {
        CHECK(cudaMemcpyAsync(C, C0, nc * sizeof(half), cudaMemcpyDeviceToDevice));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(e0));
        f[j](A, B, C, bt, m, n, k);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaDeviceSynchronize());
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        return (double)ms;
    };
    for (int w = 0; w < 10; ++w) timed(w & 1);
    // t[order][file]: order 0 = p1 timed first in its round, 1 = p2 first; the orders interleave
    std::vector<double> t[2][2];
    for (int r = 0; r < rounds; ++r) {
        const int o = r & 1;
        const int a = o, b = 1 - o;
        t[o][a].push_back(timed(a));
        t[o][b].push_back(timed(b));
    }
    const double p1a = median(t[0][0]), p2a = median(t[0][1]), p1b = median(t[1][0]), p2b = median(t[1][1]);
    std::printf("%-18s load %s first %s | p1 first: p1 %.4f p2 %.4f (%.3f×) | p2 first: p1 %.4f p2 %.4f (%.3f×)\n",
                pos[2], load_order, first_order, p1a, p2a, p1a / p2a, p1b, p2b, p1b / p2b);
    return 0;
}
