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
13) # ~6 min: matmul 03's MM_MID_DEPTH 512 and 1024 against 256 (256)
    BUDGET=${BUDGET:-420} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run256.txt | head -1)" batch=$R/batch_run256.txt ;;
20) # ~3 min: run 262, batched 03's 128×128 DMMA tile forced and the padded copies from small
    # products, each against HEAD
    BUDGET=${BUDGET:-240} LINE_LIMIT=120 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run262.txt | head -1)" batch=$R/batch_run262.txt ;;
35) # ~5 min: run 271, batched 03 as landed (268, 269 and rows from K = 16 where each won)
    # against .cmp/b03_head.cu (3c33e8c's; carry .cmp)
    BUDGET=${BUDGET:-420} LINE_LIMIT=200 $G build batch=$R/batch_run271.txt ;;
36) # ~3 min: run 272, profiles of the fp32 03 shapes still over cuBLAS at 9756952
    BUDGET=${BUDGET:-300} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run272.txt | head -1)" batch=$R/batch_run272.txt ;;
37) # ~4 min: run 273, matmul 03 with C of at most 8 columns on 64×8 exact tiles, against HEAD
    BUDGET=${BUDGET:-330} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run273.txt | head -1)" batch=$R/batch_run273.txt ;;
38) # ~6 min: run 274, batched 03's 64×16 DMMA tiles for C of ≤ 16 columns, and matmul 03's
    # mm_thin at depth 9–16, each against HEAD
    BUDGET=${BUDGET:-420} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run274.txt | head -1)" batch=$R/batch_run274.txt ;;
50) # ~5 min: run 281, matmul 03's one-launch split bounded by the occupancy API (clusters all
    # resident at once) instead of one CTA an SM, timed against HEAD (run 284 landed)
    BUDGET=${BUDGET:-360} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run281.txt | head -1)" batch=$R/batch_run281.txt ;;
54) # ~4 min: run 285, matmul 03's skinny tiles split finer (pieces ≥ 64 deep, ≤ 128 of them),
    # timed against HEAD (run 284 landed)
    BUDGET=${BUDGET:-300} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run285.txt | head -1)" batch=$R/batch_run285.txt ;;
55) # ~5 min: run 287, batched 03's bmm_slab and bmm_rows split K under a wave (blocks < SMs),
    # against HEAD
    BUDGET=${BUDGET:-300} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run287.txt | head -1)" batch=$R/batch_run287.txt ;;
56) # ~2 min: run 288, batched 03's 64×16 DMMA tiles past 16 columns (BMM_SKINNY_N 128 and 64),
    # against HEAD
    BUDGET=${BUDGET:-180} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run288.txt | head -1)" batch=$R/batch_run288.txt ;;
57) # ~4 min: run 289, the thin kernels with at most 32 threads along the columns (matmul 03, 02,
    # batched 03), against HEAD
    BUDGET=${BUDGET:-300} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run289.txt | head -1)" batch=$R/batch_run289.txt ;;
58) # ~4 min: run 290, matmul 03's exact tiles reading A 8 bytes at a time (depth even), no padded
    # copy, against HEAD
    BUDGET=${BUDGET:-270} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run290.txt | head -1)" batch=$R/batch_run290.txt ;;
59) # ~3 min: run 296, timing only: runs 293 (batched 03 64×16 tiles to 128 columns), 294 (thin
    # kernels' column threads), 295 (matmul 03 A in 8-byte pairs, unpadded), each against HEAD
    BUDGET=${BUDGET:-240} LINE_LIMIT=120 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run296.txt | head -1)" batch=$R/batch_run296.txt ;;
60) # ~7 min: run 297, the checks of runs 293–295 (tests on SASS and the A100 path, edge sizes,
    # sanitizers, yardsticks) before they land
    BUDGET=${BUDGET:-450} LINE_LIMIT=240 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run297.txt | head -1)" batch=$R/batch_run297.txt ;;
61) # ~3 min: run 298, seeds 2 and 3 of both fp32 03 stages and matmul 02 beside both yardsticks
    BUDGET=${BUDGET:-240} LINE_LIMIT=150 $G build batch=$R/batch_run298.txt ;;
17) # ~8 min: every best stage's random sweep, seeds 1–3, beside its yardsticks (260)
    BUDGET=580 LINE_LIMIT=200 $G build batch=$R/batch_run260.txt ;;
23) # ~1 min: run 261's sanitizer line (the capped slab's memcheck, matmul 03's at 2960×3759×4),
    # cut from calls 16 and 19 by their budgets
    grep -e '^#' -e --sanitize $R/batch_run261.txt > /tmp/batch_run261s.txt
    BUDGET=${BUDGET:-120} LINE_LIMIT=100 $G build batch=/tmp/batch_run261s.txt ;;
3|4|5|10|45) # the leaderboard: the sections `./harness leaderboard --check` calls stale,
    # from the tree as committed (no sh= step before them: gpu_session.sh refuses a leaderboard
    # step after one), labelled with COMMIT (this copy has no .git). Copy each call's
    # $OUT/leaderboard.md into the tree before the next call, so the next one adds its sections.
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh $1: COMMIT=<the committed HEAD, short hash> first" >&2; exit 2; }
    export COMMIT
    case $1 in
    3) BUDGET=570 $G build leaderboard-fp16 leaderboard-random=gemm_fp16:09,10,11,12 ;;  # gemm_fp16's
    10) BUDGET=470 $G build leaderboard-shapes ;;  # gemm_fp16's shape sweep
    4) BUDGET=500 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 ;;
    5) BUDGET=570 $G build leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;
    45) BUDGET=580 $G build leaderboard=matmul_fp32 leaderboard-random=matmul_fp32:02,03 \
        leaderboard=batched_matmul_fp32 leaderboard-random=batched_matmul_fp32:02,03 ;;  # 4 and 5
    esac ;;
*)  echo "usage: lab/runs/next_calls.sh 3|4|5|10|13|17|20|23|35|36|37|38|45|50|54|55|56|57|58|59|60|61" >&2; exit 2 ;;
esac
