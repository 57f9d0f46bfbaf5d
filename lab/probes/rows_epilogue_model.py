#!/usr/bin/env python3
"""rows_epilogue_model.py: is experiments/run220_ring_rows_epilogue.patch's store_rows right?

Thread by thread, under its index arithmetic: the staging writes (fragment layout, rows of BN + 8
floats) and the row pass (BN / 2 lanes a row, word pairs aligned to C's own words). Checks, for
32×32 and 64×64 tiles, odd and even N, C 4-byte or only 2-byte aligned, edge tiles: every valid
output written exactly once with its own value, nothing outside C, every pair store 4-byte
aligned, each staging slot written once before it is read. CPU only; prints OK or the first fault.
"""
import itertools
import sys

THREADS = 128


def tile_check(BM, BN, M, N, by, bx, base_half):
    WM, WN, MI, NJ = BM // 2, BN // 2, BM // 32, BN // 16
    LD, LANES = BN + 8, BN // 2
    PASS = THREADS // LANES
    R = BM // PASS
    m0, n0 = by * BM, bx * BN
    stage = {}
    for tid in range(THREADS):  # staging, fragment layout
        lane, warp = tid & 31, tid >> 5
        g, t = lane >> 2, lane & 3
        wm0, wn0 = (warp >> 1) * WM, (warp & 1) * WN
        for i, j, e in itertools.product(range(MI), range(NJ), (0, 2)):
            r, c = wm0 + 16 * i + g + (e >> 1) * 8, wn0 + 8 * j + 2 * t
            for k, cc in ((0, c), (1, c + 1)):
                a = r * LD + cc
                if a in stage:
                    return f"staging slot {a} written twice"
                stage[a] = (r, cc)
    written = {}
    for tid in range(THREADS):  # the row pass
        p, r0 = tid % LANES, tid // LANES
        for q in range(R):
            r = r0 + PASS * q
            gm = m0 + r
            odd = (base_half + gm * N + n0) & 1
            alone = odd and p == LANES - 1
            c0 = 0 if alone else 2 * p + (1 if odd else 0)
            c1 = BN - 1 if alone else c0 + 1
            v0, v1 = gm < M and n0 + c0 < N, gm < M and n0 + c1 < N
            for c, v in ((c0, v0), (c1, v1)):
                if stage.get(r * LD + c) != (r, c):
                    return f"row pass reads slot {r * LD + c} for ({r},{c}): holds {stage.get(r * LD + c)}"
            if not alone and v0 and v1 and (base_half + gm * N + n0 + c0) % 2:
                return f"pair store at ({gm},{n0 + c0}) not 4-byte aligned"
            for c, v in ((c0, v0), (c1, v1)):
                if v:
                    key = (gm, n0 + c)
                    if key in written:
                        return f"output {key} written twice"
                    written[key] = True
    for gm in range(m0, min(M, m0 + BM)):
        for gn in range(n0, min(N, n0 + BN)):
            if (gm, gn) not in written:
                return f"output ({gm},{gn}) never written"
    if any(gm >= M or gn >= N for gm, gn in written):
        return "a store outside C"
    return None


def main():
    cases = 0
    for BM in (32, 64):
        for M, N in ((BM, 2 * BM + 1), (BM + 3, 3 * BM - 1), (2 * BM - 7, 2 * BM + 2), (5, BM + 17), (BM, BM)):
            for base_half in (0, 1):
                for by in range((M + BM - 1) // BM):
                    for bx in range((N + BM - 1) // BM):
                        err = tile_check(BM, BM, M, N, by, bx, base_half)
                        cases += 1
                        if err:
                            print(f"FAULT: {BM}x{BM} tile ({by},{bx}) of M={M} N={N} C at half {base_half}: {err}")
                            return 1
    print(f"OK: {cases} tiles, every output written once with its own staged value, pairs aligned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
