/* runner.c — the parent side: start workers, enforce the time limit, turn deaths into verdicts. */
#include "runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

double rs_reported_ms(const rs_timing *t) { return t->escaped ? t->host_median_ms : t->median_ms; }

const char *rs_status_name(rs_status s)
{
    static const char *const names[] = {"success", "test-case-failed", "timeout", "out-of-memory",
                                        "error",   "compile-error",    "not-run",
                                        "compiled-only"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static double rn_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read one whole message, waiting at most until deadline. 1: got it; 0: EOF; -1: timed out. */
static int rn_read(int fd, wk_msg *m, double deadline)
{
    char *p = (char *)m;
    size_t got = 0;
    while (got < sizeof(*m)) {
        int wait_ms = (int)((deadline - rn_now()) * 1e3);
        if (wait_ms < 0) return -1;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, wait_ms > 1000 ? 1000 : wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;
        ssize_t n = read(fd, p + got, sizeof(*m) - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        got += (size_t)n;
    }
    return 1;
}

static void rn_describe_exit(int wstatus, char *buf, size_t len)
{
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        snprintf(buf, len, "the solution's process was killed by signal %d (SIG%s: %s)", sig,
                 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig));
    } else if (WIFEXITED(wstatus)) {
        snprintf(buf, len, "the solution's process exited with status %d in the middle of the test",
                 WEXITSTATUS(wstatus));
    } else {
        snprintf(buf, len, "the solution's process ended abnormally");
    }
}

static void rn_progress(const rn_plan *plan, const rs_test *t, size_t i)
{
    if (!plan->progress) return;
    fprintf(stderr, "  [%zu/%zu] %-28s %s", i + 1, plan->n_items, t->name, rs_status_name(t->status));
    if (t->timing.done) fprintf(stderr, "  %.4f ms", t->timing.median_ms);
    if (t->timing.done && t->timing.base_done && t->timing.base_median_ms > 0) /* --baseline, --sweep */
        fprintf(stderr, "  %.2fx cuBLAS", t->timing.median_ms / t->timing.base_median_ms);
    fprintf(stderr, "  (%.0f ms)\n", t->wall_ms);
}

static pid_t rn_spawn(const rn_plan *plan, size_t first, int *fd_out)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        wk_main(plan, first, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    *fd_out = fds[0];
    return pid;
}

void rn_init_test(const rn_plan *plan, size_t i, rs_test *t)
{
    const pb_case *c = &plan->items[i].c;
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", c->name);
    t->set = plan->items[i].set;
    t->m = c->m;
    t->n = c->n;
    t->k = c->k;
    t->alpha = c->alpha;
    t->beta = c->beta;
    t->status = RS_NOT_RUN;
    pb_case_tolerance(plan->problem, c, &t->atol, &t->rtol);
}

/* The loop over workers; m is the message buffer. */
static rn_outcome rn_run_items(const rn_plan *plan, rs_run *run, wk_msg *m)
{
    memset(run, 0, sizeof(*run));
    run->tests = calloc(plan->n_items ? plan->n_items : 1, sizeof(rs_test));
    run->n_tests = plan->n_items;
    if (!run->tests) {
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "out of host memory");
        return run->outcome;
    }
    for (size_t i = 0; i < plan->n_items; i++) rn_init_test(plan, i, &run->tests[i]);

    size_t next = 0;
    while (next < plan->n_items) {
        int fd;
        pid_t pid = rn_spawn(plan, next, &fd);
        if (pid < 0) {
            run->outcome = RN_INTERNAL;
            snprintf(run->detail, sizeof(run->detail), "cannot start a worker: %s", strerror(errno));
            return run->outcome;
        }
        int current = -1;
        bool finished = false, started = false;
        size_t first = next;
        /* start-up (CUDA context, cuBLAS) gets the same limit as a test */
        double deadline = rn_now() + plan->timeout_s + 20.0;
        for (;;) {
            int r = rn_read(fd, m, deadline);
            if (r == 1) {
                switch (m->kind) {
                case WK_LOADED:
                    break;
                case WK_NO_SOLVE:
                case WK_LOAD_FAILED:
                case WK_NO_DEVICE:
                case WK_FATAL:
                    run->outcome = m->kind == WK_NO_SOLVE      ? RN_NO_SOLVE
                                   : m->kind == WK_LOAD_FAILED ? RN_LOAD_FAILED
                                   : m->kind == WK_NO_DEVICE   ? RN_NO_DEVICE
                                                              : RN_INTERNAL;
                    snprintf(run->detail, sizeof(run->detail), "%s", m->detail);
                    run->device = m->device;
                    close(fd);
                    waitpid(pid, NULL, 0);
                    return run->outcome;
                case WK_DEVICE:
                    run->device = m->device;
                    started = true;
                    break;
                case WK_BEGIN:
                    current = m->index;
                    deadline = rn_now() + plan->timeout_s;
                    break;
                case WK_TIMING_BEGIN: /* sent again as a heartbeat while timing: each call gets the limit */
                    deadline = rn_now() + plan->timeout_s + plan->timing.max_time_s * 2 + 5.0;
                    break;
                case WK_RESULT:
                    if (m->index >= 0 && (size_t)m->index < plan->n_items) {
                        run->tests[m->index] = m->test;
                        rs_test *t = &run->tests[m->index];
                        rn_progress(plan, t, (size_t)m->index);
                        next = (size_t)m->index + 1;
                    }
                    current = -1;
                    deadline = rn_now() + plan->timeout_s;
                    break;
                case WK_FINISH:
                    finished = true;
                    break;
                }
                if (finished) break;
                continue;
            }
            /* timed out (r < 0) or the worker is gone (r == 0) */
            int wstatus = 0;
            if (r < 0) kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            if (current >= 0) {
                rs_test *t = &run->tests[current];
                if (r < 0) {
                    t->status = RS_TIMEOUT;
                    snprintf(t->detail, sizeof(t->detail),
                             "did not finish within the %.0f s limit (killed)", plan->timeout_s);
                } else {
                    t->status = RS_ERROR;
                    rn_describe_exit(wstatus, t->detail, sizeof(t->detail));
                }
                rn_progress(plan, t, (size_t)current);
                next = (size_t)current + 1;
            } else if (!started) {
                run->outcome = RN_INTERNAL;
                if (r < 0)
                    snprintf(run->detail, sizeof(run->detail),
                             "the worker did not start within %.0f s", plan->timeout_s + 20.0);
                else
                    rn_describe_exit(wstatus, run->detail, sizeof(run->detail));
                close(fd);
                return run->outcome;
            } else if (next == first) {
                /* died between start-up and its first test: charge that test, or loop forever */
                rs_test *t = &run->tests[next];
                t->status = r < 0 ? RS_TIMEOUT : RS_ERROR;
                rn_describe_exit(wstatus, t->detail, sizeof(t->detail));
                rn_progress(plan, t, next);
                next++;
            }
            break;
        }
        close(fd);
        if (finished) {
            waitpid(pid, NULL, 0);
            break;
        }
    }
    run->outcome = RN_OK;
    return run->outcome;
}

