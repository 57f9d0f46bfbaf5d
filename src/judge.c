/* judge.c — one solution file from source to verdict. */
#include "judge.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const pb_problem *jd_infer_problem(const sig_info *sig)
{
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        if (sig_compare(sig, p->param_types, p->n_params) != SIG_MISMATCH) return p;
    }
    return NULL;
}

void jd_default_options(jd_options *o)
{
    memset(o, 0, sizeof(*o));
    for (int s = 0; s < PB_N_SETS; s++) o->sets[s] = true;
    o->alpha = 1.0f;
    o->beta = 1.0f;
    o->timing = true;
    o->timeout_s = 10.0;
    o->topts = (rn_timing_opts){.warmup = 5, .min_runs = 30, .max_runs = 2000, .max_time_s = 1.0,
                                .noise_target_pct = 1.0, .flush_l2 = false, .baseline = false};
}

/* build/cache beside the harness binary, unless $HARNESS_CACHE says otherwise. */
void jd_cache_dir(char *out, size_t len)
{
    const char *env = getenv("HARNESS_CACHE");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        snprintf(out, len, ".harness-cache");
        return;
    }
    exe[n] = '\0';
    snprintf(out, len, "%s/cache", dirname(exe));
}

void jd_timing_note(const rn_timing_opts *t, char *buf, size_t len)
{
    snprintf(buf, len,
             "timed with CUDA events around each solve call: %d warm-up calls, then repeated until "
             "the noise is under %.1f%% (at least %d runs) or %.1f s pass; median reported; C "
             "restored before each call; same inputs every call; L2 %s",
             t->warmup, t->noise_target_pct, t->min_runs, t->max_time_s,
             t->flush_l2 ? "flushed before each call" : "not flushed");
}

/* The solution's text: a readable regular file (a folder named x.cu is a bad file, not a crash). */
static bool jd_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        return false;
    }
    *text = ld_read_text(path, len);
    if (!*text) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

static int jd_exit_for(rs_status s)
{
    switch (s) {
    case RS_SUCCESS:
    case RS_NOT_RUN: return HX_SUCCESS;
    case RS_FAILED: return HX_FAILED;
    case RS_TIMEOUT: return HX_TIMEOUT;
    case RS_OOM: return HX_OOM;
    case RS_COMPILE_ERROR: return HX_COMPILE;
    case RS_ERROR: return HX_ERROR;
    }
    return HX_ERROR;
}

/* The plan's items: the selected tables in order, or the user's one size. */
static bool jd_items(const jd_options *o, jd_result *r)
{
    const pb_problem *p = r->problem;
    size_t n = 0;
    if (o->custom) {
        n = 1;
    } else {
        for (int s = 0; s < PB_N_SETS; s++)
            if (o->sets[s])
                n += s == PB_SET_PERFORMANCE && o->override_perf ? o->n_override_perf : p->n_cases[s];
    }
    r->items = calloc(n ? n : 1, sizeof(rn_item));
    if (!r->items) return false;
    if (o->custom) {
        pb_case c = {.name = "custom", .m = o->m, .n = o->n, .k = o->k,
                     .alpha = o->alpha, .beta = o->beta,
                     .a = {PB_FILL_UNIFORM, -1, 1, NULL}, .b = {PB_FILL_UNIFORM, -1, 1, NULL},
                     .c = {p->c_role == PB_C_OUT ? PB_FILL_NAN : PB_FILL_UNIFORM, -1, 1, NULL},
                     .seed = 777};
        if (!p->has_alpha_beta) c.alpha = 1, c.beta = 0;
        r->items[0] = (rn_item){c, PB_SET_PERFORMANCE, o->timing};
        r->n_items = 1;
        return true;
    }
    /* the judge's order: example, functional, performance; then the harness's extras */
    const pb_set order[] = {PB_SET_EXAMPLE, PB_SET_FUNCTIONAL, PB_SET_PERFORMANCE, PB_SET_EXTRA};
    for (size_t oi = 0; oi < 4; oi++) {
        pb_set s = order[oi];
        if (!o->sets[s]) continue;
        const pb_case *cases = p->cases[s];
        size_t nc = p->n_cases[s];
        if (s == PB_SET_PERFORMANCE && o->override_perf) {
            cases = o->override_perf;
            nc = o->n_override_perf;
        }
        for (size_t i = 0; i < nc; i++)
            r->items[r->n_items++] =
                (rn_item){cases[i], s, s == PB_SET_PERFORMANCE && o->timing};
    }
    return true;
}

