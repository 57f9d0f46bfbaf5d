/* cli.h — the judge's command line as data: argv to options, or a usage error (exit 2 and one
 * line naming the option), with nothing printed and nothing exited, so that main.c prints and the
 * parsers can be called (and fuzzed) in-process. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "inspect.h"
#include "judge.h"

typedef struct {
    jd_options o;         /* the options (pointers into argv); o.cache_dir is the caller's */
    in_request inspect;   /* the inspection modes asked for */
    bool json;            /* --json anywhere on the line: every exit prints one JSON object */
    bool gpu_all;         /* --gpu all */
    bool help, version;   /* print that and exit 0; nothing else was checked */
    char error[512];      /* the usage error's one line, "" when none */
} cl_args;

/* Parse argv (argv[0] the program; getopt_long may reorder the rest). HX_SUCCESS, or HX_USAGE
 * with a->error set. a->json is set whenever --json is on the line, even when parsing fails. */
int cl_parse(int argc, char **argv, cl_args *a);

/* --arch against what this toolkit compiles for (`nvcc --list-gpu-arch`): HX_SUCCESS, or
 * HX_USAGE with a->error naming the supported ones. Unknown (no nvcc, no list): HX_SUCCESS, and
 * the compile says what is wrong. */
int cl_check_arch(cl_args *a);

/* The --help text. */
void cl_usage(FILE *out);

#endif
