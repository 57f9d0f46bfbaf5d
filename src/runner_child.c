/* runner_child.c — the parent's side of its two children: spawn, kill and reap them, read their
 * records (and the solution's output) by a deadline, bring them up, ask them for a test; and
 * the device probe's child. The verdicts are runner.c's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "runner_int.h"
#include "wire.h"

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

void rn_child_kill(rn_child *ch, int *wstatus) { rn_child_end(ch, 0, wstatus); }

/* The child's exit after it was told to go (or said it would), reaped. */
void rn_child_reap(rn_child *ch, int *wstatus) { rn_child_end(ch, 30.0, wstatus); }

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

/* What the next solution's child loads with --vs: the other file not again once it failed to. */
static wr_vs_load rn_vs_load(const rn_ctx *x)
{
    return x->run->vs_lost != RS_SUCCESS ? WR_VS_JUDGED_ONLY
           : x->wk_vs_first              ? WR_VS_OTHER_FIRST
                                         : WR_VS_JUDGED_FIRST;
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
        wk_main(x->plan, x->sol, x->sol_bytes, cmd[0], msg[1], rn_vs_load(x));
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
    if (r == RN_W_GOT) { /* its text goes into report lines: printable ASCII only */
        wr_clean_text(m->detail, sizeof(m->detail));
        wr_clean_text(m->alt_detail, sizeof(m->alt_detail));
        wr_clean_text(m->device.name, sizeof(m->device.name));
        wr_clean_text(m->device.error, sizeof(m->device.error));
    }
    return r;
}

/* Start the oracle (when it is not running) and wait until it is ready; false with run->detail
 * set. Started early, its CUDA context comes up beside the solution's child's. */
bool rn_oracle_start(rn_ctx *x)
{
    if (x->oracle.alive) return true;
    x->oracle_ready = false;
    if (rn_spawn(x, &x->oracle, true)) return true;
    snprintf(x->run->detail, sizeof(x->run->detail), "cannot start the oracle: %s", strerror(errno));
    return false;
}

bool rn_oracle_up(rn_ctx *x)
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
 * the context came up): the test's verdict, and no further test runs. both: the process held
 * the --vs file too, whose code may be the one that failed (its constructors, or a record one
 * of them forged, WR_LOADED_FIRST included): the failure is kept as the other file's
 * (rs_run.vs_lost) and this file starts again alone; if it fails alone too, the failure is its
 * own and the other file's is unknown. */
