/* The build cache from the command line (nvcc on CI, no GPU needed): file names no shell may
 * see, a header edit that must rebuild, nvcc flags that write no object, an interrupted build
 * that must leave nothing behind. Each build is for the default target (the device's; sm_90a
 * without one), so a GPU machine runs what it built. Without a GPU the success path is exit 8:
 * compiled, solve found, nothing run. The hostile names are made in the scratch directory at
 * test time. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge.h"
#include "util.h"

#define CACHE SCRATCH "/buildcache"

/* The harness in dir with args and HARNESS_CACHE=cache, no shell between: names reach it as
 * they are. *out_fd gets its stdout+stderr. */
static pid_t start_in(const char *dir, const char *cache, const char *const *args, int *out_fd)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (dir && chdir(dir) != 0) _exit(126);
        setenv("HARNESS_CACHE", cache, 1);
        const char *argv[32];
        int n = 0;
        argv[n++] = HARNESS_BIN;
        for (int i = 0; args[i] && n < 31; i++) argv[n++] = args[i];
        argv[n] = NULL;
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    *out_fd = fds[0];
    return pid;
}

static int finish(pid_t pid, int fd, char *out, size_t outlen)
{
    size_t n = 0;
    ssize_t r;
    char sink[4096];
    while ((r = read(fd, n + 1 < outlen ? out + n : sink,
                     n + 1 < outlen ? outlen - 1 - n : sizeof(sink))) > 0)
        if (n + 1 < outlen) n += (size_t)r;
    out[n < outlen ? n : outlen - 1] = '\0';
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run_in(const char *dir, const char *cache, const char *const *args, char *out, size_t len)
{
    int fd;
    pid_t pid = start_in(dir, cache, args, &fd);
    return finish(pid, fd, out, len);
}

static char out[1 << 16];

static int expected_success(void)
{
    char why[256];
    return tu_have_gpu(why, sizeof(why)) ? HX_SUCCESS : HX_NO_DEVICE;
}

/* The entries of dir whose name holds what. */
static int count_named(const char *dir, const char *what)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) n += strstr(e->d_name, what) != NULL;
    if (d) closedir(d);
    return n;
}

static void copy_fixture(const char *fixture, const char *dest)
{
    char *text = tu_slurp(fixture);
    cr_assert_not_null(text, "%s", fixture);
    cr_assert(tu_write(dest, text), "cannot write %s: %s", dest, strerror(errno));
    free(text);
}

/* The correct fixture written to dest with prefix (lines of #include or #if) before it. */
static void correct_with_prefix(const char *dest, const char *prefix)
{
    char *text = tu_slurp(FIXTURES "/correct.cu");
    cr_assert_not_null(text);
    char *with = malloc(strlen(prefix) + strlen(text) + 1);
    cr_assert_not_null(with);
    sprintf(with, "%s%s", prefix, text);
    cr_assert(tu_write(dest, with), "cannot write %s: %s", dest, strerror(errno));
    free(with);
    free(text);
}

