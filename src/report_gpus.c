/* report_gpus.c — `--gpu all`'s printers: a row per judge GPU, as a table or JSON. */
#include <string.h>

#include "report.h"

static void rp_gpus_cells(const gp_row *row, char tests[2][32], char *ms, size_t mslen)
{
    if (row->judge_n)
        snprintf(tests[0], 32, "%d/%d", row->judge_pass, row->judge_n);
    else
        snprintf(tests[0], 32, "–");
    if (row->extra_n)
        snprintf(tests[1], 32, "%d/%d", row->extra_pass, row->extra_n);
    else
        snprintf(tests[1], 32, "–");
    if (row->timed)
        snprintf(ms, mslen, "%.4fms", row->perf_ms);
    else
        snprintf(ms, mslen, "–");
}

/* Display width of a UTF-8 string (the dash counts as one column). */
static int rp_gpus_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) w += (*p & 0xC0) != 0x80;
    return w;
}

static void rp_gpus_pad(FILE *out, const char *s, int width)
{
    fputs(s, out);
    for (int i = rp_gpus_width(s); i < width; i++) fputc(' ', out);
}

void rp_gpus_text(FILE *out, const char *solution, const gp_matrix *m)
{
    const pb_problem *p = m->problem;
    fprintf(out, "%s — %s, %s\n", p->name, p->title, p->origin);
    fprintf(out, "solution  %s\n", solution);
    const dv_info *d = &m->device;
    if (d->present)
        fprintf(out, "device    %s · sm_%d%d · %d SMs\n", d->name, d->cc_major, d->cc_minor,
                d->sm_count);
    else
        fprintf(out, "device    none (%s)\n", d->error[0] ? d->error : "no CUDA device");

    static const char *const heads[] = {"GPU", "target", "compiles", "ran here", "judge tests",
                                        "extra tests", "runtime (performance)"};
    enum { NC = sizeof(heads) / sizeof(heads[0]) };
    char cells[GP_N][NC][320];
    int width[NC];
    for (int c = 0; c < NC; c++) width[c] = rp_gpus_width(heads[c]);
    for (size_t i = 0; i < GP_N; i++) {
        const gp_row *row = &m->rows[i];
        char tests[2][32], ms[32];
        rp_gpus_cells(row, tests, ms, sizeof(ms));
        snprintf(cells[i][0], 320, "%s", row->gpu->name);
        snprintf(cells[i][1], 320, "%s", row->gpu->arch);
        snprintf(cells[i][2], 320, "%s", row->compiled ? "yes" : "compile-error");
        snprintf(cells[i][3], 320, "%s", row->ran_here);
        snprintf(cells[i][4], 320, "%s", tests[0]);
        snprintf(cells[i][5], 320, "%s", tests[1]);
        snprintf(cells[i][6], 320, "%s", ms);
        for (int c = 0; c < NC; c++)
            if (rp_gpus_width(cells[i][c]) > width[c]) width[c] = rp_gpus_width(cells[i][c]);
    }
    fputc('\n', out);
    for (int c = 0; c < NC; c++) {
        rp_gpus_pad(out, heads[c], c + 1 < NC ? width[c] + 2 : 0);
    }
    fputc('\n', out);
    for (size_t i = 0; i < GP_N; i++) {
        for (int c = 0; c < NC; c++) rp_gpus_pad(out, cells[i][c], c + 1 < NC ? width[c] + 2 : 0);
        fputc('\n', out);
    }

    bool any_error = false, any_ptx = false, any_fail = false, any_load_failed = false;
    for (size_t i = 0; i < GP_N; i++) {
        const gp_row *row = &m->rows[i];
        any_error = any_error || !row->compiled;
        any_ptx = any_ptx || (row->ran && strstr(row->ran_here, "PTX"));
        any_fail = any_fail || ((row->ran || row->load_failed) && row->status != RS_SUCCESS);
        any_load_failed = any_load_failed || row->load_failed;
    }
    if (any_error) {
        fputs("\ncompile errors (nvcc's first error per target; --gpu NAME prints them all):\n", out);
        const char *shown[GP_N] = {0};
        for (size_t i = 0; i < GP_N; i++) {
            const gp_row *row = &m->rows[i];
            bool dup = false;
            for (size_t j = 0; j < i; j++) dup = dup || (shown[j] && strcmp(shown[j], row->gpu->arch) == 0);
            if (row->compiled || dup) continue;
            shown[i] = row->gpu->arch;
            fprintf(out, "  %s: %s\n", row->gpu->arch, row->compile_error);
        }
    }
    if (any_fail) {
        fputs("\nfailures (--gpu NAME shows each test):\n", out);
        for (size_t i = 0; i < GP_N; i++) {
            const gp_row *row = &m->rows[i];
            if ((row->ran || row->load_failed) && row->status != RS_SUCCESS)
                fprintf(out, "  %s: %s%s%s\n", row->gpu->name, rs_status_name(row->status),
                        row->detail[0] ? ": " : "", row->detail);
        }
    }
    fputs("\nEvery compile verdict is a real SASS build for the judge's target. ", out);
    if (any_ptx)
        fputs("A PTX row ran that target's code path (its __CUDA_ARCH__) as PTX the driver compiled "
              "for this GPU: its times are this GPU's, not the judge GPU's. ", out);
    if (d->present)
        fputs("SASS rows' times are this GPU's too, unless it is that chip.\n", out);
    else if (any_load_failed) /* the constructors ran: "nothing ran" would hide their failure */
        fputs("No test ran (no CUDA device), but the object was loaded, and that failed: see the "
              "failures above.\n", out);
    else
        fputs("Nothing ran: no CUDA device.\n", out);
    fprintf(out, "Exit: %d\n", m->exit_code);
}

