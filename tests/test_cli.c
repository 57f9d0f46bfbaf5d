/* The command line: each bad input gets one clear line and its own exit code; the loader turns a
 * compile error and a missing symbol into their verdicts (nvcc is on CI; no GPU needed). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archs.h"
#include "judge.h"
#include "report.h"
#include "util.h"

static char out[1 << 16];

#define RUN(...) tu_run_harness(out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})

Test(cli, help_and_version)
{
    cr_expect_eq(RUN("--help"), HX_SUCCESS);
    cr_expect(strstr(out, "usage: harness") && strstr(out, "exit codes"));
    cr_expect(strstr(out, "--vs OTHER.cu") && strstr(out, "95% interval") && !strstr(out, "%%"),
              "%s", out);
    cr_expect(strstr(out, "int4_matmul"), "every problem named: %s", out);
    cr_expect_eq(RUN("--version"), HX_SUCCESS);
}

Test(cli, usage_errors)
{
    cr_expect_eq(RUN("--no-such-option", FIXTURES "/correct.cu"), HX_USAGE);
    cr_expect(strstr(out, "unknown option"), "%s", out);
    cr_expect_eq(tu_run_harness(out, sizeof(out), (const char *const[]){NULL}), HX_USAGE);
    cr_expect(strstr(out, "no solution file"), "%s", out);
    cr_expect_eq(RUN("--problem", "nope", FIXTURES "/correct.cu"), HX_USAGE);
    cr_expect(strstr(out, "unknown problem 'nope'"), "%s", out);
    cr_expect_eq(RUN("--size", "12x", FIXTURES "/correct.cu"), HX_USAGE);
    cr_expect_eq(RUN("--tests", "bogus", FIXTURES "/correct.cu"), HX_USAGE);
    cr_expect_eq(RUN("--arch", "compute_90", FIXTURES "/correct.cu"), HX_USAGE);
    cr_expect_eq(RUN("--timeout", "-1", FIXTURES "/correct.cu"), HX_USAGE);
}

Test(cli, bad_files)
{
    cr_expect_eq(RUN(FIXTURES "/does_not_exist.cu"), HX_BAD_FILE);
    cr_expect(strstr(out, "No such file"), "%s", out);
    cr_expect_eq(RUN(SOURCE_DIR "/README.md"), HX_BAD_FILE);
    cr_expect(strstr(out, "not a .cu file"), "%s", out);
    cr_expect_eq(RUN(FIXTURES), HX_BAD_FILE);
    /* ".cu" is no name however the path is written: its own folder's "./.cu" as ".cu" */
    char dir[] = SCRATCH "/dotcu_XXXXXX", path[sizeof(dir) + 8];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/.cu", dir);
    cr_assert(tu_write(path, "extern \"C\" void solve() {}\n"));
    cr_expect_eq(RUN(path), HX_BAD_FILE, "%s", out);
    cr_expect(strstr(out, "not a .cu file"), "%s", out);
    cr_expect_eq(RUN("--vs", path, FIXTURES "/correct.cu"), HX_BAD_FILE, "%s", out);
    cr_expect_eq(RUN("--resources", path), HX_BAD_FILE, "%s", out);
    unlink(path);
    rmdir(dir);
}

/* $NVCC names the one nvcc to use: a folder or a missing file there is the harness's error (12),
 * said as such, never another nvcc's build nor the solution's compile error (5). */
Test(cli, nvcc_variable_that_cannot_run)
{
    const char *bad[] = {FIXTURES, FIXTURES "/no_such_nvcc"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(setenv("NVCC", bad[i], 1), 0);
        cr_expect_eq(RUN("--rebuild", FIXTURES "/correct.cu"), HX_INTERNAL, "%s: %s", bad[i], out);
        cr_expect(strstr(out, "is not an executable file"), "%s: %s", bad[i], out);
    }
    unsetenv("NVCC");
}

Test(cli, size_outside_constraints)
{
    cr_expect_eq(RUN("--size", "8x8x8", FIXTURES "/correct.cu"), HX_BAD_SIZE);
    cr_expect(strstr(out, "outside gemm_fp16's constraints"), "%s", out);
    cr_expect_eq(RUN("--size", "16x16x5000", FIXTURES "/correct.cu"), HX_BAD_SIZE);
}

