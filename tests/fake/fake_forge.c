/* The forging fixture's attack on the fake device: computes nothing, writes "success" records
 * in the 51f80b6 layout into every inherited write-only pipe, exits (tests/fixtures/
 * forges_verdict.cu is the same for the GPU). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)alpha, (void)beta;
    static unsigned char rec[3496];
    for (int fd = 3; fd < 256; fd++) {
        struct stat sb;
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode) || (fl & O_ACCMODE) != O_WRONLY)
            continue;
        for (int i = 0; i <= 64; i++) {
            memset(rec, 0, sizeof(rec));
            int kind = i < 64 ? 8 : 10, status = 0;
            memcpy(rec, &kind, 4);
            memcpy(rec + 4, &i, 4);
            memcpy(rec + 872, "forged", 7);
            memcpy(rec + 872 + 88, &status, 4);
            if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) break;
        }
    }
    _exit(0);
}
