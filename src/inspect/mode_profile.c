/* mode_profile.c — --profile: one performance case under Nsight Compute (the solution's kernels
 * only, the metrics the summary prints), then its CSV, in a log file of ncu's own, read back and
 * printed; with --json, every kernel's metrics as the "profile" member. */
#include "modes.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "text.h"
#include "tools.h"

/* The lines of text that start with prefix (ncu's ==ERROR== lines), at most max: printed, or
 * notes of the --json object. */
static int in_print_lines_with(in_ctx *cx, FILE *to, const char *text, const char *prefix, int max)
{
    char line[4096];
    int n = 0;
    for (const char *p = text; n < max && in_getline(&p, line, sizeof(line));)
        if (strstr(line, prefix)) {
            if (cx->rq->json) in_json_note(cx, "%s", line);
            else fprintf(to, "  %s\n", line);
            n++;
        }
    return n;
}

/* The "profile" member: what ran, where ncu's CSV and the run's output are, and per kernel (p
 * NULL: none) every metric with its unit, null where ncu gave no number. */
static void in_json_profile(in_ctx *cx, const char *what, const char *csv, const char *runlog, int rc,
                            const in_profile *p)
{
    FILE *j = cx->jm;
    fputs("\"profile\":{\"case\":", j);
    rp_json_string(j, what);
    fputs(",\"csv\":", j);
    rp_json_string(j, csv);
    fputs(",\"run_output\":", j);
    rp_json_string(j, runlog);
    fprintf(j, ",\"run_exit_code\":%d,\"kernels\":[", rc);
    for (size_t i = 0; p && i < p->n; i++) {
        const in_prof_kernel *k = &p->k[i];
        in_json_named(j, i == 0, k->name, k->display);
        fputs(",\"id\":", j);
        rp_json_string(j, k->id);
        fputs(",\"block\":", j);
        rp_json_string(j, k->block);
        fputs(",\"grid\":", j);
        rp_json_string(j, k->grid);
        fputs(",\"metrics\":{", j);
        for (size_t m = 0; m < k->n; m++) {
            fputs(m ? "," : "", j);
            rp_json_string(j, k->m[m].name);
            fputs(":{\"value\":", j);
            if (isfinite(k->m[m].value)) fprintf(j, "%.17g", k->m[m].value);
            else fputs("null", j);
            fputs(",\"unit\":", j);
            rp_json_string(j, k->m[m].unit);
            fputc('}', j);
        }
        fputs("}}", j);
    }
    fputs("]},", j);
}

