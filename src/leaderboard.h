/* leaderboard.h — run every stage of a problem and rewrite its section of leaderboard.md. */
#ifndef LEADERBOARD_H
#define LEADERBOARD_H

#include <stdbool.h>
#include <stddef.h>

/* `harness leaderboard ...`; argv[0] is "leaderboard". Returns an exit code. */
int lb_main(int argc, char **argv);

/* Replace the problem's section (between its markers) in old_text with section; append it when
 * the markers are absent. Text outside the markers is kept byte for byte. Returns a malloc'd
 * string, or NULL when old_text has a begin marker without its end. */
char *lb_splice(const char *old_text, const char *problem, const char *section);

/* Write text to path through a temporary file and rename: readers see the old or the new file,
 * never half of one. 0 on success, -1 (errno set) on failure, leaving path untouched. */
int lb_write_atomic(const char *path, const char *text);

/* The stage's technique: the text after " — " on the file's first line ("" when absent). */
void lb_technique(const char *first_line, char *out, size_t len);

#endif