static rn_outcome rn_load_verdict(rn_ctx *x, rs_test *t, rs_status st, const char *detail,
                                  bool both)
{
    if (both) {
        x->run->vs_lost = st;
        snprintf(x->run->vs_lost_detail, sizeof(x->run->vs_lost_detail), "%s", detail);
        x->vs_unsure = true;
        x->out_bytes = 0; /* its output does not count against the judged file's cap */
        x->out_head[0] = '\0';
        return rn_worker_up(x, t);
    }
    if (x->vs_unsure) { /* alone it failed too: not the other file's doing */
        x->run->vs_lost = RS_SUCCESS;
        x->run->vs_lost_detail[0] = '\0';
        x->vs_unsure = false;
    }
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

/* A start-up record sent once the solution's constructors ran (phase 1 or 2) may be the
 * solution's own: checked against what the harness can see without it. True (why set): the claim
 * is false, so the record is the solution's, and so is the verdict. "No solve": the object's
 * symbol table (and --vs's) defines solve. "No device": a probe in a fresh process finds the
 * device. A failure to start the library: there the device and the same libraries start. */
static bool rn_probe_with(dv_info *info, double timeout_s, bool libs, bool lt);
static bool rn_claim_refuted(rn_ctx *x, wr_msg_kind k, char *why, size_t len)
{
    const rn_plan *plan = x->plan;
    char said[200];
    snprintf(said, sizeof(said), "%.*s", (int)sizeof(said) - 1, x->m.detail);
    if (k == WR_NO_SOLVE) {
        if (!ld_object_defines(plan->so_path, "solve") ||
            (plan->vs_path && !ld_object_defines(plan->vs_path, "solve")))
            return false;
        snprintf(why, len, "the solution's process said solve could not be found (\"%s\") while "
                 "the solution loaded (its constructors ran), but the compiled object defines it",
                 said);
        return true;
    }
    if (k != WR_NO_DEVICE && k != WR_FATAL) return false;
    dv_info dev;
    /* a library that does not start: the worker's libraries, in a process without the solution */
    bool lt = plan->timing.baseline && plan->timing.yardstick != RN_YS_CUBLAS && !plan->vs_path;
    if (!rn_probe_with(&dev, 60.0, k == WR_FATAL, lt)) return false; /* not there either: it stands */
    snprintf(why, len, "once the solution's code had loaded, its process reported %s (\"%s\"), "
             "but in a process without it the harness finds %s%s",
             k == WR_NO_DEVICE ? "no CUDA device" : "a failure to start the library", said,
             dev.name[0] ? dev.name : "a device", k == WR_FATAL ? " and starts its libraries" : "");
    return true;
}

/* Start the solution's child: it confines itself, loads the object (the solution's constructors
 * run: within the test's time limit, and what they do is the solution's verdict, given to t;
 * with --vs the other object's too, their failure that file's: rn_load_verdict) and makes its
 * context (the limit plus 20 s). RN_OK: ready, or (not alive) solve looked up only, or
 * t holds a verdict (x->halt set). Another outcome ends the run (run->detail says why). */
rn_outcome rn_worker_up(rn_ctx *x, rs_test *t)
{
    const rn_plan *plan = x->plan;
    rs_run *run = x->run;
    /* --vs: two objects load, the second after WR_LOADED_FIRST */
    const wr_vs_load load = rn_vs_load(x);
    const bool two = plan->vs_path && load != WR_VS_JUDGED_ONLY;
    bool second = false;
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
        if (r == RN_W_GOT && phase == 1 && k == WR_LOADED_FIRST && two && !second) {
            second = true;
            deadline = wr_now() + plan->timeout_s; /* each file's constructors get the limit */
            continue;
        }
        if (r == RN_W_GOT && phase == 1 && k == WR_LOADED && (!two || second)) {
            if (plan->lookup_only) { /* solve found is the answer */
                rn_child_reap(&x->wk, NULL);
                x->vs_unsure = false;
                return RN_OK;
            }
            phase = 2;
            deadline = wr_now() + plan->timeout_s + 20.0;
            continue;
        }
        if (r == RN_W_GOT && phase == 2 && k == WR_READY) {
            x->wk_fresh = true;
            x->vs_unsure = false; /* this file came up alone: the failure was the other's */
            return RN_OK;
        }
        bool said = r == RN_W_GOT && (((phase == 1) && (k == WR_NO_SOLVE || k == WR_LOAD_FAILED)) ||
                                      ((phase == 0 || phase == 2) && k == WR_FATAL) ||
                                      (phase == 2 && k == WR_NO_DEVICE));
        /* whose constructors were running, for the words only: WR_LOADED_FIRST comes after the
         * first file's code ran, which could forge it. Whose failure it is, this file alone
         * decides (rn_load_verdict). */
        const bool other = phase == 1 && two && second != (load == WR_VS_OTHER_FIRST);
        const bool both = phase > 0 && two;
        if (said && phase > 0 && rn_claim_refuted(x, k, why, sizeof(why))) {
            rn_child_kill(&x->wk, NULL); /* its own records say nothing of what it does next */
            return rn_load_verdict(x, t, RS_ERROR, why, both);
        }
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
        const char *when = phase != 1 ? "while its CUDA context was created (the solution loaded)"
                           : other    ? "while loading the --vs file (its constructors ran)"
                                      : "while loading the solution (its constructors ran)";
        if (phase > 0 && r == RN_W_FLOOD) {
            rn_flood_detail(x, why, sizeof(why));
            return rn_load_verdict(x, t, RS_OUTPUT_EXCEEDED, why, both);
        }
        if (phase > 0 && r == RN_W_GOT) {
            snprintf(why, sizeof(why), "the solution's process sent a record that cannot be right "
                     "%s (kind %d)", when, (int)k);
            return rn_load_verdict(x, t, RS_ERROR, why, both);
        }
        if (phase > 0 && r == RN_W_GONE) {
            rn_describe_exit(ws, when, why, sizeof(why));
            return rn_load_verdict(x, t, RS_ERROR, why, both);
        }
        if (phase == 1 && r == RN_W_LATE) {
            snprintf(why, sizeof(why), "loading %s (its constructors) did not finish within the "
                     "%.0f s limit (killed)", other ? "the --vs file" : "the solution",
                     plan->timeout_s);
            return rn_load_verdict(x, t, RS_TIMEOUT, why, both);
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

/* Send a command to the solution's child and wait for its answer. True: x->m holds a valid
 * WR_DONE. False: t holds the verdict (timeout, death, a record that cannot be right) and the
 * child is gone. *parent_ms gets the parent's clock from sending to the answer. */
bool rn_ask_worker(rn_ctx *x, wr_cmd_kind kind, int index, rs_test *t, double *parent_ms)
{
    const rn_plan *plan = x->plan;
    wr_cmd c = {kind, index, ++x->nonce};
    double t0 = wr_now();
    const double extra = x->wk_fresh ? plan->first_call_extra_s : 0.0; /* the driver's compile */
    x->wk_fresh = false;
    double limit = plan->timeout_s + extra;
    double deadline = t0 + limit + (kind == WR_CMD_TIME ? plan->timing.max_time_s * 2 + 5.0 : 0);
    /* Heartbeats come from inside the solution's process, so a solution can forge them: they
     * move the deadline only up to what an honest loop can take (the warm-up and at most 4 kept
     * rounds of 3 calls before max_time ends it, the last call and the readback) */
    const double hard = t0 + limit * (3.0 * (plan->timing.warmup + 4) + 2.0) +
                        plan->timing.max_time_s * 2 + 5.0;
    if (!wr_write(x->wk.cmd_fd, &c, sizeof(c))) deadline = t0; /* gone: read its exit below */
    int r = 0;
    for (;;) {
        r = rn_recv(x, &x->wk, &x->m, deadline);
        if (r != RN_W_GOT) break;
        const wr_msg *m = &x->m;
        bool ours = m->index == index && m->nonce == c.nonce && m->cmd == kind;
        if (ours && m->kind == WR_BEAT && kind == WR_CMD_TIME) { /* each call gets the limit */
            deadline = wr_now() + limit + plan->timing.max_time_s * 2 + 5.0;
            if (deadline > hard) deadline = hard;
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
        if (kind == WR_CMD_TIME && deadline >= hard)
            snprintf(t->detail, sizeof(t->detail),
                     "the timing did not finish within %.0f s, the most its calls can take under the "
                     "%.0f s limit a call, though its process kept signalling progress (killed)",
                     hard - t0, limit);
        else if (extra > 0)
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
bool rn_ask_oracle(rn_ctx *x, int index, rs_test *t)
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

bool rn_probe(dv_info *info, double timeout_s) { return rn_probe_with(info, timeout_s, false, false); }

/* rn_probe, and with libs the libraries the worker starts once the solution is loaded (cuBLAS,
 * and cuBLASLt when lt): a device that is there but whose library does not start in a fresh
 * process is reported as absent, with the library's error. */
static bool rn_probe_with(dv_info *info, double timeout_s, bool libs, bool lt)
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
        dv_blas *blas = NULL;
        dv_lt *lth = NULL;
        char err[200];
        if (dv_probe(&m->device) && libs &&
            (dv_blas_create(&blas, err, sizeof(err)) || (lt && dv_lt_create(&lth, blas, err, sizeof(err))))) {
            m->device.present = false;
            snprintf(m->device.error, sizeof(m->device.error), "%s", err);
        }
        if (lth) dv_lt_destroy(lth);
        if (blas) dv_blas_destroy(blas);
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
