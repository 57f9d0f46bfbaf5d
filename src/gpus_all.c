/* gpus_all.c — --gpu all: one file judged for every judge GPU (jd_judge per distinct target,
 * compiled side by side). Apart from gpus.c, which the judge itself calls, so the two do not
 * call each other. */
#include "gpus_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The first test with a verdict other than passed or not run (NULL when none, or none ran). */
static const rs_test *gp_first_failure(const jd_result *r)
{
    for (size_t t = 0; r->ran && t < r->run.n_tests; t++)
        if (r->run.tests[t].status != RS_SUCCESS && r->run.tests[t].status != RS_NOT_RUN)
            return &r->run.tests[t];
    return NULL;
}

/* A row from one jd_judge result. */
static void gp_fill_row(gp_row *row, const jd_result *r, const dv_info *dev, gp_how how)
{
    row->exit_code = r->exit_code;
    row->status = r->status;
    snprintf(row->detail, sizeof(row->detail), "%s", r->detail);
    if (!dev->present || how == GP_RUN_NONE) {
        char why[200];
        if (!dev->present)
            snprintf(why, sizeof(why), "no CUDA device");
        else
            snprintf(why, sizeof(why), "%s code cannot run on %s (sm_%d%d)", row->gpu->arch,
                     dev->name, dev->cc_major, dev->cc_minor);
        /* the object was still loaded (its constructors ran): a failure there is the row's
         * verdict, and with no test of the row's shown, the row says it (its detail, the error) */
        const rs_test *t = gp_first_failure(r);
        row->load_failed = t || (r->ran && r->run.outcome == RN_LOAD_FAILED &&
                                 r->exit_code == HX_ERROR); /* dlopen's own error: in detail */
        if (!row->load_failed) {
            snprintf(row->ran_here, sizeof(row->ran_here), "no: %s", why);
            return;
        }
        snprintf(row->ran_here, sizeof(row->ran_here), "no: %s; loading it: %s", why,
                 rs_status_name(t ? t->status : r->status));
        if (!row->detail[0] && t) snprintf(row->detail, sizeof(row->detail), "%s", t->detail);
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

/* m->error from the exit code and the rows: the first row with that code says why, unless its
 * code is its tests' verdict (no detail; a load that failed where no test ran has one). The rows
 * are in gp_targets' order, as first_bad was. */
static void gp_set_error(gp_matrix *m, const char *solution)
{
    m->error[0] = '\0';
    if (m->exit_code == HX_NO_DEVICE) {
        snprintf(m->error, sizeof(m->error),
                 "no CUDA device found (%s): %s compiled for every judge GPU, but nothing was run",
                 m->device.error[0] ? m->device.error : "none", solution);
        return;
    }
    for (size_t i = 0; i < GP_N; i++) {
        const gp_row *row = &m->rows[i];
        if (row->exit_code != m->exit_code) continue;
        if (row->exit_code == HX_COMPILE && !row->compiled)
            snprintf(m->error, sizeof(m->error), "%s: does not compile (%s)", row->gpu->arch,
                     row->compile_error[0] ? row->compile_error : row->detail);
        else if (row->detail[0])
            snprintf(m->error, sizeof(m->error), "%s: %s", row->gpu->arch, row->detail);
        return;
    }
}

int gp_judge_all(const jd_options *o_in, gp_matrix *m)
{
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < GP_N; i++) m->rows[i].gpu = gp_at(i);

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
                if (strcmp(gp_at(i)->arch, targets[t]) == 0) g = gp_at(i);
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
            if (strcmp(gp_at(i)->arch, targets[t]) != 0) continue;
            const gp_gpu *keep = gp_at(i);
            m->rows[i] = row;
            m->rows[i].gpu = keep;
        }
    }
    if (compile_failed) m->exit_code = HX_COMPILE;
    else if (first_bad != HX_SUCCESS) m->exit_code = first_bad;
    else m->exit_code = m->device.present ? HX_SUCCESS : HX_NO_DEVICE;
    gp_set_error(m, o.solution);
    return m->exit_code;
}
