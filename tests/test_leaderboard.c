/* The leaderboard writer keeps text outside its markers and other sections, and a failed run
 * leaves the file as it was. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "judge.h"
#include "lb_int.h"
#include "leaderboard.h"
#include "util.h"

Test(leaderboard, splice_replaces_only_its_section)
{
    const char *old = "# Title\n\nintro text\n"
                      "<!-- leaderboard:sgemm:begin -->\nSGEMM TABLE\n<!-- leaderboard:sgemm:end -->\n"
                      "middle\n"
                      "<!-- leaderboard:gemm_fp16:begin -->\nOLD FP16\n<!-- leaderboard:gemm_fp16:end -->\n"
                      "footer\n";
    char *t = lb_splice(old, "gemm_fp16", "NEW FP16\n");
    cr_assert_not_null(t);
    cr_expect_str_eq(t, "# Title\n\nintro text\n"
                        "<!-- leaderboard:sgemm:begin -->\nSGEMM TABLE\n<!-- leaderboard:sgemm:end -->\n"
                        "middle\n"
                        "<!-- leaderboard:gemm_fp16:begin -->\nNEW FP16\n<!-- leaderboard:gemm_fp16:end -->\n"
                        "footer\n");
    free(t);
}

Test(leaderboard, splice_appends_a_new_section)
{
    char *t = lb_splice("# Title\nkeep me", "matmul_fp32", "ROWS\n");
    cr_assert_not_null(t);
    cr_expect_str_eq(t, "# Title\nkeep me\n\n<!-- leaderboard:matmul_fp32:begin -->\nROWS\n"
                        "<!-- leaderboard:matmul_fp32:end -->\n");
    free(t);
    cr_expect_null(lb_splice("<!-- leaderboard:x:begin -->\nno end", "x", "y"));
}

/* A marker inside a section's text (a stage's file name, its first line, a --commit label) is
 * defused: the next splice of another section still finds its own markers, and this one's. */
Test(leaderboard, a_marker_in_a_section_is_defused)
{
    const char *old = "# T\n<!-- leaderboard:gemm_fp16:begin -->\nA\n<!-- leaderboard:gemm_fp16:end -->\n"
                      "between\n<!-- leaderboard:sgemm:begin -->\nB\n<!-- leaderboard:sgemm:end -->\n";
    char *t = lb_splice(old, "gemm_fp16", "| 01_x | fast <!-- leaderboard:sgemm:begin --> kernel |\n");
    cr_assert_not_null(t);
    cr_expect(strstr(t, "fast &lt;!-- leaderboard:sgemm:begin --> kernel"), "%s", t);
    char *t2 = lb_splice(t, "sgemm", "NEW B\n");
    cr_assert_not_null(t2, "the sgemm markers are still one begin and one end");
    cr_expect(strstr(t2, "between\n<!-- leaderboard:sgemm:begin -->\nNEW B\n<!-- leaderboard:sgemm:end -->\n"),
              "%s", t2);
    cr_expect(strstr(t2, "<!-- leaderboard:gemm_fp16:end -->\nbetween"), "%s", t2);
    free(t);
    free(t2);
}

/* Markers that do not say which text is the section: nothing is written. */
Test(leaderboard, ambiguous_markers_are_refused)
{
    const char *b = "<!-- leaderboard:x:begin -->", *e = "<!-- leaderboard:x:end -->";
    char buf[512];
    const char *shapes[][4] = {{b, "1", e, "2"}, {b, e, e, ""}, {e, "", b, e}, {e, "", "", ""},
                               {b, b, e, ""}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        snprintf(buf, sizeof(buf), "%s\n%s\n%s\n%s\n%s\n", shapes[i][0], shapes[i][1],
                 shapes[i][2], shapes[i][3], i == 0 ? "<!-- leaderboard:x:begin -->" : "");
        cr_expect_null(lb_splice(buf, "x", "y\n"), "case %zu: %s", i, buf);
        const char *bb, *ee; /* --check's reading of the markers is the writer's */
        cr_expect_eq(lb_section_bounds(buf, "x", &bb, &ee), -1, "case %zu: %s", i, buf);
    }
    const char *bb, *ee;
    cr_expect_eq(lb_section_bounds("a <!-- leaderboard:x:begin -->s<!-- leaderboard:x:end --> z", "x", &bb, &ee), 1);
    cr_expect(bb && ee && !strncmp(bb, "<!-- leaderboard:x:begin", 24) && !strncmp(ee, "<!-- leaderboard:x:end", 22));
    cr_expect_eq(lb_section_bounds("<!-- leaderboard:x-random:begin -->", "x", &bb, &ee), 0, "another section's");
}

