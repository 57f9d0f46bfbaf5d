// probe_tool_confined.cu — a matmul_fp32 solution that is right only when it cannot write the
// harness's cache: under --sanitize / --profile its tests pass iff the solution's child is
// confined there (run 219). It says its uid on stderr.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__global__ void probe_mm(const float* A, const float* B, float* C, int M, int N, int K, float poison) {
    int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
    if (row >= M || col >= K) return;
    float acc = 0.0f;
    for (int i = 0; i < N; ++i) acc += A[(size_t)row * N + i] * B[(size_t)i * K + col];
    C[(size_t)row * K + col] = acc + poison;
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
    const char* cache = getenv("HARNESS_CACHE");
    char path[4096];
    snprintf(path, sizeof(path), "%s/probe-confined-write", cache ? cache : "build/cache");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    fprintf(stderr, "probe: uid %d, writing %s: %s\n", (int)getuid(), path, fd >= 0 ? "ALLOWED" : "refused");
    dim3 grid((K + 15) / 16, (M + 15) / 16);
    probe_mm<<<grid, dim3(16, 16)>>>(A, B, C, M, N, K, fd >= 0 ? 1.0e3f : 0.0f);
}
