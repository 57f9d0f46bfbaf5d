#!/usr/bin/env python3
"""once_model.py: is experiments/run223_exact_once.patch's exact_mainloop_once right?

Two checks, CPU only:
1. Layout: for 128×128 (8 warps of 64×32) and 128×64 (4 warps of 64×32) tiles, a k-tile loaded
   into the unpadded fp32 stage, converted into the fp64 buffer (A pairs swizzled by row
   parity, B rows XLDB apart), then read as fragments: every lane's fa / fb of every (i, j, kk)
   holds the same A / B elements as mm_exact's fp32 path (A[g][kk+2t], A[g+8][kk+2t], A[g][kk+2t+1],
   A[g+8][kk+2t+1]; B[kk+2t][n], B[kk+2t+1][n]); conversion writes hit distinct slots; the
   fragment loads (quarter warps for 16-byte, half warps for 8-byte) are bank-conflict-free.
2. Schedule: the loop's order of cp.async issue / wait_group / barrier / convert / compute, for
   1..12 k-tiles and 3..5 stages: a tile is converted only after its copies landed (wait count)
   and a barrier, computed only after a barrier that follows its conversion, a stage refilled only
   after the barrier that follows its last conversion, a buffer rewritten only after the barrier
   that follows its last compute, and computed from the buffer its conversion wrote.
"""
import sys

BK = 16


