/* text.c — the line reading and number scraping the parsers share, and their arrays' growth.
 * The tools' reports are line-oriented text; these helpers never allocate except in_grow. */
#include "text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Grow an array to hold need elements (zeroing the new ones); NULL when out of memory, base kept. */
void *in_grow(void *base, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return base;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need) nc *= 2;
    char *p = realloc(base, nc * elem);
    if (!p) return NULL;
    memset(p + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return p;
}

/* Copy the line at *p into buf (no newline) and advance *p; false at the end of the text. */
bool in_getline(const char **p, char *buf, size_t len)
{
    if (!*p || !**p) return false;
    const char *e = strchr(*p, '\n');
    size_t n = e ? (size_t)(e - *p) : strlen(*p);
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, *p, c);
    buf[c] = '\0';
    if (c && buf[c - 1] == '\r') buf[c - 1] = '\0';
    *p = e ? e + 1 : *p + n;
    return true;
}

const char *in_skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

void in_rtrim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
}

bool in_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The number just before suffix in line ("16384 bytes smem"); -1 when absent. */
long in_num_before(const char *line, const char *suffix)
{
    const char *s = strstr(line, suffix);
    if (!s) return -1;
    const char *b = s;
    while (b > line && isdigit((unsigned char)b[-1])) b--;
    return b == s ? -1 : strtol(b, NULL, 10);
}

/* The number just after prefix in line ("Used 94"); -1 when absent. */
long in_num_after(const char *line, const char *prefix)
{
    const char *s = strstr(line, prefix);
    if (!s) return -1;
    s += strlen(prefix);
    return isdigit((unsigned char)*s) ? strtol(s, NULL, 10) : -1;
}

/* "sm_90a" → 90 */
int in_arch_num(const char *arch)
{
    return in_starts(arch, "sm_") ? atoi(arch + 3) : 0;
}

/* The text after compute-sanitizer's "=========" prefix; NULL for lines without it (the parser
 * and --sanitize's status line both read it). */
const char *in_san_content(const char *line)
{
    size_t eq = strspn(line, "=");
    if (eq < 8) return NULL;
    return line[eq] == ' ' ? line + eq + 1 : line + eq;
}
