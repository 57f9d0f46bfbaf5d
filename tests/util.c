/* util.c — helpers for the Criterion suites; GPU suites get their own main() here. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "gen.h"
#include "runner.h"

int tu_run_shell(char *out, size_t outlen, const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = 0;
    if (out && outlen) {
        out[0] = '\0';
        size_t r;
        while (n + 1 < outlen && (r = fread(out + n, 1, outlen - 1 - n, p)) > 0) n += r;
        out[n] = '\0';
    }
    char sink[4096];
    while (fread(sink, 1, sizeof(sink), p) > 0) {
    }
    int st = pclose(p);
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

int tu_run_harness(char *out, size_t outlen, const char *const *args)
{
    char cmd[8192];
    mkdir(SCRATCH, 0755);
    size_t u = (size_t)snprintf(cmd, sizeof(cmd), "HARNESS_CACHE='%s/cache' '%s'", SCRATCH, HARNESS_BIN);
    for (int i = 0; args[i] && u < sizeof(cmd); i++)
        u += (size_t)snprintf(cmd + u, sizeof(cmd) - u, " '%s'", args[i]);
    snprintf(cmd + u, sizeof(cmd) - u, " 2>&1");
    return tu_run_shell(out, outlen, cmd);
}

char *tu_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b) b[fread(b, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return b;
}

bool tu_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

bool tu_have_gpu(char *reason, size_t len)
{
    dv_info info;
    bool ok = rn_probe(&info, 60.0);
    if (!ok) snprintf(reason, len, "%s", info.error[0] ? info.error : "no CUDA device");
    /* The probe is the harness's own code: on the GPU machine (tools/gpu_session.sh sets
     * HARNESS_REQUIRE_GPU=1) a probe that fails is a failure, never a reason to skip. */
    const char *req = getenv("HARNESS_REQUIRE_GPU");
    if (!ok && req && strcmp(req, "1") == 0) {
        fprintf(stderr, "HARNESS_REQUIRE_GPU=1, but the device probe failed: %s\n", reason);
        exit(1);
    }
    return ok;
}

void tu_need_gpu(void)
{
    char why[256];
    if (!tu_have_gpu(why, sizeof(why))) cr_skip_test("no CUDA device: %s", why);
}

#ifdef GPU_SUITE

/* GPU suites: without a device, say why and exit 77 so ctest reports the suite as skipped. */
int main(int argc, char *argv[])
{
    char why[256];
    if (!tu_have_gpu(why, sizeof(why))) {
        printf("SKIPPED: no CUDA device on this machine (%s); the GPU suites run on the H200\n", why);
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
#endif

void tu_bufs_make(const pb_problem *p, const pb_case *c, uint64_t seed, tu_bufs *t)
{
    memset(t, 0, sizeof(*t));
    cr_assert(wr_layout_for(p, c->v, 0, 1, &t->l), "%s %s: the extents", p->name, c->name);
    for (int b = 0; b < t->l.n_bufs; b++) {
        t->buf[b] = malloc(t->l.bytes[b]);
        cr_assert_not_null(t->buf[b]);
        t->in[b] = t->buf[b];
    }
    gen_inputs(p, c, c->v, seed, t->buf);
}

void tu_bufs_free(tu_bufs *t)
{
    for (int b = 0; b < t->l.n_bufs; b++) free(t->buf[b]);
    memset(t, 0, sizeof(*t));
}
