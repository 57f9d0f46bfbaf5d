// probe_i4_skinny.cu — is int4 03's i4_skinny right at the group sizes, K tails, N and M bounds
// and misalignments that the harness's tables and --shapes never make (they all use group 128)?
// Calls try_skinny directly (and checks that it launched or declined as the routing rule says),
// then solve, each against a float64 CPU reference at the judge's tolerance (atol = rtol = 0.01);
// outputs start as NaN, so an unwritten one fails. Exit 0 when every case passes.
// From the repository root:
//   nvcc -std=c++17 -O2 -arch=sm_90a -o /tmp/probe_i4_skinny lab/probes/probe_i4_skinny.cu && /tmp/probe_i4_skinny
#include "../../solutions/int4_matmul/03_wgmma.cu"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.h"

// xorshift64: the inputs, the same on every run
struct Rng {
    unsigned long long s = 88172645463325252ull;
    unsigned next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return (unsigned)(s >> 11);
    }
    float unif() { return (next() & 0xFFFFFF) / 16777216.0f; }
    float gauss() {
        const float u = unif() + 1e-7f, v = unif();
        return sqrtf(-2 * logf(u)) * cosf(6.2831853f * v);
    }
};

// off_x / off_w: element / byte offsets of x and w_q from a cudaMalloc base (misalignment).
static int run_case(Rng& rng, int M, int N, int K, int g, int off_x, int off_w, bool expect_skinny) {
    const int KG = K / g;
    std::vector<__half> hx((size_t)M * K), hs((size_t)N * KG);
    std::vector<uint8_t> hw((size_t)N * K / 2);
    for (auto& v : hx) v = __float2half(rng.gauss());
    for (auto& v : hw) v = (uint8_t)(rng.next() & 255);
    for (auto& v : hs) v = __float2half(rng.unif() * 0.1f + 0.01f);
    std::vector<double> ref((size_t)M * N);
    std::vector<double> wd((size_t)K);
    for (int n = 0; n < N; ++n) {
        for (int k = 0; k < K; ++k) {
            const uint8_t b = hw[(size_t)n * (K / 2) + k / 2];
            const int q = (k % 2 == 0 ? b >> 4 : b & 15) - 8;
            wd[k] = (double)((float)q * __half2float(hs[(size_t)n * KG + k / g]));
        }
        for (int m = 0; m < M; ++m) {
            double s = 0;
            const __half* xr = &hx[(size_t)m * K];
            for (int k = 0; k < K; ++k) s += (double)__half2float(xr[k]) * wd[k];
            ref[(size_t)m * N + n] = s;
        }
    }
    char *bx, *bw;
    __half *ds, *dy;
    CHECK(cudaMalloc(&bx, hx.size() * 2 + 64));
    CHECK(cudaMalloc(&bw, hw.size() + 64));
    CHECK(cudaMalloc(&ds, hs.size() * 2));
    CHECK(cudaMalloc(&dy, (size_t)M * N * 2));
    __half* dx = reinterpret_cast<__half*>(bx) + off_x;
    uint8_t* dw = reinterpret_cast<uint8_t*>(bw) + off_w;
    CHECK(cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, hw.data(), hw.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, hs.data(), hs.size() * 2, cudaMemcpyHostToDevice));
    int bad = 0;
    for (int pass = 0; pass < 2; ++pass) {  // 0: try_skinny directly, 1: solve
        CHECK(cudaMemset(dy, 0xFF, (size_t)M * N * 2));  // NaN: an unwritten output fails
        if (pass == 0) {
            int gshift = 0;
            while ((1 << gshift) < g) ++gshift;
            const bool ran = try_skinny(dx, dw, reinterpret_cast<const unsigned short*>(ds), dy, M, N, K, g, gshift,
                                        dev_info());
            if (ran != expect_skinny) {
                printf("FAIL %dx%dx%d g%d offx %d offw %d: try_skinny %s\n", M, N, K, g, off_x, off_w,
                       ran ? "launched (not expected)" : "declined (expected to launch)");
                ++bad;
            }
            if (!ran) continue;
        } else {
            solve(dx, dw, ds, dy, M, N, K, g);
        }
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<__half> hy((size_t)M * N);
        CHECK(cudaMemcpy(hy.data(), dy, hy.size() * 2, cudaMemcpyDeviceToHost));
        int nbad = 0;
        double worst = 0;
        for (size_t i = 0; i < hy.size(); ++i) {
            const double r = (double)__half2float(__float2half((float)ref[i]));
            const double v = (double)__half2float(hy[i]);
            const double e = fabs(v - r);
            if (!(e <= 0.01 + 0.01 * fabs(r))) ++nbad;
            if (!(e <= worst)) worst = e;
        }
        printf("%s %-6s %5dx%2dx%5d g%-3d offx %d offw %d  max|err| %.3g  bad %d\n", nbad ? "FAIL" : "ok  ",
               pass ? "solve" : "skinny", M, N, K, g, off_x, off_w, worst, nbad);
        bad += nbad != 0;
    }
    CHECK(cudaFree(bx));
    CHECK(cudaFree(bw));
    CHECK(cudaFree(ds));
    CHECK(cudaFree(dy));
    return bad;
}

int main() {
    const int sms = dev_info().sms;
    const int Mr = 16 * ((sms + 1) / 2);  // the smallest M the path takes (16-row blocks >= SMs / 2)
    printf("SMs %d, smallest routed M %d\n", sms, Mr - 15);
    int bad = 0;
    struct C { int M, N, K, g, ox, ow; bool sk; };
    const C cs[] = {
        {3728, 2, 4736, 128, 0, 0, true},
        {Mr - 15, 1, 1024, 32, 0, 0, true},   // M tail: 1 row in the last block
        {Mr + 7, 3, 2048, 64, 0, 0, true},
        {Mr, 5, 1000, 8, 0, 0, true},        // K % 32 = 8: the last chunk's tail, G = 4
        {Mr + 1, 7, 1008, 16, 0, 0, true},   // K % 32 = 16, G = 2
        {Mr + 3, 8, 4096, 128, 0, 1, true},  // w_q 1 byte off: byte staging
        {Mr + 5, 9, 1536, 32, 0, 2, true},   // NA = 16, w_q 2 bytes off
        {Mr + 9, 12, 200, 8, 0, 0, true},    // short K, G = 4, NA = 16
        {Mr + 11, 16, 3072, 16, 0, 0, true},
        {Mr + 13, 16, 8192, 128, 0, 0, false},  // N > 8 past K = 4096: old paths
        {Mr, 15, 96, 32, 0, 0, true},        // 3 chunks: most warps idle
        {Mr, 4, 8, 8, 0, 0, true},           // K = 8: one chunk, one thread's 8 k
        {Mr, 2, 4096, 4, 0, 0, false},       // group 4: old paths
        {Mr, 17, 1024, 128, 0, 0, false},    // N = 17: old paths
        {Mr - 16, 2, 1024, 128, 0, 0, false},  // too few blocks
        {Mr, 2, 1024, 128, 1, 0, false},     // x 2 bytes off: old paths
    };
    Rng rng;
    for (const C& c : cs) bad += run_case(rng, c.M, c.N, c.K, c.g, c.ox, c.ow, c.sk);
    printf(bad ? "FAILED: %d cases\n" : "PASSED\n", bad);
    return bad ? 1 : 0;
}
