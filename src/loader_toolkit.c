/* loader_toolkit.c — where nvcc and its toolkit are: nvcc's path ($NVCC, $PATH, $CUDA_HOME,
 * /usr/local/cuda), the toolkit's root (from nvcc's real path, or nvcc's dry run) and the
 * driver API's stub library in it. */
#include "loader.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader_int.h"

bool ld_runnable(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* $NVCC, when set, is the only candidate: a typo there must not build with another nvcc */
bool ld_find_nvcc(char *out, size_t len)
{
    const char *env = getenv("NVCC");
    if (env && *env) {
        if (!ld_runnable(env)) return false;
        snprintf(out, len, "%s", env);
        return true;
    }
    const char *path = getenv("PATH");
    if (path) {
        char *copy = strdup(path), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            char cand[PATH_MAX];
            snprintf(cand, sizeof(cand), "%s/nvcc", *dir ? dir : ".");
            if (ld_runnable(cand)) {
                snprintf(out, len, "%s", cand);
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    const char *home = getenv("CUDA_HOME");
    char cand[PATH_MAX];
    if (home && *home) {
        snprintf(cand, sizeof(cand), "%s/bin/nvcc", home);
        if (ld_runnable(cand)) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    if (ld_runnable("/usr/local/cuda/bin/nvcc")) {
        snprintf(out, len, "/usr/local/cuda/bin/nvcc");
        return true;
    }
    return false;
}

int ld_run_capture(char *const argv[], bool with_stderr, char *out, size_t len)
{
    int fds[2];
    if (len == 0 || pipe(fds) != 0) return -1;
    out[0] = '\0';
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) { /* no shell: the arguments are used as they are */
        dup2(fds[1], STDOUT_FILENO);
        if (with_stderr) dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv); /* a path runs as it is; a bare name is looked up on PATH */
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(fds[0], n + 1 < len ? out + n : sink, n + 1 < len ? len - 1 - n : sizeof(sink))) > 0)
        if (n + 1 < len) n += (size_t)r; /* past len: drained and dropped, so the child never blocks */
    out[n] = '\0';
    close(fds[0]);
    int ws = 0;
    if (waitpid(pid, &ws, 0) < 0) return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* nvcc's own answer to where its toolkit lives: the "#$ TOP=" line of a dry run. */
static bool ld_dryrun_top(const char *nvcc, char *out, size_t len)
{
    char buf[16384];
    char *argv[] = {(char *)nvcc, "--dryrun", "-shared", "-o", "/dev/null", "ld_probe.cu", NULL};
    if (ld_run_capture(argv, true, buf, sizeof(buf)) < 0) return false;
    const char *top = strstr(buf, "#$ TOP=");
    if (!top) return false;
    top += 7;
    size_t l = strcspn(top, "\r\n");
    char raw[PATH_MAX];
    if (l >= sizeof(raw)) return false;
    memcpy(raw, top, l);
    raw[l] = '\0';
    char real[PATH_MAX];
    if (!realpath(raw, real)) return false;
    snprintf(out, len, "%s", real);
    return true;
}

void ld_toolkit_root(const char *nvcc, char *out, size_t len)
{
    out[0] = '\0';
    char real[PATH_MAX];
    if (realpath(nvcc, real)) {
        char *slash = strrchr(real, '/'); /* .../bin/nvcc -> the toolkit's root */
        if (slash) *slash = '\0';
        slash = strrchr(real, '/');
        if (slash) {
            *slash = '\0';
            /* a toolkit's root holds version.json, or (pip's and conda's layouts, which have
             * none) the front end nvcc.profile names, $(TOP)/nvvm/bin/cicc: asking nvcc instead
             * costs a dry run, a host compiler's run with it, per build and signature check */
            char vj[PATH_MAX + 16], cicc[PATH_MAX + 16];
            snprintf(vj, sizeof(vj), "%s/version.json", real);
            snprintf(cicc, sizeof(cicc), "%s/nvvm/bin/cicc", real);
            if (access(vj, R_OK) == 0 || access(cicc, X_OK) == 0) {
                snprintf(out, len, "%s", real);
                return;
            }
        }
    }
    /* a wrapper script (e.g. /usr/local/bin/nvcc exec'ing the real one): ask nvcc */
    ld_dryrun_top(nvcc, out, len);
}

void ld_stubs_in(const char *root, char *out, size_t len)
{
    out[0] = '\0';
    if (!root[0]) return;
    static const char *const subdirs[] = {"lib64/stubs", "targets/x86_64-linux/lib/stubs",
                                          "targets/sbsa-linux/lib/stubs", "lib/stubs"};
    for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof(cand), "%s/%s/libcuda.so", root, subdirs[i]);
        if (access(cand, R_OK) == 0) {
            snprintf(out, len, "%s/%s", root, subdirs[i]);
            return;
        }
    }
}

void ld_driver_stubs(const char *nvcc, char *out, size_t len)
{
    char root[PATH_MAX];
    ld_toolkit_root(nvcc, root, sizeof(root));
    ld_stubs_in(root, out, len);
}
