// 12_best — one file for every judge GPU and every shape: Hopper wgmma/TMA kernels picked by shape (persistent 128×256 tiles with a stream-K tail, B-multicast clusters between 1 and 2 waves, split-K for small C, TMA reduce-add stores), padded copies for A and B rows TMA cannot describe, one cp.async-ring mma.sync launch for small such shapes; mma.sync on T4/A100/B200
//
// Technique: 11's warp-specialized Hopper kernel behind a shape dispatch: 128×256 tiles when
//   they make ≥ 3/4 of a wave (beta = 1: the partial last wave shared out by stream-K); one wave
//   of 128×128 tiles or less: split-K pairs, two CTAs on one tile over half of K each (a serial
//   split over up to 16 CTAs for one tile, or ≤ 8 whose C TMA cannot store); else 64×128 tiles
//   (one k-tile and a C TMA cannot store: 128×256 where 64×128 would take 3 rounds of the SMs).
//   Rows TMA cannot describe (K or N not a multiple of 8, a misaligned pointer): one launch of
//   gemm_ring, mma.sync fed by a 4-stage cp.async ring of the widest copies the rows allow, on
//   32×32 tiles where C has ≤ 1.5 64×64 tiles an SM or K ≤ 64, else 64×64 (K split from 8
//   k-steps), to 0.11 GFLOP, to 0.5 for one wave of unsplit tiles or ≤ 28 tiles, for N ≤ 48 and
//   even K ≥ 1500 (A, all the bytes, read in place); else the rows are copied into a padded
//   workspace, the GEMM a programmatic dependent launch after. The ring's odd-N C, where K ≤ 64
//   and M·N ≥ 2^19 (the stores outweigh the k-loop), goes out a row at a time in aligned words.
// Changed from 11, and why it is faster: the big kernel is 11's (4096³ within 1%); the gain is:
//   - 1024³: split-K pairs, 128 CTAs of 2 consumer warpgroups on 128×128 tiles (2/3 of the L2→SM
//     bytes per MMA of 11's 64×128): 0.0124 ms against 0.0127;
//   - the padded copies put odd shapes on the tensor cores: 4095³ 0.2396 ms against 11's
//     6.8072 (its CUDA-core fallback), 4096×17×4096 0.0297 against 0.4679; M ≤ 64 gets
//     stream-K over 64×128 tiles: 17×4096×4096 0.0171 ms against 0.0247;
//   - small odd shapes: one launch, not copy, GEMM and fold (~4 µs each), a short K's copies all
//     in flight at once; few tiles: 32×32, 4× the CTAs, each a quarter of a call's chain;
//   - beta = 1 stores are TMA reduce-adds (old C never enters the SM), and where N is odd bulk
//     reduce-adds of C's rows, zeros around them (no fold pass; the pair then, not the serial
//     split: ~7 µs of kernel against ~13); a tile's stores overlap the next tile's k-steps.
// Paths by judge GPU: Hopper kernels only under __CUDA_ARCH_FEAT_SM90_ALL; T4, A100, B200 run
//   an mma.sync path (09's kernel from sm_80, m16n8k8 on sm_75), odd shapes gemm_ring (T4: on a
//   register double buffer, no cp.async) or the padded copies. B200: compiled, not measured.
// Prediction (before measuring): 1024³ ≈ 0.011 ms (≈ 0.7× cuBLAS's time), 4096³ ≈ cuBLAS,
//   4095³ ≈ 0.24 ms (~50 µs of it padded copies); T4 path ≈ 0.43 ms at 4096³, A100 path = 09;
//   the ring faster than the register double buffer and, to ~1 GFLOP, the padded path; 32×32
//   tiles faster than 64×64 where C has few; one round of 128×256 faster than three of 64×128;
//   row stores 0.90–0.95× the fragment stores at 1571×821×18, 1752×307×48.
// Measured (H200, yardsticks alternated in one process): 1024³ 0.0124 ms (0.66× cuBLAS), 4096³
//   0.2022 (0.93×); 4096³, 8192³ 0.95×, 0.96× cuBLASLt's best; the 17 fixed shapes under cuBLAS. As
//   PTX: T4 path 4096³ 0.4501 ms, A100 path 0.3406 (09's 0.3392). Ring against padded copies past
//   0.11 GFLOP: 0.75–0.95× where it runs, 1.1–2.2× on many tiles; 32×32 tiles 0.71–0.94× to 1.5
//   tiles an SM. Odd N, rows reduce-added: 0.80× over 106 shapes; one k-tile on 128×256 past 2
//   rounds 0.90–0.91× (10 shapes). Row stores (H100): 0.92×, 0.96× there, 26 other ring shapes
//   within noise. Random (seeds 1–3, H100): 0.66–0.67× cuBLAS (worst 0.97×), 0.72–0.74× Lt.
// Tiles (each a macro at the top): big 128×256×64 × 4 stages, 1 producer + 2 consumer warpgroups,
//   clusters of 2 from 1 to 2 waves; split-K 128×128×64 × 4, 1 + 2; small 64×128×64 × 8, 1 + 1,
//   stream-K at M ≤ 64, beta = 1; ring 64×64 or 32×32 × BK 32, 4 warps; mma path 09's; CUDA-core 64².
// Targets: sm_75 sm_80 sm_90a sm_100a
// Judge GPUs: T4 A100 H100 H200 B200
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>
#include <climits>
#include <cstdio>

// Compile-time variants (the defaults are what gets submitted):
#ifndef GEMM_BIG_STAGES
#define GEMM_BIG_STAGES 4      // 128×256×64 stages are 48 KB: 4 is the most that fits
#endif
#ifndef GEMM_BIG_CLUSTER
#define GEMM_BIG_CLUSTER 1     // 2: clusters with B multicast (runs 9-10: as fast; not run with runs 43-50's code)
#endif
#ifndef GEMM_REDUCE_C
#define GEMM_REDUCE_C 1        // beta == 1: C += alpha·AB by TMA reduce-add stores, old C never loaded
#endif
#ifndef GEMM_K_SERPENTINE
#define GEMM_K_SERPENTINE 1    // a CTA's odd tiles walk K backwards (their first k-tiles are still in L2)
#endif
#ifndef GEMM_SPLIT_REDUCE
#define GEMM_SPLIT_REDUCE 1    // split-K with beta == 1: both halves reduce-add into C, no exchange
#endif
#ifndef GEMM_DEFER_STORES
#define GEMM_DEFER_STORES 1    // beta 0 or 1: a tile's C stores run during the next tile's first k-steps
#endif
#ifndef GEMM_STREAMK
#define GEMM_STREAMK 1         // beta == 1: the partial last wave's tiles split by k-tiles over all CTAs
#endif
#ifndef GEMM_SPLIT_PLAIN
#define GEMM_SPLIT_PLAIN 1     // ... and then a plain launch, no cluster
#endif
#ifndef GEMM_SMALL_STAGES
#define GEMM_SMALL_STAGES 8    // 64×128×64 stages are 24 KB
#endif
#ifndef GEMM_SMALL_CLUSTER
#define GEMM_SMALL_CLUSTER 1   // 2: measured 0.0223 vs 0.0154 ms at 1024³ (run 3)
#endif
#ifndef GEMM_SPLITK
#define GEMM_SPLITK 1          // C of one wave of 128×128 tiles or less: K split over 2-CTA clusters
#endif
#ifndef GEMM_DIRECT_C
#define GEMM_DIRECT_C 1        // C with odd N (or misaligned) and beta = 0: the epilogue stores it itself;
                               // 0 (and always with beta != 0): through a padded copy folded in after
                               // (run 67: fp16 reductions from the epilogue instead of the fold, beta = 1,
                               // ran 4095³ 1.66× the folded time)
#endif
#ifndef GEMM_ROWS_ADD
#define GEMM_ROWS_ADD 1        // C with odd N, beta = 1, 128×256 tiles, C 16-byte aligned: each staged row
                               // reduce-added by a 1D bulk copy over the 16-byte units it touches (zeros
                               // added to the neighbours' values): no padded C, no fold
#endif
#ifndef GEMM_CW_KEEP_L2
#define GEMM_CW_KEEP_L2 1      // the padded C (odd N, folded in after) stored with an L2 evict_last hint, so
                               // fold_c reads it from L2 (and lets it go: evict-first loads)
#endif
#ifndef GEMM_FEW_WAVE_CLUSTER
#define GEMM_FEW_WAVE_CLUSTER 1 // beta = 1, 128×256 tiles over 1 and under 2 waves: clusters of 2 with B
                                // multicast and the stream-K tail over clusters (run 67, 3000×2000×1000:
                                // 0.848× the time without clusters; clusters without the tail 0.929×;
                                // run 68, 2048³ (one wave, no tail) 1.020× with clusters)
#endif
#ifndef GEMM_CLUSTER_STREAMK
#define GEMM_CLUSTER_STREAMK 1 // clusters of 2 with beta = 1: the stream-K tail over clusters too
#endif
#ifndef GEMM_FORCE_MMA
#define GEMM_FORCE_MMA 0       // 1: the mma path on sm_90a too (to check it under compute-sanitizer,
                               // which runs the judged build: SASS of --gpu T4/A100 cannot run here)
#endif
#ifndef GEMM_TINY_TILES
#define GEMM_TINY_TILES 4      // the tiny CUDA-core split-K path: C of at most this many 64×64 tiles
#endif
#ifndef GEMM_TINY_MIN_K
#define GEMM_TINY_MIN_K 32     // ... each piece at least this much of K (run 61: a piece's time grows with
                               // its k-steps; 31×47×4096 0.0149–0.0153 ms at 32, 0.0178–0.0185 at 64)
#endif
#ifndef GEMM_TINY_MAX_SPLIT
#define GEMM_TINY_MAX_SPLIT 128  // ... and at most this many pieces a tile
#endif
#ifndef GEMM_TINY_ALIGNED
#define GEMM_TINY_ALIGNED 0    // 1: also when TMA could describe the operands
#endif
#ifndef GEMM_ANY_FLOPS
#define GEMM_ANY_FLOPS 1.1e8   // operands TMA cannot describe, 2·M·N·K at most this: one launch of
                               // gemm_ring (gemm_any on sm_75) instead of padded copies around the
                               // tensor-core kernels
#endif
#ifndef GEMM_ANY_BK
#define GEMM_ANY_BK 0          // gemm_any's k-step: 32, 64, or 0 (64 when a K piece has 4 32-wide steps or more)
#endif
#ifndef GEMM_ANY_MIN_KT
#define GEMM_ANY_MIN_KT 2      // gemm_any's (sm_75) K pieces: at least this many 32-wide k-steps each ...
#endif
#ifndef GEMM_ANY_STAGES
#define GEMM_ANY_STAGES 4      // gemm_ring's cp.async stages of 32-wide k-steps (sm_80+; below 3: gemm_any)
#endif
#ifndef GEMM_RING_MIN_BLOCKS
#define GEMM_RING_MIN_BLOCKS 3 // ... CTAs an SM its registers allow (142 a thread: 3; 4 spills 52 bytes)
#endif
#ifndef GEMM_RING_MIN_KT
#define GEMM_RING_MIN_KT 2     // gemm_ring's K pieces: at least this many k-steps each ... (run 116: 8 and 4
                               // lost to gemm_any's 2 on few tiles with a long K: more CTAs win there)
#endif
#ifndef GEMM_RING_ONE_KT
#define GEMM_RING_ONE_KT 1     // ... but one k-step each where all those pieces still get an SM each (tiles ×
                               // k-steps <= SMs): 143x95x287 0.85x the time of 3-step pieces; over a wave
#endif                         // of them they lost (416x182x300: 1.14x)
#ifndef GEMM_RING_SPLIT_KT
#define GEMM_RING_SPLIT_KT 8   // ... and K is split only from this many k-steps (run 116: under 8, one piece
                               // whose copies are all in flight beat pieces that pay the split's round trips)
#endif
#ifndef GEMM_RING_MORE_FLOPS
#define GEMM_RING_MORE_FLOPS 5e8 // gemm_ring past GEMM_ANY_FLOPS up to this, for one wave of unsplit tiles
                               // (under GEMM_RING_SPLIT_KT k-steps) or at most GEMM_RING_FEW_TILES tiles
#endif                         // (run 121: 0.75-0.95x the padded path's time there, 1.0-1.09x at 24-25
                               // tiles, 1.1-1.9x on more tiles split or over a wave)
#ifndef GEMM_RING_FEW_TILES
#define GEMM_RING_FEW_TILES 28
#endif
#ifndef GEMM_RING_TALL_N
#define GEMM_RING_TALL_N 48    // gemm_ring on 64×64 tiles (one column of them) for C this narrow, any size,
#endif                         // where A's rows TMA cannot describe but cp.async can (K even, off 8) ...
#ifndef GEMM_RING_TALL_K
#define GEMM_RING_TALL_K 1500  // ... and K this long: A read in place once, not copied first (run 145:
#endif                         // 0.86-1.00x the padded path on 7 such shapes, K 1754-3654; odd K, whose
                               // A goes 2 bytes at a time, 1.18-1.69x; even K 1166 and 1390 1.20x, 1.05x)
#ifndef GEMM_RING_SMALL_WAVES
#define GEMM_RING_SMALL_WAVES 1.5 // gemm_ring on 32×32 tiles where C has at most this many 64×64 tiles an SM
#endif                            // (run 136: 0.71-0.94x the 64×64 ring to 192 tiles; 1.00-1.01x at 225-256)
#ifndef GEMM_RING_SMALL_KT
#define GEMM_RING_SMALL_KT 2   // ... or whatever the tiles where K is at most this many k-steps (run 139:
#endif                         // 0.89-1.03x, 0.96x over 11 shapes of 225-384 tiles; 1571×821×18 0.91x)
#ifndef GEMM_ANY_CTAS_PER_SM
#define GEMM_ANY_CTAS_PER_SM 2 // ... and pieces enough for this many CTAs an SM (at most 32 a tile)
#endif
#ifndef GEMM_RING_TALL_CTAS
#define GEMM_RING_TALL_CTAS 3  // ... but this many for the tall case (run 164: 0.84-0.98x against 2 on 5
#endif                         // tall shapes, 3500×26×3998 0.84x; 4: 1.07-1.18x)
#ifndef GEMM_RING_SMALL_CTAS
#define GEMM_RING_SMALL_CTAS 2 // ... times this for the ring's 32×32 tiles (run 137: 1576×37×2936 0.68x
#endif                         // against 1, 0.96x over 22 split shapes; 4: 0.97x)
#ifndef GEMM_RING_ROWS_N
#define GEMM_RING_ROWS_N 64    // gemm_ring with odd N (or C not 4-byte aligned) and N at least this: C staged
#endif                         // through shared memory and stored a row at a time in aligned words (0: never)
#ifndef GEMM_RING_ROWS_K
#define GEMM_RING_ROWS_K 64    // ... where C's stores outweigh the k-loop: K at most this and M·N at least
#endif                         // GEMM_RING_ROWS_MN (ungated, run 220: 1.06–1.13× slower on 20 smaller or
#ifndef GEMM_RING_ROWS_MN      // deeper shapes; gated, run 245: 1571×821×18 0.92×, 26 others within noise)
#define GEMM_RING_ROWS_MN 524288
#endif
#ifndef GEMM_ANY_PAIRS
#define GEMM_ANY_PAIRS 1       // gemm_ring / gemm_any epilogue: half2 C accesses when N is even (v2 reds on sm_90)
#endif
#ifndef GEMM_SKINNY_STREAMK
#define GEMM_SKINNY_STREAMK 1  // M ≤ 64, beta = 1: 64×128 tiles, stream-K over up to 3 CTAs a tile (run 56:
                               // 17×4096×4096 0.0180 ms against 0.0319 serial, 0.0258 as a pair)
#endif
#ifndef GEMM_PDL
#define GEMM_PDL 1             // the Hopper kernels after pad_copy, and fold_c after them: programmatic
                               // dependent launches (the launch gap hidden)
#endif
#ifndef GEMM_SPLIT_STAGES
#define GEMM_SPLIT_STAGES 4    // 128×128×64 stages are 32 KB (6 fit beside the exchange buffer)
#endif

// Inspection hooks: lab/probes/probe_trace.cu defines these before including this file, to time a
// call's phases per CTA (cycles waiting on barriers, in the K loop, in the epilogue). Here they
// compile to nothing.
#ifndef GEMM_TRACE_SET
#define GEMM_TRACE_SET(slot) ((void)0)
#define GEMM_TRACE_ADD(slot, cycles) ((void)(cycles))
#define GEMM_TRACE_CLOCK() 0ll
#endif
// probe_trace's diagnostic build defines this to skip the big kernel's loads after each tile's
// first stages (wrong results by design: it times the K loop without data movement).
#ifndef GEMM_TRACE_NO_LOAD
#define GEMM_TRACE_NO_LOAD(kt) false
#endif
// ... and this one to have the big kernel's m64n256k16 read its B stage as K-major (no transpose;
// wrong results by design: it times the wgmma without the transposed-B operand path).
#ifndef GEMM_TRACE_B_KMAJOR
#define GEMM_TRACE_B_KMAJOR 0
#endif
#if GEMM_TRACE_B_KMAJOR
#define GEMM_N256_TRANS_B "0"
#else
#define GEMM_N256_TRANS_B "1"
#endif


// The Hopper kernels' bodies exist only where the target has sm_90a's features (wgmma, TMA,
// setmaxnreg, clusters): elsewhere (sm_75, sm_80, sm_100a, plain sm_90) they compile to empty
// bodies that solve never launches (it asks kDevHasSm90a first). The host pass sees everything.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_SM90A_DEVICE 0
#else
#define GEMM_SM90A_DEVICE 1
#endif

namespace {

// Programmatic dependent launch (sm_90+): the kernel before lets the next one be scheduled
// (launch_dependents), and the next one waits for the first's completion and memory before
// reading what it wrote (wait; a no-op when the kernel was launched without the attribute).
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void grid_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

constexpr int kBK = 64;        // 64 halves = 128 bytes: one row of the 128-byte swizzle atom
constexpr int kGroupM = 16;    // grouped tile order: 16 M-tiles (16 / CM clusters) per sweep over N
constexpr int kEpiWarpBytes = 2 * 16 * 128;  // epilogue: two 16-row × 64-column fp16 boxes per warp
[[maybe_unused]] constexpr int kOldCGap = 4;  // k-steps between an old-C round's loads and its reads (2: the same, run 39)
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
    static constexpr int kEmptyArrivals = CM * NCW * 4;  // every consumer warp of the cluster
    static_assert(kEmptyArrivals <= 16, "one empty-barrier arrival per consumer warp of the cluster");
    static_assert(NCW == 1 || NCW == 2, "one or two consumer warpgroups");
    static_assert(BN == 128 || BN == 256, "wgmma wrappers exist for n128 and n256");
    static_assert(CM == 1 || CM == 2, "clusters of 1 or 2 CTAs along M");
    static_assert(kBChunks % CM == 0, "B chunks split evenly over the cluster");
    static_assert(kGroupM % CM == 0, "grouped order in whole clusters");
    static_assert(kABytes % 1024 == 0 && kBChunk % 1024 == 0,
                  "every tile must start on a 1024-byte swizzle-pattern boundary");
    static_assert(kSmemBytes <= 227 * 1024, "227 KB dynamic shared memory per block");
    static_assert((kConsumerRegs * NCW + kProducerRegs) * 128 <= 65536, "register file");
    // setmaxnreg.inc only takes registers other warps of the CTA gave back: the warpgroups' sum
    // must fit in what the launch allocated, (65536 / threads) rounded down to 8 a thread
    // (run 78: a producer at 48 with consumers at 232 hung every 384-thread kernel).
    static_assert(kConsumerRegs * NCW + kProducerRegs <= (NCW + 1) * ((65536 / kThreads) & ~7),
                  "setmaxnreg budget within the launch's registers");
};


