/* runner_int.h — what the parent's files share; for src/runner.c, src/runner_child.c and
 * src/runner_timing.c only. runner.c: the run and every test's verdict; runner_child.c: the two
 * children (spawn, kill, reap, their records, their start-up) and the device probe;
 * runner_timing.c: the timing samples checked and summarised; runner_vs.c: a --vs case timed in
 * both orders of the files' first calls. */
#ifndef RUNNER_INT_H
#define RUNNER_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner.h"
#include "wire.h"

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
    bool wk_vs_first;         /* the next solution's child loads the --vs object first */
    bool vs_unsure;           /* run->vs_lost comes from a start-up of both files: this file
                                 alone decides whose failure it was */
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
extern volatile sig_atomic_t rn_stop_signal;

/* runner_child.c */
void rn_child_kill(rn_child *ch, int *wstatus);
void rn_child_reap(rn_child *ch, int *wstatus);
bool rn_oracle_start(rn_ctx *x);
bool rn_oracle_up(rn_ctx *x);
rn_outcome rn_worker_up(rn_ctx *x, rs_test *t);
bool rn_ask_worker(rn_ctx *x, wr_cmd_kind kind, int index, rs_test *t, double *parent_ms);
bool rn_ask_oracle(rn_ctx *x, int index, rs_test *t);

/* runner.c */
bool rn_check(rn_ctx *x, const wr_layout *l, rs_test *t, const char *what);
void rn_cuda_fail(const wr_msg *m, rs_test *t);
/* A case's first call checked, then, when it is timed, its timed loop: the judged file alone
 * (no --vs, or the other file not loaded). False: t holds a verdict, or the case is untimed. */
bool rn_case_alone(rn_ctx *x, const wr_layout *l, size_t i, rs_test *t);

/* runner_timing.c */
bool rn_timing(rn_ctx *x, const wr_layout *l, size_t i, const wr_msg *m, double parent_ms,
               rs_test *t);
/* --vs: the two orders' timings (each from rn_timing, with its samples) into one */
void rn_vs_merge(rs_timing *out, const rs_timing h[2], const double *const sol[2],
                 const double *const other[2]);

/* runner_vs.c: a timed case's --vs part, after its inputs are in the arena (once the other file
 * failed to load, rs_run.vs_lost, the judged file alone). RN_OK with *ok false: t holds the
 * verdict (or the run halts); another outcome ends the run. */
rn_outcome rn_vs_case(rn_ctx *x, const wr_layout *l, size_t i, rs_test *t, bool *ok);

#endif
