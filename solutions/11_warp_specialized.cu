// 11_warp_specialized — 1 TMA producer warpgroup + wgmma consumer warpgroups (setmaxnreg), persistent grouped tiles, TMA-store epilogue (sm_90a only)
//
// Technique: warp specialization. One warpgroup is the producer: it gives up registers
//   (setmaxnreg.dec to 40) and one elected thread only waits on "empty" barriers and issues TMA;
//   two consumer warpgroups grow to 232 registers (setmaxnreg.inc), wait on "full" barriers,
//   issue wgmma m64n256k16 and release each stage as soon as the wgmma reading it retires. The
//   grid is persistent (one CTA an SM, grouped tile order) and the barrier phases run on across
//   tiles, so the producer loads tile i+1 while the consumers finish tile i.
// Changed from 10, and why it is faster: in 10 the thread that feeds the copy engine sits in
//   math warp 0, so warpgroup 0 stalls whenever it waits for a free stage, and every block pays
//   a cold pipeline and an epilogue with no load in flight. The epilogue (12_best's, ported):
//   each warp rounds alpha·acc (+ beta·C) once, writes 64 columns at a time into a 2 KB
//   128B-swizzled box with stmatrix and hands it to a TMA store it does not wait for: ~1.9 µs
//   of a 128×256 tile at 4096³ against ~9 µs for stores from the fragments (probe_trace). Also
//   ported: with beta = 1 the stores are TMA reduce-adds (old C never loaded); with beta 0 or 1
//   a tile's stores run during the next tile's first k-steps; odd tiles walk K backwards (their
//   first k-tiles are still in L2); beta = 1: the partial last wave's tiles are split by k-tiles
//   over every CTA (stream-K). Clusters of 2 with B multicast measured as fast, not faster: off.
// Prediction (before measuring): first version 4096³ ≈ 0.22 ms; with 12_best's kernel ported,
//   4096³ and 8192³ ~7% faster than the version before it (as 12_best: 0.209 against 0.225 ms).
// Measured (H200, harness, cuBLAS beside it): the first version ran 4096³ in 0.2374 ms, slower
//   than 10 (its epilogue: 8 serial passes a warpgroup, each waiting on a DRAM read of C, ~10 µs
//   a tile with the tensor cores idle); the kernel ported from 12_best ran 7.6% and 7.3% faster
//   than the version before it at 4096³ and 8192³, as predicted. leaderboard.md: 1024³ 0.0127 ms
//   (135.3% of cuBLAS's speed), 4096³ 0.2015 (106.0%; 10: 0.2139, 91.1%). The four versions,
//   run by run: lab/stages/11_warp_specialized.md.
// Tiles: BM=128 BN=256 BK=64 stages=4, warpgroups=3 (1 producer + 2 consumers of 64×256),
//   no cluster (GEMM_BIG_CLUSTER=2: 2×1 when the 128×256 tiles make ≥ 3/4 of a wave); otherwise
//   BM=64 BN=128 BK=64 stages=4 (GEMM_SMALL_STAGES), warpgroups=2 (1 + 1), no cluster
//   (GEMM_SMALL_CLUSTER). Persistent grid = min(tiles, SMs) (clusters: min(tile pairs,
//   resident clusters)), grouped order (16 M-tiles); beta = 1: stream-K tail (GEMM_STREAMK).
//   Macros GEMM_REDUCE_C, GEMM_DEFER_STORES, GEMM_K_SERPENTINE turn (a), (b), (c) off. Fallback (K%8, N%8 or misaligned
//   pointers: TMA needs 16-byte strides): CUDA-core 64×64 tiles, 4×4 per thread.
// Targets: sm_90a
// Judge GPUs: H100 H200
// Needs sm_90a (wgmma, TMA, setmaxnreg): does not run on a T4/A100.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// Compile-time variants (the defaults are what gets submitted):
#ifndef GEMM_BIG_STAGES
#define GEMM_BIG_STAGES 4      // 128×256×64 stages are 48 KB: 4 is the most that fits
#endif
#ifndef GEMM_BIG_CLUSTER
#define GEMM_BIG_CLUSTER 1     // 2: clusters with B multicast (runs 9-10: as fast; not run with the fourth version)
#endif
#ifndef GEMM_REDUCE_C
#define GEMM_REDUCE_C 1        // beta == 1: C += alpha·AB by TMA reduce-add stores, old C never loaded
#endif
#ifndef GEMM_K_SERPENTINE
#define GEMM_K_SERPENTINE 1    // a CTA's odd tiles walk K backwards (their first k-tiles are still in L2)
#endif
#ifndef GEMM_DEFER_STORES
#define GEMM_DEFER_STORES 1    // beta 0 or 1: a tile's C stores run during the next tile's first k-steps
#endif
#ifndef GEMM_STREAMK
#define GEMM_STREAMK 1         // beta == 1: the partial last wave's tiles split by k-tiles over all CTAs
#endif
#ifndef GEMM_SMALL_STAGES
#define GEMM_SMALL_STAGES 4    // 64×128×64 stages are 24 KB (12_best: 8)
#endif
#ifndef GEMM_SMALL_CLUSTER
#define GEMM_SMALL_CLUSTER 1   // 2: measured 0.0223 vs 0.0154 ms at 1024³ (run 3)
#endif