// How an epilogue stores C: TMA (tensor maps), value by value (odd N, beta = 0), or rows reduce-added
// by 1D bulk copies (odd N, beta = 1). Each its own kernel instantiation (registers: see gemm_ws).
constexpr int kStoreTma = 0, kStoreValues = 1, kStoreRows = 2;

#if GEMM_SM90A_DEVICE  // the device helpers below: sm_90a only
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

// Wait until the phase with the given parity has completed. CLUSTER: acquire at cluster scope,
// for a phase completed by another CTA's stores (st.async into this CTA).
template <bool CLUSTER = false>
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do {
        if constexpr (CLUSTER)
            asm volatile(
                "{\n.reg .pred p;\n"
                "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                "selp.u32 %0, 1, 0, p;\n}\n"
                : "=r"(done)
                : "r"(bar), "r"(parity)
                : "memory");
        else
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
        "}, %128, %129, p, 1, 1, 0, " GEMM_N256_TRANS_B ";\n}\n"
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
// The same with an L2 evict_last policy (the padded C, read back by fold_c right after the GEMM).
__device__ __forceinline__ void tma_store_2d_keep(const CUtensorMap* map, uint32_t src, int c0, int c1) {
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%1, %2}], [%3], %4;" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(src), "l"(pol)
                 : "memory");
}
// The same, adding the box to what C holds (fp16 adds in L2, as atomic as each element's write).
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
// 1D bulk reduce-add of `bytes` (a multiple of 16) fp16 values at shared src into global dst (both
// 16-byte aligned), each element added atomically in L2 as the tensor form does.
__device__ __forceinline__ void bulk_reduce_add_f16(half* dst, uint32_t src, uint32_t bytes) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;" ::"l"(dst),
                 "r"(src), "r"(bytes)
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
template <int BN, bool MAY_READ, int DIRECT = kStoreTma>
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
    half* dc;                               // direct mode: C's rows TMA cannot describe (odd N)
    int ldc, dm, dn;                        // ... its row stride and extent
    float dbeta;                            // ... and beta, applied by the direct stores
    bool keep_l2;                           // C is the padded result fold_c reads next: evict_last stores

    __device__ __forceinline__ TmaEpilogue(const CUtensorMap* tmC, int warp_, bool rc, bool add,
                                           uint32_t boxes_, uint32_t cbar_)
        : Base(tmC, warp_, rc, boxes_, cbar_), out_row(0), out_col0(0), add_c(add), pending(false),
          dc(nullptr), ldc(0), dm(0), dn(0), dbeta(0.0f), keep_l2(false) {}
    // Direct mode: the warp copies each box to C itself, bounds-checked, adding beta·C (the
    // packed values are alpha·acc alone: no reduce-add, no TMA old C).
    __device__ __forceinline__ void set_direct(half* c, int ld, int m, int n, float beta) {
        dc = c;
        ldc = ld;
        dm = m;
        dn = n;
        dbeta = beta;
    }

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
    // Rows mode (direct, beta = 1; the host picks it only with C 16-byte aligned): chunk K's 16
    // rows reduce-added into C by 1D bulk copies, one a row. TMA cannot start a copy off a 16-byte
    // boundary (runs 75, 83a), and with N odd each row starts at its own offset e within a unit, so
    // each row is staged at that offset: 9 units a row (144 bytes, conflict-light: rows 4 banks
    // apart), the chunk's 64 values at e..e+63 and zeros around them, and the copy covers every
    // unit the row's values touch. Adding zeros to the neighbours' values (another tile's, the next
    // row's) leaves them as they are, however the adds interleave (each element's add is atomic);
    // only C's last unit, which may run past the allocation, is added one value at a time. The
    // staging takes both boxes' space: each copying lane waits until its copy of the chunk before
    // has read it (issued a k-step earlier).
    template <int K>
    __device__ __forceinline__ void put_rows() {
        constexpr uint32_t kPitch = 144;
        static_assert(16 * kPitch <= kEpiWarpBytes, "a chunk's 16 staged rows fit the warp's box space");
        const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
        const uint32_t st = this->boxes;
        const int col = out_col0 + 64 * K;
        const int w = min(64, dn - col);  // the chunk's columns inside C
        if (w <= 0) return;
        if (lane < 16) bulk_wait_read<0>();
        __syncwarp();
        // a row's first and last unit: zeros unless a value lands there
        const uint32_t z = st + (lane & 15) * kPitch + (lane < 16 ? 0 : 128);
        asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(z), "r"(0u) : "memory");
        __syncwarp();
        // rows g and g + 8 start at the same offset (8 rows are a multiple of 8 values apart)
        const uint32_t e = (static_cast<uint32_t>(out_row + g) * ldc + col) & 7u;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int c = 8 * j + 2 * q;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                uint32_t v = h ? out1[8 * K + j] : out0[8 * K + j];
                if (c >= w) v = 0u;
                else if (c + 1 >= w) v &= 0xffffu;  // past C's last column: add nothing
                // 2-byte stores (e may be odd); 4-byte ones where e is even made the kernel spill
                const uint32_t a = st + (g + 8 * h) * kPitch + 2 * (e + c);
                asm volatile("st.shared.u16 [%0], %1;" ::"r"(a), "h"(static_cast<unsigned short>(v)) : "memory");
                asm volatile("st.shared.u16 [%0], %1;" ::"r"(a + 2), "h"(static_cast<unsigned short>(v >> 16))
                             : "memory");
            }
        }
        fence_proxy_async();  // the staged rows, before the copy engine reads them
        __syncwarp();
        // offsets in values, 32-bit (the host takes this mode only for C under 2^31 values)
        const int row = out_row + lane;
        bool tail = false;  // this row's copy stopped short of C's last unit
        if (lane < 16 && row < dm) {
            const uint32_t last = (static_cast<uint32_t>(dm) * ldc) & ~7u;  // C's last unit may run past
            const uint32_t gi = static_cast<uint32_t>(row) * ldc + col;  // the row's first value
            const uint32_t start = gi & ~7u;
            uint32_t end = (gi + w + 7) & ~7u;
            if (end > last) {
                end = max(start, last);
                tail = true;
            }
            if (end > start) bulk_reduce_add_f16(dc + start, st + lane * kPitch, 2 * (end - start));
            bulk_commit();
        }
        if (__any_sync(0xffffffffu, tail)) {
            // C's last unit (after the last 16-byte boundary before C's end: under 8 values, all in
            // C's last row as N ≥ 8): the allocation may end inside it, so lane u adds value u alone
            const uint32_t lim = static_cast<uint32_t>(dm) * ldc, t = (lim & ~7u) + lane;
            const uint32_t gl = static_cast<uint32_t>(dm - 1) * ldc + col;  // the chunk's first value there
            if (lane < 8 && t < lim && t >= gl && t < gl + w) {
                unsigned short v;
                const uint32_t a = st + (dm - 1 - out_row) * kPitch + 2 * (t - (gl & ~7u));
                asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(a));
                asm volatile("red.global.add.noftz.f16 [%0], %1;" ::"l"(dc + t), "h"(v) : "memory");
            }
        }
    }
    // Chunk K (columns 64K..64K+63) of the packed block through box K % 2 (rows mode: put_rows).
    template <int K>
    __device__ __forceinline__ void put() {
        if (!pending) return;
        if constexpr (DIRECT == kStoreRows) {
            put_rows<K>();
            if constexpr (K == kChunks - 1) pending = false;
            return;
        }
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
        // values mode: row r of the box, columns 2·lane and 2·lane + 1, from its swizzled unit
        if constexpr (DIRECT == kStoreValues) {
            __syncwarp();  // the warp's stmatrix writes, before its lanes read them back
            const int col = out_col0 + 64 * K + 2 * lane;
#pragma unroll 1
            for (int r = 0; r < 16; ++r) {
                const int row = out_row + r;
                if (row >= dm || col >= dn) break;
                uint32_t v;
                asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(box_addr(box, r, lane / 4) + (lane % 4) * 4));
                const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&v));
                half* q = dc + static_cast<size_t>(row) * ldc + col;
                if (col + 1 < dn && (reinterpret_cast<uintptr_t>(q) & 3) == 0) {
                    float2 x = f;
                    if (dbeta != 0.0f) {
                        const float2 o = __half22float2(*reinterpret_cast<const __half2*>(q));
                        x.x += dbeta * o.x;
                        x.y += dbeta * o.y;
                    }
                    *reinterpret_cast<__half2*>(q) = __floats2half2_rn(x.x, x.y);
                } else {  // a 2-byte-aligned pair (odd row stride) or C's last column
                    q[0] = __float2half_rn(dbeta != 0.0f ? f.x + dbeta * __half2float(q[0]) : f.x);
                    if (col + 1 < dn) q[1] = __float2half_rn(dbeta != 0.0f ? f.y + dbeta * __half2float(q[1]) : f.y);
                }
            }
            __syncwarp();  // the reads, before the box is written again
        } else {
            fence_proxy_async();  // each lane's stmatrix writes, before the copy engine reads them
            __syncwarp();
            if (lane == 0) {
                if (add_c) tma_reduce_add_2d(this->map, box, out_col0 + 64 * K, out_row);
                else if (keep_l2) tma_store_2d_keep(this->map, box, out_col0 + 64 * K, out_row);
                else tma_store_2d(this->map, box, out_col0 + 64 * K, out_row);
                bulk_commit();
            }
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
        if (threadIdx.x % 32 < (DIRECT == kStoreRows ? 16 : 1)) bulk_wait_all();  // rows mode: 16 lanes copy
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
        const long long w0 = GEMM_TRACE_CLOCK();
        mbar_wait(full_bar + 8 * s, (it / STAGES) & 1);
        GEMM_TRACE_ADD(kt == 0 ? 8 : 2, GEMM_TRACE_CLOCK() - w0);  // first fill / later fills
        const uint64_t da = make_desc(sA + s * ABYTES + cw * 64 * 128, 16, 1024);
        const uint64_t db = make_desc(sB + s * BBYTES, BCHUNK, 1024);
        fence_acc(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {
            if constexpr (BN == 256 && GEMM_TRACE_B_KMAJOR)  // diagnostic: B read as K-major
                wgmma_tile<BN>(acc, da + 2 * kk, make_desc(sB + s * BBYTES, 16, 1024) + 2 * kk);
            else
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

#endif  // GEMM_SM90A_DEVICE (device helpers)

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
// DIRECT (C's rows not 16-byte strided, Cd its pointer): the epilogue's warps store C themselves
// (TmaEpilogue's direct mode: beta = 0 stored value by value, no stream-K; beta = 1 the rows mode,
// reduce-adds, stream-K as usual); a separate instantiation, so the
// direct stores' registers never weigh on the TMA-epilogue kernels (74 bytes of spills when one
// kernel held both).
template <int NCW, int BN, int STAGES, int CM, int DIRECT = kStoreTma>
__global__ void __launch_bounds__(Cfg<NCW, BN, STAGES, CM>::kThreads, 1)
gemm_ws(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
        const __grid_constant__ CUtensorMap tmC, int M, int N, int K, float alpha, float beta, int sk_tiles,
        half* __restrict__ Cd, int ldc, int keep_c) {
#if GEMM_SM90A_DEVICE
    grid_dependency_wait();
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
    // Cd (C's rows not 16-byte strided): direct stores add beta·C instead, no stream-K.
    const bool add_c = !DIRECT && GEMM_REDUCE_C && beta == 1.0f;
    const bool read_c = !DIRECT && beta != 0.0f && !add_c;
    GEMM_TRACE_SET(0);

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
    GEMM_TRACE_SET(1);

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
                    const long long w0 = GEMM_TRACE_CLOCK();
                    mbar_wait(empty_bar + 8 * s, ((it / STAGES) & 1) ^ 1);
                    GEMM_TRACE_ADD(2, GEMM_TRACE_CLOCK() - w0);
                    const uint32_t fb = full_bar + 8 * s;
                    if (GEMM_TRACE_NO_LOAD(kt)) {
                        mbar_arrive(fb);
                        ++it;
                        return;
                    }
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
            TmaEpilogue<BN, RC, DIRECT> frag(&tmC, warp, read_c, add_c, epi + (cw * 4 + warp) * kEpiWarpBytes,
                                             c_bar + 8 * (cw * 4 + warp));
            if constexpr (DIRECT) frag.set_direct(Cd, ldc, M, N, beta);
            frag.keep_l2 = keep_c != 0;
            WorkList work(first_t, stride_t, total, sk_tiles, num_k);
            int t, kb, ke;
            while (work.next(t, kb, ke)) {
                int sm, tn;
                super_coords<CM>(t, super_m, tiles_n, sm, tn);
                const int m0 = (sm * CM + static_cast<int>(rank)) * BM;
                const int n0 = tn * BN;

                const long long t0 = GEMM_TRACE_CLOCK();
                frag.begin(m0 + cw * 64, n0);
                float acc[BN / 2];
                consume_k<BN, STAGES, G::kABytes, G::kBBytes, G::kBChunk, true>(acc, it, ke - kb, sA, sB,
                                                                               full_bar, cw, frag, release);
                const long long t1 = GEMM_TRACE_CLOCK();
                if constexpr (RC || !GEMM_DEFER_STORES) frag.store(acc, alpha, beta);
                else frag.pack(acc, alpha, beta);  // stored during the next tile's first k-steps
                GEMM_TRACE_ADD(3, t1 - t0);
                GEMM_TRACE_ADD(4, GEMM_TRACE_CLOCK() - t1);
                GEMM_TRACE_ADD(9, 1);
            }
            frag.flush();  // the last tile's stores (nothing when they were stored already)
            frag.drain();  // the C stores complete before the CTA ends
        };
        if constexpr (DIRECT) tiles(Flag<false>{});  // beta is applied by the direct stores
        else if (read_c) tiles(Flag<true>{});
        else tiles(Flag<false>{});
    }
    // No CTA may leave while a peer can still arrive on its barriers or multicast into it.
    if constexpr (CM > 1) cluster_sync_all();
    GEMM_TRACE_SET(5);
#endif  // GEMM_SM90A_DEVICE
}


// ---------------------------------------------------------------------------------------------
// Small C (one wave of 128×128 tiles or less, e.g. the judge's 1024³: 64 tiles): split K in two
// over a pair of CTAs. Both CTAs of a pair compute the same 128×128 tile, CTA `rank`
// over k-tiles [rank·h, min(num_k, (rank+1)·h)), h = ceil(num_k / 2), so 128 SMs work on 64
// tiles, each CTA with 2 consumer warpgroups (against 1 on a 64×128 tile) and reading 2/3 of the
// bytes per MMA of a 64×128 tile (A 16 KB + B 16 KB per 128×128×64 step).
// beta = 1 (CLUSTER = false, a plain launch): every warpgroup of both CTAs reduce-adds its
// 64×128 partial into C (the second warpgroup's boxes in the unused `red` buffer).
// Otherwise (CLUSTER = true, clusters of 2) the halves meet in shared memory: CTA r finishes
// rows 64r..64r+63 of the tile; its other warpgroup sends its
// 64×128 fp32 partial (32 KB) to the peer with st.async, which counts the bytes on the peer's
// `red` mbarrier (armed with expect_tx before the cluster starts), and the receiving warpgroup
// adds them to its own accumulators. Thread t of the sender holds the same fragment positions
// as thread t of the receiver, so the exchange is a straight copy: 16-byte word j·128 + t.
// Serial (MODE = kSplitSerial, `splits` = S > 2 CTAs a tile, for small C with a long K such as
// 31×47×4096 or 17×4096×4096): CTA r of a tile takes k-tiles [r·h, (r+1)·h), h = ceil(num_k / S),
// and each warpgroup adds its fp32 partial into a zeroed global slot (vector fp32 reductions in
// L2, 16-byte word j·128 + t as above), then counts itself on the slot's counter (acq_rel); the
// last of the S reads the exact fp32 sum back, zeroes the slot and its counter for the next call,
// and stores alpha·sum + beta·C straight from the fragments (scalar, bounds-checked: small C
// only, so C needs no tensor map, no alignment and no padded copy): one rounding, any beta. Why not S
// reduce-adds into C: every fp16 reduce-add rounds C's running sum again (run 50: 64 pieces of
// a tile ended 0.056 off); why not the last CTA summing S partial tiles: one SM reading
// (S − 1) · 64 KB from L2 at ~64 bytes a clock is ~8 µs at S = 16.
//   [A stage 0..S-1][B stage 0..S-1][red 32 KB][C boxes 4 × 4 KB][full bars][empty bars][red bar]
//   [old-C bars × 8]
//   (serial: warpgroup 1's C boxes in `red`, the "last" flags behind them)
// ---------------------------------------------------------------------------------------------
// kSplitRows: the plain pair for C with odd N (beta = 1): rows reduce-added (TmaEpilogue's rows mode).
enum SplitMode { kSplitPlain = 0, kSplitCluster = 1, kSplitSerial = 2, kSplitRows = 3 };
#ifndef GEMM_MAX_SPLIT
#define GEMM_MAX_SPLIT 16      // serial split-K: CTAs a tile at most
#endif
#ifndef GEMM_SERIAL_TILES
#define GEMM_SERIAL_TILES 1    // ... only for C of at most this many 128×128 tiles when C has a tensor map:
                               // above, the pair (runs 117-118, pairs against serial 3-8 CTAs a tile:
                               // 768³ 0.0108 against 0.0268 ms, 226×2776×2840 0.0207 against 0.0347;
                               // serial won at one tile only, 128×128×4096 0.0166 against 0.0179)
#endif
#ifndef GEMM_SPLIT_MIN_K
#define GEMM_SPLIT_MIN_K 4     // ... each with at least this many k-tiles
#endif
#ifndef GEMM_ODD_PAIR_TILES
#define GEMM_ODD_PAIR_TILES 8  // ... and for C without a tensor map (odd N) of more than this many: the
                               // pair, its rows reduce-added (beta = 1; else a padded C folded in),
                               // not serial (run 143: 0.58-0.98x over 38 shapes of 11-42 tiles,
                               // 2528x34x2940 1.05x; at 6 tiles, 720x99x3544, 1.14x: serial kept)
#endif

template <int STAGES>
struct SplitCfg {
    using G = Cfg<2, 128, STAGES, 1>;
    static constexpr int kRedBytes = 64 * 128 * 4;
    static constexpr int kEpiBytes = 4 * kEpiWarpBytes;  // the finishing warpgroup's C boxes
    static constexpr int kSmemBytes = 1024 + G::kPipeBytes + kRedBytes + kEpiBytes + (2 * STAGES + 1 + 8) * 8;
    static_assert(4 * kEpiWarpBytes + 2 * 16 <= kRedBytes, "serial: a warpgroup's boxes and the flags fit in red");
    static_assert(kSmemBytes <= 227 * 1024, "227 KB dynamic shared memory per block");
    static_assert(G::kThreads == 384, "1 producer + 2 consumer warpgroups");
};


#if GEMM_SM90A_DEVICE
// 16 bytes into a peer CTA's shared memory, counted as transaction bytes on its mbarrier.
__device__ __forceinline__ void st_async_v4(uint32_t remote_addr, uint32_t remote_bar, float a, float b,
                                            float c, float d) {
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
            remote_addr),
        "f"(a), "f"(b), "f"(c), "f"(d), "r"(remote_bar)
        : "memory");
}
// The 128 threads of one warpgroup (named barrier `id`, 1 or 2; 0 is __syncthreads').
template <int ID>
__device__ __forceinline__ void warpgroup_sync() {
    asm volatile("bar.sync %0, 128;" ::"n"(ID) : "memory");
}
#endif  // GEMM_SM90A_DEVICE
// counter += 1, returning the old value; releases this thread's earlier writes (and, through
// the barrier before it, its block's or warpgroup's) and acquires those of the arrivals before it.
__device__ __forceinline__ int atomic_add_acq_rel(int* counter) {
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
    return old;
}

