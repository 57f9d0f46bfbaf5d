/* tools/ensure_test_deps.sh, what `make test` runs first: found → exit 0; missing and not
 * installable here → one line naming the command, exit 1; as root with apt-get → apt-get update,
 * then install. libseccomp (optional: the seccomp filter) is installed the same way in a call of
 * its own, or named in one line, the exit code unchanged. Each test runs the script with PATH = a folder of stubs (pkg-config, apt-get, id,
 * nvcc, cmake), so nothing on this machine is installed or removed. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define SCRIPT SOURCE_DIR "/tools/ensure_test_deps.sh"

static char out[1 << 14];

typedef struct {
    const char *uid;   /* what `id -u` says */
    bool pkg_config;   /* a pkg-config stub exists */
    bool criterion;    /* it reports Criterion present from the start */
    const char *apt;   /* NULL: no apt-get; "ok": it "installs" what it is given; "fail": it exits 100 */
    bool no_seccomp;   /* libseccomp is missing from the start */
} fake;

static void stub(const char *dir, const char *name, const char *body)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/bin/%s", dir, name);
    cr_assert(tu_write(path, body), "cannot write %s", path);
    chmod(path, 0755);
}

/* A folder of stubs in the scratch area; dir gets its path. Criterion (libseccomp) is "installed"
 * when the file dir/criterion (dir/libseccomp) exists, which the apt-get stub creates. */
static void make_fake(const char *test, const fake *f, char *dir, size_t len)
{
    snprintf(dir, len, "%s/deps-%s-%d", SCRATCH, test, (int)getpid());
    char cmd[2048], body[1024];
    /* the script's only other commands: mktemp and rm */
    snprintf(cmd, sizeof(cmd),
             "rm -rf '%s' && mkdir -p '%s/bin' && ln -s \"$(command -v mktemp)\" '%s/bin/mktemp' && "
             "ln -s \"$(command -v rm)\" '%s/bin/rm'",
             dir, dir, dir, dir);
    cr_assert_eq(tu_run_shell(out, sizeof(out), cmd), 0, "%s", out);
    if (f->criterion) {
        snprintf(body, sizeof(body), "%s/criterion", dir);
        cr_assert(tu_write(body, ""));
    }
    if (!f->no_seccomp) {
        snprintf(body, sizeof(body), "%s/libseccomp", dir);
        cr_assert(tu_write(body, ""));
    }
    snprintf(body, sizeof(body), "#!/bin/sh\necho %s\n", f->uid);
    stub(dir, "id", body);
    stub(dir, "nvcc", "#!/bin/sh\nexit 0\n");
    stub(dir, "cmake", "#!/bin/sh\nexit 0\n");
    if (f->pkg_config) {
        snprintf(body, sizeof(body), "#!/bin/sh\n[ \"$1\" = --exists ] && [ -e '%s/'\"$2\" ]\n", dir);
        stub(dir, "pkg-config", body);
    }
    if (f->apt) {
        /* records each call with the environment it saw; "install" provides Criterion or fails */
        char install[600];
        if (strcmp(f->apt, "ok") == 0)
            snprintf(install, sizeof(install),
                     "for p in \"$@\"; do case \"$p\" in libcriterion-dev) : > '%s/criterion' ;; "
                     "libseccomp-dev) : > '%s/libseccomp' ;; esac; done",
                     dir, dir);
        else snprintf(install, sizeof(install), "exit 100");
        snprintf(body, sizeof(body),
                 "#!/bin/sh\necho \"DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*\" >> '%s/apt.log'\n"
                 "case \"$1\" in install) %s ;; esac\nexit 0\n",
                 dir, install);
        stub(dir, "apt-get", body);
    }
}

/* Run the script under the fake PATH; env: extra NAME=VALUE words or "". */
static int run_script(const char *dir, const char *env, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "/usr/bin/env -i PATH='%s/bin' TMPDIR='%s' %s /bin/bash '%s' %s 2>&1", dir,
             dir, env, SCRIPT, args);
    return tu_run_shell(out, sizeof(out), cmd);
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static char *apt_log(const char *dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/apt.log", dir);
    return tu_slurp(path);
}

Test(deps, present_dry_run_exits_0_on_this_machine)
{
    /* the real PATH: this suite was built with Criterion, so pkg-config finds it */
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "bash '%s' --dry-run 2>&1", SCRIPT);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), 0, "%s", out);
    cr_expect_str_empty(out);
}

