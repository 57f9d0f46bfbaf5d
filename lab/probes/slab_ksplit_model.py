#!/usr/bin/env python3
"""slab_ksplit_model.py: is batched fp32 03's bmm_slab right (run 243's patch, landed in the twenty-third session)?

The patched bmm_slab (batched fp32 03, M ≤ 8, N > 32) run on the CPU for whole shapes: each
block's ring copies of a chunk (A's M rows of 64 k at rows kRowLdA apart, the slab's B as
[k][32], nothing past K or N), each warp's 8 k of the chunk for every row (whole, or the last
chunk's tail), the warps' partial sums written to the freed ring as [warp][row][lane] and added
in warp order. Checks: every shared slot read was written by that chunk, the partial sums fit
the first two stages, every output right (1e-9) and written once. CPU only.
"""
import random
import sys

from model_check import check_batched

THREADS, KC, LDA, SLAB, MAXR = 256, 64, 68, 32, 8
WARPS, KW = THREADS // 32, KC // (THREADS // 32)
STAGE = 2688  # kRowStage (floats)


def run(batch, m, n, k, seed):
    rnd = random.Random(seed)
    A = [rnd.uniform(-10, 10) for _ in range(batch * m * k)]
    B = [rnd.uniform(-10, 10) for _ in range(batch * k * n)]
    C = [None] * (batch * m * n)
    assert WARPS * MAXR * SLAB * 8 <= 2 * STAGE * 4, "partials past two stages"
    slabs = (n + SLAB - 1) // SLAB
    kt = (k + KC - 1) // KC
    b_off = MAXR * LDA
    for b in range(batch):
        for sx in range(slabs):
            n0 = sx * SLAB
            nw = min(SLAB, n - n0)
            acc = [[0.0] * MAXR for _ in range(THREADS)]
            for c in range(kt):
                st = [None] * STAGE
                k0 = c * KC
                kc = min(KC, k - k0)
                for i in range(m * KC):  # A's copies (issue)
                    r, kk = i // KC, i % KC
                    if kk < kc:
                        st[r * LDA + kk] = A[(b * m + r) * k + k0 + kk]
                for i in range(kc * SLAB):
                    kk, q = i // SLAB, i % SLAB
                    if q < nw:
                        st[b_off + kk * SLAB + q] = B[(b * k + k0 + kk) * n + n0 + q]
                for tid in range(THREADS):
                    warp, lane = tid // 32, tid % 32
                    kb = warp * KW
                    if kb + KW <= kc:
                        bv = [st[b_off + (kb + u) * SLAB + lane] for u in range(KW)]
                        for r in range(MAXR):
                            if r >= m:
                                break
                            for u in range(KW):
                                a = st[r * LDA + kb + u]
                                assert a is not None, "A slot unwritten"
                                if bv[u] is None:
                                    assert lane >= nw, "B slot unwritten inside the slab"
                                    continue
                                acc[tid][r] += a * bv[u]
                    else:
                        for u in range(kc - kb):
                            bf = st[b_off + (kb + u) * SLAB + lane]
                            for r in range(MAXR):
                                if r < m:
                                    a = st[r * LDA + kb + u]
                                    assert a is not None, "A slot unwritten (tail)"
                                    if bf is None:
                                        assert lane >= nw
                                        continue
                                    acc[tid][r] += a * bf
            part = {}
            for tid in range(THREADS):
                warp, lane = tid // 32, tid % 32
                for r in range(MAXR):
                    if r < m:
                        part[(warp * MAXR + r) * SLAB + lane] = acc[tid][r]
            for tid in range(THREADS):
                ml, nn = tid // SLAB, tid % SLAB
                if ml < m and nn < nw:
                    s = sum(part[(w * MAXR + ml) * SLAB + nn] for w in range(WARPS))
                    at = (b * m + ml) * n + n0 + nn
                    assert C[at] is None, "written twice"
                    C[at] = s
    check_batched(A, B, C, batch, m, n, k)


def main():
    shapes = [(2, 8, 40, 200), (1, 1, 33, 130), (3, 7, 100, 70), (2, 8, 37, 13), (1, 3, 101, 9),
              (2, 5, 64, 64), (1, 6, 35, 65)]
    for i, s in enumerate(shapes):
        run(*s, seed=i)
        print("x".join(map(str, s)) + ": ok")
    print("OK: every output right and written once, every shared slot read was written, partials fit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
