#!/usr/bin/env python3
"""bmm_split_model.py: is batched fp32 03's split K right (run 227's patch, landed)?

The host's choice (pieces S, k_per) and the kernel's indices, run on the CPU for whole shapes:
each piece sums its k range of every output of its tile (the DMMA tile's sum stands in as a plain
fp64 sum over [kb, ke)), writes its plane at (b·S + z), the tile's last piece (blocks in random
order) adds the S planes in order over the tile's valid outputs and resets the counter. Checks:
the pieces cover K exactly once and none is empty, every output of C right (1e-12) and written
once, planes and counters inside the workspace, counters back at zero.
With --sum-kernel: run 235's second-kernel sum, landed (03_exact as it is now). The pieces write
their planes and stop; bmm_split_sum, a thread an output of every batch (e = b·M·N + at), adds
batch b's S planes in order. Same checks, and every element of C written once by that second pass.
"""
import random
import sys

SMS, MIN_K, BK, BM = 132, 64, 16, 64


def host(batch, m, n, k, sum_kernel=False):
    tiles = batch * ((m + 63) // 64) * ((n + 63) // 64)
    if tiles >= SMS or (tiles > 256 and not sum_kernel) or k < 2 * MIN_K:
        return None
    s = min(min(2 * SMS // tiles, k // MIN_K), 64)
    k_per = ((k + s - 1) // s + BK - 1) // BK * BK
    s = (k + k_per - 1) // k_per
    return (s, k_per, tiles) if s >= 2 else None


def run(batch, m, n, k, seed, sum_kernel=False):
    h = host(batch, m, n, k, sum_kernel)
    if h is None:
        return "not split"
    S, k_per, tiles = h
    rnd = random.Random(seed)
    A = [[rnd.uniform(-10, 10) for _ in range(m * k)] for _ in range(batch)]
    B = [[rnd.uniform(-10, 10) for _ in range(k * n)] for _ in range(batch)]
    gx, gy = (n + BM - 1) // BM, (m + BM - 1) // BM
    plane = m * n
    ws_size = S * batch * plane
    ws = [None] * ws_size
    counters = [0] * 256
    C = {}
    covered = {}
    blocks = [(x, y, zz) for x in range(gx) for y in range(gy) for zz in range(batch * S)]
    rnd.shuffle(blocks)
    for x, y, zz in blocks:
        bz, piece = zz // S, zz % S
        kb, ke = piece * k_per, min(k, piece * k_per + k_per)
        if ke <= kb:
            return f"empty piece {piece}"
        for kk in range(kb, ke):
            covered[(bz, x, y, kk)] = covered.get((bz, x, y, kk), 0) + 1
        m0, n0 = y * BM, x * BM
        for r in range(m0, min(m, m0 + BM)):
            for c in range(n0, min(n, n0 + BM)):
                v = sum(A[bz][r * k + kk] * B[bz][kk * n + c] for kk in range(kb, ke))
                at = zz * plane + r * n + c
                if not 0 <= at < ws_size:
                    return f"plane write at {at} outside the workspace"
                ws[at] = v
        if sum_kernel:
            continue
        tile = (bz * gy + y) * gx + x
        if tile >= 256:
            return f"counter {tile} outside the workspace"
        counters[tile] += 1
        if counters[tile] == S:
            vm, vn = min(BM, m - m0), min(BM, n - n0)
            first = bz * S * plane
            for e in range(vm * vn):
                at = (m0 + e // vn) * n + n0 + e % vn
                total = 0.0
                for z in range(S):
                    w = ws[first + z * plane + at]
                    if w is None:
                        return f"plane {z} of batch {bz} read before it was written"
                    total += w
                key = (bz, at)
                if key in C:
                    return f"C[{bz}] at {at} written twice"
                C[key] = total
            counters[tile] = 0
    if sum_kernel:  # bmm_split_sum, after every piece
        for e in range(batch * plane):
            bz, at = e // plane, e % plane
            p = bz * S * plane + at
            total = 0.0
            for z in range(S):
                if not 0 <= p + z * plane < ws_size:
                    return f"sum read at {p + z * plane} outside the workspace"
                w = ws[p + z * plane]
                if w is None:
                    return f"plane {z} of batch {bz} never written at {at}"
                total += w
            C[(bz, at)] = total
    if any(counters):
        return "a counter left non-zero"
    if any(v != 1 for v in covered.values()) or len(covered) != batch * gx * gy * k:
        return "the pieces do not cover K exactly once"
    for bz in range(batch):
        for r in range(m):
            for c in range(n):
                want = sum(A[bz][r * k + kk] * B[bz][kk * n + c] for kk in range(k))
                got = C.get((bz, r * n + c))
                if got is None:
                    return f"C[{bz}][{r}][{c}] never written"
                if abs(got - want) > 1e-12 * max(1.0, abs(want)) * k:
                    return f"C[{bz}][{r}][{c}] = {got}, want {want}"
    return None


def main():
    sum_kernel = "--sum-kernel" in sys.argv[1:]
    shapes = [(2, 70, 30, 300), (1, 26, 150, 216), (3, 65, 129, 500), (1, 5, 7, 1000), (2, 64, 64, 130)]
    for i, sh in enumerate(shapes):
        err = run(*sh, i, sum_kernel)
        if err:
            print(f"FAULT at {sh} (S, k_per, tiles = {host(*sh)}): {err}")
            return 1
    # the real shapes it is for: the choice alone
    for sh in ((2, 816, 162, 675), (1, 26, 591, 216), (8, 32, 180, 237), (6, 448, 48, 326), (8, 183, 178, 323)):
        if host(*sh, sum_kernel) is None:
            print(f"FAULT: {sh} is not split")
            return 1
    print(f"OK{' (sum kernel)' if sum_kernel else ''}: {len(shapes)} shapes run (blocks in random order): pieces cover K once, every output right and "
          "written once, planes and counters inside the workspace, counters reset; run 216's five shapes split")
    return 0


if __name__ == "__main__":
    sys.exit(main())
