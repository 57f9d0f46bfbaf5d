/* archs.c — the architectures nvcc compiles for, asked of nvcc (4 ms: no cache needed). */
#include "archs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"

bool ar_nvcc_archs(char *list, size_t len)
{
    char nvcc[PATH_MAX];
    int fds[2];
    if (len == 0 || !ld_find_nvcc(nvcc, sizeof(nvcc)) || pipe(fds) != 0) return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) { /* no shell: the path is used as it is */
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(nvcc, nvcc, "--list-gpu-arch", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(fds[0], n + 1 < len ? list + n : sink,
                     n + 1 < len ? len - 1 - n : sizeof(sink))) > 0)
        if (n + 1 < len) n += (size_t)r; /* past len: drained and dropped */
    list[n] = '\0';
    close(fds[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    for (char *p = list; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && strstr(list, "compute_") != NULL;
}

bool ar_arch_supported(const char *arch, const char *list)
{
    if (strncmp(arch, "sm_", 3) != 0) return false;
    const char *d = arch + 3;
    size_t nd = strspn(d, "0123456789");
    if (nd < 2 || nd > 3) return false;
    const char *suffix = d + nd;
    int num = atoi(d);
    if (strcmp(suffix, "a") == 0 ? num < 90 : strcmp(suffix, "f") == 0 ? num < 100 : *suffix != '\0')
        return false;
    char want[16];
    snprintf(want, sizeof(want), "compute_%.*s", (int)nd, d);
    size_t wl = strlen(want);
    for (const char *p = strstr(list, want); p; p = strstr(p + 1, want)) {
        bool start = p == list || p[-1] == ' ';
        bool end = p[wl] == '\0' || p[wl] == ' ';
        if (start && end) return true; /* whole words: compute_10 is not compute_100 */
    }
    return false;
}