int jd_judge(const jd_options *o, jd_result *r)
{
    memset(r, 0, sizeof(*r));
    r->status = RS_ERROR;

    /* 1. the file */
    size_t len = strlen(o->solution);
    if (len < 4 || strcmp(o->solution + len - 3, ".cu") != 0) {
        snprintf(r->detail, sizeof(r->detail), "%s: not a .cu file", o->solution);
        return r->exit_code = HX_BAD_FILE;
    }
    char *src = NULL;
    size_t src_len = 0;
    if (!jd_read_file(o->solution, &src, &src_len, r->detail, sizeof(r->detail)))
        return r->exit_code = HX_BAD_FILE;
    sig_read(src, src_len, &r->sig);
    free(src);

    /* 2. the problem: named, or inferred from the declared signature */
    if (o->problem) {
        r->problem = pb_find(o->problem);
        if (!r->problem) {
            snprintf(r->detail, sizeof(r->detail), "unknown problem '%s'", o->problem);
            return r->exit_code = HX_USAGE;
        }
    } else {
        r->problem = r->sig.found ? jd_infer_problem(&r->sig) : NULL;
        if (!r->problem) r->problem = pb_find("gemm_fp16");
    }
    const pb_problem *p = r->problem;
    if (r->sig.found) {
        sig_verdict v = sig_compare(&r->sig, p->param_types, p->n_params);
        if (v == SIG_MISMATCH) {
            char want[512];
            sig_format(p->param_types, p->n_params, want, sizeof(want));
            snprintf(r->detail, sizeof(r->detail),
                     "signature mismatch: %s:%d declares %s, but %s needs %s", o->solution,
                     r->sig.line, r->sig.text, p->name, want);
            return r->exit_code = HX_SIGNATURE;
        }
        if (v == SIG_MATCH_CONST && !o->quiet)
            fprintf(stderr, "warning: %s:%d: solve's const qualifiers differ from the site's "
                            "(%s); same ABI, accepted\n",
                    o->solution, r->sig.line, p->signature);
        if (!r->sig.extern_c && !o->quiet)
            fprintf(stderr, "warning: %s:%d: solve is not declared extern \"C\": its symbol will "
                            "be mangled and not found\n",
                    o->solution, r->sig.line);
    } else if (!o->quiet) {
        fprintf(stderr, "warning: no solve(...) declaration found in %s; assuming %s\n",
                o->solution, p->name);
    }
    if (o->custom && !o->any_size && !pb_size_ok(p, o->m, o->n, o->k)) {
        snprintf(r->detail, sizeof(r->detail),
                 "size %dx%dx%d is outside %s's constraints (%d <= M, N, K <= %d; --no-constraints to time it anyway)", o->m, o->n,
                 o->k, p->name, p->min_dim, p->max_dim);
        return r->exit_code = HX_BAD_SIZE;
    }

    /* 3. the architecture: given, or the device's (asked of a child) */
    if (o->arch) {
        snprintf(r->arch, sizeof(r->arch), "%s", o->arch);
    } else {
        dv_info info;
        if (rn_probe(&info, 60.0))
            ld_arch_for(info.cc_major, info.cc_minor, r->arch, sizeof(r->arch));
        else
            snprintf(r->arch, sizeof(r->arch), "sm_90a"); /* no device: the project's target */
    }

    /* 4. compile (or reuse the cached object) */
    ld_options lo = {.arch = r->arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                     .rebuild = o->rebuild, .quiet = o->quiet};
    ld_status ls = ld_build_solution(&lo, o->solution, &r->build);
    r->built = ls == LD_OK;
    if (ls == LD_COMPILE_ERROR) {
        r->status = RS_COMPILE_ERROR;
        snprintf(r->detail, sizeof(r->detail), "%s", r->build.error);
        return r->exit_code = HX_COMPILE;
    }
    if (ls != LD_OK) {
        snprintf(r->detail, sizeof(r->detail), "%s", r->build.error);
        return r->exit_code = HX_INTERNAL;
    }

    /* 5. run */
    if (!jd_items(o, r)) {
        snprintf(r->detail, sizeof(r->detail), "out of memory");
        return r->exit_code = HX_INTERNAL;
    }
    rn_plan plan = {.problem = p, .so_path = r->build.so_path, .items = r->items,
                    .n_items = r->n_items, .timeout_s = o->timeout_s, .seed = o->seed,
                    .timing = o->topts, .progress = o->progress};
    rn_outcome out = rn_run(&plan, &r->run);
    r->ran = true;
    switch (out) {
    case RN_OK:
        r->status = rn_overall(&r->run);
        return r->exit_code = jd_exit_for(r->status);
    case RN_NO_DEVICE:
        r->status = RS_NOT_RUN;
        snprintf(r->detail, sizeof(r->detail),
                 "no CUDA device found (%s): %s compiled for %s and its solve was found, but "
                 "nothing was run",
                 r->run.detail, o->solution, r->arch);
        return r->exit_code = HX_NO_DEVICE;
    case RN_NO_SOLVE:
        snprintf(r->detail, sizeof(r->detail),
                 "no symbol 'solve' in the compiled object%s: declare it as %s",
                 r->sig.found && !r->sig.extern_c ? " (solve is declared without extern \"C\", so "
                                                     "its name is mangled)"
                                                   : "",
                 p->signature);
        return r->exit_code = HX_NO_SOLVE;
    case RN_LOAD_FAILED:
        snprintf(r->detail, sizeof(r->detail), "cannot load the compiled object: %s", r->run.detail);
        return r->exit_code = HX_ERROR;
    case RN_INTERNAL:
        snprintf(r->detail, sizeof(r->detail), "harness: %s", r->run.detail);
        return r->exit_code = HX_INTERNAL;
    }
    return r->exit_code = HX_INTERNAL;
}

void jd_free(jd_result *r)
{
    if (r->ran) rn_free(&r->run);
    free(r->items);
    r->items = NULL;
}
