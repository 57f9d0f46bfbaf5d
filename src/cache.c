/* cache.c — safe names, dependency keys and temporaries for the build cache (cache.h). */
#include "cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include "xxhash.h"

uint64_t ch_digest(const void *p, size_t n)
{
    return (uint64_t)XXH3_64bits(p, n);
}

bool ch_path_safe(const char *p)
{
    return strpbrk(p, "\"`$\\,\n\r") == NULL;
}

bool ch_write(const char *path, const char *text)
{
    size_t n = strlen(text);
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        char *old = malloc(n + 1);
        ssize_t r = old ? read(fd, old, n + 1) : -1;
        close(fd);
        bool same = r >= 0 && (size_t)r == n && memcmp(old, text, n) == 0;
        free(old);
        if (same) return true;
    }
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    bool ok = write(fd, text, n) == (ssize_t)n;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0) return true;
    unlink(tmp);
    return false;
}

/* A symlink at path to target, replaced atomically when it points elsewhere. */
static bool ch_symlink(const char *target, const char *path)
{
    char now[PATH_MAX];
    ssize_t n = readlink(path, now, sizeof(now) - 1);
    if (n >= 0) {
        now[n] = '\0';
        if (strcmp(now, target) == 0) return true;
    }
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    unlink(tmp);
    if (symlink(target, tmp) != 0) return false;
    if (rename(tmp, path) == 0) return true;
    unlink(tmp);
    return false;
}

/* The file's name without ".cu", every byte outside [A-Za-z0-9_+.-] made '_', never starting with
 * '-' or '.', at most 40 bytes: the cache's names are read by shells and option parsers. */
static void ch_stem(const char *base, char *out, size_t len)
{
    size_t n = strlen(base);
    if (n > 3 && strcmp(base + n - 3, ".cu") == 0) n -= 3;
    if (n > 40) n = 40;
    if (n + 1 > len) n = len - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)base[i];
        bool ok = isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.';
        out[i] = ok && c < 128 ? (char)c : '_';
    }
    out[n] = '\0';
    if (out[0] == '-' || out[0] == '.') out[0] = '_';
    if (!out[0]) snprintf(out, len, "solution");
}

bool ch_stage(const char *cache_dir, const char *src_path, ch_source *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    /* the directory as the kernel resolves it, the name as given (a symlinked file stays one) */
    char dir[PATH_MAX], real[PATH_MAX], abs[2 * PATH_MAX + 2];
    const char *slash = strrchr(src_path, '/');
    const char *base = slash ? slash + 1 : src_path;
    if (slash)
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - src_path) + (slash == src_path), src_path);
    else
        snprintf(dir, sizeof(dir), ".");
    if (!realpath(dir, real)) {
        snprintf(err, errlen, "cannot resolve the directory of %s: %s", src_path, strerror(errno));
        return false;
    }
    snprintf(abs, sizeof(abs), "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    if (strlen(abs) >= PATH_MAX) {
        snprintf(err, errlen, "the path of %s is too long", src_path);
        return false;
    }
    ch_stem(base, s->stem, sizeof(s->stem));
    unsigned long long h = (unsigned long long)XXH3_64bits(abs, strlen(abs));
    snprintf(s->wrapper, sizeof(s->wrapper), "%s/src-%016llx.cu", cache_dir, h);
    char text[PATH_MAX + 64];
    if (!strpbrk(abs, "\"\n\r")) {
        snprintf(s->included, sizeof(s->included), "%s", abs);
        snprintf(text, sizeof(text), "#include \"%s\"\n", abs);
    } else {
        /* the preprocessor cannot quote it: a link to the file, and its directory through -I */
        char linkdir[PATH_MAX], inc[PATH_MAX];
        snprintf(linkdir, sizeof(linkdir), "%s/src-%016llx", cache_dir, h);
        snprintf(s->alias, sizeof(s->alias), "%s/%s.cu", linkdir, s->stem);
        snprintf(inc, sizeof(inc), "%s/inc-%016llx", cache_dir, h);
        if ((mkdir(linkdir, 0755) != 0 && errno != EEXIST) || !ch_symlink(abs, s->alias) ||
            !ch_symlink(real, inc)) {
            snprintf(err, errlen, "cannot link %s into the cache: %s", src_path, strerror(errno));
            return false;
        }
        snprintf(s->include_flag, sizeof(s->include_flag), "-I%s", inc);
        snprintf(s->included, sizeof(s->included), "%s", s->alias);
        snprintf(text, sizeof(text), "#include \"%s\"\n", s->alias);
    }
    if (!ch_write(s->wrapper, text)) {
        snprintf(err, errlen, "cannot write %s: %s", s->wrapper, strerror(errno));
        return false;
    }
    return true;
}

