/* runner.c — the parent side: make inputs, drive the oracle and the solution's child, validate
 * what they send, and decide every verdict here (the checks are check.c's host arithmetic). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen.h"
#include "stats.h"
#include "wire.h"

double rs_reported_ms(const rs_timing *t) { return t->escaped ? t->host_median_ms : t->median_ms; }

const char *rs_status_name(rs_status s)
{
    static const char *const names[] = {"success",       "test-case-failed", "timeout",
                                        "out-of-memory", "error",            "compile-error",
                                        "not-run",       "compiled-only",    "output-exceeded",
                                        "interrupted"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* The one mutable global, as a signal handler needs it: the SIGINT or SIGTERM that reached the
 * harness (0: none). Set once, never cleared: an interrupted process runs no more tests. */
static volatile sig_atomic_t rn_stop_signal;

static void rn_on_stop(int sig)
{
    if (rn_stop_signal) { /* the second one: the default action, at once */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    rn_stop_signal = sig;
}

typedef struct {
    pid_t pid;
    pid_t pgid;      /* its own process group (the solution's child), 0: none of its own */
    int pidfd;       /* readable once it exited (-1: none: waitid every slice instead) */
    int cmd_fd, msg_fd;
    int out_fd;      /* the solution's stdout and stderr (-1: none, or at end of file) */
    bool alive;
} rn_child;

/* What a wait for a child's record ended with. */
enum { RN_W_GOT = 1, RN_W_GONE = 0, RN_W_LATE = -1, RN_W_STOP = -2, RN_W_FLOOD = -3 };

typedef struct {
    const rn_plan *plan;
    rs_run *run;
    unsigned char *sol, *orc; /* the arenas: the solution's child's, and the oracle's */
    size_t sol_bytes, orc_bytes;
    rn_child wk, oracle;
    bool oracle_ready;        /* its WR_READY was read */
    bool wk_fresh;            /* the solution's child has not answered a command yet */
    bool device_known;
    uint32_t nonce;
    wr_msg m;
    float *outf;              /* the output read back, as floats */
    size_t outf_n;
    double *samples;          /* a private copy of the timing samples */
    size_t out_bytes;         /* the solution's output in this test */
    char out_head[96];        /* its first bytes, for the output-exceeded verdict */
    bool halt;                /* the solution could not be loaded: the other tests are not run */
    char ref_remark[256];     /* the oracle's remark on the current reference ("" when none) */
} rn_ctx;

/* when: "in the middle of the test", "while loading the solution"... */
static void rn_describe_exit(int wstatus, const char *when, char *buf, size_t len)
{
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        snprintf(buf, len, "the solution's process was killed by signal %d (SIG%s: %s) %s", sig,
                 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig), when);
    } else if (WIFEXITED(wstatus)) {
        snprintf(buf, len, "the solution's process exited with status %d %s",
                 WEXITSTATUS(wstatus), when);
    } else {
        snprintf(buf, len, "the solution's process ended abnormally %s", when);
    }
}

static void rn_progress(const rn_plan *plan, const rs_test *t, size_t i)
{
    if (!plan->progress) return;
    fprintf(stderr, "  [%zu/%zu] %-28s %s", i + 1, plan->n_items, t->name, rs_status_name(t->status));
    if (t->timing.done) fprintf(stderr, "  %.4f ms", t->timing.median_ms);
    if (t->timing.done && t->timing.base_done && t->timing.base_median_ms > 0) /* --baseline, --sweep */
        fprintf(stderr, "  %.2fx %s", t->timing.median_ms / t->timing.base_median_ms,
                plan->vs_path                              ? "the other file"
                : plan->timing.yardstick == RN_YS_LT ? "cuBLASLt"
                                                     : "cuBLAS");
    fprintf(stderr, "  (%.0f ms)\n", t->wall_ms);
}

static void rn_init_test(const rn_plan *plan, size_t i, rs_test *t)
{
    const pb_case *c = &plan->items[i].c;
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", c->name);
    t->set = plan->items[i].set;
    memcpy(t->v, c->v, sizeof(t->v));
    t->status = RS_NOT_RUN;
    pb_case_tolerance(plan->problem, c, &t->atol, &t->rtol);
}

/* ---- children ---- */

static void rn_waitpid(pid_t pid, int *ws)
{
    while (waitpid(pid, ws, 0) < 0 && errno == EINTR) {
    }
}

