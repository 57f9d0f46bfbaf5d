#!/usr/bin/env python3
"""CPU model of batched fp32 02's bmm_rows with 32-column slabs (lab/experiments/
run200_b32_exact.patch): the copy and compute index arithmetic of one launch, block by block
and chunk by chunk, against a plain triple loop (pure Python, no numpy).
The model follows the kernel's arithmetic, not its timing: it checks that every output reads
the right A and B elements and that nothing outside a slab or a stage is touched."""
import random

NAN = float("nan")

KC, THREADS, MAXC, MAXR, LDA = 64, 256, 32, 32, 68


def row_rows(n):
    return min(MAXR, THREADS // n)


STAGE = max(row_rows(n) * LDA + KC * n for n in range(1, MAXC + 1))


def bmm_rows(A, B, BATCH, M, N, K, vec):
    C = [[[None] * N for _ in range(M)] for _ in range(BATCH)]
    W = min(N, MAXC)
    R = min(M, row_rows(W))
    for b in range(BATCH):
        for bx in range((M + R - 1) // R):
            for by in range((N + W - 1) // W):
                m0, n0 = bx * R, by * W
                rows, wb = min(R, M - m0), min(W, N - n0)
                acc = [0.0] * THREADS
                for c in range((K + KC - 1) // KC):
                    st = [None] * STAGE
                    k0 = c * KC
                    kc = min(KC, K - k0)
                    for i in range(rows * KC):  # A: 4-byte copies
                        r, kk = divmod(i, KC)
                        if kk < kc:
                            st[r * LDA + kk] = A[b][m0 + r][k0 + kk]
                    off = R * LDA
                    assert off + KC * W <= STAGE
                    if W == N:  # contiguous rows
                        flat = [B[b][k0 + kk][n] for kk in range(kc) for n in range(N)]
                        step = 4 if vec else 1
                        for i in range(0, kc * N, step):
                            st[off + i:off + i + step] = flat[i:i + step]
                    elif vec:
                        assert wb % 4 == 0 and n0 % 4 == 0
                        q = wb // 4
                        for i in range(kc * q):
                            kk, j = divmod(i, q)
                            j *= 4
                            st[off + kk * W + j:off + kk * W + j + 4] = B[b][k0 + kk][n0 + j:n0 + j + 4]
                    else:
                        for i in range(kc * wb):
                            kk, j = divmod(i, wb)
                            st[off + kk * W + j] = B[b][k0 + kk][n0 + j]
                    for tid in range(THREADS):
                        if not (tid < rows * W and tid % W < wb):
                            continue
                        ml, n = divmod(tid, W)
                        for kk in range(kc):
                            a, bb = st[ml * LDA + kk], st[off + n + kk * W]
                            assert a is not None and bb is not None, (b, bx, by, tid, kk)
                            acc[tid] += a * bb
                for tid in range(THREADS):
                    if tid < rows * W and tid % W < wb:
                        ml, n = divmod(tid, W)
                        assert C[b][m0 + ml][n0 + n] is None  # each output written once
                        C[b][m0 + ml][n0 + n] = acc[tid]
    return C


rng = random.Random(1)
for BATCH, M, N, K in [(2, 1, 8, 301), (1, 3, 232, 140), (2, 8, 176, 168), (1, 5, 33, 130),
                       (1, 2, 36, 200), (2, 9, 20, 129), (1, 1, 1, 128), (1, 40, 31, 190),
                       (1, 8, 100, 64), (1, 7, 64, 257)]:
    A = [[[rng.uniform(-10, 10) for _ in range(K)] for _ in range(M)] for _ in range(BATCH)]
    B = [[[rng.uniform(-10, 10) for _ in range(N)] for _ in range(K)] for _ in range(BATCH)]
    for vec in ([False, True] if N % 4 == 0 else [False]):
        C = bmm_rows(A, B, BATCH, M, N, K, vec)
        for b in range(BATCH):
            for m in range(M):
                for n in range(N):
                    want = sum(A[b][m][k] * B[b][k][n] for k in range(K))
                    assert C[b][m][n] is not None and abs(C[b][m][n] - want) <= 1e-9 * (1 + abs(want))
    print(f"{BATCH}x{M}x{N}x{K}: every output right and written once (vec paths: {N % 4 == 0})")