/* The file on disk: one that cannot be read whole as text is left as it was (exit 3), and a
 * link is written through to its target, which keeps its mode. */
Test(leaderboard, the_file_is_never_lost)
{
    mkdir(SCRATCH, 0755);
    char dir[] = SCRATCH "/lbfile_XXXXXX", p[600], q[600];
    cr_assert_not_null(mkdtemp(dir));
    /* a NUL byte: what follows it would be lost by a string splice */
    snprintf(p, sizeof(p), "%s/nul.md", dir);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f);
    fwrite("# mine\0after the NUL\n", 1, 22, f);
    fclose(f);
    cr_expect_eq(lb_write_section(p, "x", strdup("S\n")), HX_BAD_FILE);
    struct stat sb;
    cr_expect(stat(p, &sb) == 0 && sb.st_size == 22, "left as it was");
    /* not a regular file (a FIFO: the read must not wait either) */
    snprintf(p, sizeof(p), "%s/fifo.md", dir);
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_expect_eq(lb_write_section(p, "x", strdup("S\n")), HX_BAD_FILE);
    cr_expect(lstat(p, &sb) == 0 && S_ISFIFO(sb.st_mode));
    /* a link: its target is rewritten, the link stays, the mode stays */
    snprintf(p, sizeof(p), "%s/target.md", dir);
    snprintf(q, sizeof(q), "%s/link.md", dir);
    cr_assert(tu_write(p, "# mine\n"));
    cr_assert_eq(chmod(p, 0640), 0);
    cr_assert_eq(symlink("target.md", q), 0);
    cr_expect_eq(lb_write_section(q, "x", strdup("S\n")), HX_SUCCESS);
    cr_expect(lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode), "still a link");
    cr_expect(stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0640, "mode %o", sb.st_mode & 07777);
    char *got = tu_slurp(p);
    cr_expect(got && strstr(got, "# mine\n") && strstr(got, "<!-- leaderboard:x:begin -->\nS\n"),
              "%s", got ? got : "(null)");
    free(got);
    /* a file that does not exist yet: a new one */
    snprintf(p, sizeof(p), "%s/new.md", dir);
    cr_expect_eq(lb_write_section(p, "x", strdup("S\n")), HX_SUCCESS);
    cr_expect_eq(access(p, F_OK), 0);
}

/* The commit label is the stage folder's repository's, asked without a shell: a folder name
 * that a shell would run stays a name. Outside a repository: "unknown". */
Test(leaderboard, commit_label_is_the_stage_folders)
{
    mkdir(SCRATCH, 0755);
    const char *dir = SCRATCH "/lb_git_$(touch lb_pwned)";
    char cmd[1024], want[64] = "", got[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s' && cd '%s' && git init -q . && git -c "
             "user.email=t@t -c user.name=t commit -q --allow-empty -m x && git rev-parse "
             "--short=12 HEAD", dir, dir, dir);
    if (tu_run_shell(want, sizeof(want), cmd) != 0) cr_skip_test("git cannot make a repository here: %s", want);
    want[strcspn(want, "\n")] = '\0';
    lb_commit_label(NULL, dir, got, sizeof(got));
    cr_expect_str_eq(got, want);
    cr_expect_neq(access(SCRATCH "/lb_pwned", F_OK), 0, "no shell ran the folder's name");
    cr_expect_neq(access("lb_pwned", F_OK), 0, "no shell ran the folder's name");
    lb_commit_label(NULL, "/", got, sizeof(got));
    cr_expect_str_eq(got, "unknown");
    lb_commit_label("abc123", dir, got, sizeof(got));
    cr_expect_str_eq(got, "abc123");
}

Test(leaderboard, technique_from_first_line)
{
    char t[128];
    lb_technique("// 03_smem_tiled — shared-memory tiles | of A and B\n", t, sizeof(t));
    cr_expect_str_eq(t, "shared-memory tiles / of A and B");
    lb_technique("// no dash here\n", t, sizeof(t));
    cr_expect_str_eq(t, "");
    /* longer than the cell: cut at a word, marked, never inside a character */
    char s[24];
    lb_technique("// 12_best — one file × every shape and judge GPU\n", s, sizeof(s));
    cr_expect_str_eq(s, "one file × every …");
    lb_technique("// 12_best — ×××××××××××××××××××××××××\n", s, sizeof(s));
    cr_expect_str_eq(s, "××××××××× …");
}

