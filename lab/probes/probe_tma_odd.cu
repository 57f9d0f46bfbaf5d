// Probe (run 83): may a 2D tiled TMA box start at an inner coordinate that is not 16-byte
// aligned (base and strides aligned)? If loads may, rows of an fp16 matrix with an odd row
// length can be read in place: rows r ≡ i (mod 8) are 16-byte-aligned strides apart (8·ld·2
// bytes), so a map per residue class, its base rounded down to 16 bytes, describes them, and a
// box of that class starts at inner coordinate s_i = (ld·i) mod 8. Run 75's 1D probe ended
// with "illegal instruction" on a store at an odd element; this asks 2D loads, stores and
// reduce-adds separately, one process each (a trap ends the context).
// Answer (run 83, H200, driver 580.159.04): every mode at s = 5 (10 bytes) ends with "illegal
// instruction" (load with 128B swizzle and without, store, reduce-add); with CTRL=1 (the box at
// an aligned coordinate, the check then off by design) load and store run. A box's inner start
// must be 16-byte aligned: rows of odd length cannot be read in place this way.
// nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o probe lab/probes/probe_tma_odd.cu
// ./probe load|load_noswz|store|add   [exit 0: right, 1: wrong, 2: CUDA error]
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_tma.h"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s: %s\n", #x, cudaGetErrorString(e_)); return 2; } } while (0)

constexpr int kLd = 4095, kRows = 256, kCls = 3;  // class 3: rows 3, 11, 19, ...; s = (4095·3) mod 8 = 5

// One box of 16 rows × 64 halves of class kCls at inner coordinate s + c0 → smem → out (raw).
__global__ void kload(const __grid_constant__ CUtensorMap map, int c0, unsigned short* out) {
    __shared__ __align__(1024) unsigned short buf[16 * 64];
    __shared__ __align__(8) unsigned long long bar;
    const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) {
        probe_mbar_arm(b, 16 * 128);
        const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(dst), "l"(&map), "r"(c0), "r"(1), "r"(b) : "memory");
        probe_mbar_wait(b);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x) out[i] = buf[i];
}

// smem box of 16 × 64 ones → global at inner coordinate c0, rows 1.. (store or reduce-add).
__global__ void kstore(const __grid_constant__ CUtensorMap map, int c0, int add) {
    __shared__ __align__(1024) unsigned short buf[16 * 64];
    for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x) buf[i] = 0x3C00;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        const uint32_t src = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
        if (add)
            asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                         ::"l"(&map), "r"(c0), "r"(1), "r"(src) : "memory");
        else
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                         ::"l"(&map), "r"(c0), "r"(1), "r"(src) : "memory");
        probe_bulk_commit_wait();
    }
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "load";
    const auto enc = probe_encode_fn();
    if (!enc) {
        printf("cuTensorMapEncodeTiled not found\n");
        return 2;
    }
    const size_t total = static_cast<size_t>(kRows) * kLd;
    std::vector<unsigned short> h(total);
    for (size_t i = 0; i < total; ++i) h[i] = static_cast<unsigned short>(i & 0x7FFF);  // element e holds e mod 2^15
    unsigned short* d = nullptr;
    CK(cudaMalloc(&d, total * 2));
    CK(cudaMemcpy(d, h.data(), total * 2, cudaMemcpyHostToDevice));
    const size_t first = static_cast<size_t>(kLd) * kCls;  // element index of row kCls
    const int s = static_cast<int>(first % 8);
    const bool noswz = !strcmp(mode, "load_noswz");
    CUtensorMap map;
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(kLd + s), static_cast<cuuint64_t>((kRows - kCls + 7) / 8)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(8) * kLd * 2};
    const cuuint32_t box[2] = {64, 16}, es[2] = {1, 1};
    CUresult r = enc(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, d + (first - s), dims, strides, box, es,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, noswz ? CU_TENSOR_MAP_SWIZZLE_NONE : CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("%s: class %d, s = %d, encode -> %d\n", mode, kCls, s, static_cast<int>(r));
    if (r != CUDA_SUCCESS) return 2;
    // control: CTRL=1 starts the box 16-byte aligned (s + 64 - s), so only the check is off
    const int c0 = getenv("CTRL") ? 64 : s + 64;  // row elements 64..127 of rows 8·1 + 3, 8·2 + 3, ...
    size_t bad = 0;
    if (!strncmp(mode, "load", 4)) {
        unsigned short* o = nullptr;
        CK(cudaMalloc(&o, 16 * 64 * 2));
        kload<<<1, 128>>>(map, c0, o);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<unsigned short> g(16 * 64);
        CK(cudaMemcpy(g.data(), o, 16 * 64 * 2, cudaMemcpyDeviceToHost));
        for (int rr = 0; rr < 16; ++rr)
            for (int c = 0; c < 64; ++c) {
                const int sc = noswz ? c : ((c / 8) ^ (rr % 8)) * 8 + c % 8;  // where chunk c/8 lands
                const size_t e = static_cast<size_t>(8 * (1 + rr) + kCls) * kLd + 64 + c;
                if (g[rr * 64 + sc] != static_cast<unsigned short>(e & 0x7FFF)) ++bad;
            }
    } else {
        const int add = !strcmp(mode, "add");
        if (add) {  // fp16 adds: start from zeros so 1.0 is expected
            CK(cudaMemset(d, 0, total * 2));
            std::fill(h.begin(), h.end(), 0);
        }
        kstore<<<1, 128>>>(map, c0, add);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<unsigned short> g(total);
        CK(cudaMemcpy(g.data(), d, total * 2, cudaMemcpyDeviceToHost));
        for (size_t e = 0; e < total; ++e) {
            const size_t row = e / kLd, col = e % kLd;
            const bool in = row % 8 == kCls && row / 8 >= 1 && row / 8 < 17 && col >= 64 && col < 128;
            const unsigned short want = in ? 0x3C00 : h[e];
            if (g[e] != want) ++bad;
        }
    }
    printf("%s: %zu wrong\n", mode, bad);
    return bad ? 1 : 0;
}
