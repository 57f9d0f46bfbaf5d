"""narrow_lanes_model.py: is matmul_fp32 03_exact's mm_narrow right (as run 263 wrote it, for 1–8 columns)?

The host's slices (launch_narrow) and the kernel run warp by warp in Python on integer matrices:
each lane's loads (guarded: every address read inside A or B), its 4·NC sums, the plain xor
sums over the lane bits >= V and the reduce-scatter, each lane's store (C, or a slice's plane
then the in-order sum). Every output must be right and written once. CPU only: a model of the
index arithmetic, not of the GPU."""
import random
import sys

THREADS, ROWS, J, STEP, MIN_SLICE, SPLIT_MAX = 256, 4, 4, 128, 512, 64


def launch(rows, depth, cols, sms):
    nc = 1 if cols == 1 else 2 if cols == 2 else 4 if cols <= 4 else 8
    rb = THREADS // 32 * ROWS
    blocks = (rows + rb - 1) // rb
    s = min((4 * sms + blocks - 1) // blocks, max(1, depth // MIN_SLICE))
    s = max(1, min(s, SPLIT_MAX))
    d_per = ((depth + s - 1) // s + STEP - 1) // STEP * STEP
    s = (depth + d_per - 1) // d_per
    return nc, blocks, s, d_per


def warp(A, B, rows, depth, cols, nc, r0, d0, d1, bad):
    v = ROWS * nc
    acc = [[0] * v for _ in range(32)]
    for k0 in range(d0, d1, STEP):
        for lane in range(32):
            for j in range(J):
                k = k0 + 32 * j + lane
                a = []
                for r in range(ROWS):
                    if r0 + r < rows and k < d1:
                        idx = (r0 + r) * depth + k
                        if not (0 <= idx < rows * depth):
                            bad.append(("A", idx))
                        a.append(A[idx])
                    else:
                        a.append(0)
                for c in range(nc):
                    if k < d1 and c < cols:
                        idx = k * cols + c
                        if not (0 <= idx < depth * cols):
                            bad.append(("B", idx))
                        b = B[idx]
                    else:
                        b = 0
                    for r in range(ROWS):
                        acc[lane][r * nc + c] += a[r] * b
    s = 16
    while s >= v:
        acc = [[acc[l][i] + acc[l ^ s][i] for i in range(v)] for l in range(32)]
        s //= 2
    s = v // 2
    while s >= 1:
        new = [row[:] for row in acc]
        for l in range(32):
            up = bool(l & s)
            p = l ^ s
            for i in range(s):
                keep = acc[l][i + s] if up else acc[l][i]
                # the partner sends the half it does not keep: the half this lane keeps
                send_p = acc[p][i] if (p & s) else acc[p][i + s]
                new[l][i] = keep + send_p
        acc = new
        s //= 2
    out = {}
    for lane in range(32):
        r, c = r0 + lane // nc, lane % nc
        if lane >= v or r >= rows or c >= cols:
            continue
        out[(r, c)] = acc[lane][0]
    return out


def check(rows, depth, cols, sms, rng):
    A = [rng.randint(-9, 9) for _ in range(rows * depth)]
    B = [rng.randint(-9, 9) for _ in range(depth * cols)]
    nc, blocks, s, d_per = launch(rows, depth, cols, sms)
    assert (s - 1) * d_per < depth, "an empty slice"
    planes = {}
    bad = []
    order = [(bx, z) for bx in range(blocks) for z in range(s)]
    rng.shuffle(order)
    for bx, z in order:
        d0, d1 = z * d_per, min(depth, z * d_per + d_per)
        for w in range(THREADS // 32):
            r0 = (bx * (THREADS // 32) + w) * ROWS
            if r0 >= rows:
                continue
            for key, val in warp(A, B, rows, depth, cols, nc, r0, d0, d1, bad).items():
                assert (z, key) not in planes, f"written twice: {key} slice {z}"
                planes[(z, key)] = val
    assert not bad, bad[:3]
    for r in range(rows):
        for c in range(cols):
            want = sum(A[r * depth + k] * B[k * cols + c] for k in range(depth))
            got = sum(planes[(z, (r, c))] for z in range(s))
            assert got == want, (rows, depth, cols, r, c, got, want)
    assert len(planes) == s * rows * cols
    return nc, blocks, s, d_per


def main():
    rng = random.Random(263)
    # the real launch's sms; small shapes with a small sms too, so they take several slices
    cases = [(37, 700, 8, 132), (33, 1030, 5, 2), (40, 600, 1, 4), (29, 515, 2, 1), (64, 1300, 3, 3),
             (31, 512, 7, 132), (36, 2049, 4, 1), (45, 640, 6, 2)]
    for rows, depth, cols, sms in cases:
        nc, blocks, s, d_per = check(rows, depth, cols, sms, rng)
        print(f"{rows}x{depth}x{cols} (sms {sms}): NC {nc}, {blocks} blocks, {s} slices of {d_per}: ok")
    # the host's plan at the shapes the batch times (H100, 132 SMs)
    for rows, depth, cols in [(2136, 7585, 8), (2960, 3759, 4), (688, 3291, 6), (1727, 601, 2)]:
        print(f"{rows}x{depth}x{cols}: NC, blocks, slices, slice depth = {launch(rows, depth, cols, 132)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
