/* wire.h — what the parent, the oracle child and the solution's child say to each other, and
 * where a test's bytes lie in the shared arenas. Private to the parent (runner*.c), worker.c
 * and oracle.c; judge_sizes.c asks the layout only whether a size's buffers can exist before
 * anything runs.
 *
 * Trust: the solution's child (worker.c) runs untrusted code, so everything it sends is raw
 * facts (CUDA error codes, the bytes it read back, timing samples) that the parent validates;
 * it never sends a verdict. The oracle (oracle.c) computes references and runs no solution code.
 */
#ifndef WIRE_H
#define WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "runner.h"

/* ---- where a test's bytes lie ---- */

/* A test's buffers: sizes, and offsets in the solution's arena (inputs as the parent wrote
 * them; each buffer read back whole, guard | data | guard, after a call; timing samples) and in
 * the oracle's arena (inputs; the reference and its notes, one float per output element). */
typedef struct {
    int n_bufs;
    size_t bytes[PB_MAX_BUFS];
    long long rows[PB_MAX_BUFS], cols[PB_MAX_BUFS];
    size_t guard;                 /* bytes of each guard zone */
    size_t sol_in[PB_MAX_BUFS];   /* solution arena: the inputs */
    size_t sol_back[PB_MAX_BUFS]; /* solution arena: guard | data | guard, read back */
    size_t sol_samples;           /* solution arena: WK_SAMPLE_SERIES × max_runs doubles */
    size_t sol_total;
    size_t or_in[PB_MAX_BUFS];    /* oracle arena: the inputs (the parent's pristine copy) */
    size_t or_ref, or_note;       /* oracle arena: out elements × float each */
    size_t or_total;
    int out;                      /* the output buffer's index */
    size_t n_out;                 /* its elements */
} wr_layout;

/* The host memory a test of this layout takes: both arenas and the output read back as floats
 * (the arenas are shared mappings, only backed once touched: all of it is touched). */
size_t wr_host_bytes(const wr_layout *l);

/* Timing samples, series by series (each max_runs doubles): the solution's event and host
 * times, the baseline's event and host times, the second yardstick's (--baseline both). */
enum { WR_SOL_EV, WR_SOL_HOST, WR_BASE_EV, WR_BASE_HOST, WR_ALT_EV, WR_ALT_HOST, WR_SAMPLE_SERIES };

/* The most one buffer may hold: more is an extent gone wrong, or a size no GPU holds. */
#define WR_MAX_BUF_BYTES ((size_t)64 << 30)

/* False when an extent cannot be evaluated, overflows 64 bits or is over WR_MAX_BUF_BYTES. */
bool wr_layout_for(const pb_problem *p, const double *v, size_t guard, int max_runs,
                   wr_layout *l);

/* The seed of item i's inputs: the case's, mixed with the plan's (--seed). */
uint64_t wr_case_seed(const rn_plan *plan, size_t i);

/* ---- swapped elements: no two timed calls see the same inputs ---- */

/* Before each timed call the solution's child swaps one pair of elements of the first input
 * (the previous pair put back first), so a result cached by the inputs' contents is computed
 * on every timed call; after the loop the parent swaps WR_CHECK_SWAPS pairs in its own copy and
 * checks one more call against their reference, so a result cached by a sample of the inputs
 * (or by where they lie) fails. A swap keeps the inputs' values, only moves them. */
enum { WR_CHECK_SWAPS = 4 };

/* The buffer whose elements are swapped: the problem's first input (-1: none). */
int wr_swap_buf(const pb_problem *p);

/* The j-th pair of seed's sequence among n elements of es bytes each: two positions whose
 * bytes differ (a few draws; false when none differ, or n < 2). The parent and the child pick
 * from their own copies of the same bytes, so they pick alike. */
bool wr_swap_pick(const unsigned char *buf, size_t n, size_t es, uint64_t seed, uint64_t j,
                  size_t *p, size_t *q);

/* ---- parent -> children ---- */
typedef enum {
    WR_CMD_RUN = 1,  /* worker: upload test index's inputs, call solve once, read back */
    WR_CMD_TIME,     /* worker: the timed loop on the same buffers, then read back */
    WR_CMD_RERUN,    /* worker: upload the (new) inputs into the same buffers, call, read back */
    WR_CMD_RUN_VS,   /* worker: the same inputs into the same buffers, call the --vs object */
    WR_CMD_RUN_VS_FIRST, /* worker: as WR_CMD_RUN, but the --vs object's call (its first) */
    WR_CMD_REF,      /* oracle: the reference of the inputs in its arena */
    WR_CMD_QUIT
} wr_cmd_kind;

