/* mode_sanitize.c — --sanitize: the tests under compute-sanitizer (every kernel the run launches),
 * then its report read back into a status; as text, or with --json as the "sanitize" member (the
 * run's own output then goes to a file beside the log, so that stdout holds the one object). */
#include "modes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "text.h"
#include "tools.h"

/* The "sanitize" member: what ran, where its log and output are, and the report as read. */
static void in_json_sanitize(in_ctx *cx, const char *t, const in_inner *in, const char *log, const char *out,
                             int rc, const in_san_report *r, const char *status)
{
    FILE *j = cx->jm;
    fputs("\"sanitize\":{\"tool\":", j);
    rp_json_string(j, t);
    fputs(cx->o->custom ? ",\"size\":" : ",\"tests\":", j);
    rp_json_string(j, cx->o->custom ? in->size : in->tests);
    fputs(",\"log\":", j);
    rp_json_string(j, log);
    fputs(",\"run_output\":", j);
    rp_json_string(j, out);
    fprintf(j, ",\"run_exit_code\":%d,\"status\":", rc);
    rp_json_string(j, status);
    if (r && r->errors >= 0) fprintf(j, ",\"errors\":%d", r->errors);
    else fputs(",\"errors\":null", j);
    fprintf(j, ",\"warnings\":%d,\"reports\":%d,\"first_report\":", r ? r->warnings : 0, r ? r->findings : 0);
    if (r && r->first[0]) rp_json_string(j, r->first);
    else fputs("null", j);
    fputs("},", j);
}

int in_run_sanitize(in_ctx *cx, const char *tool)
{
    const char *t = cx->rq->san_tool ? cx->rq->san_tool : "memcheck";
    bool json = cx->rq->json;
    char log[PATH_MAX + 32], out[PATH_MAX + 32], self[PATH_MAX];
    snprintf(log, sizeof(log), "%s.%s.log", cx->stem, t);
    snprintf(out, sizeof(out), "%s.%s.out", cx->stem, t);
    if (!in_self(self, sizeof(self)))
        return in_fail(cx, HX_INTERNAL, "--sanitize: cannot find the harness binary: %s", strerror(errno));
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

    if (!json) {
        printf("compute-sanitizer %s — running the harness's %s tests under it (no timing; slow)\n", t,
               cx->o->custom ? in.size : in.tests);
        printf("  checking every kernel the run launches (cuBLAS's reference too)\n");
    }
    unlink(log);
    unlink(out);
    int rc = in_spawn((char *const *)argv, env, json ? out : NULL);

    if (rc == HX_NO_DEVICE) { /* the harness under the tool said so already */
        if (json) in_json_sanitize(cx, t, &in, log, out, rc, NULL, "no_device");
        else printf("compute-sanitizer %s: no CUDA device, nothing was checked\n", t);
        return json ? in_fail(cx, HX_NO_DEVICE, "--sanitize: no CUDA device, nothing was checked") : HX_NO_DEVICE;
    }
    char *text = ld_read_text(log, NULL);
    in_san_report r;
    in_parse_sanitizer(text ? text : "", &r);
    free(text);
    if (!r.banner) {
        if (json) in_json_sanitize(cx, t, &in, log, out, rc, NULL, "not_run");
        return in_fail(cx, HX_INTERNAL, "--sanitize: compute-sanitizer did not run the harness (exit status %d)%s%s",
                       rc, access(log, R_OK) == 0 ? "; its log: " : "", access(log, R_OK) == 0 ? log : "");
    }
    bool failed = r.errors > 0 || rc == 99 || (r.errors < 0 && r.findings > 0);
    bool complete = rc == HX_SUCCESS || rc == HX_FAILED;
    /* the report's own first line says what it is (an invalid read, a race, a barrier...) */
    char what[160] = "";
    const char *c = failed && r.first[0] ? in_san_content(r.first) : NULL;
    if (c) snprintf(what, sizeof(what), ": %.*s", (int)strcspn(c, "\n"), c);
    if (strlen(what) > 110) snprintf(what + 104, sizeof(what) - 104, " ...");
    if (json) {
        in_json_sanitize(cx, t, &in, log, out, rc, &r, failed ? "error" : complete ? "clean" : "incomplete");
        if (failed) return in_fail(cx, HX_ERROR, "error (compute-sanitizer %s%s)", t, what);
        if (rc == HX_FAILED)
            return in_fail(cx, HX_FAILED, "--sanitize: no sanitizer error, but a test failed under it (its output: %s)", out);
        if (!complete)
            return in_fail(cx, rc >= 0 && rc <= HX_INTERRUPTED ? rc : HX_INTERNAL, "--sanitize: the harness under "
                           "compute-sanitizer ended with exit status %d: its tests may not all have run (its output: %s)",
                           rc, out);
        return HX_SUCCESS;
    }
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
        printf("Status: error (compute-sanitizer %s%s)\n", t, what);
        return HX_ERROR;
    }
    if (!complete)
        printf("note: the harness under compute-sanitizer ended with exit status %d: its tests may not "
               "all have run\n", rc);
    return rc >= 0 && rc <= HX_INTERRUPTED ? rc : HX_INTERNAL;
}
