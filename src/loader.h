/* loader.h — a solution's .cu compiled by nvcc into a shared object, cached by content. */
#ifndef LOADER_H
#define LOADER_H

#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"

typedef struct {
    const char *arch;        /* "sm_90a" */
    const char *extra_flags; /* --nvcc-flags, split on spaces; may be NULL */
    const char *cache_dir;
    bool rebuild;            /* ignore a cached object */
    bool quiet;              /* no "compiling..." line on stderr */
    bool ptx_only;           /* code=compute_XX: PTX the driver compiles at load (ptxas never runs) */
} ld_options;

typedef enum {
    LD_OK,
    LD_NO_NVCC,      /* nvcc not found */
    LD_COMPILE_ERROR,
    LD_IO_ERROR,     /* cache directory, temporary files */
    LD_NOT_OBJECT    /* no ELF shared object for a reason other than the code: nvcc succeeded
                        without writing one, or refused the --nvcc-flags ("nvcc fatal", e.g.
                        -E); never cached */
} ld_status;

/* What every nvcc run on a solution shares: nvcc, the cache (absolute, shell-safe), the file's
 * name there (cache.h) and the key of everything but the files it includes (the source, the
 * flags, the toolchain, the recipe named by tag; the working directory when flags are given,
 * since they may name relative paths). */
typedef struct {
    char nvcc[PATH_MAX];
    char cache_dir[PATH_MAX];
    char root[PATH_MAX];     /* the toolkit's */
    ch_source src;
    uint64_t key0;
} ld_prep;

bool ld_prepare(const ld_options *o, const char *src_path, const char *tag, ld_prep *p,
                ld_status *status, char *err, size_t errlen);

/* nvcc's argv for a solution: nvcc, the fixed recipe unless bare, the extra flags split on
 * spaces, -MD -MF dfile -MT hx when dfile, then more (NULL-terminated), -o out, then input (the
 * wrapper when NULL).
 * Strings point into p, o, more and copy (o->extra_flags duplicated; free it). */
int ld_argv(const ld_prep *p, const ld_options *o, bool bare, const char *dfile,
            const char *const *more, const char *out, const char *input, const char **argv, int max,
            char **copy);

typedef struct {
    char so_path[PATH_MAX];
    char log_path[PATH_MAX]; /* nvcc's diagnostics */
    char nvcc[PATH_MAX];
    char command[2048];      /* the nvcc command line, for the report */
    bool cached;
    double seconds;          /* compile time; 0 when cached */
    char error[512];
    int pid;                 /* nvcc's while a started build runs (ld_build_start); 0 otherwise */
    char tmp_path[PATH_MAX + 32];
    double t0;
    /* the cache's side (ld_prepare): the log and dependency list are written under temporary
     * names and renamed when nvcc ends; the object's name is known only then (its key covers
     * every file the dependency list names) */
    ld_prep prep;
    char src[PATH_MAX];          /* the user's path, as given: what diagnostics show */
    char dep_path[PATH_MAX + 32];
    char dep_tmp[PATH_MAX + 64];
    char log_tmp[PATH_MAX + 64];
    char stem_path[PATH_MAX + 64]; /* CACHE/NAME */
    int slot;
    bool has_flags;              /* --nvcc-flags given (LD_NOT_OBJECT is then the user's) */
    bool rebuild;                /* --rebuild: the cached object was not to be trusted */
} ld_build;

/* Compile src_path (unless a cached object exists). On LD_COMPILE_ERROR the log is in
 * build->log_path; ld_print_log prints it. */
ld_status ld_build_solution(const ld_options *o, const char *src_path, ld_build *build);
void ld_print_log(const ld_build *build, FILE *to);

/* The same build in two halves, so several nvcc run at once: start returns LD_OK when nvcc was
 * started (build->pid) or the object is cached (build->cached); finish waits for nvcc and gives
 * ld_build_solution's result; poll is finish that returns false at once while nvcc still runs. */
ld_status ld_build_start(const ld_options *o, const char *src_path, ld_build *build);
ld_status ld_build_finish(ld_build *build);
bool ld_build_poll(ld_build *build, ld_status *status);
/* A started build no longer wanted: nvcc's process group killed, its temporaries removed. */
void ld_build_cancel(ld_build *build);

/* Whether the shared object's dynamic symbol table defines name (read from the ELF file, without
 * loading it: an object whose libraries are missing here can still be checked). */
bool ld_object_defines(const char *so_path, const char *name);

/* Whether path is a 64-bit ELF shared object (what dlopen can load), from its header. */
bool ld_is_shared_object(const char *path);

/* Replace every occurrence of from with to in the file at path (diagnostics that name the cache's
 * wrapper or link name the user's file instead). */
void ld_rename_in_log(const char *path, const char *from, const char *to);

/* The toolkit's libcuda stub directory, "" when there is none. The toolkit is found from
 * nvcc's real path, or from nvcc's own dry run when that path is a wrapper script. */
void ld_driver_stubs(const char *nvcc, char *out, size_t len);

/* A whole regular file as a NUL-terminated string (malloc'd; NULL when unreadable or not a
 * regular file); *len gets its size when len is not NULL. The loader's name for ch_read_file. */
char *ld_read_text(const char *path, size_t *len);

/* nvcc's path ($NVCC, then PATH, then $CUDA_HOME/bin, /usr/local/cuda/bin); false if none. */
bool ld_find_nvcc(char *out, size_t len);

/* A regular file this process may execute (a folder passes access(X_OK) too, and exec then
 * fails). */
bool ld_runnable(const char *path);

/* Runs argv[0] (a path, or a name looked up on PATH; no shell) with its stdout (and stderr when
 * with_stderr) into out, the first len - 1 bytes kept and the rest drained; its exit status, or
 * -1 when it could not run or was killed. */
int ld_run_capture(char *const argv[], bool with_stderr, char *out, size_t len);

/* "sm_90a" for compute capability 9.0, "sm_80" for 8.0, ... */
void ld_arch_for(int major, int minor, char *out, size_t len);

/* Whether s is "sm_NN" or "sm_NNa". */
bool ld_arch_valid(const char *s);

/* The -gencode argument for an arch: "-gencode=arch=compute_90a,code=sm_90a". */
void ld_gencode(const char *arch, char *out, size_t len);
/* PTX only: "-gencode=arch=compute_80,code=compute_80". */
void ld_gencode_ptx(const char *arch, char *out, size_t len);

#endif
