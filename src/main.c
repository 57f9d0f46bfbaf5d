/* main.c — the command line: parse (cli.c), run the pipeline, print, map to an exit code. With
 * --json, stdout holds exactly one JSON object on every exit (but --help and --version); the
 * human lines go to stderr. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "judge.h"
#include "leaderboard.h"
#include "report.h"

#define HARNESS_VERSION "0.1.0"

static int hm_term_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    return c && atoi(c) > 0 ? atoi(c) : 80;
}

/* "harness: MSG" as one line: a file name or an argument may hold a line break or another
 * control character, shown as an escape (\n, \t, \xNN) so the error stays one line. */
static void hm_line(const char *msg)
{
    fputs("harness: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p == '\t') fputs("\\t", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
}

/* An exit before any report: one line on stderr, and with --json the one JSON object. */
static int hm_stop(const char *solution, bool json, int code, const char *msg)
{
    hm_line(msg);
    if (json) rp_json_error(stdout, solution, code, msg);
    return code;
}

/* --gpu all: the matrix, as a table or JSON. */
static int hm_gpu_all(const jd_options *o, bool json)
{
    gp_matrix *m = malloc(sizeof(*m));
    if (!m) return hm_stop(o->solution, json, HX_INTERNAL, "out of memory");
    int code = gp_judge_all(o, m);
    if (!m->problem || m->detail[0]) {
        hm_line(m->detail);
        if (json) rp_json_error(stdout, o->solution, code, m->detail);
    } else {
        if (m->error[0]) hm_line(m->error); /* not a test's verdict */
        if (json) rp_gpus_json(stdout, o->solution, m);
        else rp_gpus_text(stdout, o->solution, m);
    }
    free(m);
    return code;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "leaderboard") == 0) return lb_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "new") == 0) return in_new_main(argc - 1, argv + 1);

    cl_args *a = malloc(sizeof(*a));
    if (!a) return hm_stop(NULL, false, HX_INTERNAL, "out of memory");
    int code = cl_parse(argc, argv, a);
    if (code == HX_SUCCESS && (a->help || a->version)) {
        if (a->help) cl_usage(stdout);
        else printf("harness %s\n", HARNESS_VERSION);
        free(a);
        return HX_SUCCESS;
    }
    if (code == HX_SUCCESS) code = cl_check_arch(a);
    if (code != HX_SUCCESS) {
        code = hm_stop(a->o.solution, a->json, code, a->error);
        free(a);
        return code;
    }
    char cache[PATH_MAX];
    jd_cache_dir(cache, sizeof(cache));
    jd_options o = a->o;
    bool json = a->json, gpu_all = a->gpu_all;
    in_request inspect = a->inspect;
    free(a);
    o.cache_dir = cache;
    o.progress = !o.quiet && isatty(STDERR_FILENO);
    if (gpu_all) return hm_gpu_all(&o, json);
    if (inspect.modes) return in_main(&o, &inspect); /* its own modes, never a judged run */

    jd_result r;
    code = jd_judge(&o, &r);
    if (!r.problem) { /* failed before a problem was known: one line */
        hm_stop(o.solution, json, code, r.detail);
        jd_free(&r);
        return code;
    }
    if (code == HX_COMPILE)
        ld_print_log(r.ptx_failed ? &r.ptx_build : r.vs_failed ? &r.vs_build : &r.build, stderr);
    char note[400];
    jd_timing_note(&o.topts, note, sizeof(note));
    rp_report rep = {.solution = o.solution, .problem = r.problem,
                     .build = r.built ? &r.build : NULL, .arch = r.arch,
                     .run = r.ran ? &r.run : NULL,
                     .status = !r.ran && r.status == RS_ERROR ? RS_NOT_RUN : r.status,
                     .status_detail = r.detail, .timing_note = note, .width = hm_term_width()};
    rep.gpu = r.gpu[0] ? r.gpu : NULL;
    rep.random = o.random.n > 0 ? &o.random : NULL; /* --sweep random's N and seed */
    rep.yardstick = o.topts.yardstick;
    rep.ran_as = r.ran_as[0] ? r.ran_as : NULL;
    rep.vs = o.vs;
    rep.exit_code = code;
    rep.error = r.detail[0] ? r.detail : NULL; /* what is not a test's verdict */
    void (*print_json)(FILE *, const rp_report *) = o.sweep ? rp_sweep_json : rp_json;
    void (*print_text)(FILE *, const rp_report *) = o.sweep ? rp_sweep_text : rp_text;
    if (code == HX_BAD_FILE || code == HX_USAGE || code == HX_BAD_SIZE || code == HX_SIGNATURE ||
        code == HX_NO_SOLVE || code == HX_NO_DEVICE || code == HX_INTERNAL ||
        code == HX_CANNOT_RUN) {
        hm_line(r.detail);
        if (json) print_json(stdout, &rep);
    } else if (json) {
        print_json(stdout, &rep);
    } else {
        print_text(stdout, &rep);
    }
    jd_free(&r);
    return code;
}
