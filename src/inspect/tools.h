/* tools.h — inside src/inspect/ only: finding and running the CUDA tools (tools.c). */
#ifndef INSPECT_TOOLS_H
#define INSPECT_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

/* Run argv (no shell) with env ("NAME", "VALUE", ..., NULL) added; out: NULL inherits stdout and
 * stderr, else both go to that file. The exit status, 128 + a signal, or -1 when it never ran. */
int in_spawn(char *const argv[], const char *const env[], const char *out);
/* The same with stdin from the file in (NULL: inherited). */
int in_spawn_io(char *const argv[], const char *const env[], const char *in, const char *out);

/* A CUDA tool: $ENV when set (then only there, so that a test can hide a tool), else PATH, nvcc's
 * folder, $CUDA_HOME/bin, /usr/local/cuda/bin. */
bool in_find_tool(const char *name, const char *env, char *out, size_t len);

/* The one line for a missing tool (into out, without "harness: "): where it was looked for, and
 * what the mode does without it. */
void in_tool_missing_line(char *out, size_t len, const char *mode, const char *name, const char *env,
                          const char *consequence);

/* An empty scratch file under $TMPDIR (or /tmp); its path in path. */
bool in_tmpfile(char *path, size_t len);

/* A name to demangle and where its shortened demangled form goes. */
typedef struct {
    const char *mangled;
    char *out;
    size_t len;
} in_dm;

/* Demangle through c++filt when it exists (the names on its stdin, one a line; only names of a
 * symbol's characters [A-Za-z0-9_$.]); otherwise, and for any other name, they stay mangled. */
void in_demangle(in_dm *d, size_t n);

#endif