/* Whether the child exited (not reaped: its status stays for rn_child_end). */
static bool rn_exited(const rn_child *ch)
{
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    return waitid(P_PID, (id_t)ch->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == ch->pid;
}

/* End a child and reap it: grace_s for it to leave by itself once its commands' pipe is closed
 * (0: killed at once); its whole process group is killed before it is reaped, so a grandchild
 * holding a pipe goes with it. */
static void rn_child_end(rn_child *ch, double grace_s, int *wstatus)
{
    int ws = 0;
    if (ch->alive) {
        close(ch->cmd_fd);
        for (double until = wr_now() + grace_s; wr_now() < until && !rn_exited(ch);) {
            struct pollfd f = {.fd = ch->pidfd, .events = POLLIN};
            if (poll(&f, ch->pidfd >= 0 ? 1 : 0, 50) < 0 && errno != EINTR) break;
        }
        /* the exited leader still holds the group; ESRCH when the group is gone already */
        if (ch->pgid > 0) kill(-ch->pgid, SIGKILL);
        kill(ch->pid, SIGKILL);
        rn_waitpid(ch->pid, &ws);
        close(ch->msg_fd);
        if (ch->out_fd >= 0) close(ch->out_fd);
        if (ch->pidfd >= 0) close(ch->pidfd);
    }
    ch->alive = false;
    ch->out_fd = ch->pidfd = -1;
    if (wstatus) *wstatus = ws;
}

static void rn_child_kill(rn_child *ch, int *wstatus) { rn_child_end(ch, 0, wstatus); }

/* The child's exit after it was told to go (or said it would), reaped. */
static void rn_child_reap(rn_child *ch, int *wstatus) { rn_child_end(ch, 30.0, wstatus); }

/* The solution's output that is waiting: counted, its start kept, shown on stderr up to
 * RN_OUTPUT_SHOWN. False once the test's output passes RN_OUTPUT_CAP. */
static bool rn_drain_output(rn_ctx *x, rn_child *ch)
{
    char buf[1 << 16];
    ssize_t k = read(ch->out_fd, buf, sizeof(buf));
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (k <= 0) { /* every writer closed it */
        close(ch->out_fd);
        ch->out_fd = -1;
        return true;
    }
    size_t n = (size_t)k, before = x->out_bytes;
    rs_run *run = x->run;
    /* kept as text (printable ASCII, newlines, tabs): it goes into the JSON report */
    for (size_t i = 0, u = strlen(run->output); i < n && u + 1 < sizeof(run->output); i++, u++)
        run->output[u] = (buf[i] >= 32 && buf[i] < 127) || buf[i] == '\n' || buf[i] == '\t' ? buf[i] : '.';
    run->output_bytes += n;
    for (size_t i = 0, u = strlen(x->out_head); i < n && u + 1 < sizeof(x->out_head); i++, u++)
        x->out_head[u] = buf[i] >= 32 && buf[i] < 127 ? buf[i] : '.';
    x->out_bytes += n;
    if (!x->plan->output_hidden && before < RN_OUTPUT_SHOWN) {
        size_t show = n < RN_OUTPUT_SHOWN - before ? n : RN_OUTPUT_SHOWN - before;
        (void)!write(STDERR_FILENO, buf, show); /* a lost copy on stderr changes no verdict */
        if (before + n > RN_OUTPUT_SHOWN) {
            static const char more[] = "\n[harness: the rest of the solution's output in this test "
                                       "is not shown]\n";
            (void)!write(STDERR_FILENO, more, sizeof(more) - 1);
        }
    }
    return x->out_bytes <= RN_OUTPUT_CAP;
}

/* Read exactly n bytes of the child's records by deadline, reading its output meanwhile. The
 * child's exit counts as the end even while a grandchild holds its pipe open. */
static int rn_wait(rn_ctx *x, rn_child *ch, void *buf, size_t n, double deadline)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        if (rn_stop_signal) return RN_W_STOP;
        double left = deadline - wr_now();
        if (left <= 0) return RN_W_LATE;
        /* slices: a signal between the check above and poll waits at most one */
        int ms = left > 0.25 ? 250 : (int)(left * 1e3) + 1;
        struct pollfd f[3] = {{.fd = ch->msg_fd, .events = POLLIN},
                              {.fd = ch->out_fd, .events = POLLIN},
                              {.fd = ch->pidfd, .events = POLLIN}};
        int r = poll(f, 3, ms);
        if (r < 0 && errno != EINTR) return RN_W_GONE;
        if (r <= 0) {
            if (ch->pidfd < 0 && rn_exited(ch)) return RN_W_GONE;
            continue;
        }
        if (f[1].revents && !rn_drain_output(x, ch)) return RN_W_FLOOD;
        if (f[0].revents) {
            ssize_t k = read(ch->msg_fd, p + got, n - got);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return RN_W_GONE;
            got += (size_t)k;
            continue;
        }
        if ((f[2].revents || ch->pidfd < 0) && rn_exited(ch)) return RN_W_GONE;
    }
    return RN_W_GOT;
}

static void rn_close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) close(fds[i]);
}

static bool rn_spawn(rn_ctx *x, rn_child *ch, bool oracle)
{
    int fds[6] = {-1, -1, -1, -1, -1, -1}, *cmd = fds, *msg = fds + 2, *out = fds + 4;
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(msg, O_CLOEXEC) != 0 ||
        (!oracle && pipe2(out, O_CLOEXEC) != 0)) {
        int keep = errno;
        rn_close_all(fds, 6);
        errno = keep;
        return false;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int keep = errno;
        rn_close_all(fds, 6);
        errno = keep;
        return false;
    }
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        if (oracle) {
            int keep[2] = {cmd[0], msg[1]};
            wr_close_other_fds(keep, 2); /* the other child's pipes among them */
            munmap(x->sol, x->sol_bytes);
            or_main(x->plan, x->orc, x->orc_bytes, cmd[0], msg[1]);
            _exit(0);
        }
        /* a group of its own, to be killed whole; the terminal's signals are the parent's. Gone
         * with the parent (wk_main sets this again after the uid drop, which clears it). */
        if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(3);
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
            dup2(out[1], STDERR_FILENO) < 0)
            _exit(3);
        int keep[2] = {cmd[0], msg[1]};
        wr_close_other_fds(keep, 2);
        munmap(x->orc, x->orc_bytes); /* the references and pristine inputs: out of reach */
        wk_main(x->plan, x->sol, x->sol_bytes, cmd[0], msg[1]);
        _exit(0);
    }
    close(cmd[0]);
    close(msg[1]);
    ch->pgid = 0;
    ch->out_fd = -1;
    if (!oracle) {
        close(out[1]);
        ch->out_fd = out[0];
        /* both sides set the group, so it exists whichever runs first (an error here means the
         * child set it already, or died: killing a group that is not there does nothing) */
        (void)setpgid(pid, pid);
        ch->pgid = pid;
    }
#ifdef SYS_pidfd_open
    ch->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec; -1 before Linux 5.3 */
#else
    ch->pidfd = -1;