def layout(BM, BN, WARPS_M, WARPS_N):
    NT = WARPS_M * WARPS_N * 32
    WM, WN = BM // WARPS_M, BN // WARPS_N
    FM, FN = WM // 16, WN // 8
    XLDB = BN + 2
    A = {(r, k): ("A", r, k) for r in range(BM) for k in range(BK)}
    B = {(k, n): ("B", k, n) for k in range(BK) for n in range(BN)}
    stage_a = {r * BK + q: A[(r, q)] for r in range(BM) for q in range(BK)}  # load: as[r*BK+q]
    stage_b = {r * BN + q: B[(r, q)] for r in range(BK) for q in range(BN)}
    xa_at = lambda r, h: r * BK + 2 * (h ^ ((r & 1) << 2))
    da, db = {}, {}
    for tid in range(NT):
        for c in range(tid, BM * BK // 2, NT):
            r, h = c // (BK // 2), c % (BK // 2)
            for e in (0, 1):
                a = xa_at(r, h) + e
                if a in da:
                    return f"A buffer slot {a} written twice"
                da[a] = stage_a[r * BK + 2 * h + e]
        for c in range(tid, BK * BN // 2, NT):
            r, h = c // (BN // 2), c % (BN // 2)
            for e in (0, 1):
                a = r * XLDB + 2 * h + e
                if a in db:
                    return f"B buffer slot {a} written twice"
                db[a] = stage_b[r * BN + 2 * h + e]
    # conversion stores (16 bytes a lane): a quarter warp's 8 lanes on distinct banks
    for tid0 in range(0, NT, 8):
        for which, n_items, addr in (("A", BM * BK // 2, lambda c: xa_at(c // 8, c % 8)),
                                     ("B", BK * BN // 2, lambda c: (c // (BN // 2)) * XLDB + 2 * (c % (BN // 2)))):
            for base in range(0, n_items, NT):
                banks = []
                for tid in range(tid0, tid0 + 8):
                    c = base + tid
                    if c < n_items:
                        w = addr(c) * 2  # 4-byte words
                        banks += [(w + i) % 32 for i in range(4)]
                if len(banks) != len(set(banks)):
                    return f"{which} conversion stores of lanes {tid0}..{tid0 + 7} conflict"
    for warp in range(NT // 32):
        wm, wn = (warp // WARPS_N) * WM, (warp % WARPS_N) * WN
        for kk in (0, 8):
            for i in range(FM):
                quarter = {}
                for lane in range(32):
                    g, t = lane >> 2, lane & 3
                    r, h = wm + 16 * i + g, kk // 2 + t
                    lo, hi = xa_at(r, h), xa_at(r + 8, h)
                    got = [da[lo], da[hi], da[lo + 1], da[hi + 1]]
                    want = [A[(r, kk + 2 * t)], A[(r + 8, kk + 2 * t)], A[(r, kk + 2 * t + 1)], A[(r + 8, kk + 2 * t + 1)]]
                    if got != want:
                        return f"warp {warp} lane {lane} fa[{i}] at kk {kk}: {got} != {want}"
                    for a in (lo, hi):
                        quarter.setdefault((lane // 8, a == hi), []).extend(((2 * a + w) % 32) for w in range(4))
                for key, banks in quarter.items():
                    if len(banks) != len(set(banks)):
                        return f"warp {warp} fa[{i}] kk {kk}: 16-byte loads of quarter {key} conflict"
            for j in range(FN):
                for e in (0, 1):
                    half = {}
                    for lane in range(32):
                        g, t = lane >> 2, lane & 3
                        n = wn + 8 * j + g
                        a = (kk + 2 * t + e) * XLDB + n
                        if db[a] != B[(kk + 2 * t + e, n)]:
                            return f"warp {warp} lane {lane} fb[{j}][{e}] at kk {kk}: {db[a]}"
                        half.setdefault(lane // 16, []).extend(((2 * a + w) % 32) for w in range(2))
                    for key, banks in half.items():
                        if len(banks) != len(set(banks)):
                            return f"warp {warp} fb[{j}][{e}] kk {kk}: 8-byte loads of half {key} conflict"
    return None


def schedule(tiles, S):
    """Event order of one thread (all threads alike; a barrier orders every thread's events)."""
    committed = []  # group index -> tile (or None)
    landed = set()
    barrier = 0
    conv_done = {}  # tile -> barrier count when converted
    stage_last_read = {}  # stage -> barrier count of its last conversion
    buf_last_read = {}  # buffer -> barrier count of its last compute
    stage_of = {}
    buf_holds = {}  # buffer -> the tile last converted into it

    def issue(tile):
        st = tile % S
        if st in stage_last_read and stage_last_read[st] >= barrier:
            return f"stage {st} refilled for tile {tile} before a barrier after its last read"
        stage_of[tile] = st
        return None

    def wait(pending):
        keep = len(committed) - pending
        for gi in range(max(0, keep)):
            if committed[gi] is not None:
                landed.add(committed[gi])

    def convert(tile, buf):
        if tile not in landed:
            return f"tile {tile} converted before its copies landed"
        if buf in buf_last_read and buf_last_read[buf] >= barrier:
            return f"buffer {buf} rewritten (tile {tile}) before a barrier after its last compute"
        conv_done[tile] = barrier
        buf_holds[buf] = tile
        stage_last_read[tile % S] = barrier
        return None

    def compute(tile, buf):
        if tile not in conv_done or conv_done[tile] >= barrier:
            return f"tile {tile} computed without a barrier after its conversion"
        if buf_holds.get(buf) != tile:
            return f"tile {tile} computed from buffer {buf}, which holds tile {buf_holds.get(buf)}"
        buf_last_read[buf] = barrier
        return None

    for s in range(S - 1):
        if s < tiles:
            e = issue(s)
            if e:
                return e
        committed.append(s if s < tiles else None)
    wait(S - 2)
    barrier += 1
    if tiles > 0:
        e = convert(0, 0)
        if e:
            return e
    for kt in range(tiles):
        wait(S - 3)
        barrier += 1
        nxt = kt + S - 1
        if nxt < tiles:
            e = issue(nxt)
            if e:
                return e
        committed.append(nxt if nxt < tiles else None)
        if kt + 1 < tiles:
            e = convert(kt + 1, (kt + 1) & 1)
            if e:
                return e
        e = compute(kt, kt & 1)
        if e:
            return e
    return None


def main():
    for cfg in ((128, 128, 2, 4), (128, 64, 2, 2)):
        err = layout(*cfg)
        if err:
            print(f"FAULT: layout {cfg}: {err}")
            return 1
    for S in (3, 4, 5):
        for tiles in range(1, 13):
            err = schedule(tiles, S)
            if err:
                print(f"FAULT: schedule S={S} tiles={tiles}: {err}")
                return 1
    print("OK: layouts 128x128 and 128x64 (fragments, conversion slots, banks); schedules S=3..5, 1..12 k-tiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
