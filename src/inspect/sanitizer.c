/* sanitizer.c — compute-sanitizer's vocabulary and its report parser: the tool names, then a log
 * → errors, warnings, report blocks and the first error to quote. */
#include "inspect.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

bool in_sanitize_tool_valid(const char *t)
{
    return t && (strcmp(t, "memcheck") == 0 || strcmp(t, "racecheck") == 0 ||
                 strcmp(t, "synccheck") == 0 || strcmp(t, "initcheck") == 0);
}


/* Blocks that report no finding: the banner, summaries, the run's own end. */
static bool in_san_ignored(const char *c)
{
    static const char *const skip[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY",
                                       "LEAK SUMMARY", "Target application returned",
                                       "Error: process didn't terminate", "Internal Sanitizer"};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (in_starts(c, skip[i])) return true;
    return false;
}

void in_parse_sanitizer(const char *text, in_san_report *r)
{
    memset(r, 0, sizeof(*r));
    r->errors = -1;
    char line[4096], block[4096] = "";
    bool in_block = false, first_any_set = false, first_err_set = false;
    char first_any[4096] = "";
    const char *p = text;
    for (bool more = true; more;) {
        more = in_getline(&p, line, sizeof(line));
        const char *c = more ? in_san_content(line) : NULL;
        bool blank = c && !*in_skip_ws(c);
        /* a block ends at a bare prefix line, a line without the prefix or the end */
        if (in_block && (!c || blank)) {
            if (!first_any_set) {
                snprintf(first_any, sizeof(first_any), "%s", block);
                first_any_set = true;
            }
            /* racecheck's WARNING and INFO reports do not fail a run: quote an error first */
            if (!first_err_set && !in_starts(block + strspn(block, "= "), "WARNING") &&
                !in_starts(block + strspn(block, "= "), "Warning") &&
                !in_starts(block + strspn(block, "= "), "INFO")) {
                snprintf(r->first, sizeof(r->first), "%s", block);
                first_err_set = true;
            }
            in_block = false;
            block[0] = '\0';
        }
        if (!c || blank) continue;
        if (in_starts(c, "COMPUTE-SANITIZER")) r->banner = true;
        long v;
        if ((v = in_num_after(c, "ERROR SUMMARY: ")) >= 0) r->errors = (r->errors < 0 ? 0 : r->errors) + (int)v;
        if (strstr(c, "RACECHECK SUMMARY:")) {
            long e = in_num_before(c, " error"), w = in_num_before(c, " warning");
            r->errors = (r->errors < 0 ? 0 : r->errors) + (int)(e > 0 ? e : 0);
            r->warnings += (int)(w > 0 ? w : 0);
        }
        if (!in_block) {
            if (in_san_ignored(c)) continue;
            in_block = true;
            r->findings++;
        }
        size_t used = strlen(block);
        if (used < sizeof(block) - 1)
            snprintf(block + used, sizeof(block) - used, "%s\n", line);
    }
    if (!first_err_set && first_any_set) snprintf(r->first, sizeof(r->first), "%s", first_any);
}
