/* dispatch.c — in_main: the checks every mode shares (no nesting under a tool, a readable .cu file
 * of at most the judge's 4 MiB, the run-time tool there), the cached build a normal run would use,
 * its PTX, then the modes.
 *
 * Everything here runs beside the judge, never inside it: the static modes read what the compiler
 * made of the cached build (same source, flags, architecture and nvcc, so the same cache key), and
 * the two dynamic modes run the harness binary itself again under the tool, with an environment
 * variable that stops a second level. The parent still never initialises CUDA. */
#include "modes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "runner.h"
#include "tools.h"

int in_fail(in_ctx *cx, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->error, sizeof(cx->error), fmt, ap);
    va_end(ap);
    for (char *p = cx->error; *p; p++) /* one line, whatever a path held */
        if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "harness: %s\n", cx->error);
    return code;
}

void in_missing(in_ctx *cx, const char *mode, const char *name, const char *env, const char *consequence)
{
    char line[PATH_MAX + 512];
    in_tool_missing_line(line, sizeof(line), mode, name, env, consequence);
    if (cx->rq->json) in_json_note(cx, "%s", line);
    else printf("harness: %s\n", line);
}

/* The checks and the build every mode shares, then the modes; the exit code. */
static int in_run(in_ctx *cx, const jd_options *o, const in_request *rq)
{
    bool dynamic = rq->modes & (IN_SANITIZE | IN_PROFILE);
    const char *under = getenv(IN_ENV_SANITIZER) ? IN_ENV_SANITIZER : getenv(IN_ENV_PROFILER) ? IN_ENV_PROFILER : NULL;
    if (dynamic && under)
        return in_fail(cx, HX_USAGE, "already running under a tool ($%s is set): no --sanitize or --profile inside it",
                       under);
    struct stat sb;
    if (!jd_cu_name(o->solution))
        return in_fail(cx, HX_BAD_FILE, "%s: not a .cu file", o->solution);
    if (stat(o->solution, &sb) != 0 || access(o->solution, R_OK) != 0)
        return in_fail(cx, HX_BAD_FILE, "cannot open %s: %s", o->solution, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return in_fail(cx, HX_BAD_FILE, "%s is not a regular file", o->solution);
    if (sb.st_size > JD_MAX_SOURCE_BYTES) /* the judge's limit: no mode compiles what it refuses */
        return in_fail(cx, HX_BAD_FILE, "%s is %lld bytes, over the %d MiB a solution file may be", o->solution,
                       (long long)sb.st_size, JD_MAX_SOURCE_BYTES >> 20);
    /* the run-time tools first: without one there is nothing to do */
    char tool[PATH_MAX] = "";
    char tool_line[PATH_MAX + 512];
    if ((rq->modes & IN_SANITIZE) && !in_find_tool("compute-sanitizer", "COMPUTE_SANITIZER", tool, sizeof(tool))) {
        in_tool_missing_line(tool_line, sizeof(tool_line), "--sanitize", "compute-sanitizer", "COMPUTE_SANITIZER",
                             "nothing was run");
        return in_fail(cx, HX_INTERNAL, "%s", tool_line);
    }
    if ((rq->modes & IN_PROFILE) && !in_find_tool("ncu", "NCU", tool, sizeof(tool))) {
        in_tool_missing_line(tool_line, sizeof(tool_line), "--profile", "ncu (Nsight Compute)", "NCU", "nothing was run");
        return in_fail(cx, HX_INTERNAL, "%s", tool_line);
    }

    /* the architecture a normal run picks, so that the cached object is the same one */
    if (o->arch) {
        snprintf(cx->arch, sizeof(cx->arch), "%s", o->arch);
    } else {
        dv_info info;
        if (rn_probe(&info, 60.0)) ld_arch_for(info.cc_major, info.cc_minor, cx->arch, sizeof(cx->arch));
        else snprintf(cx->arch, sizeof(cx->arch), "sm_90a");
    }
    ld_options lo = {.arch = cx->arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                     .rebuild = o->rebuild, .quiet = o->quiet};
    ld_status ls = ld_build_solution(&lo, o->solution, &cx->build);
    if (ls == LD_COMPILE_ERROR) {
        ld_print_log(&cx->build, stderr);
        return in_fail(cx, HX_COMPILE, "%s: %s", o->solution, cx->build.error);
    }
    if (ls != LD_OK) return in_fail(cx, HX_INTERNAL, "%s", cx->build.error);
    snprintf(cx->nvcc, sizeof(cx->nvcc), "%s", cx->build.nvcc);
    snprintf(cx->stem, sizeof(cx->stem), "%.*s", (int)(strlen(cx->build.so_path) - 3), cx->build.so_path);

    if (!in_load_ptx(cx) && (rq->modes & IN_PTX))
        return cx->error[0] ? HX_INTERNAL : in_fail(cx, HX_INTERNAL, "--ptx: cannot read the PTX %s.ptx", cx->stem);
    int code = HX_SUCCESS;
    if (rq->modes & IN_RESOURCES) code = in_run_resources(cx);
    if ((rq->modes & IN_PTX) && code == HX_SUCCESS) {
        char ptx[PATH_MAX + 16];
        snprintf(ptx, sizeof(ptx), "%s.ptx", cx->stem);
        if (rq->json) {
            in_json_ptx(cx);
        } else {
            printf("PTX — %s for compute_%s (%s; static counts: instructions in the code)\n", o->solution,
                   cx->arch + 3, ptx);
            in_print_mix(stdout, &cx->ptx, false);
        }
    }
    if ((rq->modes & IN_SASS) && code == HX_SUCCESS) code = in_run_sass(cx);
    if (rq->modes & IN_SANITIZE) code = in_run_sanitize(cx, tool);
    if (rq->modes & IN_PROFILE) code = in_run_profile(cx, tool);
    return code;
}

int in_main(const jd_options *o, const in_request *rq)
{
    in_ctx *cx = calloc(1, sizeof(*cx));
    if (!cx) {
        fprintf(stderr, "harness: out of memory\n");
        if (rq->json) rp_json_error(stdout, o->solution, HX_INTERNAL, "out of memory");
        return HX_INTERNAL;
    }
    cx->o = o;
    cx->rq = rq;
    int code = rq->json && !in_json_open(cx) ? in_fail(cx, HX_INTERNAL, "out of memory") : in_run(cx, o, rq);
    if (rq->json) code = in_json_finish(cx, code);
    in_mix_free(&cx->ptx);
    free(cx);
    return code;
}