#endif
    ch->pid = pid;
    ch->cmd_fd = cmd[1];
    ch->msg_fd = msg[0];
    ch->alive = true;
    return true;
}

/* A message as it came (kind checked, text ended): an RN_W_ code. */
static int rn_recv(rn_ctx *x, rn_child *ch, wr_msg *m, double deadline)
{
    int r = rn_wait(x, ch, m, sizeof(*m), deadline);
    if (r == RN_W_GOT) {
        m->detail[sizeof(m->detail) - 1] = '\0';
        m->device.name[sizeof(m->device.name) - 1] = '\0';
        m->device.error[sizeof(m->device.error) - 1] = '\0';
    }
    return r;
}

/* Start the oracle (when it is not running) and wait until it is ready; false with run->detail
 * set. Started early, its CUDA context comes up beside the solution's child's. */
static bool rn_oracle_start(rn_ctx *x)
{
    if (x->oracle.alive) return true;
    x->oracle_ready = false;
    if (rn_spawn(x, &x->oracle, true)) return true;
    snprintf(x->run->detail, sizeof(x->run->detail), "cannot start the oracle: %s", strerror(errno));
    return false;
}

static bool rn_oracle_up(rn_ctx *x)
{
    if (x->oracle.alive && x->oracle_ready) return true;
    if (!rn_oracle_start(x)) return false;
    int r = rn_recv(x, &x->oracle, &x->m, wr_now() + x->plan->timeout_s + 60.0);
    if (r == RN_W_GOT && x->m.kind == WR_READY) {
        if (!x->device_known) x->run->device = x->m.device;
        x->device_known = true;
        x->oracle_ready = true;
        return true;
    }
    snprintf(x->run->detail, sizeof(x->run->detail), "the oracle did not start: %s",
             r == RN_W_GOT    ? x->m.detail
             : r == RN_W_STOP ? "interrupted"
             : r == RN_W_GONE ? "it exited"
                              : "no answer");
    rn_child_kill(&x->oracle, NULL);
    return false;
}

/* A start-up that failed because of the solution (its constructors, or its code loaded while
 * the context came up): the test's verdict, and no further test runs. */
static rn_outcome rn_load_verdict(rn_ctx *x, rs_test *t, rs_status st, const char *detail)
{
    t->status = st;
    snprintf(t->detail, sizeof(t->detail), "%s", detail);
    x->halt = true;
    return RN_OK;
}

/* The output-exceeded verdict's text. */
static void rn_flood_detail(const rn_ctx *x, char *buf, size_t len)
{
    snprintf(buf, len, "wrote more than %u MiB to stdout/stderr in this test (killed); its output "
             "began: \"%s\"", RN_OUTPUT_CAP >> 20, x->out_head);
}

/* Start the solution's child: it confines itself, loads the object (the solution's constructors
 * run: within the test's time limit, and what they do is the solution's verdict, given to t) and
 * makes its context (the limit plus 20 s). RN_OK: ready, or (not alive) solve looked up only, or
 * t holds a verdict (x->halt set). Another outcome ends the run (run->detail says why). */
static rn_outcome rn_worker_up(rn_ctx *x, rs_test *t)
{
    const rn_plan *plan = x->plan;
    rs_run *run = x->run;
    if (!rn_spawn(x, &x->wk, false)) {
        snprintf(run->detail, sizeof(run->detail), "cannot start a worker: %s", strerror(errno));
        return RN_INTERNAL;
    }
    /* 0: the harness's own start (confinement); 1: loading, the solution's constructors;
     * 2: its CUDA context, the solution's code loaded */
    int phase = 0;
    double deadline = wr_now() + plan->timeout_s;
    char why[400];
    for (;;) {
        int r = rn_recv(x, &x->wk, &x->m, deadline);
        wr_msg_kind k = x->m.kind;
        if (r == RN_W_GOT && phase == 0 && k == WR_SANDBOX) {
            if (!run->sandbox[0]) snprintf(run->sandbox, sizeof(run->sandbox), "%s", x->m.detail);
            run->sandbox_known = true;
            run->sandbox_dropped = x->m.dropped;
            run->sandbox_filtered = x->m.filtered;
            phase = 1;
            continue;
        }
        if (r == RN_W_GOT && phase == 1 && k == WR_LOADED) {
            if (plan->lookup_only) { /* solve found is the answer */
                rn_child_reap(&x->wk, NULL);
                return RN_OK;
            }
            phase = 2;
            deadline = wr_now() + plan->timeout_s + 20.0;
            continue;
        }
        if (r == RN_W_GOT && phase == 2 && k == WR_READY) {
            x->wk_fresh = true;
            return RN_OK;
        }
        bool said = r == RN_W_GOT && (((phase == 1) && (k == WR_NO_SOLVE || k == WR_LOAD_FAILED)) ||
                                      ((phase == 0 || phase == 2) && k == WR_FATAL) ||
                                      (phase == 2 && k == WR_NO_DEVICE));
        if (said) {
            snprintf(run->detail, sizeof(run->detail), "%s", x->m.detail);
            if (k == WR_NO_DEVICE) run->device = x->m.device;
            rn_child_reap(&x->wk, NULL);
            return k == WR_NO_SOLVE      ? RN_NO_SOLVE
                   : k == WR_LOAD_FAILED ? RN_LOAD_FAILED
                   : k == WR_NO_DEVICE   ? RN_NO_DEVICE
                                         : RN_INTERNAL;
        }
        int ws = 0;
        rn_child_kill(&x->wk, &ws);
        if (r == RN_W_STOP) { /* rn_test or rn_run_all marks the test interrupted */
            x->halt = true;
            return RN_OK;
        }
        const char *when = phase == 1 ? "while loading the solution (its constructors ran)"
                                      : "while its CUDA context was created (the solution loaded)";
        if (phase > 0 && r == RN_W_FLOOD) {
            rn_flood_detail(x, why, sizeof(why));
            return rn_load_verdict(x, t, RS_OUTPUT_EXCEEDED, why);
        }
        if (phase > 0 && r == RN_W_GOT) {
            snprintf(why, sizeof(why), "the solution's process sent a record that cannot be right "
                     "%s (kind %d)", when, (int)k);
            return rn_load_verdict(x, t, RS_ERROR, why);
        }
        if (phase > 0 && r == RN_W_GONE) {
            rn_describe_exit(ws, when, why, sizeof(why));
            return rn_load_verdict(x, t, RS_ERROR, why);
        }
        if (phase == 1 && r == RN_W_LATE) {
            snprintf(why, sizeof(why), "loading the solution (its constructors) did not finish "
                     "within the %.0f s limit (killed)", plan->timeout_s);
            return rn_load_verdict(x, t, RS_TIMEOUT, why);
        }
        if (r == RN_W_LATE)
            snprintf(run->detail, sizeof(run->detail), "the worker did not start within %.0f s",
                     phase == 2 ? plan->timeout_s + 20.0 : plan->timeout_s);
        else if (r == RN_W_GONE)
            rn_describe_exit(ws, "before it loaded the solution", run->detail, sizeof(run->detail));
        else
            snprintf(run->detail, sizeof(run->detail),
                     "the solution's process sent a record that cannot be right at start-up "
                     "(kind %d)", (int)k);
        return RN_INTERNAL;
    }
}

