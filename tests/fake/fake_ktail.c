/* matmul_fp32 (A M×N, B N×K, inner N) without a bounds check on the inner dimension: it runs
 * whole steps of 8, so past N it reads A's next row (or past A) and past B's end, into the guard
 * zones. The guard pattern must turn such reads into wrong sums: a pattern near zero made this
 * kernel pass every table test (an audit of the harness). */
void solve(const float *A, const float *B, float *C, int M, int N, int K)
{
    const int steps = (N + 7) / 8 * 8;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < K; j++) {
            float acc = 0;
            for (int k = 0; k < steps; k++) acc += A[(long)i * N + k] * B[(long)k * K + j];
            C[(long)i * K + j] = acc;
        }
}
