/* Right on its checked call; in the timed loop its solve hangs while a thread of its own sends
 * heartbeats with the command's nonce, copied from the worker's reply under construction in the
 * process's heap: each beat would move the parent's deadline forever. The parent's cap on the
 * timing command (runner_child.c, rn_ask_worker) must still end it as a timeout. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_gemm.h"
#include "wire.h"

/* Reads memory that is not its own: not instrumented under the sanitizers (their redzones and
 * poisoned bytes are what it walks over), and at the struct's alignment. */
__attribute__((no_sanitize("address", "undefined"))) static wr_msg *fake_find_reply(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return NULL;
    char line[512];
    wr_msg *found = NULL;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perm[8], path[256] = "";
        /* the heap, or an anonymous mapping of at most 256 MiB (a sanitizer's allocator keeps
         * its heap there; its shadow memory is terabytes, and never holds the reply) */
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perm, path) < 3 ||
            perm[0] != 'r' || perm[1] != 'w' || (path[0] && strcmp(path, "[heap]") != 0) ||
            hi - lo > (256ul << 20))
            continue;
        for (unsigned long p = lo; p + sizeof(wr_msg) <= hi; p += _Alignof(wr_msg)) {
            wr_msg *m = (wr_msg *)p;
            if (m->kind == WR_DONE && m->cmd == WR_CMD_TIME && m->index >= 0 && m->index < 64 &&
                m->err == 0 && m->n_sol == 0) {
                found = m;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

static void *fake_beater(void *arg)
{
    (void)arg;
    const wr_msg *src = fake_find_reply();
    if (!src) return NULL;
    static wr_msg b;
    b.kind = WR_BEAT;
    b.index = src->index;
    b.nonce = src->nonce;
    b.cmd = WR_CMD_TIME;
    for (;;) {
        for (int fd = 3; fd < 256; fd++) {
            struct stat sb;
            int fl = fcntl(fd, F_GETFL);
            if (fl < 0 || fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode) || (fl & O_ACCMODE) != O_WRONLY)
                continue;
            if (write(fd, &b, sizeof(b)) < 0) continue;
        }
        usleep(200000);
    }
    return NULL;
}

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    static int calls;
    if (++calls == 2) { /* the first call of the timed loop (the checked call came first) */
        pthread_t t;
        pthread_create(&t, NULL, fake_beater, NULL);
        for (;;) pause();
    }
    fake_gemm(A, B, C, M, N, K, alpha, beta);
}
