/* ptx.c — the PTX parser: a .ptx file → instruction mix per .entry and .func, with the
 * __launch_bounds__ (.maxntid) of each. */
#include "inspect.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mix.h"
#include "text.h"

/* Whether a PTX opcode's dot-separated parts include part ("ld.volatile.global.u32" has
 * "global"; "shared::cta" counts as "shared"). */
static bool in_ptx_part(const char *op, const char *part)
{
    size_t n = strlen(part);
    for (const char *s = op; s; s = strchr(s, '.')) {
        if (*s == '.') s++;
        if (strncmp(s, part, n) == 0 && (s[n] == '.' || s[n] == ':' || s[n] == '\0')) return true;
    }
    return false;
}

static int in_ptx_class(const char *op)
{
    if (in_starts(op, "fma.") && in_ptx_part(op, "f32")) return IN_P_FMA;
    if (in_starts(op, "mma.sync")) return IN_P_MMA;
    if (in_starts(op, "wmma.mma")) return IN_P_WMMA;
    if (in_starts(op, "wgmma.mma_async")) return IN_P_WGMMA;
    if (in_starts(op, "ldmatrix")) return IN_P_LDMATRIX;
    if (in_starts(op, "cp.async.bulk.tensor")) return IN_P_TMA;
    if (in_starts(op, "cp.async.ca.") || in_starts(op, "cp.async.cg.")) return IN_P_CP_ASYNC;
    if (in_starts(op, "mbarrier.")) return IN_P_MBARRIER;
    if ((in_starts(op, "bar.") && !in_starts(op, "bar.warp")) || in_starts(op, "barrier."))
        return IN_P_BAR;
    bool ld = in_starts(op, "ld."), st = in_starts(op, "st.");
    if (!ld && !st) return -1;
    int v = in_ptx_part(op, "v4") ? 2 : in_ptx_part(op, "v2") ? 1 : 0;
    if (in_ptx_part(op, "global")) return (ld ? IN_P_LDG : IN_P_STG) + v;
    if (in_ptx_part(op, "shared")) return (ld ? IN_P_LDS : IN_P_STS) + v;
    if (in_ptx_part(op, "local")) return ld ? IN_P_LDL : IN_P_STL;
    return -1;
}

/* One PTX statement of a function body: count it when it is an instruction. */
static void in_ptx_stmt(const char *stmt, in_mix_fn *f)
{
    const char *s = in_skip_ws(stmt);
    if (*s == '@') { /* predicate */
        while (*s && !isspace((unsigned char)*s)) s++;
        s = in_skip_ws(s);
    }
    if (!islower((unsigned char)*s)) return; /* directives, labels, operand fragments */
    char op[128];
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]) && n < sizeof(op) - 1) n++;
    if (s[n - 1] == ':') return; /* a label */
    snprintf(op, sizeof(op), "%.*s", (int)n, s);
    f->total++;
    int c = in_ptx_class(op);
    if (c >= 0) f->count[c]++;
}

/* The function a PTX header declares (".visible .entry NAME(" or
 * ".func (.param .b32 r) NAME("); false when it declares none. */
static bool in_ptx_header(const char *t, char *name, size_t len)
{
    const char *s = strstr(t, ".entry");
    if (s && isspace((unsigned char)s[strlen(".entry")])) {
        s = in_skip_ws(s + strlen(".entry"));
    } else if ((s = strstr(t, ".func")) && isspace((unsigned char)s[strlen(".func")])) {
        s = in_skip_ws(s + strlen(".func"));
        if (*s == '(') { /* return value */
            const char *e = strchr(s, ')');
            if (!e) return false;
            s = in_skip_ws(e + 1);
        }
    } else {
        return false;
    }
    size_t n = strcspn(s, "( \t\r\n;");
    if (!n) return false;
    snprintf(name, len, "%.*s", (int)n, s);
    return true;
}

/* The product of .maxntid's dimensions in t (digits only: PTX has no sign there), saturated so
 * that no block size overflows an int. */
