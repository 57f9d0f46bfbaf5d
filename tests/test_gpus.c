/* The judge's GPUs (gpus.c) without a GPU: --gpu's names and targets, which local GPU runs which
 * target's code, the compile matrix from real SASS builds, the libcuda stub link, and that every
 * stage's "Judge GPUs" line agrees with its Targets line. Needs nvcc, not a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpus.h"
#include "judge.h" /* the exit codes (HX_*) */
#include "loader.h"
#include "problem.h"
#include "util.h"

static char out[1 << 17];

#define RUN(...) tu_run_harness(out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})
#define FX(name) FIXTURES "/" name ".cu"

Test(gpus, names_map_to_targets_case_insensitively)
{
    static const char *const names[][2] = {{"T4", "sm_75"},    {"t4", "sm_75"},
                                           {"A100", "sm_80"},  {"a100-80gb", "sm_80"},
                                           {"H100", "sm_90a"}, {"h200", "sm_90a"},
                                           {"B200", "sm_100a"}, {"b200", "sm_100a"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const gp_gpu *g = gp_find(names[i][0]);
        cr_assert_not_null(g, "%s", names[i][0]);
        cr_expect_str_eq(g->arch, names[i][1], "%s", names[i][0]);
    }
    cr_expect_null(gp_find("V100"));
    cr_expect_null(gp_find("all"));
    cr_expect_eq(gp_count(), 5);
    char list[128];
    gp_list(list, sizeof(list));
    cr_expect_str_eq(list, "T4, A100, H100, H200, B200");
    gp_names_for_arch("sm_90a", list, sizeof(list));
    cr_expect_str_eq(list, "H100 H200");
    const char *targets[GP_N];
    cr_expect_eq(gp_targets(targets, GP_N), 4, "H100 and H200 share sm_90a: built once");
}

Test(gpus, which_local_gpu_runs_which_target)
{
    /* SASS on its own chip (and later minors of a plain target) */
    cr_expect_eq(gp_how_runs("sm_75", 7, 5), GP_RUN_SASS);
    cr_expect_eq(gp_how_runs("sm_80", 8, 0), GP_RUN_SASS);
    cr_expect_eq(gp_how_runs("sm_80", 8, 6), GP_RUN_SASS);
    cr_expect_eq(gp_how_runs("sm_90a", 9, 0), GP_RUN_SASS);
    cr_expect_eq(gp_how_runs("sm_100a", 10, 0), GP_RUN_SASS);
    /* plain targets on a newer chip: PTX the driver compiles */
    cr_expect_eq(gp_how_runs("sm_75", 8, 0), GP_RUN_PTX);
    cr_expect_eq(gp_how_runs("sm_75", 9, 0), GP_RUN_PTX);
    cr_expect_eq(gp_how_runs("sm_80", 9, 0), GP_RUN_PTX);
    cr_expect_eq(gp_how_runs("sm_80", 10, 0), GP_RUN_PTX);
    /* arch-specific code elsewhere, or any code on an older chip: not at all */
    cr_expect_eq(gp_how_runs("sm_100a", 9, 0), GP_RUN_NONE);
    cr_expect_eq(gp_how_runs("sm_90a", 10, 0), GP_RUN_NONE);
    cr_expect_eq(gp_how_runs("sm_90a", 8, 0), GP_RUN_NONE);
    cr_expect_eq(gp_how_runs("sm_100a", 10, 3), GP_RUN_NONE);
    cr_expect_eq(gp_how_runs("sm_80", 7, 5), GP_RUN_NONE);
}

Test(gpus, cli_refuses_unknown_gpus_and_arch_together)
{
    cr_expect_eq(RUN("--gpu", "V100", FX("correct")), HX_USAGE);
    cr_expect(strstr(out, "unknown GPU 'V100'") && strstr(out, "T4, A100, H100, H200, B200"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), strrchr(out, '\n'), "one line: %s", out);
    cr_expect_eq(RUN("--gpu", "T4", "--arch", "sm_80", FX("correct")), HX_USAGE);
    cr_expect(strstr(out, "--gpu and --arch"), "%s", out);
    cr_expect_eq(RUN("--arch", "sm_80", "--gpu", "all", FX("correct")), HX_USAGE);
    cr_expect_eq(RUN("--help"), HX_SUCCESS);
    cr_expect(strstr(out, "--gpu NAME") && strstr(out, "B200 (sm_100a)") && strstr(out, " 13 "), "%s", out);
}

Test(gpus, t4_without_a_gpu_compiles_sm75_and_says_no_device, .timeout = 180)
{
    char why[256];
    int code = RUN("--gpu", "t4", "--json", FX("correct"));
    cr_expect(strstr(out, "\"arch\":\"sm_75\"") && strstr(out, "\"gpu\":\"T4\""), "%s", out);
    cr_expect(strstr(out, "-gencode=arch=compute_75,code=sm_75"), "%s", out);
    if (!tu_have_gpu(why, sizeof(why))) {
        cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
        cr_expect(strstr(out, "no CUDA device found"), "%s", out);
        /* a target no GPU could run here is still "no device", not 13 */
        cr_expect_eq(RUN("--gpu", "B200", FX("correct")), HX_NO_DEVICE, "%s", out);
    }
}

Test(gpus, compile_matrix_takes_sass_builds, .timeout = 300)
{
    /* wgmma.fence is sm_90a-only: a PTX-only build would "compile" everywhere */
    int code = RUN("--gpu", "all", "--json", FX("sm90a_only"));
    cr_expect_eq(code, HX_COMPILE, "%s", out);
    static const char *const rows[] = {
        "\"gpu\":\"T4\",\"model\":\"T4\",\"target\":\"sm_75\",\"compiles\":false",
        "\"gpu\":\"A100\",\"model\":\"A100-80GB\",\"target\":\"sm_80\",\"compiles\":false",
        "\"gpu\":\"H100\",\"model\":\"H100\",\"target\":\"sm_90a\",\"compiles\":true",
        "\"gpu\":\"H200\",\"model\":\"H200\",\"target\":\"sm_90a\",\"compiles\":true",
        "\"gpu\":\"B200\",\"model\":\"B200\",\"target\":\"sm_100a\",\"compiles\":false"};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        cr_expect(strstr(out, rows[i]), "%s in %s", rows[i], out);
    cr_expect(strstr(out, "wgmma.fence"), "nvcc's error is quoted: %s", out);
    /* the table form, and a plain solution: every target compiles */
    char why[256];
    code = RUN("--gpu", "all", FX("correct"));
    cr_expect(strstr(out, "B200  sm_100a  yes"), "%s", out);
    if (!tu_have_gpu(why, sizeof(why))) {
        cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
        cr_expect(strstr(out, "no: no CUDA device"), "%s", out);
    }
}

Test(gpus, judge_gpus_column_from_real_builds, .timeout = 300)
{
    /* the leaderboard's column: every target built (side by side, cached) */
    const char *files[] = {FX("correct"), FX("sm90a_only"), FX("compile_error")};
    char names[3][64];
    gp_judge_gpus(files, 3, NULL, SCRATCH "/cache", names);
    cr_expect_str_eq(names[0], "T4 A100 H100 H200 B200");
    cr_expect_str_eq(names[1], "H100 H200");
    cr_expect_str_eq(names[2], "");
}

/* --gpu all without a device still loads each target's object: a constructor that aborts or
 * hangs is the row's verdict (11, 9), and the row, the footer, the JSON and the exit code all
 * say so; never "Nothing ran". With a GPU only the exit code is the same everywhere. */
Test(gpus, all_without_a_device_shows_a_load_that_failed, .timeout = 300)
{
    char why[256];
    bool gpu = tu_have_gpu(why, sizeof(why));
    int code = RUN("--gpu", "all", FX("ctor_abort"));
    cr_expect_eq(code, HX_ERROR, "%s", out);
    cr_expect(!strstr(out, "Nothing ran"), "a load crashed: %s", out);
    if (!gpu) {
        cr_expect(strstr(out, "T4    sm_75    yes       no: no CUDA device; loading it: error"), "%s", out);
        cr_expect(strstr(out, "failures (--gpu NAME shows each test):\n  T4: error: the solution's "
                              "process was killed by signal 6 (SIGABRT"), "%s", out);
        cr_expect(strstr(out, "harness: sm_75: the solution's process was killed by signal 6"),
                  "the error line on stderr: %s", out);
        cr_expect(strstr(out, "Exit: 11"), "%s", out);
    }
    code = RUN("--gpu", "all", "--json", FX("ctor_abort"));
    cr_expect_eq(code, HX_ERROR, "%s", out);
    if (!gpu) {
        cr_expect(strstr(out, "\"ran_here\":\"no: no CUDA device; loading it: error\",\"status\":"
                              "\"error\",\"exit_code\":11"), "%s", out);
        cr_expect(strstr(out, "\"detail\":\"the solution's process was killed by signal 6"), "%s", out);
        cr_expect(strstr(out, "\"exit_code\":11,\"error\":\"sm_75: the solution's process was "
                              "killed by signal 6"), "the error is not null: %s", out);
    }
    code = RUN("--gpu", "all", "--timeout", "1", "--json", FX("ctor_hang"));
    cr_expect_eq(code, HX_TIMEOUT, "%s", out);
    if (!gpu)
        cr_expect(strstr(out, "no: no CUDA device; loading it: timeout") &&
                  strstr(out, "\"error\":\"sm_75: loading the solution (its constructors) did not "
                              "finish within the 1 s limit"), "%s", out);
}

/* The NEEDED entries of a cached object, from the JSON's "object" path. */
static void needed_of(const char *json, char *needed, size_t len)
{
    const char *o = strstr(json, "\"object\":\"");
    cr_assert_not_null(o, "%s", json);
    o += strlen("\"object\":\"");
    char path[4096], cmd[4200];
    snprintf(path, sizeof(path), "%.*s", (int)strcspn(o, "\""), o);
    snprintf(cmd, sizeof(cmd), "readelf -d '%s' | grep NEEDED", path);
    cr_assert_eq(tu_run_shell(needed, len, cmd), 0, "%s", cmd);
}

Test(gpus, driver_api_links_libcuda_only_where_called, .timeout = 300)
{
    char why[256], needed[4096];
    int code = RUN("--gpu", "H100", "--json", FX("driver_api"));
    needed_of(out, needed, sizeof(needed));
    cr_expect(strstr(needed, "libcuda.so.1"), "driver_api's object needs the driver: %s", needed);
    if (!tu_have_gpu(why, sizeof(why))) { /* no driver here: "no device", not a crash */
        cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
        cr_expect(strstr(out, "libcuda.so.1") && strstr(out, "solve was found"), "%s", out);
    }
    RUN("--gpu", "H100", "--json", FX("correct"));
    needed_of(out, needed, sizeof(needed));
    cr_expect(!strstr(needed, "libcuda.so"), "correct.cu never calls the driver: %s", needed);
    cr_expect(strstr(out, "-lcuda"), "the recipe links the stub: %s", out);
}

Test(gpus, stub_found_through_an_nvcc_wrapper_script)
{
    /* CI's /usr/local/bin/nvcc is a two-line script exec'ing the toolkit's nvcc: its path says
     * nothing about the toolkit, so the stub directory must come from nvcc itself */
    char nvcc[4096], direct[4096], wrapped[4096], script[4200];
    cr_assert(ld_find_nvcc(nvcc, sizeof(nvcc)), "nvcc");
    ld_driver_stubs(nvcc, direct, sizeof(direct));
    cr_assert(direct[0], "the stub directory of %s", nvcc);
    mkdir(SCRATCH, 0755);
    const char *wrapper = SCRATCH "/nvcc-wrapper";
    snprintf(script, sizeof(script), "#!/bin/sh\nexec '%s' \"$@\"\n", nvcc);
    cr_assert(tu_write(wrapper, script));
    cr_assert_eq(chmod(wrapper, 0755), 0);
    ld_driver_stubs(wrapper, wrapped, sizeof(wrapped));
    char real_direct[4096], real_wrapped[4096];
    cr_assert(realpath(direct, real_direct) && realpath(wrapped, real_wrapped), "%s | %s", direct,
              wrapped);
    cr_expect_str_eq(real_wrapped, real_direct);
}

/* The value after "// KEY" in a file's header comment, or "" when absent. */
static void header_line(const char *path, const char *key, char *val, size_t len)
{
    val[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    size_t kl = strlen(key);
    while (fgets(line, sizeof(line), f) && strncmp(line, "//", 2) == 0)
        if (strncmp(line, key, kl) == 0) {
            snprintf(val, len, "%s", line + kl);
            val[strcspn(val, "\n")] = '\0';
            break;
        }
    fclose(f);
}

static void judge_gpus_match_targets(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0) continue;
        char path[4096], targets[256], listed[256], want[256] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        header_line(path, "// Targets:", targets, sizeof(targets));
        header_line(path, "// Judge GPUs:", listed, sizeof(listed));
        for (size_t g = 0; g < gp_count(); g++) {
            char padded[300], arch[64];
            snprintf(padded, sizeof(padded), "%s ", targets);
            snprintf(arch, sizeof(arch), " %s ", gp_at(g)->arch);
            if (!strstr(padded, arch)) continue;
            strncat(want, " ", sizeof(want) - strlen(want) - 1);
            strncat(want, gp_at(g)->name, sizeof(want) - strlen(want) - 1);
        }
        cr_expect(listed[0], "%s has no '// Judge GPUs:' line after its Targets line (want '//"
                             " Judge GPUs:%s')", path, want);
        cr_expect_str_eq(listed, want, "%s: Judge GPUs '%s', but its Targets '%s' mean '%s'", path,
                         listed, targets, want);
        checked++;
    }
    closedir(d);
    cr_expect(checked > 0, "%s: no stages", dir);
}

Test(gpus, stage_headers_judge_gpus_match_targets)
{
    for (size_t i = 0; i < pb_count(); i++) { /* every problem's stages */
        char rel[256], dir[4096];
        pb_stage_dir(pb_at(i), rel, sizeof(rel));
        snprintf(dir, sizeof(dir), "%s/%s", SOURCE_DIR, rel);
        judge_gpus_match_targets(dir);
    }
}