static const char *rn_at_phrase(wr_at at)
{
    switch (at) {
    case WR_AT_ALLOC: return "allocating the test's buffers";
    case WR_AT_UPLOAD: return "uploading the inputs";
    case WR_AT_LAUNCH:
    case WR_AT_SYNC: return "after solve";
    case WR_AT_READBACK: return "reading the buffers back";
    case WR_AT_TIMING: return "while timing";
    case WR_AT_REFERENCE: return "computing the reference";
    case WR_AT_HOST_MEMORY: return "in host memory";
    case WR_AT_NONE: break;
    }
    return "?";
}

/* Send a command to the solution's child and wait for its answer. True: x->m holds a valid
 * WR_DONE. False: t holds the verdict (timeout, death, a record that cannot be right) and the
 * child is gone. *parent_ms gets the parent's clock from sending to the answer. */
static bool rn_ask_worker(rn_ctx *x, wr_cmd_kind kind, int index, rs_test *t, double *parent_ms)
{
    const rn_plan *plan = x->plan;
    wr_cmd c = {kind, index, ++x->nonce};
    double t0 = wr_now();
    const double extra = x->wk_fresh ? plan->first_call_extra_s : 0.0; /* the driver's compile */
    x->wk_fresh = false;
    double limit = plan->timeout_s + extra;
    double deadline = t0 + limit + (kind == WR_CMD_TIME ? plan->timing.max_time_s * 2 + 5.0 : 0);
    if (!wr_write(x->wk.cmd_fd, &c, sizeof(c))) deadline = t0; /* gone: read its exit below */
    int r = 0;
    for (;;) {
        r = rn_recv(x, &x->wk, &x->m, deadline);
        if (r != RN_W_GOT) break;
        const wr_msg *m = &x->m;
        bool ours = m->index == index && m->nonce == c.nonce && m->cmd == kind;
        if (ours && m->kind == WR_BEAT && kind == WR_CMD_TIME) { /* each call gets the limit */
            deadline = wr_now() + limit + plan->timing.max_time_s * 2 + 5.0;
            continue;
        }
        int max = plan->timing.max_runs;
        if (ours && m->kind == WR_DONE && m->at >= WR_AT_NONE && m->at <= WR_AT_HOST_MEMORY &&
            m->n_sol >= 0 && m->n_sol <= max && m->n_base >= 0 && m->n_base <= max &&
            m->n_alt >= 0 && m->n_alt <= max) {
            if (parent_ms) *parent_ms = (wr_now() - t0) * 1e3;
            if (m->sticky) rn_child_reap(&x->wk, NULL); /* it exits after this */
            return true;
        }
        rn_child_kill(&x->wk, NULL);
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail),
                 "the solution's process sent a record that cannot be right (kind %d for test %d, "
                 "command %d): nothing it reports about this test is trusted",
                 (int)m->kind, m->index, (int)m->cmd);
        return false;
    }
    int ws = 0;
    rn_child_kill(&x->wk, &ws);
    if (r == RN_W_STOP) return false; /* rn_test marks it interrupted */
    if (r == RN_W_FLOOD) {
        t->status = RS_OUTPUT_EXCEEDED;
        rn_flood_detail(x, t->detail, sizeof(t->detail));
    } else if (r == RN_W_LATE) {
        t->status = RS_TIMEOUT;
        if (extra > 0)
            snprintf(t->detail, sizeof(t->detail),
                     "did not finish within the %.0f s limit and the %.0f s allowed the driver to "
                     "compile the PTX build on this first call (killed)",
                     plan->timeout_s, extra);
        else
            snprintf(t->detail, sizeof(t->detail), "did not finish within the %.0f s limit (killed)",
                     plan->timeout_s);
    } else {
        t->status = RS_ERROR;
        rn_describe_exit(ws, "in the middle of the test", t->detail, sizeof(t->detail));
    }
    return false;
}