template <int STAGES, int MODE>
__global__ void __launch_bounds__(384, 1)
gemm_splitk(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
            const __grid_constant__ CUtensorMap tmC, int M, int N, int K, float alpha, float beta,
            int splits, float* __restrict__ part, int* __restrict__ count, half* __restrict__ Cd, int ldc) {
#if GEMM_SM90A_DEVICE
    grid_dependency_wait();
    constexpr bool CLUSTER = MODE == kSplitCluster;
    using G = typename SplitCfg<STAGES>::G;
    constexpr int kRed = SplitCfg<STAGES>::kRedBytes;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;  // same offset in both CTAs
    const uint32_t sA = base;
    const uint32_t sB = base + STAGES * G::kABytes;
    const uint32_t red = base + G::kPipeBytes;
    const uint32_t epi = red + kRed;
    const uint32_t full_bar = epi + SplitCfg<STAGES>::kEpiBytes;
    const uint32_t empty_bar = full_bar + STAGES * 8;
    const uint32_t red_bar = empty_bar + STAGES * 8;
    const uint32_t c_bar = red_bar + 8;  // old-C loads, one per consumer warp

    const int tid = threadIdx.x, wg = tid / 128, wtid = tid % 128, warp = wtid / 32, lane = tid % 32;
    // Plain (beta == 1, both halves reduce-added) and serial: plain launches, no exchange.
    const int S = CLUSTER ? 2 : splits;
    const uint32_t rank = CLUSTER ? cluster_ctarank() : static_cast<uint32_t>(blockIdx.x % S);
    const int tiles_m = (M + 127) / 128;
    const int t = blockIdx.x / S;  // one tile per S CTAs, down the columns of tiles
    const int m0 = (t % tiles_m) * 128, n0 = (t / tiles_m) * 128;
    const int num_k = (K + kBK - 1) / kBK;
    const int h = (num_k + S - 1) / S;
    const int k_begin = min(num_k, static_cast<int>(rank) * h);
    const int n_k = min(num_k, k_begin + h) - k_begin;  // 0 for rank 1 when K fits one k-tile

    // Fill i of the ring (k-tile k_begin + i), issued by thread 0, the producer.
    auto fill = [&](int i) {
        const uint32_t s = i % STAGES;
        const int kc = (k_begin + i) * kBK;
        const uint32_t fb = full_bar + 8 * s;
        mbar_arrive_expect_tx(fb, G::kStageBytes);
        tma_load_2d(sA + s * G::kABytes, &tmA, fb, kc, m0);
        tma_load_2d(sB + s * G::kBBytes, &tmB, fb, n0, kc);
        tma_load_2d(sB + s * G::kBBytes + G::kBChunk, &tmB, fb, n0 + 64, kc);
    };
    if (tid == 0) {
        prefetch_tensormap(&tmA);
        prefetch_tensormap(&tmB);
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full_bar + 8 * s, 1);
            mbar_init(empty_bar + 8 * s, G::kEmptyArrivals);  // the 8 consumer warps of this CTA
        }
        mbar_init(red_bar, 1);
        for (int w = 0; w < 8; ++w) mbar_init(c_bar + 8 * w, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        mbar_arrive_expect_tx(red_bar, kRed);  // completes when the peer's 32 KB have landed
    }
    GEMM_TRACE_SET(0);
    // The peer may store into `red` only after it is armed, but this CTA's own loads need only its
    // own barriers: arrive on the cluster barrier now, and wait for the peer only before the first
    // store into it, so the first loads need not wait for the peer's set-up (run 17's trace: a
    // set-up of ~0.4 µs; run 19's: 0.37 µs and the first fill no sooner, within the noise).
    if constexpr (CLUSTER) cluster_arrive();
    __syncthreads();
    [[maybe_unused]] bool waited = false;  // this thread's cluster_wait for the arrival above
    GEMM_TRACE_SET(1);

    if (wg == 0) {
        setmaxnreg_dec<kProducerRegs>();
        if (warp == 0 && lane == 0) {  // thread 0
            // (Issuing the first fills before the block-wide barrier, run 23, made the set-up
            // 2.0 µs instead of 0.4 and the call ~1 µs slower.)
            for (int i = 0; i < n_k; ++i) {
                const long long w0 = GEMM_TRACE_CLOCK();
                mbar_wait(empty_bar + 8 * (i % STAGES), ((i / STAGES) & 1) ^ 1);
                GEMM_TRACE_ADD(2, GEMM_TRACE_CLOCK() - w0);
                fill(i);
            }
        }
    } else {
        setmaxnreg_inc<kConsumerRegs>();
        const int cw = wg - 1;                             // rows cw*64.. of the tile
        const bool finisher = cw == static_cast<int>(rank);  // else: send the partial to the peer
        constexpr bool ROWS = MODE == kSplitRows;
        // as in gemm_ws (the rows mode reduce-adds whatever add_c says: its packed values are alpha·acc)
        const bool add_c = !ROWS && GEMM_REDUCE_C && beta == 1.0f;
        // beta == 1 (GEMM_SPLIT_REDUCE): no exchange; every warpgroup of both CTAs reduce-adds its
        // partial into C (the other warpgroup's boxes in the unused `red` buffer).
        const bool both_add = MODE == kSplitPlain || ROWS || (CLUSTER && GEMM_SPLIT_REDUCE && add_c);
        // (serial: no TMA epilogue, C is stored straight from the fragments)
        const bool rc = MODE != kSplitSerial && !ROWS && finisher && beta != 0.0f && !add_c;
        TmaEpilogue<128, true, ROWS ? kStoreRows : kStoreTma> frag(
            &tmC, warp, rc, add_c, (finisher ? epi : red) + warp * kEpiWarpBytes, c_bar + 8 * warp);
        if constexpr (ROWS) frag.set_direct(Cd, ldc, M, N, beta);
        frag.begin(m0 + cw * 64, n0);
        float acc[64];
        uint32_t it = 0;
        const long long t0 = GEMM_TRACE_CLOCK();
        // Old C: loaded while the K loop runs, read after it (with gemm_ws's schedule, rounds inside
        // the K loop, ptxas serialized this kernel's wgmma: warning C7515).
        frag.template act<0>();
        consume_k<128, STAGES, G::kABytes, G::kBBytes, G::kBChunk, false>(
            acc, it, n_k, sA, sB, full_bar, cw, frag, [&](uint32_t s) {
                if (lane == 0) mbar_arrive(empty_bar + 8 * s);
            });
        const long long t1 = GEMM_TRACE_CLOCK();
        GEMM_TRACE_ADD(3, t1 - t0);
        if constexpr (MODE == kSplitSerial) {
            float4* slot = reinterpret_cast<float4*>(part) + static_cast<size_t>(t * 2 + cw) * 2048;
            // word j: rows r0 and r0 + 8, columns 8j + 2·(lane % 4) and + 1 of the warpgroup's block;
            // words wholly outside C are neither added nor read (run 55: 17×4096×4096, 128 CTAs
            // adding whole 128×128 tiles, was 8 µs slower than the pair)
            const int r0 = m0 + cw * 64 + 16 * warp + lane / 4, cq = n0 + 2 * (lane % 4);
            const bool rows_in = r0 < M;
#pragma unroll
            for (int j = 0; j < 16; ++j)
                if (rows_in && cq + 8 * j < N)
                    atomicAdd(slot + j * 128 + wtid, make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
            const uint32_t flag = red + 4 * kEpiWarpBytes + 16 * cw;
            if (cw == 0) warpgroup_sync<1>();  // the warpgroup's reductions, then one release
            else warpgroup_sync<2>();
            if (wtid == 0) {
                const uint32_t last = atomic_add_acq_rel(count + t * 2 + cw) == S - 1;
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(flag), "r"(last) : "memory");
            }
            if (cw == 0) warpgroup_sync<1>();
            else warpgroup_sync<2>();
            uint32_t last;
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(last) : "r"(flag) : "memory");
            if (last) {
                // every read before any store (a store between two reads makes the second wait
                // for the first: 16 round trips in a row here, 32 in each row of C below)
#pragma unroll
                for (int j = 0; j < 16; ++j) {
                    if (!rows_in || cq + 8 * j >= N) continue;
                    const float4 v = __ldcg(slot + j * 128 + wtid);
                    acc[4 * j] = v.x;
                    acc[4 * j + 1] = v.y;
                    acc[4 * j + 2] = v.z;
                    acc[4 * j + 3] = v.w;
                }
#pragma unroll
                for (int j = 0; j < 16; ++j)
                    if (rows_in && cq + 8 * j < N) __stcg(slot + j * 128 + wtid, make_float4(0.0f, 0.0f, 0.0f, 0.0f));
                if (wtid == 0) count[t * 2 + cw] = 0;
                // acc[4c + 2h + e]: row 16·warp + lane/4 + 8h, column 8c + 2·(lane % 4) + e
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = m0 + cw * 64 + 16 * warp + lane / 4 + 8 * h;
                    if (row >= M) continue;
                    half* crow = Cd + static_cast<size_t>(row) * ldc;
                    float old[16][2];
#pragma unroll
                    for (int c = 0; c < 16; ++c)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const int col = n0 + 8 * c + 2 * (lane % 4) + e;
                            old[c][e] = beta != 0.0f && col < N ? __half2float(crow[col]) : 0.0f;
                        }
#pragma unroll
                    for (int c = 0; c < 16; ++c)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const int col = n0 + 8 * c + 2 * (lane % 4) + e;
                            if (col < N) crow[col] = __float2half_rn(alpha * acc[4 * c + 2 * h + e] + beta * old[c][e]);
                        }
                }
            }
        } else if (both_add) {
            frag.store(acc, alpha, beta);
            frag.drain();
        } else if constexpr (CLUSTER) {
            if (!finisher) {
                cluster_wait();  // the peer's `red` is armed
                waited = true;
                const uint32_t peer = rank ^ 1u;
                const uint32_t rbuf = mapa_shared(red, peer), rbar = mapa_shared(red_bar, peer);
#pragma unroll
                for (int j = 0; j < 16; ++j)
                    st_async_v4(rbuf + (j * 128 + wtid) * 16, rbar, acc[4 * j], acc[4 * j + 1],
                                acc[4 * j + 2], acc[4 * j + 3]);
            } else {
                frag.template act<1>();  // old C into registers (loaded during the K loop)
                const long long w0 = GEMM_TRACE_CLOCK();
                mbar_wait<true>(red_bar, 0);
                GEMM_TRACE_ADD(10, GEMM_TRACE_CLOCK() - w0);  // waiting for the peer's partial
#pragma unroll
                for (int j = 0; j < 16; ++j) {
                    float4 v;
                    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                                 : "r"(red + (j * 128 + wtid) * 16));
                    acc[4 * j] += v.x;
                    acc[4 * j + 1] += v.y;
                    acc[4 * j + 2] += v.z;
                    acc[4 * j + 3] += v.w;
                }
                frag.store(acc, alpha, beta);
                frag.drain();
            }
        }
        GEMM_TRACE_ADD(4, GEMM_TRACE_CLOCK() - t1);
        GEMM_TRACE_ADD(9, 1);
    }
    // Neither CTA leaves while the other may still store into it.
    if constexpr (CLUSTER) {
        if (!waited) cluster_wait();
        cluster_sync_all();
    }
    GEMM_TRACE_SET(5);
#endif  // GEMM_SM90A_DEVICE
}


}  // namespace

// ---------------------------------------------------------------------------------------------
// The path of GPUs without sm_90a's features (T4, A100, B200; plain sm_90): 09's mma.sync kernel
// (cp.async ring, ldmatrix, m16n8k16) on sm_80 and newer, and on sm_75 the same tiles through a
// register-staged double buffer with 2 × m16n8k8 per k16 step. Tiles picked at run time from the
// SM count, the opt-in shared-memory limit and the PTX arch the kernels were built for.
// ---------------------------------------------------------------------------------------------
namespace mma_path {

constexpr int kChunk = 8;  // halves in one 16-byte copy / one ldmatrix row

// Physical 16-byte chunk for logical chunk c of row r in a tile whose rows hold kRowChunks
// chunks (09's swizzle). Rows of >= 128 bytes: XOR the low 3 chunk bits with r % 8. Shorter rows
// share a 128-byte line, so the key comes from the row bits above those. Either way 8
// consecutive rows of one logical chunk land in 8 distinct bank groups; the key repeats every
// 8 rows.
template <int kRowChunks>
__host__ __device__ constexpr int swizzle(int r, int c) {
    return kRowChunks >= 8 ? (c ^ (r & 7)) : (c ^ ((r / (8 / kRowChunks)) & (kRowChunks - 1)));
}

template <int BM_, int BN_, int BK_, int STAGES_, int WARPS_M_, int WARPS_N_, int MIN_BLOCKS_, int GROUP_M_>
struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int GROUP_M = GROUP_M_;  // tile-rows per rasterization group
    // STAGES >= 3: cp.async ring on sm_80+ (09's loop). STAGES == 2, or any config on sm_75:
    // register-staged double buffer (uses stages 0 and 1 of the ring).
    static constexpr bool ASYNC = STAGES >= 3;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = WARPS * 32;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;     // warp tile
    static constexpr int MT = WM / 16, NT = WN / 8, KK = BK / 16;  // m16 / n8 / k16 steps per warp
    static constexpr int KS = BK / 8;                              // k8 steps (register-staged loop)
    static constexpr int A_ROW_CHUNKS = BK / kChunk, B_ROW_CHUNKS = BN / kChunk;
    static constexpr int A_STAGE = BM * BK * 2, B_STAGE = BK * BN * 2, STAGE = A_STAGE + B_STAGE;  // bytes
    static constexpr int A_LOADS = BM * A_ROW_CHUNKS / THREADS;  // 16-byte copies per thread per tile
    static constexpr int B_LOADS = BK * B_ROW_CHUNKS / THREADS;
    static constexpr int A_ROW_STEP = THREADS / A_ROW_CHUNKS;  // rows between one thread's copies
    static constexpr int B_ROW_STEP = THREADS / B_ROW_CHUNKS;
    // Epilogue scratch: one 16-row slice of the warp tile in fp32. Row stride ≡ 8 words (mod 32):
    // the float2 writes of a half-warp (rows g, columns 2t) cover all 32 banks once.
    static constexpr int EPI_LD = WN + 8;
    static constexpr int EPI_BYTES = WARPS * 16 * EPI_LD * 4;
    static constexpr int EPI_LANES_PER_ROW = WN / 4;  // each lane moves 4 columns
    static constexpr int EPI_ROWS_PER_PASS = 32 / EPI_LANES_PER_ROW;
    static constexpr int EPI_PASSES = 16 / EPI_ROWS_PER_PASS;
    static constexpr int RING = STAGES * STAGE > EPI_BYTES ? STAGES * STAGE : EPI_BYTES;
    // C tile (beta != 0) lands at kernel start in its own region after the ring, row-major.
    static constexpr int C_TILE = BM * BN * 2;
    static constexpr int C_LOADS = BM * B_ROW_CHUNKS / THREADS;
    static constexpr int SMEM = RING + C_TILE;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warp grid divides the block tile");
    static_assert(WM % 32 == 0 && WN % 32 == 0,
                  "warp tile: k16 loads take m16 tiles and n16 pairs; k8 loads take m16 pairs "
                  "(ldmatrix.x4 of A) and four n8 tiles (ldmatrix.x4.trans of B)");
    static_assert(BK % 32 == 0 && KK % 2 == 0 && KS % 2 == 0,
                  "BK >= 32: the stage barrier sits in the last k step; even step counts keep the "
                  "fragment double buffer indices static across k-tiles");
    static_assert(THREADS % A_ROW_CHUNKS == 0 && THREADS % B_ROW_CHUNKS == 0, "copy mapping");
    static_assert(A_LOADS * THREADS == BM * A_ROW_CHUNKS && B_LOADS * THREADS == BK * B_ROW_CHUNKS,
                  "tiles split evenly into 16-byte copies");
    static_assert(A_ROW_STEP % 8 == 0 && B_ROW_STEP % 8 == 0,
                  "a thread's copies sit a multiple of 8 rows apart: same swizzle key");
    static_assert(STAGES >= 2, "two buffers at least");
    static_assert(WN >= 32 && 32 % EPI_LANES_PER_ROW == 0 && 16 % EPI_ROWS_PER_PASS == 0, "epilogue mapping");
    static_assert(C_LOADS * THREADS == BM * B_ROW_CHUNKS, "C tile splits evenly into 16-byte copies");
    static_assert(SMEM <= 227 * 1024, "fits one SM");
};

//                  BM   BN  BK st WM WN minB group
using CfgAL = Cfg<128, 256, 32, 4, 2, 4, 1, 16>;  // 09's L: warp 64×64, 96 KB ring + 64 KB C = 160 KB
using CfgAM = Cfg<128, 128, 32, 4, 2, 4, 1, 8>;   // warp 64×32, 64 + 32 = 96 KB
using CfgAS = Cfg<128, 64, 32, 4, 4, 2, 2, 8>;    // warp 32×32, 48 + 16 = 64 KB
using CfgRL = Cfg<128, 256, 32, 2, 2, 4, 1, 16>;  // register-staged: 48 + 64 = 112 KB
using CfgRM = Cfg<128, 128, 32, 2, 2, 4, 1, 8>;   // 32 + 32 = 64 KB (a T4's whole opt-in)
using CfgRS = Cfg<128, 64, 64, 2, 4, 2, 2, 8>;    // BK=64: 48 + 16 = 64 KB (loads get 64 k of cover)
using CfgU = Cfg<128, 64, 32, 2, 4, 2, 2, 8>;     // unaligned kernel (guarded scalar loads): 24 + 16 = 40 KB
static_assert(CfgAL::SMEM == 160 * 1024 && CfgRL::SMEM == 112 * 1024 && CfgRM::SMEM == 64 * 1024 &&
                  CfgRS::SMEM == 64 * 1024 && CfgU::SMEM == 40 * 1024,
              "smem sizes quoted in the header");

// ------------------------------------------------------------------ device helpers

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte global load into registers; pred false reads nothing and yields zeros.
__device__ __forceinline__ uint4 ldg_16(const void* src, bool pred) {
    uint4 v;
    asm volatile(
        "{\n"
        "  .reg .pred p;\n"
        "  setp.ne.b32 p, %5, 0;\n"
        "  mov.b32 %0, 0;\n"
        "  mov.b32 %1, 0;\n"
        "  mov.b32 %2, 0;\n"
        "  mov.b32 %3, 0;\n"
        "  @p ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n"
        "}\n"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(src), "r"(pred ? 1 : 0));
    return v;
}

__device__ __forceinline__ void sts_16(unsigned dst, const uint4& v) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// 16-byte global→shared copy; src-size 0 reads nothing and zero-fills (edges of the matrices).
// Only the sm_80+ loop calls it; below sm_80 it is a synchronous copy so that it stays correct.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(pred ? 16 : 0)
                 : "memory");
#else
    sts_16(dst, ldg_16(src, pred));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// D += A·B for one m16n8k16 step, fp32 accumulators (sm_80+).
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    // The same product as two k8 halves: a0/a1 (rows g, g+8; k 2t..2t+1) with b0 (k 2t..2t+1),
    // then a2/a3 (k 8+2t..) with b1 (k 8+2t..).
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

// D += A·B for one m16n8k8 step (sm_75+). A: a0 = rows g, k 2t..2t+1; a1 = rows g+8. B: k 2t..2t+1,
// column g. D as m16n8k16.
__device__ __forceinline__ void mma_1688(float (&d)[4], unsigned a0, unsigned a1, unsigned b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(b));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
}

// Where a block's tile sits (09's grouped rasterization: consecutive blocks run down GROUP_M
// tile-rows, then step right).
template <class CF>
__device__ __forceinline__ void tile_origin(int M, int N, int& m0, int& n0) {
    const int grid_m = (M + CF::BM - 1) / CF::BM, grid_n = (N + CF::BN - 1) / CF::BN;
    const int per_group = CF::GROUP_M * grid_n;
    const int group = blockIdx.x / per_group, in_group = blockIdx.x - group * per_group;
    const int first_m = group * CF::GROUP_M;
    const int group_rows = min(grid_m - first_m, CF::GROUP_M);
    m0 = (first_m + in_group % group_rows) * CF::BM;
    n0 = (in_group / group_rows) * CF::BN;
}

