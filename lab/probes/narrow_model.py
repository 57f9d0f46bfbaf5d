#!/usr/bin/env python3
"""narrow_model.py: is experiments/run244_mm_narrow.patch's index arithmetic right?

mm_narrow (matmul_fp32 03, C of at most 32 columns) run on the CPU for whole shapes: the host's
slices (whole 32-k chunks, at least 64 deep, for 4 blocks an SM), each block's register copies of
A and B into its shared chunk (rows tid / 32 + 8e at k tid % 32; B at column tid % W of k
tid / W + e·BR, zero past the edges), every thread's 8 sums over its row and columns, and the
stores (C directly, or slice planes then mm_split_sum's in-order sum). Checks: every shared slot
a thread reads was written in that chunk, every output of C right (1e-9) and written once, no
read of A or B out of bounds. CPU only.
"""
import random
import sys

THREADS, KC, CPT, MIN_DEPTH, SPLIT_MAX, SMS = 256, 32, 8, 64, 64, 132


def host(rows, depth, cols):
    tpr = 1 if cols <= 8 else 2 if cols <= 16 else 4
    rb = THREADS // tpr
    blocks = (rows + rb - 1) // rb
    s = min((4 * SMS + blocks - 1) // blocks, max(1, depth // MIN_DEPTH))
    s = max(1, min(s, SPLIT_MAX))
    d_per = ((depth + s - 1) // s + KC - 1) // KC * KC
    s = (depth + d_per - 1) // d_per
    return tpr, rb, blocks, s, d_per


def run(rows, depth, cols, seed):
    rnd = random.Random(seed)
    A = [rnd.uniform(-10, 10) for _ in range(rows * depth)]
    B = [rnd.uniform(-10, 10) for _ in range(depth * cols)]
    tpr, rb, blocks, s, d_per = host(rows, depth, cols)
    W = tpr * CPT
    AE, BE = rb * KC // THREADS, KC * W // THREADS
    AR, BR = THREADS // KC, THREADS // W
    assert d_per * (s - 1) < depth, "an empty slice"
    planes = [[None] * (rows * cols) for _ in range(s)]
    C = [None] * (rows * cols)
    order = [(bx, z) for bx in range(blocks) for z in range(s)]
    rnd.shuffle(order)
    for bx, z in order:
        r0, d0 = bx * rb, z * d_per
        d1 = min(depth, d0 + d_per)
        acc = [[0.0] * CPT for _ in range(THREADS)]
        for k0 in range(d0, d1, KC):
            as_ = [[None] * (KC + 1) for _ in range(rb)]
            bs = [[None] * W for _ in range(KC)]
            for tid in range(THREADS):
                ak, ar0, bc, bk = tid % KC, r0 + tid // KC, tid % W, tid // W
                for e in range(AE):
                    r = ar0 + e * AR
                    ok = k0 + ak < d1 and r < rows
                    if ok:
                        assert 0 <= r * depth + k0 + ak < rows * depth
                    as_[tid // KC + e * AR][ak] = A[r * depth + k0 + ak] if ok else 0.0
                for e in range(BE):
                    k = k0 + bk + e * BR
                    ok = k < d1 and bc < cols
                    if ok:
                        assert 0 <= k * cols + bc < depth * cols
                    bs[bk + e * BR][bc] = B[k * cols + bc] if ok else 0.0
            for tid in range(THREADS):
                rl, cg = tid // tpr, tid % tpr
                for k in range(KC):
                    a = as_[rl][k]
                    assert a is not None, "an A slot read before it was written"
                    for j in range(CPT):
                        b = bs[k][cg * CPT + j]
                        assert b is not None, "a B slot read before it was written"
                        acc[tid][j] += a * b
        for tid in range(THREADS):
            r, cg = r0 + tid // tpr, tid % tpr
            if r >= rows:
                continue
            for j in range(CPT):
                c = cg * CPT + j
                if c >= cols:
                    break
                at = r * cols + c
                if s == 1:
                    assert C[at] is None, "an output written twice"
                    C[at] = acc[tid][j]
                else:
                    assert planes[z][at] is None, "a plane element written twice"
                    planes[z][at] = acc[tid][j]
    if s > 1:
        for at in range(rows * cols):
            C[at] = 0.0
            for z in range(s):
                assert planes[z][at] is not None, "a plane element never written"
                C[at] += planes[z][at]
    for r in range(rows):
        for c in range(cols):
            ref = sum(A[r * depth + d] * B[d * cols + c] for d in range(depth))
            got = C[r * cols + c]
            assert got is not None, "an output never written"
            assert abs(got - ref) <= 1e-9 * max(1.0, abs(ref)), (r, c, got, ref)
    return s, tpr


def main():
    shapes = [(300, 200, 8), (257, 70, 5), (129, 33, 13), (70, 450, 16), (65, 100, 30),
              (513, 9, 1), (3, 640, 24), (260, 1000, 32)]
    for i, (m, d, c) in enumerate(shapes):
        s, tpr = run(m, d, c, i)
        print(f"{m}x{d}x{c}: {s} slices, TPR {tpr}: ok")
    print("OK: every output right and written once, every shared slot written before it is read, "
          "no copy out of bounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