/* The reference of test index from the inputs in the oracle's arena. False: t says why. */
static bool rn_ask_oracle(rn_ctx *x, int index, rs_test *t)
{
    if (!rn_oracle_up(x)) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", x->run->detail);
        return false;
    }
    wr_cmd c = {WR_CMD_REF, index, ++x->nonce};
    int r = wr_write(x->oracle.cmd_fd, &c, sizeof(c))
                ? rn_recv(x, &x->oracle, &x->m, wr_now() + x->plan->timeout_s * 3 + 120.0)
                : RN_W_GONE;
    if (r == RN_W_GOT && x->m.kind == WR_DONE && x->m.index == index && x->m.nonce == c.nonce) {
        if (x->m.sticky) rn_child_reap(&x->oracle, NULL);
        if (x->m.err == 0) { /* its remark, shown if the output fails (bounded: only our text) */
            snprintf(x->ref_remark, sizeof(x->ref_remark), "%.*s", (int)sizeof(x->m.detail) - 1,
                     x->m.detail);
            return true;
        }
        t->status = x->m.err > 0 && dv_error_is_oom(x->m.err) ? RS_OOM : RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", x->m.detail);
        return false;
    }
    rn_child_kill(&x->oracle, NULL);
    t->status = RS_ERROR;
    snprintf(t->detail, sizeof(t->detail), "harness: the oracle %s computing the reference",
             r == RN_W_LATE ? "timed out" : r == RN_W_STOP ? "was interrupted" : "died");
    return false;
}

/* The verdict of a CUDA error the solution's child reported. */
static void rn_cuda_fail(const wr_msg *m, rs_test *t)
{
    if (m->err < 0) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: %s", m->detail);
        return;
    }
    t->status = dv_error_is_oom(m->err) ? RS_OOM : RS_ERROR;
    snprintf(t->detail, sizeof(t->detail), "CUDA error %s: %s", rn_at_phrase(m->at), m->detail);
}

/* Guard zones, inputs unchanged, the output against the reference: from the bytes read back. */
static bool rn_check(rn_ctx *x, const wr_layout *l, rs_test *t, const char *what)
{
    const pb_problem *p = x->plan->problem;
    for (int b = 0; b < l->n_bufs; b++) {
        long long off;
        if (ck_guard_hit(x->sol + l->sol_back[b], l->bytes[b], l->guard, DV_GUARD_BYTE, &off)) {
            const char *n = pb_buf(p, b)->name;
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "wrote outside %s: byte offset %lld from %s's start (%s holds %zu bytes)", n,
                     off, n, n, l->bytes[b]);
            return false;
        }
    }
    for (int b = 0; b < l->n_bufs; b++) {
        const pb_param *q = pb_buf(p, b);
        size_t at;
        if (q->role == PB_IN && ck_first_change(x->sol + l->sol_back[b] + l->guard,
                                                x->orc + l->or_in[b], l->bytes[b], &at)) {
            t->status = RS_FAILED;
            snprintf(t->detail, sizeof(t->detail),
                     "input %s was modified (first changed element %zu): solve must not write its "
                     "inputs", q->name, at / pb_type_size(q->type));
            return false;
        }
    }
    const pb_param *o = pb_buf(p, l->out);
    gen_to_float(o->type, x->sol + l->sol_back[l->out] + l->guard, x->outf, l->n_out);
    const float *ref = (const float *)(x->orc + l->or_ref);
    const float *note = (const float *)(x->orc + l->or_note);
    t->checked = true;
    /* 64-bit extents: BATCH·M rows may pass 2^31. fp32: the note is the exact answer, which
     * passes as cuBLAS's does */
    bool ok = p->alt_reference
                  ? ck_compare_alt(x->outf, ref, note, l->rows[l->out], l->cols[l->out], t->atol,
                                   t->rtol, &t->check)
                  : ck_compare_notes(x->outf, ref, note, l->rows[l->out], l->cols[l->out],
                                     t->atol, t->rtol, &t->check);
    if (ok) return true;
    t->status = RS_FAILED;
    bool both = p->alt_reference && !x->ref_remark[0]; /* a remark: the second was left out */
    snprintf(t->detail, sizeof(t->detail), "%s%lld of %lld elements outside tolerance%s%s%s%s",
             what, (long long)t->check.n_bad, (long long)t->check.n_total,
             both ? " of both references (cuBLAS's fp32 and " : "",
             both ? p->alt_reference : "", both ? ")" : "", x->ref_remark[0] ? "; " : "");
    if (x->ref_remark[0]) {
        size_t u = strlen(t->detail);
        snprintf(t->detail + u, sizeof(t->detail) - u, "%s", x->ref_remark);
    }
    return false;
}

/* Make the inputs for seed, have the oracle compute their reference, and hand them to the
 * solution's arena. False: t says why. */
static bool rn_inputs(rn_ctx *x, size_t i, const wr_layout *l, uint64_t seed, rs_test *t)
{
    const pb_case *c = &x->plan->items[i].c;
    void *dst[PB_MAX_BUFS];
    for (int b = 0; b < l->n_bufs; b++) dst[b] = x->orc + l->or_in[b];
    gen_inputs(x->plan->problem, c, c->v, seed, dst);
    if (!rn_ask_oracle(x, (int)i, t)) return false;
    for (int b = 0; b < l->n_bufs; b++) memcpy(x->sol + l->sol_in[b], dst[b], l->bytes[b]);
    return true;
}

/* cuBLASLt's pick as the solution's child reported it: shown only, so anything out of range
 * is dropped rather than judged (the ids are small enums; the workspace is at most 32 MiB). */
static dv_lt_pick rn_lt_pick(const dv_lt_pick *in)
{
    dv_lt_pick k = *in, none;
    memset(&none, 0, sizeof(none));
    int ids[] = {k.algo_id, k.tile_id, k.stages_id, k.splitk, k.swizzle, k.cluster_id};
    bool ok = k.chosen && k.candidates >= 1 && k.candidates <= 64 && k.workspace_bytes >= 0 &&
              k.workspace_bytes <= (1ll << 30) && isfinite(k.trial_ms) && k.trial_ms >= 0;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) ok = ok && ids[i] >= -1 && ids[i] < 1 << 20;
    return ok ? k : none;
}

