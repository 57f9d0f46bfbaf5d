/* modes.h — inside src/inspect/ only: what the modes share. dispatch.c builds one in_ctx per
 * `harness --resources/--ptx/--sass/--sanitize/--profile` and hands it to each mode in turn. */
#ifndef INSPECT_MODES_H
#define INSPECT_MODES_H

#include <limits.h>
#include <stdbool.h>

#include "inspect.h"
#include "loader.h"

typedef struct {
    const jd_options *o;
    const in_request *rq;
    char arch[16];
    ld_build build;
    char stem[PATH_MAX];     /* build/cache/NAME-HASH: the cached object without ".so" */
    char nvcc[PATH_MAX];
    in_mix ptx;
    bool have_ptx;
} in_ctx;

/* compile.c: run nvcc with the cached build's flags plus `what` (-ptx / -cubin -Xptxas -v; the word
 * GENCODE stands for the build's -gencode) into dest (atomically), its output in log. Cached:
 * nothing runs when dest exists. */
bool in_nvcc(in_ctx *cx, const char *mode, const char *const *what, const char *dest, const char *log);
/* compile.c: the PTX of the cached build (STEM.ptx) into cx->ptx: --ptx prints its mix; the others
 * take the kernels' names and launch bounds from it. */
bool in_load_ptx(in_ctx *cx);

/* The inner harness's arguments: what the user asked for, less the inspection, plus the mode's
 * defaults (the tests to run, no timing, a longer time limit under the sanitizer). */
typedef struct {
    const char *argv[64];
    int argc;
    char size[64], alpha[32], beta[32], timeout[32], seed[32], tests[96];
} in_inner;

/* inner.c */
void in_inner_args(const in_ctx *cx, bool sanitize, in_inner *in);
/* inner.c: the running harness binary's path (/proc/self/exe). */
bool in_self(char *out, size_t len);

/* One mode each; the exit code (HX_*). tool: the run-time tool's path in_main found. */
int in_run_resources(in_ctx *cx);
int in_run_sass(in_ctx *cx);
int in_run_sanitize(in_ctx *cx, const char *tool);
int in_run_profile(in_ctx *cx, const char *ncu);

#endif
