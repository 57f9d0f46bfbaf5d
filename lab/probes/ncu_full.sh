#!/usr/bin/env bash
# ncu_full.sh NAME PROBLEM SIZE KERNEL_REGEX SOLUTION — the first launch of one kernel of a
# solution's run at SIZE under Nsight Compute's full set, where `--profile`'s fixed metrics do not
# say enough: its details page, the raw stall metrics and the SASS lines with the most
# stall samples (ncu_sass_top.py), all under $OUT/logs/ncu_NAME.*. Runs the harness as --profile
# does (HARNESS_PROFILER set, the solution's run confined as under it), killed after 240 s.
set -uo pipefail
[ $# -eq 5 ] || { echo "usage: lab/probes/ncu_full.sh NAME PROBLEM SIZE KERNEL_REGEX SOLUTION" >&2; exit 2; }
name=$1 problem=$2 size=$3 kernel=$4 sol=$5
case $name in *[!A-Za-z0-9_.-]*|'') echo "ncu_full.sh: NAME must be letters, digits, _ . -" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:?set OUT}/logs/ncu_$name
mkdir -p "$(dirname "$out")"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$NCU" ] || { echo "ncu_full.sh: ncu is not here ($NCU)"; exit 3; }
HARNESS_PROFILER=ncu timeout -s KILL 240 "$NCU" --set full --target-processes all \
    --kernel-name-base mangled --kernel-name "regex:$kernel" --launch-count 1 -f -o "$out" \
    ./harness --arch sm_90a --no-timing --size "$size" --timeout 200 --problem "$problem" -q -- "$sol" \
    > "$out.run.log" 2>&1
rc=$?
[ -f "$out.ncu-rep" ] || { echo "ncu_full.sh $name: no report (exit $rc)"; tail -5 "$out.run.log"; exit 1; }
"$NCU" -i "$out.ncu-rep" --page details > "$out.details.txt" 2>&1
"$NCU" -i "$out.ncu-rep" --page raw --csv > "$out.raw.csv" 2>&1
"$NCU" -i "$out.ncu-rep" --page source --print-source sass --csv > "$out.sass.csv" 2>&1
echo "== $name: $problem $size, kernel /$kernel/ (run exit $rc)"
grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Theoretical Occupancy|Warp Cycles Per Issued Instruction|Issue Slots Busy|L1/TEX Hit Rate|L2 Hit Rate) " "$out.details.txt" | sed 's/  */ /g'
python3 lab/probes/ncu_sass_top.py "$out.raw.csv" "$out.sass.csv" 25
# the report itself stays only with KEEP_REP=1: the device tool returns at most 16 MiB a file
[ "${KEEP_REP:-0}" = 1 ] || rm -f "$out.ncu-rep"