/* --baseline both: cuBLASLt's samples (checked with the others), or why it was not timed (its
 * text quoted, never trusted: only NUL-terminated within its field). */
static void rn_alt(rs_timing *tt, double *ev, int n, const char *why)
{
    if (n > 0) {
        st_summary s = st_summarize(ev, (size_t)n);
        tt->alt_done = true;
        tt->alt_runs = n;
        tt->alt_median_ms = s.median;
        tt->alt_min_ms = s.min;
        tt->alt_noise_pct = s.noise_pct;
    } else {
        snprintf(tt->alt_error, sizeof(tt->alt_error), "%.*s", (int)sizeof(tt->alt_error) - 1,
                 why[0] ? why : "cuBLASLt was not timed");
    }
}

/* Samples as the child wrote them, copied here and checked: finite, non-negative, an event
 * interval inside the host interval around it, all of them inside the parent's clock. */
static bool rn_timing(rn_ctx *x, const wr_layout *l, size_t i, const wr_msg *m, double parent_ms,
                      rs_test *t)
{
    const rn_plan *plan = x->plan;
    const pb_problem *p = plan->problem;
    size_t max = (size_t)plan->timing.max_runs;
    memcpy(x->samples, x->sol + l->sol_samples, WR_SAMPLE_SERIES * max * sizeof(double));
    double *ser[WR_SAMPLE_SERIES];
    for (int s = 0; s < WR_SAMPLE_SERIES; s++) ser[s] = x->samples + (size_t)s * max;
    int n[3] = {m->n_sol, m->n_base, plan->timing.yardstick == RN_YS_BOTH ? m->n_alt : 0};
    static const char *const what[3] = {"solution", "baseline", "cuBLASLt"};
    double host_sum = 0;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < n[k]; j++) {
            double ev = ser[2 * k][j], host = ser[2 * k + 1][j];
            bool ok = isfinite(ev) && isfinite(host) && ev >= 0 && host >= 0 &&
                      ev <= host * 1.05 + 0.02;
            if (!ok) {
                t->status = RS_ERROR;
                snprintf(t->detail, sizeof(t->detail),
                         "impossible timing sample from the solution's process (%s call %d: "
                         "events %.6g ms inside a host interval of %.6g ms)",
                         what[k], j, ev, host);
                return false;
            }
            host_sum += host;
        }
    if (m->n_sol < 1 || host_sum > parent_ms * 1.02 + 1.0) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail),
                 m->n_sol < 1 ? "the timed loop reported no samples"
                              : "impossible timing: the samples add up to %.3f ms, more than the "
                                "%.3f ms the parent's clock saw",
                 host_sum, parent_ms);
        return false;
    }
    rs_timing *tt = &t->timing;
    tt->warmup = plan->timing.warmup;
    tt->flush_l2 = plan->timing.flush_l2;
    if (plan->timing.baseline) {
        if (m->n_base == 0) {
            snprintf(tt->base_error, sizeof(tt->base_error), "%s",
                     m->detail[0] ? m->detail : "cuBLAS was not timed");
        } else {
            st_summary sb = st_summarize(ser[WR_BASE_EV], (size_t)m->n_base);
            tt->base_done = true;
            tt->base_runs = m->n_base;
            tt->base_median_ms = sb.median;
            tt->base_min_ms = sb.min;
            tt->base_noise_pct = sb.noise_pct;
        }
        if (plan->timing.yardstick != RN_YS_CUBLAS) tt->lt = rn_lt_pick(&m->lt);
        if (plan->timing.yardstick == RN_YS_BOTH) rn_alt(tt, ser[WR_ALT_EV], n[2], m->alt_detail);
    }
    st_summary bh = {0};
    if (m->n_base) bh = st_summarize(ser[WR_BASE_HOST], (size_t)m->n_base);
    st_summary se = st_summarize(ser[WR_SOL_EV], (size_t)m->n_sol);
    st_summary sh = st_summarize(ser[WR_SOL_HOST], (size_t)m->n_sol);
    tt->done = true;
    tt->n_runs = m->n_sol;
    tt->median_ms = se.median;
    tt->min_ms = se.min;
    tt->max_ms = se.max;
    tt->noise_pct = se.noise_pct;
    tt->host_median_ms = sh.median;
    /* Work on a stream of the solution's own escapes the events but not the synchronize. */
    tt->escaped = sh.median > 1.5 * se.median + 0.05;
    /* What the parent saw per round beyond the host times: restores, syncs, warm-up. A forged
     * small time leaves the real one here. */
    int rounds = m->n_sol + plan->timing.warmup;
    tt->parent_ms = parent_ms;
    tt->overhead_ms = (parent_ms - host_sum) / (rounds > 0 ? rounds : 1);
    st_summary ah = {0};
    if (n[2]) ah = st_summarize(ser[WR_ALT_HOST], (size_t)n[2]);
    tt->unaccounted = tt->overhead_ms > 2.0 &&
                      tt->overhead_ms > 3.0 * (sh.median + (m->n_base ? bh.median : 0) + ah.median);
    tt->vs = plan->vs_path != NULL;
    if (tt->vs && tt->base_done) {
        tt->vs_interval = st_ratio_interval(ser[WR_SOL_EV], (size_t)m->n_sol, ser[WR_BASE_EV],
                                            (size_t)m->n_base, 1000, &tt->vs_lo, &tt->vs_hi);
        /* a difference under 1% is not called: the order in a round can move it that much */
        tt->vs_verdict = !tt->vs_interval ? 0 : tt->vs_hi < 0.99 ? -1 : tt->vs_lo > 1.01 ? 1 : 0;
    }
    double peak = dv_peak_flops(&x->run->device, p->compute);
    tt->peak_tflops = peak * 1e-12;
    double best_ms = rs_reported_ms(tt);
    tt->impossible =
        peak > 0 && pb_flops(p, plan->items[i].c.v) / (best_ms * 1e-3) > 1.05 * peak;
    return true;
}

