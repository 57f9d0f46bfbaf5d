/* archs.c — the architectures nvcc compiles for, asked of nvcc (4 ms: no cache needed). */
#include "archs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

bool ar_nvcc_archs(char *list, size_t len)
{
    char nvcc[PATH_MAX];
    if (len == 0 || !ld_find_nvcc(nvcc, sizeof(nvcc))) return false;
    char *argv[] = {nvcc, "--list-gpu-arch", NULL};
    int status = ld_run_capture(argv, false, list, len);
    for (char *p = list; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return status == 0 && strstr(list, "compute_") != NULL;
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
