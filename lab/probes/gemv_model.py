#!/usr/bin/env python3
"""gemv_model.py: is matmul_fp32 03_exact's mm_gemv (run 224's patch, landed) and its launch right?

Runs the kernel's index arithmetic thread by thread on the CPU (blocks in any order, the barrier
phases in order): the host's choice of cw, slices and d_per; A's slice as [k][R] doubles; each
group's part of the slice; the groups' sums in group order; the slices' planes added by the
slab's last block. Checks every output of C against an fp64 product (1e-12 relative), that each
is written exactly once, that no read leaves A or B, that shared memory holds the slice and the
sums, and that every counter is back at zero. CPU only; 1–16 rows, narrow and wide C, short and
long depths.
"""
import random
import struct
import sys

THREADS, SMEM_DOUBLES, SMS = 256, 4096, 132


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def launch(rows, depth, cols):
    R = 1 if rows == 1 else 2 if rows == 2 else 4 if rows <= 4 else 8 if rows <= 8 else 16
    cw = 256 if cols >= 192 else 128 if cols >= 96 else 64 if cols >= 48 else 32
    slabs = (cols + cw - 1) // cw
    most = SMEM_DOUBLES // R
    s = min((4 * SMS + slabs - 1) // slabs, max(1, depth // 32))
    s = max(s, (depth + most - 1) // most)
    d_per = (depth + s - 1) // s
    s = (depth + d_per - 1) // d_per
    return R, cw, slabs, s, d_per


def run(rows, depth, cols, seed):
    rnd = random.Random(seed)
    A = [f32(rnd.uniform(-10, 10)) for _ in range(rows * depth)]
    B = [f32(rnd.uniform(-10, 10)) for _ in range(depth * cols)]
    R, cw, slabs, s, d_per = launch(rows, depth, cols)
    if min(d_per, depth) * R > SMEM_DOUBLES:
        return f"slice of {d_per} x {R} rows does not fit shared memory"
    if 256 * R > SMEM_DOUBLES:
        return "groups' sums do not fit"
    C = {}
    ws = {}
    counters = [0] * slabs
    groups = THREADS // cw

    def ldA(i):
        if not 0 <= i < len(A):
            raise IndexError(f"A read at {i}")
        return A[i]

    def ldB(i):
        if not 0 <= i < len(B):
            raise IndexError(f"B read at {i}")
        return B[i]

    order = [(x, z) for x in range(slabs) for z in range(s)]
    rnd.shuffle(order)
    try:
        for bx, z in order:
            d0 = z * d_per
            dl = min(d_per, depth - d0)
            if dl <= 0:
                return f"empty slice {z}"
            sm = [None] * SMEM_DOUBLES
            for tid in range(THREADS):
                for i in range(tid, dl * R, THREADS):
                    d, r = i // R, i % R
                    sm[i] = ldA(r * depth + d0 + d) if r < rows else 0.0
            accs = {}
            for tid in range(THREADS):
                gi, c = tid // cw, tid % cw
                n = bx * cw + c
                active = n < cols
                sub = (dl + groups - 1) // groups
                kb = min(dl, gi * sub)
                ke = min(dl, kb + sub)
                acc = [0.0] * R
                for d in range(kb, ke):
                    b = ldB((d0 + d) * cols + n) if active else 0.0
                    for r in range(R):
                        a = sm[d * R + r]
                        if a is None:
                            return f"slot {d * R + r} read before it was written"
                        acc[r] = a * b + acc[r]
                accs[tid] = acc
            part = [None] * SMEM_DOUBLES
            for tid in range(THREADS):
                gi, c = tid // cw, tid % cw
                for r in range(R):
                    part[(gi * R + r) * cw + c] = accs[tid][r]
            plane = rows * cols
            for tid in range(min(cw, THREADS)):
                n = bx * cw + tid
                if n >= cols:
                    continue
                for r in range(rows):
                    total = 0.0
                    for g in range(groups):
                        total += part[(g * R + r) * cw + tid]
                    if s == 1:
                        if (r, n) in C:
                            return f"C[{r}][{n}] written twice"
                        C[(r, n)] = total
                    else:
                        ws[z * plane + r * cols + n] = total
            if s == 1:
                continue
            counters[bx] += 1
            if counters[bx] == s:
                for tid in range(cw):
                    n = bx * cw + tid
                    if n >= cols:
                        continue
                    for r in range(rows):
                        total = 0.0
                        for zz in range(s):
                            total += ws[zz * plane + r * cols + n]
                        if (r, n) in C:
                            return f"C[{r}][{n}] written twice"
                        C[(r, n)] = total
                counters[bx] = 0
    except IndexError as e:
        return str(e)
    if any(counters):
        return "a counter left non-zero"
    for r in range(rows):
        for n in range(cols):
            if (r, n) not in C:
                return f"C[{r}][{n}] never written"
            want = sum(A[r * depth + d] * B[d * cols + n] for d in range(depth))
            if abs(C[(r, n)] - want) > 1e-12 * max(1.0, sum(abs(A[r * depth + d] * B[d * cols + n]) for d in range(depth))):
                return f"C[{r}][{n}] = {C[(r, n)]}, want {want}"
    return None


def launches_fit():
    """The host's choice alone, over the whole range: every slice fits, none is empty."""
    for rows in range(1, 17):
        for depth in (9, 33, 100, 257, 1000, 4097, 6000, 8192):
            for cols in (33, 47, 95, 191, 200, 1000, 4000, 8192):
                R, cw, slabs, s, d_per = launch(rows, depth, cols)
                if d_per * R > SMEM_DOUBLES or (s - 1) * d_per >= depth or slabs > 4096:
                    return f"rows={rows} depth={depth} cols={cols}: {s} slices of {d_per} (R {R})"
    return None


def main():
    err = launches_fit()
    if err:
        print(f"FAULT: launch {err}")
        return 1
    shapes = [(1, 40, 33), (2, 100, 300), (3, 9, 47), (8, 360, 455), (5, 1000, 97), (8, 64, 130),
              (16, 300, 40), (11, 33, 200), (1, 5000, 40), (4, 3000, 35), (16, 600, 33), (7, 17, 1000)]
    for i, (m, k, n) in enumerate(shapes):
        err = run(m, k, n, i)
        R, cw, slabs, s, d_per = launch(m, k, n)
        if err:
            print(f"FAULT at rows={m} depth={k} cols={n} (R {R}, cw {cw}, {slabs} slabs, {s} slices of {d_per}): {err}")
            return 1
    print(f"OK: launches over 1024 sizes fit; {len(shapes)} shapes run, every output right and written once, no read outside A or B, counters reset")
    return 0


if __name__ == "__main__":
    sys.exit(main())