// ------------------------------------------------------------------ sm_80+ main loop (09's)
// ALIGNED only: K % 8 == 0, N % 8 == 0 and A, B, C 16-byte aligned (checked in solve_mma): a
// 16-byte chunk that starts in range lies wholly in range, so one predicate per copy is exact.
template <class CF>
__device__ __forceinline__ void mainloop_async(const half* __restrict__ A, const half* __restrict__ B,
                                               const half* __restrict__ C, int M, int N, int K, float beta,
                                               int m0, int n0, unsigned char* smem,
                                               float (&acc)[CF::MT][CF::NT][4]) {
    constexpr int BK = CF::BK, BN = CF::BN, STAGES = CF::STAGES;
    constexpr int MT = CF::MT, NT = CF::NT, KK = CF::KK;
    static_assert(STAGES >= 3, "wait_group STAGES-2 with the refill issued a step before the barrier");

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const unsigned s_base = smem_addr(smem);

    // global→shared copy mapping: thread copies chunk a_c of rows a_r0 + i*A_ROW_STEP, etc.
    const int a_c = tid % CF::A_ROW_CHUNKS, a_r0 = tid / CF::A_ROW_CHUNKS;
    const int b_c = tid % CF::B_ROW_CHUNKS, b_r0 = tid / CF::B_ROW_CHUNKS;
    const unsigned a_sts = a_r0 * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(a_r0, a_c) * 16;
    const unsigned b_sts = CF::A_STAGE + b_r0 * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(b_r0, b_c) * 16;
    unsigned a_row_ok = 0;
#pragma unroll
    for (int i = 0; i < CF::A_LOADS; ++i) a_row_ok |= (m0 + a_r0 + i * CF::A_ROW_STEP < M) ? 1u << i : 0u;
    const bool b_col_ok = n0 + b_c * kChunk < N;
    const half* a_src = A + (size_t)(m0 + a_r0) * K + a_c * kChunk;  // used only where in range
    const half* b_src = B + (size_t)b_r0 * N + n0 + b_c * kChunk;

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * BK;
        const unsigned sa = s_base + stage * CF::STAGE;
        const bool k_ok = k0 + a_c * kChunk < K;
#pragma unroll
        for (int i = 0; i < CF::A_LOADS; ++i) {
            const bool ok = k_ok && ((a_row_ok >> i) & 1u);
            const half* src = a_src + (size_t)i * CF::A_ROW_STEP * K + k0;
            cp_async_16(sa + a_sts + i * CF::A_ROW_STEP * (BK * 2), ok ? src : A, ok);
        }
#pragma unroll
        for (int i = 0; i < CF::B_LOADS; ++i) {
            const bool ok = b_col_ok && (k0 + b_r0 + i * CF::B_ROW_STEP < K);
            const half* src = b_src + (size_t)(k0 + i * CF::B_ROW_STEP) * N;
            cp_async_16(sa + b_sts + i * CF::B_ROW_STEP * (BN * 2), ok ? src : B, ok);
        }
    };

    // ldmatrix addresses (byte offsets within a stage). x4 lane l addresses row l % 16 of the
    // 16×16 block, chunk l / 16: matrices = (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7,
    // k 8-15), (rows 8-15, k 8-15) = mma A registers a0a1, a2a3, a4a5, a6a7. For B (.trans) rows
    // are k and chunks are n: matrices = (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
    // (k 8-15, n 8-15) = b0b1, b2b3 of n8 tile 2jj, then of tile 2jj+1. Steps of 16 rows keep
    // the swizzle key: immediates.
    unsigned a_lds[KK], b_lds[NT / 2];
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {
        const int r = wm0 + (lane & 15), c = kk * 2 + (lane >> 4);
        a_lds[kk] = r * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(r, c) * 16;
    }
#pragma unroll
    for (int jj = 0; jj < NT / 2; ++jj) {
        const int r = lane & 15, c = wn0 / kChunk + jj * 2 + (lane >> 4);
        b_lds[jj] = CF::A_STAGE + r * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(r, c) * 16;
    }

    unsigned af[2][MT][4], bf[2][NT][2];
    auto load_frags = [&](int buf, unsigned stage_addr, int kk) {
#pragma unroll
        for (int i = 0; i < MT; ++i) ldsm_x4(af[buf][i], stage_addr + a_lds[kk] + i * 16 * (BK * 2));
#pragma unroll
        for (int jj = 0; jj < NT / 2; ++jj) {
            unsigned r[4];
            ldsm_x4_trans(r, stage_addr + b_lds[jj] + kk * 16 * (BN * 2));
            bf[buf][2 * jj][0] = r[0];
            bf[buf][2 * jj][1] = r[1];
            bf[buf][2 * jj + 1][0] = r[2];
            bf[buf][2 * jj + 1][1] = r[3];
        }
    };

    const int KT = (K + BK - 1) / BK;

    // The C tile is read up front, in the first commit group, so its latency hides under the
    // main loop (beta == 0 must not read C: it may hold NaN). Row-major BM×BN halves.
    if (beta != 0.f) {
#pragma unroll
        for (int i = 0; i < CF::C_LOADS; ++i) {
            const int r = b_r0 + i * CF::B_ROW_STEP, gr = m0 + r;
            const bool ok = gr < M && b_col_ok;  // N % 8 == 0: whole chunk in or out
            const half* src = C + (size_t)gr * N + n0 + b_c * kChunk;
            cp_async_16(s_base + CF::RING + r * (BN * 2) + b_c * 16, ok ? src : C, ok);
        }
    }

    // Prologue: tiles 0..STAGES-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) load_tile(s, s);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // tile 0 landed (this thread's part) ...
    __syncthreads();              // ... and everyone's

    int read_stage = 0, write_stage = STAGES - 1;
    unsigned read_addr = s_base;
    load_frags(0, read_addr, 0);

    for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
        for (int kk = 0; kk < KK; ++kk) {
            if (kk == KK - 1) {
                // Committed groups: STAGES-1 + kt+1 (this tile's refill went out at kk == 0).
                // STAGES-2 pending => tile kt+1 has landed. The barrier also says every warp
                // has read its last fragments of stage kt (loaded at kk <= KK-2), which the
                // refill at the next k-tile's kk == 0 overwrites.
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
                read_addr = s_base + read_stage * CF::STAGE;
            }
            // Next k16 step's fragments (first step of tile kt+1 when kk == KK-1; on the last
            // tile that reads a stale stage, harmlessly).
            load_frags((kk + 1) & 1, read_addr, (kk + 1) % KK);
            if (kk == 0) {
                // Refill the stage that tile kt-1 used (all warps left it at the last barrier).
                if (kt + STAGES - 1 < KT) load_tile(kt + STAGES - 1, write_stage);
                cp_async_commit();
                write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    const int jn = (i & 1) ? NT - 1 - j : j;  // serpentine: reuse B registers
                    mma_16816(acc[i][jn], af[kk & 1][i], bf[kk & 1][jn][0], bf[kk & 1][jn][1]);
                }
        }
    }
    cp_async_wait<0>();  // the C tile (and empty groups) landed; the epilogue's barrier publishes it
}

// ------------------------------------------------------------------ register-staged main loop
// sm_75 (no cp.async, no m16n8k16 f16), STAGES == 2 configs, and the unaligned case everywhere.
// Buffers 0 and 1 of the ring; tile kt lives in buffer kt & 1.
//   prologue: regs <- tile 0 (and the C tile); smem[0] <- regs; regs <- tile 1; barrier
//   tile kt, k8 steps s = 0..KS-1; at s == KS-1, before that step's fragment loads:
//     smem[(kt+1)&1] <- regs (tile kt+1)   buffer last read by tile kt-1, before barrier kt-1
//     barrier kt                           tile kt+1 visible; everyone is done with tile kt's
//                                          steps 0..KS-2, so only step KS-1 (in registers) is left
//     regs <- tile kt+2                    in flight for a whole k-tile of mma
// ALIGNED == false: rows of A or B not 16-byte aligned (K % 8, N % 8 or pointers): guarded
// scalar loads into the same registers, same smem layout.
template <class CF, bool ALIGNED>
__device__ __forceinline__ void mainloop_staged(const half* __restrict__ A, const half* __restrict__ B,
                                                const half* __restrict__ C, int M, int N, int K, float beta,
                                                int m0, int n0, unsigned char* smem,
                                                float (&acc)[CF::MT][CF::NT][4]) {
    constexpr int BK = CF::BK, BN = CF::BN;
    constexpr int MT = CF::MT, NT = CF::NT, KS = CF::KS;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const unsigned s_base = smem_addr(smem);

    // Copy mapping: as the async loop (same swizzled destinations, so the same conflict-free
    // 8-thread phases for st.shared.v4 as for cp.async).
    const int a_c = tid % CF::A_ROW_CHUNKS, a_r0 = tid / CF::A_ROW_CHUNKS;
    const int b_c = tid % CF::B_ROW_CHUNKS, b_r0 = tid / CF::B_ROW_CHUNKS;
    const unsigned a_sts = a_r0 * (BK * 2) + swizzle<CF::A_ROW_CHUNKS>(a_r0, a_c) * 16;
    const unsigned b_sts = CF::A_STAGE + b_r0 * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(b_r0, b_c) * 16;
    unsigned a_row_ok = 0;
#pragma unroll
    for (int i = 0; i < CF::A_LOADS; ++i) a_row_ok |= (m0 + a_r0 + i * CF::A_ROW_STEP < M) ? 1u << i : 0u;
    const bool b_col_ok = n0 + b_c * kChunk < N;
    const half* a_src = A + (size_t)(m0 + a_r0) * K + a_c * kChunk;  // used only where in range
    const half* b_src = B + (size_t)b_r0 * N + n0 + b_c * kChunk;

    uint4 ra[CF::A_LOADS], rb[CF::B_LOADS];
    auto gload = [&](int kt) {
        const int k0 = kt * BK;
        if constexpr (ALIGNED) {
            const bool k_ok = k0 + a_c * kChunk < K;
#pragma unroll
            for (int i = 0; i < CF::A_LOADS; ++i) {
                const bool ok = k_ok && ((a_row_ok >> i) & 1u);
                ra[i] = ldg_16(ok ? a_src + (size_t)i * CF::A_ROW_STEP * K + k0 : A, ok);
            }
#pragma unroll
            for (int i = 0; i < CF::B_LOADS; ++i) {
                const bool ok = b_col_ok && (k0 + b_r0 + i * CF::B_ROW_STEP < K);
                rb[i] = ldg_16(ok ? b_src + (size_t)(k0 + i * CF::B_ROW_STEP) * N : B, ok);
            }
        } else {
            const unsigned short* Ah = reinterpret_cast<const unsigned short*>(A);
            const unsigned short* Bh = reinterpret_cast<const unsigned short*>(B);
#pragma unroll
            for (int i = 0; i < CF::A_LOADS; ++i) {
                const int gm = m0 + a_r0 + i * CF::A_ROW_STEP, gk = k0 + a_c * kChunk;
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gm < M && gk + 2 * e < K) ? Ah[(size_t)gm * K + gk + 2 * e] : 0u;
                    const unsigned hi = (gm < M && gk + 2 * e + 1 < K) ? Ah[(size_t)gm * K + gk + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                ra[i] = make_uint4(w[0], w[1], w[2], w[3]);
            }
#pragma unroll
            for (int i = 0; i < CF::B_LOADS; ++i) {
                const int gk = k0 + b_r0 + i * CF::B_ROW_STEP, gn = n0 + b_c * kChunk;
                unsigned w[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned lo = (gk < K && gn + 2 * e < N) ? Bh[(size_t)gk * N + gn + 2 * e] : 0u;
                    const unsigned hi = (gk < K && gn + 2 * e + 1 < N) ? Bh[(size_t)gk * N + gn + 2 * e + 1] : 0u;
                    w[e] = lo | (hi << 16);
                }
                rb[i] = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    };
    auto sstore = [&](int buf) {
        const unsigned sa = s_base + buf * CF::STAGE;
#pragma unroll
        for (int i = 0; i < CF::A_LOADS; ++i) sts_16(sa + a_sts + i * CF::A_ROW_STEP * (BK * 2), ra[i]);
#pragma unroll
        for (int i = 0; i < CF::B_LOADS; ++i) sts_16(sa + b_sts + i * CF::B_ROW_STEP * (BN * 2), rb[i]);
    };

    // ldmatrix at k8 granularity. A (x4): lane l addresses row wm0 + 32*ip + l, logical chunk s
    // (k 8s..8s+7): matrices = rows 0-7, 8-15 of m16 tile 2ip, then of tile 2ip+1 = the a0a1 /
    // a2a3 registers of m16n8k8 for those two tiles. +32 rows keeps the swizzle key (it repeats
    // every 8 rows): immediates; the chunk is s ^ key.
    // B (x4.trans): lane l addresses k row 8s + (l & 7) of n chunk wn0/8 + 4*jq + (l >> 3):
    // matrix q = (k 8s..8s+7, n8 tile 4jq+q), transposed so a thread holds k 2t..2t+1 of column
    // g = the b0b1 register of m16n8k8. The key is (l & 7) for every s: the k step is an
    // immediate (8 rows).
    const int a_r = wm0 + lane;
    const unsigned a_row = a_r * (BK * 2);
    const unsigned a_key = swizzle<CF::A_ROW_CHUNKS>(a_r, 0);
    unsigned b_lds[NT / 4];
#pragma unroll
    for (int jq = 0; jq < NT / 4; ++jq) {
        const int r = lane & 7, c = wn0 / kChunk + jq * 4 + (lane >> 3);
        b_lds[jq] = CF::A_STAGE + r * (BN * 2) + swizzle<CF::B_ROW_CHUNKS>(r, c) * 16;
    }

    unsigned af[2][MT][2], bf[2][NT];
    auto load_frags = [&](int buf, unsigned stage_addr, int s) {
#pragma unroll
        for (int ip = 0; ip < MT / 2; ++ip) {
            unsigned r[4];
            ldsm_x4(r, stage_addr + a_row + ip * 32 * (BK * 2) + ((s ^ a_key) << 4));
            af[buf][2 * ip][0] = r[0];
            af[buf][2 * ip][1] = r[1];
            af[buf][2 * ip + 1][0] = r[2];
            af[buf][2 * ip + 1][1] = r[3];
        }
#pragma unroll
        for (int jq = 0; jq < NT / 4; ++jq) {
            unsigned r[4];
            ldsm_x4_trans(r, stage_addr + b_lds[jq] + s * 8 * (BN * 2));
#pragma unroll
            for (int q = 0; q < 4; ++q) bf[buf][4 * jq + q] = r[q];
        }
    };

    const int KT = (K + BK - 1) / BK;

    // Prologue. The C tile (beta != 0; never read when beta == 0) goes out with tile 0, so the
    // two share one exposed latency; it stays in registers only until the stores below.
    if constexpr (ALIGNED) {
        const bool load_c = beta != 0.f;
        uint4 rc[CF::C_LOADS];
        if (load_c) {
#pragma unroll
            for (int i = 0; i < CF::C_LOADS; ++i) {
                const int gr = m0 + b_r0 + i * CF::B_ROW_STEP;
                const bool ok = gr < M && b_col_ok;  // N % 8 == 0: whole chunk in or out
                rc[i] = ldg_16(ok ? C + (size_t)gr * N + n0 + b_c * kChunk : C, ok);
            }
        }
        gload(0);
        if (load_c) {
#pragma unroll
            for (int i = 0; i < CF::C_LOADS; ++i)
                sts_16(s_base + CF::RING + (b_r0 + i * CF::B_ROW_STEP) * (BN * 2) + b_c * 16, rc[i]);
        }
    } else {
        gload(0);
    }
    sstore(0);
    if (KT > 1) gload(1);
    __syncthreads();

    unsigned read_addr = s_base;
    load_frags(0, read_addr, 0);

    for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
        for (int s = 0; s < KS; ++s) {
            if (s == KS - 1) {
                if (kt + 1 < KT) sstore((kt + 1) & 1);
                __syncthreads();
                read_addr = s_base + ((kt + 1) & 1) * CF::STAGE;
                if (kt + 2 < KT) gload(kt + 2);
            }
            // Next k8 step's fragments (first step of tile kt+1 when s == KS-1; on the last tile
            // that reads a stale buffer, harmlessly).
            load_frags((s + 1) & 1, read_addr, (s + 1) % KS);
            // All MT×NT mma of this k8 step before the next step touches the same accumulators.
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    const int jn = (i & 1) ? NT - 1 - j : j;  // serpentine: reuse B registers
                    mma_1688(acc[i][jn], af[s & 1][i][0], af[s & 1][i][1], bf[s & 1][jn]);
                }
        }
    }
}

// ------------------------------------------------------------------ kernel

template <class CF, bool ALIGNED>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
hgemm_mma(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N, int K,
          float alpha, float beta) {
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int BN = CF::BN, MT = CF::MT, NT = CF::NT;

    int m0, n0;
    tile_origin<CF>(M, N, m0, n0);

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr bool kAsync = CF::ASYNC && ALIGNED;
#else
    constexpr bool kAsync = false;  // sm_75: every config runs the register-staged loop
#endif
    if constexpr (kAsync)
        mainloop_async<CF>(A, B, C, M, N, K, beta, m0, n0, smem, acc);
    else
        mainloop_staged<CF, ALIGNED>(A, B, C, M, N, K, beta, m0, n0, smem, acc);

    // ---- epilogue (09's): out = alpha·acc + beta·C, rounded once. Accumulators go through a
    // per-warp fp32 scratch one 16-row slice at a time; in the coalesced pass lane l owns row
    // p*ROWS_PER_PASS + l/LANES_PER_ROW of the slice, columns (l % LANES_PER_ROW)*4 .. +3, so a
    // warp reads C (from the smem copy) and writes it in 8-byte runs, 128 contiguous bytes a row.
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm0 = (warp / CF::WARPS_N) * CF::WM, wn0 = (warp % CF::WARPS_N) * CF::WN;
    const int e_row = lane / CF::EPI_LANES_PER_ROW, e_col = (lane % CF::EPI_LANES_PER_ROW) * 4;
    const int gc = n0 + wn0 + e_col;

    __syncthreads();  // all warps done with the ring before it becomes scratch; C tile visible

    float* scratch = reinterpret_cast<float*>(smem) + warp * (16 * CF::EPI_LD);
    const unsigned char* c_tile = smem + CF::RING;
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            *reinterpret_cast<float2*>(scratch + g * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(alpha * acc[i][j][0], alpha * acc[i][j][1]);
            *reinterpret_cast<float2*>(scratch + (g + 8) * CF::EPI_LD + j * 8 + 2 * t) =
                make_float2(alpha * acc[i][j][2], alpha * acc[i][j][3]);
        }
        __syncwarp();
#pragma unroll
        for (int p = 0; p < CF::EPI_PASSES; ++p) {
            const int r = p * CF::EPI_ROWS_PER_PASS + e_row;
            const float4 v = *reinterpret_cast<const float4*>(scratch + r * CF::EPI_LD + e_col);
            const int gr = m0 + wm0 + i * 16 + r;
            if (gr >= M) continue;
            half* out = C + (size_t)gr * N + gc;
            if constexpr (ALIGNED) {
                if (gc < N) {  // N % 8 == 0: gc < N covers all 4 columns
                    float o[4] = {v.x, v.y, v.z, v.w};
                    if (beta != 0.f) {
                        const uint2 old = *reinterpret_cast<const uint2*>(
                            c_tile + (wm0 + i * 16 + r) * (BN * 2) + (wn0 + e_col) * 2);
                        const float2 c01 = __half22float2(*reinterpret_cast<const __half2*>(&old.x));
                        const float2 c23 = __half22float2(*reinterpret_cast<const __half2*>(&old.y));
                        o[0] += beta * c01.x;
                        o[1] += beta * c01.y;
                        o[2] += beta * c23.x;
                        o[3] += beta * c23.y;
                    }
                    *reinterpret_cast<uint2*>(out) = make_uint2(pack_half2(o[0], o[1]), pack_half2(o[2], o[3]));
                }
            } else {
                const float o[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (gc + e < N) {
                        float x = o[e];
                        if (beta != 0.f) x += beta * __half2float(out[e]);
                        out[e] = __float2half_rn(x);
                    }
                }
            }
        }
        __syncwarp();  // reads of this slice done before the next slice overwrites the scratch
    }
}

