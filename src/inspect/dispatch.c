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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"
#include "tools.h"

int in_main(const jd_options *o, const in_request *rq)
{
    bool dynamic = rq->modes & (IN_SANITIZE | IN_PROFILE);
    const char *under = getenv(IN_ENV_SANITIZER) ? IN_ENV_SANITIZER : getenv(IN_ENV_PROFILER) ? IN_ENV_PROFILER : NULL;
    if (dynamic && under) {
        fprintf(stderr, "harness: already running under a tool ($%s is set): no --sanitize or --profile inside it\n",
                under);
        return HX_USAGE;
    }
    size_t len = strlen(o->solution);
    struct stat sb;
    if (len < 4 || strcmp(o->solution + len - 3, ".cu") != 0) {
        fprintf(stderr, "harness: %s: not a .cu file\n", o->solution);
        return HX_BAD_FILE;
    }
    if (stat(o->solution, &sb) != 0 || access(o->solution, R_OK) != 0) {
        fprintf(stderr, "harness: cannot open %s: %s\n", o->solution, strerror(errno));
        return HX_BAD_FILE;
    }
    if (!S_ISREG(sb.st_mode)) {
        fprintf(stderr, "harness: %s is not a regular file\n", o->solution);
        return HX_BAD_FILE;
    }
    if (sb.st_size > JD_MAX_SOURCE_BYTES) { /* the judge's limit: no mode compiles what it refuses */
        fprintf(stderr, "harness: %s is %lld bytes, over the %d MiB a solution file may be\n", o->solution,
                (long long)sb.st_size, JD_MAX_SOURCE_BYTES >> 20);
        return HX_BAD_FILE;
    }
    /* the run-time tools first: without one there is nothing to do */
    char tool[PATH_MAX] = "";
    if ((rq->modes & IN_SANITIZE) && !in_find_tool("compute-sanitizer", "COMPUTE_SANITIZER", tool, sizeof(tool))) {
        in_tool_missing(stderr, "--sanitize", "compute-sanitizer", "COMPUTE_SANITIZER", "nothing was run");
        return HX_INTERNAL;
    }
    if ((rq->modes & IN_PROFILE) && !in_find_tool("ncu", "NCU", tool, sizeof(tool))) {
        in_tool_missing(stderr, "--profile", "ncu (Nsight Compute)", "NCU", "nothing was run");
        return HX_INTERNAL;
    }

    in_ctx cx;
    memset(&cx, 0, sizeof(cx));
    cx.o = o;
    cx.rq = rq;
    /* the architecture a normal run picks, so that the cached object is the same one */
    if (o->arch) {
        snprintf(cx.arch, sizeof(cx.arch), "%s", o->arch);
    } else {
        dv_info info;
        if (rn_probe(&info, 60.0)) ld_arch_for(info.cc_major, info.cc_minor, cx.arch, sizeof(cx.arch));
        else snprintf(cx.arch, sizeof(cx.arch), "sm_90a");
    }
    ld_options lo = {.arch = cx.arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                     .rebuild = o->rebuild, .quiet = o->quiet};
    ld_status ls = ld_build_solution(&lo, o->solution, &cx.build);
    if (ls == LD_COMPILE_ERROR) {
        ld_print_log(&cx.build, stderr);
        fprintf(stderr, "harness: %s: %s\n", o->solution, cx.build.error);
        return HX_COMPILE;
    }
    if (ls != LD_OK) {
        fprintf(stderr, "harness: %s\n", cx.build.error);
        return HX_INTERNAL;
    }
    snprintf(cx.nvcc, sizeof(cx.nvcc), "%s", cx.build.nvcc);
    snprintf(cx.stem, sizeof(cx.stem), "%.*s", (int)(strlen(cx.build.so_path) - 3), cx.build.so_path);

    if (!in_load_ptx(&cx) && (rq->modes & IN_PTX)) return HX_INTERNAL;
    int code = HX_SUCCESS;
    if (rq->modes & IN_RESOURCES) code = in_run_resources(&cx);
    if ((rq->modes & IN_PTX) && code == HX_SUCCESS) {
        char ptx[PATH_MAX + 16];
        snprintf(ptx, sizeof(ptx), "%s.ptx", cx.stem);
        printf("PTX — %s for compute_%s (%s; static counts: instructions in the code)\n", o->solution,
               cx.arch + 3, ptx);
        in_print_mix(stdout, &cx.ptx, false);
    }
    if ((rq->modes & IN_SASS) && code == HX_SUCCESS) code = in_run_sass(&cx);
    if (rq->modes & IN_SANITIZE) code = in_run_sanitize(&cx, tool);
    if (rq->modes & IN_PROFILE) code = in_run_profile(&cx, tool);
    in_mix_free(&cx.ptx);
    return code;
}
