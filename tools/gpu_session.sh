#!/usr/bin/env bash
# gpu_session.sh STEP... — one call on the GPU machine: the steps named, in order, each under a
# time limit, full logs under $OUT (packed into logs.tgz: the device tool returns few files),
# a short table in $OUT/summary.txt and on stdout last.
#
# Steps: build, full01, leaderboard-fp16, leaderboard-shapes (the shape sweep of stages 09-12),
#        leaderboard-sgemm, leaderboard-matmul, seed, test, sass, big (8192³ and 2048³ for the
#        tensor-core stages), gpu-suites (build and run the GPU suites), suite=NAME (build and
#        run that one: suite=test_gpu_reference), fixtures (run the GPU suites already built),
#        leaderboard-family (a leaderboard section per family problem),
#        leaderboard=PROBLEM (that problem's section alone), leaderboard-random (the random-shapes
#        section of every problem but gemm_fp16, whose leaderboard-shapes step writes it;
#        leaderboard-random=PROBLEM[:STAGES]: that problem's alone, of those stages),
#        family (every family problem's 01_naive, all tests and timing
#        beside its library), forge-before (the forging fixture against the harness as of
#        51f80b6, the last design with the check inside the solution's process), speed,
#        lb-cost (the gemm_fp16 leaderboard's wall time, 51f80b6 against HEAD), batch=FILE
#        (a file of harness commands: lab/runs/ holds those of past runs), sh=CMD (one command
#        between steps, e.g. a batch's Setup line; several batch= steps then stack patches)
# The Criterion build needs libcriterion: tools/carry_criterion.sh puts it in .deps (carried);
# its libraries are on LD_LIBRARY_PATH for the test steps only (they could shadow the image's).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/logs"
export PKG_CONFIG_PATH="$PWD/.deps/lib/pkgconfig:${PKG_CONFIG_PATH:-}"
DEPS_LIB="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"
# here a test that finds no device fails rather than skipping (tests/util.c tu_have_gpu)
export HARNESS_REQUIRE_GPU=1
S="$OUT/summary.txt"
say() { echo "$*" | tee -a "$S"; }
# The whole call ends by BUDGET seconds (default 540, under the device's 600 s), so the logs are
# always packed: each step's limit is cut to what is left, and a step with under 5 s left is skipped.
DEADLINE=$(( $(date +%s) + ${BUDGET:-540} ))
TEST_FAILS=""  # the test steps (make test, a GPU suite) that did not exit 0
run() { # run NAME LIMIT CMD...: log to logs/NAME.log, note rc and time
    local name=$1 limit=$2; shift 2
    local left=$(( DEADLINE - $(date +%s) ))
    if [ "$left" -lt 5 ]; then say "$(printf '%-28s skipped: the call is out of time' "$name")"; return 124; fi
    [ "$limit" -gt "$left" ] && limit=$left
    local t0=$(date +%s.%N)
    timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
    local rc=$?
    say "$(printf '%-28s rc=%-3s %6.1fs' "$name" "$rc" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")")"
    return $rc
}
# suite BINARY: one Criterion suite, verbose; a suite proves itself by its exit code alone, so a
# synthesis that disagrees with it (all passing, exit 1: Criterion exits 1 after any cr_log_warn)
# is said in the summary
suite() {
    local name; name="$(basename "$1")_verbose"
    run "$name" 300 env LD_LIBRARY_PATH="$DEPS_LIB" "$1" --verbose --jobs 8
    local rc=$? syn; syn=$(grep -E "Synthesis:" "$OUT/logs/$name.log" | tail -1)
    local bad; bad=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1\2/p')
    if [ -n "$syn" ] && { { [ "$rc" -ne 0 ] && [ "$bad" = "00" ]; } || { [ "$rc" -eq 0 ] && [ "$bad" != "00" ]; }; }; then
        say "$(printf '%-28s DISAGREE: exit %s, but %s' "$name" "$rc" "${syn#*Synthesis: }")"
    fi
    [ "$rc" -eq 0 ] || TEST_FAILS="$TEST_FAILS $name"
    return $rc
}
# build_suites LOG TARGET...: the judge and those Criterion suites, configured with the carried
# Criterion; a failed build is a failed test step
build_suites() {
    local log=$1; shift
    run "$log" 300 bash -c 'cmake -S . -B build -DHARNESS_TESTS=ON >/dev/null && cmake --build build -j16 --target harness "$@"' _ "$@" ||
        { TEST_FAILS="$TEST_FAILS $log"; return 1; }
}
# The harness as of 51f80b6 (the check inside the solution's process) in /tmp/h_old: from .old51,
# carried (`git archive 51f80b6`: the device's copy may have no .git), else a git worktree.
build_old() {
    run old_build 300 bash -c 'rm -rf /tmp/h_old && if [ -d .old51 ]; then cp -r .old51 /tmp/h_old; else git worktree add -f /tmp/h_old 51f80b6 >/dev/null 2>&1; fi && cmake -S /tmp/h_old -B /tmp/h_old/build -DHARNESS_TESTS=OFF >/dev/null && cmake --build /tmp/h_old/build -j16'
}
say "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
for step in "$@"; do
    # A leaderboard section is labelled with $COMMIT: once an sh= step has patched the tree, no
    # section may be written from it (its code would not be the commit's)
    case $step in leaderboard*)
        if [ -n "${nsh:-}" ]; then say "$(printf '%-28s refused: an sh= step patched the tree' "$step")"; continue; fi
        [ -n "${COMMIT:-}" ] || say "   note: no COMMIT=: $step's section is labelled 'unknown' (this copy has no .git)" ;;
    esac
    case $step in
    batch=*) # batch=FILE: every non-comment line of FILE is one command (LINE_LIMIT seconds each,
             # default 150: `--gpu all` of a large file needs more); the summary quotes each.
             # Each run's FILE is kept as lab/runs/batch_runNN.txt, its results in lab/NOTES.md.
             # The judge is built first if no step built it (run 87: the harness's first-use build
             # ate both lines' time)
        # Its logs are named after FILE (batch_run217.txt: logs/batch_run217_N.log), so several
        # batch= steps in one call keep every log.
        [ -x build/harness ] || run build 300 make -j16
        n=0
        stem=$(basename "${step#batch=}" .txt)
        while IFS= read -r line; do
            case "$line" in ''|'#'*) continue ;; esac
            n=$((n + 1))
            run "${stem}_$n" "${LINE_LIMIT:-150}" bash -c "$line"
            { echo "   \$ $line"; grep -E "Runtime:|cuBLAS:|Status:|✗|Judge tests:|^wall|[Vv]erdict|faster|slower|difference|__|[Dd]uration|[Tt]ensor|[Ss]tall|[Tt]hroughput" "$OUT/logs/${stem}_$n.log" | sed 's/^/     /' | head -40; } | tee -a "$S"
        done < "${step#batch=}" ;;
    sh=*) # sh=CMD: one shell command between steps (a batch's Setup line: copy HEAD's stage to
          # .cmp/, apply the run's patch), logged as sh_N. If it fails, the steps after it would
          # measure the wrong code: the call stops there (the logs are still packed)
        nsh=$(( ${nsh:-0} + 1 ))
        mkdir -p .cmp
        run "sh_$nsh" 120 bash -c "${step#sh=}" || { say "   sh_$nsh failed, the steps after it not run: ${step#sh=}"; break; } ;;
    build) run build 300 make -j16 || { cat "$OUT/logs/build.log" | tail -40; } ;;
    full01) run full01 120 ./harness --baseline solutions/01_naive.cu ;;
    seed) run seed001 120 ./harness --baseline .seed/seed001_wmma_tiling.cu ;;
    leaderboard-fp16) run lb_fp16 330 ./harness leaderboard --problem gemm_fp16 --timeout 5 --json "$OUT/logs/lb_fp16.json" ${COMMIT:+--commit "$COMMIT"}
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    leaderboard-shapes) run lb_shapes 400 ./harness leaderboard --problem gemm_fp16 --sweep --timeout 8 --json "$OUT/logs/lb_shapes.json" ${COMMIT:+--commit "$COMMIT"}
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    leaderboard-sgemm) run lb_sgemm 400 ./harness leaderboard --problem sgemm --timeout 8 --json "$OUT/logs/lb_sgemm.json" ${COMMIT:+--commit "$COMMIT"}
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    leaderboard-matmul) run lb_matmul 300 ./harness leaderboard --problem matmul_fp32 --timeout 8 --json "$OUT/logs/lb_matmul.json" ${COMMIT:+--commit "$COMMIT"}
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    test) run make_test 400 env LD_LIBRARY_PATH="$DEPS_LIB" make test JOBS=16 || TEST_FAILS="$TEST_FAILS make_test" ;;
    sass)
        for f in solutions/*.cu; do
            stem=$(basename "$f" .cu)
            so=$(ls -t build/cache/"$stem"-*.so 2>/dev/null | head -1)
            [ -n "$so" ] || continue
            cuobjdump --dump-sass "$so" > "$OUT/logs/sass_$stem.txt" 2>&1
            cuobjdump --dump-resource-usage "$so" > "$OUT/logs/res_$stem.txt" 2>&1
            say "$(printf '%-24s HGMMA=%-5s HMMA=%-5s LDSM=%-4s UTMALDG=%-3s LDGSTS=%-4s FFMA=%-6s LDL=%-3s STL=%s' "$stem" \
                "$(grep -c HGMMA "$OUT/logs/sass_$stem.txt")" "$(grep -c 'HMMA' "$OUT/logs/sass_$stem.txt")" \
                "$(grep -c LDSM "$OUT/logs/sass_$stem.txt")" "$(grep -c UTMALDG "$OUT/logs/sass_$stem.txt")" \
                "$(grep -c LDGSTS "$OUT/logs/sass_$stem.txt")" "$(grep -c FFMA "$OUT/logs/sass_$stem.txt")" \
                "$(grep -c 'LDL' "$OUT/logs/sass_$stem.txt")" "$(grep -c 'STL' "$OUT/logs/sass_$stem.txt")")"
        done ;;
    big)
        for f in solutions/0[7-9]_*.cu solutions/1[0-9]_*.cu; do
            for sz in 2048x2048x2048 8192x8192x8192 1000x1000x1000; do
                stem=$(basename "$f" .cu)
                run "big_${stem}_$sz" 120 ./harness --baseline --no-constraints --size "$sz" --json "$f"
            done
        done ;;
    speed) # the harness's own cost: a first compile, then a cached run (all tests and timing)
        run speed_first01 120 ./harness --rebuild solutions/01_naive.cu
        run speed_cached01 120 ./harness solutions/01_naive.cu
        run speed_first07 120 ./harness --rebuild solutions/07_wmma_tiled.cu
        run speed_cached07 120 ./harness solutions/07_wmma_tiled.cu ;;
    seed4096) run seed001_4096 120 ./harness --baseline --tests perf --size 4096x4096x4096 .seed/seed001_wmma_tiling.cu ;;
    sgemm-variants) # 09's big tile as 256 threads of 8×8 (the CUTLASS SIMT shape) against its 128×(8×16)
        sed 's/^using BigCfg = Cfg<128, 128, 8, 2, 2, 4>;/using BigCfg = Cfg<128, 128, 8, 4, 2, 4>;/' solutions/sgemm/09_tuned.cu > /tmp/sgemm09_256t.cu
        if grep -q 'Cfg<128, 128, 8, 4, 2, 4>;' /tmp/sgemm09_256t.cu; then run sgemm09_256t 200 ./harness --baseline --tests perf,extra /tmp/sgemm09_256t.cu
        else say "sgemm09_256t                 skipped: 09's BigCfg line changed, the variant was not made"; fi ;;
    gpu-suites) # the GPU suites only (the CPU ones run on CI): configure with the carried Criterion
        build_suites gpu_suites_build test_gpu_fixtures test_gpu_reference test_gpu_gpus
        for t in build/tests/test_gpu_*; do suite "$t"; done ;;
    fixtures) for t in build/tests/test_gpu_*; do suite "$t"; done ;;
    suite=*) # suite=NAME: one GPU suite (tests/NAME.c) built and run alone
        build_suites "build_${step#suite=}" "${step#suite=}" && suite "build/tests/${step#suite=}" ;;
    leaderboard-family) # a section per family problem, each stage beside its yardstick
        for p in batched_matmul_fp32 batched_matmul_fp16 int8_matmul int4_matmul; do
            run "lb_$p" 400 ./harness leaderboard --problem "$p" --timeout 10 --json "$OUT/logs/lb_$p.json" ${COMMIT:+--commit "$COMMIT"}
        done
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    leaderboard=*) # leaderboard=PROBLEM: that problem's section alone
        p=${step#leaderboard=}
        run "lb_$p" 400 ./harness leaderboard --problem "$p" --timeout 10 --json "$OUT/logs/lb_$p.json" ${COMMIT:+--commit "$COMMIT"}
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    leaderboard-random|leaderboard-random=*) # 64 random shapes (seed 1) per problem (or the one
        # named: leaderboard-random=PROBLEM[:STAGES], STAGES a --stages list), each stage beside
        # its yardsticks
        ps="sgemm matmul_fp32 batched_matmul_fp32 batched_matmul_fp16 int8_matmul int4_matmul"
        [ "$step" != leaderboard-random ] && ps=${step#leaderboard-random=}
        for p in $ps; do
            st=; case $p in *:*) st=${p#*:}; p=${p%%:*} ;; esac
            run "lb_random_$p" 300 ./harness leaderboard --problem "$p" --sweep=random --max-time 0.1 --min-runs 10 \
                ${st:+--stages "$st"} --json "$OUT/logs/lb_random_$p.json" ${COMMIT:+--commit "$COMMIT"}
        done
        cp leaderboard.md "$OUT/leaderboard.md" ;;
    family)
        for f in solutions/batched_matmul_fp32/01_naive.cu solutions/batched_matmul_fp16/01_naive.cu \
                 solutions/int8_matmul/01_naive.cu solutions/int4_matmul/01_naive.cu; do
            run "family_$(basename "$(dirname "$f")")" 300 ./harness --baseline "$f"
        done ;;
    forge-before) # the old design, built apart: its verdict on the forging fixture
        build_old
        run forge_before 120 /tmp/h_old/build/harness --tests judge --no-timing tests/fixtures/forges_verdict.cu
        run forge_after 120 ./harness --tests judge --no-timing tests/fixtures/forges_verdict.cu
        # the old design's cached full run of 12_best: the "before" of issue 21's wall-time bound
        run old_first12 200 /tmp/h_old/build/harness solutions/12_best.cu
        run old_cached12 60 /usr/bin/time -f "wall %e s" /tmp/h_old/build/harness solutions/12_best.cu ;;
    lb-cost) # issue 21's other bound: the gemm_fp16 leaderboard's wall time, 51f80b6 against HEAD,
        # in one call, both judging 51f80b6's stage files (--dir); first each harness compiles every
        # stage into its cache (the example test alone, 6 at a time), so the timed runs compare
        # judging only (run 68: warming with whole leaderboards took 104 s and 123 s)
        [ -x /tmp/h_old/build/harness ] || build_old
        run lb_cost_warm_old 200 bash -c 'cd /tmp/h_old && ls solutions/*.cu | xargs -P 6 -n 1 ./build/harness -q --tests example --no-timing; true'
        run lb_cost_warm_new 200 bash -c 'ls /tmp/h_old/solutions/*.cu | xargs -P 6 -n 1 ./harness -q --tests example --no-timing; true'
        cp leaderboard.md /tmp/lb_new.md
        run lb_cost_old 200 bash -c 'cd /tmp/h_old && /usr/bin/time -f "wall %e s" ./build/harness leaderboard --problem gemm_fp16 --timeout 5'
        run lb_cost_new 200 /usr/bin/time -f "wall %e s" ./harness leaderboard --problem gemm_fp16 --timeout 5 --dir /tmp/h_old/solutions --out /tmp/lb_new.md
        cp /tmp/h_old/leaderboard.md "$OUT/logs/lb_cost_old.md"; cp /tmp/lb_new.md "$OUT/logs/lb_cost_new.md" ;;
    *) say "unknown step $step" ;;
    esac
done
# the short table: per-stage lines from the leaderboard runs, the 01 and seed verdicts
for f in "$OUT"/logs/full01.log "$OUT"/logs/seed001*.log "$OUT"/logs/sgemm09_*.log "$OUT"/logs/family_*.log "$OUT"/logs/forge_*.log "$OUT"/logs/old_*.log "$OUT"/logs/lb_cost_old.log "$OUT"/logs/lb_cost_new.log "$OUT"/logs/speed_*.log; do
    [ -f "$f" ] && { say "-- $(basename "$f")"; grep -E "Runtime|cuBLAS:|Status|Judge tests|✗|^wall" "$f" | head -12 | tee -a "$S"; }
done
for f in "$OUT"/logs/lb_*.log; do [ -f "$f" ] && { say "-- $(basename "$f")"; grep -E '^\[[0-9]+/[0-9]+\] .*:' "$f" | tee -a "$S"; }; done
for f in "$OUT"/logs/big_*.log; do
    [ -f "$f" ] && say "$(basename "$f" .log): $(grep -o '"status":"[a-z-]*"' "$f" | head -1) $(grep -o '"runtime_ms":[0-9.]*' "$f") $(grep -o '"time_ratio":[0-9.]*' "$f")"
done
for f in "$OUT"/logs/test_gpu_*_verbose.log; do [ -f "$f" ] && grep -E "^\[(PASS|FAIL|SKIP)\]|Synthesis|cuBLAS SGEMM" "$f" | tee -a "$S"; done
[ -f "$OUT/logs/make_test.log" ] && grep -E "tests passed|Test +#|Synthesis|FAIL" "$OUT/logs/make_test.log" | tee -a "$S"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
# the call's status is its test steps' (a batch's harness exits are its data, read in the table)
[ -z "$TEST_FAILS" ] || { say "FAILED test steps:$TEST_FAILS"; exit 1; }
