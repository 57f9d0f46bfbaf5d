/* judge.c — one solution file from source to verdict. */
#include "judge.h"
#include "gpus.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

#include "judge_int.h"
#include "wire.h"

/* The first call in each solution process of a PTX-only build (--gpu T4/A100 on a newer GPU)
 * gets this much more than --timeout: the driver compiles the PTX then (run 91: ~20 s for int4
 * 03; killed at 6 s, the compile never reached the driver's cache and every test timed out). */
#define JD_PTX_COMPILE_S 300.0

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

bool jd_cu_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    return len >= 4 && strcmp(base + len - 3, ".cu") == 0;
}

bool jd_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
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
bool jd_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
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
    if (sb.st_size > JD_MAX_SOURCE_BYTES) { /* before reading: a huge file costs nothing */
        snprintf(err, errlen, "%s is %lld bytes, over the %d MiB a solution file may be", path,
                 (long long)sb.st_size, JD_MAX_SOURCE_BYTES >> 20);
        return false;
    }
    *text = ld_read_text(path, len);
    if (!*text) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

/* A build that failed for another reason than the solution's code: nvcc writing no shared object
 * because of --nvcc-flags (-E, -c, -ptx...) is a usage error (2), anything else the harness's (12). */
static int jd_exit_for_build(ld_status ls, const ld_build *b)
{
    return ls == LD_NOT_OBJECT && b->has_flags ? HX_USAGE : HX_INTERNAL;
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
    case RS_COMPILED_ONLY: return HX_CANNOT_RUN;
    case RS_OUTPUT_EXCEEDED: return HX_OUTPUT_EXCEEDED;
    case RS_INTERRUPTED: return HX_INTERRUPTED;
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
    if (o->custom) { /* the performance case's recipe at the user's size */
        pb_size sz;
        memset(&sz, 0, sizeof(sz));
        pb_parse_sizes(o->size, pb_n_sizes(p), sz.v); /* checked in jd_judge */
        pb_case c = pb_perf_case(p, sz, 0, "custom");
        c.seed = 777;
        int ia = pb_scalar_index(p, "alpha"), ib = pb_scalar_index(p, "beta");
        if (ia >= 0) c.v[ia] = o->alpha;
        if (ib >= 0) c.v[ib] = o->beta;
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

/* --gpu: how this machine runs the target's code. Without a device nothing changes (the worker
 * says so: exit 8). A GPU that runs the target's SASS runs the build; a newer one runs a PTX-only
 * build of a non-"a" target, which the driver compiles for it at load, so the target's
 * __CUDA_ARCH__ code path runs; otherwise solve is only looked up (exit 13). */
/* Whether the device's name holds the judge GPU's name as a whole word ("NVIDIA A100-SXM4-80GB"
 * for A100; not "NVIDIA RTX A1000" or "NVIDIA T400"). Only asked where its SASS runs here. */
static bool jd_names_chip(const char *device, const char *gpu)
{
    size_t n = strlen(gpu);
    for (const char *p = strstr(device, gpu); p; p = strstr(p + 1, gpu)) {
        bool start = p == device || !isalnum((unsigned char)p[-1]);
        bool end = !isalnum((unsigned char)p[n]);
        if (start && end) return true;
    }
    return false;
}

static int jd_gpu_plan(const jd_options *o, const gp_gpu *gpu, jd_result *r, bool *lookup_only)
{
    dv_info dev;
    if (!rn_probe(&dev, 60.0)) return HX_SUCCESS;
    char local[320];
    snprintf(local, sizeof(local), "%s (sm_%d%d)", dev.name, dev.cc_major, dev.cc_minor);
    bool same_chip = jd_names_chip(dev.name, gpu->name);
    switch (gp_how_runs(gpu->arch, dev.cc_major, dev.cc_minor)) {
    case GP_RUN_SASS:
        if (same_chip)
            snprintf(r->ran_as, sizeof(r->ran_as), "%s SASS on %s, the judge's %s chip", gpu->arch,
                     local, gpu->model);
        else
            snprintf(r->ran_as, sizeof(r->ran_as),
                     "%s SASS on %s: the times are this GPU's, not the judge's %s's", gpu->arch,
                     local, gpu->model);
        return HX_SUCCESS;
    case GP_RUN_PTX: {
        ld_options lo = {.arch = gpu->arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                         .rebuild = o->rebuild, .quiet = o->quiet, .ptx_only = true};
        ld_status ls = ld_build_solution(&lo, o->solution, &r->ptx_build);
        if (ls != LD_OK) {
            snprintf(r->detail, sizeof(r->detail), "the compute_%s PTX-only build (to run the %s "
                     "code path here) failed: %s", gpu->arch + 3, gpu->name, r->ptx_build.error);
            if (ls == LD_COMPILE_ERROR) {
                r->status = RS_COMPILE_ERROR;
                r->ptx_failed = true;
                return HX_COMPILE;
            }
            return jd_exit_for_build(ls, &r->ptx_build);
        }
        r->ptx_built = true;
        snprintf(r->ran_as, sizeof(r->ran_as),
                 "compute_%s PTX compiled by the driver for %s: the times are this GPU's running "
                 "the %s code path (__CUDA_ARCH__ = %s0), not the judge's %s's",
                 gpu->arch + 3, local, gpu->name, gpu->arch + 3, gpu->model);
        return HX_SUCCESS;
    }
    case GP_RUN_NONE:
        *lookup_only = true;
        snprintf(r->detail, sizeof(r->detail),
                 "%s compiled for %s (the judge's %s), which this machine's GPU, %s, cannot run: "
                 "solve found in the loaded object; nothing run",
                 o->solution, gpu->arch, gpu->model, local);
        return HX_SUCCESS;
    }
    return HX_SUCCESS;
}

/* dlopen failed. An object that calls the driver API needs libcuda.so.1, which a machine without
 * a driver lacks: with no device either, that is "no device" (8), solve read from the ELF file. */
static int jd_load_failed(const jd_options *o, jd_result *r, const char *so_path)
{
    dv_info dev;
    if (strstr(r->run.detail, "libcuda.so") && !rn_probe(&dev, 60.0)) {
        if (!ld_object_defines(so_path, "solve")) {
            snprintf(r->detail, sizeof(r->detail), "no symbol 'solve' in the compiled object of "
                     "%s: declare it as %s", o->solution, r->problem->signature);
            return HX_NO_SOLVE;
        }
        r->status = RS_NOT_RUN;
        snprintf(r->detail, sizeof(r->detail),
                 "no CUDA device found (%s): %s compiled for %s and its solve was found (in the "
                 "object's symbol table), but nothing was run; note: the object calls the CUDA "
                 "driver API, so it needs libcuda.so.1, which this machine lacks, and was not loaded",
                 dev.error[0] ? dev.error : "no driver", o->solution, r->arch);
        return HX_NO_DEVICE;
    }
    snprintf(r->detail, sizeof(r->detail), "cannot load the compiled object: %s", r->run.detail);
    return HX_ERROR;
}

/* The architecture: --gpu's target, given, or the device's (asked of a child). */
static int jd_arch(const jd_options *o, jd_result *r, const gp_gpu **gpu_out)
{
    const gp_gpu *gpu = o->gpu ? gp_find(o->gpu) : NULL;
    *gpu_out = gpu;
    if (o->gpu && !gpu) {
        char names[128];
        gp_list(names, sizeof(names));
        snprintf(r->detail, sizeof(r->detail), "unknown GPU '%s' (the judge's: %s, or all)", o->gpu, names);
        return HX_USAGE;
    }
    if (gpu) {
        snprintf(r->arch, sizeof(r->arch), "%s", gpu->arch);
        snprintf(r->gpu, sizeof(r->gpu), "%s", gpu->name);
    } else if (o->arch) {
        snprintf(r->arch, sizeof(r->arch), "%s", o->arch);
    } else {
        dv_info info;
        if (rn_probe(&info, 60.0))
            ld_arch_for(info.cc_major, info.cc_minor, r->arch, sizeof(r->arch));
        else
            snprintf(r->arch, sizeof(r->arch), "sm_90a"); /* no device: the project's target */
    }
    return HX_SUCCESS;
}

/* 1. the file: a readable .cu, and the problem when it is named. HX_SUCCESS, or the exit
 * code (in r->exit_code too) with r->detail. */
static int jd_read_solution(const jd_options *o, jd_result *r)
{
    if (!jd_cu_name(o->solution)) {
        snprintf(r->detail, sizeof(r->detail), "%s: not a .cu file", o->solution);
        return r->exit_code = HX_BAD_FILE;
    }
    char *src = NULL;
    size_t src_len = 0;
    if (!jd_read_file(o->solution, &src, &src_len, r->detail, sizeof(r->detail)))
        return r->exit_code = HX_BAD_FILE;
    free(src);
    if (o->problem) {
        r->problem = pb_find(o->problem);
        if (!r->problem) {
            snprintf(r->detail, sizeof(r->detail), "unknown problem '%s'", o->problem);
            return r->exit_code = HX_USAGE;
        }
    }
    return HX_SUCCESS;
}

/* --vs: the other file's failure to load, said beside an outcome where no case ran (otherwise
 * each timed case carries it, vs_status): it is that file's, never this one's. */
static void jd_vs_lost_note(const jd_options *o, jd_result *r)
{
    if (!o->vs || r->run.vs_lost == RS_SUCCESS) return;
    size_t u = strlen(r->detail);
    snprintf(r->detail + u, sizeof(r->detail) - u, "; the --vs file %s was not compared: %s (%s)",
             o->vs, rs_status_name(r->run.vs_lost), r->run.vs_lost_detail);
}

/* 5. run: the plan to the runner (and --vs's file built), its outcome the status and the exit
 * code. lookup_only: solve is only looked up (--gpu's target cannot run here). */
static int jd_run(const jd_options *o, jd_result *r, bool lookup_only)
{
    const pb_problem *p = r->problem;
    if (!jd_items(o, r)) {
        snprintf(r->detail, sizeof(r->detail), "out of memory");
        return r->exit_code = HX_INTERNAL;
    }
    rn_plan plan = {.problem = p, .so_path = r->build.so_path, .items = r->items,
                    .n_items = r->n_items, .timeout_s = o->timeout_s, .seed = o->seed,
                    .timing = o->topts, .progress = o->progress};
    if (r->ptx_built) {
        plan.so_path = r->ptx_build.so_path;
        plan.first_call_extra_s = JD_PTX_COMPILE_S;
    }
    plan.lookup_only = lookup_only;
    if (o->vs) { /* the other file, built the same way as the one that runs */
        ld_options vo = {.arch = r->arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                         .rebuild = o->rebuild, .quiet = o->quiet, .ptx_only = r->ptx_built};
        ld_status vs = ld_build_solution(&vo, o->vs, &r->vs_build);
        if (vs != LD_OK) {
            snprintf(r->detail, sizeof(r->detail), "--vs %s: %s", o->vs, r->vs_build.error);
            if (vs == LD_COMPILE_ERROR) {
                r->status = RS_COMPILE_ERROR;
                r->vs_failed = true;
                return r->exit_code = HX_COMPILE;
            }
            return r->exit_code = jd_exit_for_build(vs, &r->vs_build);
        }
        r->vs_built = true;
        plan.vs_path = r->vs_build.so_path;
        plan.timing.baseline = true;
    }
    rn_outcome out = rn_run(&plan, &r->run);
    r->ran = true;
    switch (out) {
    case RN_OK:
        if (lookup_only && rn_overall(&r->run) == RS_SUCCESS) { /* r->detail says why */
            r->status = RS_COMPILED_ONLY;
            jd_vs_lost_note(o, r);
            return r->exit_code = HX_CANNOT_RUN;
        }
        if (lookup_only) r->detail[0] = '\0'; /* loading it failed: the test says how */
        r->status = rn_overall(&r->run);
        return r->exit_code = jd_exit_for(r->status);
    case RN_NO_DEVICE:
        r->status = RS_NOT_RUN;
        snprintf(r->detail, sizeof(r->detail),
                 "no CUDA device found (%s): %s compiled for %s and its solve was found, but "
                 "nothing was run",
                 r->run.detail, o->solution, r->arch);
        jd_vs_lost_note(o, r);
        return r->exit_code = HX_NO_DEVICE;
    case RN_NO_SOLVE:
        if (o->vs && strncmp(r->run.detail, "--vs: ", 6) == 0) { /* the worker's mark: the other file */
            snprintf(r->detail, sizeof(r->detail),
                     "--vs: no symbol 'solve' in the compiled object of %s: declare it as %s", o->vs,
                     p->signature);
            return r->exit_code = HX_NO_SOLVE;
        }
        snprintf(r->detail, sizeof(r->detail),
                 "no symbol 'solve' in the compiled object of %s%s: declare it as %s", o->solution,
                 r->check.declared && !r->check.extern_c ? " (solve is declared without extern \"C\", so "
                                                     "its name is mangled)"
                                                   : "",
                 p->signature);
        return r->exit_code = HX_NO_SOLVE;
    case RN_LOAD_FAILED:
        return r->exit_code = jd_load_failed(o, r, plan.so_path);
    case RN_INTERNAL: /* no "harness: " here: the line on stderr adds it (main.c's hm_line) */
        snprintf(r->detail, sizeof(r->detail), "%s", r->run.detail);
        return r->exit_code = HX_INTERNAL;
    }
    return r->exit_code = HX_INTERNAL;
}

int jd_judge(const jd_options *o, jd_result *r)
{
    memset(r, 0, sizeof(*r));
    r->status = RS_ERROR;

    /* 1. the file */
    if (jd_read_solution(o, r) != HX_SUCCESS) return r->exit_code;

    /* 2. the compiler's reading of solve (sigcheck.h), started first: it runs beside the device
     * probe and the object's build, and is waited for before anything else is decided */
    sc_job *job = malloc(sizeof(*job));
    if (!job) {
        snprintf(r->detail, sizeof(r->detail), "out of memory");
        return r->exit_code = HX_INTERNAL;
    }
    ld_options co = jd_check_options(o);
    ld_status cs = sc_start(&co, o->solution, &r->check, job);

    /* 3. the architecture, and the object's build started (or found cached) */
    const gp_gpu *gpu = NULL;
    ld_status ls = LD_OK;
    bool building = false;
    if (!o->check_only) {
        int rc = jd_arch(o, r, &gpu);
        if (rc != HX_SUCCESS) {
            sc_cancel(job);
            free(job);
            return r->exit_code = rc;
        }
        /* quiet: its progress line waits for the checks below, so that a usage or size error
         * found by them is the one line printed */
        ld_options lo = {.arch = r->arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                         .rebuild = o->rebuild, .quiet = true};
        ls = ld_build_start(&lo, o->solution, &r->build);
        building = ls == LD_OK;
    }

    /* 4. the problem: named, or the one whose signature the extern "C" solve has */
    if (cs == LD_OK) cs = sc_finish(job);
    free(job);
    int rc = jd_take_answer(cs, o->solution, &r->check, r);
    jd_options sweep_o;
    if (rc == HX_SUCCESS) rc = jd_front(&o, &sweep_o, r);
    if (rc != HX_SUCCESS || o->check_only) {
        if (building) ld_build_cancel(&r->build);
        return r->exit_code = rc;
    }

    /* 5. the object */
    if (building && r->build.pid > 0 && !o->quiet)
        fprintf(stderr, "compiling %s for %s with nvcc...\n", o->solution, r->arch);
    if (building) ls = ld_build_finish(&r->build);
    r->built = ls == LD_OK;
    if (ls == LD_COMPILE_ERROR) {
        r->status = RS_COMPILE_ERROR;
        snprintf(r->detail, sizeof(r->detail), "%s", r->build.error);
        return r->exit_code = HX_COMPILE;
    }
    if (ls != LD_OK) {
        snprintf(r->detail, sizeof(r->detail), "%s", r->build.error);
        return r->exit_code = jd_exit_for_build(ls, &r->build);
    }

    /* the compiler built what it could not read through for the check: no verdict on solve */
    if (!r->check.answered) {
        snprintf(r->detail, sizeof(r->detail), "%s", r->check.error);
        return r->exit_code = HX_INTERNAL;
    }

    /* 4b. --gpu: how this machine runs the target's code (as built, as PTX, or not at all) */
    bool lookup_only = false;
    if (gpu) {
        rc = jd_gpu_plan(o, gpu, r, &lookup_only);
        if (rc != HX_SUCCESS) return r->exit_code = rc;
    }

    return jd_run(o, r, lookup_only);
}

void jd_free(jd_result *r)
{
    if (r->ran) rn_free(&r->run);
    free(r->items);
    r->items = NULL;
    free(r->sweep_cases);
    free(r->sweep_names);
    free(r->shapes);
    r->shapes = NULL;
    r->sweep_cases = NULL;
    r->sweep_names = NULL;
}
