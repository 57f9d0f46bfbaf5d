/* The command line: each bad input gets one clear line and its own exit code; the loader turns a
 * compile error and a missing symbol into their verdicts (nvcc is on CI; no GPU needed). */
#include <criterion/criterion.h>
#include <string.h>

#include "judge.h"
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
    }
}