static int in_ptx_maxntid(const char *t)
{
    long long prod = 1;
    bool any = false;
    for (const char *s = strstr(t, ".maxntid") + strlen(".maxntid"); *s && *s != ';';) {
        if (!isdigit((unsigned char)*s)) {
            s++;
            continue;
        }
        long long v = 0;
        for (; isdigit((unsigned char)*s); s++) v = v < INT_MAX ? v * 10 + (*s - '0') : INT_MAX;
        prod = v == 0 ? 0 : prod > INT_MAX / v ? INT_MAX : prod * v;
        any = true;
    }
    return any ? (int)(prod < INT_MAX ? prod : INT_MAX) : 0;
}

/* A copy of the PTX with its comments and the text of its strings blanked out (newlines kept):
 * a solution's inline asm lands in the PTX, and a brace in "/ * { * /" or in a .file name must not
 * move the braces' depth, or a kernel after it would vanish from every list the modes use.
 * ptxas accepted this PTX (the cached build ran it), so its lexical rules hold. */
static char *in_ptx_code(const char *text)
{
    char *c = strdup(text);
    if (!c) return NULL;
    enum { CODE, LINE, BLOCK, STRING } st = CODE;
    for (char *s = c; *s; s++) {
        if (st == CODE) {
            if (s[0] == '/' && s[1] == '/') st = LINE, *s = ' ';
            else if (s[0] == '/' && s[1] == '*') st = BLOCK, *s++ = ' ', *s = ' ';
            else if (*s == '"') st = STRING;
        } else if (st == LINE) {
            if (*s == '\n') st = CODE;
            else *s = ' ';
        } else if (st == BLOCK) {
            if (s[0] == '*' && s[1] == '/') st = CODE, *s++ = ' ', *s = ' ';
            else if (*s != '\n') *s = ' ';
        } else { /* a string ends at its quote or its line */
            if (*s == '\\' && s[1] && s[1] != '\n') *s++ = ' ', *s = ' ';
            else if (*s == '"') st = CODE;
            else if (*s == '\n') st = CODE;
            else *s = ' ';
        }
    }
    return c;
}

/* Statements end at ';' or a line's end (.loc and labels have no ';'), braces open and close
 * blocks (and operand vectors). The text is read whole, never in lines of a fixed length: a
 * brace past a line buffer's end would be lost. */
bool in_parse_ptx(const char *text, in_mix *out)
{
    memset(out, 0, sizeof(*out));
    char *code = in_ptx_code(text);
    if (!code) return false;
    long cur = -1;
    long depth = 0;
    bool header = false; /* between a function's name and its opening brace */
    char *seg = code;
    for (char *s = code;; s++) {
        char ch = *s;
        if (ch != '{' && ch != '}' && ch != ';' && ch != '\n' && ch != '\0') continue;
        *s = '\0'; /* the segment [seg, s) as a string; restored below */
        char name[512];
        if (depth == 0 && in_ptx_header(seg, name, sizeof(name))) {
            in_mix_fn *f = in_mix_add(out, name);
            if (!f) {
                free(code);
                in_mix_free(out);
                return false;
            }
            cur = f - out->f;
            header = true;
        }
        if (depth == 0 && header && cur >= 0 && strstr(seg, ".maxntid")) out->f[cur].maxntid = in_ptx_maxntid(seg);
        if (depth > 0 && cur >= 0 && !header) in_ptx_stmt(seg, &out->f[cur]);
        *s = ch;
        seg = s + 1;
        if (ch == '{') {
            depth++;
            header = false;
        } else if (ch == '}' && depth > 0 && --depth == 0) {
            cur = -1;
        } else if (ch == ';' && depth == 0 && header) {
            /* a declaration (".extern .func ... ;"), not a definition: drop it */
            if (cur == (long)out->n - 1 && out->f[cur].total == 0) out->n--;
            header = false;
            cur = -1;
        }
        if (!ch) break;
    }
    free(code);
    return true;
}
