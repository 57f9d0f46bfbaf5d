# dmma_indexing_model.py — is the index arithmetic of experiments/dmma_matmul_fp32.cu right? Its
# loads, shared-memory layout, fragment addressing and stores, run on the CPU with the PTX
# m8n8k4 .f64 fragment semantics (lane g·4+t holds A[g][t], B[t][g], D[g][2t], D[g][2t+1]),
# against a triple loop on integer inputs, edges included: every output right, written once.
# (The double-buffer order is not modelled; the layout itself is the device run's to confirm.)
import random
BM=BN=64; BK=16; PAD=4; T=128; LDA=BK+PAD; LDB=BN+PAD; A_PER=BM*BK//T; B_PER=BK*BN//T
def run(M,L,Kc,seed):
    rnd=random.Random(seed)
    A=[rnd.randint(-9,9) for _ in range(M*L)]; B=[rnd.randint(-9,9) for _ in range(L*Kc)]
    C=[None]*(M*Kc)
    for by in range((M+BM-1)//BM):
        for bx in range((Kc+BN-1)//BN):
            m0=by*BM; n0=bx*BN
            acc={}  # (tid,i,j,e)
            for kt in range((L+BK-1)//BK):
                k0=kt*BK
                As=[0.0]*(BM*LDA); Bs=[0.0]*(BK*LDB)
                for tid in range(T):
                    for i in range(A_PER):
                        idx=tid+i*T; r=idx//BK; c=idx%BK; m=m0+r; k=k0+c
                        As[r*LDA+c]= A[m*L+k] if (m<M and k<L) else 0
                    for i in range(B_PER):
                        idx=tid+i*T; r=idx//BN; c=idx%BN; k=k0+r; n=n0+c
                        Bs[r*LDB+c]= B[k*Kc+n] if (k<L and n<Kc) else 0
                for warp in range(4):
                    wm=(warp>>1)*32; wn=(warp&1)*32
                    for kk in range(0,BK,4):
                        fa={}; fb={}
                        for lane in range(32):
                            g=lane>>2; t=lane&3
                            for i in range(4): fa[lane,i]=As[(wm+i*8+g)*LDA+kk+t]
                            for j in range(4): fb[lane,j]=Bs[(kk+t)*LDB+wn+j*8+g]
                        for i in range(4):
                            for j in range(4):
                                A8=[[fa[(g<<2)|t,i] for t in range(4)] for g in range(8)]
                                B4=[[fb[(g<<2)|t,j] for g in range(8)] for t in range(4)]
                                for lane in range(32):
                                    g=lane>>2; t=lane&3; tid=warp*32+lane
                                    for e in range(2):
                                        s=sum(A8[g][q]*B4[q][2*t+e] for q in range(4))
                                        acc[tid,i,j,e]=acc.get((tid,i,j,e),0)+s
            for warp in range(4):
                wm=(warp>>1)*32; wn=(warp&1)*32
                for lane in range(32):
                    g=lane>>2; t=lane&3; tid=warp*32+lane
                    for i in range(4):
                        for j in range(4):
                            for e in range(2):
                                m=m0+wm+i*8+g; n=n0+wn+j*8+2*t+e
                                if m<M and n<Kc:
                                    assert C[m*Kc+n] is None, "written twice"
                                    C[m*Kc+n]=acc.get((tid,i,j,e),0)
    for m in range(M):
        for n in range(Kc):
            want=sum(A[m*L+k]*B[k*Kc+n] for k in range(L))
            assert C[m*Kc+n]==want,(M,L,Kc,m,n,C[m*Kc+n],want)
    print("ok",M,L,Kc)
for (M,L,Kc) in [(1,1,1),(70,37,45),(64,16,64),(65,17,129),(3,50,2)]:
    run(M,L,Kc,M*7+L)
