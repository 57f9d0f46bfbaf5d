#!/usr/bin/env python3
"""slab_model.py — is experiments/run218_b32_slab.patch's bmm_slab right on the CPU? Its loads,
shared layout and chains, thread by thread, as the kernel writes them (kRowKC = 64, kRowLdA = 68,
32-column slabs, 256 threads), against a plain product, for edge shapes: every output right and
written once. Stale shared memory is NaN, so a read of anything not loaded shows."""
import math
import random
import sys

KC, LDA, COLS, THREADS = 64, 68, 32, 256
MAXROWS = THREADS // COLS
STAGE = max(r * LDA + KC * n for n in range(1, 33) for r in [min(32, THREADS // n)])


def slab(A, B, batch, M, N, K, vec):
    C = [math.nan] * (batch * M * N)
    writes = [0] * (batch * M * N)
    S = 4
    for b in range(batch):
        for sx in range((N + COLS - 1) // COLS):
            n0 = sx * COLS
            nw = min(COLS, N - n0)
            stage = [[math.nan] * STAGE for _ in range(S)]
            KT = (K + KC - 1) // KC
            b_off = MAXROWS * LDA

            def issue(c):
                if c >= KT:
                    return
                st = stage[c % S]
                k0 = c * KC
                kc = min(KC, K - k0)
                for i in range(M * KC):  # every thread's copies, in any order
                    r, kk = divmod(i, KC)
                    if kk < kc:
                        st[r * LDA + kk] = A[(b * M + r) * K + k0 + kk]
                if vec:
                    for i in range(kc * (COLS // 4)):
                        kk, q = i // (COLS // 4), (i % (COLS // 4)) * 4
                        if q < nw:
                            assert (b * K * N + n0 + (k0 + kk) * N + q) % 4 == 0, "16-byte source"
                            for u in range(4):
                                st[b_off + kk * COLS + q + u] = B[b * K * N + n0 + (k0 + kk) * N + q + u]
                else:
                    for i in range(kc * COLS):
                        kk, q = divmod(i, COLS)
                        if q < nw:
                            st[b_off + kk * COLS + q] = B[b * K * N + n0 + (k0 + kk) * N + q]

            for s in range(S - 1):
                issue(s)
            acc = [0.0] * THREADS
            for c in range(KT):
                issue(c + S - 1)  # the stage it fills was last read in chunk c - 1
                st = stage[c % S]
                kc = min(KC, K - c * KC)
                for tid in range(THREADS):
                    ml, n = divmod(tid, COLS)
                    if ml < M and n < nw:
                        for kk in range(kc):
                            acc[tid] += st[ml * LDA + kk] * st[b_off + kk * COLS + n]
            for tid in range(THREADS):
                ml, n = divmod(tid, COLS)
                if ml < M and n < nw:
                    idx = (b * M + ml) * N + n0 + n
                    C[idx] = acc[tid]
                    writes[idx] += 1
    return C, writes


def main():
    rng = random.Random(1)
    shapes = [(1, 1, 33, 9), (2, 8, 33, 64), (3, 5, 64, 65), (2, 2, 88, 130), (1, 8, 100, 200),
              (2, 7, 36, 129), (1, 3, 1024, 9), (2, 4, 40, 17)]
    for batch, M, N, K in shapes:
        A = [float(rng.randint(-9, 9)) for _ in range(batch * M * K)]
        B = [float(rng.randint(-9, 9)) for _ in range(batch * K * N)]
        for vec in ([False, True] if N % 4 == 0 else [False]):
            C, w = slab(A, B, batch, M, N, K, vec)
            for b in range(batch):
                for m in range(M):
                    for n in range(N):
                        ref = sum(A[(b * M + m) * K + k] * B[(b * K + k) * N + n] for k in range(K))
                        i = (b * M + m) * N + n
                        if w[i] != 1 or C[i] != ref:
                            print(f"{batch}x{M}x{N}x{K} vec={vec}: C[{b}][{m}][{n}] = {C[i]} "
                                  f"(written {w[i]}×), expected {ref}")
                            return 1
            print(f"{batch}x{M}x{N}x{K} vec={vec}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
