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
    /* --json (rq->json): no text on stdout; the modes write their members and notes here, and
     * in_json_finish prints the one object (json.c) */
    FILE *jm, *jn;           /* memstreams: members ("resources":{...},), notes ("...",) */
    char *jm_buf, *jn_buf;
    size_t jm_len, jn_len;
    char error[512];         /* the failure's one line (the object's "error") */
} in_ctx;

/* dispatch.c: the failure's line: on stderr as "harness: LINE", kept for --json. Returns code. */
int in_fail(in_ctx *cx, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* json.c: --json's object. in_json_open: the member and note streams (false: no memory).
 * in_json_note: one note (a missing tool's line, a cross-check that disagrees). in_json_mix: a
 * mix as "functions":[...]. in_json_finish: print {"solution","arch", the members, "notes",
 * "exit_code","error"} on stdout, free the streams; returns code. */
bool in_json_open(in_ctx *cx);
void in_json_note(in_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void in_json_mix(FILE *j, const in_mix *m, bool sass);
/* An array entry's opening: {"name":...,"display":... (a comma before it unless first). */
void in_json_named(FILE *j, bool first, const char *name, const char *display);
/* The "ptx" member: the cached build's PTX file, its target and mix. */
void in_json_ptx(in_ctx *cx);
int in_json_finish(in_ctx *cx, int code);
/* A missing tool's line (tools.c's in_tool_missing_line): on stdout, or a note with --json. */
void in_missing(in_ctx *cx, const char *mode, const char *name, const char *env, const char *consequence);

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
