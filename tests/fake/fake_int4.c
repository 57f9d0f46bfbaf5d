/* A correct int4_matmul on the fake device (the worker's four-pointer call shape): high nibble
 * first, offset 8, fp32 accumulation. */
#include <stdint.h>

typedef _Float16 half;

void solve(const half *x, const uint8_t *w_q, const half *scales, half *y, int M, int N, int K,
           int group_size)
{
    for (int i = 0; i < M; i++)
        for (int n = 0; n < N; n++) {
            float acc = 0;
            for (int k = 0; k < K; k++) {
                uint8_t b = w_q[(long)n * (K / 2) + k / 2];
                int w = (k % 2 == 0 ? b >> 4 : b & 15) - 8;
                acc += (float)x[(long)i * K + k] * (float)w *
                       (float)scales[(long)n * (K / group_size) + k / group_size];
            }
            y[(long)i * N + n] = (half)acc;
        }
}