Test(cli, signature_mismatch_names_both)
{
    cr_expect_eq(RUN("--problem", "gemm_fp16", FIXTURES "/wrong_signature.cu"), HX_SIGNATURE);
    cr_expect(strstr(out, "declares void solve(const half*, const half*, half*, int, int, int, float)"), "%s", out);
    cr_expect(strstr(out, "needs void solve(const half*, const half*, half*, int, int, int, float, float)"), "%s", out);
    /* a float signature is sgemm's: inferred, not a mismatch */
    cr_expect_eq(RUN("--problem", "sgemm", FIXTURES "/correct.cu"), HX_SIGNATURE);
}

Test(cli, compile_error_shows_diagnostics, .timeout = 120)
{
    cr_expect_eq(RUN("--arch", "sm_80", FIXTURES "/compile_error.cu"), HX_COMPILE);
    cr_expect(strstr(out, "error"), "%s", out);
    cr_expect(strstr(out, "compile_error.cu"), "nvcc's diagnostics name the file: %s", out);
    cr_expect(strstr(out, "Status: compile-error"), "%s", out);
}

Test(cli, missing_solve_mentions_extern_c, .timeout = 120)
{
    int code = RUN("--arch", "sm_80", FIXTURES "/no_extern_c.cu");
    cr_expect_eq(code, HX_NO_SOLVE, "%s", out);
    cr_expect(strstr(out, "extern \"C\""), "%s", out);
    cr_expect(strstr(out, "of " FIXTURES "/no_extern_c.cu"), "the file is named: %s", out);
    /* --vs's file without solve is named as --vs's, not as the solution */
    code = RUN("--arch", "sm_80", "--vs", FIXTURES "/no_extern_c.cu", FIXTURES "/correct.cu");
    cr_expect_eq(code, HX_NO_SOLVE, "%s", out);
    cr_expect(strstr(out, "--vs: no symbol 'solve' in the compiled object of " FIXTURES "/no_extern_c.cu"),
              "%s", out);
}

Test(cli, cached_run_skips_nvcc, .timeout = 120)
{
    char why[256];
    RUN("--arch", "sm_80", "--rebuild", "--json", FIXTURES "/correct.cu");
    int code = RUN("--arch", "sm_80", "--json", FIXTURES "/correct.cu");
    cr_expect(strstr(out, "\"cached\":true"), "%s", out);
    if (!tu_have_gpu(why, sizeof(why))) {
        cr_expect_eq(code, HX_NO_DEVICE);
        cr_expect(strstr(out, "no CUDA device found"), "%s", out);
    }
}

Test(cli, vs_checks_its_file_before_any_run)
{
    /* one yardstick at a time; nothing to compare without timing */
    cr_expect_eq(RUN("--vs", FIXTURES "/correct.cu", "--baseline", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--vs", FIXTURES "/correct.cu", "--no-timing", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--vs times the two files"), "%s", out);
    /* two problems: a clear error naming both signatures */
    cr_expect_eq(RUN("--vs", FIXTURES "/int8_correct.cu", FIXTURES "/correct.cu"), HX_SIGNATURE, "%s", out);
    cr_expect(strstr(out, "solve different problems") && strstr(out, "int8_t") && strstr(out, "half"), "%s", out);
    cr_expect_eq(RUN("--vs", FIXTURES "/missing.cu", FIXTURES "/correct.cu"), HX_BAD_FILE, "%s", out);
    cr_expect_eq(RUN("--vs", FIXTURES "/correct.cu", "--arch", "sm_80", FIXTURES "/compile_error.cu"), HX_COMPILE, "%s", out);
    cr_expect_eq(RUN("--vs", FIXTURES "/compile_error.cu", "--arch", "sm_80", FIXTURES "/correct.cu"), HX_COMPILE, "%s", out);
    cr_expect(strstr(out, "--vs") && strstr(out, "compile_error.cu"), "the other file's build is named: %s", out);
    char why[256];
    if (!tu_have_gpu(why, sizeof(why))) {
        cr_expect_eq(RUN("--vs", FIXTURES "/correct.cu", "--arch", "sm_80", "--json", FIXTURES "/correct.cu"),
                     HX_NO_DEVICE, "%s", out);
        cr_expect(strstr(out, "\"vs\":"), "the JSON names the other file: %s", out);
        /* the other file's constructors abort: its failure, named, never this file's (exit 8
         * without a device, as this file alone) */
        cr_expect_eq(RUN("--vs", FIXTURES "/ctor_abort.cu", "--arch", "sm_80", "--json", FIXTURES "/correct.cu"),
                     HX_NO_DEVICE, "%s", out);
        cr_expect(strstr(out, "the --vs file " FIXTURES "/ctor_abort.cu was not compared: error") &&
                      strstr(out, "SIGABRT") && strstr(out, "while loading the --vs file"), "%s", out);
    }
}

