#!/usr/bin/env bash
# next_calls.sh CALL — the next device session's calls (lab/NOTES.md "Next device session"), each
# one `run` of the device tool: `bash lab/runs/next_calls.sh 1 > /dev/null 2>&1; cat $OUT/summary.txt`.
# Each call starts from this tree as committed (the device copies it afresh), so a call re-applies
# the patches it stacks on; an sh= step that fails stops the call (gpu_session.sh). Carry .deps
# (tools/carry_criterion.sh here first). Dry-run a batch here before: tools/batch_dryrun.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
G="bash tools/gpu_session.sh"
R=lab/runs
case "${1:-}" in
36) # ~3 min: run 272, profiles of the fp32 03 shapes still over cuBLAS (ncu through --profile)
    BUDGET=${BUDGET:-300} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run272.txt | head -1)" batch=$R/batch_run272.txt ;;
84) # ~5 min: run 323, Nsight Compute's full set on the fp32 03 kernels still over cuBLAS
    BUDGET=${BUDGET:-420} LINE_LIMIT=170 $G build batch=$R/batch_run323.txt ;;
93) # ~8 min: run 331b, the landing check of d84b960 (bmm_thin's rows by B's share at K > 4): its
    # A100 and T4 paths, memcheck, unseen K = 5–8 shapes against the rule off, the yardsticks
    BUDGET=${BUDGET:-560} LINE_LIMIT=170 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run331b.txt | head -1)" batch=$R/batch_run331b.txt ;;
94) # ~4 min: run 332, bmm_thin loading the next row's A before this row's sums
    BUDGET=${BUDGET:-300} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run332.txt | head -1)" batch=$R/batch_run332.txt ;;
95) # ~6 min: run 333, the FMA slab's unaligned B rows as 16-byte copies (M ≤ 3 on Hopper, A100)
    BUDGET=${BUDGET:-420} LINE_LIMIT=170 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run333.txt | head -1)" batch=$R/batch_run333.txt ;;
96) # ~7 min: run 334, the B-share rule in matmul 03, matmul 02 and batched 02's thin kernels
    BUDGET=${BUDGET:-480} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run334.txt | head -1)" batch=$R/batch_run334.txt ;;
61) # ~3 min: run 298, seeds 2 and 3 of both fp32 03 stages and matmul 02 beside both yardsticks
    # (the tree as committed: after a landing)
    BUDGET=${BUDGET:-240} LINE_LIMIT=150 $G build batch=$R/batch_run298.txt ;;
17) # ~8 min: every best stage's random sweep, seeds 1–3, beside its yardsticks (260)
    BUDGET=580 LINE_LIMIT=200 $G build batch=$R/batch_run260.txt ;;
23) # ~1 min: run 261's sanitizer line (the capped slab's memcheck, matmul 03's at 2960×3759×4),
    # cut from calls 16 and 19 by their budgets
    grep -e '^#' -e --sanitize $R/batch_run261.txt > /tmp/batch_run261s.txt
    BUDGET=${BUDGET:-120} LINE_LIMIT=100 $G build batch=/tmp/batch_run261s.txt ;;
3|4|5|5r|10|45) # the leaderboard: the sections `./harness leaderboard --check` calls stale,
    # from the tree as committed (no sh= step before them: gpu_session.sh refuses a leaderboard
    # step after one), labelled with COMMIT (this copy has no .git). Copy each call's
    # $OUT/leaderboard.md into the tree before the next call, so the next one adds its sections.
    # `git status --short` empty first: the device measures the working tree, so a change staged
    # but not committed is measured and labelled with a commit that lacks it (call 5, f2953ec).
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    3) BUDGET=570 $G build leaderboard-fp16 leaderboard-random=gemm_fp16:09,10,11,12 ;;  # gemm_fp16's
    10) BUDGET=470 $G build leaderboard-shapes ;;  # gemm_fp16's shape sweep
    4) BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    5) BUDGET=570 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;
    5r) BUDGET=330 $G build leaderboard-random=batched_matmul_fp32:02,03 ;;  # 5's random section
    45) BUDGET=580 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 \
        leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;  # 4 and 5
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 3|4|5|5r|10|17|23|36|45|61|84|93|94|95|96" >&2; exit 2 ;;
esac
