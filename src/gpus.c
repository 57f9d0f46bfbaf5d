/* gpus.c — the judge's GPUs and a file judged for each. The table is the site's (see
 * shared/ANCHORS.md, "The judge's GPUs"); every compile verdict comes from a real SASS build for
 * the target, never a PTX-only one (ptxas would not run, so arch-specific PTX would "compile"). */
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

/* nvcc's first error line from a failed build's log ("" when there is none). */
static void gp_first_error(const ld_build *b, char *out, size_t len)
{
    out[0] = '\0';
    char *log = ld_read_text(b->log_path, NULL);
    if (!log) return;
    for (char *line = log, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        /* nvcc's "f.cu(12): error: ...", ptxas's "...; error   : ...", "nvcc fatal": not a
         * warning or a path that happens to hold the word */
        if (strstr(line, "): error") || strstr(line, "; error") || strstr(line, "fatal")) {
            snprintf(out, len, "%s", line);
            break;
        }
    }
    if (!out[0]) snprintf(out, len, "%s", b->error);
    free(log);
}

/* A row from one jd_judge result. */
static void gp_fill_row(gp_row *row, const jd_result *r, const dv_info *dev, gp_how how)
{
    row->exit_code = r->exit_code;
    row->status = r->status;
    snprintf(row->detail, sizeof(row->detail), "%s", r->detail);
    if (!dev->present) {
        snprintf(row->ran_here, sizeof(row->ran_here), "no: no CUDA device");
        return;
    }
    if (how == GP_RUN_NONE) {
        snprintf(row->ran_here, sizeof(row->ran_here), "no: %s code cannot run on %s (sm_%d%d)",
                 row->gpu->arch, dev->name, dev->cc_major, dev->cc_minor);
        return;
    }
    row->ran = r->ran && r->run.outcome == RN_OK;
    if (!row->ran) {
        snprintf(row->ran_here, sizeof(row->ran_here), "no: %s", rs_status_name(r->status));
        return;
    }
    if (how == GP_RUN_SASS)
        snprintf(row->ran_here, sizeof(row->ran_here), "yes, as SASS");
    else
        snprintf(row->ran_here, sizeof(row->ran_here), "yes, as compute_%s PTX on %s",
                 row->gpu->arch + 3, dev->name);
    for (size_t t = 0; t < r->run.n_tests; t++) {
        const rs_test *tt = &r->run.tests[t];
        bool pass = tt->status == RS_SUCCESS;
        if (tt->set == PB_SET_EXTRA) {
            row->extra_n++;
            row->extra_pass += pass;
        } else {
            row->judge_n++;
            row->judge_pass += pass;
        }
        if (tt->set == PB_SET_PERFORMANCE && tt->timing.done && !row->timed) {
            row->timed = true;
            row->perf_ms = rs_reported_ms(&tt->timing);
        }
    }
}

int gp_judge_all(const jd_options *o_in, gp_matrix *m)
{
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < GP_N; i++) m->rows[i].gpu = &gp_table[i];

    /* the file's own errors first: nothing is compiled for a bad file or signature */
    jd_options o = *o_in;
    o.check_only = true;
    o.gpu = NULL;
    jd_result pre;
    int code = jd_judge(&o, &pre);
    m->problem = pre.problem;
    snprintf(m->detail, sizeof(m->detail), "%s", pre.detail);
    jd_free(&pre);
    if (code != HX_SUCCESS) return m->exit_code = code;
    o.check_only = false;
    o.arch = NULL;
    o.quiet = true; /* one line for all the compiles, not one each */

    /* every distinct target's SASS build at once (and the PTX builds this GPU will run) */
    rn_probe(&m->device, 60.0);
    const char *targets[GP_N];
    size_t nt = gp_targets(targets, GP_N);
    gp_job jobs[2 * GP_N];
    size_t nj = 0;
    for (size_t t = 0; t < nt; t++) {
        jobs[nj++] = (gp_job){.src = o.solution,
                              .lo = {.arch = targets[t], .extra_flags = o.nvcc_flags,
                                     .cache_dir = o.cache_dir, .rebuild = o.rebuild, .quiet = true}};
        if (m->device.present &&
            gp_how_runs(targets[t], m->device.cc_major, m->device.cc_minor) == GP_RUN_PTX) {
            jobs[nj] = jobs[nj - 1];
            jobs[nj++].lo.ptx_only = true;
        }
    }
    if (!o_in->quiet) fprintf(stderr, "compiling %s for %zu targets with nvcc, side by side...\n",
                              o.solution, nt);
    gp_build_all(jobs, nj, 0);
    o.rebuild = false; /* just built: the runs below take the cached objects */

    /* one judged run per distinct target; the GPUs that share it share its row */
    bool compile_failed = false;
    int first_bad = HX_SUCCESS;
    for (size_t t = 0; t < nt; t++) {
        const gp_job *sass = NULL;
        for (size_t j = 0; j < nj && !sass; j++)
            if (strcmp(jobs[j].lo.arch, targets[t]) == 0 && !jobs[j].lo.ptx_only) sass = &jobs[j];
        gp_row row = {0};
        if (sass->status != LD_OK) {
            row.exit_code = sass->status == LD_COMPILE_ERROR ? HX_COMPILE : HX_INTERNAL;
            row.status = sass->status == LD_COMPILE_ERROR ? RS_COMPILE_ERROR : RS_ERROR;
            gp_first_error(&sass->build, row.compile_error, sizeof(row.compile_error));
            snprintf(row.ran_here, sizeof(row.ran_here), "no: it does not compile");
            snprintf(row.detail, sizeof(row.detail), "%s", sass->build.error);
            compile_failed = compile_failed || row.exit_code == HX_COMPILE;
            if (row.exit_code != HX_COMPILE && first_bad == HX_SUCCESS) first_bad = row.exit_code;
        } else {
            row.compiled = true;
            const gp_gpu *g = NULL;
            for (size_t i = 0; i < GP_N && !g; i++)
                if (strcmp(gp_table[i].arch, targets[t]) == 0) g = &gp_table[i];
            o.gpu = g->name;
            row.gpu = g;
            if (!o_in->quiet) fprintf(stderr, "judging %s as %s (%s)...\n", o.solution, g->name, g->arch);
            jd_result r;
            jd_judge(&o, &r);
            gp_how how = m->device.present
                             ? gp_how_runs(g->arch, m->device.cc_major, m->device.cc_minor)
                             : GP_RUN_NONE;
            gp_fill_row(&row, &r, &m->device, how);
            jd_free(&r);
            if (row.exit_code != HX_SUCCESS && row.exit_code != HX_NO_DEVICE &&
                row.exit_code != HX_CANNOT_RUN && first_bad == HX_SUCCESS)
                first_bad = row.exit_code;
        }
        for (size_t i = 0; i < GP_N; i++) {
            if (strcmp(gp_table[i].arch, targets[t]) != 0) continue;
            const gp_gpu *keep = &gp_table[i];
            m->rows[i] = row;
            m->rows[i].gpu = keep;
        }
    }
    if (compile_failed) return m->exit_code = HX_COMPILE;
    if (first_bad != HX_SUCCESS) return m->exit_code = first_bad;
    if (!m->device.present) return m->exit_code = HX_NO_DEVICE;
    return m->exit_code = HX_SUCCESS;
}
