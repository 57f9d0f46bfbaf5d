/* gpus.c — the judge's GPUs: their targets, how this GPU runs each, compiles side by side. The
 * table is the site's (see shared/ANCHORS.md, "The judge's GPUs"); every compile verdict comes
 * from a real SASS build for the target, never a PTX-only one (ptxas would not run, so
 * arch-specific PTX would "compile"). */
#include "gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const gp_gpu gp_table[GP_N] = {
    {"T4", "T4", "sm_75"},
    {"A100", "A100-80GB", "sm_80"},
    {"H100", "H100", "sm_90a"},
    {"H200", "H200", "sm_90a"},
    {"B200", "B200", "sm_100a"},
};

size_t gp_count(void) { return GP_N; }

const gp_gpu *gp_at(size_t i) { return i < GP_N ? &gp_table[i] : NULL; }

const gp_gpu *gp_find(const char *name)
{
    for (size_t i = 0; i < GP_N; i++)
        if (strcasecmp(name, gp_table[i].name) == 0 || strcasecmp(name, gp_table[i].model) == 0)
            return &gp_table[i];
    return NULL;
}

void gp_list(char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (size_t i = 0; i < GP_N && u < len; i++)
        u += (size_t)snprintf(out + u, len - u, "%s%s", i ? ", " : "", gp_table[i].name);
}

void gp_names_for_arch(const char *arch, char *out, size_t len)
{
    size_t u = 0;
    out[0] = '\0';
    for (size_t i = 0; i < GP_N && u < len; i++)
        if (strcmp(arch, gp_table[i].arch) == 0)
            u += (size_t)snprintf(out + u, len - u, "%s%s", u ? " " : "", gp_table[i].name);
}

size_t gp_targets(const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < GP_N; i++) {
        bool seen = false;
        for (size_t j = 0; j < n; j++) seen = seen || strcmp(out[j], gp_table[i].arch) == 0;
        if (!seen && n < max) out[n++] = gp_table[i].arch;
    }
    return n;
}

gp_how gp_how_runs(const char *arch, int major, int minor)
{
    const char *p = arch + 3; /* "sm_" */
    int v = atoi(p);
    while (*p >= '0' && *p <= '9') p++;
    bool specific = *p == 'a' || *p == 'f'; /* arch-specific code: that chip only, no PTX path */
    int tmaj = v / 10, tmin = v % 10;
    if (specific) return major == tmaj && minor == tmin ? GP_RUN_SASS : GP_RUN_NONE;
    /* SASS runs on the same major at an equal or later minor; PTX on any later chip */
    if (major == tmaj && minor >= tmin) return GP_RUN_SASS;
    if (major > tmaj) return GP_RUN_PTX;
    return GP_RUN_NONE;
}

void gp_build_all(gp_job *jobs, size_t n, int parallel)
{
    if (parallel <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        parallel = cpus > 0 ? (int)cpus : 1;
    }
    size_t next = 0, done = 0;
    int running = 0;
    bool *live = calloc(n ? n : 1, sizeof(bool));
    if (!live) { /* no memory for the bookkeeping: one at a time */
        for (size_t i = 0; i < n; i++)
            jobs[i].status = ld_build_solution(&jobs[i].lo, jobs[i].src, &jobs[i].build);
        return;
    }
    while (done < n) {
        while (next < n && running < parallel) {
            gp_job *j = &jobs[next];
            j->status = ld_build_start(&j->lo, j->src, &j->build);
            if (j->status == LD_OK && j->build.pid > 0) {
                live[next] = true;
                running++;
            } else {
                done++; /* cached, or failed before nvcc started */
            }
            next++;
        }
        bool reaped = false;
        for (size_t i = 0; i < next; i++) {
            if (!live[i] || !ld_build_poll(&jobs[i].build, &jobs[i].status)) continue;
            live[i] = false;
            running--;
            done++;
            reaped = true;
        }
        if (!reaped && done < n) nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    free(live);
}

void gp_judge_gpus(const char *const *files, size_t n, const char *nvcc_flags,
                   const char *cache_dir, char (*out)[64])
{
    const char *targets[GP_N];
    size_t nt = gp_targets(targets, GP_N);
    gp_job *jobs = calloc(n * nt > 0 ? n * nt : 1, sizeof(gp_job));
    for (size_t i = 0; i < n; i++) snprintf(out[i], 64, "?");  /* unknown until built */
    if (!jobs) return;
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < nt; t++)
            jobs[i * nt + t] = (gp_job){.src = files[i],
                                        .lo = {.arch = targets[t], .extra_flags = nvcc_flags,
                                               .cache_dir = cache_dir, .quiet = true}};
    gp_build_all(jobs, n * nt, 0);
    /* only a compile error leaves a GPU out; a build the harness could not run (no nvcc, cache
     * unwritable) is marked "?", never passed off as "does not compile" */
    for (size_t i = 0; i < n; i++) {
        size_t u = 0;
        out[i][0] = '\0';
        for (size_t g = 0; g < GP_N; g++) {
            size_t t = 0;
            while (t < nt && strcmp(targets[t], gp_table[g].arch) != 0) t++;
            ld_status st = jobs[i * nt + t].status;
            if (st != LD_COMPILE_ERROR && u < 64)
                u += (size_t)snprintf(out[i] + u, 64 - u, "%s%s%s", u ? " " : "", gp_table[g].name,
                                      st == LD_OK ? "" : "?");
        }
    }
    free(jobs);
}
