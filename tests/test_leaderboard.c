/* The leaderboard writer keeps text outside its markers and other sections, and a failed run
 * leaves the file as it was. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "judge.h"
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
    char **names;
    int n = lb_stage_files(dir, &names);
    cr_assert_eq(n, 100);
    for (int i = 0; i < n; i++) {
        snprintf(want, sizeof(want), "%02d_s.cu", i);
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
