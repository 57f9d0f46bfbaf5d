/* tools.c — running the CUDA tools: finding one (nvcc's folder, $CUDA_HOME...), the one line when
 * it is missing, spawning it without a shell, a scratch file, and demangling names through
 * c++filt. */
#include "tools.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "text.h"

/* Run argv (no shell) with env ("NAME", "VALUE", ..., NULL) added; in: NULL inherits stdin, else
 * that file is its stdin; out: NULL inherits stdout and stderr, else both go to that file. The exit
 * status, 128 + a signal, or -1 when it never ran. */
int in_spawn_io(char *const argv[], const char *const env[], const char *in, const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (in) {
            int fd = open(in, O_RDONLY);
            if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) _exit(126);
            close(fd);
        }
        if (out) {
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
            close(fd);
        }
        for (size_t i = 0; env && env[i] && env[i + 1]; i += 2)
            if (setenv(env[i], env[i + 1], 1) != 0) _exit(126);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(ws)) return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws)) return 128 + WTERMSIG(ws);
    return -1;
}

int in_spawn(char *const argv[], const char *const env[], const char *out)
{
    return in_spawn_io(argv, env, NULL, out);
}

/* A CUDA tool: $ENV when set (then only there, so that a test can hide a tool), else PATH, nvcc's
 * folder, $CUDA_HOME/bin, /usr/local/cuda/bin. */
bool in_find_tool(const char *name, const char *env, char *out, size_t len)
{
    const char *e = getenv(env);
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return ld_runnable(e);
    }
    char cand[PATH_MAX + 64];
    const char *path = getenv("PATH");
    if (path) {
        char *copy = strdup(path), *save = NULL;
        if (!copy) return false;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(cand, sizeof(cand), "%s/%s", *d ? d : ".", name);
            if (ld_runnable(cand)) {
                snprintf(out, len, "%s", cand);
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    char nvcc[PATH_MAX];
    if (ld_find_nvcc(nvcc, sizeof(nvcc))) {
        snprintf(cand, sizeof(cand), "%s/%s", dirname(nvcc), name);
        if (ld_runnable(cand)) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(cand, sizeof(cand), "%s/bin/%s", home, name);
        if (ld_runnable(cand)) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    snprintf(cand, sizeof(cand), "/usr/local/cuda/bin/%s", name);
    if (ld_runnable(cand)) {
        snprintf(out, len, "%s", cand);
        return true;
    }
    return false;
}

/* The one line for a missing tool. */
void in_tool_missing_line(char *out, size_t len, const char *mode, const char *name, const char *env,
                          const char *consequence)
{
    const char *e = getenv(env);
    if (e && *e)
        snprintf(out, len, "%s: %s not found: $%s=%s is not an executable; %s", mode, name, env, e, consequence);
    else
        snprintf(out, len, "%s: %s not found (looked at $%s, PATH, nvcc's folder, $CUDA_HOME/bin, "
                           "/usr/local/cuda/bin); %s",
                 mode, name, env, consequence);
}

bool in_tmpfile(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/harness-inspect-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return false;
    close(fd);
    return true;
}

/* Shorten a demangled kernel name: no "void ", no "(anonymous namespace)::", no parameters. */
static void in_shorten(const char *dem, char *out, size_t len)
{
    const char *s = dem;
    if (in_starts(s, "void ")) s += strlen("void ");
    if (in_starts(s, "(anonymous namespace)::")) s += strlen("(anonymous namespace)::");
    size_t n = strlen(s);
    if (n && s[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (s[i] == ')') depth++;
            else if (s[i] == '(' && --depth == 0) {
                n = i;
                break;
            }
        }
    }
    snprintf(out, len, "%.*s", (int)n, s);
}

/* Whether c++filt may see name: a symbol's characters only. Anything else stays mangled (a name
 * comes from text a solution can shape, and c++filt reads "-p" as an option, "@FILE" as a file). */
static bool in_symbol_name(const char *name)
{
    if (!*name) return false;
    for (const char *s = name; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '.') return false;
    return true;
}

/* Demangle through c++filt when it exists; otherwise the names stay mangled. The names go on its
 * stdin, one a line (it answers each line with one), never on its command line. */
void in_demangle(in_dm *d, size_t n)
{
    char filt[PATH_MAX], in[PATH_MAX], out[PATH_MAX];
    if (!n || !in_find_tool("c++filt", "CXXFILT", filt, sizeof(filt))) return;
    size_t *idx = calloc(n, sizeof(*idx)), m = 0;
    if (!idx) return;
    if (!in_tmpfile(in, sizeof(in))) {
        free(idx);
        return;
    }
    if (!in_tmpfile(out, sizeof(out))) {
        unlink(in);
        free(idx);
        return;
    }
    FILE *f = fopen(in, "w");
    for (size_t i = 0; f && i < n; i++)
        if (in_symbol_name(d[i].mangled) && fprintf(f, "%s\n", d[i].mangled) > 0) idx[m++] = i;
    bool written = f && fclose(f) == 0;
    char *argv[] = {filt, NULL};
    char *text = written && m && in_spawn_io(argv, NULL, in, out) == 0 ? ld_read_text(out, NULL) : NULL;
    const char *p = text;
    char line[4096];
    for (size_t i = 0; p && i < m && in_getline(&p, line, sizeof(line)); i++)
        in_shorten(line, d[idx[i]].out, d[idx[i]].len);
    free(text);
    unlink(in);
    unlink(out);
    free(idx);
}
