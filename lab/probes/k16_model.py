#!/usr/bin/env python3
"""k16_model.py: is experiments/run228_exact_k16.patch's m16n8k16 path right?

03_exact's sm_90 loop on mma.m16n8k16 .f64 (CUTLASS's SM90_16x8x16_F64F64F64F64_TN layouts: a_i at
(g + 8(i % 2), t + 4(i / 2)), b_i at (t + 4i, g)), the instruction's k = t' + 4v standing for the
tile's k = 4t' + v. For 128×128, 128×64 and 64×64 tiles: the product each fragment computes from
the lanes' loaded values is the tile's own sum over its 16 k for every (m, n); the stage layout
(A rows BK floats apart, B chunks XOR-swizzled by 2·(r / 4 % 4)) is a bijection inside a row;
A's 16-byte loads (quarter warps) and B's 4-byte loads (whole warps) are conflict-free. CPU only.
"""
import sys

BK = 16


def bidx16(r, n, ldb):
    return r * ldb + (((n >> 2) ^ (((r >> 2) & 3) << 1)) << 2) + (n & 3)


def check(BM, BN, WARPS_M, WARPS_N):
    WM, WN = BM // WARPS_M, BN // WARPS_N
    FM, FN = WM // 16, WN // 8
    lda, ldb = BK, BN
    # the stage: A[r][k] at r*lda + k, B[k][n] at bidx16(k, n)
    for r in range(BK):
        slots = {bidx16(r, n, ldb) for n in range(BN)}
        if slots != set(range(r * ldb, (r + 1) * ldb)):
            return f"B row {r}: the swizzle is not a bijection inside the row"
    A = {r * lda + k: ("A", r, k) for r in range(BM) for k in range(BK)}
    B = {bidx16(k, n, ldb): ("B", k, n) for k in range(BK) for n in range(BN)}
    for warp in range(WARPS_M * WARPS_N):
        wm, wn = (warp // WARPS_N) * WM, (warp % WARPS_N) * WN
        for i in range(FM):
            fa, qbanks = {}, {}
            for lane in range(32):
                g, t = lane >> 2, lane & 3
                base = (wm + 16 * i + g) * lda + 4 * t
                lo = [A[base + v] for v in range(4)]
                hi = [A[base + 8 * lda + v] for v in range(4)]
                fa[lane] = [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]]
                for which, b in (("lo", base), ("hi", base + 8 * lda)):
                    qbanks.setdefault((which, lane // 8), []).extend((b + w) % 32 for w in range(4))
            for key, banks in qbanks.items():
                if len(banks) != len(set(banks)):
                    return f"warp {warp} fa[{i}]: the 16-byte loads of quarter {key} conflict"
            for j in range(FN):
                fb = {}
                for v in range(4):
                    banks = []
                    for lane in range(32):
                        g, t = lane >> 2, lane & 3
                        a = bidx16(4 * t + v, wn + 8 * j + g, ldb)
                        fb.setdefault(lane, []).append(B[a])
                        banks.append(a % 32)
                    if len(set(banks)) != 32:
                        return f"warp {warp} fb[{j}][{v}]: the loads conflict"
                # the instruction: D[m][n] += sum over instruction k of A_i[m][k] B_i[k][n]
                got = {}
                for lane in range(32):
                    g, t = lane >> 2, lane & 3
                    for idx, val in enumerate(fa[lane]):
                        m, k = g + 8 * (idx % 2), t + 4 * (idx // 2)
                        got.setdefault(("a", m, k), val)
                        if got[("a", m, k)] != val:
                            return "two lanes disagree on an A element"
                    for idx, val in enumerate(fb[lane]):
                        k, n = t + 4 * idx, g
                        got[("b", k, n)] = val
                for m in range(16):
                    for n in range(8):
                        terms = sorted((got[("a", m, k)][2], got[("b", k, n)][1]) for k in range(16))
                        for ka, kb in terms:
                            if ka != kb:
                                return f"warp {warp} fragment ({i},{j}): row {m} col {n} pairs A's k {ka} with B's k {kb}"
                        if sorted(ka for ka, _ in terms) != list(range(16)):
                            return f"warp {warp} fragment ({i},{j}): row {m} col {n} does not sum the 16 k once"
                        rows = {got[("a", m, k)][1] for k in range(16)}
                        cols = {got[("b", k, n)][2] for k in range(16)}
                        if rows != {wm + 16 * i + m} or cols != {wn + 8 * j + n}:
                            return f"warp {warp} fragment ({i},{j}): ({m},{n}) reads rows {rows} cols {cols}"
    return None


def main():
    for cfg in ((128, 128, 2, 4), (128, 64, 2, 2), (64, 64, 2, 2)):
        err = check(*cfg)
        if err:
            print(f"FAULT {cfg}: {err}")
            return 1
    print("OK: 128x128, 128x64, 64x64: every fragment sums its (m, n)'s 16 k once, A and B paired; "
          "the swizzle a bijection; A's 16-byte and B's 4-byte loads conflict-free")
    return 0


if __name__ == "__main__":
    sys.exit(main())