void rp_gpus_json(FILE *out, const char *solution, const gp_matrix *m)
{
    fputs("{\"problem\":", out);
    rp_json_string(out, m->problem->name);
    fputs(",\"solution\":", out);
    rp_json_string(out, solution);
    const dv_info *d = &m->device;
    if (d->present) {
        fputs(",\"device\":{\"name\":", out);
        rp_json_string(out, d->name);
        fprintf(out, ",\"cc\":\"%d.%d\",\"sms\":%d}", d->cc_major, d->cc_minor, d->sm_count);
    } else {
        fputs(",\"device\":null", out);
    }
    fputs(",\"gpus\":[", out);
    for (size_t i = 0; i < GP_N; i++) {
        const gp_row *row = &m->rows[i];
        fputs(i ? ",{\"gpu\":" : "{\"gpu\":", out);
        rp_json_string(out, row->gpu->name);
        fputs(",\"model\":", out);
        rp_json_string(out, row->gpu->model);
        fputs(",\"target\":", out);
        rp_json_string(out, row->gpu->arch);
        fprintf(out, ",\"compiles\":%s,\"compile_error\":", row->compiled ? "true" : "false");
        if (row->compiled)
            fputs("null", out);
        else
            rp_json_string(out, row->compile_error);
        fprintf(out, ",\"ran\":%s,\"ran_here\":", row->ran ? "true" : "false");
        rp_json_string(out, row->ran_here);
        fprintf(out, ",\"status\":\"%s\",\"exit_code\":%d,\"judge\":[%d,%d],\"extra\":[%d,%d],"
                     "\"runtime_ms\":",
                rs_status_name(row->status), row->exit_code, row->judge_pass, row->judge_n,
                row->extra_pass, row->extra_n);
        if (row->timed)
            fprintf(out, "%.6f", row->perf_ms);
        else
            fputs("null", out);
        fputs(",\"detail\":", out);
        rp_json_string(out, row->detail);
        fputc('}', out);
    }
    fprintf(out, "],\"exit_code\":%d,\"error\":", m->exit_code);
    const char *error = m->detail[0] ? m->detail : m->error; /* null: the tests' verdict */
    if (error[0]) rp_json_string(out, error);
    else fputs("null", out);
    fputs("}\n", out);
}