namespace {

constexpr int kBK = 64;        // 64 halves = 128 bytes: one row of the 128-byte swizzle atom
constexpr int kGroupM = 16;    // grouped tile order: 16 M-tiles (16 / CM clusters) per sweep over N
constexpr int kEpiWarpBytes = 2 * 16 * 128;  // epilogue: two 16-row × 64-column fp16 boxes per warp
constexpr int kOldCGap = 4;  // k-steps between an old-C round's loads and its reads (2: the same, run 39)
constexpr int kProducerRegs = 40;
template <bool B>
struct Flag {  // a compile-time bool for generic lambdas
    static constexpr bool value = B;
};
constexpr int kConsumerRegs = 232;

// 1 producer warpgroup + NCW consumer warpgroups; each consumer computes 64×BN of a 64·NCW × BN
// tile. CM = CTAs per cluster along M (1 or 2): the CM CTAs of a cluster compute vertically
// adjacent tiles with the same columns, so they need the same B stage; each CTA loads BN/64/CM of
// the B chunks and the copy engine multicasts them into every CTA of the cluster.
template <int NCW, int BN, int STAGES, int CM>
struct Cfg {
    static constexpr int BM = 64 * NCW;
    static constexpr int kThreads = (NCW + 1) * 128;
    static constexpr int kABytes = BM * kBK * 2;          // one stage of A: BM rows × 128 B
    static constexpr int kBChunk = kBK * 64 * 2;          // 64 K-rows × 64 N-columns (8 KB)
    static constexpr int kBChunks = BN / 64;
    static constexpr int kBBytes = kBChunks * kBChunk;    // one stage of B: BN/64 chunks
    static constexpr int kStageBytes = kABytes + kBBytes; // expect_tx per stage (per CTA)
    static constexpr int kPipeBytes = STAGES * kStageBytes;
    static constexpr int kEpiBytes = NCW * 4 * kEpiWarpBytes;  // two C boxes per consumer warp
    static constexpr int kSmemBytes = 1024 + kPipeBytes + kEpiBytes + 2 * STAGES * 8 + NCW * 4 * 8;
    static constexpr int kEmptyArrivals = CM * NCW * 4;   // every consumer warp of the cluster
    static_assert(NCW == 1 || NCW == 2, "one or two consumer warpgroups");
    static_assert(BN == 128 || BN == 256, "wgmma wrappers exist for n128 and n256");
    static_assert(CM == 1 || CM == 2, "clusters of 1 or 2 CTAs along M");
    static_assert(kBChunks % CM == 0, "B chunks split evenly over the cluster");
    static_assert(kGroupM % CM == 0, "grouped order in whole clusters");
    static_assert(kABytes % 1024 == 0 && kBChunk % 1024 == 0,
                  "every tile must start on a 1024-byte swizzle-pattern boundary");
    static_assert(kSmemBytes <= 227 * 1024, "227 KB dynamic shared memory per block");
    static_assert((kConsumerRegs * NCW + kProducerRegs) * 128 <= 65536, "register file");
};


// ---------------------------------------------------------------------------------------------
// PTX wrappers
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Arrive once and add `bytes` to the transaction count of the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Wait until the phase with the given parity has completed.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do {
        asm volatile(
            "{\n.reg .pred p;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}

// 2D tiled TMA load: box at (c0 = inner/column element, c1 = row) into shared memory at dst;
// completion is reported to the mbarrier as transaction bytes (out-of-bounds parts are zeros
// and still count).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
        : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator reads/writes across wgmma issue/wait points.
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// wgmma shared-memory matrix descriptor, 128-byte swizzle (bits 62-63 = 1), base offset 0
// (every tile starts on a 1024-byte boundary). Fields hold byte values >> 4 (14 bits each):
// start address bits 0-13, leading-dimension byte offset bits 16-29, stride-dimension byte
// offset bits 32-45.
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((saddr & 0x3FFFF) >> 4) |
           (static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
           (static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

// D(64×N, f32) += A(64×16, f16, K-major, smem) · B(16×N, f16, N-major, smem).
// Operands after d: a-desc, b-desc, scale-d (p = true: accumulate), imm-scale-a = 1,
// imm-scale-b = 1, imm-trans-a = 0 (A K-major), imm-trans-b = 1 (B N-major: row-major K×N).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t da, uint64_t db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db)
        : "memory");
}

__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db)
        : "memory");
}


template <int BN>
__device__ __forceinline__ void wgmma_tile(float (&d)[BN / 2], uint64_t da, uint64_t db) {
    if constexpr (BN == 256) wgmma_m64n256k16(d, da, db);
    else wgmma_m64n128k16(d, da, db);
}


template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

// ---- cluster helpers (sm_90) ----
__device__ __forceinline__ uint32_t cluster_ctarank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Arrive (release) and wait (acquire) separately, for a thread that has work to do in between.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
// Every thread of every CTA in the cluster: arrive (release) then wait (acquire).
__device__ __forceinline__ void cluster_sync_all() {
    cluster_arrive();
    cluster_wait();
}
// The shared::cluster address of the same shared-memory offset in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t mapa_shared(uint32_t addr, uint32_t rank) {
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}
// Default semantics (release, CTA scope), as CUTLASS's cluster barrier does: what the arrival
// publishes is "the wgmma reads of this stage have retired", which wait_group already ordered.
// The .release.cluster form made every arrival a cluster-scope fence: run 9 measured membar
// stalls at 31% of cycles and 4096³ at 0.3231 ms against 0.2167 ms with this form.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t cluster_addr) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr) : "memory");
}
// Like tma_load_2d, but the box lands at the same offset in every CTA of `mask` and each of them
// gets the complete_tx on its own mbarrier at offset `bar`.
[[maybe_unused]] __device__ __forceinline__ void tma_load_2d_mc(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                               int c0, int c1, uint16_t mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
        : "memory");
}
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
// Four 8×8 b16 matrices from the accumulator fragment layout into shared memory: lane l gives
// the address of row l%8 of matrix l/8; register i holds this lane's pair of matrix i.
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}
// The inverse: four 8×8 b16 matrices from shared memory into the fragment layout.
__device__ __forceinline__ void ldmatrix_x4(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr)
                 : "memory");
}
// Ordinary shared-memory accesses ordered with the copy engine's (the async proxy's).
__device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// 2D tiled TMA store of the box at smem src to (c0 = column, c1 = row); rows and columns past
// the tensor's edge are not written.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
// The same, adding the box to what C holds (fp16 adds in L2, as atomic as each element's write).
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Wait until at most N of this thread's bulk groups are still reading their shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// The 16-byte-unit address of row r, 16-byte column unit c of a 16 × 64-half box with the
// 128-byte swizzle (the 8 rows of an 8×8 matrix land in 8 different units: conflict-free).
__device__ __forceinline__ uint32_t box_addr(uint32_t box, int r, int c) {
    return box + r * 128 + ((c ^ (r & 7)) << 4);
}

