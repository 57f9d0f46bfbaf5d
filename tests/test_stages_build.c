/* Every solution stage compiles for each architecture its `// Targets:` line names (sm_75 for
 * the T4, sm_80, sm_90a, sm_100a for the B200), with the harness's own nvcc recipe; its
 * "Judge GPUs" line is checked against Targets in test_gpus.c. Needs nvcc, not a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader.h"
#include "problem.h"
#include "util.h"

/* The archs on the file's Targets line (space separated), or "" when there is none. */
static void targets_of(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    /* the header comment: the first lines that start with "//" */
    while (fgets(line, sizeof(line), f) && strncmp(line, "//", 2) == 0) {
        if (strncmp(line, "// Targets:", 11) == 0) {
            snprintf(out, len, "%s", line + 11);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

static void build_dir(const char *dir)
{
    char nvcc[4096];
    cr_assert(ld_find_nvcc(nvcc, sizeof(nvcc)), "nvcc not found");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    int built = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0) continue;
        char path[4096], targets[256], gencodes[1024] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        targets_of(path, targets, sizeof(targets));
        cr_expect(targets[0], "%s has no '// Targets:' line", path);
        char *save = NULL;
        for (char *a = strtok_r(targets, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
            cr_expect(ld_arch_valid(a), "%s: bad target '%s'", path, a);
            char g[96];
            ld_gencode(a, g, sizeof(g));
            strncat(gencodes, " ", sizeof(gencodes) - strlen(gencodes) - 1);
            strncat(gencodes, g, sizeof(gencodes) - strlen(gencodes) - 1);
        }
        char cmd[8192], out[1 << 15];
        mkdir(SCRATCH, 0755);
        snprintf(cmd, sizeof(cmd),
                 "'%s' -O3 -shared -Xcompiler -fPIC --cudart shared %s -o '%s/stage_%s.so' '%s' 2>&1",
                 nvcc, gencodes, SCRATCH, e->d_name, path);
        int code = tu_run_shell(out, sizeof(out), cmd);
        cr_expect_eq(code, 0, "%s failed to build for%s:\n%s", path, gencodes, out);
        cr_expect(!strstr(out, "warning"), "%s builds with warnings:\n%s", path, out);
        built++;
    }
    closedir(d);
    cr_log_info("%s: %d stages built", dir, built);
}

Test(stages, gemm_fp16_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions"); }
Test(stages, sgemm_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/sgemm"); }
Test(stages, matmul_fp32_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/matmul_fp32"); }
Test(stages, batched_matmul_fp32_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/batched_matmul_fp32"); }
Test(stages, batched_matmul_fp16_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/batched_matmul_fp16"); }
Test(stages, int8_matmul_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/int8_matmul"); }
Test(stages, int4_matmul_build, .timeout = 1800) { build_dir(SOURCE_DIR "/solutions/int4_matmul"); }

/* every problem's stage directory has a suite above */
Test(stages, every_problem_is_built)
{
    const char *built[] = {"solutions", "solutions/sgemm", "solutions/matmul_fp32",
                           "solutions/batched_matmul_fp32", "solutions/batched_matmul_fp16",
                           "solutions/int8_matmul", "solutions/int4_matmul"};
    for (size_t i = 0; i < pb_count(); i++) {
        char rel[256];
        pb_stage_dir(pb_at(i), rel, sizeof(rel));
        bool found = false;
        for (size_t j = 0; j < sizeof(built) / sizeof(built[0]); j++) found |= strcmp(rel, built[j]) == 0;
        cr_expect(found, "%s's stages (%s) have no build test", pb_at(i)->name, rel);
    }
}

/* The probes in lab/probes/ build as their header comments say (probe_trace includes 12_best with its
 * trace hooks defined, so a change to those hooks is caught here). */
Test(stages, probes_build, .timeout = 600)
{
    char nvcc[4096];
    cr_assert(ld_find_nvcc(nvcc, sizeof(nvcc)), "nvcc not found");
    static const char *probes[] = {"probe_launch", "probe_trace"};
    mkdir(SCRATCH, 0755);
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        char cmd[8192], out[1 << 15];
        snprintf(cmd, sizeof(cmd),
                 "'%s' -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o '%s/%s' '%s/lab/probes/%s.cu' 2>&1",
                 nvcc, SCRATCH, probes[i], SOURCE_DIR, probes[i]);
        int code = tu_run_shell(out, sizeof(out), cmd);
        cr_expect_eq(code, 0, "lab/probes/%s.cu failed to build:\n%s", probes[i], out);
        cr_expect(!strstr(out, "warning"), "lab/probes/%s.cu builds with warnings:\n%s", probes[i], out);
    }
}
