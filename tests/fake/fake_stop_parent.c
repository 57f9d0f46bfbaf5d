/* solve tries to stop the harness with kill(getppid(), SIGSTOP). Careful by construction: it
 * first asks with signal 0 (harmless), and sends SIGSTOP only when that was refused (EPERM: the
 * filter, or another uid), so an unconfined run never stops the test's process. Refused, it
 * computes the right answer: success means both calls were refused. Exit 21: signal 0 reached
 * the parent; 22: refused with another errno; 23: SIGSTOP was delivered. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    pid_t parent = getppid();
    if (kill(parent, 0) == 0) exit(21);
    if (errno != EPERM) exit(22);
    if (kill(parent, SIGSTOP) == 0) exit(23);
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
