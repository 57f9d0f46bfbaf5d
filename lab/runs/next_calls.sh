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
62) # ~7 min: runs 301 (matmul 03's skinny pieces ≥ 64 deep, on run 281 as it lands) and 302
    # (matmul 02's thin column threads where C takes 4-byte stores), 303 (the same in batched 03)
    BUDGET=${BUDGET:-450} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run301.txt | head -1)" batch=$R/batch_run301.txt ;;
70) # ≤ 10 min, once run 281 has landed and been committed (lab/NOTES.md, plan of the thirty-ninth
    # session), for what device time is left (BUDGET): matmul_fp32's leaderboard sections at COMMIT,
    # run 310 (matmul 03's seeds 2–3 there), then call 62's batch (runs 301–303, timings first, then
    # their checks) until BUDGET ends it
    [ -n "${COMMIT:-}" ] || { echo "next_calls.sh 70: COMMIT=<the committed HEAD> first" >&2; exit 2; }
    export COMMIT
    BUDGET=${BUDGET:-570} LINE_LIMIT=200 $G build leaderboard=matmul_fp32 \
        leaderboard-random=matmul_fp32:02,03 batch=$R/batch_run310.txt \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run301.txt | head -1)" batch=$R/batch_run301.txt ;;
63) # ~2 min: run 304, matmul 03's mm_gemv slices at least 128 or 512 deep (32 now), against HEAD
    BUDGET=${BUDGET:-180} LINE_LIMIT=120 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run304.txt | head -1)" batch=$R/batch_run304.txt ;;
64) # ~4 min: run 305, matmul 03's 64×16 tiles to 128 columns while ≤ 4 an SM, on runs 281 + 301
    BUDGET=${BUDGET:-300} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run305.txt | head -1)" batch=$R/batch_run305.txt ;;
65) # ~4 min: run 306, batched 03's 64×64 split for 4 CTAs an SM and under 1.5 waves, vs HEAD
    BUDGET=${BUDGET:-300} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run306.txt | head -1)" batch=$R/batch_run306.txt ;;
66) # ~3 min: run 307, matmul 03's 64×64 tiles for depth ≤ 16 (C's writes bind), against HEAD
    BUDGET=${BUDGET:-240} LINE_LIMIT=200 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run307.txt | head -1)" batch=$R/batch_run307.txt ;;
67) # ~6 min: run 308, the timing lines of runs 304–307 and 309 in one call (checks: 63–66)
    BUDGET=${BUDGET:-420} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run308.txt | head -1)" batch=$R/batch_run308.txt ;;
68) # ~2 min: run 309's checks (batched 03, 64×16 tiles to 256 columns), if run 308 shows it winning
    BUDGET=${BUDGET:-180} LINE_LIMIT=150 $G build \
        "sh=$(sed -n 's/^#   \(.*\)$/\1/p' $R/batch_run309.txt | head -1)" batch=$R/batch_run309.txt ;;
61) # ~3 min: run 298, seeds 2 and 3 of both fp32 03 stages and matmul 02 beside both yardsticks
    # (the tree as committed: after a landing)
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
*)  echo "usage: lab/runs/next_calls.sh 3|4|5|10|17|23|36|45|61|62|63|64|65|66|67|68|70" >&2; exit 2 ;;
esac
