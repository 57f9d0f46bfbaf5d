"""model_check.py: the batched models' last check, shared: every output of C (batch × m × n,
row-major) written and within 1e-9 (relative past 1) of the exact sum over k of A[b] · B[b]."""


def check_batched(A, B, C, batch, m, n, k, tol=1e-9):
    for b in range(batch):
        for r in range(m):
            for c in range(n):
                ref = sum(A[(b * m + r) * k + d] * B[(b * k + d) * n + c] for d in range(k))
                got = C[(b * m + r) * n + c]
                assert got is not None, "never written"
                assert abs(got - ref) <= tol * max(1.0, abs(ref)), (b, r, c, got, ref)