// ------------------------------------------------------------------ host side

// A failed runtime call also sets the thread's last-error state, which a caller checking
// cudaGetLastError after solve would report; the failures here are handled (the config is not
// used / solve_mma returns false), so the state is cleared.
inline bool cuda_ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
}

struct Caps {
    bool ok;
    int sms;         // multiprocessors
    int smem_optin;  // cudaDevAttrMaxSharedMemoryPerBlockOptin (A100 163 KB, T4 64 KB, H100 227 KB)
    int ptx;         // PTX arch the kernels were compiled from: < 80 => the register-staged loop runs
    int bin;         // SASS arch they run as
};

// Cached once per process (the current device at the first call).
inline const Caps& caps() {
    static const Caps c = [] {
        Caps r{false, 0, 0, 0, 0};
        int dev = 0;
        cudaFuncAttributes fa;
        if (!cuda_ok(cudaGetDevice(&dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, dev)) ||
            !cuda_ok(cudaDeviceGetAttribute(&r.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) ||
            !cuda_ok(cudaFuncGetAttributes(&fa, hgemm_mma<CfgU, false>)) || r.sms <= 0)
            return r;  // no device, or no kernel image for it
        r.ptx = fa.ptxVersion;
        r.bin = fa.binaryVersion;
        r.ok = true;
#ifdef MMA_PATH_VERBOSE
        fprintf(stderr, "[mma_path] device %d: %d SMs, opt-in smem %d B, kernels ptx %d / sass %d -> %s loop\n", dev,
                r.sms, r.smem_optin, r.ptx, r.bin, r.ptx >= 80 ? "cp.async" : "register-staged");
#endif
        return r;
    }();
    return c;
}

// Whether this device can run config CF at all; sets the >48 KB opt-in once. Checked before the
// first launch of each config and cached: smem against the opt-in limit, the function's
// maxThreadsPerBlock (registers) against the block, and occupancy >= 1 block per SM.
template <class CF, bool ALIGNED>
bool prepared(const Caps& c) {
    static const bool ok = [&c] {
        if (CF::SMEM > c.smem_optin) return false;
        if (CF::SMEM > 48 * 1024 &&
            !cuda_ok(cudaFuncSetAttribute(hgemm_mma<CF, ALIGNED>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          CF::SMEM)))
            return false;
        cudaFuncAttributes fa;
        if (!cuda_ok(cudaFuncGetAttributes(&fa, hgemm_mma<CF, ALIGNED>))) return false;
        int blocks = 0;
        if (!cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, hgemm_mma<CF, ALIGNED>, CF::THREADS,
                                                                   CF::SMEM)))
            return false;
        const bool fits = fa.maxThreadsPerBlock >= CF::THREADS && (int)fa.sharedSizeBytes + CF::SMEM <= c.smem_optin &&
                          blocks >= 1;
#ifdef MMA_PATH_VERBOSE
        fprintf(stderr,
                "[mma_path] cfg %dx%dx%d st%d %s: %d regs, %zu B local, smem %d B, %d blocks/SM, ptx %d sass %d%s\n",
                CF::BM, CF::BN, CF::BK, CF::STAGES, ALIGNED ? "aligned" : "unaligned", fa.numRegs, fa.localSizeBytes,
                CF::SMEM, blocks, fa.ptxVersion, fa.binaryVersion, fits ? "" : "  -> cannot run here");
#endif
        return fits;
    }();
    return ok;
}

template <class CF>
long long tile_count(int M, int N) {
    return (long long)((M + CF::BM - 1) / CF::BM) * ((N + CF::BN - 1) / CF::BN);
}

template <class CF, bool ALIGNED>
bool launch(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    const Caps& c = caps();
    if (!prepared<CF, ALIGNED>(c)) return false;
    const long long tiles = tile_count<CF>(M, N);
    if (tiles > 0x7fffffffLL) return false;  // gridDim.x limit (2^31 - 1)
    hgemm_mma<CF, ALIGNED><<<(unsigned)tiles, CF::THREADS, CF::SMEM>>>(A, B, C, M, N, K, alpha, beta);
    // Launch-configuration errors. (An error left pending by the caller reads the same: false.)
    return cudaGetLastError() == cudaSuccess;
}

// Relative time of a configuration (09's model): the busiest SM runs ceil(tiles / SMs) tiles of
// BM×BN, each at a throughput that falls with the tile (more shared/L2 bytes per mma).
template <class CF>
double cost(int M, int N, int sms, double efficiency) {
    const long long per_sm = (tile_count<CF>(M, N) + sms - 1) / sms;
    return (double)per_sm * CF::BM * CF::BN / efficiency;
}

// Among the L/M/S configs of one family that this device can hold, the cheapest; -1 if none.
template <class L, class Mi, class S>
int pick(const Caps& c, int M, int N, double& best) {
    const bool ok[3] = {prepared<L, true>(c), prepared<Mi, true>(c), prepared<S, true>(c)};
    const double cs[3] = {cost<L>(M, N, c.sms, 1.0), cost<Mi>(M, N, c.sms, 0.8), cost<S>(M, N, c.sms, 0.65)};
    int which = -1;
    for (int i = 0; i < 3; ++i)
        if (ok[i] && (which < 0 || cs[i] < best)) which = i, best = cs[i];
    return which;
}

// C = alpha·A·B + beta·C, fp16 row-major, fp32 accumulation; C is not read when beta == 0.
// Returns false only if nothing could be launched (no device or kernel image, no config that
// fits, launch error); true with nothing to do for empty C.
inline bool solve_mma(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return true;
    if (K < 0) K = 0;
    const Caps& c = caps();
    if (!c.ok) return false;

    const bool aligned = K % kChunk == 0 && N % kChunk == 0 &&
                         ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) |
                           reinterpret_cast<size_t>(C)) & 15) == 0;
#ifdef MMA_PATH_FORCE
    switch (aligned ? MMA_PATH_FORCE : 6) {
        case 0: return launch<CfgAL, true>(A, B, C, M, N, K, alpha, beta);
        case 1: return launch<CfgAM, true>(A, B, C, M, N, K, alpha, beta);
        case 2: return launch<CfgAS, true>(A, B, C, M, N, K, alpha, beta);
        case 3: return launch<CfgRL, true>(A, B, C, M, N, K, alpha, beta);
        case 4: return launch<CfgRM, true>(A, B, C, M, N, K, alpha, beta);
        case 5: return launch<CfgRS, true>(A, B, C, M, N, K, alpha, beta);
        case 7: return launch<CfgU, true>(A, B, C, M, N, K, alpha, beta);
        default: return launch<CfgU, false>(A, B, C, M, N, K, alpha, beta);
    }
#else
    if (!aligned) return launch<CfgU, false>(A, B, C, M, N, K, alpha, beta);

    // The family whose loop the kernels actually run (cp.async needs PTX >= 8.0 arch) first;
    // the other family as a fallback (both are correct on every arch).
    const bool async_first = c.ptx >= 80;
    double best = 0.0;
    int which = async_first ? pick<CfgAL, CfgAM, CfgAS>(c, M, N, best) : pick<CfgRL, CfgRM, CfgRS>(c, M, N, best);
    bool async = async_first;
    if (which < 0) {
        async = !async_first;
        which = async ? pick<CfgAL, CfgAM, CfgAS>(c, M, N, best) : pick<CfgRL, CfgRM, CfgRS>(c, M, N, best);
    }
    if (which < 0) return launch<CfgU, false>(A, B, C, M, N, K, alpha, beta);  // no aligned config fits
    switch (async ? which : which + 3) {
        case 0: return launch<CfgAL, true>(A, B, C, M, N, K, alpha, beta);
        case 1: return launch<CfgAM, true>(A, B, C, M, N, K, alpha, beta);
        case 2: return launch<CfgAS, true>(A, B, C, M, N, K, alpha, beta);
        case 3: return launch<CfgRL, true>(A, B, C, M, N, K, alpha, beta);
        case 4: return launch<CfgRM, true>(A, B, C, M, N, K, alpha, beta);
        default: return launch<CfgRS, true>(A, B, C, M, N, K, alpha, beta);
    }
#endif
}

}  // namespace mma_path

namespace {

// ---------------------------------------------------------------------------------------------
// Fallback: any shape and alignment, any GPU. CUDA cores, 64×64 block tile, 16×16 threads, 4×4
// outputs per thread (rows ty+16i, columns tx+16j), K in steps of 16, every global access
// bounds-checked. Also the tiny path (splits > 1, blockIdx.z = piece): a small C with a long K
// and rows TMA cannot describe (31×47×4096): each piece adds its fp32 partial into a zeroed slot
// of the tile, the last (counter, acq_rel) stores alpha·sum + beta·C and zeroes the slot: one
// launch, no padded copies (run 55: the copy launch alone cost ~4 µs of a 19 µs call).
// ---------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(256)
gemm_fallback(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
              int M, int N, int K, float alpha, float beta, int splits, float* __restrict__ part,
              int* __restrict__ count) {
    __shared__ float As[16][64 + 1];  // As[k][m]
    __shared__ float Bs[16][64 + 1];  // Bs[k][n]
    __shared__ int last;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[4][4] = {};
    const int steps = (K + 15) / 16, per = (steps + splits - 1) / splits;
    const int k_begin = min(K, static_cast<int>(blockIdx.z) * per * 16), k_end = min(K, k_begin + per * 16);

    for (int k0 = k_begin; k0 < k_end; k0 += 16) {
        for (int i = threadIdx.x; i < 64 * 16; i += 256) {
            const int ar = i / 16, ak = i % 16;  // A tile: 64 rows × 16 k
            const int gm = m0 + ar, gk = k0 + ak;
            As[ak][ar] = (gm < M && gk < k_end) ? __half2float(A[static_cast<size_t>(gm) * K + gk]) : 0.0f;
            const int bk = i / 64, bn = i % 64;  // B tile: 16 k × 64 columns
            const int gk2 = k0 + bk, gn = n0 + bn;
            Bs[bk][bn] = (gk2 < k_end && gn < N) ? __half2float(B[static_cast<size_t>(gk2) * N + gn]) : 0.0f;
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

    if (splits > 1) {
        const int tile = blockIdx.y * gridDim.x + blockIdx.x;
        float* slot = part + static_cast<size_t>(tile) * 64 * 64;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (m0 + ty + 16 * i < M && n0 + tx + 16 * j < N)
                    atomicAdd(slot + (ty + 16 * i) * 64 + tx + 16 * j, acc[i][j]);
        __syncthreads();  // the block's additions, then one release
        if (threadIdx.x == 0) last = atomic_add_acq_rel(count + tile) == splits - 1;
        __syncthreads();
        if (!last) return;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (m0 + ty + 16 * i < M && n0 + tx + 16 * j < N) {
                    float* w = slot + (ty + 16 * i) * 64 + tx + 16 * j;
                    acc[i][j] = __ldcg(w);
                    __stcg(w, 0.0f);
                }
        if (threadIdx.x == 0) count[tile] = 0;
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
// Small shapes whose rows TMA cannot describe (K or N off a multiple of 8, a misaligned
// pointer), any GPU: one launch, no padded copies. The padded path costs two more launches
// (pad_copy before, fold_c after with beta != 0), ~4 µs each, which a small GEMM cannot hide.
// 64×64 tiles of 4 warps (32×32 each), BK = 32, mma.sync m16n8k16 from ldmatrix'd swizzled
// smem, a register-staged double buffer. Loads take as many halves at once as the row stride
// and the base pointer allow (16, 8, 4 or 2 bytes, one choice per operand and launch), so an
// odd K costs 2-byte loads of A only. A long K over few tiles is split (blockIdx.z): each piece
// adds its fp32 partial into the tile's zeroed slot, the last piece (counter, acq_rel) applies
// alpha and beta, stores C and zeroes the slot, as the tiny path does.
// ---------------------------------------------------------------------------------------------
namespace any_path {

// Tiles of BM × BN (64 × 64, or 32 × 32 for grids of few tiles: GEMM_RING_SMALL_WAVES), 4 warps
// of (BM / 2) × (BN / 2) each: MI m16 tiles by NJ n8 tiles.
constexpr int THREADS = 128;
template <int BM, int BN>
struct Tile {
    static constexpr int MI = BM / 32, NJ = BN / 16, WM = BM / 2, WN = BN / 2;
};

// Halves [0, n) of p (n <= 8) as 8 halves, zeros past n; `vec` halves a load when the chunk is
// whole (p is then vec-aligned: the caller's row stride and base pointer say so).
__device__ __forceinline__ uint4 load8(const half* p, int n, int vec) {
    if (n >= 8) {
        if (vec == 8) return __ldg(reinterpret_cast<const uint4*>(p));
        if (vec == 4) {
            const uint2 a = __ldg(reinterpret_cast<const uint2*>(p)), b = __ldg(reinterpret_cast<const uint2*>(p) + 1);
            return make_uint4(a.x, a.y, b.x, b.y);
        }
        if (vec == 2) {
            const unsigned* q = reinterpret_cast<const unsigned*>(p);
            return make_uint4(__ldg(q), __ldg(q + 1), __ldg(q + 2), __ldg(q + 3));
        }
    }
    const unsigned short* h = reinterpret_cast<const unsigned short*>(p);
    unsigned w[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const unsigned lo = 2 * e < n ? __ldg(h + 2 * e) : 0u;
        const unsigned hi = 2 * e + 1 < n ? __ldg(h + 2 * e + 1) : 0u;
        w[e] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// A 16-byte smem chunk as 16 / BYTES cp.async copies of BYTES (8 or 4) from p, where n (0..8)
// halves are valid: a copy's src-size is what of it lies below n (0 reads nothing: it points at
// `base`, aligned to BYTES), the rest zero-filled. sm_80 and newer only.
template <int BYTES>
__device__ __forceinline__ void cp_pieces(unsigned dst, const half* p, int n, const half* base) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
    for (int i = 0; i < 16 / BYTES; ++i) {
        const int b = max(0, min(BYTES, 2 * n - BYTES * i));
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst + BYTES * i),
                     "l"(b > 0 ? p + BYTES / 2 * i : base), "n"(BYTES), "r"(b)
                     : "memory");
    }
#else
    (void)dst, (void)p, (void)n, (void)base;
#endif
}

// The 16 halves of chunk c of a smem row: n (0..8) valid halves at p copied by vec-wide (8, 4 or 2
// halves) cp.async copies, zeros past n (src-size below cp-size zero-fills; a copy with nothing
// to read points at `base`, which has the copy's alignment). Below sm_80 a synchronous copy, so
// that it stays correct; solve only launches the ring there when the build has cp.async.
__device__ __forceinline__ void cp_chunk(unsigned dst, const half* p, int n, int vec, const half* base) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (vec == 8) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(n > 0 ? p : base),
                     "r"(2 * n)
                     : "memory");
    } else if (vec == 4) {
        cp_pieces<8>(dst, p, n, base);
    } else {
        cp_pieces<4>(dst, p, n, base);
    }
#else
    (void)base;
    mma_path::sts_16(dst, n > 0 ? load8(p, n, vec) : make_uint4(0u, 0u, 0u, 0u));
#endif
}

// Calls f(i, j, e) for every accumulator of a warp's MI·16 × NJ·8 tile: (i, j, e) is row
// wm0 + 16i + g (+8 for e >= 2), column wn0 + 8j + 2t (+1 for odd e).
template <int MI, int NJ, class F>
__device__ __forceinline__ void for_each_acc(F&& f) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) f(i, j, e);
}

// One stage of BK k (smem at sa, A rows of BK halves then B rows of BN, 09's swizzle) into a
// warp's accumulators at (wm0, wn0).
template <int BM, int BN, int BK>
__device__ __forceinline__ void mma_stage(float (&acc)[BM / 32][BN / 16][4], unsigned sa, int wm0, int wn0,
                                          int lane) {
    using mma_path::swizzle;
    constexpr int A_CH = BK / 8, B_CH = BN / 8, A_STAGE = BM * BK * 2, MI = BM / 32, NJ = BN / 16;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
        // ldmatrix x4: A lanes address rows (lane & 15), k chunk 2kk + (lane >> 4) = the mma's
        // a0..a3; B (.trans) k rows 16kk + (lane & 15), n chunks 2jj + (lane >> 4) = b0 b1 of
        // n8 tiles 2jj and 2jj + 1
        unsigned af[MI][4], bf[NJ][2];
#pragma unroll
        for (int i = 0; i < MI; ++i) {
            const int r = wm0 + 16 * i + (lane & 15), c = 2 * kk + (lane >> 4);
            mma_path::ldsm_x4(af[i], sa + r * (BK * 2) + swizzle<A_CH>(r, c) * 16);
        }
#pragma unroll
        for (int jj = 0; jj < NJ / 2; ++jj) {
            const int r = 16 * kk + (lane & 15), c = wn0 / 8 + 2 * jj + (lane >> 4);
            unsigned q[4];
            mma_path::ldsm_x4_trans(q, sa + A_STAGE + r * (BN * 2) + swizzle<B_CH>(r, c) * 16);
            bf[2 * jj][0] = q[0];
            bf[2 * jj][1] = q[1];
            bf[2 * jj + 1][0] = q[2];
            bf[2 * jj + 1][1] = q[3];
        }
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NJ; ++j) mma_path::mma_16816(acc[i][j], af[i], bf[j][0], bf[j][1]);
    }
}

// C = alpha·acc + beta·C a row at a time, for C whose rows start on odd halves (odd N: every
// other row; a C only 2-byte aligned: half of them). In the fragment layout a warp's store
// touches 8 rows, 8 bytes of each in 2-byte pieces, so every 32-byte sector of C is written in
// several partial pieces. Here the sums go through shared memory (the ring's stages, free after
// the K loop; rows of BN + 8 floats, so the fragment layout's float2 writes hit distinct banks)
// and BN / 2 lanes take a row: lane p the 4-byte word of columns 2p, 2p + 1, or, where the row
// starts on an odd half, 2p + 1, 2p + 2, the last lane then the row's first and last columns
// alone. A warp's accesses are contiguous words of one or two rows. Old C is read the same way,
// every read before any store (a store between two reads would order them).
template <int BM, int BN>
__device__ __forceinline__ void store_rows(const float (&acc)[BM / 32][BN / 16][4], unsigned char* stage,
                                           half* __restrict__ C, int M, int N, float alpha, float beta) {
    using T = Tile<BM, BN>;
    constexpr int LD = BN + 8, LANES = BN / 2, PASS = THREADS / LANES, R = BM / PASS;
    static_assert(THREADS % LANES == 0 && BM % PASS == 0, "whole rows a pass");
    float* st = reinterpret_cast<float*>(stage);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, wm0 = (warp >> 1) * T::WM, wn0 = (warp & 1) * T::WN;
    mma_path::cp_async_wait<0>();  // only empty groups are left; none may land in the staging
    __syncthreads();               // every warp past its last k-step: the stages are free
    for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
        if (e & 1) return;
        const int r = wm0 + 16 * i + g + (e >> 1) * 8, c = wn0 + 8 * j + 2 * t;
        *reinterpret_cast<float2*>(st + r * LD + c) = make_float2(acc[i][j][e], acc[i][j][e + 1]);
    });
    __syncthreads();
    const int p = tid % LANES, r0 = tid / LANES;
    const size_t c_half = reinterpret_cast<uintptr_t>(C) / 2;  // C's first element, in halves
    int c0[R];
    bool odd[R], v0[R], v1[R];
    float o0[R], o1[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
        const int gm = m0 + r0 + PASS * q;
        odd[q] = (c_half + static_cast<size_t>(gm) * N + n0) & 1;
        const bool alone = odd[q] && p == LANES - 1;  // columns 0 and BN - 1
        c0[q] = alone ? 0 : 2 * p + (odd[q] ? 1 : 0);
        const int c1 = alone ? BN - 1 : c0[q] + 1;
        v0[q] = gm < M && n0 + c0[q] < N;
        v1[q] = gm < M && n0 + c1 < N;
        o0[q] = o1[q] = 0.0f;
        if (beta == 0.0f) continue;
        const half* src = C + static_cast<size_t>(gm) * N + n0;
        if (!alone && v0[q] && v1[q]) {  // c0 is word-aligned in C: the pair is one word
            const float2 o = __half22float2(*reinterpret_cast<const half2*>(src + c0[q]));
            o0[q] = o.x;
            o1[q] = o.y;
        } else {
            if (v0[q]) o0[q] = __half2float(src[c0[q]]);
            if (v1[q]) o1[q] = __half2float(src[c1]);
        }
    }
