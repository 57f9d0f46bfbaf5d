// Probe (run 75): is a rank-1 TMA map over a flat fp16 array accepted, and are 1D TMA stores /
// reduce-adds at unaligned element coordinates correct and how fast (vs aligned ones)? The
// answer that closed the idea of storing odd-N C a row at a time through such a map: the map
// encodes (with a non-null stride array), aligned boxes store and reduce-add right at ~2.5 TB/s,
// a box at an odd element stops the kernel ("illegal instruction").
// nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o probe lab/probes/probe_tma1d.cu && ./probe
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "probe_tma.h"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void k1d(const __grid_constant__ CUtensorMap map, int rows, int ld, int ncol, int add) {
    __shared__ __align__(1024) unsigned short buf[16 * 64];
    for (int i = threadIdx.x; i < 16 * 64; i += blockDim.x) buf[i] = 0x3C00;  // 1.0
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const int lane = threadIdx.x;
    // block b: rows 16*(b / (ncol/64)) .., segment (b % (ncol/64))
    const int segs = ncol / 64;
    const int r0 = 16 * (blockIdx.x / segs), c0 = 64 * (blockIdx.x % segs);
    if (lane < 16 && r0 + lane < rows) {
        const uint32_t src = static_cast<uint32_t>(__cvta_generic_to_shared(buf + lane * 64));
        const int coord = (r0 + lane) * ld + c0;
        if (add)
            asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%0, {%1}], [%2];" ::"l"(&map), "r"(coord), "r"(src) : "memory");
        else
            asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];" ::"l"(&map), "r"(coord), "r"(src) : "memory");
        probe_bulk_commit_wait();
    }
}

// 8 rows of 64 halves loaded by 1D TMA (SWIZZLE_128B map) into smem rows base + 128 r, dumped
// raw: is the 128-byte swizzle applied by smem address (chunk c of row r at c ^ r)?
__global__ void kswz(const __grid_constant__ CUtensorMap map, int ld, unsigned short* out) {
    __shared__ __align__(1024) unsigned short buf[8 * 64];
    __shared__ __align__(8) unsigned long long bar;
    const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) {
        probe_mbar_arm(b, 8 * 128);
        for (int r = 0; r < 8; ++r) {
            const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(buf + r * 64));
            asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                         ::"r"(dst), "l"(&map), "r"(r * ld + 3), "r"(b) : "memory");
        }
        probe_mbar_wait(b);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 8 * 64; i += blockDim.x) out[i] = buf[i];
}

int main() {
    const auto enc = probe_encode_fn();
    if (!enc) {
        printf("cuTensorMapEncodeTiled not found\n");
        return 1;
    }
    for (int ld : {4096, 4095}) {
        const int rows = 4096, ncol = 4032;  // segments of 64 inside each row
        const size_t total = (size_t)rows * ld;
        __half* d = nullptr;
        CK(cudaMalloc(&d, total * 2));
        CK(cudaMemset(d, 0, total * 2));
        CUtensorMap map;
        const cuuint64_t dims[1] = {total};
        const cuuint64_t strides[1] = {0};
        const cuuint32_t box[1] = {64}, es[1] = {1};
        CUresult r = enc(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 1, d, dims, strides, box, es,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        printf("ld %d: encode rank 1 (strides non-null, promo none) -> %d\n", ld, (int)r);
        CUresult r2 = enc(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 1, d, dims, nullptr, box, es,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        printf("ld %d: encode rank 1 (strides null, promo 128B) -> %d\n", ld, (int)r2);
        if (r != CUDA_SUCCESS && r2 != CUDA_SUCCESS) continue;
        if (r != CUDA_SUCCESS) r = r2;
        const int blocks = (rows / 16) * (ncol / 64);
        for (int add = 0; add < 2; ++add) {
            CK(cudaMemset(d, 0, total * 2));
            k1d<<<blocks, 32>>>(map, rows, ld, ncol, add);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            std::vector<unsigned short> h(total);
            CK(cudaMemcpy(h.data(), d, total * 2, cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (int rr = 0; rr < rows; ++rr)
                for (int c = 0; c < ld; ++c) {
                    const unsigned short want = c < ncol ? 0x3C00 : 0;
                    if (h[(size_t)rr * ld + c] != want) ++bad;
                }
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            for (int w = 0; w < 3; ++w) k1d<<<blocks, 32>>>(map, rows, ld, ncol, add);
            CK(cudaEventRecord(e0));
            for (int it = 0; it < 20; ++it) k1d<<<blocks, 32>>>(map, rows, ld, ncol, add);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
            printf("ld %d %s: wrong %zu of %zu; %.1f us a pass (%.2f TB/s of C written)\n", ld, add ? "reduce-add" : "store",
                   bad, total, 1000.0 * ms / 20, (double)rows * ncol * 2 / (ms / 20 * 1e-3) / 1e12);
        }
        if (ld == 4095) {  // swizzled 1D loads: element e of the array holds e & 0xFFFF
            std::vector<unsigned short> h(total);
            for (size_t i = 0; i < total; ++i) h[i] = (unsigned short)(i & 0xFFFF);
            CK(cudaMemcpy(d, h.data(), total * 2, cudaMemcpyHostToDevice));
            CUtensorMap ms;
            CUresult rs = enc(&ms, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 1, d, dims, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            printf("encode rank 1 swizzle 128B -> %d\n", (int)rs);
            if (rs == CUDA_SUCCESS) {
                unsigned short* o = nullptr;
                CK(cudaMalloc(&o, 8 * 64 * 2));
                kswz<<<1, 128>>>(ms, ld, o);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                std::vector<unsigned short> g(8 * 64);
                CK(cudaMemcpy(g.data(), o, 8 * 64 * 2, cudaMemcpyDeviceToHost));
                int swz = 0, lin = 0;
                for (int r = 0; r < 8; ++r)
                    for (int c = 0; c < 8; ++c) {  // 16-byte chunk c of row r in smem
                        const unsigned short first = g[r * 64 + c * 8];
                        const unsigned short lin_v = (unsigned short)((r * ld + 3 + c * 8) & 0xFFFF);
                        const unsigned short swz_v = (unsigned short)((r * ld + 3 + (c ^ r) * 8) & 0xFFFF);
                        lin += first == lin_v;
                        swz += first == swz_v;
                    }
                printf("1D swizzled loads: %d of 64 chunks where the address-based swizzle puts them, %d linear\n", swz, lin);
                CK(cudaFree(o));
            }
        }
        CK(cudaFree(d));
    }
    return 0;
}