Test(cli, empty_test_list_is_a_usage_error)
{
    /* nothing selected would run nothing and report success */
    cr_expect_eq(RUN("--tests", "", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--tests"), "the option is named: %s", out);
    cr_expect_eq(RUN("--tests", ",", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--tests", "example,,", "--json", FIXTURES "/nope.cu"), HX_BAD_FILE, "%s", out);
}

Test(cli, huge_source_refused_before_reading)
{
    /* a sparse file: its size costs no disk, and reading it would cost the whole */
    char path[] = SCRATCH "/huge_XXXXXX.cu";
    mkdir(SCRATCH, 0755);
    int fd = mkstemps(path, 3);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, (off_t)JD_MAX_SOURCE_BYTES + 1), 0);
    close(fd);
    cr_expect_eq(RUN(path), HX_BAD_FILE, "%s", out);
    cr_expect(strstr(out, "4 MiB"), "the cap is named: %s", out);
    unlink(path);
}

/* The launcher: parallel first runs build once, under a lock, and all run the judge. A stub
 * make (which fails if another one is running, as cmake in one build directory does) and a stub
 * judge stand in for the real ones. */
Test(cli, launcher_builds_once_under_a_lock, .timeout = 60)
{
    char dir[] = SCRATCH "/launcher_XXXXXX";
    mkdir(SCRATCH, 0755);
    cr_assert_not_null(mkdtemp(dir));
    char cmd[4096];
    snprintf(cmd, sizeof(cmd),
             "set -e; d='%s'; cp '%s/harness' \"$d/\"; mkdir -p \"$d/src\" \"$d/problems\" \"$d/bin\";"
             "touch \"$d/CMakeLists.txt\";"
             "printf '%%s\\n' '#!/bin/sh' 'mkdir \"$PWD_ROOT/making\" || exit 3' 'sleep 1'"
             " 'echo x >> \"$PWD_ROOT/makes\"' 'mkdir -p \"$PWD_ROOT/build\"'"
             " 'printf \"#!/bin/sh\\necho judged\\n\" > \"$PWD_ROOT/build/harness\"'"
             " 'chmod +x \"$PWD_ROOT/build/harness\"' 'rmdir \"$PWD_ROOT/making\"' > \"$d/bin/make\";"
             "chmod +x \"$d/bin/make\"; export PATH=\"$d/bin:$PATH\" PWD_ROOT=\"$d\";"
             "for i in 1 2 3 4; do (\"$d/harness\" > \"$d/out$i\" 2>&1; echo $? >> \"$d/codes\") & done; wait;"
             "cat \"$d/codes\" | tr '\\n' ' '; echo; wc -l < \"$d/makes\"; cat \"$d\"/out*",
             dir, SOURCE_DIR);
    int rc = tu_run_shell(out, sizeof(out), cmd);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strncmp(out, "0 0 0 0 \n1\n", 11) == 0, "every run judged, one build: %s", out);
}

/* A size that cannot be (0, negative, past int) is exit 4 (the README's "outside the problem's
 * constraints"), with --no-constraints too; text that is not sizes is exit 2. */
Test(cli, sizes_that_cannot_be_are_bad_sizes)
{
    const char *bad[] = {"0x0x0", "-1x16x16", "16x16x2147483648", "99999999999999999999x16x16",
                         "2000000x16x16"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(RUN("--size", bad[i], FIXTURES "/correct.cu"), HX_BAD_SIZE, "%s: %s", bad[i], out);
        if (i < 4) /* the last one is a size --no-constraints lets through */
            cr_expect_eq(RUN("--no-constraints", "--size", bad[i], FIXTURES "/correct.cu"),
                         HX_BAD_SIZE, "%s: %s", bad[i], out);
    }
    cr_expect_eq(RUN("--shapes", "0", FIXTURES "/correct.cu"), HX_BAD_SIZE, "%s", out);
    cr_expect_eq(RUN("--no-constraints", "--shapes", "64,0", FIXTURES "/correct.cu"), HX_BAD_SIZE, "%s", out);
    cr_expect_eq(RUN("--shapes", "4096,2000000", FIXTURES "/correct.cu"), HX_BAD_SIZE, "%s", out);
    cr_expect_eq(RUN("--size", "16x16", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--size", "1e3x16x16", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    /* commas join --shapes' entries: "16,16,16" is three cubes there, never one --size */
    cr_expect_eq(RUN("--size", "16,16,16", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--size", "16,16x16", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--shapes", "64,,64", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
}

/* Buffers no machine holds are the user's size (4), found before any compile, never the
 * solution's error (11): C of 2^40 fp16 elements, and 2^31 + 128 batched rows of many columns. */
Test(cli, buffers_that_cannot_exist_are_bad_sizes)
{
    cr_expect_eq(RUN("--no-constraints", "--size", "1048576x1048576x16", FIXTURES "/correct.cu"),
                 HX_BAD_SIZE, "%s", out);
    cr_expect(strstr(out, "cannot be run") && strstr(out, "64 GiB"), "%s", out);
    cr_expect_eq(RUN("--no-constraints", "--problem", "batched_matmul_fp32", "--size",
                     "128x16777217x4096x16", FIXTURES "/bmm_fp32_correct.cu"), HX_BAD_SIZE, "%s", out);
    /* under the 64 GiB a buffer, over any host's memory (a 61 GiB C, ~550 GiB in all) */
    cr_expect_eq(RUN("--no-constraints", "--size", "181000x181000x16", FIXTURES "/correct.cu"),
                 HX_BAD_SIZE, "%s", out);
    cr_expect(strstr(out, "host memory"), "%s", out);
}

/* --arch is checked against nvcc's own list: a target it does not know is bad usage, not a
 * compile error of the solution. */
Test(cli, arch_nvcc_does_not_know_is_usage)
{
    cr_expect_eq(RUN("--arch", "sm_999", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--arch sm_999") && strstr(out, "sm_80"), "names it and the list: %s", out);
    cr_expect_eq(RUN("--arch", "sm_80a", FIXTURES "/correct.cu"), HX_USAGE, "no sm_80a: %s", out);
    cr_expect_eq(RUN("--arch", "sm_10", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(ar_arch_supported("sm_90a", "compute_75 compute_90 compute_100"));
    cr_expect(ar_arch_supported("sm_100f", "compute_75 compute_90 compute_100"));
    cr_expect_not(ar_arch_supported("sm_10", "compute_75 compute_90 compute_100"));
    cr_expect_not(ar_arch_supported("sm_90f", "compute_90 compute_100"));
    cr_expect_not(ar_arch_supported("sm_75a", "compute_75"));
    cr_expect_not(ar_arch_supported("sm_9", "compute_9"));
    cr_expect_not(ar_arch_supported("compute_90", "compute_90"));
    char list[1024];
    if (ar_nvcc_archs(list, sizeof(list))) cr_expect(ar_arch_supported("sm_80", list), "%s", list);
}

/* Each bad option or value: one line that names it, exit 2. */
Test(cli, every_bad_option_names_itself)
{
    const char *const cases[][3] = {
        {"--size", NULL, "--size"},           {"-s", NULL, "-s"},
        {"--problem", "nope", "--problem"},   {"--tests", "", "--tests"},
        {"--alpha", "x", "--alpha"},          {"--beta", "1e7", "--beta"},
        {"--seed", "1.5", "--seed"},          {"--seed", "-1", "--seed"},
        {"--min-runs", "3.5", "--min-runs"},  {"--min-runs", "2", "--min-runs"},
        {"--max-time", "0", "--max-time"},    {"--timeout", "nan", "--timeout"},
        {"--arch", "compute_90", "--arch"},   {"--gpu", "V100", "--gpu"},
        {"--sanitize=nope", NULL, "--sanitize"}, {"--shapes", "abc", "--shapes"},
        {"--jsn", NULL, "--jsn"},             {"-z", NULL, "-z"},
        {"--json=1", NULL, "--json"},         {"--vs", "", "--vs"},
        {"--alpha", "2", "--size"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *const *c = cases[i];
        int code = c[1] ? RUN(c[0], c[1], FIXTURES "/correct.cu") : RUN(c[0], FIXTURES "/correct.cu");
        if (!c[1] && (strcmp(c[0], "--size") == 0 || strcmp(c[0], "-s") == 0))
            code = RUN(c[0]); /* the value missing at the end */
        cr_expect_eq(code, HX_USAGE, "%s %s: %s", c[0], c[1] ? c[1] : "", out);
        cr_expect(strstr(out, c[2]), "%s: the line names %s: %s", c[0], c[2], out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "%s: one line: %s", c[0], out);
    }
}

/* --help names every option, and every exit code of the table. */
Test(cli, help_is_complete)
{
    cr_assert_eq(RUN("--help"), HX_SUCCESS);
    const char *opts[] = {"--problem", "--tests", "--judge-only", "--perf-only", "--size",
                          "--alpha", "--beta", "--no-constraints", "--sweep", "--shapes", "--seed",
                          "--baseline", "--vs", "--flush-l2", "--no-timing", "--min-runs",
                          "--max-time", "--timeout", "--arch", "--gpu", "--nvcc-flags",
                          "--rebuild", "--json", "--quiet", "--help", "--version", "--resources",
                          "--ptx", "--sass", "--sanitize", "--profile", "4 MiB", " 13 "};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        cr_expect(strstr(out, opts[i]), "--help lacks %s", opts[i]);
    /* each code beside its meaning, as the table prints it (a bare number would be found in
     * the other lines' text) */
    static const char *const meaning[] = {
        "success", "test-case-failed", "bad option or argument", "missing, unreadable",
        "--size/--shapes outside", "compile-error", "no extern \"C\" solve",
        "solve's signature", "no CUDA device", "timeout", "out-of-memory", "error (crash",
        "the harness itself failed", "compiled for the --gpu target", "output-exceeded",
        "interrupted"};
    cr_assert_eq(sizeof(meaning) / sizeof(meaning[0]), HX_INTERRUPTED + 1);
    for (int code = 0; code <= HX_INTERRUPTED; code++) {
        char row[64];
        snprintf(row, sizeof(row), "%2d %s", code, meaning[code]);
        cr_expect(strstr(out, row), "--help lacks exit code %d (\"%s\")", code, row);
    }
}

/* Whether text is exactly one JSON object and a newline, with "exit_code": code and an "error". */
static bool one_json(const char *text, int code)
{
    char want[32];
    snprintf(want, sizeof(want), "\"exit_code\":%d,", code);
    size_t n = strlen(text);
    if (n < 3 || text[0] != '{' || text[n - 1] != '\n' || text[n - 2] != '}') return false;
    if (strchr(text, '\n') != text + n - 1) return false;
    return strstr(text, want) && strstr(text, "\"error\":");
}

/* --json: one object on stdout on every exit, the human line on stderr. */
Test(cli, json_on_every_exit, .timeout = 120)
{
    char cmd[2048];
    const char *const cases[][2] = {
        {"--tests '' --json " FIXTURES "/correct.cu", "2"},
        {"--bogus --json " FIXTURES "/correct.cu", "2"},
        {"--json", "2"},
        {"--json --arch sm_999 " FIXTURES "/correct.cu", "2"},
        {"--json --sweep --no-timing " FIXTURES "/correct.cu", "2"},
        {"--json " FIXTURES "/missing.cu", "3"},
        {"--json " SOURCE_DIR "/README.md", "3"},
        {"--json --size 0x0x0 " FIXTURES "/correct.cu", "4"},
        {"--json --shapes 8x8x8 " FIXTURES "/correct.cu", "4"},
        {"--json --problem gemm_fp16 " FIXTURES "/wrong_signature.cu", "7"},
        {"--json --arch sm_80 " FIXTURES "/compile_error.cu", "5"},
        {"--json --gpu all --sweep " FIXTURES "/correct.cu", "2"},
    };
    /* each case run once: stdout read here, stderr from a file */
    char err_path[] = SCRATCH "/json_stderr_XXXXXX";
    mkdir(SCRATCH, 0755);
    int fd = mkstemp(err_path);
    cr_assert(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int code = atoi(cases[i][1]);
        snprintf(cmd, sizeof(cmd), "HARNESS_CACHE='%s/cache' '%s' %s 2>'%s'", SCRATCH,
                 HARNESS_BIN, cases[i][0], err_path);
        cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), code, "%s: %s", cases[i][0], out);
        cr_expect(one_json(out, code), "%s: stdout is one JSON object: %s", cases[i][0], out);
        char *err = tu_slurp(err_path);
        cr_expect(err && (strstr(err, "harness: ") || code == HX_COMPILE),
                  "%s: stderr has the line: %s", cases[i][0], err ? err : "(unread)");
        cr_expect(err && !strstr(err, "harness: harness: "), "%s: one prefix: %s", cases[i][0],
                  err ? err : "(unread)");
        free(err);
    }
    unlink(err_path);
    /* the harness's own failure (a cache directory it cannot make): 12, one object too */
    snprintf(cmd, sizeof(cmd), "HARNESS_CACHE=/dev/null/cache '%s' --json --arch sm_80 '%s' 2>/dev/null",
             HARNESS_BIN, FIXTURES "/correct.cu");
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_INTERNAL, "%s", out);
    cr_expect(one_json(out, HX_INTERNAL) && strstr(out, "cache directory"), "%s", out);
    char why[256];
    if (!tu_have_gpu(why, sizeof(why))) { /* compiled, solve found, no device: 8 */
        snprintf(cmd, sizeof(cmd), "HARNESS_CACHE='%s/cache' '%s' --json --arch sm_80 '%s' 2>/dev/null",
                 SCRATCH, HARNESS_BIN, FIXTURES "/correct.cu");
        cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_NO_DEVICE, "%s", out);
        cr_expect(one_json(out, HX_NO_DEVICE) && strstr(out, "no CUDA device"), "%s", out);
    }
}

/* --nvcc-flags never reaches nvcc's shell with a character it would read: the command in the
 * value does not run, and the line names the character (exit 2, before any compile). */
Test(cli, nvcc_flags_shell_characters_refused)
{
    const char *mark = SCRATCH "/nvcc_flags_ran";
    mkdir(SCRATCH, 0755);
    unlink(mark);
    char flags[256];
    snprintf(flags, sizeof(flags), "-DX=$(touch${IFS}%s)", mark);
    cr_expect_eq(RUN("--nvcc-flags", flags, FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--nvcc-flags: '$'") && strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
    cr_expect_neq(access(mark, F_OK), 0, "the command in --nvcc-flags ran");
    snprintf(flags, sizeof(flags), "-DX=`touch %s`", mark);
    cr_expect_eq(RUN("--nvcc-flags", flags, FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_neq(access(mark, F_OK), 0, "the command in --nvcc-flags ran");
}

/* The leaderboard's numbers go through the main command's parsers: hex, exponents for a whole
 * number and spaces are exit 2 naming the option, before any stage runs. */
Test(cli, leaderboard_numbers_as_strict_as_the_main_command)
{
    const char *const cases[][2] = {{"--min-runs", "0x10"}, {"--min-runs", "1e1"}, {"--min-runs", " 10"},
                                    {"--max-time", "0x10"}, {"--max-time", " 1"},   {"--max-time", "inf"},
                                    {"--timeout", "0x10"},  {"--timeout", "nan"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_expect_eq(RUN("leaderboard", cases[i][0], cases[i][1], "--dir", SCRATCH "/no_stages",
                         "--out", SCRATCH "/lb_unused.md"),
                     HX_USAGE, "%s '%s': %s", cases[i][0], cases[i][1], out);
        cr_expect(strstr(out, cases[i][0]), "%s: %s", cases[i][0], out);
        cr_expect_eq(RUN(cases[i][0], cases[i][1], FIXTURES "/correct.cu"), HX_USAGE,
                     "main %s '%s': %s", cases[i][0], cases[i][1], out);
    }
    /* good values pass the options: the run stops at the missing folder (exit 3) */
    cr_expect_eq(RUN("leaderboard", "--min-runs", "10", "--max-time", "1e-1", "--timeout", "5",
                     "--dir", SCRATCH "/no_stages", "--out", SCRATCH "/lb_unused.md"),
                 HX_BAD_FILE, "%s", out);
    cr_expect_eq(RUN("leaderboard", "--nvcc-flags", "-DX=1", "--dir", SCRATCH "/no_stages"), HX_USAGE,
                 "the leaderboard takes no --nvcc-flags: %s", out);
}

/* --size runs one case: a --tests that picks other sets is refused, not ignored. */
Test(cli, tests_other_than_perf_refused_with_size)
{
    cr_expect_eq(RUN("--size", "32x32x32", "--tests", "example", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "--tests does not apply with --size"), "%s", out);
    cr_expect_eq(RUN("--size", "32x32x32", "--judge-only", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect_eq(RUN("--json", "--size", "32x32x32", "--tests", "extra", FIXTURES "/correct.cu"), HX_USAGE,
                 "%s", out);
    cr_expect(strstr(out, "\"exit_code\":2") && strstr(out, "--tests does not apply"), "%s", out);
}

/* int4's K check names the group size --size took from the performance case. */
Test(cli, int4_size_names_group_size, .timeout = 120)
{
    cr_expect_eq(RUN("--size", "16x16x16", "-p", "int4_matmul", FIXTURES "/int4_correct.cu"), HX_BAD_SIZE,
                 "%s", out);
    cr_expect(strstr(out, "group_size = 128"), "%s", out);
}

/* --json counts as an option, abbreviated too, and not as another option's value. */
Test(cli, json_abbreviated_not_as_a_value)
{
    cr_expect_eq(RUN("--min-runs", "0", "--js", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":2"), "--js after an error: %s", out);
    cr_expect_eq(RUN("--min-runs", "0", "--nvcc-flags", "--json", FIXTURES "/correct.cu"), HX_USAGE, "%s", out);
    cr_expect(!strstr(out, "\"exit_code\""), "--json as a value: %s", out);
}

/* harness new: a stage numbered past what a next number can be is refused (exit 2, nothing
 * written), never wrapped to a negative or smaller number. */
Test(cli, new_refuses_numbers_without_a_next)
{
    const char *const big[] = {"2147483647_a.cu", "99999999999_a.cu", "99999999999999999999999_a.cu"};
    char dir[] = SCRATCH "/new_big_XXXXXX", path[512];
    mkdir(SCRATCH, 0755);
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        cr_assert_not_null(mkdtemp(strcpy(dir, SCRATCH "/new_big_XXXXXX")));
        snprintf(path, sizeof(path), "%s/%s", dir, big[i]);
        cr_assert(tu_write(path, "//\n"));
        cr_expect_eq(RUN("new", "zz", "--dir", dir), HX_USAGE, "%s: %s", big[i], out);
        cr_expect(strstr(out, big[i]) && strstr(out, "nothing written"), "%s", out);
        snprintf(path, sizeof(path), "%s/-2147483648_zz.cu", dir);
        cr_expect_neq(access(path, F_OK), 0);
    }
    cr_assert_not_null(mkdtemp(strcpy(dir, SCRATCH "/new_big_XXXXXX")));
    snprintf(path, sizeof(path), "%s/2147483646_a.cu", dir);
    cr_assert(tu_write(path, "//\n"));
    cr_expect_eq(RUN("new", "zz", "--dir", dir), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "/2147483647_zz.cu"), "%s", out);
}

/* A test that never ran is never counted as passed: a constructor that aborts (exit 11, with or
 * without a GPU) leaves every later test not run, and the summary says so. */
Test(cli, tests_never_run_are_not_counted_passed, .timeout = 120)
{
    const pb_problem *p = pb_find("gemm_fp16");
    size_t judge = p->n_cases[PB_SET_EXAMPLE] + p->n_cases[PB_SET_FUNCTIONAL] +
                   p->n_cases[PB_SET_PERFORMANCE], extra = p->n_cases[PB_SET_EXTRA];
    cr_expect_eq(RUN("--arch", "sm_80", "--no-timing", FIXTURES "/ctor_abort.cu"), HX_ERROR, "%s", out);
    char want[160];
    snprintf(want, sizeof(want), "Judge tests: failed, %zu not run; extra tests: 0 of %zu passed, "
             "%zu not run\n", judge - 1, extra, extra);
    cr_expect(strstr(out, want), "want '%s' in %s", want, out);
}

/* The summary's words from a run stopped between tests (an interrupt): none failed is not
 * passed, and the extras that never ran are not run, not passed. */
Test(cli, summary_of_a_run_stopped_between_tests)
{
    const pb_problem *p = pb_find("gemm_fp16");
    rs_test tests[3];
    memset(tests, 0, sizeof(tests));
    const pb_set sets[3] = {PB_SET_EXAMPLE, PB_SET_FUNCTIONAL, PB_SET_EXTRA};
    for (int i = 0; i < 3; i++) {
        tests[i].set = sets[i];
        tests[i].status = i ? RS_NOT_RUN : RS_SUCCESS;
        snprintf(tests[i].name, sizeof(tests[i].name), "t%d", i);
    }
    rs_run run;
    memset(&run, 0, sizeof(run));
    run.outcome = RN_OK;
    run.tests = tests;
    run.n_tests = 3;
    rp_report r = {.solution = "x.cu", .problem = p, .arch = "sm_80", .run = &run,
                   .status = RS_INTERRUPTED, .width = 80};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    rp_text(f, &r);
    fclose(f);
    cr_expect(strstr(text, "Judge tests: none failed, 1 not run; extra tests: 0 of 1 passed, 1 not run\n"),
              "%s", text);
    tests[1].status = tests[2].status = RS_SUCCESS; /* all ran: the line as it always was */
    free(text);
    f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    rp_text(f, &r);
    fclose(f);
    cr_expect(strstr(text, "Judge tests: passed; extra tests: 1 of 1 passed\n"), "%s", text);
    free(text);
}

/* A failure that is the harness's own (exit 12, here the sandbox's malformed uid) is one line on
 * stderr with one "harness: ", equal to "harness: " and JSON's error, as for every other exit. */
Test(cli, internal_error_has_one_prefix, .timeout = 120)
{
    if (geteuid() != 0) cr_skip_test("HARNESS_SOLUTION_UID is read only as root");
    char err_path[] = SCRATCH "/uid_stderr_XXXXXX", cmd[2048];
    mkdir(SCRATCH, 0755);
    int fd = mkstemp(err_path);
    cr_assert(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "HARNESS_SOLUTION_UID=junk HARNESS_CACHE='%s/cache' '%s' --json "
             "--arch sm_80 '%s' 2>'%s'", SCRATCH, HARNESS_BIN, FIXTURES "/correct.cu", err_path);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_INTERNAL, "%s", out);
    const char *e = strstr(out, "\"error\":\"");
    cr_assert_not_null(e, "%s", out);
    e += strlen("\"error\":\"");
    char line[600];
    snprintf(line, sizeof(line), "harness: %.*s\n", (int)strcspn(e, "\""), e);
    const char *msg = "HARNESS_SOLUTION_UID: expected UID or UID:GID, got 'junk'";
    cr_expect(strncmp(e, msg, strlen(msg)) == 0, "the error is the message itself: %s", out);
    char *err = tu_slurp(err_path);
    cr_expect(err && strstr(err, line), "stderr has '%s': %s", line, err ? err : "(unread)");
    cr_expect(err && !strstr(err, "harness: harness: "), "one prefix: %s", err ? err : "(unread)");
    free(err);
    unlink(err_path);
}
