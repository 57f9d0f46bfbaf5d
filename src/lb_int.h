/* lb_int.h — what the leaderboard's files share; for src/leaderboard.c and src/lb_*.c only.
 * leaderboard.c: the command, the stage list and the helpers below; lb_stages.c: the stages
 * section; lb_sweep.c: --sweep's run; lb_shapes.c: the shapes section's writers; lb_file.c:
 * the splice between markers and --json's whole-file writes. */
#ifndef LB_INT_H
#define LB_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "device.h"
#include "judge.h"
#include "leaderboard.h"

#define LB_MAX_SIZES 4
#define LB_MAX_STAGES 64 /* stages a section's measured note names (lb_measured_note) */

typedef struct {
    char path[PATH_MAX];
    char stem[128];
    char technique[512];
    int exit_code;
    rs_status status;
    char detail[256];
    int judge_pass, judge_n, extra_pass, extra_n;
    bool timed[LB_MAX_SIZES];
    double ms[LB_MAX_SIZES], base_ms[LB_MAX_SIZES];
    char size_status[LB_MAX_SIZES][32];
    char judge_gpus[64];     /* the judge GPUs it compiles for (gpus.c) */
} lb_stage;

/* --sweep's parts: the sweep list's shapes section, the random-shapes section (lb_random.c). */
enum { LB_PART_SHAPES = 1, LB_PART_RANDOM = 2 };

/* leaderboard.c */
/* The stage files of a folder, in stage order (lb_stage_files): *st malloc'd (NULL when none).
 * -1: unreadable. */
int lb_find_stages(const char *dir, lb_stage **out);
/* The commit a section names: the one given (a copy of the tree without .git, the GPU
 * machine's), or git's for the stage folder dir (run there without a shell). */
void lb_commit_label(const char *given, const char *dir, char *out, size_t len);
/* The line under a section's title: device, driver, runtime, date, commit. */
void lb_run_header(const dv_info *dev, const char *commit, char *out, size_t len);
/* Appended to that line: " <!-- measured: STEM.cu=DIGEST … -->", each stage file of dir as this
 * run read it (ch_digest, 16 hex digits; a file it cannot read is left out). --check compares them
 * with the files of the commit the line names: a label given for a tree that was not that commit
 * (a change staged, not committed) makes the section stale, not current. */
void lb_measured_note(const char *dir, const char *const *stems, int n, char *out, size_t len);
void lb_size_label(const pb_problem *p, const pb_case *c, char *out, size_t len);
/* The same for a bare shape: "17×129×33", or "1000³" for a cube of three sizes. */
void lb_shape_label(const pb_problem *p, pb_size s, char *out, size_t len);
double lb_tflops(const pb_problem *p, const pb_case *c, double ms);
/* The options every stage of a leaderboard run starts from: the command line's, quiet, for
 * problem p, with the judge's cache (its path written into cache, which must outlive them). */
jd_options lb_stage_options(const jd_options *in, const pb_problem *p, char *cache, size_t len);
/* "M":1024,"N":1024,"K":1024: a case's sizes as JSON members */
void lb_json_sizes(FILE *j, const pb_problem *p, const pb_case *c);

/* lb_file.c: splice section (freed there) between marker's markers in out_path, atomically.
 * An exit code. */
int lb_write_section(const char *out_path, const char *marker, char *sec);
/* Whether paths a and b name one file: the same device and inode where both exist, else the
 * same path once their folders are resolved (--json must never overwrite --out). */
bool lb_same_file(const char *a, const char *b);
/* --json's sink: the JSON is written into f (memory), then to path whole by lb_json_close,
 * through a temporary file beside it and a rename, so a failure never leaves half a file; "-"
 * is stdout. */
typedef struct {
    FILE *f;
    char *buf;
    size_t len;
    const char *path;
} lb_json;
/* false after saying why. */
bool lb_json_open(lb_json *j, const char *path);
/* Write what j holds to its path (nothing when it holds nothing) and free it: an exit code
 * (HX_INTERNAL after saying why). */
int lb_json_close(lb_json *j);

/* lb_stages.c: everything after the options: run the stages, write the section (and the
 * JSON). An exit code. */
int lb_run(const pb_problem *p, const jd_options *o_in, lb_stage *stages, int n,
           const pb_case *sizes, int n_sizes, const char *out_path, const char *json_path,
           const char *commit_opt, bool quiet);

/* lb_check.c: --check: whether each section of path (only problem only's, when not NULL)
 * describes its stages as they are now (git, and the host compiler's preprocessor for changes in
 * comments only); a table on stdout (stderr when json_path is "-", none when quiet), one JSON
 * object into json_path on every exit. 0 every section current, 1 one is not (a problem with no
 * stages section too), 3 path unreadable, without sections or its markers ambiguous, 12 no git. */
int lb_check(const char *path, const char *only, const char *json_path, bool quiet);
/* The check's JSON for an exit before any verdict (error: its line on stderr). */
void lb_check_json_error(FILE *j, const char *file, int code, const char *error);

/* lb_shapes.c: how many shapes a stage passed, and the geometric mean of its ratios (0: none). */
int lb_sweep_totals(const lb_sweep_stage *s, int n_shapes, double *geomean);

/* lb_sweep.c: the stages a sweep runs, in name order: those list names (each prefix must name
 * one), or the problem's default (those of it that exist; list NULL). An exit code (quiet: no
 * line on stderr); picked[] indexes found[]. */
int lb_sweep_pick(const pb_problem *p, const lb_stage *found, int n_found, const char *list,
                  int *picked, int *n_picked, bool quiet);
/* lb_sweep.c: --sweep, from lb_main: the parts (LB_PART_*) it runs and writes. An exit code. */
int lb_sweep_run(const pb_problem *p, const jd_options *o_in, const char *dir,
                 const char *stages_opt, const char *out_path, const char *json_path,
                 const char *commit_opt, bool quiet, unsigned parts);

#endif