Test(leaderboard, atomic_write_failure_leaves_file)
{
    mkdir(SCRATCH, 0755);
    const char *path = SCRATCH "/lb_atomic.md";
    cr_assert(tu_write(path, "before\n"));
    cr_expect_eq(lb_write_atomic(path, "after\n"), 0);
    char *got = tu_slurp(path);
    cr_expect_str_eq(got, "after\n");
    free(got);
    /* a directory that cannot hold the temporary file: the write fails, nothing changes */
    cr_expect_neq(lb_write_atomic(SCRATCH "/no_such_dir/lb.md", "x"), 0);
}

Test(leaderboard, failed_run_leaves_file_untouched, .timeout = 180)
{
    /* a stage folder whose only stage does not compile: no stage runs on a device, so the run
     * fails and the file must stay byte for byte the same (GPU or not) */
    mkdir(SCRATCH, 0755);
    mkdir(SCRATCH "/lb_stages", 0755);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cp '%s/compile_error.cu' '%s/lb_stages/01_broken.cu'", FIXTURES, SCRATCH);
    cr_assert_eq(tu_run_shell(NULL, 0, cmd), 0);
    const char *path = SCRATCH "/lb_untouched.md";
    const char *before = "# mine\n<!-- leaderboard:gemm_fp16:begin -->\nold rows\n"
                         "<!-- leaderboard:gemm_fp16:end -->\ntail\n";
    cr_assert(tu_write(path, before));
    char out[1 << 14];
    int code = tu_run_harness(out, sizeof(out),
                              (const char *const[]){"leaderboard", "--dir", SCRATCH "/lb_stages",
                                                    "--out", path, "--sizes", "64", NULL});
    cr_expect_neq(code, 0, "%s", out);
    cr_expect(strstr(out, "left untouched"), "%s", out);
    char *after = tu_slurp(path);
    cr_expect_str_eq(after, before);
    free(after);
}

Test(leaderboard, any_number_of_stages_in_name_order)
{
    /* more than the 64 it once kept, made in reverse order so readdir's order is not the names' */
    char dir[] = SCRATCH "/stages_XXXXXX";
    mkdir(SCRATCH, 0755);
    cr_assert_not_null(mkdtemp(dir));
    char path[512], want[16];
    for (int i = 99; i >= 0; i--) {
        snprintf(path, sizeof(path), "%s/%02d_s.cu", dir, i);
        cr_assert(tu_write(path, "// stage\n"));
    }
    snprintf(path, sizeof(path), "%s/notes.md", dir);
    cr_assert(tu_write(path, "not a stage\n"));
    /* `harness new` numbers past 99: 100 comes after 99 */
    snprintf(path, sizeof(path), "%s/100_s.cu", dir);
    cr_assert(tu_write(path, "// stage\n"));
    /* a FIFO and a folder named *.cu are not stages (reading a FIFO's first line would wait) */
    snprintf(path, sizeof(path), "%s/50_fifo.cu", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof(path), "%s/51_dir.cu", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    char **names;
    int n = lb_stage_files(dir, &names);
    cr_assert_eq(n, 101);
    for (int i = 0; i < n; i++) {
        snprintf(want, sizeof(want), i < 100 ? "%02d_s.cu" : "%d_s.cu", i);
        cr_expect_str_eq(names[i], want);
    }
    lb_free_names(names, n);
    cr_expect_eq(lb_stage_files(SCRATCH "/no_such_dir", &names), -1);
}

/* Its options: each bad value one line naming it, exit 2; a size that cannot be, exit 4; all
 * before any stage runs. */
Test(leaderboard, bad_options_named_before_any_run)
{
    static char out[8192];
    const char *const cases[][3] = {{"--timeout", "abc", "--timeout"}, {"--min-runs", "3.5", "--min-runs"},
                                    {"--sizes", "abc", "--sizes"},     {"--bogus", "x", "--bogus"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int code = tu_run_harness(out, sizeof(out), (const char *const[]){"leaderboard", cases[i][0],
                                  cases[i][1], "--dir", SCRATCH "/no_stages", NULL});
        cr_expect_eq(code, HX_USAGE, "%s: %s", cases[i][0], out);
        cr_expect(strstr(out, cases[i][2]), "%s: %s", cases[i][0], out);
    }
    int code = tu_run_harness(out, sizeof(out), (const char *const[]){"leaderboard", "--sizes", "0",
                              "--dir", SCRATCH "/no_stages", NULL});
    cr_expect_eq(code, HX_BAD_SIZE, "%s", out);
}