// Old C for one consumer warp's 16 rows × BN columns, in the accumulator fragment layout:
// register d[4c + 2h + e] is row 16*warp + lane/4 + 8h, column 8c + 2*(lane%4) + e of the
// warpgroup's block. The copy engine brings it into the warp's two epilogue boxes, two 16 × 64
// chunks at a time (one TMA load each, counted on the warp's own mbarrier), and ldmatrix reads
// the boxes straight into the fragment layout (the inverse of the epilogue's stmatrix). The
// rounds run between early k-steps' wgmma (TmaEpilogue::step), or after a short K loop (finish),
// so the epilogue never waits for C. Why (probe_trace, runs 35–37): 4-byte loads in the fragment
// layout touch 8 rows per instruction; the 64 of them a thread took the load unit ~4.5k cycles a
// 128×256 tile (~6% of a 4096³ K loop), before the K loop or spread over it alike.
// beta == 0: never read (C may hold NaN); beta == 1: added by reduce-add stores instead.
// MAY_READ = false: compiled without the loads (the registers free for TmaEpilogue's deferral).
template <int BN, bool MAY_READ>
struct OldC {
    static constexpr int kGroups = BN / 8;
    static constexpr int kChunks = BN / 64;      // 16 × 64 chunks of the warp's rows
    static constexpr int kRounds = kChunks / 2;  // two boxes per round
    static constexpr int kBoxBytes = 16 * 128;
    static_assert(kRounds == 1 || kRounds == 2, "the step schedule covers one or two rounds");
    static_assert(2 * kBoxBytes <= kEpiWarpBytes, "two boxes per warp");
    uint32_t old0[kGroups], old1[kGroups];  // rows lane/4 and lane/4 + 8
    uint32_t boxes;                         // this warp's two boxes (1024-byte aligned)
    uint32_t cbar;                          // this warp's mbarrier for the loads
    uint32_t cphase;                        // its completed phases
    const CUtensorMap* map;
    int row, col0;                          // the warp's first row and the block's first column
    int warp;
    bool read_c;

    __device__ __forceinline__ OldC(const CUtensorMap* tmC, int warp_, bool rc, uint32_t boxes_, uint32_t cbar_)
        : boxes(boxes_), cbar(cbar_), cphase(0), map(tmC), row(0), col0(0), warp(warp_), read_c(rc) {
#pragma unroll
        for (int c = 0; c < kGroups; ++c) old0[c] = old1[c] = 0u;  // defined on every path (beta = 0)
    }
    // The block of C this warpgroup computes next: rows from block_row, columns from n0.
    __device__ __forceinline__ void begin(int block_row, int n0) {
        row = block_row + 16 * warp;
        col0 = n0;
    }
    // Round r: lane 0 loads chunks 2r and 2r+1 into the two boxes.
    __device__ __forceinline__ void issue(int r) const {
        if (!MAY_READ || !read_c || threadIdx.x % 32 != 0) return;
        if (r == 0) bulk_wait_read<0>();  // the stores before are done reading the boxes
        mbar_arrive_expect_tx(cbar, 2 * kBoxBytes);
        tma_load_2d(boxes, map, cbar, col0 + 128 * r, row);
        tma_load_2d(boxes + kBoxBytes, map, cbar, col0 + 128 * r + 64, row);
    }
    // Round r's chunks into registers, then the boxes are free for the copy engine again.
    template <int R>
    __device__ __forceinline__ void take() {
        if (!MAY_READ || !read_c) return;
        mbar_wait(cbar, cphase & 1u);
        ++cphase;
        const int lane = threadIdx.x % 32, m = lane / 8, rr = 8 * (m & 1) + lane % 8;
#pragma unroll
        for (int b = 0; b < 2; ++b)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int g = 8 * (2 * R + b) + 2 * j;  // matrices as in TmaEpilogue::put
                ldmatrix_x4(box_addr(boxes + b * kBoxBytes, rr, 2 * j + (m >> 1)), old0[g], old1[g],
                            old0[g + 1], old1[g + 1]);
            }
        fence_proxy_async();  // these reads before the copy engine's next writes into the boxes
        __syncwarp();
    }
    // Round 0's loads (A = 0); round 0 into registers and round 1's loads (A = 1); round 1 into
    // registers (A = 2).
    template <int A>
    __device__ __forceinline__ void act() {
        if constexpr (A == 0) issue(0);
        if constexpr (A == 1) {
            take<0>();
            if constexpr (kRounds > 1) issue(1);
        }
        if constexpr (A == 2 && kRounds > 1) take<1>();
    }
    // alpha * acc + beta * C_old for group c, row half h, rounded once to a half2.
    __device__ __forceinline__ uint32_t combine(const float (&acc)[BN / 2], int c, int h, float alpha,
                                                float beta) const {
        const int i = 4 * c + 2 * h;
        float x = alpha * acc[i], y = alpha * acc[i + 1];
        if (MAY_READ && read_c) {
            const uint32_t o = h ? old1[c] : old0[c];
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&o));
            x += beta * f.x;
            y += beta * f.y;
        }
        const __half2 r = __floats2half2_rn(x, y);
        return *reinterpret_cast<const uint32_t*>(&r);
    }
};

