/* solve forks a grandchild that keeps every inherited descriptor (the record pipe among them)
 * and sleeps, then exits(5): the parent must see the exit without the pipe's end of file, and the
 * grandchild must die with the process group. The grandchild writes its pid into
 * $FAKE_NOTE_DIR/grandchild so the test can check that. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake_gemm.h"

void solve(const half *A, const half *B, half *C, int M, int N, int K, float alpha, float beta)
{
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K, (void)alpha, (void)beta;
    int ready[2];
    if (pipe(ready) != 0) exit(6);
    pid_t pid = fork();
    if (pid == 0) {
        const char *dir = getenv("FAKE_NOTE_DIR");
        char path[512];
        snprintf(path, sizeof(path), "%s/grandchild", dir ? dir : "/nonexistent");
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        if (write(ready[1], "r", 1) != 1) _exit(1);
        sleep(60);
        _exit(0);
    }
    char r;
    if (pid < 0 || read(ready[0], &r, 1) != 1) exit(6); /* the pid is written before the exit */
    exit(5);
}
