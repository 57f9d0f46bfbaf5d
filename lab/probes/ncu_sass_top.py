#!/usr/bin/env python3
"""ncu_sass_top.py RAW.csv SASS.csv N — from ncu's raw page, the stall reasons by their share of
the warp-state samples; from its source page, the samples summed by opcode (DFMA, F2F, LDS...: what
a kernel waits on, by the instruction that waits) and the N SASS lines with the most, each with its
top reasons. Column names are matched loosely: ncu versions word them differently."""
import csv
import sys


def rows(path):
    with open(path, newline="", errors="replace") as f:
        text = [l for l in f if l.startswith('"')]  # ncu's own lines ("==PROF==") are not CSV
    return list(csv.reader(text))


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def main():
    raw_path, sass_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    raw = rows(raw_path)
    if len(raw) >= 2:
        head, val = raw[0], raw[-1]
        stalls = {}
        for h, v in zip(head, val):
            key = "smsp__pcsamp_warps_issue_stalled_"
            if h.startswith(key) and not h.endswith("_not_issued") and num(v):
                stalls[h[len(key):]] = num(v)
        total = sum(stalls.values())
        if total:
            print("stall samples:", ", ".join(f"{k} {v / total:.0%}" for k, v in
                                              sorted(stalls.items(), key=lambda kv: -kv[1])[:8]))
    sass = rows(sass_path)
    if len(sass) < 2:
        print("no SASS page")
        return
    # ncu names the kernel on a row of its own before the header
    while sass and not any(h.strip() == "Source" for h in sass[0]):
        sass = sass[1:]
    if len(sass) < 2:
        print("no SASS header")
        return
    head = sass[0]
    def col(*words):
        for i, h in enumerate(head):
            if all(w.lower() in h.lower() for w in words):
                return i
        return None
    src = next((i for i, h in enumerate(head) if h.strip() == "Source"), None)
    allc = col("Warp Stall Sampling", "All")
    if src is None or allc is None:
        print("SASS page columns not found:", head[:12])
        return
    reasons = [i for i, h in enumerate(head) if h.startswith("stall_") and "(Not Issued)" not in h]
    body = [r for r in sass[1:] if len(r) == len(head) and num(r[allc])]
    total = sum(num(r[allc]) for r in body) or 1
    by_op = {}
    for r in body:
        words = r[src].split()
        op = next((w for w in words if not w.startswith("@")), "?").split(".")[0]
        e = by_op.setdefault(op, [0.0, {}])
        e[0] += num(r[allc])
        for i in reasons:
            e[1][head[i]] = e[1].get(head[i], 0.0) + (num(r[i]) or 0.0)
    print("stall samples by opcode:")
    for op, (v, why) in sorted(by_op.items(), key=lambda kv: -kv[1][0])[:10]:
        top = sorted(why.items(), key=lambda kv: -kv[1])[:3]
        print(f"  {v / total:5.1%}  {op:10s}  " + ", ".join(f"{h[6:]} {w / v:.0%}" for h, w in top if w))
    print(f"SASS lines with the most stall samples ({len(body)} lines sampled):")
    for r in sorted(body, key=lambda r: -num(r[allc]))[:n]:
        why = sorted(((num(r[i]) or 0, head[i]) for i in reasons), reverse=True)[:2]
        tag = "; ".join(f"{h} {v:.0f}" for v, h in why if v)
        print(f"  {num(r[allc]) / total:5.1%}  {r[src].strip()[:70]:70s}  {tag}")


if __name__ == "__main__":
    main()
