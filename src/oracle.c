/* oracle.c — the reference child: computes each test's reference with the problem's reference
 * function on the GPU (cuBLAS), from the inputs the parent wrote into its arena. No solution
 * code is ever loaded here, and the solution's child cannot reach this arena (it unmaps it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

static void or_send(int fd, wr_msg *m)
{
    if (!wr_write(fd, m, sizeof(*m))) _exit(3); /* parent gone */
}

void or_main(const rn_plan *plan, unsigned char *arena, size_t arena_bytes, int cmd_fd,
             int msg_fd)
{
    wr_msg *m = calloc(1, sizeof(*m)); /* the child's one message buffer, off the stack */
    if (!m) _exit(4);
    if (!dv_probe(&m->device)) {
        m->kind = WR_NO_DEVICE;
        snprintf(m->detail, sizeof(m->detail), "%s", m->device.error);
        or_send(msg_fd, m);
        _exit(0);
    }
    dv_blas *blas = NULL;
    if (dv_blas_create(&blas, m->detail, sizeof(m->detail))) {
        m->kind = WR_FATAL;
        or_send(msg_fd, m);
        _exit(0);
    }
    pb_ref_env env;
    dv_ref_env_init(&env, blas);
    m->kind = WR_READY;
    or_send(msg_fd, m);

    const pb_problem *p = plan->problem;
    for (;;) {
        wr_cmd c;
        if (wr_read(cmd_fd, &c, sizeof(c), 1e308) != 1 || c.kind != WR_CMD_REF) break;
        memset(m, 0, sizeof(*m));
        m->kind = WR_DONE;
        m->cmd = c.kind;
        m->index = c.index;
        m->nonce = c.nonce;
        wr_layout l;
        bool known = c.index >= 0 && (size_t)c.index < plan->n_items;
        const double *v = known ? plan->items[c.index].c.v : NULL;
        if (!known ||
            !wr_layout_for(p, v, dv_guard_bytes(), plan->timing.max_runs, &l) ||
            l.or_total > arena_bytes) {
            m->err = -1;
            m->at = WR_AT_REFERENCE;
            snprintf(m->detail, sizeof(m->detail), "the test's buffers do not fit the oracle's arena");
            or_send(msg_fd, m);
            continue;
        }
        const void *in[PB_MAX_BUFS];
        for (int b = 0; b < l.n_bufs; b++) in[b] = arena + l.or_in[b];
        float *ref = (float *)(arena + l.or_ref), *note = (float *)(arena + l.or_note);
        for (size_t i = 0; i < l.n_out; i++) note[i] = __builtin_nanf("");
        int e = p->reference(p, &env, v, in, ref, note, m->detail, sizeof(m->detail));
        if (e) {
            m->err = e;
            m->at = WR_AT_REFERENCE;
            m->sticky = e > 0 && dv_error_is_sticky(e);
        }
        or_send(msg_fd, m);
        if (m->sticky) _exit(0);
    }
    dv_blas_destroy(blas);
    _exit(0);
}
