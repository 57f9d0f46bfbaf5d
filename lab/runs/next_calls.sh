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
9)  # ~8 min: profiles of the fp32 03 shapes still over cuBLAS (248, HEAD), then run 246's clean-up
    BUDGET=570 LINE_LIMIT=260 $G build batch=$R/batch_run248.txt \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run246.txt | head -1)" batch=$R/batch_run246.txt ;;
11) # ~9 min: batched 03's bmm_rows with its idle threads in groups over k, fewer rows a block
    # (249); then, on top, bmm_slab capped at 80 registers for 3 blocks an SM (250)
    BUDGET=570 LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run249.txt | head -1)" batch=$R/batch_run249.txt \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run250.txt | head -1)" batch=$R/batch_run250.txt ;;
13) # ~6 min: matmul 03's MM_MID_DEPTH 512 and 1024 against 256 (256)
    BUDGET=${BUDGET:-420} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run256.txt | head -1)" batch=$R/batch_run256.txt ;;
14|15) # ~7 min: matmul 03's split K on 128×64 exact tiles (257); 15 first runs the reference
    # suite (~2 min: the fp32 rounding bound's first GPU run)
    pre=""; [ "$1" = 15 ] && pre=suite=test_gpu_reference
    BUDGET=${BUDGET:-$([ "$1" = 15 ] && echo 585 || echo 450)} LINE_LIMIT=150 $G build $pre \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run257.txt | head -1)" batch=$R/batch_run257.txt ;;
16) # ~8 min: matmul_fp32's and batched fp32's sections at COMMIT (runs 249, 250, 258 landed),
    # then the landed code against 0fd6b22's (259: .cmp/ holds 0fd6b22's two 03_exact files)
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    BUDGET=580 LINE_LIMIT=150 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 \
        leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 batch=$R/batch_run259.txt ;;
18) # ~8 min: batched fp32's sections at COMMIT (the slab's cap by grid), run 261, then as much of
    # run 260 as the call has left
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    BUDGET=${BUDGET:-480} LINE_LIMIT=120 $G build leaderboard=batched_matmul_fp32 \
        leaderboard-random=batched_matmul_fp32:02,03 batch=$R/batch_run261.txt batch=$R/batch_run260.txt ;;
19) # ~4 min, for a short budget: batched fp32's random section at COMMIT, run 261's tests and
    # `--vs` (not its sanitizers), then the stages section
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    grep -v -- --sanitize $R/batch_run261.txt > /tmp/batch_run261a.txt
    BUDGET=${BUDGET:-230} LINE_LIMIT=100 $G build leaderboard-random=batched_matmul_fp32:02,03 \
        batch=/tmp/batch_run261a.txt leaderboard=batched_matmul_fp32 ;;
20) # ~3 min: run 262, batched 03's 128×128 DMMA tile forced and the padded copies from small
    # products, each against HEAD
    BUDGET=${BUDGET:-240} LINE_LIMIT=120 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run262.txt | head -1)" batch=$R/batch_run262.txt ;;
21) # ~4 min: run 263, matmul 03's mm_narrow by lanes along k (C of ≤ 8 columns, many rows)
    BUDGET=${BUDGET:-300} LINE_LIMIT=120 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run263.txt | head -1)" batch=$R/batch_run263.txt ;;
22) # ~4 min: run 264, batched 03's 128×128 DMMA tile on 32-deep k-tiles, 3 stages
    BUDGET=${BUDGET:-300} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run264.txt | head -1)" batch=$R/batch_run264.txt ;;
17) # ~8 min: every best stage's random sweep, seeds 1–3, beside its yardsticks (260)
    BUDGET=580 LINE_LIMIT=200 $G build batch=$R/batch_run260.txt ;;
3|4|5|10) # the leaderboard: the sections `./harness leaderboard --check` calls stale, from the tree
    # as committed (no sh= step: gpu_session.sh refuses a leaderboard step after one), labelled
    # with COMMIT (this copy has no .git). Copy each call's $OUT/leaderboard.md into the tree
    # before the next call, so the next one adds its sections to it.
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    3) BUDGET=570 $G build leaderboard-fp16 leaderboard-random=gemm_fp16:09,10,11,12 ;;  # gemm_fp16's
    10) BUDGET=470 $G build leaderboard-shapes ;;  # gemm_fp16's shape sweep
    4) BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    5) BUDGET=570 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 3|4|5|9|10|11|13|14|15|16|17|18|19|20|21|22" >&2; exit 2 ;;
esac
