#!/usr/bin/env bash
# batch_dryrun.sh FILE... — a planned GPU batch (lab/runs/batch_runNN.txt) tried on this machine,
# which has no GPU, before it costs device time: in a clean clone of HEAD, the batch's Setup line
# (its first "#   " comment line: copy HEAD's stage to .cmp/, apply the run's patch), then every
# command line, each as its own `bash -c` as gpu_session.sh runs it. A line passes when the
# harness only says it has no CUDA device (or that compute-sanitizer or ncu is not here): options and shapes
# parsed, every file compiled. Anything else the harness says is printed, and the exit status is
# 1. Slow where a line compiles a large stage (12_best: a minute or two a target).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: tools/batch_dryrun.sh lab/runs/batch_runNN.txt..." >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/batch_dryrun.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/tree" || exit 2
cd "$work/tree" || exit 2
export OUT="$work/out"
mkdir -p "$OUT/logs"
bad=0
for f in "$@"; do
    [ -f "$repo/$f" ] || { echo "$f: no such batch file" >&2; bad=1; continue; }
    cp "$repo/$f" "$work/batch.txt"  # the working tree's version, committed or not
    git checkout -q -- . && git clean -qfd -e .deps
    mkdir -p .cmp
    stem=$(basename "$f" .txt)
    setup=$(sed -n 's/^#   \(.*\)$/\1/p' "$work/batch.txt" | head -1)
    if [ -n "$setup" ] && ! bash -c "$setup" > "$OUT/logs/${stem}_setup.log" 2>&1; then
        echo "$stem: its Setup line failed: $setup"; sed 's/^/    /' "$OUT/logs/${stem}_setup.log" | head -5
        bad=1; continue
    fi
    n=0
    while IFS= read -r line; do
        case "$line" in ''|'#'*) continue ;; esac
        n=$((n + 1))
        log="$OUT/logs/${stem}_$n.log"
        timeout 900 bash -c "$line" > "$log" 2>&1
        said=$(grep -hE "^harness: |Status: (compile-error|error)|command not found|No such file" "$log" |
               grep -vE "no CUDA device|building the judge|not found \(looked at" | head -3)
        if [ -n "$said" ]; then echo "$stem line $n:"; echo "$said" | sed 's/^/    /'; bad=1
        else echo "$stem line $n: ok"; fi
    done < "$work/batch.txt"
done
exit $bad