/* A correct solution under name in the scratch's hostile/ folder, judged from that folder. */
static void judge_named(const char *name, bool after_dashes)
{
    char dir[512], path[1024];
    snprintf(dir, sizeof(dir), "%s/hostile", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    copy_fixture(FIXTURES "/correct.cu", path);
    const char *with_dashes[] = {"--", name, NULL};
    const char *plain[] = {name, NULL};
    int code = run_in(dir, CACHE, after_dashes ? with_dashes : plain, out, sizeof(out));
    cr_expect_eq(code, expected_success(), "%s: %s", name, out);
    /* as given, a line break shown as \n: the harness's error line stays one line */
    char shown[600];
    size_t k = 0;
    for (const char *c = name; *c && k + 3 < sizeof(shown); c++) {
        if (*c == '\n') shown[k++] = '\\', shown[k++] = 'n';
        else shown[k++] = *c;
    }
    shown[k] = '\0';
    cr_expect(strstr(out, shown) || strstr(out, name), "the messages name the file as given: %s", out);
    const char *line = strstr(out, "harness: ");
    if (line) cr_expect(strchr(line, '\n') == line + strlen(line) - 1, "one line: %s", line);
    cr_expect(!strstr(out, "uid="), "no shell ran the name: %s", out);
}

Test(names, backticks, .timeout = 240) { judge_named("a`id`b.cu", false); }
Test(names, double_quote, .timeout = 240) { judge_named("q\"uote.cu", false); }
Test(names, dollar_home, .timeout = 240) { judge_named("$HOME.cu", false); }
Test(names, leading_dash, .timeout = 240) { judge_named("-lead.cu", true); }
Test(names, spaces, .timeout = 240) { judge_named("with some spaces.cu", false); }
Test(names, line_break, .timeout = 240) { judge_named("new\nline.cu", false); }

/* A path near PATH_MAX: 14 folders of 240 characters, then a 200-character name. */
Test(names, very_long, .timeout = 240)
{
    static char path[4096];
    char part[241], name[201];
    memset(part, 'd', 240);
    part[240] = '\0';
    memset(name, 'n', 196);
    strcpy(name + 196, ".cu");
    size_t u = (size_t)snprintf(path, sizeof(path), "%s/long", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(path, 0755);
    for (int i = 0; i < 14; i++) {
        u += (size_t)snprintf(path + u, sizeof(path) - u, "/%s", part);
        cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", strerror(errno));
    }
    snprintf(path + u, sizeof(path) - u, "/%s", name);
    cr_assert(strlen(path) > 3500, "%zu", strlen(path));
    copy_fixture(FIXTURES "/correct.cu", path);
    const char *args[] = {path, NULL};
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
}

/* The namespaced helper first: judged as the extern "C" solve's problem. */
Test(names, problem_from_the_extern_c_solve, .timeout = 240)
{
    const char *args[] = {"--json", FIXTURES "/sig_namespace_helper.cu", NULL};
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect(strstr(out, "\"problem\":\"gemm_fp16\""), "%s", out);
}

/* An included header edited: the object is rebuilt, then the old one is found again. */
Test(cache, header_edit_rebuilds, .timeout = 300)
{
    char dir[512], cu[600], h[600];
    snprintf(dir, sizeof(dir), "%s/hdr", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(dir, 0755);
    snprintf(cu, sizeof(cu), "%s/uses_header.cu", dir);
    snprintf(h, sizeof(h), "%s/check.h", dir);
    correct_with_prefix(cu, "#include \"check.h\"\n");
    const char *args[] = {"--json", cu, NULL};
    cr_assert(tu_write(h, "/* fine */\n"));
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect(strstr(out, "\"cached\":true"), "unchanged: cached: %s", out);
    cr_assert(tu_write(h, "#error the header changed\n"));
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), HX_COMPILE, "the edit is seen: %s", out);
    cr_expect(strstr(out, "the header changed"), "%s", out);
    cr_assert(tu_write(h, "/* fine */\n"));
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect(strstr(out, "\"cached\":true"), "the first object again: %s", out);
}

/* A header that appears beside the solution and shadows the one it read (a quoted include
 * finds the solution's folder first), and a change in the variables nvcc reads its options from:
 * each must rebuild, since the dependency list names only what the last build found. A failed
 * rebuild must not leave the old object to a later run. */
Test(cache, shadowing_header_and_nvcc_variables_rebuild, .timeout = 300)
{
    char dir[512], cu[600], h[600];
    snprintf(dir, sizeof(dir), "%s/shadow", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(dir, 0755);
    snprintf(cu, sizeof(cu), "%s/quoted.cu", dir);
    snprintf(h, sizeof(h), "%s/cuda_fp16.h", dir);
    correct_with_prefix(cu, "#ifdef HX_BOOM\n#error the variable reached nvcc\n#endif\n"
                            "#include \"cuda_fp16.h\"\n");
    unlink(h);
    const char *args[] = {"--json", cu, NULL};
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_assert(tu_write(h, "#error the local header shadows the toolkit's\n"));
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), HX_COMPILE, "shadowed: %s", out);
    cr_expect(strstr(out, "shadows the toolkit"), "%s", out);
    const char *again[] = {"--json", "--rebuild", cu, NULL};
    cr_expect_eq(run_in(NULL, CACHE, again, out, sizeof(out)), HX_COMPILE, "%s", out);
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), HX_COMPILE, "not the old object: %s", out);
    unlink(h);
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_assert_eq(setenv("NVCC_APPEND_FLAGS", "-DHX_BOOM", 1), 0); /* this test's process only */
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), HX_COMPILE, "NVCC_APPEND_FLAGS: %s", out);
    cr_expect(strstr(out, "the variable reached nvcc"), "%s", out);
    unsetenv("NVCC_APPEND_FLAGS");
}

/* A file can #include what never ends: a FIFO no one writes (the build's limit ends it as the
 * file's compile error), or /dev/stdin (nvcc's stdin is /dev/null, so it reads nothing even
 * when the harness's stdin stays open). */
