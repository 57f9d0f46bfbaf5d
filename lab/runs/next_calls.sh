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
1)  # ~8 min: matmul 03's mm_gemv with the sum kernel, up to 2, 8 and 16 rows (242)
    BUDGET=540 LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run242.txt | head -1)" batch=$R/batch_run242.txt ;;
2)  # ~7 min: batched 03's bmm_slab with the warps splitting each chunk's k (243)
    BUDGET=480 LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run243.txt | head -1)" batch=$R/batch_run243.txt ;;
6)  # ~8 min: matmul 03's mm_narrow for C of at most 16 (variants 8, 32) columns (244)
    BUDGET=540 LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run244.txt | head -1)" batch=$R/batch_run244.txt ;;
7)  # ~9 min: 12_best's row epilogue for odd-N ring shapes, gated to K ≤ 64 and M·N ≥ 2^19 (245)
    BUDGET=570 LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run245.txt | head -1)" batch=$R/batch_run245.txt ;;
3|4|5) # the leaderboard: the sections `./harness leaderboard --check` calls stale, from the tree
    # as committed (no sh= step: gpu_session.sh refuses a leaderboard step after one), labelled
    # with COMMIT (this copy has no .git). Copy each call's $OUT/leaderboard.md into the tree
    # before the next call, so the next one adds its sections to it.
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    3) BUDGET=500 $G build leaderboard-shapes ;;  # gemm_fp16's (12_best: after 245, if it lands)
    4) BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    5) BUDGET=570 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 1|2|3|4|5|6|7" >&2; exit 2 ;;
esac
