#!/usr/bin/env bash
# ncu_probe.sh SIZE SOLUTION [NVCC_FLAGS] [KERNEL_REGEX]: one checked call of SOLUTION at SIZE
# under Nsight Compute, the first kernel whose function name matches KERNEL_REGEX (default ^gemm_:
# the stages' kernels, not cuBLAS's reference, magma_sgemmEx_kernel): duration, SM clock, L2 and
# L2→SM traffic, tensor pipes.
set -uo pipefail
size=$1 sol=$2 flags=${3:-} kre=${4:-^gemm_}
M='gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum.per_second,dram__bytes_read.sum.per_second,regex:sm__pipe_tensor.*cycles_active\.avg\.pct_of_peak_sustained_active'
HARNESS_PROFILER=ncu ncu --clock-control none --target-processes all --kernel-name-base function --kernel-name "regex:$kre" --launch-count 1 \
    --metrics "$M" ./build/harness --no-timing --timeout 120 --no-constraints --rebuild --size "$size" \
    ${flags:+--nvcc-flags "$flags"} "$sol" 2>&1 | grep -vE '^==PROF==|^\s*$' | tail -20