#pragma unroll
    for (int q = 0; q < R; ++q) {
        const int r = r0 + PASS * q, gm = m0 + r;
        const bool alone = odd[q] && p == LANES - 1;
        const int c1 = alone ? BN - 1 : c0[q] + 1;
        const float x0 = alpha * st[r * LD + c0[q]] + beta * o0[q], x1 = alpha * st[r * LD + c1] + beta * o1[q];
        half* dst = C + static_cast<size_t>(gm) * N + n0;
        if (!alone && v0[q] && v1[q]) {
            *reinterpret_cast<half2*>(dst + c0[q]) = __floats2half2_rn(x0, x1);
        } else {
            if (v0[q]) dst[c0[q]] = __float2half_rn(x0);
            if (v1[q]) dst[c1] = __float2half_rn(x1);
        }
    }
}

// The epilogue of C tile (blockIdx.x, blockIdx.y), piece blockIdx.z: with K split, each piece
// adds into the tile's fp32 slot and the last to arrive (an acq_rel counter) takes the sum,
// clears the slot and counter for the next call, and stores C = alpha·sum + beta·C.
// Every global read is issued before any store: a store to C (or the slot) between two reads
// would make each read wait for the one before (the compiler cannot tell the addresses apart),
// 32 round trips in a row. A thread's accumulators come in column pairs (e, e + 1), half the
// memory instructions of single values (GEMM_ANY_PAIRS): one half2 access of C when N is even and
// C 4-byte aligned, and on sm_90 one v2 red into the slot for any N (the slot is BN wide; a
// pair's column past N adds the zero its B columns gave, and no one reads it).
template <int BM, int BN, bool ROWS = false>
__device__ __forceinline__ void finish(float (&acc)[BM / 32][BN / 16][4], half* __restrict__ C, int M, int N,
                                       float alpha, float beta, float* __restrict__ part, int* __restrict__ count,
                                       unsigned char* stage = nullptr) {
    using T = Tile<BM, BN>;
    __shared__ int last;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, wm0 = (warp >> 1) * T::WM, wn0 = (warp & 1) * T::WN;
    const auto row = [&](int i, int e) { return wm0 + 16 * i + g + (e >> 1) * 8; };
    const auto col = [&](int j, int e) { return wn0 + 8 * j + 2 * t + (e & 1); };
    const auto in = [&](int i, int j, int e) { return m0 + row(i, e) < M && n0 + col(j, e) < N; };
    const auto c_at = [&](int i, int j, int e) { return C + static_cast<size_t>(m0 + row(i, e)) * N + n0 + col(j, e); };
    // pairs: e even, column even; with N even the pair is inside C whenever its first half is
    const bool pairs = GEMM_ANY_PAIRS && N % 2 == 0 && reinterpret_cast<uintptr_t>(C) % 4 == 0;
    const int tile = blockIdx.y * gridDim.x + blockIdx.x;
    float* slot = gridDim.z > 1 ? part + static_cast<size_t>(tile) * BM * BN : nullptr;
    const auto s_at = [&](int i, int j, int e) { return slot + row(i, e) * BN + col(j, e); };
    if (gridDim.z > 1) {
        for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
            if (GEMM_ANY_PAIRS) {  // the slot is BN floats a row: a pair is 8-byte aligned
                if ((e & 1) == 0 && in(i, j, e))
                    asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(s_at(i, j, e)), "f"(acc[i][j][e]),
                                 "f"(acc[i][j][e + 1])
                                 : "memory");
                return;
            }
#endif
            if (in(i, j, e)) atomicAdd(s_at(i, j, e), acc[i][j][e]);
        });
        __syncthreads();  // the block's additions, then one release
        if (tid == 0) last = atomic_add_acq_rel(count + tile) == static_cast<int>(gridDim.z) - 1;
        __syncthreads();
        if (!last) return;
        for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
            if (in(i, j, e)) acc[i][j][e] = __ldcg(s_at(i, j, e));
        });
    }
    if constexpr (ROWS) {
        if (gridDim.z > 1) {
            for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
                if (in(i, j, e)) __stcg(s_at(i, j, e), 0.0f);
            });
            if (tid == 0) count[tile] = 0;
        }
        store_rows<BM, BN>(acc, stage, C, M, N, alpha, beta);
        return;
    }
    float old[T::MI][T::NJ][4];
    for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
        if (pairs) {
            if (e & 1) return;
            float2 o = make_float2(0.0f, 0.0f);
            if (beta != 0.0f && in(i, j, e)) o = __half22float2(*reinterpret_cast<const half2*>(c_at(i, j, e)));
            old[i][j][e] = o.x;
            old[i][j][e + 1] = o.y;
        } else {
            old[i][j][e] = beta != 0.0f && in(i, j, e) ? __half2float(*c_at(i, j, e)) : 0.0f;
        }
    });
    if (gridDim.z > 1) {
        for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
            if (in(i, j, e)) __stcg(s_at(i, j, e), 0.0f);
        });
        if (tid == 0) count[tile] = 0;
    }
    for_each_acc<T::MI, T::NJ>([&](int i, int j, int e) {
        if (pairs) {
            if ((e & 1) == 0 && in(i, j, e))
                *reinterpret_cast<half2*>(c_at(i, j, e)) = __floats2half2_rn(alpha * acc[i][j][e] + beta * old[i][j][e],
                                                                             alpha * acc[i][j][e + 1] +
                                                                                 beta * old[i][j][e + 1]);
        } else if (in(i, j, e)) {
            *c_at(i, j, e) = __float2half_rn(alpha * acc[i][j][e] + beta * old[i][j][e]);
        }
    });
}

// The copy of a stage: thread tid moves A chunks (rows a_r + i·A_STEP, chunk a_c) and B chunks
// (k rows b_r + i·B_STEP, chunk b_c) of a BM×BK and a BK×BN tile.
template <int BM, int BN, int BK>
struct Copy {
    static constexpr int A_CH = BK / 8, B_CH = BN / 8;                          // 16-byte chunks a smem row
    static constexpr int A_STAGE = BM * BK * 2, STAGE = A_STAGE + BK * BN * 2;  // bytes
    static constexpr int A_LD = BM * A_CH / THREADS, B_LD = BK * B_CH / THREADS;  // chunks a thread
    static constexpr int A_STEP = THREADS / A_CH, B_STEP = THREADS / B_CH;        // rows between them
    static_assert(A_STEP % 8 == 0 && B_STEP % 8 == 0, "a thread's rows share a swizzle key");
    // valid halves of A chunk i / B chunk i of the k-step at k0 (0 past the matrix or the piece)
    __device__ static int a_n(int i, int tid, int m0, int k0, int k_end, int M) {
        const int gm = m0 + tid / A_CH + A_STEP * i, gk = k0 + (tid % A_CH) * 8;
        return gm < M ? max(0, min(8, k_end - gk)) : 0;
    }
    __device__ static int b_n(int i, int tid, int n0, int k0, int k_end, int N) {
        const int gk = k0 + tid / B_CH + B_STEP * i, gn = n0 + (tid % B_CH) * 8;
        return gk < k_end ? max(0, min(8, N - gn)) : 0;
    }
    __device__ static const half* a_src(const half* A, int i, int tid, int m0, int k0, int K) {
        return A + static_cast<size_t>(m0 + tid / A_CH + A_STEP * i) * K + k0 + (tid % A_CH) * 8;
    }
    __device__ static const half* b_src(const half* B, int i, int tid, int n0, int k0, int N) {
        return B + static_cast<size_t>(k0 + tid / B_CH + B_STEP * i) * N + n0 + (tid % B_CH) * 8;
    }
    __device__ static unsigned a_dst(unsigned stage, int i, int tid) {
        const int r = tid / A_CH + A_STEP * i;
        return stage + r * (BK * 2) + mma_path::swizzle<A_CH>(r, tid % A_CH) * 16;
    }
    __device__ static unsigned b_dst(unsigned stage, int i, int tid) {
        const int kr = tid / B_CH + B_STEP * i;
        return stage + A_STAGE + kr * (BN * 2) + mma_path::swizzle<B_CH>(kr, tid % B_CH) * 16;
    }
};

// C tile (blockIdx.x, blockIdx.y) over K piece blockIdx.z (k_per halves, a multiple of BK).
// va, vb: halves per load of A and B (8, 4, 2 or 1). Loads go through registers into a double
// buffer: one k-step of compute hides them. The sm_75 path (no cp.async); BK 64 halves the
// k-steps, each of which waits once for its loads, when K is long enough to fill them.
template <int BK>
__global__ void __launch_bounds__(THREADS)
gemm_any(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N, int K,
         float alpha, float beta, int va, int vb, int k_per, float* __restrict__ part, int* __restrict__ count) {
    constexpr int BM = 64, BN = 64;
    using L = Copy<BM, BN, BK>;
    using T = Tile<BM, BN>;
    __shared__ __align__(128) unsigned char smem[2 * L::STAGE];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per, k_end = min(K, k_begin + k_per);
    const int KT = (k_end - k_begin + BK - 1) / BK;
    const unsigned s_base = mma_path::smem_addr(smem);
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    uint4 ra[L::A_LD], rb[L::B_LD];
    auto gload = [&](int kt) {
        const int k0 = k_begin + kt * BK;
#pragma unroll
        for (int i = 0; i < L::A_LD; ++i) {
            const int n = L::a_n(i, tid, m0, k0, k_end, M);
            ra[i] = n > 0 ? load8(L::a_src(A, i, tid, m0, k0, K), n, va) : zero;
        }
#pragma unroll
        for (int i = 0; i < L::B_LD; ++i) {
            const int n = L::b_n(i, tid, n0, k0, k_end, N);
            rb[i] = n > 0 ? load8(L::b_src(B, i, tid, n0, k0, N), n, vb) : zero;
        }
    };
    auto sstore = [&](int buf) {
#pragma unroll
        for (int i = 0; i < L::A_LD; ++i) mma_path::sts_16(L::a_dst(s_base + buf * L::STAGE, i, tid), ra[i]);
#pragma unroll
        for (int i = 0; i < L::B_LD; ++i) mma_path::sts_16(L::b_dst(s_base + buf * L::STAGE, i, tid), rb[i]);
    };

    float acc[T::MI][T::NJ][4] = {};
    if (KT > 0) {
        gload(0);
        sstore(0);
        if (KT > 1) gload(1);
    }
    __syncthreads();
    for (int kt = 0; kt < KT; ++kt) {
        mma_stage<BM, BN, BK>(acc, s_base + (kt & 1) * L::STAGE, (warp >> 1) * T::WM, (warp & 1) * T::WN, lane);
        // buffer (kt + 1) & 1 was last read in step kt - 1, before the previous barrier
        if (kt + 1 < KT) sstore((kt + 1) & 1);
        __syncthreads();
        if (kt + 2 < KT) gload(kt + 2);
    }
    finish<BM, BN>(acc, C, M, N, alpha, beta, part, count);
}

// gemm_any's tile on sm_80 and newer: a STAGES-deep cp.async ring of 32-wide k-steps, so the
// loads of STAGES - 1 steps are in flight while one computes (a piece of up to STAGES - 1 steps
// waits for memory once). An operand whose rows allow only 2-byte loads (vec 1: cp.async copies
// 4 bytes or more) goes through registers one step ahead, as in gemm_any.
template <int STAGES, int BM, int BN, bool ROWS = false>
__global__ void __launch_bounds__(THREADS, GEMM_RING_MIN_BLOCKS)
gemm_ring(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N, int K,
          float alpha, float beta, int va, int vb, int k_per, float* __restrict__ part, int* __restrict__ count) {
    constexpr int BK = 32;
    using L = Copy<BM, BN, BK>;
    using T = Tile<BM, BN>;
    static_assert(STAGES >= 3, "the register operand's buffer (kt + 1) must not be the one being filled");
    __shared__ __align__(128) unsigned char smem[STAGES * L::STAGE];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per, k_end = min(K, k_begin + k_per);
    const int KT = (k_end - k_begin + BK - 1) / BK;
    const unsigned s_base = mma_path::smem_addr(smem);
    const bool a_reg = va == 1, b_reg = vb == 1;
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    const auto stage = [&](int kt) { return s_base + (kt % STAGES) * L::STAGE; };
    auto copy_async = [&](int kt) {  // the cp.async operands of step kt
        const int k0 = k_begin + kt * BK;
        if (!a_reg)
#pragma unroll
            for (int i = 0; i < L::A_LD; ++i)
                cp_chunk(L::a_dst(stage(kt), i, tid), L::a_src(A, i, tid, m0, k0, K),
                         L::a_n(i, tid, m0, k0, k_end, M), va, A);
        if (!b_reg)
#pragma unroll
            for (int i = 0; i < L::B_LD; ++i)
                cp_chunk(L::b_dst(stage(kt), i, tid), L::b_src(B, i, tid, n0, k0, N),
                         L::b_n(i, tid, n0, k0, k_end, N), vb, B);
    };
    uint4 ra[L::A_LD], rb[L::B_LD];
    auto reg_load = [&](int kt) {  // the register operands of step kt ...
        const int k0 = k_begin + kt * BK;
        if (a_reg)
#pragma unroll
            for (int i = 0; i < L::A_LD; ++i) {
                const int n = L::a_n(i, tid, m0, k0, k_end, M);
                ra[i] = n > 0 ? load8(L::a_src(A, i, tid, m0, k0, K), n, 1) : zero;
            }
        if (b_reg)
#pragma unroll
            for (int i = 0; i < L::B_LD; ++i) {
                const int n = L::b_n(i, tid, n0, k0, k_end, N);
                rb[i] = n > 0 ? load8(L::b_src(B, i, tid, n0, k0, N), n, 1) : zero;
            }
    };
    auto reg_store = [&](int kt) {  // ... and into its stage
        if (a_reg)
#pragma unroll
            for (int i = 0; i < L::A_LD; ++i) mma_path::sts_16(L::a_dst(stage(kt), i, tid), ra[i]);
        if (b_reg)
#pragma unroll
            for (int i = 0; i < L::B_LD; ++i) mma_path::sts_16(L::b_dst(stage(kt), i, tid), rb[i]);
    };

    float acc[T::MI][T::NJ][4] = {};
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) copy_async(s);
        mma_path::cp_async_commit();  // one group a step, empty or not: wait_group counts them
    }
    if (KT > 0) {
        reg_load(0);
        reg_store(0);
        if (KT > 1) reg_load(1);
    }
    for (int kt = 0; kt < KT; ++kt) {
        mma_path::cp_async_wait<STAGES - 2>();  // step kt's copies (this thread's) have landed
        __syncthreads();                         // ... everyone's; step kt - 1's stage is free
        if (kt + STAGES - 1 < KT) copy_async(kt + STAGES - 1);
        mma_path::cp_async_commit();
        mma_stage<BM, BN, BK>(acc, stage(kt), (warp >> 1) * T::WM, (warp & 1) * T::WN, lane);
        // step kt + 1's stage is neither read (kt) nor filled (kt + STAGES - 1) in this step
        if (kt + 1 < KT) reg_store(kt + 1);
        if (kt + 2 < KT) reg_load(kt + 2);
    }
    static_assert(BM * (BN + 8) * 4 <= STAGES * L::STAGE, "the row epilogue's staging fits the ring");
    finish<BM, BN, ROWS>(acc, C, M, N, alpha, beta, part, count, smem);
}

}  // namespace any_path

// ---------------------------------------------------------------------------------------------
// Odd shapes: TMA needs 16-byte global row strides and base addresses, so when K or N is not a
// multiple of 8 (or a pointer is not 16-byte aligned) the operands that break the rule are copied
// into a cached workspace with rows padded to a multiple of 8 halves, and C with odd N is
// computed into such a buffer (beta = 0) and folded into the real C by one pass. The tensor maps
// keep the true column counts, so the padding is never read (TMA zero-fills past them).
// Why copies, not a predicated load path: at 4095³ the copies move ~200 MB (~50 µs at ~4 TB/s)
// against a ~190 µs GEMM that keeps its aligned speed; a cp.async-fed wgmma with 2-byte
// predicated loads cannot be fed at that rate (rows of odd length are 2-byte aligned).
// ---------------------------------------------------------------------------------------------
struct PadJob {
    const half* src;
    half* dst;
    int rows, cols, ld_src, ld_dst;  // ld_dst % 8 == 0
    int src_rows;                    // rows past it are zeros (the mma path's K padded to 8)
};

// The 8 halves that start s (0..7) halves into the 16 of lo:hi, by word selects and PRMT (no
// local-memory indexing).
__device__ __forceinline__ uint4 window8(const uint4 lo, const uint4 hi, int s) {
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const int q = s >> 1;
    uint32_t v[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) v[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
    uint32_t o[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) o[k] = (s & 1) ? __byte_perm(v[k], v[k + 1], 0x5432) : v[k];
    return make_uint4(o[0], o[1], o[2], o[3]);
}

// The first n (1..8) halves of x, zeros after them.
__device__ __forceinline__ uint4 keep_halves(const uint4 x, int n) {
    uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k] = 2 * k >= n ? 0u : 2 * k + 1 >= n ? (w[k] & 0xFFFFu) : w[k];
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// One launch for both jobs (blockIdx.y), rows strided over blockIdx.x: a thread per 16-byte chunk
// of a destination row (8 halves, one 16-byte store). An odd-length source row is only 2-byte
// aligned, so the chunk's 8 halves are cut out of the (at most) two aligned 16-byte chunks of
// the source that hold them (window8); a warp's loads are 512 contiguous bytes (+16), each byte
// from DRAM once. Chunks whose aligned source would reach outside [src, last element] (the
// first one of a misaligned src, the last one of the last row) take 2-byte loads. (Run 54: 8
// 2-byte loads 16 bytes apart a lane made the odd-N path 0.115 ms slower than aligned; run 55
// onwards: a 4-byte store from two 2-byte loads a thread, ~3.7 TB/s.)
__global__ void __launch_bounds__(256) pad_copy(PadJob j0, PadJob j1) {
    grid_launch_dependents();  // the GEMM after may be scheduled now; it waits for these copies
    const PadJob j = blockIdx.y == 0 ? j0 : j1;
    const unsigned short* src = reinterpret_cast<const unsigned short*>(j.src);
    const int hs = static_cast<int>((reinterpret_cast<uintptr_t>(src) >> 1) & 7);
    const uint4* s4 = reinterpret_cast<const uint4*>(src - hs);  // position p: src[p - hs]
    // positions [hs, end) are the source's elements (rows past src_rows are never read)
    const long long end = j.src_rows > 0 ? hs + static_cast<long long>(j.src_rows - 1) * j.ld_src + j.cols : 0;
    uint4* dst = reinterpret_cast<uint4*>(j.dst);
    const int chunks = j.ld_dst / 8;
    for (int r = blockIdx.x; r < j.rows; r += gridDim.x) {
        uint4* d = dst + static_cast<size_t>(r) * chunks;
        const bool live = r < j.src_rows;
        const long long p_row = hs + static_cast<long long>(r) * j.ld_src;
        for (int t = threadIdx.x; t < chunks; t += 256) {
            const int c0 = 8 * t;
            uint4 out = make_uint4(0u, 0u, 0u, 0u);
            if (live && c0 < j.cols) {
                const long long p = p_row + c0;
                const long long a = p >> 3;
                const int sh = static_cast<int>(p & 7);
                if (8 * a >= hs && 8 * a + (sh ? 16 : 8) <= end) {
                    const uint4 lo = __ldg(s4 + a);
                    out = window8(lo, sh ? __ldg(s4 + a + 1) : lo, sh);
                    if (c0 + 8 > j.cols) out = keep_halves(out, j.cols - c0);
                } else {
                    const unsigned short* sr = src + static_cast<size_t>(r) * j.ld_src;
                    uint32_t w[4];
#pragma unroll
                    for (int k = 0; k < 4; ++k) {
                        const int c = c0 + 2 * k;
                        const uint32_t lo16 = c < j.cols ? sr[c] : 0u;
                        const uint32_t hi16 = c + 1 < j.cols ? sr[c + 1] : 0u;
                        w[k] = lo16 | (hi16 << 16);
                    }
                    out = make_uint4(w[0], w[1], w[2], w[3]);
                }
            }
            d[t] = out;
        }
    }
}

// x + beta·o for 8 halves (fp32 sums, one rounding: the pair path's arithmetic).
__device__ __forceinline__ uint4 add_scaled(const uint4 x, const uint4 o, float beta) {
    const uint32_t xs[4] = {x.x, x.y, x.z, x.w}, os[4] = {o.x, o.y, o.z, o.w};
    uint32_t r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        float2 a = __half22float2(*reinterpret_cast<const __half2*>(&xs[k]));
        const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&os[k]));
        a.x += beta * b.x;
        a.y += beta * b.y;
        const __half2 h = __floats2half2_rn(a.x, a.y);
        r[k] = *reinterpret_cast<const uint32_t*>(&h);
    }
    return make_uint4(r[0], r[1], r[2], r[3]);
}

