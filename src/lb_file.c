/* lb_file.c — a section of leaderboard.md replaced between its markers, atomically. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb_int.h"
#include "loader.h"

static void lb_markers(const char *problem, char *begin, char *end, size_t len)
{
    snprintf(begin, len, "<!-- leaderboard:%s:begin -->", problem);
    snprintf(end, len, "<!-- leaderboard:%s:end -->", problem);
}

char *lb_splice(const char *old, const char *problem, const char *section)
{
    char begin[128], end[128];
    lb_markers(problem, begin, end, sizeof(begin));
    const char *b = old ? strstr(old, begin) : NULL;
    const char *e = b ? strstr(b, end) : NULL;
    if (b && !e) return NULL;
    size_t need = (old ? strlen(old) : 0) + strlen(section) + strlen(begin) + strlen(end) + 8;
    char *out = malloc(need);
    if (!out) return NULL;
    if (b) {
        size_t head = (size_t)(b - old);
        const char *tail = e + strlen(end);
        snprintf(out, need, "%.*s%s\n%s%s%s", (int)head, old, begin, section, end, tail);
    } else {
        const char *sep = old && *old ? (old[strlen(old) - 1] == '\n' ? "\n" : "\n\n") : "";
        snprintf(out, need, "%s%s%s\n%s%s\n", old ? old : "", sep, begin, section, end);
    }
    return out;
}

int lb_write_atomic(const char *path, const char *text)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    ok = fflush(f) == 0 && ok;
    ok = fsync(fileno(f)) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Splice section (freed here) between marker's markers in out_path, atomically. An exit code. */
int lb_write_section(const char *out_path, const char *marker, char *sec)
{
    char *old = ld_read_text(out_path, NULL);
    if (!old) old = strdup("# Leaderboard\n\nEvery stage of each problem, from one real GPU run per "
                           "section. Regenerate with `./harness leaderboard --problem P` (or "
                           "`make leaderboard`).\n");
    char *text = lb_splice(old, marker, sec);
    free(old);
    free(sec);
    if (!text) {
        fprintf(stderr, "harness leaderboard: %s has a begin marker for %s without its end; left untouched\n",
                out_path, marker);
        return HX_INTERNAL;
    }
    if (lb_write_atomic(out_path, text) != 0) {
        fprintf(stderr, "harness leaderboard: cannot write %s: %s\n", out_path, strerror(errno));
        free(text);
        return HX_INTERNAL;
    }
    free(text);
    return HX_SUCCESS;
}