Test(cache, includes_that_never_end, .timeout = 300)
{
    char dir[512], fifo[600], cu[600], cu2[600];
    snprintf(dir, sizeof(dir), "%s/endless", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(dir, 0755);
    snprintf(fifo, sizeof(fifo), "%s/pipe.h", dir);
    snprintf(cu, sizeof(cu), "%s/fifo.cu", dir);
    snprintf(cu2, sizeof(cu2), "%s/stdin.cu", dir);
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0644), 0, "%s", strerror(errno));
    correct_with_prefix(cu, "#include \"pipe.h\"\n");
    correct_with_prefix(cu2, "#include \"/dev/stdin\"\n");
    cr_assert_eq(setenv("HARNESS_COMPILE_TIMEOUT", "5", 1), 0);
    const char *args[] = {"--json", cu, NULL};
    time_t t0 = time(NULL);
    cr_expect_eq(run_in(NULL, CACHE, args, out, sizeof(out)), HX_COMPILE, "%s", out);
    cr_expect(strstr(out, "did not finish") && strstr(out, "within 5 s"), "%s", out);
    cr_expect(time(NULL) - t0 < 60, "ended by the limit");
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    cr_assert(dup2(fds[0], STDIN_FILENO) >= 0); /* kept open, never written */
    unsetenv("HARNESS_COMPILE_TIMEOUT");
    setenv("HARNESS_COMPILE_TIMEOUT", "120", 1);
    const char *args2[] = {"--json", cu2, NULL};
    cr_expect_eq(run_in(NULL, CACHE, args2, out, sizeof(out)), expected_success(), "%s", out);
    close(fds[1]);
    unsetenv("HARNESS_COMPILE_TIMEOUT");
}

/* nvcc flags that make nvcc write something else than a shared object: the user's usage
 * error, never cached, never the solution's. */
Test(cache, flags_that_write_no_object, .timeout = 240)
{
    char cache[512];
    snprintf(cache, sizeof(cache), "%s/flagcache", SCRATCH);
    mkdir(SCRATCH, 0755);
    const char *e[] = {"--nvcc-flags", "-E", FIXTURES "/correct.cu", NULL};
    cr_expect_eq(run_in(NULL, cache, e, out, sizeof(out)), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "nvcc"), "%s", out);
    cr_expect_eq(run_in(NULL, cache, e, out, sizeof(out)), HX_USAGE, "not cached: %s", out);
    const char *c[] = {"--nvcc-flags", "-c", FIXTURES "/correct.cu", NULL};
    cr_expect_eq(run_in(NULL, cache, c, out, sizeof(out)), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "no shared object"), "%s", out);
    cr_expect_eq(count_named(cache, ".so"), 0, "nothing cached");
}