/* The next path of a make-style dependency list (backslash-escaped spaces and '#', "$$" for '$',
 * backslash-newline continuations); NULL at the end. */
static const char *ch_next_dep(const char *p, char *out, size_t len)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\n' ? 2 : 3;
            continue;
        }
        break;
    }
    if (!*p) return NULL;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
        char c = *p++;
        if (c == '\\' && (*p == ' ' || *p == '#' || *p == '\t')) c = *p++;
        else if (c == '\\' && (*p == '\n' || *p == '\r')) break;
        else if (c == '$' && *p == '$') p++;
        if (n + 1 < len) out[n++] = c;
    }
    out[n] = '\0';
    return p;
}

char *ch_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO's open must not wait */
    if (fd < 0) return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    ssize_t r = 0;
    while (buf && n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    close(fd);
    if (!buf || r < 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

bool ch_deps_key(const char *dfile, uint64_t seed, uint64_t *key)
{
    size_t n;
    char *list = ch_read_file(dfile, &n);
    if (!list) return false;
    const char *p = strstr(list, "hx :");
    bool ok = p != NULL;
    XXH3_state_t *st = XXH3_createState();
    ok = ok && st && XXH3_64bits_reset_withSeed(st, seed) == XXH_OK;
    char *path = malloc(PATH_MAX);
    ok = ok && path;
    size_t files = 0;
    for (p = ok ? p + 4 : NULL; ok && (p = ch_next_dep(p, path, PATH_MAX)) != NULL;) {
        size_t len;
        char *text = ch_read_file(path, &len);
        XXH3_64bits_update(st, path, strlen(path) + 1);
        if (!text && errno == ENOENT && access(path, F_OK) != 0) {
            /* a name no build read: a #line directive's ("hx-probe"); should it appear, the key
             * changes and the next run rebuilds */
            XXH3_64bits_update(st, "missing", 8);
            continue;
        }
        if (!text) {
            ok = false;
            break;
        }
        uint64_t h = XXH3_64bits(text, len);
        XXH3_64bits_update(st, &h, sizeof(h));
        free(text);
        files++;
    }
    if (ok && files > 0) *key = XXH3_64bits_digest(st);
    free(path);
    if (st) XXH3_freeState(st);
    free(list);
    return ok && files > 0;
}

/* What a signal handler must undo when the harness is interrupted mid-compile: the running nvcc
 * process groups and the temporaries they write. With runner.c's stop flag, the only mutable
 * globals of the harness, since a handler has nothing else to reach; a slot is filled with
 * signals blocked and published by its pid last, so the handler never sees half of one. */
#define CH_SLOTS 32
typedef struct {
    volatile sig_atomic_t pid; /* 0: free; -1: the child is reaped, its temporaries not yet moved */
    char tmp[CH_TMPS][PATH_MAX + 64];
} ch_slot;
static ch_slot ch_live[CH_SLOTS];
static const int ch_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define CH_NSIG (sizeof(ch_signals) / sizeof(ch_signals[0]))
static struct sigaction ch_saved[CH_NSIG];
static bool ch_caught[CH_NSIG];
static int ch_users; /* slots in use: the handlers stay while any is */
static volatile sig_atomic_t ch_owner; /* the process that registered them (not a forked child) */

/* Async-signal-safe: getpid, kill, unlink, sigaction, raise. */
static void ch_on_signal(int sig)
{
    /* a child forked meanwhile (the device probe) inherits the handler, not the builds */
    for (int i = 0; i < CH_SLOTS && getpid() == (pid_t)ch_owner; i++) {
        pid_t pid = (pid_t)ch_live[i].pid;
        if (pid == 0) continue;
        if (pid > 0) kill(-pid, SIGKILL);
        for (int t = 0; t < CH_TMPS; t++)
            if (ch_live[i].tmp[t][0]) unlink(ch_live[i].tmp[t]);
    }
    for (size_t k = 0; k < CH_NSIG; k++)
        if (ch_signals[k] == sig && ch_caught[k]) sigaction(sig, &ch_saved[k], NULL);
    raise(sig); /* delivered on return, to the action the harness had before */
}

static void ch_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t k = 0; k < CH_NSIG; k++) sigaddset(&set, ch_signals[k]);
    sigprocmask(SIG_BLOCK, &set, old);
}

