/* json.c — --json for the inspection modes: each mode writes its member into a memory stream and
 * its notes into another, and the one object is printed at the end, with the exit code and the
 * failure's line, whatever happened before. */
#include "modes.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

bool in_json_open(in_ctx *cx)
{
    cx->jm = open_memstream(&cx->jm_buf, &cx->jm_len);
    cx->jn = open_memstream(&cx->jn_buf, &cx->jn_len);
    return cx->jm && cx->jn;
}

void in_json_note(in_ctx *cx, const char *fmt, ...)
{
    if (!cx->jn) return;
    char line[PATH_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    rp_json_string(cx->jn, line);
    fputc(',', cx->jn);
}

void in_json_named(FILE *j, bool first, const char *name, const char *display)
{
    fputs(first ? "{\"name\":" : ",{\"name\":", j);
    rp_json_string(j, name);
    fputs(",\"display\":", j);
    rp_json_string(j, display);
}

void in_json_mix(FILE *j, const in_mix *m, bool sass)
{
    fputs("\"functions\":[", j);
    for (size_t i = 0; i < m->n; i++) {
        const in_mix_fn *f = &m->f[i];
        in_json_named(j, i == 0, f->name, f->display);
        fprintf(j, ",\"instructions\":%ld,\"max_threads\":", f->total);
        if (f->maxntid) fprintf(j, "%d", f->maxntid);
        else fputs("null", j);
        fputs(",\"counts\":{", j);
        int n = sass ? IN_S_N : IN_P_N;
        for (int op = 0; op < n; op++) {
            fprintf(j, "%s", op ? "," : "");
            rp_json_string(j, sass ? in_sass_op_name(op) : in_ptx_op_name(op));
            fprintf(j, ":%ld", f->count[op]);
        }
        fputs("}}", j);
    }
    fputc(']', j);
}

void in_json_ptx(in_ctx *cx)
{
    char ptx[PATH_MAX + 16];
    snprintf(ptx, sizeof(ptx), "%s.ptx", cx->stem);
    fputs("\"ptx\":{\"file\":", cx->jm);
    rp_json_string(cx->jm, ptx);
    fprintf(cx->jm, ",\"target\":\"compute_%s\",", cx->arch + 3);
    in_json_mix(cx->jm, &cx->ptx, false);
    fputs("},", cx->jm);
}

/* A stream's text without its trailing comma; "" when the stream failed. */
static const char *in_json_body(FILE **f, char **buf, size_t *len)
{
    if (*f && fclose(*f) != 0) {
        free(*buf);
        *buf = NULL;
    }
    *f = NULL;
    if (!*buf) return "";
    if (*len && (*buf)[*len - 1] == ',') (*buf)[--*len] = '\0';
    return *buf;
}

int in_json_finish(in_ctx *cx, int code)
{
    const char *members = in_json_body(&cx->jm, &cx->jm_buf, &cx->jm_len);
    const char *notes = in_json_body(&cx->jn, &cx->jn_buf, &cx->jn_len);
    fputs("{\"solution\":", stdout);
    rp_json_string(stdout, cx->o->solution);
    fputs(",\"arch\":", stdout);
    if (cx->arch[0]) rp_json_string(stdout, cx->arch);
    else fputs("null", stdout);
    fprintf(stdout, ",%s%s\"notes\":[%s],\"exit_code\":%d,\"error\":", members, members[0] ? "," : "", notes, code);
    if (code != HX_SUCCESS && cx->error[0]) rp_json_string(stdout, cx->error);
    else if (code != HX_SUCCESS) rp_json_string(stdout, "failed (see stderr)");
    else fputs("null", stdout);
    fputs("}\n", stdout);
    fflush(stdout);
    free(cx->jm_buf);
    free(cx->jn_buf);
    cx->jm_buf = cx->jn_buf = NULL;
    return code;
}