/* A signal to stop came during the test: whatever it was becoming, it is interrupted (its
 * processes were killed by the harness, not by what they did). */
static void rn_mark_stopped(rs_test *t)
{
    if (!rn_stop_signal) return;
    int sig = rn_stop_signal;
    t->status = RS_INTERRUPTED;
    snprintf(t->detail, sizeof(t->detail), "the harness got SIG%s during this test: stopped, the "
             "later tests not run", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
}

/* One test, start to verdict. RN_OK, or the outcome that ends the run (a child that cannot be
 * started again). */
static rn_outcome rn_test(rn_ctx *x, size_t i)
{
    const rn_plan *plan = x->plan;
    const pb_problem *p = plan->problem;
    const rn_item *it = &plan->items[i];
    rs_test *t = &x->run->tests[i];
    double t0 = wr_now();
    uint64_t seed = it->c.seed * 0x9E3779B97F4A7C15ull + plan->seed;
    wr_layout l;
    if (!wr_layout_for(p, it->c.v, dv_guard_bytes(), plan->timing.max_runs, &l)) {
        t->status = RS_ERROR;
        snprintf(t->detail, sizeof(t->detail), "harness: the case's buffer extents are invalid");
        return RN_OK;
    }
    x->out_bytes = 0; /* the output cap is per test */
    x->out_head[0] = '\0';
    if (!x->wk.alive) {
        rn_outcome o = rn_worker_up(x, t);
        if (o != RN_OK) return o;
        if (!x->wk.alive) goto out; /* t holds why */
    }
    if (!rn_inputs(x, i, &l, seed, t)) goto out;
    if (it->c.expected) { /* the official expected output must agree with the reference (fp32:
                              with one of the two) */
        const float *ref = (const float *)(x->orc + l.or_ref);
        const float *alt = (const float *)(x->orc + l.or_note);
        for (size_t e = 0; e < l.n_out; e++)
            if (!ck_close(ref[e], it->c.expected[e], t->atol, t->rtol) &&
                !(p->alt_reference && ck_close(alt[e], it->c.expected[e], t->atol, t->rtol))) {
                t->status = RS_ERROR;
                snprintf(t->detail, sizeof(t->detail),
                         "harness: the reference disagrees with the official expected output at %zu",
                         e);
                goto out;
            }
    }
    if (!rn_ask_worker(x, WR_CMD_RUN, (int)i, t, NULL)) goto out;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        goto out;
    }
    if (!rn_check(x, &l, t, "")) goto out;
    t->status = RS_SUCCESS;
    if (!it->timed) goto out;
    if (plan->vs_path) { /* the other file on the same inputs, judged the same way */
        rs_test tb = *t;
        tb.status = RS_SUCCESS;
        tb.detail[0] = '\0';
        if (!rn_ask_worker(x, WR_CMD_RUN_VS, (int)i, &tb, NULL)) {
            t->vs_status = tb.status;
            snprintf(t->vs_detail, sizeof(t->vs_detail), "%s", tb.detail);
            t->status = RS_ERROR; /* the child is gone with both files' state */
            snprintf(t->detail, sizeof(t->detail), "the --vs file: %s", tb.detail);
            goto out;
        }
        if (x->m.err) rn_cuda_fail(&x->m, &tb);
        else rn_check(x, &l, &tb, "");
        t->vs_status = tb.status;
        snprintf(t->vs_detail, sizeof(t->vs_detail), "%s", tb.detail);
        if (x->m.sticky) { /* its error took the context: nothing left to time */
            t->status = RS_ERROR;
            snprintf(t->detail, sizeof(t->detail), "the --vs file: %s", tb.detail);
            goto out;
        }
    }

    double parent_ms = 0;
    if (!rn_ask_worker(x, WR_CMD_TIME, (int)i, t, &parent_ms)) goto out;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        goto out;
    }
    wr_msg done = x->m;
    if (!rn_timing(x, &l, i, &done, parent_ms, t)) goto out;
    /* The output of the last timed call must be right too. */
    if (!rn_check(x, &l, t, "output of the timed calls: ")) goto out;
    /* New inputs in the same buffers: a result cached across calls fails here. */
    if (!rn_inputs(x, i, &l, seed ^ 0x5eed5eed5eedull, t)) goto out;
    if (!rn_ask_worker(x, WR_CMD_RERUN, (int)i, t, NULL)) goto out;
    if (x->m.err) {
        rn_cuda_fail(&x->m, t);
        goto out;
    }
    rn_check(x, &l, t, "second input set in the same buffers (cached result?): ");
out:
    rn_mark_stopped(t);
    t->wall_ms = (wr_now() - t0) * 1e3;
    rn_progress(plan, t, i);
    return RN_OK;
}

/* The arenas, sized for the plan's largest test (pages are only backed once touched). */
static bool rn_arenas(rn_ctx *x)
{
    size_t sol = 4096, orc = 4096, out = 1;
    for (size_t i = 0; i < x->plan->n_items; i++) {
        wr_layout l;
        if (!wr_layout_for(x->plan->problem, x->plan->items[i].c.v, dv_guard_bytes(),
                           x->plan->timing.max_runs, &l))
            continue;
        if (l.sol_total > sol) sol = l.sol_total;
        if (l.or_total > orc) orc = l.or_total;
        if (l.n_out > out) out = l.n_out;
    }
    int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE;
    x->sol = mmap(NULL, sol, prot, flags, -1, 0);
    x->orc = mmap(NULL, orc, prot, flags, -1, 0);
    x->sol_bytes = sol;
    x->orc_bytes = orc;
    x->outf = malloc(out * sizeof(float));
    x->samples = malloc((size_t)WR_SAMPLE_SERIES * (size_t)(x->plan->timing.max_runs + 1) *
                        sizeof(double));
    return x->sol != MAP_FAILED && x->orc != MAP_FAILED && x->outf && x->samples;
}

