/* util.h — shared by the test suites: run the harness binary, read files, GPU skip. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "wire.h"

/* Run HARNESS_BIN with args (NULL-terminated), capturing stdout+stderr into out. Returns the
 * exit code (or 128+signal). HARNESS_CACHE points at the suite's scratch cache. */
int tu_run_harness(char *out, size_t outlen, const char *const *args);

/* Run a shell command line, capturing output; returns the exit code. */
int tu_run_shell(char *out, size_t outlen, const char *cmd);

/* malloc'd file contents, or NULL. */
char *tu_slurp(const char *path);
bool tu_write(const char *path, const char *text);

/* Whether a CUDA device is usable (asked of a child process); reason when not. */
bool tu_have_gpu(char *reason, size_t len);

/* A GPU suite's .init: without a device, skip the test and say why. */
void tu_need_gpu(void);

/* A case's buffers on the host, sized by the harness's own layout (wr_layout_for) and filled
 * as the parent fills them (gen_inputs with seed); const views for references. */
typedef struct {
    wr_layout l;
    void *buf[PB_MAX_BUFS];
    const void *in[PB_MAX_BUFS];
} tu_bufs;
void tu_bufs_make(const pb_problem *p, const pb_case *c, uint64_t seed, tu_bufs *t);
void tu_bufs_free(tu_bufs *t);

#endif