// One consumer warp's 16 rows × BN columns of C, stored by the copy engine. The results are
// rounded once in the fragment layout (pack), written 64 columns at a time into a 2 KB box with
// stmatrix (4 instructions of 512 bytes), 128B-swizzled as the C tensor map expects
// (conflict-free: the 8 rows of a matrix land in 8 different 16-byte units), and one lane hands
// the box to a TMA store (beta == 1: a reduce-add, so old C is never loaded). The warp alternates
// between two boxes and, before rewriting one, waits only until the copy engine has read it.
// TMA clips the stores at C's edges.
// Without old C to read (MAY_READ = false: beta 0 or 1) the persistent kernel defers a tile's
// stores: its packed results (BN/4 registers) wait while the next tile's K loop starts, and its
// first kChunks k-steps write one chunk each between their wgmma (step), so the tensor pipes do
// not wait for the epilogue; the last tile is flushed after its K loop. (With old C the packed
// results and old C would need 64 more registers than there are: stores follow the K loop.)
// Why (probe_trace, runs 15–18, 128×256 tiles at 4096³): half2 stores straight from the fragments
// put each instruction's 32 lanes on 8 rows, 8 L1 wavefronts per 128 bytes, and with the old C
// read the same way the epilogue took ~9 µs a tile (35 µs of a CTA's 215); staging through shared
// memory as fp32 with 16-byte row accesses took ~4.9 µs; the boxes ~1.9 µs, all of it with both
// consumer warpgroups off the tensor pipes (runs 44–46: 2.3 µs a tile with reduce-add stores).
template <int BN, bool MAY_READ>
struct TmaEpilogue : OldC<BN, MAY_READ> {
    using Base = OldC<BN, MAY_READ>;
    using Base::kGroups;
    using Base::kChunks;
    using Base::kBoxBytes;
    static_assert(kChunks % 2 == 0, "boxes alternate: an even count per tile keeps the order across tiles");
    uint32_t out0[kGroups], out1[kGroups];  // packed results, rows lane/4 and lane/4 + 8
    int out_row, out_col0;                  // where they go
    bool add_c;                             // stores add to C (beta == 1)
    bool pending;                           // out0/out1 hold a block not yet stored

    __device__ __forceinline__ TmaEpilogue(const CUtensorMap* tmC, int warp_, bool rc, bool add,
                                           uint32_t boxes_, uint32_t cbar_)
        : Base(tmC, warp_, rc, boxes_, cbar_), out_row(0), out_col0(0), add_c(add), pending(false) {}

    // The finished block, rounded: alpha·acc (+ beta·old C), for put.
    __device__ __forceinline__ void pack(const float (&acc)[BN / 2], float alpha, float beta) {
#pragma unroll
        for (int c = 0; c < kGroups; ++c) {
            out0[c] = this->combine(acc, c, 0, alpha, beta);
            out1[c] = this->combine(acc, c, 1, alpha, beta);
        }
        out_row = this->row;
        out_col0 = this->col0;
        pending = true;
    }
    // Chunk K (columns 64K..64K+63) of the packed block through box K % 2.
    template <int K>
    __device__ __forceinline__ void put() {
        if (!pending) return;
        const int lane = threadIdx.x % 32;
        const uint32_t box = this->boxes + (K & 1) * kBoxBytes;
        if (lane == 0) bulk_wait_read<1>();  // the store that last read this box is done with it
        __syncwarp();
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            // matrices (group 2j, rows 0-7), (2j, rows 8-15), (2j+1, rows 0-7), (2j+1, rows 8-15)
            // of the chunk; lane l addresses row l%8 of matrix l/8
            const int m = lane / 8, c = 2 * j + (m >> 1), r = 8 * (m & 1) + lane % 8;
            const int g = 8 * K + 2 * j;
            stmatrix_x4(box_addr(box, r, c), out0[g], out1[g], out0[g + 1], out1[g + 1]);
        }
        fence_proxy_async();  // each lane's stmatrix writes, before the copy engine reads them
        __syncwarp();
        if (lane == 0) {
            if (add_c) tma_reduce_add_2d(this->map, box, out_col0 + 64 * K, out_row);
            else tma_store_2d(this->map, box, out_col0 + 64 * K, out_row);
            bulk_commit();
        }
        if constexpr (K == kChunks - 1) pending = false;
    }
    // Every chunk not yet put.
    __device__ __forceinline__ void flush() {
        put<0>();
        put<1>();
        if constexpr (kChunks > 2) {
            put<2>();
            put<3>();
        }
    }
    // pack and store now (a kernel without a next tile to hide the stores behind).
    __device__ __forceinline__ void store(const float (&acc)[BN / 2], float alpha, float beta) {
        pack(acc, alpha, beta);
        flush();
    }
    // After the wgmma of k-step kt are issued. MAY_READ: this block's old-C rounds at k-steps 0,
    // kOldCGap, 2·kOldCGap. Otherwise: the previous block's chunk kt (kt < kChunks).
    __device__ __forceinline__ void step(int kt) {
        if constexpr (MAY_READ) {
            if (kt == 0) this->template act<0>();
            else if (kt == kOldCGap) this->template act<1>();
            else if (kt == 2 * kOldCGap) this->template act<2>();
        } else {
            if (kt == 0) put<0>();
            else if (kt == 1) put<1>();
            if constexpr (kChunks > 2) {
                if (kt == 2) put<2>();
                else if (kt == 3) put<3>();
            }
        }
    }
    // What a K loop of n_k k-steps did not reach.
    __device__ __forceinline__ void finish(int n_k) {
        if constexpr (MAY_READ) {
            if (n_k <= 0) this->template act<0>();
            if (n_k <= kOldCGap) this->template act<1>();
            if (n_k <= 2 * kOldCGap) this->template act<2>();
        } else {
            if (n_k < 1) put<0>();
            if (n_k < 2) put<1>();
            if constexpr (kChunks > 2) {
                if (n_k < 3) put<2>();
                if (n_k < 4) put<3>();
            }
        }
    }
    // Before the CTA ends: this warp's stores have completed.
    static __device__ __forceinline__ void drain() {
        if (threadIdx.x % 32 == 0) bulk_wait_all();
    }
};

