#!/usr/bin/env bash
# next_calls.sh CALL — the next device session's calls (lab/NOTES.md "Next device session"), each
# one `run` of the device tool: `bash lab/runs/next_calls.sh 1 > /dev/null 2>&1; cat $OUT/summary.txt`.
# Each call starts from this tree as committed (the device copies it afresh), so a call re-applies
# the patches it stacks on; an sh= step that fails stops the call (gpu_session.sh). Carry .deps
# (tools/carry_criterion.sh here first). Dry-run a batch here before: tools/batch_dryrun.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
G="bash tools/gpu_session.sh"
M=solutions/matmul_fp32/03_exact.cu
BT=solutions/batched_matmul_fp32/03_exact.cu
X=lab/experiments
R=lab/runs
case "${1:-}" in
1)  # ~8 min: matmul 03's split rule with the sum kernel (236: variants written by its Setup line),
    # then batched 03's split sum as a kernel (235)
    BUDGET=570 LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run236.txt | head -1)" batch=$R/batch_run236.txt \
        "sh=cp $BT .cmp/b03_head.cu && git apply $X/run235_b32_sum_kernel.patch" batch=$R/batch_run235.txt ;;
2)  # ~8 min: matmul 03's 128-row tiles on 32-deep k-tiles (238), then 12_best at HEAD against
    # both yardsticks (237)
    BUDGET=570 LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run238.txt | head -1)" batch=$R/batch_run238.txt \
        batch=$R/batch_run237.txt ;;
3)  # ~8 min: profiles of the fp32 03 stages' worst shapes (240), batched 03's DMMA tile choice
    # (239: a variant file), then int8's PDL (226)
    BUDGET=570 LINE_LIMIT=200 $G build batch=$R/batch_run240.txt \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run239.txt | head -1)" batch=$R/batch_run239.txt \
        "sh=cp solutions/int8_matmul/02_best.cu .cmp/i8_head.cu && git apply $X/run226_i8_pdl.patch" batch=$R/batch_run226.txt ;;
4|5|6) # the leaderboard: the sections `./harness leaderboard --check` calls stale, from the tree
    # as committed (no sh= step: gpu_session.sh refuses a leaderboard step after one), labelled
    # with COMMIT (this copy has no .git). Copy each call's $OUT/leaderboard.md into the tree
    # before the next call, so the next one adds its sections to it.
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    4) BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    5) # add leaderboard=int8_matmul leaderboard-random=int8_matmul:02 if call 3's 226 landed
       BUDGET=570 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;
    6) BUDGET=500 $G build leaderboard-shapes ;;
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 1|2|3|4|5|6" >&2; exit 2 ;;
esac
