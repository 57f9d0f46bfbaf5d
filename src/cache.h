/* cache.h — the build cache's side of every nvcc run: a name of the harness's own for the
 * solution (nvcc hands file names to a shell), keys over every file a build read (nvcc's own
 * dependency list), and temporaries that an interrupted build does not leave behind. */
#ifndef CACHE_H
#define CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    char wrapper[PATH_MAX];         /* CACHE/src-H.cu: one #include line, the name nvcc is given */
    char include_flag[PATH_MAX + 8]; /* "-ICACHE/inc-H" when the path cannot be quoted; else "" */
    char alias[PATH_MAX];           /* the file's name in diagnostics when it is not its path */
    char stem[48];                  /* the file's name made safe for the cache's own names */
    char included[PATH_MAX];        /* the name the wrapper includes: the file's absolute path or
                                       the link (what the compiler's messages call it) */
} ch_source;

/* Whether nvcc's shell keeps p whole inside its double quotes (no " ` $ \ , or line break): the
 * cache directory's path must be, since the names in it go to nvcc. */
bool ch_path_safe(const char *p);

/* The wrapper for src_path in cache_dir (an absolute, safe path): `#include "/abs/path"`, so
 * relative #includes resolve as they would for the file itself; a path the preprocessor cannot
 * quote (a " or a line break in it) goes through symlinks in the cache and -I its directory. */
bool ch_stage(const char *cache_dir, const char *src_path, ch_source *s, char *err, size_t errlen);

/* Write text to path atomically (a temporary, then rename) unless it already holds exactly that. */
bool ch_write(const char *path, const char *text);
/* A whole regular file as a NUL-terminated string (malloc'd; NULL when it cannot be read or is
 * not a regular file: a FIFO or a device named by a hostile #include never blocks the judge);
 * *len gets its size when len is not NULL. */
char *ch_read_file(const char *path, size_t *len);

/* A key from seed and every file nvcc's dependency list dfile names (written with -MD -MF dfile
 * -MT hx): each path and its content. False when dfile is missing or a file is unreadable. */
bool ch_deps_key(const char *dfile, uint64_t seed, uint64_t *key);
/* XXH3-64 of n bytes: the digest the leaderboard records of each stage file it measured. */
uint64_t ch_digest(const void *p, size_t n);

/* Temporaries are named FILE.tmp.PID. ch_spawn starts argv (stdout and stderr into out_fd) in a
 * process group of its own and registers the temporaries its result will be written to: SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT on the harness then kill the group and remove them. Returns the
 * child's pid (<0: fork failed). */
#define CH_TMPS 3
pid_t ch_spawn(char *const argv[], int out_fd, const char *const tmps[CH_TMPS], int *slot);
/* nvcc's stdin is /dev/null (a file that includes "/dev/stdin" reads nothing). A build or a
 * signature check may take ch_compile_limit() seconds (HARNESS_COMPILE_TIMEOUT, 1..86400;
 * default 600): a file can #include a FIFO or a device that never ends. ch_wait waits for pid
 * until end_s (CLOCK_MONOTONIC seconds, ch_now()): 1 with *ws once it exited; 0 when end_s came
 * first (its process group killed and the child reaped); -1 on an error. */
double ch_compile_limit(void);
double ch_now(void);
int ch_wait(pid_t pid, int *ws, double end_s);

/* The child is reaped (its group no longer to be killed); its temporaries are still removed on a
 * signal until ch_release, once they are renamed into place or removed. */
void ch_reaped(int slot);
void ch_release(int slot);

/* Remove FILE.tmp.PID left in dir by processes that no longer run (a SIGKILL'd harness). */
void ch_sweep(const char *dir);

#endif
