/* cli.h — the judge's command line as data: argv to options, or a usage error (exit 2 and one
 * line naming the option), with nothing printed and nothing exited, so that main.c prints and the
 * parsers can be called (and fuzzed) in-process. */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "inspect.h"
#include "judge.h"

typedef struct {
    jd_options o;         /* the options (pointers into argv); o.cache_dir is the caller's */
    in_request inspect;   /* the inspection modes asked for */
    bool json;            /* --json as an option on the line: every exit prints one JSON object */
    bool gpu_all;         /* --gpu all */
    bool help, version;   /* print that and exit 0; nothing else was checked */
    char error[512];      /* the usage error's one line, "" when none */
} cl_args;

/* Parse argv (argv[0] the program; getopt_long may reorder the rest). HX_SUCCESS, or HX_USAGE
 * with a->error set. a->json is set whenever --json is on the line as an option (abbreviated as
 * getopt_long allows, not as another option's value), even when parsing fails before it. */
int cl_parse(int argc, char **argv, cl_args *a);

/* --arch against what this toolkit compiles for (`nvcc --list-gpu-arch`): HX_SUCCESS, or
 * HX_USAGE with a->error naming the supported ones. Unknown (no nvcc, no list): HX_SUCCESS, and
 * the compile says what is wrong. */
int cl_check_arch(cl_args *a);

/* The most words --nvcc-flags may hold (the builds' argv keep room for 80). */
#define CL_MAX_NVCC_FLAGS 64

/* The strict number parsers every command's options share (the leaderboard's too). A whole
 * number in [lo, hi]: digits only, no sign, space, exponent or fraction. */
bool cl_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A decimal number in [lo, hi]: [+-]digits[.digits][e[+-]digits], nothing around it (no
 * spaces, hex, inf or nan, which strtod would take). */
bool cl_parse_decimal(const char *s, double lo, double hi, double *out);

/* The --help text. */
void cl_usage(FILE *out);

#endif
