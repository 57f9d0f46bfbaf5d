#!/usr/bin/env bash
# next_calls.sh CALL — the next device session's calls (lab/NOTES.md "Next device session"), each
# one `run` of the device tool: `bash lab/runs/next_calls.sh 3 > /dev/null 2>&1; cat $OUT/summary.txt`.
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
3)  # ~8 min: the probe under ncu (232), then matmul 03's staged epilogue (221), then the split
    # rule's variants on top (225; .cmp/m03_217.cu is their base: HEAD with 221 and 225's defaults)
    BUDGET=570 LINE_LIMIT=200 $G build batch=$R/batch_run232.txt \
        "sh=cp $M .cmp/m03_head.cu && git apply $X/run221_exact_staged_epilogue.patch" batch=$R/batch_run221.txt \
        "sh=git apply $X/run225_exact_split_rule.patch && cp $M .cmp/m03_217.cu" batch=$R/batch_run225.txt ;;
4)  # ~6 min: on 221 + 225, matmul 03's split K summed by a second kernel (234)
    BUDGET=480 LINE_LIMIT=150 $G build \
        "sh=git apply $X/run221_exact_staged_epilogue.patch && git apply $X/run225_exact_split_rule.patch && cp $M .cmp/m03_base.cu && git apply $X/run234_exact_sum_kernel.patch" \
        batch=$R/batch_run234.txt ;;
5)  # ~8 min: batched 03, M <= 8 (218) then split K on top (227)
    BUDGET=570 LINE_LIMIT=150 $G build \
        "sh=cp $BT .cmp/b03_head.cu && git apply $X/run218_b32_slab.patch" batch=$R/batch_run218.txt \
        "sh=cp $BT .cmp/b03_head.cu && git apply $X/run227_b32_split.patch && sed 's/^#define BMM_SPLIT_MIN_K 64/#define BMM_SPLIT_MIN_K 128/' $BT > .cmp/b03_k128.cu" \
        batch=$R/batch_run227.txt ;;
6)  # ~7 min: 12_best's odd-N ring (220) and int8's PDL (226)
    BUDGET=570 LINE_LIMIT=200 $G build \
        "sh=cp solutions/12_best.cu .cmp/b12_head.cu && git apply $X/run220_ring_rows_epilogue.patch" batch=$R/batch_run220.txt \
        "sh=cp solutions/int8_matmul/02_best.cu .cmp/i8_head.cu && git apply $X/run226_i8_pdl.patch" batch=$R/batch_run226.txt ;;
7|8|9) # the leaderboard: the sections `./harness leaderboard --check` calls stale, from the tree
    # as committed (no sh= step: gpu_session.sh refuses a leaderboard step after one), labelled
    # with COMMIT (this copy has no .git). Copy each call's $OUT/leaderboard.md into the tree
    # before the next call, so the next one adds its sections to it.
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    7) # run 233 did this at 1a82eb9; again if call 3's winners land
       BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    8) BUDGET=500 $G build leaderboard-shapes ;;
    9) # after calls 5 and 6 land (if they win): the sections their stages are in
       BUDGET=570 $G build leaderboard-fp16 leaderboard=batched_matmul_fp32 leaderboard=int8_matmul \
           leaderboard-random=batched_matmul_fp32:02,03 leaderboard-random=int8_matmul:02 ;;
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 3|4|5|6|7|8|9" >&2; exit 2 ;;
esac
