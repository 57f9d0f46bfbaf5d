/* leaderboard.h — run every stage of a problem and rewrite its section of leaderboard.md. */
#ifndef LEADERBOARD_H
#define LEADERBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runner.h"

/* `harness leaderboard ...`; argv[0] is "leaderboard". Returns an exit code. */
int lb_main(int argc, char **argv);

/* Replace the problem's section (between its markers) in old_text with section; append it when
 * the markers are absent. Text outside the markers is kept byte for byte; a "<!--" inside
 * section is written "&lt;!--", so no section carries a marker. Returns a malloc'd string, or
 * NULL when old_text's markers for the problem are not one begin followed by one end (or no
 * memory). */
char *lb_splice(const char *old_text, const char *problem, const char *section);

/* Where name's section is in text: 1 with *b at its begin marker and *e at its end marker, 0
 * when text has neither marker, -1 when its markers are not one begin before one end (the
 * writer's rule, which --check shares). */
int lb_section_bounds(const char *text, const char *name, const char **b, const char **e);

/* Write text to path through a temporary file and rename: readers see the old or the new file,
 * never half of one. A link is written through to its target, whose mode is kept. 0 on
 * success, -1 (errno set) on failure, leaving path untouched. */
int lb_write_atomic(const char *path, const char *text);

/* The *.cu regular files of dir (their names), in stage order (the leading number, then the
 * name), however many: *names malloc'd (free with lb_free_names). Their count, or -1 (errno
 * set) when dir cannot be read. */
int lb_stage_files(const char *dir, char ***names);
void lb_free_names(char **names, int n);

/* The stage's technique: the text after " — " on the file's first line ("" when absent). */
void lb_technique(const char *first_line, char *out, size_t len);

/* --sweep: one stage over the problem's sweep shapes; per shape its verdict and its time beside
 * the cuBLAS time measured in the same process. */
typedef struct {
    char stem[128];
    rs_status status;         /* the stage's verdict (the worst over its shapes) */
    rs_status shape_status[PB_MAX_SHAPES];
    bool timed[PB_MAX_SHAPES];
    double ms[PB_MAX_SHAPES], base_ms[PB_MAX_SHAPES];
    char base_why[160];       /* why the yardstick gave no time at a passed shape (the first one) */
} lb_sweep_stage;

/* What the shapes section shows: the run's stages over its shapes, and how it was made. */
typedef struct {
    const pb_problem *problem;
    const char *command;      /* the command that regenerates the section */
    const char *header;       /* device · driver · date · commit, as the other sections */
    const char *timing_note;
    const char *device_name;
    const char *commit;
    const pb_case *shapes;
    int n_shapes;
    const lb_sweep_stage *stages;
    int n_stages;
} lb_sweep_table;

/* The shapes section (what goes between its markers): table, chart, legend. malloc'd. */
char *lb_shapes_section(const lb_sweep_table *t);
/* The same run as JSON (one object and a newline). */
void lb_shapes_json(FILE *out, const lb_sweep_table *t);

#endif
