/* wire.h — the messages a worker child sends its parent (private to runner.c and worker.c). */
#ifndef WIRE_H
#define WIRE_H

#include "runner.h"

typedef enum {
    WK_LOADED = 1,     /* solve found */
    WK_NO_SOLVE,       /* dlopen fine, no solve symbol */
    WK_LOAD_FAILED,    /* dlopen failed */
    WK_NO_DEVICE,
    WK_DEVICE,         /* context up: tests follow */
    WK_BEGIN,          /* test index starts: the time limit runs from here */
    WK_TIMING_BEGIN,   /* test index passed its check and is being timed (repeated as a heartbeat) */
    WK_RESULT,         /* test index done (with its timing when it was timed) */
    WK_FATAL,          /* the worker cannot go on (harness-side failure) */
    WK_FINISH
} wk_kind;

typedef struct {
    wk_kind kind;
    int index;
    char detail[400];
    dv_info device;
    rs_test test;
} wk_msg;

/* A test's record before it runs: its name, set, shape, scalars and tolerance from the plan.
 * The worker starts each result from it; the parent from it for tests that never report. */
void rn_init_test(const rn_plan *plan, size_t i, rs_test *t);

#endif