int in_run_profile(in_ctx *cx, const char *ncu)
{
    bool json = cx->rq->json;
    char csv[PATH_MAX + 16], runlog[PATH_MAX + 16], self[PATH_MAX];
    snprintf(csv, sizeof(csv), "%s.ncu.csv", cx->stem);
    snprintf(runlog, sizeof(runlog), "%s.ncu.out", cx->stem);
    if (!in_self(self, sizeof(self)))
        return in_fail(cx, HX_INTERNAL, "--profile: cannot find the harness binary: %s", strerror(errno));
    in_inner in;
    in_inner_args(cx, false, &in);
    /* the solution's kernels by mangled name, so that cuBLAS's reference does not fill the launch
     * count and the summary (a profile is no verdict: a kernel the solution loads at run time from a
     * module of its own is not in its PTX and goes unprofiled) */
    size_t nk = cx->have_ptx ? cx->ptx.n : 0, rlen = 32;
    for (size_t i = 0; i < nk; i++) rlen += strlen(cx->ptx.f[i].name) * 2 + 1;
    char *regex = malloc(rlen);
    if (!regex) return HX_INTERNAL;
    size_t u = (size_t)snprintf(regex, rlen, "regex:^(");
    for (size_t i = 0; i < nk; i++) {
        if (i) regex[u++] = '|';
        for (const char *s = cx->ptx.f[i].name; *s; s++) {
            if (!isalnum((unsigned char)*s) && *s != '_') regex[u++] = '\\'; /* literal, whatever it is */
            regex[u++] = *s;
        }
    }
    snprintf(regex + u, rlen - u, ")$");
    static const char metrics[] =
        "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
        "sm__maximum_warps_per_active_cycle_pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
        "sm__cycles_elapsed.avg.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,"
        "l1tex__m_xbar2l1tex_read_bytes.sum.per_second,lts__t_sector_hit_rate.pct,"
        "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,"
        "launch__registers_per_thread,launch__shared_mem_per_block_static,"
        "launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,"
        "launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,"
        "launch__occupancy_limit_blocks,launch__waves_per_multiprocessor,"
        "regex:sm__pipe_tensor.*cycles_active\\.avg\\.pct_of_peak_sustained_active,"
        "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio";
    const char *argv[96];
    int argc = 0;
    /* ncu's own output (its CSV) into a file of its own: the run's output, which the solution
     * writes, goes elsewhere and cannot forge a row */
    const char *fixed[] = {ncu, "--clock-control", "none", "--target-processes", "all", "--csv",
                           "--log-file", csv, "--print-units", "base", "--print-kernel-base", "mangled",
                           "--launch-count", "20", "--metrics", metrics};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    if (nk) {
        argv[argc++] = "--kernel-name-base";
        argv[argc++] = "mangled";
        argv[argc++] = "--kernel-name";
        argv[argc++] = regex;
    }
    argv[argc++] = self;
    for (int i = 0; i < in.argc; i++) argv[argc++] = in.argv[i];
    argv[argc++] = "--"; /* a solution named "-x.cu" is a file, not an option */
    argv[argc++] = cx->o->solution;
    argv[argc] = NULL;
    const char *env[] = {IN_ENV_PROFILER, "ncu", "HARNESS_CACHE", cx->o->cache_dir, NULL};
    unlink(csv);
    int rc = in_spawn((char *const *)argv, env, runlog);
    free(regex);

    char *text = ld_read_text(csv, NULL);
    const char *what = cx->o->custom ? in.size : "the performance case";
    in_profile p;
    bool parsed = text && in_parse_ncu_csv(text, &p);
    int code = HX_SUCCESS;
    if (text && !parsed && p.headers > 1) {
        code = in_fail(cx, HX_INTERNAL, "--profile: ncu's output %s holds %d CSV headers, where ncu writes one: not read",
                       csv, p.headers);
    } else if (text && strstr(text, "ERR_NVGPUCTRPERM")) {
        code = in_fail(cx, HX_INTERNAL, "--profile: ncu cannot read the GPU's performance counters here "
                       "(ERR_NVGPUCTRPERM: they need admin rights, or the driver option "
                       "NVreg_RestrictProfilingToAdminUsers=0)");
    } else if (!parsed || !p.n) {
        if (rc == HX_NO_DEVICE) {
            code = in_fail(cx, HX_NO_DEVICE, "--profile: no CUDA device: nothing to profile");
        } else {
            code = in_fail(cx, HX_INTERNAL, "--profile: ncu returned no kernel profile (exit status %d); its output: "
                           "%s, the run's: %s", rc, csv, runlog);
            if (text && !in_print_lines_with(cx, stderr, text, "==ERROR==", 5))
                in_print_lines_with(cx, stderr, text, "==WARNING==", 5);
        }
    }
    if (code != HX_SUCCESS) {
        if (json) in_json_profile(cx, what, csv, runlog, rc, NULL);
        free(text);
        if (parsed) in_profile_free(&p);
        return code;
    }
    in_dm *d = calloc(p.n, sizeof(*d));
    for (size_t i = 0; d && i < p.n; i++) d[i] = (in_dm){p.k[i].name, p.k[i].display, sizeof(p.k[i].display)};
    if (d) in_demangle(d, p.n);
    free(d);
    if (json) {
        in_json_profile(cx, what, csv, runlog, rc, &p);
        if (rc != 0) in_print_lines_with(cx, stdout, text, "==ERROR==", 5);
    } else {
        printf("Profile — %s, %s, one call under Nsight Compute (ncu --clock-control none; each kernel "
               "replayed once per metric pass): %s\n", cx->o->solution, what, csv);
        in_print_profile(stdout, &p);
        if (rc != 0) {
            printf("note: the run under ncu ended with exit status %d (ncu's output is in %s, the run's in %s)\n",
                   rc, csv, runlog);
            in_print_lines_with(cx, stdout, text, "==ERROR==", 5);
        }
    }
    free(text);
    in_profile_free(&p);
    code = rc >= 0 && rc <= HX_INTERRUPTED ? rc : HX_INTERNAL;
    if (json && rc != 0)
        return in_fail(cx, code, "--profile: the run under ncu ended with exit status %d (ncu's output is in %s, the "
                       "run's in %s)", rc, csv, runlog);
    return code;
}