// A consumer warpgroup's K loop over n_k filled stages of the ring, counter `it` (stage it % S,
// phase (it / S) & 1) carried across tiles: wait for the fill, issue the 4 wgmma of the k-tile,
// keep one group in flight, and hand each stage back once the wgmma reading it has retired.
// With STEP_C, the epilogue works between the first k-steps' wgmma (TmaEpilogue::step: old C in,
// or the previous tile's stores out).
template <int BN, int STAGES, int ABYTES, int BBYTES, int BCHUNK, bool STEP_C, class Epi, class Release>
__device__ __forceinline__ void consume_k(float (&acc)[BN / 2], uint32_t& it, int n_k, uint32_t sA,
                                          uint32_t sB, uint32_t full_bar, int cw, Epi& epi,
                                          Release release) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    for (int kt = 0; kt < n_k; ++kt, ++it) {
        const uint32_t s = it % STAGES;
        mbar_wait(full_bar + 8 * s, (it / STAGES) & 1);
        const uint64_t da = make_desc(sA + s * ABYTES + cw * 64 * 128, 16, 1024);
        const uint64_t db = make_desc(sB + s * BBYTES, BCHUNK, 1024);
        fence_acc(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {
            wgmma_tile<BN>(acc, da + 2 * kk, db + 128 * kk);  // +32 B in A, +2048 B in B
        }
        wgmma_commit();
        if constexpr (STEP_C) epi.step(kt);
        wgmma_wait<1>();  // the previous fill has been read: hand it back
        fence_acc(acc);
        if (kt > 0) release((it - 1) % STAGES);
    }
    if constexpr (STEP_C) epi.finish(n_k);
    wgmma_wait<0>();
    fence_acc(acc);
    if (n_k > 0) release((it - 1) % STAGES);
}

// Grouped order over cluster tiles ("super tiles" of CM×1 tiles): consecutive ids walk
// kGroupM / CM super-rows before moving along N, so a wave's A and B slices stay in L2.
template <int CM>
__device__ __forceinline__ void super_coords(int t, int super_m, int tiles_n, int& sm, int& tn) {
    constexpr int G = kGroupM / CM;
    const int per_group = G * tiles_n;
    const int first = (t / per_group) * G;
    const int gm = min(super_m - first, G);
    const int r = t % per_group;
    sm = first + r % gm;
    tn = r / gm;
}

// A CTA's work: whole tiles t = first, first + stride, ... below dp_end (data-parallel), then its
// share of the stream-K tail: the last sk_tiles tiles' k-tiles, flattened (tile-major) and cut
// into one equal range per CTA (no clusters), so no SM idles through a partial last wave. A range covers
// the ends of one or two tiles; each piece's partial sum is reduce-added into C (beta == 1 only:
// C += alpha·AB in any order). The producer and the consumers walk the same list.
struct WorkList {
    int t, stride, dp_end, num_k;
    long long u, u_end;  // this CTA's stream-K units (tile·num_k + k-tile) not yet handed out
    __device__ __forceinline__ WorkList(int first, int stride_, int total, int sk_tiles, int num_k_)
        : t(first), stride(stride_), dp_end(total - sk_tiles), num_k(num_k_) {
        const long long units = static_cast<long long>(sk_tiles) * num_k;
        u = units * first / stride;
        u_end = units * (first + 1) / stride;
    }
    // The next piece: tile `tile`, k-tiles [kb, ke); false when there is none.
    __device__ __forceinline__ bool next(int& tile, int& kb, int& ke) {
        if (t < dp_end) {
            tile = t;
            kb = 0;
            ke = num_k;
            t += stride;
            return true;
        }
        if (u >= u_end) return false;
        const long long tl = u / num_k;
        const long long e = min(u_end, (tl + 1) * num_k);
        tile = dp_end + static_cast<int>(tl);
        kb = static_cast<int>(u - tl * num_k);
        ke = kb + static_cast<int>(e - u);
        u = e;
        return true;
    }
};