typedef struct {
    wr_cmd_kind kind;
    int index;       /* the plan's item */
    uint32_t nonce;  /* echoed back, so a reply is known to answer this command */
} wr_cmd;

/* ---- children -> parent ---- */
typedef enum {
    WR_LOADED = 1,     /* solve found */
    WR_NO_SOLVE,       /* dlopen fine, no solve symbol */
    WR_LOAD_FAILED,    /* dlopen failed */
    WR_NO_DEVICE,
    WR_READY,          /* context up (and cuBLAS): commands may follow */
    WR_FATAL,          /* the child cannot go on (harness-side failure) */
    WR_BEAT,           /* alive: the command is still running (timing) */
    WR_DONE,           /* the command finished: the facts below */
    WR_SANDBOX,        /* first of all, before the solution is loaded: its confinement (detail:
                          what does not hold; dropped, filtered) */
    WR_LOADED_FIRST    /* --vs: the first of the two objects loaded (solve found); what fails
                          from here on, until WR_LOADED, is the second's */
} wr_msg_kind;

/* Where a step failed on the device: which CUDA call returned err. */
typedef enum {
    WR_AT_NONE = 0,
    WR_AT_ALLOC,       /* allocating the test's buffers */
    WR_AT_UPLOAD,      /* copying the inputs in */
    WR_AT_LAUNCH,      /* cudaGetLastError right after solve returned */
    WR_AT_SYNC,        /* cudaDeviceSynchronize after solve */
    WR_AT_READBACK,    /* copying the buffers out */
    WR_AT_TIMING,      /* the timed loop */
    WR_AT_REFERENCE,   /* oracle: the reference computation */
    WR_AT_HOST_MEMORY  /* a child ran out of host memory */
} wr_at;

typedef struct {
    wr_msg_kind kind;
    int index;
    uint32_t nonce;
    wr_cmd_kind cmd;    /* what WR_DONE answers */
    int err;            /* a cudaError_t (or -1: see detail), 0 when none */
    wr_at at;
    bool sticky;        /* the child's context is gone: it exits after this message */
    int n_sol, n_base;  /* WR_CMD_TIME: samples written */
    int warmup;
    double loop_ms;     /* WR_CMD_TIME: the child's own clock around the whole loop */
    bool dropped;       /* WR_SANDBOX: runs as an unprivileged uid */
    bool filtered;      /* WR_SANDBOX: under the seccomp filter */
    char detail[256];   /* free text (a cuBLAS refusal, dlerror); always shown as quoted text */
    dv_info device;     /* WR_READY */
    dv_lt_pick lt;      /* WR_CMD_TIME with --baseline lt or both: the algorithm cuBLASLt ran */
    int n_alt;          /* WR_CMD_TIME with --baseline both: cuBLASLt's samples written */
    char alt_detail[200]; /* why cuBLASLt was not timed (both), quoted text like detail */
} wr_msg;

/* ---- plumbing ---- */
double wr_now(void); /* monotonic seconds */
bool wr_write(int fd, const void *buf, size_t n);
/* Read exactly n bytes by deadline (wr_now() seconds; 1e308: none). 1: got them; 0: EOF; -1:
 * timed out. */
int wr_read(int fd, void *buf, size_t n, double deadline);
/* A text field as a child sent it, made safe to print: ended within its n bytes, and every byte
 * outside printable ASCII a '.' (the solution's process can write anything there, and a newline
 * or an escape sequence in a report line could forge another line). */
void wr_clean_text(char *s, size_t n);
/* Close every descriptor from 3 up but those in keep (a child's first act). */
void wr_close_other_fds(const int *keep, int n_keep);

/* With --vs, what the solution's child loads: both objects, the judged one first or the other
 * one first (runner_vs.c's second order), or the judged one alone (the other failed to load
 * once: its constructors are not run again). */
typedef enum { WR_VS_JUDGED_FIRST, WR_VS_OTHER_FIRST, WR_VS_JUDGED_ONLY } wr_vs_load;

/* The children's entry points: the plan and the arena are the parent's, inherited at fork. The
 * solution's child runs in its own process group, its stdin /dev/null, its stdout and stderr the
 * output pipe; wk_main confines it (sandbox.h) before it loads the solution (and, with --vs,
 * the other object as vs says). */
void wk_main(const rn_plan *plan, unsigned char *arena, size_t arena_bytes, int cmd_fd,
             int msg_fd, wr_vs_load vs);
void or_main(const rn_plan *plan, unsigned char *arena, size_t arena_bytes, int cmd_fd,
             int msg_fd);

#endif