Test(deps, present_under_stubs_exits_0_silently)
{
    char dir[512];
    make_fake("present", &(fake){"0", true, true, "ok", false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect_str_empty(out);
    char *log = apt_log(dir);
    cr_expect_null(log, "apt-get ran: %s", log ? log : "");
    free(log);
}

Test(deps, forbidden_names_the_command_in_one_line)
{
    char dir[512];
    make_fake("forbidden", &(fake){"0", true, false, "ok", false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "HARNESS_NO_INSTALL=1", ""), 1, "%s", out);
    cr_expect_str_eq(out, "make test: Criterion is missing; install it with: apt-get install libcriterion-dev\n");
    char *log = apt_log(dir);
    cr_expect_null(log, "apt-get ran: %s", log ? log : "");
    free(log);
}

Test(deps, not_root_says_sudo)
{
    char dir[512];
    make_fake("user", &(fake){"1000", true, false, "ok", false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 1, "%s", out);
    cr_expect_str_eq(out, "make test: Criterion is missing; install it with: sudo apt-get install libcriterion-dev\n");
    char *log = apt_log(dir);
    cr_expect_null(log);
    free(log);
}

Test(deps, no_apt_get_no_pkg_config_one_line)
{
    char dir[512];
    make_fake("bare", &(fake){"0", false, false, NULL, false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 1, "%s", out);
    cr_expect_eq(lines(out), 1, "%s", out);
    const char *head = "make test: Criterion (no pkg-config to find it) is missing; install Criterion's";
    cr_expect(strncmp(out, head, strlen(head)) == 0, "%s", out);
    cr_expect(strstr(out, "(Debian/Ubuntu: apt-get install libcriterion-dev pkg-config)\n"), "%s", out);
}

Test(deps, dry_run_as_root_says_what_it_would_run)
{
    char dir[512];
    make_fake("dry", &(fake){"0", true, false, "ok", false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", "--dry-run"), 1, "%s", out);
    cr_expect_eq(lines(out), 1, "%s", out);
    cr_expect(strstr(out, "would install it with: apt-get update && apt-get install -y --no-install-recommends "
                          "libcriterion-dev (dry run"), "%s", out);
    char *log = apt_log(dir);
    cr_expect_null(log);
    free(log);
}

Test(deps, root_with_apt_get_installs)
{
    char dir[512];
    make_fake("install", &(fake){"0", false, false, "ok", false}, dir, sizeof(dir));
    /* the pkg-config the install brings: a stub that appears with Criterion (chmod by its full
     * path: the stubs run under the fake PATH too) */
    char chmod_path[256], body[2048];
    cr_assert_eq(tu_run_shell(chmod_path, sizeof(chmod_path), "command -v chmod"), 0);
    chmod_path[strcspn(chmod_path, "\n")] = '\0';
    snprintf(body, sizeof(body),
             "#!/bin/sh\necho \"DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*\" >> '%s/apt.log'\n"
             "case \"$1\" in install) : > '%s/criterion'; printf '#!/bin/sh\\n[ -e %s/criterion ]\\n' > "
             "'%s/bin/pkg-config'; '%s' +x '%s/bin/pkg-config' ;; esac\nexit 0\n",
             dir, dir, dir, dir, chmod_path, dir);
    stub(dir, "apt-get", body);
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect(strstr(out, "installed libcriterion-dev pkg-config\n"), "%s", out);
    char *log = apt_log(dir);
    cr_assert_not_null(log);
    cr_expect_str_eq(log, "DEBIAN_FRONTEND=noninteractive update -qq\n"
                          "DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends libcriterion-dev pkg-config\n");
    free(log);
}

Test(deps, failed_install_names_the_log)
{
    char dir[512];
    make_fake("fail", &(fake){"0", true, false, "fail", false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 2, "%s", out);
    const char *last = strstr(out, "make test: Criterion is missing and apt-get could not install libcriterion-dev");
    cr_expect(last, "%s", out);
    cr_expect(last && strstr(last, "(its output: ") && strstr(last, "; install it with: apt-get install libcriterion-dev\n"),
              "%s", out);
}

Test(deps, bad_argument)
{
    char dir[512];
    make_fake("arg", &(fake){"0", true, true, NULL, false}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", "--bogus"), 64, "%s", out);
}

/* libseccomp missing, Criterion there: as root it is installed in a call of its own, exit 0 */
Test(deps, seccomp_missing_as_root_is_installed)
{
    char dir[512];
    make_fake("seccomp", &(fake){"0", true, true, "ok", .no_seccomp = true}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect_str_eq(out, "make test: installed libseccomp-dev (the solution's seccomp filter)\n");
    char *log = apt_log(dir);
    cr_assert_not_null(log);
    cr_expect_str_eq(log, "DEBIAN_FRONTEND=noninteractive update -qq\n"
                          "DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends libseccomp-dev\n");
    free(log);
}

/* ... and as a user, one line, still exit 0: the harness builds without it */
Test(deps, seccomp_missing_as_user_is_one_line)
{
    char dir[512];
    make_fake("seccomp-user", &(fake){"1000", true, true, "ok", .no_seccomp = true}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect_str_eq(out, "make test: libseccomp is missing, so the solution's seccomp filter will be off; "
                          "install it with: sudo apt-get install libseccomp-dev\n");
    char *log = apt_log(dir);
    cr_expect_null(log, "apt-get ran: %s", log ? log : "");
    free(log);
}

/* its install failing costs nothing but the filter: exit 0, one line naming apt's log */
Test(deps, seccomp_install_failing_is_a_note)
{
    char dir[512];
    make_fake("seccomp-fail", &(fake){"0", true, true, "fail", .no_seccomp = true}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect_eq(lines(out), 1, "%s", out);
    cr_expect(strstr(out, "make test: libseccomp-dev could not be installed (its output: ") &&
                  strstr(out, "the solution's seccomp filter will be off\n"),
              "%s", out);
}

/* both missing as root: Criterion first (the required one, its own call), then libseccomp */
Test(deps, both_missing_as_root_are_installed_apart)
{
    char dir[512];
    make_fake("both", &(fake){"0", true, false, "ok", .no_seccomp = true}, dir, sizeof(dir));
    cr_expect_eq(run_script(dir, "", ""), 0, "%s", out);
    cr_expect(strstr(out, "make test: installed libcriterion-dev\n"), "%s", out);
    cr_expect(strstr(out, "make test: installed libseccomp-dev (the solution's seccomp filter)\n"), "%s", out);
    char *log = apt_log(dir);
    cr_assert_not_null(log);
    cr_expect_str_eq(log, "DEBIAN_FRONTEND=noninteractive update -qq\n"
                          "DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends libcriterion-dev\n"
                          "DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends libseccomp-dev\n");
    free(log);
}
