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

#include "wire.h"

/* The first call in each solution process of a PTX-only build (--gpu T4/A100 on a newer GPU)
 * gets this much more than --timeout: the driver compiles the PTX then (run 91: ~20 s for int4
 * 03; killed at 6 s, the compile never reached the driver's cache and every test timed out). */
#define JD_PTX_COMPILE_S 300.0

typedef struct {
    char text[PB_MAX_PARAMS][32];
    const char *ptr[PB_MAX_PARAMS];
} jd_types;

static void jd_types_of(const pb_problem *p, jd_types *t)
{
    for (int i = 0; i < p->n_params && i < PB_MAX_PARAMS; i++) {
        pb_param_type(&p->params[i], t->text[i], sizeof(t->text[i]));
        t->ptr[i] = t->text[i];
    }
}

sig_verdict jd_compare_signature(const sig_info *sig, const pb_problem *p)
{
    jd_types t;
    jd_types_of(p, &t);
    return sig_compare(sig, t.ptr, p->n_params);
}

void jd_format_signature(const pb_problem *p, char *buf, size_t len)
{
    jd_types t;
    jd_types_of(p, &t);
    sig_format(t.ptr, p->n_params, buf, len);
}

const pb_problem *jd_infer_problem(const sig_info *sig)
{
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        if (jd_compare_signature(sig, p) != SIG_MISMATCH) return p;
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

/* Whether the values fit the problem (what names them: "size 8x8x8"); r->detail says why not.
 * --no-constraints (any) lifts the ranges, never the problem's own check its extents rely on. */
static bool jd_values_fit(const pb_problem *p, const double *v, bool any, const char *what,
                          jd_result *r)
{
    char why[300];
    bool sound = pb_values_sound(p, v, why, sizeof(why));
    if (sound && (any || pb_values_ok(p, v, why, sizeof(why)))) return true;
    snprintf(r->detail, sizeof(r->detail), "%s is outside %s's constraints (%s%s)", what, p->name,
             why, sound ? "; --no-constraints to time it anyway" : "");
    return false;
}

/* Whether a case's buffers can exist here (what names it: "size 8x8x8"): every extent inside
 * 64 bits and WR_MAX_BUF_BYTES, and all of them inside the host's memory (the parent and the
 * oracle hold them). A size that cannot exist is the user's (exit 4), never the solution's; what
 * the device cannot hold is the run's out-of-memory verdict (10). */
static bool jd_buffers_fit(const jd_options *o, const pb_problem *p, const double *v,
                           const char *what, jd_result *r)
{
    wr_layout l;
    if (!wr_layout_for(p, v, dv_guard_bytes(), o->topts.max_runs, &l)) {
        snprintf(r->detail, sizeof(r->detail), "%s cannot be run: a buffer of %s would hold more "
                 "than %zu GiB (or more than 64 bits count)", what, p->name, WR_MAX_BUF_BYTES >> 30);
        return false;
    }
    struct sysinfo si;
    if (sysinfo(&si) == 0) {
        double host = ((double)si.totalram + (double)si.totalswap) * (double)si.mem_unit;
        double need = (double)wr_host_bytes(&l);
        if (need > host) {
            snprintf(r->detail, sizeof(r->detail), "%s cannot be run: its buffers need %.1f GiB "
                     "of host memory, more than this machine has (%.1f GiB)", what,
                     need / (1u << 30), host / (1u << 30));
            return false;
        }
    }
    return true;
}

/* --size's text for the problem: HX_SUCCESS with sz set, or the exit code with r->detail. A text
 * that is not sizes (or the wrong number of them) is a usage error; sizes that cannot be (0,
 * negative, past int) a bad size, --no-constraints or not. */
static int jd_size_arg(const jd_options *o, const pb_problem *p, pb_size *sz, jd_result *r)
{
    char names[64];
    pb_size_names(p, names, sizeof(names));
    int count = 0;
    memset(sz, 0, sizeof(*sz));
    pb_scan sc = pb_scan_sizes(o->size, true, sz->v, &count);
    if (sc == PB_SCAN_SYNTAX || count != pb_n_sizes(p)) {
        snprintf(r->detail, sizeof(r->detail), "--size: %s takes %s (positive integers), got '%s'",
                 p->name, names, o->size);
        return HX_USAGE;
    }
    if (sc == PB_SCAN_RANGE) {
        snprintf(r->detail, sizeof(r->detail), "size %s is outside %s's constraints (%s: every "
                 "size an integer in 1..%d, --no-constraints or not)", o->size, p->name, names,
                 PB_SIZE_MAX);
        return HX_BAD_SIZE;
    }
    return HX_SUCCESS;
}

/* --sweep: o with the performance set only, its table replaced by the recipe at every shape,
 * timing and the cuBLAS baseline on. The cases live in r. HX_SUCCESS or the exit code. */
static int jd_sweep_options(const jd_options *o, const pb_problem *p, jd_options *eff, jd_result *r)
{
    const pb_size *sh = p->sweep;
    size_t n = p->n_sweep;
    if (o->random.n > 0) {
        n = (size_t)o->random.n;
        r->shapes = calloc(n, sizeof(*r->shapes));
        if (!r->shapes || !sh_random_shapes(p, &o->random, r->shapes)) {
            snprintf(r->detail, sizeof(r->detail), "--sweep random: no shapes for %s", p->name);
            return HX_INTERNAL;
        }
        sh = r->shapes;
    } else if (o->shapes) {
        r->shapes = calloc(PB_MAX_SHAPES, sizeof(*r->shapes));
        char names[64];
        pb_size_names(p, names, sizeof(names));
        pb_scan sc = r->shapes ? pb_scan_size_list(pb_n_sizes(p), o->shapes, r->shapes,
                                                   PB_MAX_SHAPES, &n)
                               : PB_SCAN_SYNTAX;
        if (sc == PB_SCAN_SYNTAX) {
            snprintf(r->detail, sizeof(r->detail),
                     "--shapes: expected a comma list of %s or N (at most %d) for %s, got '%s'",
                     names, PB_MAX_SHAPES, p->name, o->shapes);
            return HX_USAGE;
        }
        if (sc == PB_SCAN_RANGE) {
            snprintf(r->detail, sizeof(r->detail), "--shapes %s: a shape is outside %s's "
                     "constraints (%s: every size an integer in 1..%d, --no-constraints or not)",
                     o->shapes, p->name, names, PB_SIZE_MAX);
            return HX_BAD_SIZE;
        }
        sh = r->shapes;
    }
    if (n == 0) {
        snprintf(r->detail, sizeof(r->detail), "%s has no sweep shapes (give them with --shapes)", p->name);
        return HX_USAGE;
    }
    for (size_t i = 0; i < n; i++) {
        pb_case c = pb_perf_case(p, sh[i], i, "");
        char shape[48], what[64];
        pb_format_size(p, c.v, shape, sizeof(shape));
        snprintf(what, sizeof(what), "shape %s", shape);
        if (!jd_values_fit(p, c.v, o->any_size, what, r) || !jd_buffers_fit(o, p, c.v, what, r))
            return HX_BAD_SIZE;
    }
    r->sweep_cases = calloc(n, sizeof(*r->sweep_cases));
    r->sweep_names = calloc(n, sizeof(*r->sweep_names));
    if (!r->sweep_cases || !r->sweep_names) {
        snprintf(r->detail, sizeof(r->detail), "out of memory");
        return HX_INTERNAL;
    }
    for (size_t i = 0; i < n; i++) {
        r->sweep_cases[i] = pb_perf_case(p, sh[i], i, r->sweep_names[i]);
        pb_format_size(p, r->sweep_cases[i].v, r->sweep_names[i], sizeof(r->sweep_names[i]));
    }
    *eff = *o;
    for (int s = 0; s < PB_N_SETS; s++) eff->sets[s] = s == PB_SET_PERFORMANCE;
    eff->custom = false;
    eff->override_perf = r->sweep_cases;
    eff->n_override_perf = n;
    eff->timing = true;
    eff->topts.baseline = true;
    return HX_SUCCESS;
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
            return HX_INTERNAL;
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
            snprintf(r->detail, sizeof(r->detail), "no symbol 'solve' in the compiled object: "
                     "declare it as %s", r->problem->signature);
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

/* 1. the file: a .cu, read, its declared solve signature into r->sig. HX_SUCCESS or the
 * exit code (r->exit_code set). */
static int jd_read_solution(const jd_options *o, jd_result *r)
{
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
    return HX_SUCCESS;
}

/* 2. the problem: named, or inferred from the declared signature, which must be its. */
static int jd_pick_problem(const jd_options *o, jd_result *r)
{
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
        sig_verdict v = jd_compare_signature(&r->sig, p);
        if (v == SIG_MISMATCH) {
            char want[512];
            jd_format_signature(p, want, sizeof(want));
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
    return HX_SUCCESS;
}

/* What was asked of the problem: --size inside its constraints, the leaderboard's sizes and
 * --baseline's yardstick possible. */
static int jd_check_cases(const jd_options *o, jd_result *r)
{
    const pb_problem *p = r->problem;
    if (o->custom) {
        pb_size sz;
        int rc = jd_size_arg(o, p, &sz, r);
        if (rc != HX_SUCCESS) return r->exit_code = rc;
        pb_case c = pb_perf_case(p, sz, 0, "custom");
        char what[64];
        snprintf(what, sizeof(what), "size %s", o->size);
        if (!jd_values_fit(p, c.v, o->any_size, what, r) || !jd_buffers_fit(o, p, c.v, what, r))
            return r->exit_code = HX_BAD_SIZE;
    }
    for (size_t i = 0; i < o->n_override_perf; i++) { /* the leaderboard's sizes */
        char shape[48];
        pb_format_size(p, o->override_perf[i].v, shape, sizeof(shape));
        if (!jd_buffers_fit(o, p, o->override_perf[i].v, shape, r))
            return r->exit_code = HX_BAD_SIZE;
    }
    if (o->topts.baseline && o->topts.yardstick != RN_YS_CUBLAS && p->compute == PB_I8) {
        snprintf(r->detail, sizeof(r->detail),
                 "--baseline %s: no cuBLASLt yardstick for %s (its yardstick is cuBLAS's int8 "
                 "GEMM and a requantize pass: --baseline)",
                 o->topts.yardstick == RN_YS_BOTH ? "both" : "lt", p->name);
        return r->exit_code = HX_USAGE;
    }
    return HX_SUCCESS;
}

/* --vs: the other file a readable .cu that declares the same problem's solve. */
static int jd_check_vs(const jd_options *o, jd_result *r)
{
    const pb_problem *p = r->problem;
    char *vsrc = NULL, why[600];
    size_t vlen = 0;
    size_t vl = strlen(o->vs);
    if (vl < 4 || strcmp(o->vs + vl - 3, ".cu") != 0) {
        snprintf(r->detail, sizeof(r->detail), "--vs %s: not a .cu file", o->vs);
        return r->exit_code = HX_BAD_FILE;
    }
    if (!jd_read_file(o->vs, &vsrc, &vlen, why, sizeof(why))) {
        snprintf(r->detail, sizeof(r->detail), "--vs: %s", why);
        return r->exit_code = HX_BAD_FILE;
    }
    sig_info vsig;
    sig_read(vsrc, vlen, &vsig);
    free(vsrc);
    if (vsig.found && jd_compare_signature(&vsig, p) == SIG_MISMATCH) {
        char want[512];
        jd_format_signature(p, want, sizeof(want));
        snprintf(r->detail, sizeof(r->detail),
                 "--vs: the two files solve different problems: %s:%d declares %s, but %s "
                 "(the problem of %s) needs %s",
                 o->vs, vsig.line, vsig.text, p->name, o->solution, want);
        return r->exit_code = HX_SIGNATURE;
    }
    return HX_SUCCESS;
}

/* 3. the architecture: --gpu's target (into *gpu_out), given, or the device's (asked of a
 * child). */
static int jd_choose_arch(const jd_options *o, jd_result *r, const gp_gpu **gpu_out)
{
    const gp_gpu *gpu = o->gpu ? gp_find(o->gpu) : NULL;
    *gpu_out = gpu;
    if (o->gpu && !gpu) {
        char names[128];
        gp_list(names, sizeof(names));
        snprintf(r->detail, sizeof(r->detail), "unknown GPU '%s' (the judge's: %s, or all)", o->gpu, names);
        return r->exit_code = HX_USAGE;
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

/* 4. compile (or reuse the cached object). */
static int jd_compile(const jd_options *o, jd_result *r)
{
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
    return HX_SUCCESS;
}

/* --vs: the other file, built the same way as the one that runs, into the plan. */
static int jd_build_vs(const jd_options *o, jd_result *r, rn_plan *plan)
{
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
        return r->exit_code = HX_INTERNAL;
    }
    r->vs_built = true;
    plan->vs_path = r->vs_build.so_path;
    plan->timing.baseline = true;
    return HX_SUCCESS;
}

/* The status and exit code from the run's outcome. */
static int jd_verdict(const jd_options *o, jd_result *r, rn_outcome out, bool lookup_only,
                      const char *so_path)
{
    const pb_problem *p = r->problem;
    switch (out) {
    case RN_OK:
        if (lookup_only && rn_overall(&r->run) == RS_SUCCESS) { /* r->detail says why */
            r->status = RS_COMPILED_ONLY;
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
        return r->exit_code = jd_load_failed(o, r, so_path);
    case RN_INTERNAL:
        snprintf(r->detail, sizeof(r->detail), "harness: %s", r->run.detail);
        return r->exit_code = HX_INTERNAL;
    }
    return r->exit_code = HX_INTERNAL;
}

/* 5. run: the tests through the runner (src/runner.c), then the verdict. */
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
    if (o->vs) {
        int rc = jd_build_vs(o, r, &plan);
        if (rc != HX_SUCCESS) return rc;
    }
    rn_outcome out = rn_run(&plan, &r->run);
    r->ran = true;
    return jd_verdict(o, r, out, lookup_only, plan.so_path);
}

int jd_judge(const jd_options *o, jd_result *r)
{
    memset(r, 0, sizeof(*r));
    r->status = RS_ERROR;

    /* each step returns HX_SUCCESS, or its exit code with r->exit_code set */
    int rc = jd_read_solution(o, r);
    if (rc == HX_SUCCESS) rc = jd_pick_problem(o, r);
    if (rc == HX_SUCCESS) rc = jd_check_cases(o, r);
    if (rc != HX_SUCCESS) return rc;
    const pb_problem *p = r->problem;
    jd_options sweep_o; /* --sweep: o is its effective options from here on */
    if (o->sweep) {
        rc = jd_sweep_options(o, p, &sweep_o, r);
        if (rc != HX_SUCCESS) return r->exit_code = rc;
        o = &sweep_o;
    }
    if (o->vs && (rc = jd_check_vs(o, r)) != HX_SUCCESS) return rc;
    if (o->check_only) return r->exit_code = HX_SUCCESS;

    const gp_gpu *gpu = NULL;
    if ((rc = jd_choose_arch(o, r, &gpu)) != HX_SUCCESS) return rc;
    if ((rc = jd_compile(o, r)) != HX_SUCCESS) return rc;

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