/* The children told to quit and reaped (killed at once after a signal to stop). */
static void rn_release(rn_ctx *x)
{
    rn_child *ch[2] = {&x->wk, &x->oracle};
    for (int i = 0; i < 2; i++) {
        if (!ch[i]->alive) continue;
        if (rn_stop_signal) {
            rn_child_kill(ch[i], NULL);
            continue;
        }
        wr_cmd q = {WR_CMD_QUIT, -1, 0};
        wr_write(ch[i]->cmd_fd, &q, sizeof(q));
        rn_child_reap(ch[i], NULL);
    }
    if (x->sol && x->sol != MAP_FAILED) munmap(x->sol, x->sol_bytes);
    if (x->orc && x->orc != MAP_FAILED) munmap(x->orc, x->orc_bytes);
    free(x->outf);
    free(x->samples);
}

static rn_outcome rn_run_all(const rn_plan *plan, rs_run *run);

rn_outcome rn_run(const rn_plan *plan, rs_run *run)
{
    memset(run, 0, sizeof(*run));
    /* the solution's process runs as this user: keep it from attaching to this one */
    prctl(PR_SET_DUMPABLE, 0);
    /* a command written to a child that died must be an EPIPE to read its exit from, not this
     * process's death */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe, old_int, old_term;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    /* Ctrl-C or a SIGTERM: the children ended, the tests run so far keep their verdicts (the
     * waits poll the flag; SA_RESTART keeps every other call going) */
    struct sigaction stop = {.sa_handler = rn_on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    rn_outcome o = rn_run_all(plan, run);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return o;
}

static rn_outcome rn_run_all(const rn_plan *plan, rs_run *run)
{
    rn_ctx *x = calloc(1, sizeof(*x));
    run->tests = calloc(plan->n_items ? plan->n_items : 1, sizeof(rs_test));
    run->n_tests = plan->n_items;
    if (!x || !run->tests) {
        free(x);
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "out of host memory");
        return run->outcome;
    }
    x->plan = plan;
    x->run = run;
    /* nonces from a random start: a record written ahead of its command cannot guess one */
    if (getrandom(&x->nonce, sizeof(x->nonce), 0) != (ssize_t)sizeof(x->nonce))
        x->nonce = (uint32_t)(wr_now() * 1e6);
    for (size_t i = 0; i < plan->n_items; i++) rn_init_test(plan, i, &run->tests[i]);
    if (!rn_arenas(x)) {
        run->outcome = RN_INTERNAL;
        snprintf(run->detail, sizeof(run->detail), "cannot map the shared buffers: %s",
                 strerror(errno));
        rn_release(x);
        free(x);
        return run->outcome;
    }
    bool want_oracle = !plan->lookup_only && plan->n_items > 0 && !rn_stop_signal;
    if (want_oracle && !rn_oracle_start(x)) { /* both contexts come up at once */
        run->outcome = RN_INTERNAL;
        rn_release(x);
        free(x);
        return run->outcome;
    }
    rs_test scratch, *first = plan->n_items ? &run->tests[0] : &scratch;
    memset(&scratch, 0, sizeof(scratch));
    double t0 = wr_now();
    rn_outcome o = rn_stop_signal ? RN_OK : rn_worker_up(x, first);
    if (o == RN_OK && x->wk.alive && want_oracle && !rn_oracle_up(x) && !rn_stop_signal)
        o = RN_INTERNAL;
    if (o == RN_OK && (x->halt || rn_stop_signal)) { /* the first test's verdict, before it ran */
        rn_mark_stopped(first);
        first->wall_ms = (wr_now() - t0) * 1e3;
        if (plan->n_items) rn_progress(plan, first, 0);
        if (!plan->n_items && first->status != RS_SUCCESS) { /* nothing to hold it */
            o = RN_INTERNAL;
            snprintf(run->detail, sizeof(run->detail), "%s", first->detail);
        }
    }
    for (size_t i = 0; o == RN_OK && !x->halt && !rn_stop_signal && !plan->lookup_only &&
                       i < plan->n_items;
         i++)
        o = rn_test(x, i);
    run->outcome = o;
    rn_release(x);
    free(x);
    return run->outcome;
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
    wr_msg *m = calloc(1, sizeof(*m));
    if (pid == 0) {
        close(fds[0]);
        if (!m) _exit(1);
        dv_probe(&m->device);
        _exit(wr_write(fds[1], m, sizeof(*m)) ? 0 : 1);
    }
    close(fds[1]);
    int r = m ? wr_read(fds[0], m, sizeof(*m), wr_now() + timeout_s) : 0;
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
    info->name[sizeof(info->name) - 1] = '\0';
    info->error[sizeof(info->error) - 1] = '\0';
    return info->present;
}

rs_status rn_overall(const rs_run *run)
{
    for (size_t i = 0; i < run->n_tests; i++)
        if (run->tests[i].status == RS_INTERRUPTED) return RS_INTERRUPTED;
    for (size_t i = 0; i < run->n_tests; i++)
        if (run->tests[i].status != RS_SUCCESS && run->tests[i].status != RS_NOT_RUN)
            return run->tests[i].status;
    return RS_SUCCESS;
}
