// probe_launch — what a call costs before any GEMM work: the harness's timing method (C restored,
// device synchronized, event, solve's launch, event) around kernels that do nothing, launched
// the ways 12_best launches. The difference between these and 12_best at 1024×1024×64 is the
// GEMM kernel's own fixed cost.
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o build/probe_launch lab/probes/probe_launch.cu
//   build/probe_launch            (one table: median and min of 300 calls per row, in µs; then
//                                  how many clusters of 1-16 such CTAs can be resident at once)
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.h"

namespace {

constexpr int kSmem = 197 * 1024;  // about what 12_best's split-K kernel asks for

__global__ void empty_small() {}

// 12_best's parameter list (two tensor maps by value, C, sizes, alpha, beta), no work.
__global__ void __launch_bounds__(384, 1)
empty_params(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, half* C,
             int M, int N, int K, float alpha, float beta) {
    if (M < 0) C[0] = __float2half(alpha + beta + N + K);  // never: keeps the parameters alive
}

// The same, with the compile-time cluster shape, so a plain <<<>>> launch makes clusters.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
empty_cdims(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, half* C,
            int M, int N, int K, float alpha, float beta) {
    if (M < 0) C[0] = __float2half(alpha + beta + N + K);
}

// 12_best's prologue and teardown without the GEMM: mbarrier init, a cluster barrier, tensor-map
// prefetch, a cluster barrier at the end.
__global__ void __launch_bounds__(384, 1)
sync_only(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, half* C,
          int M, int N, int K, float alpha, float beta) {
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(1) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&ta)) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tb)) : "memory");
    }
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
    if (M < 0) C[0] = __float2half(alpha + beta + N + K);
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// Each of 128 CTAs writes its 128×128 fp16 tile of C once: the cost of the epilogue's stores and
// of their drain at kernel end, with nothing before them.
__global__ void __launch_bounds__(384, 1)
store_only(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, half* C,
           int M, int N, int K, float alpha, float beta) {
    const int tile = blockIdx.x / 2, half_ = blockIdx.x % 2;
    const int tm = tile % (M / 128), tn = tile / (M / 128);
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {  // 64 rows × 64 half2
        const int r = tm * 128 + half_ * 64 + i / 64, c = tn * 128 + 2 * (i % 64);
        __half2* p = reinterpret_cast<__half2*>(C + static_cast<size_t>(r) * N + c);
        const float2 o = __half22float2(*p);
        *p = __floats2half2_rn(alpha * o.x + beta + K, alpha * o.y + beta);
    }
}

struct Row {
    const char* name;
    double med, min, host;
};

