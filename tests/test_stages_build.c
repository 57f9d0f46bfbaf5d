/* Every solution stage compiles for each architecture its `// Targets:` line names (sm_75 for
 * the T4, sm_80, sm_90a, sm_100a for the B200), one object per target through the loader the
 * harness judges with (gp_build_all over ld_build_start: the same nvcc recipe, the same cache key),
 * into the harness's own cache (build/cache beside HARNESS_BIN). An object already there, from an
 * earlier run of this suite, `./harness` or the leaderboard's judge-GPUs column, is not built
 * again: a warm run starts no nvcc, and a changed stage rebuilds alone. Its "Judge GPUs" line is
 * checked against Targets in test_gpus.c. Needs nvcc, not a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpus.h"
#include "loader.h"
#include "problem.h"
#include "util.h"

#define MAX_JOBS 256

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

/* The harness's default cache: build/cache beside its binary (jd_cache_dir's answer there). */
static void harness_cache(char *out, size_t len)
{
    char bin[PATH_MAX];
    snprintf(bin, sizeof(bin), "%s", HARNESS_BIN);
    snprintf(out, len, "%s/cache", dirname(bin));
}

static void build_dir(const char *dir)
{
    char nvcc[4096];
    cr_assert(ld_find_nvcc(nvcc, sizeof(nvcc)), "nvcc not found");
    static char cache[PATH_MAX], paths[MAX_JOBS][PATH_MAX], archs[MAX_JOBS][16];
    static gp_job jobs[MAX_JOBS];
    harness_cache(cache, sizeof(cache));
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    size_t n = 0;
    int stages = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
        char path[PATH_MAX], targets[256];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        targets_of(path, targets, sizeof(targets));
        cr_expect(targets[0], "%s has no '// Targets:' line", path);
        stages++;
        char *save = NULL;
        for (char *a = strtok_r(targets, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
            cr_expect(ld_arch_valid(a), "%s: bad target '%s'", path, a);
            if (!ld_arch_valid(a)) continue;
            cr_assert_lt(n, MAX_JOBS, "more than %d stage builds in %s", MAX_JOBS, dir);
            snprintf(paths[n], sizeof(paths[n]), "%s", path);
            snprintf(archs[n], sizeof(archs[n]), "%s", a);
            jobs[n] = (gp_job){.src = paths[n],
                               .lo = {.arch = archs[n], .cache_dir = cache, .quiet = true}};
            n++;
        }
    }
    closedir(d);
    cr_assert_gt(stages, 0, "%s holds no stage", dir);
    gp_build_all(jobs, n, 0);
    /* a cached object whose log is gone: built again, so its warnings can be read */
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].status != LD_OK || access(jobs[i].build.log_path, R_OK) == 0) continue;
        jobs[i].lo.rebuild = true;
        jobs[i].status = ld_build_solution(&jobs[i].lo, jobs[i].src, &jobs[i].build);
    }
    size_t compiled = 0;
    for (size_t i = 0; i < n; i++) {
        const ld_build *b = &jobs[i].build;
        char *log = ld_read_text(b->log_path, NULL);
        cr_expect_eq(jobs[i].status, LD_OK, "%s failed to build for %s: %s\n%s", jobs[i].src,
                     archs[i], b->error, log ? log : "");
        if (jobs[i].status == LD_OK)
            cr_expect(log && !strstr(log, "warning"), "%s builds with warnings for %s:\n%s",
                      jobs[i].src, archs[i], log ? log : "(its build log cannot be read)");
        free(log);
        compiled += !b->cached;
    }
    cr_log_info("%s: %d stages, %zu builds (%zu compiled, the rest cached in %s)", dir, stages, n,
                compiled, cache);
}

/* One build test a stage directory (each its own worker and time limit); the list below makes
 * both the tests and every_problem_is_built's table, so they cannot drift apart. */
#define STAGE_DIRS(X)                                                                              \
    X(gemm_fp16, "solutions")                                                                      \
    X(sgemm, "solutions/sgemm")                                                                    \
    X(matmul_fp32, "solutions/matmul_fp32")                                                        \
    X(batched_matmul_fp32, "solutions/batched_matmul_fp32")                                        \
    X(batched_matmul_fp16, "solutions/batched_matmul_fp16")                                        \
    X(int8_matmul, "solutions/int8_matmul")                                                        \
    X(int4_matmul, "solutions/int4_matmul")
