#!/usr/bin/env python3
"""shift_rows_model.py — the index arithmetic of lab/experiments/run198_mm_shift_rows.patch
(matmul_fp32 02's tile rows shifted to aligned columns when C's rows are not 16-byte aligned),
checked on the CPU for the three tile shapes: every output of C written exactly once, from the
B column it needs, each thread's 4 outputs one aligned float4, and interior blocks' copies in
bounds. It checks the mapping, not the kernel: the patch has not run on a GPU yet."""
def check(M,N,BM,BN,WARPS_M,WARPS_N,Cbase=0):
    SH=N%4; assert SH
    LM,LN=8,4; NT=WARPS_M*WARPS_N*32; WM,WN=BM//WARPS_M,BN//WARPS_N; TM,TN=WM//LM,WN//LN
    gm=(M+BM-1)//BM; gn=(N+3+BN-1)//BN
    seen={}
    for bm in range(gm):
      for bn in range(gn):
        m0,n0=bm*BM,bn*BN
        edge = m0+BM>M or n0+BN>N or n0==0
        if not edge:  # interior: B loads cols n0-4..n0+BN-1 in range
            assert n0-4>=0 and n0+BN-1<N
        for tid in range(NT):
            lane,warp=tid%32,tid//32
            row0=warp//WARPS_N*WM+lane%LM*4; col0=warp%WARPS_N*WN+lane//LM*4
            for i in range(TM):
                row=m0+row0+i//4*4*LM+i%4
                t=(i%4)*SH%4
                assert (row*N)%4==t, (row,N,t)
                if row>=M: assert edge; continue
                for h in range(TN//4):
                    col=n0+col0+h*4*LN-t
                    assert (Cbase+row*N+col)%4==0
                    for c in range(4):
                        j=4+c-t; assert 1<=j<=7
                        bcol_smem=col0+h*16+j  # Bs index; Bs col 0 == global n0-4
                        gcol=n0-4+bcol_smem
                        assert gcol==col+c
                        if not edge: assert 0<=col+c<N
                        if 0<=col+c<N:
                            k=(row,col+c); assert k not in seen, k; seen[k]=1
    assert len(seen)==M*N, (len(seen),M*N)
for (M,N) in [(130,201),(129,258),(200,203),(700,1001),(4192,3987),(488,2858),(64,5),(1,1),(3,7),(257,131),(128,125),(128,129)]:
    for cfg in [(128,128,2,2),(128,64,2,2),(64,64,2,2)]:
        check(M,N,*cfg)
print("ok")
