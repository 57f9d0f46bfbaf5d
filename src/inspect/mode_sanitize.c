/* mode_sanitize.c — --sanitize: the tests under compute-sanitizer (every kernel the run launches),
 * then its report read back into a status. */
#include "modes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "tools.h"

int in_run_sanitize(in_ctx *cx, const char *tool)
{
    const char *t = cx->rq->san_tool ? cx->rq->san_tool : "memcheck";
    char log[PATH_MAX + 32], self[PATH_MAX];
    snprintf(log, sizeof(log), "%s.%s.log", cx->stem, t);
    if (!in_self(self, sizeof(self))) {
        fprintf(stderr, "harness: --sanitize: cannot find the harness binary: %s\n", strerror(errno));
        return HX_INTERNAL;
    }
    in_inner in;
    in_inner_args(cx, true, &in);
    /* Every kernel of the run is checked, cuBLAS's reference included (slower). A list of the
     * solution's kernels by name would be the solution's to steer: a kernel its PTX text hides, or
     * one it loads at run time from a module of its own, would never be checked, and the report
     * would still read "0 errors". */
    const char *argv[64];
    int argc = 0;
    const char *fixed[] = {tool, "--tool", t, "--error-exitcode", "99", "--target-processes", "all",
                           "--require-cuda-init", "no", "--check-exit-code", "no", "--show-backtrace",
                           "no", "--print-limit", "20", "--log-file", log};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    if (strcmp(t, "memcheck") == 0) { /* the harness's own and cuBLAS's API errors are not findings */
        argv[argc++] = "--report-api-errors";
        argv[argc++] = "no";
    }
    argv[argc++] = self;
    for (int i = 0; i < in.argc; i++) argv[argc++] = in.argv[i];
    argv[argc++] = "--"; /* a solution named "-x.cu" is a file, not an option */
    argv[argc++] = cx->o->solution;
    argv[argc] = NULL;
    const char *env[] = {IN_ENV_SANITIZER, t, "HARNESS_CACHE", cx->o->cache_dir, NULL};

    printf("compute-sanitizer %s — running the harness's %s tests under it (no timing; slow)\n", t,
           cx->o->custom ? in.size : in.tests);
    printf("  checking every kernel the run launches (cuBLAS's reference too)\n");
    unlink(log);
    int rc = in_spawn((char *const *)argv, env, NULL);

    if (rc == HX_NO_DEVICE) { /* the harness under the tool said so already */
        printf("compute-sanitizer %s: no CUDA device, nothing was checked\n", t);
        return HX_NO_DEVICE;
    }
    char *text = ld_read_text(log, NULL);
    in_san_report r;
    in_parse_sanitizer(text ? text : "", &r);
    free(text);
    if (!r.banner) {
        fprintf(stderr, "harness: --sanitize: compute-sanitizer did not run the harness (exit status %d)%s%s\n",
                rc, access(log, R_OK) == 0 ? "; its log: " : "", access(log, R_OK) == 0 ? log : "");
        return HX_INTERNAL;
    }
    bool failed = r.errors > 0 || rc == 99 || (r.errors < 0 && r.findings > 0);
    printf("\nSanitizer: compute-sanitizer %s: ", t);
    if (r.errors >= 0) printf("%d error%s", r.errors, r.errors == 1 ? "" : "s");
    else printf("no summary (the run was cut short), %d report%s", r.findings, r.findings == 1 ? "" : "s");
    if (r.warnings) printf(", %d warning%s (not counted)", r.warnings, r.warnings == 1 ? "" : "s");
    printf(" — full log: %s\n", log);
    if (r.first[0] && (failed || r.warnings)) {
        printf("%s report:\n", failed ? "First" : "First warning");
        fputs(r.first, stdout);
    }
    if (failed) {
        /* the report's own first line says what it is (an invalid read, a race, a barrier...) */
        char what[160] = "";
        const char *c = r.first[0] ? in_san_content(r.first) : NULL;
        if (c) snprintf(what, sizeof(what), ": %.*s", (int)strcspn(c, "\n"), c);
        if (strlen(what) > 110) snprintf(what + 104, sizeof(what) - 104, " ...");
        printf("Status: error (compute-sanitizer %s%s)\n", t, what);
        return HX_ERROR;
    }
    if (rc != HX_SUCCESS && rc != HX_FAILED)
        printf("note: the harness under compute-sanitizer ended with exit status %d: its tests may not "
               "all have run\n", rc);
    return rc >= 0 && rc <= HX_INTERRUPTED ? rc : HX_INTERNAL;
}
