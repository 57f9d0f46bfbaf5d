/* text.h — inside src/inspect/ only: the line reading, number scraping and array growth the
 * parsers share (text.c). */
#ifndef INSPECT_TEXT_H
#define INSPECT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Grow an array to hold need elements (zeroing the new ones); NULL when out of memory, base kept. */
void *in_grow(void *base, size_t *cap, size_t need, size_t elem);
/* Copy the line at *p into buf (no newline) and advance *p; false at the end of the text. */
bool in_getline(const char **p, char *buf, size_t len);
const char *in_skip_ws(const char *s);
void in_rtrim(char *s);
bool in_starts(const char *s, const char *prefix);
/* The number just before suffix in line ("16384 bytes smem"); -1 when absent. */
long in_num_before(const char *line, const char *suffix);
/* The number just after prefix in line ("Used 94"); -1 when absent. */
long in_num_after(const char *line, const char *prefix);
/* "sm_90a" → 90 */
int in_arch_num(const char *arch);
/* The text after compute-sanitizer's "=========" prefix; NULL for lines without it. */
const char *in_san_content(const char *line);

#endif
