/* sass.c — the SASS parser: `cuobjdump --dump-sass` or `nvdisasm` text → instruction mix per
 * function, loads and stores split by width. */
#include "inspect.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"
#include "text.h"

/* Whether the dot-separated modifiers hold exactly tok (".E.LTC128B.128" holds "128"). */
static bool in_has_mod(const char *mods, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *s = mods; (s = strchr(s, '.')); s++)
        if (strncmp(s + 1, tok, n) == 0 && (s[1 + n] == '.' || s[1 + n] == '\0')) return true;
    return false;
}

static int in_sass_class(const char *op)
{
    char base[32];
    size_t n = strcspn(op, ".");
    snprintf(base, sizeof(base), "%.*s", (int)(n < 31 ? n : 31), op);
    const char *mods = op + n;
    static const struct { const char *base; int op; } plain[] = {
        {"FFMA", IN_S_FFMA}, {"HMMA", IN_S_HMMA}, {"HGMMA", IN_S_HGMMA}, {"LDSM", IN_S_LDSM},
        {"LDGSTS", IN_S_LDGSTS}, {"UTMALDG", IN_S_UTMALDG}, {"LDL", IN_S_LDL}, {"STL", IN_S_STL},
        {"BAR", IN_S_BAR}};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcmp(base, plain[i].base) == 0) return plain[i].op;
    static const struct { const char *base; int op32; } wide[] = {
        {"LDS", IN_S_LDS32}, {"STS", IN_S_STS32}, {"LDG", IN_S_LDG32}, {"STG", IN_S_STG32}};
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
        if (strcmp(base, wide[i].base) == 0) /* the .32, .64, .128 triples are consecutive */
            return wide[i].op32 + (in_has_mod(mods, "128") ? 2 : in_has_mod(mods, "64") ? 1 : 0);
    return -1;
}

/* The opcode of a SASS instruction line: an address comment (slash-star, hex digits, star-slash),
 * an optional predicate ("@!P0"), then "LDG.E.128 R4, ... ;". False for the encoding lines (their
 * comment starts with a space and "0x") and everything else. */
static bool in_sass_opcode(const char *line, char *op, size_t len)
{
    const char *s = in_skip_ws(line);
    if (s[0] != '/' || s[1] != '*' || !isxdigit((unsigned char)s[2])) return false;
    s += 2;
    while (isxdigit((unsigned char)*s)) s++;
    if (s[0] != '*' || s[1] != '/') return false;
    s = in_skip_ws(s + 2);
    if (*s == '@') { /* predicate */
        while (*s && !isspace((unsigned char)*s)) s++;
        s = in_skip_ws(s);
    }
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]) && s[n] != ';') n++;
    if (!n || !isupper((unsigned char)s[0])) return false;
    snprintf(op, len, "%.*s", (int)n, s);
    return true;
}

bool in_parse_sass(const char *text, in_mix *out)
{
    memset(out, 0, sizeof(*out));
    char line[4096], op[128];
    long cur = -1;
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        const char *t = in_skip_ws(line);
        char name[512] = "";
        if (in_starts(t, "Function : ")) { /* cuobjdump */
            snprintf(name, sizeof(name), "%s", t + strlen("Function : "));
        } else if (in_starts(t, ".text.")) { /* nvdisasm: the function's label ".text.NAME:" */
            snprintf(name, sizeof(name), "%s", t + strlen(".text."));
            in_rtrim(name);
            size_t n = strlen(name);
            if (!n || name[n - 1] != ':') continue;
            name[n - 1] = '\0';
        }
        if (name[0]) {
            in_rtrim(name);
            in_mix_fn *f = in_mix_add(out, name);
            if (!f) {
                in_mix_free(out);
                return false;
            }
            cur = f - out->f;
            continue;
        }
        if (cur < 0 || !in_sass_opcode(line, op, sizeof(op))) continue;
        in_mix_fn *f = &out->f[cur];
        f->total++;
        int c = in_sass_class(op);
        if (c >= 0) f->count[c]++;
    }
    return true;
}
