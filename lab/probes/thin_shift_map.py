#!/usr/bin/env python3
# thin_shift_map.py — run 330's bmm_thin SH index map (lab/experiments/run330_b03_thin_shift.patch)
# modelled on the host: every output of C written once, every full slot a 16-byte-aligned float4,
# over N 1–1023 samples, C offset 0–3 floats, 1–3 batches. Prints "ok" or fails an assert.
import itertools
kThinThreads=128
def thin_tx(groups, vec):
    tx=1
    while tx<groups and tx<kThinThreads: tx*=2
    padded=lambda t:(groups+t-1)//t*t
    if vec or tx<kThinThreads or padded(tx)*5<=6*groups: return tx
    return 32 if padded(32)<padded(64) else 64
def sim(BATCH,M,N,coff,sms=132):
    groups=(N+6)//4
    tx=min(thin_tx(groups,False),32); ty=kThinThreads//tx
    gx=(groups+tx-1)//tx
    per=8
    blocks=lambda p: gx*((M+ty*p-1)//(ty*p))*BATCH
    while per>1 and blocks(per)<2*sms: per//=2
    gy=(M+ty*per-1)//(ty*per)
    written={}
    for b in range(BATCH):
      Cb=coff+b*M*N  # float index of C[b]
      for bx in range(gx):
        for by in range(gy):
          for t in range(kThinThreads):
            lc=t%tx; lr=t//tx
            cbase=bx*tx*4
            r_first=by*ty*per+lr
            sh=(Cb+r_first*N)&3
            col=[cbase+lc*4+j-sh for j in range(4)]
            ok=[0<=c<N for c in col]
            if not any(ok): continue
            for i in range(per):
              r=r_first+i*ty
              if r>=M: break
              assert (Cb+r*N)&3==sh, "shift not constant"
              if ok[0] and ok[3]:
                  assert (Cb+r*N+col[0])%4==0, "float4 unaligned"
              for j in range(4):
                if ok[j]:
                  key=(b,r,col[j]); written[key]=written.get(key,0)+1
    exp={(b,r,c) for b in range(BATCH) for r in range(M) for c in range(N)}
    assert set(written)==exp, ("coverage", BATCH,M,N,coff, len(exp-set(written)))
    assert all(v==1 for v in written.values()), "double write"
for BATCH,M,N,coff in itertools.product([1,2,3],[1,5,37],[1,2,3,5,33,127,587,1023],[0,1,2,3]):
    sim(BATCH,M,N,coff)
print("ok")