// C (M×N, row stride N) = W + beta·C, W the GEMM's alpha·AB (row stride ldw, a multiple of 8,
// 16-byte aligned); C is not read when beta == 0. A thread per 16-byte chunk of C seen as one
// flat array (C's own alignment: one 16-byte load and store), W's 8 halves cut out of its two
// aligned chunks (window8). A chunk belongs to the row of its first element; the few that cross
// a row end (or C's ends) go element by element. Rows strided over the blocks. (Runs 56–70: a
// 4-byte pair of C a thread, W by 2-byte loads in half the rows: 39.7 µs at 4095³, 2.5 TB/s.)
__global__ void __launch_bounds__(256) fold_c(const half* __restrict__ W, int ldw, half* __restrict__ C,
                                              int M, int N, float beta) {
    grid_dependency_wait();  // launched as a dependent of the Hopper kernels (launch_fold)
    const bool rd = beta != 0.0f;
    const int hc = static_cast<int>((reinterpret_cast<uintptr_t>(C) >> 1) & 7);
    uint4* c4 = reinterpret_cast<uint4*>(C - hc);  // chunk q: C's flat elements 8q - hc .. 8q - hc + 7
    const uint4* w4 = reinterpret_cast<const uint4*>(W);
    const long long total = static_cast<long long>(M) * N;
    for (int r = blockIdx.x; r < M; r += gridDim.x) {
        const long long g_row = hc + static_cast<long long>(r) * N;  // chunk position of (r, 0)
        const long long q_lo = r == 0 ? 0 : (g_row + 7) >> 3;       // row 0 also owns a head chunk
        const long long q_hi = (g_row + N + 7) >> 3;
        for (long long q = q_lo + threadIdx.x; q < q_hi; q += 256) {
            const long long f0 = 8 * q - hc;  // C's flat index of the chunk's first half (< 0: head)
            const int c0 = static_cast<int>(f0 - static_cast<long long>(r) * N);
            if (f0 >= 0 && f0 + 8 <= total && c0 + 8 <= N) {
                const long long wa = (static_cast<long long>(r) * ldw + c0) >> 3;
                const int sh = c0 & 7;  // W's rows are 8-aligned
                // W read once: evict-first loads (it was stored evict_last for this pass, GEMM_CW_KEEP_L2)
                const uint4 lo = __ldcs(w4 + wa);
                const uint4 x = window8(lo, sh ? __ldcs(w4 + wa + 1) : lo, sh);  // same W row: c0 + 8 <= N <= ldw
                c4[q] = rd ? add_scaled(x, c4[q], beta) : x;
                continue;
            }
            for (int e = 0; e < 8; ++e) {
                const long long f = f0 + e;
                if (f < 0 || f >= total) continue;
                const int ce = c0 + e;  // >= 0 here; >= N past this row's end
                const int rr = r + ce / N, c = ce % N;
                float x = __half2float(W[static_cast<size_t>(rr) * ldw + c]);
                if (rd) x += beta * __half2float(C[f]);
                C[f] = __float2half_rn(x);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Host side: build features, workspaces, driver entry point, tensor-map cache, launch.
// ---------------------------------------------------------------------------------------------
// 1 in the device code of a build with sm_90a's features, else 0 (the Hopper kernels are empty
// there). Read once: a build whose Hopper bodies were compiled out never launches them (built as
// compute_80 PTX, such a launch "succeeded" in 1.3 µs with every element wrong).
__device__ const int kDevHasSm90a = GEMM_SM90A_DEVICE;
// 1 where the device code has cp.async (sm_80 and newer): gemm_ring's copies are asynchronous.
// The device's own capability does not say it: compute_75 PTX runs on an H200 too.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
__device__ const int kDevHasCpAsync = 0;
#else
__device__ const int kDevHasCpAsync = 1;
#endif

// A device flag's value (0 if it cannot be read: the caller falls back to the plainer path).
int device_flag(const int& symbol) {
    int d = 0;
    if (cudaMemcpyFromSymbol(&d, symbol, sizeof(d)) != cudaSuccess) {
        cudaGetLastError();  // not this solve's error to report
        d = 0;
    }
    return d;
}
bool has_sm90a() {
    static const int v = device_flag(kDevHasSm90a);
    return v == 1;
}
bool has_cp_async() {
    static const int v = device_flag(kDevHasCpAsync);
    return v == 1;
}

// A device buffer that grows on demand and is never freed (cudaMalloc once per size class, so
// no timed call after the first allocates); `zeroed`: cleared once when (re)allocated.
struct DevBuffer {
    void* ptr;
    size_t bytes;
};
bool ensure(DevBuffer& b, size_t bytes, bool zeroed) {
    if (b.bytes >= bytes) return true;
    if (b.ptr) cudaFree(b.ptr);  // synchronizes: no kernel of an earlier call still uses it
    b.ptr = nullptr;
    b.bytes = 0;
    if (cudaMalloc(&b.ptr, bytes) != cudaSuccess) {
        cudaGetLastError();
        b.ptr = nullptr;
        return false;
    }
    if (zeroed && cudaMemset(b.ptr, 0, bytes) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(b.ptr);
        b.ptr = nullptr;
        return false;
    }
    b.bytes = bytes;
    return true;
}
DevBuffer g_pad = {nullptr, 0};    // padded copies of A, B and the odd-N C
DevBuffer g_split = {nullptr, 0};  // serial split-K: fp32 partial slots, then their counters
DevBuffer g_tiny = {nullptr, 0};   // the tiny path's slots and counters (gemm_fallback, splits > 1)
DevBuffer g_any = {nullptr, 0};    // gemm_ring / gemm_any: slots and counters (split K)

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
        else
            cudaGetLastError();
    }
    return fn;
}

// Row-major fp16 matrix rows × cols with row stride ld (elements, a multiple of 8), box =
// box_rows × 64 columns (128 bytes), 128B swizzle, zero fill out of bounds. Cached by (pointer,
// shape, stride, box).
struct MapEntry {
    CUtensorMap map;  // 64-byte aligned member (CUtensorMap is declared alignas(64))
    const void* ptr;
    uint64_t rows, cols, ld;
    uint32_t box_rows;
    bool used;
};
constexpr int kMapCache = 16;
MapEntry g_maps[kMapCache];
int g_map_next = 0;

bool get_tensor_map(const half* ptr, uint64_t rows, uint64_t cols, uint64_t ld, uint32_t box_rows,
                    CUtensorMap* out) {
    for (int i = 0; i < kMapCache; ++i) {
        const MapEntry& e = g_maps[i];
        if (e.used && e.ptr == ptr && e.rows == rows && e.cols == cols && e.ld == ld && e.box_rows == box_rows) {
            *out = e.map;
            return true;
        }
    }
    PFN_cuTensorMapEncodeTiled_v12000 encode = get_encode_fn();
    if (!encode) return false;
    MapEntry& e = g_maps[g_map_next];
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {ld * sizeof(half)};
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
    e.ld = ld;
    e.box_rows = box_rows;
    e.used = true;
    g_map_next = (g_map_next + 1) % kMapCache;
    *out = e.map;
    return true;
}

// The three operands as the Hopper kernels see them: pointer and row stride (elements).
struct Operands {
    const half* A;
    const half* B;
    half* C;
    int lda, ldb, ldc;
    bool direct;  // C's rows not 16-byte strided: no C tensor map, the epilogues store C themselves
    bool keep_c;  // C is the padded result fold_c reads right after: stored with evict_last
    bool pdl;     // launched right after pad_copy: a programmatic dependent launch (ClusterLaunch)
};


int num_sms() {
    static int n = 0;
    if (n == 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) {
            cudaGetLastError();
            n = 132;
        }
    }
    return n;
}


// A launch of `ctas` CTAs on the default stream, in clusters of `cm` along x when cm > 1, and
// as a programmatic dependent launch when `pdl`: the grid may be scheduled while the kernel
// before it (pad_copy) runs, and waits in griddepcontrol.wait for that kernel's results, so
// the launch gap between the two is hidden. Not copyable: cfg points at attr.
struct ClusterLaunch {
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t cfg;
    ClusterLaunch(int ctas, int threads, int smem, int cm, bool pdl = false) : attr{}, cfg{} {
        unsigned n = 0;
        if (cm > 1) {
            attr[n].id = cudaLaunchAttributeClusterDimension;
            attr[n].val.clusterDim.x = static_cast<unsigned>(cm);
            attr[n].val.clusterDim.y = 1;
            attr[n].val.clusterDim.z = 1;
            ++n;
        }
        if (pdl) {
            attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[n].val.programmaticStreamSerializationAllowed = 1;
            ++n;
        }
        cfg.gridDim = dim3(static_cast<unsigned>(ctas));
        cfg.blockDim = dim3(static_cast<unsigned>(threads));
        cfg.dynamicSmemBytes = static_cast<size_t>(smem);
        cfg.stream = 0;
        cfg.attrs = attr;
        cfg.numAttrs = n;
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

// Launches kernel(args...) as ClusterLaunch says; false (the error cleared, so the caller's
// fallback launch reports clean) if the launch was refused.
template <class Kernel, class... Args>
bool launch_ex(Kernel kernel, int ctas, int threads, int smem, int cm, bool pdl, Args... args) {
    ClusterLaunch l(ctas, threads, smem, cm, pdl);
    if (cudaLaunchKernelEx(&l.cfg, kernel, args...) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return true;
}

// How many clusters of CM CTAs of this kernel can be resident at once (1 CTA per SM: the stage
// ring takes most of the shared memory). Asked once.
template <int NCW, int BN, int STAGES, int CM, int DIRECT = kStoreTma>
int resident_clusters() {
    using G = Cfg<NCW, BN, STAGES, CM>;
    static const int n = max_clusters(gemm_ws<NCW, BN, STAGES, CM, DIRECT>, G::kThreads, G::kSmemBytes, CM);
    return n;
}

// Launch `ctas` CTAs (a multiple of CM, each cluster persistent over its super tiles).
template <int NCW, int BN, int STAGES, int CM>
bool launch_ws(const Operands& o, int M, int N, int K, float alpha, float beta, int ctas, int sk_tiles) {
    using G = Cfg<NCW, BN, STAGES, CM>;
    CUtensorMap ta, tb;
    CUtensorMap tc;
    if (!get_tensor_map(o.A, M, K, o.lda, G::BM, &ta)) return false;  // A: M×K, box BM × 64
    if (!get_tensor_map(o.B, K, N, o.ldb, kBK, &tb)) return false;    // B: K×N, box 64 × 64
    if (o.direct) {  // no C map (tc unused): the epilogue stores C itself, one CTA per cluster
        if (CM != 1) return false;
        if (beta == 1.0f) {  // the rows mode (solve_sm90a's rows_add)
            if (resident_clusters<NCW, BN, STAGES, 1, kStoreRows>() <= 0) return false;
            return launch_ex(gemm_ws<NCW, BN, STAGES, 1, kStoreRows>, ctas, G::kThreads, G::kSmemBytes, 1, o.pdl,
                             ta, tb, ta, M, N, K, alpha, beta, sk_tiles, o.C, o.ldc, 0);
        }
        if (beta != 0.0f || resident_clusters<NCW, BN, STAGES, 1, kStoreValues>() <= 0) return false;
        return launch_ex(gemm_ws<NCW, BN, STAGES, 1, kStoreValues>, ctas, G::kThreads, G::kSmemBytes, 1, o.pdl,
                         ta, tb, ta, M, N, K, alpha, beta, 0, o.C, o.ldc, 0);
    }
    if (!get_tensor_map(o.C, M, N, o.ldc, 16, &tc)) return false;  // C: M×N, box 16 × 64 (a warp's store)
    half* const cd = nullptr;
    return launch_ex(gemm_ws<NCW, BN, STAGES, CM>, ctas, G::kThreads, G::kSmemBytes, CM, o.pdl, ta, tb, tc, M, N,
                     K, alpha, beta, sk_tiles, cd, o.ldc, o.keep_c ? 1 : 0);
}

// Stream-K tail (beta == 1, where pieces can be reduce-added): how many of the last tiles (or
// super tiles of a cluster) are shared out by k-tiles over every CTA (cluster) instead of a
// partial last wave (WorkList). Each gets at least half a tile's k-tiles (a thin tail takes the
// last full wave in with it), so a tile is cut into at most 3 pieces: every reduce-add rounds
// C's running fp16 sum once more (run 50: 64 one-k-tile pieces of a 64×64×4096 tile ended
// 0.056 off).
long long streamk_tiles(long long tiles, long long ctas, bool adds) {
    const long long rem = tiles % ctas;
    if (!GEMM_STREAMK || !adds || rem == 0) return 0;
    if (2 * rem >= ctas) return rem;
    return tiles >= rem + ctas ? rem + ctas : 0;
}

// Picks clusters or not for one tile configuration and launches it. A cluster of 2 is used
// when the tile rows pair up evenly and the resident clusters cover the work in no more
// rounds than single CTAs on every SM would.
template <int NCW, int BN, int STAGES, int CMWANT>
bool launch_cfg(const Operands& o, int M, int N, int K, float alpha, float beta) {
    constexpr int BM = 64 * NCW;
    const long long tiles_m = (M + BM - 1) / BM;
    const long long tiles = tiles_m * ((N + BN - 1) / BN);
    const long long sms = num_sms();
    // the epilogue reduce-adds (direct with beta = 1 is the rows mode: reduce-adds too)
    const bool adds = GEMM_REDUCE_C && beta == 1.0f;
    if constexpr (CMWANT == 2) {
        if (tiles_m % 2 == 0 && !o.direct) {
            const long long maxc = resident_clusters<NCW, BN, STAGES, 2>();
            const long long super = tiles / 2;
            if (maxc > 0 && (super + maxc - 1) / maxc <= (tiles + sms - 1) / sms) {
                const long long clusters = super < maxc ? super : maxc;
                // the tail in super tiles, shared by clusters (both CTAs walk the same pieces)
                const long long sk = GEMM_CLUSTER_STREAMK ? streamk_tiles(super, clusters, adds) : 0;
                if (launch_ws<NCW, BN, STAGES, 2>(o, M, N, K, alpha, beta, static_cast<int>(2 * clusters),
                                                  static_cast<int>(sk)))
                    return true;
            }
        }
    }
    if (resident_clusters<NCW, BN, STAGES, 1>() <= 0) return false;
    const long long ctas = tiles < sms ? tiles : sms;
    return launch_ws<NCW, BN, STAGES, 1>(o, M, N, K, alpha, beta, static_cast<int>(ctas),
                                         static_cast<int>(streamk_tiles(tiles, ctas, adds)));
}

// Split-K over `splits` CTAs a 128×128 tile (one wave: splits · tiles ≤ SMs). splits == 2: the
// pair (plain with beta = 1, else a cluster exchange), only when every pair is resident at once;
// splits > 2: serial, through the zeroed fp32 slots of g_split. False when not launched.
template <int STAGES>
bool launch_splitk(const Operands& o, int M, int N, int K, float alpha, float beta, int splits) {
    constexpr int kSmem = SplitCfg<STAGES>::kSmemBytes;
    const long long tiles = static_cast<long long>((M + 127) / 128) * ((N + 127) / 128);
    CUtensorMap ta, tb;
    CUtensorMap tc;
    if (!get_tensor_map(o.A, M, K, o.lda, 128, &ta)) return false;  // A: M×K, box 128 × 64
    if (!get_tensor_map(o.B, K, N, o.ldb, kBK, &tb)) return false;  // B: K×N, box 64 × 64
    if (o.direct && splits == 2 && beta == 1.0f) {  // the pair, C's rows reduce-added (solve_sm90a's rows_add)
        static const int resident_rows = max_clusters(gemm_splitk<STAGES, kSplitRows>, 384, kSmem, 1) / 2;
        if (tiles > resident_rows) return false;
        return launch_ex(gemm_splitk<STAGES, kSplitRows>, static_cast<int>(2 * tiles), 384, kSmem, 1, o.pdl, ta, tb,
                         ta, M, N, K, alpha, beta, 2, static_cast<float*>(nullptr), static_cast<int*>(nullptr),
                         o.C, o.ldc);
    }
    if (splits > 2 || o.direct) {  // serial: C stored straight from the fragments, no map (tc unused)
        static const int ok = max_clusters(gemm_splitk<STAGES, kSplitSerial>, 384, kSmem, 1);  // asked once
        const size_t slots = static_cast<size_t>(tiles) * 2;  // one per consumer warpgroup of a tile
        if (ok <= 0 || !ensure(g_split, slots * (64 * 128 * 4 + 4), true)) return false;
        float* part = static_cast<float*>(g_split.ptr);
        int* count = reinterpret_cast<int*>(part + slots * 64 * 128);
        return launch_ex(gemm_splitk<STAGES, kSplitSerial>, static_cast<int>(splits * tiles), 384, kSmem, 1, o.pdl,
                         ta, tb, ta, M, N, K, alpha, beta, splits, part, count, o.C, o.ldc);
    }
    if (!get_tensor_map(o.C, M, N, o.ldc, 16, &tc)) return false;  // C: M×N, box 16 × 64
    // beta == 1: both halves reduce-add into C, so the pair needs no cluster (a plain launch)
    const bool plain = GEMM_SPLIT_PLAIN && GEMM_SPLIT_REDUCE && GEMM_REDUCE_C && beta == 1.0f;
    static const int resident = max_clusters(gemm_splitk<STAGES, kSplitCluster>, 384, kSmem, 2);  // asked once
    static const int resident_plain = max_clusters(gemm_splitk<STAGES, kSplitPlain>, 384, kSmem, 1) / 2;
    if (tiles > (plain ? resident_plain : resident)) return false;
    if (plain) {
        return launch_ex(gemm_splitk<STAGES, kSplitPlain>, static_cast<int>(2 * tiles), 384, kSmem, 1, o.pdl, ta, tb,
                         tc, M, N, K, alpha, beta, 2, static_cast<float*>(nullptr), static_cast<int*>(nullptr),
                         static_cast<half*>(nullptr), 0);
    }
    return launch_ex(gemm_splitk<STAGES, kSplitCluster>, static_cast<int>(2 * tiles), 384, kSmem, 2, o.pdl, ta, tb,
                     tc, M, N, K, alpha, beta, 2, static_cast<float*>(nullptr), static_cast<int*>(nullptr),
                     static_cast<half*>(nullptr), 0);
}

// The Hopper path for a shape: 128×256 persistent tiles when they make ≥ 3/4 of a wave, else
// split-K over `splits` CTAs a 128×128 tile when that fills the SMs in one wave (as many as fit,
// each with at least GEMM_SPLIT_MIN_K k-tiles; 2 always allowed: the tuned pair of the judge's
// 1024³; at most GEMM_MAX_SPLIT), else 64×128 persistent tiles. The pair takes every C of more
// than GEMM_SERIAL_TILES tiles (C without a tensor map: more than GEMM_ODD_PAIR_TILES, its rows
// reduce-added or a padded C folded in); the serial split-K, which stores C itself, keeps the rest.
enum class Path { kBig, kSplit, kSmall };
Path pick_path(int M, int N, int K, bool c_tma, int& splits) {
    splits = 0;
    const long long big_tiles = static_cast<long long>((M + 127) / 128) * ((N + 255) / 256);
    if (big_tiles * 4 >= 3LL * num_sms()) return Path::kBig;
    // one k-tile and C's rows not TMA-storable (reduce-added row by row with beta = 1): the
    // epilogue is the tile's whole cost, and 64×128 tiles past two rounds of SMs lose to one round
    // of 128×256 (measured with beta = 1: 0.90-0.91× on 10 such shapes, 888×2337×50's 266 tiles
    // among them; at two rounds or fewer 1.00-1.03×, so those keep 64×128)
    const long long small_tiles = static_cast<long long>((M + 63) / 64) * ((N + 127) / 128);
    if (!c_tma && K <= kBK && big_tiles <= num_sms() && small_tiles > 2LL * num_sms()) return Path::kBig;
    if (GEMM_SPLITK) {
        const long long tiles = static_cast<long long>((M + 127) / 128) * ((N + 127) / 128);
        const long long num_k = (K + kBK - 1) / kBK;
        long long s = num_sms() / tiles;
        const long long by_k = num_k / GEMM_SPLIT_MIN_K > 2 ? num_k / GEMM_SPLIT_MIN_K : 2;
        if (s > by_k) s = by_k;
        if (s > GEMM_MAX_SPLIT) s = GEMM_MAX_SPLIT;
        if (tiles > (c_tma ? GEMM_SERIAL_TILES : GEMM_ODD_PAIR_TILES) && s > 2) s = 2;
        if (s >= 2) {
            splits = static_cast<int>(s);
            return Path::kSplit;
        }
    }
    return Path::kSmall;
}

// The Hopper paths on operands TMA can describe (C too, unless the serial split-K stores it).
bool gemm_sm90a(const Operands& o, int M, int N, int K, float alpha, float beta) {
    int splits = 0;
    const Path path = pick_path(M, N, K, !o.direct, splits);
    if (path == Path::kBig) {
        // between 1 and 2 waves of tiles every tile is stream-K'd, and the CTAs' L2→SM bytes set the
        // pace (run 60, 3000×2000×1000: 5.15 TB/s): pairs sharing B by multicast read a third less
        const long long big_tiles = static_cast<long long>((M + 127) / 128) * ((N + 255) / 256);
        if (GEMM_FEW_WAVE_CLUSTER && GEMM_BIG_CLUSTER == 1 && beta == 1.0f && !o.direct && big_tiles > num_sms() &&
            big_tiles < 2LL * num_sms())
            return launch_cfg<2, 256, GEMM_BIG_STAGES, 2>(o, M, N, K, alpha, beta);
        return launch_cfg<2, 256, GEMM_BIG_STAGES, GEMM_BIG_CLUSTER>(o, M, N, K, alpha, beta);
    }
    if (GEMM_SKINNY_STREAMK && GEMM_REDUCE_C && path == Path::kSplit && beta == 1.0f && M <= 64 && !o.direct &&
        o.ldc % 8 == 0 &&
        (reinterpret_cast<uintptr_t>(o.C) & 15) == 0 && resident_clusters<1, 128, GEMM_SMALL_STAGES, 1>() > 0) {
        // one 64-row tile band: stream-K over every tile, up to 3 CTAs a tile, reduce-added
        const long long tiles = (N + 127) / 128;
        const long long ctas = std::min<long long>(num_sms(), 3 * tiles);
        if (launch_ws<1, 128, GEMM_SMALL_STAGES, 1>(o, M, N, K, alpha, beta, static_cast<int>(ctas),
                                                    static_cast<int>(tiles)))
            return true;
    }
    if (path == Path::kSplit && launch_splitk<GEMM_SPLIT_STAGES>(o, M, N, K, alpha, beta, splits)) return true;
    return launch_cfg<1, 128, GEMM_SMALL_STAGES, GEMM_SMALL_CLUSTER>(o, M, N, K, alpha, beta);
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }
size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Blocks of 256 threads a streaming kernel keeps resident on an SM (asked once per kernel), so
// its grid is one wave: the rows are strided over them.
template <class Kernel>
int resident_256(Kernel kernel) {
    int b = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, 256, 0) != cudaSuccess || b <= 0) {
        cudaGetLastError();
        b = 4;
    }
    return b;
}
// At most `most` blocks for `rows` rows, as few as give every block the same number of rows
// (±1) as `most` would.
int even_blocks(int rows, int most) {
    most = std::max(1, std::min(rows, most));
    const int per = (rows + most - 1) / most;
    return (rows + per - 1) / per;
}

// One launch of pad_copy for the jobs (0, 1 or 2, blockIdx.y), one wave of blocks shared by them.
void launch_pads(const PadJob* jobs, int n_jobs) {
    if (n_jobs <= 0) return;
    static const int per_sm = resident_256(pad_copy);
    const int rows = std::max(jobs[0].rows, n_jobs > 1 ? jobs[1].rows : 0);
    const int x = even_blocks(rows, per_sm * num_sms() / n_jobs);
    pad_copy<<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(n_jobs)), 256>>>(jobs[0],
                                                                                    n_jobs > 1 ? jobs[1] : jobs[0]);
}
// pdl: only after the Hopper kernels (this build's fold_c then waits in griddepcontrol.wait; a
// build below sm_90 has no such wait, so its fold must not start early).
void launch_fold(const half* W, int ldw, half* C, int M, int N, float beta, bool pdl) {
    static const int per_sm = resident_256(fold_c);
    if (!pdl || !launch_ex(fold_c, even_blocks(M, per_sm * num_sms()), 256, 0, 1, true, W, ldw, C, M, N, beta))
        fold_c<<<static_cast<unsigned>(even_blocks(M, per_sm * num_sms())), 256>>>(W, ldw, C, M, N, beta);
}

// Any shape: operands TMA cannot describe (K or N not a multiple of 8, misaligned pointers) go
// through padded copies first (PadJob); C with odd N is stored by the epilogues themselves
// (direct mode), or with GEMM_DIRECT_C=0 through a padded result folded in after.
bool solve_sm90a(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    const bool a_ok = K % 8 == 0 && aligned16(A);
    const bool b_ok = N % 8 == 0 && aligned16(B);
    const bool c_tma = N % 8 == 0 && aligned16(C);
    int splits = 0;
    const Path path = pick_path(M, N, K, c_tma, splits);
    const bool serial = path == Path::kSplit && splits > 2;  // stores C itself
    // beta = 1 on 128×256 and 64×128 tiles and the split-K pair: rows reduce-added by 1D bulk
    // copies (TmaEpilogue::put_rows; run 142, 64×128: 0.71-1.05×, 0.92× over 14 shapes, of the
    // padded C folded in after; run 143, pair and 64×128: 0.80× over 106 shapes)
    // (its offsets are 32-bit, and its last-unit step assumes rows of at least one unit)
    const bool rows_add = GEMM_ROWS_ADD && GEMM_REDUCE_C && beta == 1.0f &&
                          (path == Path::kBig || path == Path::kSmall || (path == Path::kSplit && splits == 2)) &&
                          aligned16(C) && N >= 8 && static_cast<long long>(M) * N < (1LL << 31);
    // direct stores only with beta = 0: reading old C with 2-byte loads in the epilogue cost more
    // than the fold pass (run 58, 4095³ beta = 1: 0.3533 ms direct against 0.2738 folded; beta = 0
    // direct: 0.2436), and so did fp16 reductions into C from the epilogue (run 67: 0.4546 against
    // 0.2736 folded); a 1D TMA map of C cannot take them either: a box must start 16-byte aligned
    // (run 75: a 1D TMA store at an odd element stops the kernel with "illegal instruction"), but a
    // 1D bulk reduce-add over whole 16-byte units can, zeros added around the row (rows_add, run 95)
    const bool c_ok = serial || c_tma || (GEMM_DIRECT_C && beta == 0.0f) || rows_add;
    Operands o{A, B, C, K, N, N, c_ok && !c_tma, false, false};
    if (a_ok && b_ok && c_ok) return gemm_sm90a(o, M, N, K, alpha, beta);
    const int kp = static_cast<int>(round_up(K, 8)), np = static_cast<int>(round_up(N, 8));
    const size_t a_bytes = a_ok ? 0 : round_up(static_cast<size_t>(M) * kp * 2, 256);
    const size_t b_bytes = b_ok ? 0 : round_up(static_cast<size_t>(K) * np * 2, 256);
    const size_t c_bytes = c_ok ? 0 : round_up(static_cast<size_t>(M) * np * 2, 256);
    if (!ensure(g_pad, a_bytes + b_bytes + c_bytes, false)) return false;
    char* w = static_cast<char*>(g_pad.ptr);
    PadJob jobs[2] = {};
    int n_jobs = 0;
    if (!a_ok) {
        o.A = reinterpret_cast<half*>(w);
        o.lda = kp;
        jobs[n_jobs++] = PadJob{A, reinterpret_cast<half*>(w), M, K, K, kp, M};
    }
    if (!b_ok) {
        o.B = reinterpret_cast<half*>(w + a_bytes);
        o.ldb = np;
        jobs[n_jobs++] = PadJob{B, reinterpret_cast<half*>(w + a_bytes), K, N, N, np, K};
    }
    if (!c_ok) {
        o.C = reinterpret_cast<half*>(w + a_bytes + b_bytes);
        o.ldc = np;
        o.keep_c = GEMM_CW_KEEP_L2 != 0;
    }
    launch_pads(jobs, n_jobs);
    o.pdl = GEMM_PDL && n_jobs > 0;
    if (!gemm_sm90a(o, M, N, K, alpha, c_ok ? beta : 0.0f)) return false;
    if (!c_ok) launch_fold(o.C, np, C, M, N, beta, GEMM_PDL != 0);
    return true;
}

// The mma path (no sm_90a) for any shape: its kernels take K and N as the row strides, so
// operands with K or N off a multiple of 8 (or misaligned) become zero-padded copies of K and N
// rounded up to 8 (B gets zero rows when K is padded), C such a buffer folded in after; the
// padded zeros add nothing to the products.
bool solve_mma_any(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    const int kp = static_cast<int>(round_up(K, 8)), np = static_cast<int>(round_up(N, 8));
    const bool a_ok = kp == K && aligned16(A);
    const bool b_ok = kp == K && np == N && aligned16(B);
    const bool c_ok = np == N && aligned16(C);
    if (a_ok && b_ok && c_ok) return mma_path::solve_mma(A, B, C, M, N, K, alpha, beta);
    const size_t a_bytes = a_ok ? 0 : round_up(static_cast<size_t>(M) * kp * 2, 256);
    const size_t b_bytes = b_ok ? 0 : round_up(static_cast<size_t>(kp) * np * 2, 256);
    const size_t c_bytes = c_ok ? 0 : round_up(static_cast<size_t>(M) * np * 2, 256);
    if (!ensure(g_pad, a_bytes + b_bytes + c_bytes, false)) return false;
    char* w = static_cast<char*>(g_pad.ptr);
    half* a2 = a_ok ? const_cast<half*>(A) : reinterpret_cast<half*>(w);
    half* b2 = b_ok ? const_cast<half*>(B) : reinterpret_cast<half*>(w + a_bytes);
    half* c2 = c_ok ? C : reinterpret_cast<half*>(w + a_bytes + b_bytes);
    PadJob jobs[2] = {};
    int n_jobs = 0;
    if (!a_ok) jobs[n_jobs++] = PadJob{A, a2, M, K, K, kp, M};
    if (!b_ok) jobs[n_jobs++] = PadJob{B, b2, kp, N, N, np, K};
    launch_pads(jobs, n_jobs);
    if (!mma_path::solve_mma(a2, b2, c2, M, np, kp, alpha, c_ok ? beta : 0.0f)) return false;
    if (!c_ok) launch_fold(c2, np, C, M, N, beta, false);
    return true;
}

// Halves per load (8, 4, 2 or 1) that rows of `ld` halves from p allow.
int vec_halves(const void* p, int ld) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (int v = 8; v > 1; v /= 2)
        if (ld % v == 0 && a % (2 * v) == 0) return v;
    return 1;
}