// ---------------------------------------------------------------------------------------------
// Fast path: warp-specialized, persistent, optionally clustered. Block = 1 producer warpgroup
// (wg 0) + NCW consumer warpgroups. Shared memory (1024-aligned):
//   [A stage 0..S-1][B stage 0..S-1][C boxes, 4 KB per consumer warp][full bars][empty bars]
//   [old-C bars, one per consumer warp]
//   A stage: BM rows × 64 halves, 128B-swizzled = K-major SW128: SBO = 1024, LBO unused.
//   B stage: BN/64 chunks of 64 K-rows × 64 N-columns = MN-major SW128: LBO = 8192, SBO = 1024.
// Work: "super tiles" of CM vertically adjacent BM×BN tiles; cluster c takes super tiles
//   c, c + #clusters, ... (grouped order), then its share of the stream-K tail (WorkList);
//   CTA `rank` of the cluster owns rows (super_m·CM + rank)·BM. Both CTAs of a cluster walk the
//   same sequence, so their rings stay in step.
// Iteration counter `it` runs over (tile, k-tile) pairs in the same order on both sides:
//   stage = it % S. full[stage]: 1 arrival (local producer's arrive.expect_tx of the whole
//   stage's bytes) + the bytes: its own A box, its own B chunks and the B chunks multicast by
//   the other CTA of the cluster. Consumers wait parity (it / S) & 1.
//   empty[stage]: one arrival per consumer warp of every CTA of the cluster (CM·NCW·4): a
//   producer may overwrite stage s only when every CTA that its multicast writes into is done
//   with it. The producer waits parity ((it / S) & 1) ^ 1 (passes at once on the first trip).
//   A peer's multicast bytes for fill n+1 can reach a CTA before its own producer's expect_tx
//   for that fill; the tx-count goes negative meanwhile, and the phase cannot complete before
//   the local arrival, so this is safe (fill n has completed locally: the peer waited for our
//   consumers to release it, and they did so only after our full[s] phase n had completed).
// Epilogue (TmaEpilogue): each consumer warp stores its 16 rows through its two shared-memory
//   boxes and TMA (reduce-add with beta = 1); with beta 0 or 1 during the next tile's first
//   k-steps, else right after the K loop, old C having come in through the same boxes during
//   the first k-steps (OldC: TMA load, ldmatrix). No named barriers; the consumers go back to
//   the main loop of the next tile, whose first stages are already loaded.
// ---------------------------------------------------------------------------------------------
template <int NCW, int BN, int STAGES, int CM>
__global__ void __launch_bounds__(Cfg<NCW, BN, STAGES, CM>::kThreads, 1)
gemm_ws(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
        const __grid_constant__ CUtensorMap tmC, int M, int N, int K, float alpha, float beta, int sk_tiles) {
    using G = Cfg<NCW, BN, STAGES, CM>;
    constexpr int BM = G::BM;
    extern __shared__ __align__(16) unsigned char smem_raw[];

    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;  // same offset in every CTA (same kernel)
    const uint32_t sA = base;
    const uint32_t sB = base + STAGES * G::kABytes;
    const uint32_t epi = base + G::kPipeBytes;  // kEpiWarpBytes per consumer warp
    const uint32_t full_bar = epi + G::kEpiBytes;
    const uint32_t empty_bar = full_bar + STAGES * 8;
    const uint32_t c_bar = empty_bar + STAGES * 8;  // one per consumer warp: its old-C loads

    const int tid = threadIdx.x;
    const int wg = tid / 128;
    const int wtid = tid % 128;
    const int warp = wtid / 32;        // warp within the warpgroup
    const int lane = tid % 32;

    const int tiles_m = (M + BM - 1) / BM;
    const int tiles_n = (N + BN - 1) / BN;
    const int super_m = (tiles_m + CM - 1) / CM;
    const int total = super_m * tiles_n;
    const int num_k = (K + kBK - 1) / kBK;  // last k-tile zero-filled past K by TMA
    const uint32_t rank = (CM > 1) ? cluster_ctarank() : 0u;
    const int first_t = blockIdx.x / CM;  // cluster id (clusters are consecutive block ids)
    const int stride_t = gridDim.x / CM;  // number of clusters (grid is a multiple of CM)
    // beta == 1: C += alpha·AB through reduce-add stores; other betas: old C read (OldC).
    const bool add_c = GEMM_REDUCE_C && beta == 1.0f;
    const bool read_c = beta != 0.0f && !add_c;

    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full_bar + 8 * s, 1);
            mbar_init(empty_bar + 8 * s, G::kEmptyArrivals);
        }
        for (int w = 0; w < NCW * 4; ++w) mbar_init(c_bar + 8 * w, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // Barriers initialised before anyone (peer CTAs included) can arrive on them.
    if constexpr (CM > 1) cluster_sync_all();
    else __syncthreads();

    if (wg == 0) {
        // ------------------------------ producer ------------------------------
        setmaxnreg_dec<kProducerRegs>();
        if (warp == 0) {
            if (lane == 0) {
                prefetch_tensormap(&tmA);
                prefetch_tensormap(&tmB);
            }
            uint32_t it = 0;  // used by lane 0 only
            WorkList work(first_t, stride_t, total, sk_tiles, num_k);
            int t, kb, ke;
            for (int j = 0; work.next(t, kb, ke); ++j) {
                int sm, tn;
                super_coords<CM>(t, super_m, tiles_n, sm, tn);
                const int m0 = (sm * CM + static_cast<int>(rank)) * BM;
                const int n0 = tn * BN;
                // Odd tiles walk K backwards: every CTA is on about the same tile, so the k-tiles a
                // wave reads first are the ones the previous wave read last, still in L2.
                const bool rev = GEMM_K_SERPENTINE && (j & 1);
                auto issue = [&](int kt) {
                    const uint32_t s = it % STAGES;
                    mbar_wait(empty_bar + 8 * s, ((it / STAGES) & 1) ^ 1);
                    const uint32_t fb = full_bar + 8 * s;
                    mbar_arrive_expect_tx(fb, G::kStageBytes);
                    const int kc = (rev ? ke - 1 - kt : kb + kt) * kBK;
                    tma_load_2d(sA + s * G::kABytes, &tmA, fb, kc, m0);
#pragma unroll
                    for (int c = 0; c < G::kBChunks; ++c) {
                        if constexpr (CM == 1) {
                            tma_load_2d(sB + s * G::kBBytes + c * G::kBChunk, &tmB, fb, n0 + 64 * c, kc);
                        } else {
                            if (c % CM == static_cast<int>(rank))
                                tma_load_2d_mc(sB + s * G::kBBytes + c * G::kBChunk, &tmB, fb,
                                               n0 + 64 * c, kc, (uint16_t)((1u << CM) - 1u));
                        }
                    }
                    ++it;
                };
                if (lane == 0)
                    for (int kt = 0; kt < ke - kb; ++kt) issue(kt);
                __syncwarp();
            }
        }
    } else {
        // ------------------------------ consumers ------------------------------
        setmaxnreg_inc<kConsumerRegs>();
        const int cw = wg - 1;  // rows cw*64 .. cw*64+63 of the tile
        // Hand stage s back to every producer of the cluster (one arrival per warp).
        auto release = [&](uint32_t s) {
            if (lane == 0) {
                if constexpr (CM == 1) {
                    mbar_arrive(empty_bar + 8 * s);
                } else {
#pragma unroll
                    for (int q = 0; q < CM; ++q)
                        mbar_arrive_cluster(mapa_shared(empty_bar + 8 * s, static_cast<uint32_t>(q)));
                }
            }
        };
        uint32_t it = 0;
        // The tile loop, compiled with and without old-C loads (MAY_READ: beta other than 0 or 1).
        auto tiles = [&](auto may_read) {
            constexpr bool RC = decltype(may_read)::value;
            TmaEpilogue<BN, RC> frag(&tmC, warp, read_c, add_c, epi + (cw * 4 + warp) * kEpiWarpBytes,
                                     c_bar + 8 * (cw * 4 + warp));
            WorkList work(first_t, stride_t, total, sk_tiles, num_k);
            int t, kb, ke;
            while (work.next(t, kb, ke)) {
                int sm, tn;
                super_coords<CM>(t, super_m, tiles_n, sm, tn);
                const int m0 = (sm * CM + static_cast<int>(rank)) * BM;
                const int n0 = tn * BN;

                frag.begin(m0 + cw * 64, n0);
                float acc[BN / 2];
                consume_k<BN, STAGES, G::kABytes, G::kBBytes, G::kBChunk, true>(acc, it, ke - kb, sA, sB,
                                                                               full_bar, cw, frag, release);
                if constexpr (RC || !GEMM_DEFER_STORES) frag.store(acc, alpha, beta);
                else frag.pack(acc, alpha, beta);  // stored during the next tile's first k-steps
            }
            frag.flush();  // the last tile's stores (nothing when they were stored already)
            frag.drain();  // the C stores complete before the CTA ends
        };
        if (read_c) tiles(Flag<true>{});
        else tiles(Flag<false>{});
    }
    // No CTA may leave while a peer can still arrive on its barriers or multicast into it.
    if constexpr (CM > 1) cluster_sync_all();
}


