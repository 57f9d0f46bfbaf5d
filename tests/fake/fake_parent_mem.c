/* solve reaches for the harness's memory: /proc/PPID/mem opened read-write, PTRACE_SEIZE (which,
 * unlike PTRACE_ATTACH, would not stop the parent), process_vm_readv. Each must fail; then it
 * computes the right answer. Exit 31: the open worked; 32: the seize worked (detached at once);
 * 33: process_vm_readv read the parent; 34: it runs as root. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    pid_t parent = getppid();
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)parent);
    int fd = open(path, O_RDWR);
    if (fd >= 0) exit(31);
    if (ptrace(PTRACE_SEIZE, parent, 0, 0) == 0) {
        ptrace(PTRACE_DETACH, parent, 0, 0);
        exit(32);
    }
    char buf[16];
    struct iovec local = {buf, sizeof(buf)}, remote = {(void *)0x400000, sizeof(buf)};
    if (process_vm_readv(parent, &local, 1, &remote, 1, 0) >= 0) exit(33);
    if (getuid() == 0 || geteuid() == 0) exit(34);
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
