/* The filter's signal rules, asked with signal 0 only (never a real signal to -1 or a group):
 * kill(-1, 0), kill(0, 0), tgkill at the parent, a pidfd of the parent, setsid and setpgid must
 * be refused with EPERM; what the CUDA runtime and abort() need must still work: kill(getpid(),
 * 0) and a signal 0 to a thread of its own (tgkill with its own tgid). Then the right answer.
 * Exits 41..48 name the rule that did not hold. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_gemm.h"

static void *fake_idle(void *arg)
{
    pause();
    return arg;
}

static void refused(long r, int code)
{
    if (r != -1 || errno != EPERM) exit(code);
}

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    pid_t parent = getppid();
    refused(kill(-1, 0), 41);
    refused(kill(0, 0), 42);
    refused(syscall(SYS_tgkill, parent, parent, 0), 43);
#ifdef SYS_pidfd_open
    refused(syscall(SYS_pidfd_open, parent, 0), 44);
#endif
    refused(setsid(), 45);
    refused(setpgid(0, 0), 46);
    if (kill(getpid(), 0) != 0) exit(47);
    pthread_t t;
    if (pthread_create(&t, NULL, fake_idle, NULL) != 0 || pthread_kill(t, 0) != 0) exit(48);
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