// ---------------------------------------------------------------------------------------------
// Fallback: any shape and alignment. CUDA cores, 64×64 block tile, 16×16 threads, 4×4 outputs per
// thread (rows ty+16i, columns tx+16j), K in steps of 16, every global access bounds-checked.
// ---------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(256)
gemm_fallback(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
              int M, int N, int K, float alpha, float beta) {
    __shared__ float As[16][64 + 1];  // As[k][m]
    __shared__ float Bs[16][64 + 1];  // Bs[k][n]
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[4][4] = {};

    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 64 * 16; i += 256) {
            const int ar = i / 16, ak = i % 16;  // A tile: 64 rows × 16 k
            const int gm = m0 + ar, gk = k0 + ak;
            As[ak][ar] = (gm < M && gk < K) ? __half2float(A[static_cast<size_t>(gm) * K + gk]) : 0.0f;
            const int bk = i / 64, bn = i % 64;  // B tile: 16 k × 64 columns
            const int gk2 = k0 + bk, gn = n0 + bn;
            Bs[bk][bn] = (gk2 < K && gn < N) ? __half2float(B[static_cast<size_t>(gk2) * N + gn]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int row = m0 + ty + 16 * i;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int col = n0 + tx + 16 * j;
            if (col >= N) continue;
            const size_t off = static_cast<size_t>(row) * N + col;
            float v = alpha * acc[i][j];
            if (beta != 0.0f) v += beta * __half2float(C[off]);
            C[off] = __float2half_rn(v);
        }
    }
}


// ---------------------------------------------------------------------------------------------
// Host side: driver entry point, tensor-map cache, launch.
// ---------------------------------------------------------------------------------------------
// cuTensorMapEncodeTiled lives in the driver (libcuda): reached through the runtime's entry-point
// query, so the .so needs no -lcuda. The ByVersion form: plain cudaGetDriverEntryPoint is
// deprecated in CUDA 13 (a compile warning).
PFN_cuTensorMapEncodeTiled_v12000 get_encode_fn() {
    static bool tried = false;
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (!tried) {
        tried = true;
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }
    return fn;
}

// Row-major fp16 matrix rows × cols, box = box_rows × 64 columns (128 bytes), 128B swizzle,
// zero fill out of bounds. Cached by (pointer, shape, box).
struct MapEntry {
    CUtensorMap map;  // 64-byte aligned member (CUtensorMap is declared alignas(64))
    const void* ptr;
    uint64_t rows, cols;
    uint32_t box_rows;
    bool used;
};
constexpr int kMapCache = 16;
MapEntry g_maps[kMapCache];
int g_map_next = 0;

bool get_tensor_map(const half* ptr, uint64_t rows, uint64_t cols, uint32_t box_rows, CUtensorMap* out) {
    for (int i = 0; i < kMapCache; ++i) {
        const MapEntry& e = g_maps[i];
        if (e.used && e.ptr == ptr && e.rows == rows && e.cols == cols && e.box_rows == box_rows) {
            *out = e.map;
            return true;
        }
    }
    PFN_cuTensorMapEncodeTiled_v12000 encode = get_encode_fn();
    if (!encode) return false;
    MapEntry& e = g_maps[g_map_next];
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {cols * sizeof(half)};
    const cuuint32_t box[2] = {64, box_rows};
    const cuuint32_t estr[2] = {1, 1};
    const CUresult r = encode(&e.map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<half*>(ptr), dims,
                              strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        e.used = false;
        return false;
    }
    e.ptr = ptr;
    e.rows = rows;
    e.cols = cols;
    e.box_rows = box_rows;
    e.used = true;
    g_map_next = (g_map_next + 1) % kMapCache;
    *out = e.map;
    return true;
}


int num_sms() {
    static int n = 0;
    if (n == 0) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0)
            n = 132;
    }
    return n;
}


