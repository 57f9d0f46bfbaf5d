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
1)  # ~3 min: the sandbox under the tools (219); what holds DMMA back (222: decides 228 or 223)
    BUDGET=300 LINE_LIMIT=120 $G build batch=$R/batch_run219.txt batch=$R/batch_run222.txt ;;
2)  # ~7 min: matmul 03, split sum (217), then the few-row path on top (224)
    BUDGET=570 LINE_LIMIT=150 $G build \
        "sh=cp $M .cmp/m03_head.cu && git apply $X/run217_exact_split_sum.patch" batch=$R/batch_run217.txt \
        "sh=cp $M .cmp/m03_head.cu && git apply $X/run224_exact_gemv.patch && sed 's/^#define MM_GEMV_ROWS 8 /#define MM_GEMV_ROWS 16/' $M > .cmp/m03_g16.cu" \
        batch=$R/batch_run224.txt ;;
3)  # ~8 min: on 217 + 224, the staged epilogue (221), then the split rule's variants (225)
    BUDGET=570 LINE_LIMIT=200 $G build \
        "sh=git apply $X/run217_exact_split_sum.patch && git apply $X/run224_exact_gemv.patch && cp $M .cmp/m03_head.cu && git apply $X/run221_exact_staged_epilogue.patch" \
        batch=$R/batch_run221.txt \
        "sh=git apply $X/run225_exact_split_rule.patch && cp $M .cmp/m03_217.cu" batch=$R/batch_run225.txt ;;
4k16)  # ~4 min: on 217 + 224 + 221, m16n8k16 (228), if call 1's probe says the shape is faster
    BUDGET=400 LINE_LIMIT=150 $G build \
        "sh=git apply $X/run217_exact_split_sum.patch && git apply $X/run224_exact_gemv.patch && git apply $X/run221_exact_staged_epilogue.patch && cp $M .cmp/m03_head.cu && git apply $X/run228_exact_k16.patch" \
        batch=$R/batch_run228.txt ;;
4once)  # ~4 min: convert once (223), against HEAD (it conflicts with 221 and 224), if call 1 says so
    BUDGET=400 LINE_LIMIT=150 $G build "sh=cp $M .cmp/m03_head.cu && git apply $X/run223_exact_once.patch" \
        batch=$R/batch_run223.txt ;;
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
    7) BUDGET=570 $G build leaderboard-fp16 leaderboard=matmul_fp32 leaderboard=batched_matmul_fp32 \
           leaderboard=batched_matmul_fp16 ;;
    8) BUDGET=570 $G build leaderboard=int8_matmul leaderboard=int4_matmul leaderboard-random=matmul_fp32:02,03 \
           leaderboard-random=batched_matmul_fp32:02,03 leaderboard-random=int8_matmul:02 \
           leaderboard-random=int4_matmul:02,03 ;;
    9) BUDGET=500 $G build leaderboard-shapes ;;
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 1|2|3|4k16|4once|5|6|7|8|9" >&2; exit 2 ;;
esac