#define STAGE_BUILD_TEST(name, rel)                                                                \
    Test(stages, name##_build, .timeout = 1800) { build_dir(SOURCE_DIR "/" rel); }
STAGE_DIRS(STAGE_BUILD_TEST)

/* every problem's stage directory has a build test above */
Test(stages, every_problem_is_built)
{
#define STAGE_REL(name, rel) rel,
    const char *built[] = {STAGE_DIRS(STAGE_REL)};
#undef STAGE_REL
    for (size_t i = 0; i < pb_count(); i++) {
        char rel[256];
        pb_stage_dir(pb_at(i), rel, sizeof(rel));
        bool found = false;
        for (size_t j = 0; j < sizeof(built) / sizeof(built[0]); j++) found |= strcmp(rel, built[j]) == 0;
        cr_expect(found, "%s's stages (%s) have no build test", pb_at(i)->name, rel);
    }
}

/* Every stage's header teaches (solutions/STAGE_HEADER.md): at most 45 `//` lines, and no run
 * numbers: the run-by-run evidence lives in lab/. */
static void headers_in(const char *dir, const regex_t *run)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
        files++;
        char path[PATH_MAX], line[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        int n = 0;
        while (fgets(line, sizeof(line), f) && strncmp(line, "//", 2) == 0) {
            n++;
            cr_expect(regexec(run, line, 0, NULL, 0) != 0, "%s:%d names a run in its header: %s",
                      path, n, line);
        }
        fclose(f);
        cr_expect_leq(n, 45, "%s: a %d-line header (at most 45)", path, n);
    }
    closedir(d);
    cr_expect_gt(files, 0, "%s holds no stage", dir);
}

Test(stages, headers_teach)
{
    regex_t run;
    cr_assert_eq(regcomp(&run, "(^|[^a-z])runs? [0-9]", REG_EXTENDED | REG_ICASE | REG_NOSUB), 0);
    for (size_t i = 0; i < pb_count(); i++) {
        char rel[256], dir[PATH_MAX];
        pb_stage_dir(pb_at(i), rel, sizeof(rel));
        snprintf(dir, sizeof(dir), "%s/%s", SOURCE_DIR, rel);
        headers_in(dir, &run);
    }
    regfree(&run);
}

/* Whether the probe at out was built by cmd and is newer than everything its depfile (nvcc -MD)
 * names: the probes are programs, not solutions, so the loader's cache does not hold them, and
 * probe_trace includes 12_best, which its own text does not show. */
static bool probe_fresh(const char *out, const char *cmd)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s.cmd", out);
    char *old = tu_slurp(path);
    bool same = old && strcmp(old, cmd) == 0;
    free(old);
    struct stat so, sl;
    snprintf(path, sizeof(path), "%s.log", out); /* the warnings check reads the kept log */
    if (!same || stat(out, &so) != 0 || stat(path, &sl) != 0) return false;
    snprintf(path, sizeof(path), "%s.d", out);
    char *deps = tu_slurp(path);
    if (!deps) return false;
    bool fresh = true;
    char *colon = strchr(deps, ':'), *save = NULL;
    for (char *t = colon ? strtok_r(colon + 1, " \t\n\\", &save) : NULL; t && fresh;
         t = strtok_r(NULL, " \t\n\\", &save)) {
        struct stat sd;
        fresh = stat(t, &sd) == 0 && sd.st_mtim.tv_sec < so.st_mtim.tv_sec;
    }
    free(deps);
    return fresh && colon;
}

/* The two probes that measure the product itself build as their header comments say, without
 * warnings: probe_launch (12_best's launch paths) and probe_trace (12_best with its trace hooks
 * defined, so a change to those hooks is caught here); rebuilt only when they or what they
 * include changed. The other lab/probes/ programs are one-off experiments, built by hand. */
Test(stages, probes_build, .timeout = 600)
{
    char nvcc[4096];
    cr_assert(ld_find_nvcc(nvcc, sizeof(nvcc)), "nvcc not found");
    static const char *probes[] = {"probe_launch", "probe_trace"};
    mkdir(SCRATCH, 0755);
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        char out_path[PATH_MAX], cmd[8192], out[1 << 15], log_path[PATH_MAX + 8],
            cmd_path[PATH_MAX + 8];
        snprintf(out_path, sizeof(out_path), "%s/%s", SCRATCH, probes[i]);
        snprintf(cmd, sizeof(cmd),
                 "'%s' -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -MD -MF '%s.d' -o '%s' "
                 "'%s/lab/probes/%s.cu' 2>&1",
                 nvcc, out_path, out_path, SOURCE_DIR, probes[i]);
        snprintf(log_path, sizeof(log_path), "%s.log", out_path);
        snprintf(cmd_path, sizeof(cmd_path), "%s.cmd", out_path);
        if (!probe_fresh(out_path, cmd)) {
            int code = tu_run_shell(out, sizeof(out), cmd);
            cr_expect_eq(code, 0, "lab/probes/%s.cu failed to build:\n%s", probes[i], out);
            cr_expect(tu_write(log_path, out), "cannot write %s", log_path);
            if (code == 0) tu_write(cmd_path, cmd); /* a failed build is tried again next time */
            else unlink(cmd_path);
        }
        /* the build's own output, fresh or kept from the build that made the binary */
        char *log = tu_slurp(log_path);
        cr_expect(log && !strstr(log, "warning"), "lab/probes/%s.cu builds with warnings:\n%s",
                  probes[i], log ? log : "(no log)");
        free(log);
    }
}