pid_t ch_spawn(char *const argv[], int out_fd, const char *const tmps[CH_TMPS], int *slot)
{
    sigset_t old;
    ch_block(&old);
    int s = -1;
    for (int i = 0; i < CH_SLOTS && s < 0; i++)
        if (ch_live[i].pid == 0) s = i;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, &old, NULL);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, STDIN_FILENO);
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
        execv(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid > 0 && s >= 0) {
        setpgid(pid, pid); /* before the handler may kill the group, whichever runs first */
        for (int t = 0; t < CH_TMPS; t++)
            snprintf(ch_live[s].tmp[t], sizeof(ch_live[s].tmp[t]), "%s", tmps[t] ? tmps[t] : "");
        ch_live[s].pid = pid;
        if (ch_users++ == 0) {
            ch_owner = getpid();
            struct sigaction sa;
            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = ch_on_signal;
            sigemptyset(&sa.sa_mask);
            for (size_t k = 0; k < CH_NSIG; k++) {
                struct sigaction prev;
                sigaction(ch_signals[k], NULL, &prev);
                /* an ignored signal (nohup) stays ignored */
                ch_caught[k] = prev.sa_handler != SIG_IGN;
                if (ch_caught[k]) sigaction(ch_signals[k], &sa, &ch_saved[k]);
            }
        }
    }
    *slot = pid > 0 ? s : -1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

double ch_compile_limit(void)
{
    const char *e = getenv("HARNESS_COMPILE_TIMEOUT");
    char *end = NULL;
    double v = e && *e ? strtod(e, &end) : 0.0;
    return end && *end == '\0' && v >= 1.0 && v <= 86400.0 ? v : 600.0;
}

double ch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ch_wait(pid_t pid, int *ws, double end_s)
{
    for (;;) {
        pid_t r = waitpid(pid, ws, WNOHANG);
        if (r == pid) return 1;
        if (r < 0 && errno != EINTR) return -1;
        if (ch_now() >= end_s) {
            kill(-pid, SIGKILL); /* nvcc and the tools it started */
            while (waitpid(pid, ws, 0) < 0 && errno == EINTR) {
            }
            return 0;
        }
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

void ch_reaped(int slot)
{
    if (slot >= 0 && slot < CH_SLOTS && ch_live[slot].pid > 0) ch_live[slot].pid = -1;
}

void ch_release(int slot)
{
    if (slot < 0 || slot >= CH_SLOTS) return;
    sigset_t old;
    ch_block(&old);
    if (ch_live[slot].pid != 0) {
        ch_live[slot].pid = 0;
        if (--ch_users == 0)
            for (size_t k = 0; k < CH_NSIG; k++)
                if (ch_caught[k]) sigaction(ch_signals[k], &ch_saved[k], NULL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

void ch_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *t = strstr(e->d_name, ".tmp.");
        if (!t) continue;
        while (strstr(t + 1, ".tmp.")) t = strstr(t + 1, ".tmp.");
        char *end;
        long pid = strtol(t + 5, &end, 10);
        if (end == t + 5 || *end || pid <= 0) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to ask */
        char path[PATH_MAX + 256];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}