// A launch of `ctas` CTAs in clusters of `cm` along x on the default stream. Not copyable: cfg
// points at attr.
struct ClusterLaunch {
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg;
    ClusterLaunch(int ctas, int threads, int smem, int cm) : attr{}, cfg{} {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = static_cast<unsigned>(cm);
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(static_cast<unsigned>(ctas));
        cfg.blockDim = dim3(static_cast<unsigned>(threads));
        cfg.dynamicSmemBytes = static_cast<size_t>(smem);
        cfg.stream = 0;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    ClusterLaunch(const ClusterLaunch&) = delete;
    ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// Raises the kernel's dynamic shared-memory limit and returns how many clusters of `cm` CTAs
// can be resident at once (every SM when cm == 1); 0 if the kernel cannot be set up.
template <class Kernel>
int max_clusters(Kernel kernel, int threads, int smem, int cm) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    if (cm == 1) return num_sms();
    ClusterLaunch l(cm * num_sms(), threads, smem, cm);
    int c = 0;
    if (cudaOccupancyMaxActiveClusters(&c, kernel, &l.cfg) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return c > 0 ? c : 0;
}

// Launches kernel(args...) in clusters; false (the error cleared, so the caller's fallback
// launch reports clean) if the launch was refused.
template <class Kernel, class... Args>
bool launch_clusters(Kernel kernel, int ctas, int threads, int smem, int cm, Args... args) {
    ClusterLaunch l(ctas, threads, smem, cm);
    if (cudaLaunchKernelEx(&l.cfg, kernel, args...) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return true;
}

// How many clusters of CM CTAs of this kernel can be resident at once (1 CTA per SM: the stage
// ring takes most of the shared memory). Asked once.
template <int NCW, int BN, int STAGES, int CM>
int resident_clusters() {
    using G = Cfg<NCW, BN, STAGES, CM>;
    static const int n = max_clusters(gemm_ws<NCW, BN, STAGES, CM>, G::kThreads, G::kSmemBytes, CM);
    return n;
}

// Launch `ctas` CTAs (a multiple of CM, each cluster persistent over its super tiles).
template <int NCW, int BN, int STAGES, int CM>
bool launch_ws(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta,
               int ctas, int sk_tiles) {
    using G = Cfg<NCW, BN, STAGES, CM>;
    CUtensorMap ta, tb;
    CUtensorMap tc;
    if (!get_tensor_map(A, M, K, G::BM, &ta)) return false;  // A: M×K, box BM × 64
    if (!get_tensor_map(B, K, N, kBK, &tb)) return false;    // B: K×N, box 64 × 64
    if (!get_tensor_map(C, M, N, 16, &tc)) return false;     // C: M×N, box 16 × 64 (a warp's store)
    if (CM == 1) {
        gemm_ws<NCW, BN, STAGES, CM>
            <<<ctas, G::kThreads, G::kSmemBytes>>>(ta, tb, tc, M, N, K, alpha, beta, sk_tiles);
        return true;
    }
    return launch_clusters(gemm_ws<NCW, BN, STAGES, CM>, ctas, G::kThreads, G::kSmemBytes, CM, ta, tb, tc,
                           M, N, K, alpha, beta, sk_tiles);
}

// Picks clusters or not for one tile configuration and launches it. A cluster of 2 is used
// when the tile rows pair up evenly and the resident clusters cover the work in no more
// rounds than single CTAs on every SM would.
template <int NCW, int BN, int STAGES, int CMWANT>
bool launch_cfg(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    constexpr int BM = 64 * NCW;
    const long long tiles_m = (M + BM - 1) / BM;
    const long long tiles = tiles_m * ((N + BN - 1) / BN);
    const long long sms = num_sms();
    if constexpr (CMWANT == 2) {
        if (tiles_m % 2 == 0) {
            const long long maxc = resident_clusters<NCW, BN, STAGES, 2>();
            const long long super = tiles / 2;
            if (maxc > 0 && (super + maxc - 1) / maxc <= (tiles + sms - 1) / sms) {
                const long long clusters = super < maxc ? super : maxc;
                if (launch_ws<NCW, BN, STAGES, 2>(A, B, C, M, N, K, alpha, beta,
                                                  static_cast<int>(2 * clusters), 0))
                    return true;
            }
        }
    }
    if (resident_clusters<NCW, BN, STAGES, 1>() <= 0) return false;
    const long long ctas = tiles < sms ? tiles : sms;
    // Stream-K tail (beta == 1, where pieces can be reduce-added): the partial last wave's tiles
    // are shared out by k-tiles over every CTA (WorkList). Each CTA gets at least half a tile's
    // k-tiles (a thin tail takes the last full wave in with it), so a tile is cut into at most 3
    // pieces: every reduce-add rounds C's running fp16 sum once more (run 50: 64 one-k-tile
    // pieces of a 64×64×4096 tile ended 0.056 off).
    long long sk = 0;
    const long long rem = tiles % ctas;
    if (GEMM_STREAMK && GEMM_REDUCE_C && beta == 1.0f && rem != 0) {
        if (2 * rem >= ctas) sk = rem;
        else if (tiles >= rem + ctas) sk = rem + ctas;
    }
    return launch_ws<NCW, BN, STAGES, 1>(A, B, C, M, N, K, alpha, beta, static_cast<int>(ctas),
                                         static_cast<int>(sk));
}

}  // namespace

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    // TMA: global strides (K*2 for A, N*2 for B) must be multiples of 16 bytes and the base
    // addresses 16-byte aligned; the epilogue's half2 accesses and C prefetch need N % 8 == 0
    // and a 16-byte aligned C.
    const bool tma_ok = K > 0 && K % 8 == 0 && N % 8 == 0 &&
                        (reinterpret_cast<uintptr_t>(A) & 15) == 0 &&
                        (reinterpret_cast<uintptr_t>(B) & 15) == 0 &&
                        (reinterpret_cast<uintptr_t>(C) & 15) == 0;
    bool launched = false;
    if (tma_ok) {
        const long long big_tiles = static_cast<long long>((M + 127) / 128) * ((N + 255) / 256);
        if (big_tiles * 4 >= 3LL * num_sms())
            launched = launch_cfg<2, 256, GEMM_BIG_STAGES, GEMM_BIG_CLUSTER>(A, B, C, M, N, K, alpha, beta);
        else
            launched = launch_cfg<1, 128, GEMM_SMALL_STAGES, GEMM_SMALL_CLUSTER>(A, B, C, M, N, K, alpha, beta);
    }
    if (!launched) {
        const dim3 grid((N + 63) / 64, (M + 63) / 64);
        gemm_fallback<<<grid, 256>>>(A, B, C, M, N, K, alpha, beta);
    }
}