rn_outcome rn_run(const rn_plan *plan, rs_run *run)
{
    wk_msg *m = malloc(sizeof(wk_msg)); /* a few KB: one buffer for every message */
    if (!m) {
        memset(run, 0, sizeof(*run));
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "out of host memory");
        return run->outcome;
    }
    rn_outcome out = rn_run_items(plan, run, m);
    free(m);
    return out;
}

void rn_free(rs_run *run)
{
    free(run->tests);
    run->tests = NULL;
    run->n_tests = 0;
}

bool rn_probe(dv_info *info, double timeout_s)
{
    memset(info, 0, sizeof(*info));
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    wk_msg *m = calloc(1, sizeof(wk_msg));
    if (pid == 0) {
        close(fds[0]);
        if (!m) _exit(1);
        dv_probe(&m->device);
        ssize_t w = write(fds[1], m, sizeof(*m));
        _exit(w == (ssize_t)sizeof(*m) ? 0 : 1);
    }
    close(fds[1]);
    int r = m ? rn_read(fds[0], m, rn_now() + timeout_s) : 0;
    if (r < 0) kill(pid, SIGKILL);
    close(fds[0]);
    waitpid(pid, NULL, 0);
    if (r != 1) {
        free(m);
        snprintf(info->error, sizeof(info->error), "the device probe did not answer");
        return false;
    }
    *info = m->device;
    free(m);
    return info->present;
}

rs_status rn_overall(const rs_run *run)
{
    for (size_t i = 0; i < run->n_tests; i++)
        if (run->tests[i].status != RS_SUCCESS && run->tests[i].status != RS_NOT_RUN)
            return run->tests[i].status;
    return RS_SUCCESS;
}
