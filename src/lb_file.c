/* lb_file.c — a section of leaderboard.md replaced between its markers, atomically, with
 * nothing else of the file lost: a file that cannot be read whole is left alone, a section's
 * text cannot carry a marker, and a link is written through to its target. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb_int.h"
#include "loader.h"

static void lb_markers(const char *problem, char *begin, char *end, size_t len)
{
    snprintf(begin, len, "<!-- leaderboard:%s:begin -->", problem);
    snprintf(end, len, "<!-- leaderboard:%s:end -->", problem);
}

static size_t lb_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* The section's text with every "<!--" written "&lt;!--" (shown the same): a stage's file
 * name, its first line or a --commit label could otherwise carry another section's marker and
 * move where a later splice cuts. The generators write no comment of their own. */
static char *lb_defuse(const char *sec)
{
    size_t n = lb_count(sec, "<!--"), len = strlen(sec);
    char *out = malloc(len + 3 * n + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = sec; *p;) {
        if (strncmp(p, "<!--", 4) == 0) {
            memcpy(o, "&lt;!--", 7);
            o += 7;
            p += 4;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

int lb_section_bounds(const char *text, const char *name, const char **b, const char **e)
{
    char begin[160], end[160];
    lb_markers(name, begin, end, sizeof(begin));
    size_t nb = text ? lb_count(text, begin) : 0, ne = text ? lb_count(text, end) : 0;
    *b = nb == 1 ? strstr(text, begin) : NULL;
    *e = ne == 1 ? strstr(text, end) : NULL;
    if (!nb && !ne) return 0;
    /* one begin before one end, or neither: anything else cannot say which text is the section */
    return *b && *e && *b < *e ? 1 : -1;
}

char *lb_splice(const char *old, const char *problem, const char *section)
{
    char begin[160], end[160];
    lb_markers(problem, begin, end, sizeof(begin));
    const char *b, *e;
    if (lb_section_bounds(old, problem, &b, &e) < 0) return NULL;
    char *sec = lb_defuse(section);
    if (!sec) return NULL;
    size_t need = (old ? strlen(old) : 0) + strlen(sec) + strlen(begin) + strlen(end) + 8;
    char *out = malloc(need);
    if (out && b) {
        size_t head = (size_t)(b - old);
        const char *tail = e + strlen(end);
        snprintf(out, need, "%.*s%s\n%s%s%s", (int)head, old, begin, sec, end, tail);
    } else if (out) {
        const char *sep = old && *old ? (old[strlen(old) - 1] == '\n' ? "\n" : "\n\n") : "";
        snprintf(out, need, "%s%s%s\n%s%s\n", old ? old : "", sep, begin, sec, end);
    }
    free(sec);
    return out;
}

int lb_write_atomic(const char *path, const char *text)
{
    /* through a link to its target, which keeps its mode: the link stays a link */
    char real[PATH_MAX], tmp[PATH_MAX + 32];
    const char *dst = realpath(path, real) ? real : path;
    struct stat sb;
    mode_t mode = stat(dst, &sb) == 0 ? (sb.st_mode & 07777) : 0644;
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dst, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    size_t n = strlen(text), done = 0;
    bool ok = fchmod(fd, mode) == 0;
    while (ok && done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, dst) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Splice section (freed here) between marker's markers in out_path, atomically. An exit code:
 * a file that exists but cannot be read whole as text (unreadable, not a regular file, a NUL
 * byte) or whose markers are ambiguous is left untouched (HX_BAD_FILE). */
int lb_write_section(const char *out_path, const char *marker, char *sec)
{
    size_t len = 0;
    char *old = ld_read_text(out_path, &len);
    const char *why = NULL;
    struct stat sb;
    if (!old && (lstat(out_path, &sb) == 0 || errno != ENOENT))
        why = "cannot be read as a regular file";
    else if (old && memchr(old, '\0', len))
        why = "holds a NUL byte";
    else if (!old)
        old = strdup("# Leaderboard\n\nEvery stage of each problem, from one real GPU run per "
                     "section. Regenerate with `./harness leaderboard --problem P` (or "
                     "`make leaderboard`).\n");
    char *text = why || !old ? NULL : lb_splice(old, marker, sec);
    if (!why && old && !text)
        why = "has markers for this section that are not one begin followed by one end";
    free(old);
    free(sec);
    if (why) {
        fprintf(stderr, "harness leaderboard: %s %s (%s); left untouched\n", out_path, why, marker);
        return HX_BAD_FILE;
    }
    if (!text || lb_write_atomic(out_path, text) != 0) {
        fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", out_path, strerror(errno));
        free(text);
        return HX_INTERNAL;
    }
    free(text);
    return HX_SUCCESS;
}

/* path with its folder resolved (the name itself need not exist), into out; path as given when
 * the folder cannot be resolved. */
static void lb_canon_path(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    if (slash == path) snprintf(dir, sizeof(dir), "/");
    else if (slash) snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof(dir), ".");
    if (realpath(dir, real)) snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path);
    else snprintf(out, len, "%s", path);
}

bool lb_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[2 * PATH_MAX], cb[2 * PATH_MAX]; /* not both there yet: the same name is the same file */
    lb_canon_path(a, ca, sizeof(ca));
    lb_canon_path(b, cb, sizeof(cb));
    return strcmp(ca, cb) == 0;
}

bool lb_json_open(lb_json *j, const char *path)
{
    *j = (lb_json){.path = path};
    /* in memory until the end: the file on disk is written whole, or not at all */
    j->f = open_memstream(&j->buf, &j->len);
    if (!j->f) fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", path, strerror(errno));
    return j->f != NULL;
}

/* j freed unwritten. */
static void lb_json_drop(lb_json *j)
{
    if (j->f) fclose(j->f);
    free(j->buf);
    *j = (lb_json){0};
}

int lb_json_close(lb_json *j)
{
    if (!j->f) return HX_SUCCESS;
    bool ok = fclose(j->f) == 0 && j->buf;
    j->f = NULL;
    struct stat sb;
    if (ok && !j->len) { /* a run that failed before its first line: no empty file either */
        lb_json_drop(j);
        return HX_SUCCESS;
    }
    if (ok && strcmp(j->path, "-") == 0) {
        ok = fputs(j->buf, stdout) >= 0 && fflush(stdout) == 0;
    } else if (ok && stat(j->path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        /* a device or a FIFO (/dev/null): written to, never renamed over */
        FILE *f = fopen(j->path, "w");
        ok = f && fputs(j->buf, f) >= 0;
        ok = (f && fclose(f) == 0) && ok;
    } else if (ok) {
        ok = lb_write_atomic(j->path, j->buf) == 0;
    }
    if (!ok) fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", j->path, strerror(errno));
    lb_json_drop(j);
    return ok ? HX_SUCCESS : HX_INTERNAL;
}
