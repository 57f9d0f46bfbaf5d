// probe_tma.h — what the TMA probes share: the driver's cuTensorMapEncodeTiled, and one thread's
// mbarrier around TMA loads into shared memory (armed for `bytes`, then waited for).
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>

// cuTensorMapEncodeTiled through the runtime's entry-point query; nullptr if it is not found.
inline PFN_cuTensorMapEncodeTiled_v12000 probe_encode_fn() {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
}

// The calling thread initialises the mbarrier at shared address bar (one arrival) and arrives,
// expecting `bytes` of TMA transactions.
__device__ inline void probe_mbar_arm(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// Waits until the armed phase (parity 0) has completed: every expected byte has landed.
__device__ inline void probe_mbar_wait(uint32_t bar) {
    asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}" ::"r"(bar)
                 : "memory");
}
// Commits the calling thread's bulk stores and waits until they have completed.
__device__ inline void probe_bulk_commit_wait() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
