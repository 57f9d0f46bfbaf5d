#!/usr/bin/env python3
"""profile_digest.py FILE.json... — one line a kernel from `harness --profile --json` output:
its name, grid and block, time, DMMA/tensor pipe busy, DRAM bytes and rate, warps active, and the
three largest stall reasons (warps stalled per issue). For a batch's summary, where the full
metric list is too long to read."""
import json
import sys

STALL = "smsp__average_warps_issue_stalled_"


def digest(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: unreadable ({e})"]
    prof = doc.get("profile") or {}
    if doc.get("error") or prof.get("error"):
        return [f"{path}: {doc.get('error') or prof.get('error')}"]
    lines = [f"{prof.get('case', '?')} ({doc.get('solution', path)})"]
    for k in prof.get("kernels", []):
        m = {name: v.get("value") for name, v in k.get("metrics", {}).items()}
        t_ns = m.get("gpu__time_duration.sum") or 0
        rd, wr = m.get("dram__bytes_read.sum") or 0, m.get("dram__bytes_write.sum") or 0
        rate = (rd + wr) / t_ns if t_ns else 0.0  # bytes per ns = GB/s
        stalls = sorted(((v or 0, n[len(STALL):].split("_per_issue")[0]) for n, v in m.items()
                         if n.startswith(STALL)), reverse=True)[:3]
        lines.append(
            f"  {k.get('display', '?'):<28} grid {k.get('grid', '?'):<14} block {k.get('block', '?'):<12}"
            f" {t_ns / 1000:8.1f} us  dmma {m.get('sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active', 0):5.1f}%"
            f"  dram {rd / 1e6:7.1f}+{wr / 1e6:6.1f} MB {rate:6.0f} GB/s"
            f"  warps {m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):5.1f}%"
            f"  stalls " + ", ".join(f"{n} {v:.2f}" for v, n in stalls))
    return lines


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for p in sys.argv[1:]:
        print("\n".join(digest(p)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
