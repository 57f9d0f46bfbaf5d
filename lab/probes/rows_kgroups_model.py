#!/usr/bin/env python3
"""rows_kgroups_model.py: is batched_matmul_fp32 03_exact's bmm_rows with k-groups (run 249, landed) right?

The patched host choice (launch_rows_exact: rows a block halved while the blocks are fewer than
the SMs and B's re-reads stay within 2^22 floats; groups = min(256 / (R·N), 16), KW = 64 / groups
rounded up, then to whole float4s) and the kernel (each block's ring copies of a chunk, group gi's
k [gi·KW, (gi + 1)·KW) of every chunk for each of the block's outputs, the partial sums in the
freed ring as [group][output] added in group order) run on the CPU for whole shapes. Checks: at
most 256 threads busy, KW a multiple of 4 (A's float4 loads aligned), every shared slot read was
written by that chunk, the partials fit a stage, every output right (1e-9) and written once, and
KW = 64 (02's one group, no partials) where a block's outputs take over half its threads.
CPU only.
"""
import random
import sys

from model_check import check_batched

THREADS, KC, LDA, MAXR, MAXC, SMS = 256, 64, 68, 32, 32, 132
STAGE = 2688  # kRowStage (floats)


def row_rows(n):
    return min(MAXR, THREADS // n)


def plan(batch, m, n, k, sms=SMS):
    r = min(m, row_rows(n))

    def blocks(x):
        return batch * ((m + x - 1) // x)

    while r > 1 and blocks(r) < sms and blocks((r + 1) // 2) * k * n <= 4194304:
        r = (r + 1) // 2
    groups = min(THREADS // (r * n), KC // 4)
    kw = ((KC + groups - 1) // groups + 3) // 4 * 4
    return r, kw


def run(batch, m, n, k, seed):
    rnd = random.Random(seed)
    A = [rnd.uniform(-10, 10) for _ in range(batch * m * k)]
    B = [rnd.uniform(-10, 10) for _ in range(batch * k * n)]
    C = [None] * (batch * m * n)
    R, KW = plan(batch, m, n, k)
    assert KW % 4 == 0 and 4 <= KW <= KC
    if R * n > THREADS // 2:
        assert KW == KC, "one group where the outputs take over half the threads"
    gsize = R * n
    used = (KC + KW - 1) // KW
    assert used * gsize <= THREADS, "more threads than the block has"
    assert used * gsize * 8 <= STAGE * 4, "partials past a stage"
    kt = (k + KC - 1) // KC
    b_off = R * LDA
    for b in range(batch):
        for bx in range((m + R - 1) // R):
            m0 = bx * R
            rows = min(R, m - m0)
            outs = rows * n
            acc = [0.0] * THREADS
            for c in range(kt):
                st = [None] * STAGE
                k0 = c * KC
                kc = min(KC, k - k0)
                for i in range(rows * KC):
                    r, kk = i // KC, i % KC
                    if kk < kc:
                        st[r * LDA + kk] = A[(b * m + m0 + r) * k + k0 + kk]
                for i in range(kc * n):
                    st[b_off + i] = B[(b * k + k0) * n + i]
                for tid in range(THREADS):
                    gi, o = tid // gsize, tid % gsize
                    kb = gi * KW
                    if not (kb < KC and o < outs):
                        continue
                    ml, nn = o // n, o % n
                    cnt = min(KW, kc - kb) if KW < KC else kc
                    for u in range(max(cnt, 0)):
                        a = st[ml * LDA + kb + u]
                        bv = st[b_off + (kb + u) * n + nn]
                        assert a is not None and bv is not None, "shared slot unwritten"
                        acc[tid] += a * bv
            if KW == KC:
                for tid in range(outs):
                    at = (b * m + m0) * n + tid
                    assert C[at] is None
                    C[at] = acc[tid]
                continue
            part = {}
            for tid in range(THREADS):
                gi, o = tid // gsize, tid % gsize
                if gi * KW < KC and o < outs:
                    part[gi * gsize + o] = acc[tid]
            for tid in range(outs):
                s = 0.0
                g = 0
                while g * KW < KC:
                    s += part[g * gsize + tid]
                    g += 1
                at = (b * m + m0) * n + tid
                assert C[at] is None, "written twice"
                C[at] = s
    check_batched(A, B, C, batch, m, n, k)
    return R, KW


def main():
    shapes = [(8, 1, 26, 632), (1, 56, 8, 641), (3, 8, 12, 300), (2, 147, 1, 296), (2, 5, 7, 130),
              (1, 33, 32, 200), (4, 3, 10, 257), (1, 2, 3, 131)]
    for i, s in enumerate(shapes):
        R, KW = run(*s, seed=i)
        print("x".join(map(str, s)) + f": R {R}, KW {KW}: ok")
    for batch in (1, 2, 8, 37, 75, 200):
        for m in (1, 2, 7, 8, 33, 56, 147, 500):
            for n in range(1, MAXC + 1):
                R, KW = plan(batch, m, n, 1000)
                assert KW % 4 == 0 and ((KC + KW - 1) // KW) * R * n <= THREADS
    print("OK: every output right and written once, every shared slot read was written, partials fit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
