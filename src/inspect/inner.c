/* inner.c — the harness that --sanitize and --profile run under their tool: its own path and its
 * command line (what the user asked for, less the inspection, plus the mode's defaults). */
#include "modes.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void in_inner_args(const in_ctx *cx, bool sanitize, in_inner *in)
{
    const jd_options *o = cx->o;
    in->argc = 0;
    in->argv[in->argc++] = "--arch";
    in->argv[in->argc++] = cx->arch;
    in->argv[in->argc++] = "--no-timing";
    if (o->custom) {
        snprintf(in->size, sizeof(in->size), "%s", o->size);
        snprintf(in->alpha, sizeof(in->alpha), "%.9g", o->alpha);
        snprintf(in->beta, sizeof(in->beta), "%.9g", o->beta);
        const char *a[] = {"--size", in->size, "--alpha", in->alpha, "--beta", in->beta};
        for (size_t i = 0; i < 6; i++) in->argv[in->argc++] = a[i];
        if (o->any_size) in->argv[in->argc++] = "--no-constraints";
    } else {
        bool all = true;
        for (int s = 0; s < PB_N_SETS; s++) all = all && o->sets[s];
        if (all) {
            snprintf(in->tests, sizeof(in->tests), "%s", sanitize ? "example,functional,extra" : "perf");
        } else {
            static const struct { pb_set s; const char *name; } names[] = {
                {PB_SET_EXAMPLE, "example"}, {PB_SET_FUNCTIONAL, "functional"},
                {PB_SET_PERFORMANCE, "perf"}, {PB_SET_EXTRA, "extra"}};
            in->tests[0] = '\0';
            for (size_t i = 0; i < 4; i++)
                if (o->sets[names[i].s]) {
                    size_t u = strlen(in->tests);
                    snprintf(in->tests + u, sizeof(in->tests) - u, "%s%s", u ? "," : "", names[i].name);
                }
        }
        in->argv[in->argc++] = "--tests";
        in->argv[in->argc++] = in->tests;
    }
    /* the tools slow kernels down by 10-100x: the normal 10 s per test is too short */
    snprintf(in->timeout, sizeof(in->timeout), "%g", o->timeout_s != 10.0 ? o->timeout_s : sanitize ? 600.0 : 120.0);
    in->argv[in->argc++] = "--timeout";
    in->argv[in->argc++] = in->timeout;
    if (o->problem) {
        in->argv[in->argc++] = "--problem";
        in->argv[in->argc++] = o->problem;
    }
    if (o->nvcc_flags) {
        in->argv[in->argc++] = "--nvcc-flags";
        in->argv[in->argc++] = o->nvcc_flags;
    }
    if (o->seed) {
        snprintf(in->seed, sizeof(in->seed), "%llu", (unsigned long long)o->seed);
        in->argv[in->argc++] = "--seed";
        in->argv[in->argc++] = in->seed;
    }
    if (!sanitize || o->quiet) in->argv[in->argc++] = "-q";
}

bool in_self(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0) return false;
    out[n] = '\0';
    return true;
}