template <class Launch>
Row measure(const char* name, half* C, const half* Cinit, size_t bytes, Launch launch) {
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> ev, host;
    for (int i = -10; i < 300; ++i) {
        CHECK(cudaMemcpy(C, Cinit, bytes, cudaMemcpyDeviceToDevice));
        CHECK(cudaDeviceSynchronize());
        const auto h0 = std::chrono::steady_clock::now();
        CHECK(cudaEventRecord(e0));
        launch();
        const auto h1 = std::chrono::steady_clock::now();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (i < 0) continue;
        ev.push_back(ms * 1e3);
        host.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    std::sort(ev.begin(), ev.end());
    std::sort(host.begin(), host.end());
    return {name, ev[ev.size() / 2], ev[0], host[host.size() / 2]};
}

// A launch configuration of `ctas` CTAs of 384 threads and kSmem bytes in clusters of `cs` along
// x. Not copyable: cfg points at attr.
struct ClusterCfg {
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg;
    ClusterCfg(int ctas, int cs) : attr{}, cfg{} {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = static_cast<unsigned>(cs);
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(static_cast<unsigned>(ctas));
        cfg.blockDim = dim3(384);
        cfg.dynamicSmemBytes = kSmem;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    ClusterCfg(const ClusterCfg&) = delete;
    ClusterCfg& operator=(const ClusterCfg&) = delete;
};

}  // namespace

int main() {
    const int M = 1024, N = 1024, K = 1024;
    const size_t bytes = static_cast<size_t>(M) * N * sizeof(half);
    half *C = nullptr, *Cinit = nullptr;
    CHECK(cudaMalloc(&C, bytes));
    CHECK(cudaMalloc(&Cinit, bytes));
    CHECK(cudaMemset(Cinit, 0x3c, bytes));  // 1.0-ish halves, not zeros
    CUtensorMap ta{}, tb{};
    const float alpha = 1.0f, beta = 1.0f;
    CHECK(cudaFuncSetAttribute(empty_params, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    CHECK(cudaFuncSetAttribute(empty_cdims, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    CHECK(cudaFuncSetAttribute(sync_only, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    CHECK(cudaFuncSetAttribute(store_only, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));

    auto cluster_launch = [&](auto kernel) {
        ClusterCfg l(128, 2);
        CHECK(cudaLaunchKernelEx(&l.cfg, kernel, ta, tb, C, M, N, K, alpha, beta));
    };

    std::vector<Row> rows;
    rows.push_back(measure("empty <<<1, 32>>>, no parameters", C, Cinit, bytes, [&] { empty_small<<<1, 32>>>(); }));
    rows.push_back(measure("empty, 12_best's parameters, <<<128, 384, 197 KB>>>", C, Cinit, bytes,
                           [&] { empty_params<<<128, 384, kSmem>>>(ta, tb, C, M, N, K, alpha, beta); }));
    rows.push_back(measure("empty, same, 0 KB dynamic shared memory", C, Cinit, bytes,
                           [&] { empty_params<<<128, 384, 0>>>(ta, tb, C, M, N, K, alpha, beta); }));
    rows.push_back(measure("empty, same, cudaLaunchKernelEx clusters of 2", C, Cinit, bytes,
                           [&] { cluster_launch(empty_params); }));
    rows.push_back(measure("empty, __cluster_dims__(2) with <<<>>>", C, Cinit, bytes,
                           [&] { empty_cdims<<<128, 384, kSmem>>>(ta, tb, C, M, N, K, alpha, beta); }));
    rows.push_back(measure("mbarrier init + 2 cluster barriers, clusters of 2", C, Cinit, bytes,
                           [&] { cluster_launch(sync_only); }));
    rows.push_back(measure("read + write C once (2 MB), clusters of 2", C, Cinit, bytes,
                           [&] { cluster_launch(store_only); }));
    rows.push_back(measure("cudaMemcpyAsync of C (2 MB) as the call", C, Cinit, bytes, [&] {
        CHECK(cudaMemcpyAsync(C, Cinit, bytes, cudaMemcpyDeviceToDevice, 0));
    }));

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("probe_launch on %s: events around one launch, C restored and device synchronized "
                "before each, median / min of 300 calls (µs); host = time inside the launch call\n",
                prop.name);
    std::printf("| launch | median µs | min µs | host µs |\n|---|---:|---:|---:|\n");
    for (const Row& r : rows) std::printf("| %s | %.2f | %.2f | %.2f |\n", r.name, r.med, r.min, r.host);

    // How many clusters of each size fit at once with one 384-thread, 197 KB CTA per SM: clusters
    // live inside one GPC, so the count depends on how many SMs each GPC has, not only on 132.
    std::printf("\n| cluster size | resident clusters (cudaOccupancyMaxActiveClusters) | CTAs |\n|---:|---:|---:|\n");
    CHECK(cudaFuncSetAttribute(empty_params, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int cs = 1; cs <= 16; cs *= 2) {
        ClusterCfg l(cs * prop.multiProcessorCount, cs);
        int n = 0;
        const cudaError_t e = cudaOccupancyMaxActiveClusters(&n, empty_params, &l.cfg);
        if (e != cudaSuccess) {
            std::printf("| %d | refused: %s | – |\n", cs, cudaGetErrorString(e));
            cudaGetLastError();
            continue;
        }
        std::printf("| %d | %d | %d |\n", cs, n, n * cs);
    }
    CHECK(cudaFree(C));
    CHECK(cudaFree(Cinit));
    return 0;
}