/* SIGTERM while nvcc runs: its process group dies and no temporary stays. */
Test(cache, interrupted_build_leaves_nothing, .timeout = 300)
{
    char cache[512], cu[600];
    snprintf(cache, sizeof(cache), "%s/intcache", SCRATCH);
    snprintf(cu, sizeof(cu), "%s/slow_build.cu", SCRATCH);
    mkdir(SCRATCH, 0755);
    /* thrust's sort instantiates enough to keep nvcc busy for seconds */
    cr_assert(tu_write(cu, "#include <thrust/device_ptr.h>\n#include <thrust/sort.h>\n"
                           "extern \"C\" void solve(const float* A, const float* B, float* C, "
                           "int M, int N, int K) {\n"
                           "    thrust::device_ptr<float> c(C);\n"
                           "    thrust::sort(c, c + (size_t)M * K);\n"
                           "    (void)A, (void)B, (void)N;\n}\n"));
    const char *args[] = {"--rebuild", cu, NULL};
    int fd;
    pid_t pid = start_in(NULL, cache, args, &fd);
    bool seen = false;
    /* until the object's build runs: up to 200 s, as the signature step before it (thrust's
     * headers through nvcc) took over 60 s on a 2-core machine under ASan with another suite
     * compiling beside it */
    for (int i = 0; i < 4000 && !seen; i++) {
        seen = count_named(cache, ".log.tmp.") > 0 && count_named(cache, ".sig.log.tmp.") == 0;
        if (!seen) nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    cr_assert(seen, "the build never started");
    kill(pid, SIGTERM);
    int code = finish(pid, fd, out, sizeof(out));
    cr_expect_eq(code, 128 + SIGTERM, "%s", out);
    sleep(2); /* a surviving nvcc would still be writing */
    cr_expect_eq(count_named(cache, ".tmp."), 0, "no temporaries left");
}

/* A SIGKILL'd harness cannot clean up: the next build removes what dead processes left. */
Test(cache, next_build_sweeps_dead_temporaries, .timeout = 240)
{
    char cache[512], dead[700], live[700];
    snprintf(cache, sizeof(cache), "%s/sweepcache", SCRATCH);
    mkdir(SCRATCH, 0755);
    mkdir(cache, 0755);
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0); /* a pid that no longer runs */
    snprintf(dead, sizeof(dead), "%s/left-0123456789abcdef.so.tmp.%d", cache, (int)child);
    snprintf(live, sizeof(live), "%s/other-0123456789abcdef.so.tmp.%d", cache, (int)getpid());
    cr_assert(tu_write(dead, "half an object"));
    cr_assert(tu_write(live, "a build still running"));
    const char *args[] = {"--rebuild", FIXTURES "/correct.cu", NULL};
    cr_expect_eq(run_in(NULL, cache, args, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect_neq(access(dead, F_OK), 0, "a dead process's temporary is removed");
    cr_expect_eq(access(live, F_OK), 0, "a live process's is not");
    unlink(live);
}

/* Two harnesses building the same file into one cache at once: both judged, nothing left. */
Test(cache, parallel_builds, .timeout = 300)
{
    char cache[512];
    snprintf(cache, sizeof(cache), "%s/parcache", SCRATCH);
    mkdir(SCRATCH, 0755);
    const char *args[] = {"--rebuild", FIXTURES "/correct.cu", NULL};
    static char out2[1 << 16];
    int fa, fb;
    pid_t a = start_in(NULL, cache, args, &fa);
    pid_t b = start_in(NULL, cache, args, &fb);
    cr_expect_eq(finish(a, fa, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect_eq(finish(b, fb, out2, sizeof(out2)), expected_success(), "%s", out2);
    cr_expect_eq(count_named(cache, ".tmp."), 0);
    const char *again[] = {"--json", FIXTURES "/correct.cu", NULL};
    cr_expect_eq(run_in(NULL, cache, again, out, sizeof(out)), expected_success(), "%s", out);
    cr_expect(strstr(out, "\"cached\":true"), "%s", out);
}

/* A folder the preprocessor cannot quote (a " in it): the file goes through links in the cache
 * and its relative #include still resolves in its own folder; diagnostics name it as given. */
Test(names, quote_in_folder_with_relative_include, .timeout = 240)
{
    char dir[512], path[700], h[700];
    snprintf(dir, sizeof(dir), "%s/hostile/q\"folder", SCRATCH);
    mkdir(SCRATCH, 0755);
    snprintf(path, sizeof(path), "%s/hostile", SCRATCH);
    mkdir(path, 0755);
    mkdir(dir, 0755);
    snprintf(h, sizeof(h), "%s/beside.h", dir);
    snprintf(path, sizeof(path), "%s/uses\"beside.cu", dir);
    cr_assert(tu_write(h, "#define FROM_BESIDE 1\n"));
    correct_with_prefix(path, "#include \"beside.h\"\n#if !FROM_BESIDE\n#error not found\n#endif\n");
    const char *args[] = {"uses\"beside.cu", NULL};
    cr_expect_eq(run_in(dir, CACHE, args, out, sizeof(out)), expected_success(), "%s", out);
    /* a compile error there names the file as given */
    snprintf(path, sizeof(path), "%s/broken\"beside.cu", dir);
    cr_assert(tu_write(path, "#include \"beside.h\"\nint broken = ;\n"));
    const char *bad[] = {"broken\"beside.cu", NULL};
    cr_expect_eq(run_in(dir, CACHE, bad, out, sizeof(out)), HX_COMPILE, "%s", out);
    cr_expect(strstr(out, "broken\"beside.cu(2): error"), "%s", out);
}

/* The one file reader (ch_read_file, ld_read_text): a whole regular file; a FIFO (a hostile
 * #include's target, listed in nvcc's dependencies) or a folder is refused at once, never waited
 * on. */
Test(cache, reader_takes_regular_files_only, .timeout = 20)
{
    char dir[] = "/tmp/hx_read_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[64], file[64];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    snprintf(file, sizeof(file), "%s/file", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    cr_assert(tu_write(file, "twelve bytes"));
    size_t n = 99;
    char *t = ld_read_text(file, &n);
    cr_assert_not_null(t);
    cr_expect_eq(n, 12);
    cr_expect_str_eq(t, "twelve bytes");
    free(t);
    cr_expect_null(ld_read_text(fifo, &n), "a FIFO is not a file to read");
    cr_expect_null(ld_read_text(dir, &n), "nor is a folder");
    cr_expect_null(ld_read_text("/nonexistent/x.cu", NULL));
    unlink(fifo);
    unlink(file);
    rmdir(dir);
}