// The one-launch path for operands TMA cannot describe (any_path::gemm_ring, gemm_any below
// sm_80): 2·M·N·K at most GEMM_ANY_FLOPS. K is split when the tiles alone leave SMs idle. False
// when it does not apply.
bool solve_any(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    using namespace any_path;
    const bool aligned = K % 8 == 0 && N % 8 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
    const long long tiles64 = static_cast<long long>((M + 63) / 64) * ((N + 63) / 64);
    if (aligned) return false;
    const bool ring = GEMM_ANY_STAGES >= 3 && has_cp_async();
    const long long kt = (K + 31) / 32;
    const double flops = 2.0 * M * N * K;
    // the ring past GEMM_ANY_FLOPS: one wave of unsplit tiles, or few tiles split over K
    const bool ring_more = ring && flops <= GEMM_RING_MORE_FLOPS &&
                           ((kt < GEMM_RING_SPLIT_KT && tiles64 <= GEMM_RING_MIN_BLOCKS * num_sms()) ||
                            tiles64 <= GEMM_RING_FEW_TILES);
    const bool small = flops <= GEMM_ANY_FLOPS || ring_more;
    // a tall, narrow C whose A would need a padded copy: the copy is as long as the GEMM
    const bool tall = ring && N <= GEMM_RING_TALL_N && K % 8 != 0 && K % 2 == 0 && K >= GEMM_RING_TALL_K;
    if (!small && !tall) return false;
    // the ring's tile: 32×32 for a C of few 64×64 tiles (4× the CTAs, each a quarter of the chain
    // of loads and MMAs; the 64×64 tile's smaller L2 traffic wins from ~1.7 waves), and for a K
    // of at most GEMM_RING_SMALL_KT k-steps, where that traffic is small anyway; the tall case
    // keeps 64×64, one column of tiles, so A is read once
    const int tm =
        ring && small && (tiles64 <= GEMM_RING_SMALL_WAVES * num_sms() || kt <= GEMM_RING_SMALL_KT) ? 32 : 64;
    const long long gm = (M + tm - 1) / tm, gn = (N + tm - 1) / tm, tiles = gm * gn;
    if (gm > 65535 || gn > 65535) return false;
    // pieces of at least min_kt 32-wide k-steps; gemm_any's 64-wide steps for pieces that fill them
    const long long min_kt =
        !ring ? GEMM_ANY_MIN_KT : (GEMM_RING_ONE_KT && tiles * kt <= num_sms()) ? 1 : GEMM_RING_MIN_KT;
    const long long per_sm = tall && !small ? GEMM_RING_TALL_CTAS : GEMM_ANY_CTAS_PER_SM;
    const long long ctas = per_sm * (tm == 32 ? GEMM_RING_SMALL_CTAS : 1) * num_sms();
    long long s = std::min<long long>(ctas / tiles, kt / min_kt);
    if (ring && kt < GEMM_RING_SPLIT_KT) s = 1;  // the ring has every k-step in flight at once
    s = std::max<long long>(1, std::min<long long>(s, 32));
    const bool wide = !ring && (GEMM_ANY_BK == 64 || (GEMM_ANY_BK == 0 && (kt + s - 1) / s >= 4));
    const int BK = wide ? 64 : 32;
    const int k_per = static_cast<int>((K + s * BK - 1) / (s * BK)) * BK;
    s = (K + k_per - 1) / k_per;  // no empty piece
    float* part = nullptr;
    int* count = nullptr;
    if (s > 1) {
        if (!ensure(g_any, static_cast<size_t>(tiles) * (tm * tm * 4 + 4), true)) return false;
        part = static_cast<float*>(g_any.ptr);
        count = reinterpret_cast<int*>(part + tiles * tm * tm);
    }
    const dim3 grid(static_cast<unsigned>(gn), static_cast<unsigned>(gm), static_cast<unsigned>(s));
    const int va = vec_halves(A, K), vb = vec_halves(B, N);
    constexpr int kStages = GEMM_ANY_STAGES < 3 ? 3 : GEMM_ANY_STAGES;
    // C's rows start on odd halves: the row epilogue where C is wide enough (GEMM_RING_ROWS_N)
    const bool rows = GEMM_RING_ROWS_N > 0 && N >= GEMM_RING_ROWS_N && K <= GEMM_RING_ROWS_K &&
                      static_cast<long long>(M) * N >= GEMM_RING_ROWS_MN &&
                      (N % 2 != 0 || reinterpret_cast<uintptr_t>(C) % 4 != 0);
    if (ring && tm == 32 && rows)
        gemm_ring<kStages, 32, 32, true><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    else if (ring && tm == 32)
        gemm_ring<kStages, 32, 32><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    else if (ring && rows)
        gemm_ring<kStages, 64, 64, true><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    else if (ring)
        gemm_ring<kStages, 64, 64><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    else if (wide)
        gemm_any<64><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    else
        gemm_any<32><<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta, va, vb, k_per, part, count);
    return true;
}

// The tiny path (gemm_fallback split over K): a C of at most GEMM_TINY_TILES 64×64 tiles with a
// K of 1024 or more whose rows TMA cannot describe (or any such C, GEMM_TINY_ALIGNED). Each
// piece takes at least GEMM_TINY_MIN_K of K. False when it does not apply or cannot be set up.
bool solve_tiny(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    const bool aligned = K % 8 == 0 && N % 8 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
    const long long tiles = static_cast<long long>((M + 63) / 64) * ((N + 63) / 64);
    if ((aligned && !GEMM_TINY_ALIGNED) || tiles > GEMM_TINY_TILES || K < 1024) return false;
    const long long s =
        std::min<long long>(std::min<long long>(num_sms() / tiles, K / GEMM_TINY_MIN_K), GEMM_TINY_MAX_SPLIT);
    if (s < 2 || !ensure(g_tiny, static_cast<size_t>(tiles) * (64 * 64 * 4 + 4), true)) return false;
    float* part = static_cast<float*>(g_tiny.ptr);
    int* count = reinterpret_cast<int*>(part + tiles * 64 * 64);
    const dim3 grid((N + 63) / 64, (M + 63) / 64, static_cast<unsigned>(s));
    gemm_fallback<<<grid, 256>>>(A, B, C, M, N, K, alpha, beta, static_cast<int>(s), part, count);
    return true;
}

}  // namespace

// A, B, and C are device pointers
extern "C" void solve(const half* A, const half* B, half* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    if (K > 0 && solve_any(A, B, C, M, N, K, alpha, beta)) return;
    if (K > 0 && solve_tiny(A, B, C, M, N, K, alpha, beta)) return;
    if (K > 0 && (has_sm90a() && !GEMM_FORCE_MMA ? solve_sm90a(A, B, C, M, N, K, alpha, beta)
                                                 : solve_mma_any(A, B, C, M, N, K, alpha, beta)))
        return;
    const dim3 grid((N + 63) / 64, (M + 63) / 64);
    gemm_fallback<<<grid, 256>>>(A, B, C, M, N, K, alpha, beta, 1, nullptr, nullptr);
}
