/* wire.c — where a test's bytes lie in the arenas (the same computation on every side). */
#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"

static size_t wr_align(size_t x) { return (x + 4095) & ~(size_t)4095; }

bool wr_layout_for(const pb_problem *p, const double *v, size_t guard, int max_runs,
                   wr_layout *l)
{
    memset(l, 0, sizeof(*l));
    l->n_bufs = pb_n_bufs(p);
    l->guard = guard;
    l->out = pb_out_buf(p);
    if (l->n_bufs > PB_MAX_BUFS || l->out < 0) return false;
    size_t sol = 0, orc = 0;
    for (int b = 0; b < l->n_bufs; b++) {
        pb_buf_dims(p, b, v, &l->rows[b], &l->cols[b]);
        if (l->rows[b] <= 0 || l->cols[b] <= 0) return false;
        size_t n, bytes; /* 64-bit all the way: BATCH*M alone may pass 2^31 */
        if (__builtin_mul_overflow((size_t)l->rows[b], (size_t)l->cols[b], &n) ||
            __builtin_mul_overflow(n, pb_type_size(pb_buf(p, b)->type), &bytes) ||
            bytes > WR_MAX_BUF_BYTES)
            return false;
        l->bytes[b] = bytes;
        l->sol_in[b] = sol;
        sol = wr_align(sol + l->bytes[b]);
        l->or_in[b] = orc;
        orc = wr_align(orc + l->bytes[b]);
    }
    for (int b = 0; b < l->n_bufs; b++) {
        l->sol_back[b] = sol;
        sol = wr_align(sol + l->bytes[b] + 2 * guard);
    }
    l->sol_samples = sol;
    sol = wr_align(sol + (size_t)WR_SAMPLE_SERIES * (size_t)(max_runs > 0 ? max_runs : 1) * sizeof(double));
    l->sol_total = sol;
    l->n_out = (size_t)l->rows[l->out] * (size_t)l->cols[l->out];
    l->or_ref = orc;
    orc = wr_align(orc + l->n_out * sizeof(float));
    l->or_note = orc;
    orc = wr_align(orc + l->n_out * sizeof(float));
    l->or_total = orc;
    return true;
}

uint64_t wr_case_seed(const rn_plan *plan, size_t i)
{
    return plan->items[i].c.seed * 0x9E3779B97F4A7C15ull + plan->seed;
}

int wr_swap_buf(const pb_problem *p)
{
    for (int b = 0; b < pb_n_bufs(p); b++)
        if (pb_buf(p, b)->role == PB_IN) return b;
    return -1;
}

bool wr_swap_pick(const unsigned char *buf, size_t n, size_t es, uint64_t seed, uint64_t j,
                  size_t *p, size_t *q)
{
    if (n < 2 || es == 0) return false;
    rg_state s = {seed ^ (j * 0xD1B54A32D192ED03ull)};
    for (int t = 0; t < 8; t++) { /* a few draws: mostly equal values (int8, int4) need one more */
        size_t a = (size_t)(rg_next(&s) % n), b = (size_t)(rg_next(&s) % n);
        if (a != b && memcmp(buf + a * es, buf + b * es, es) != 0) {
            *p = a;
            *q = b;
            return true;
        }
    }
    return false;
}

size_t wr_host_bytes(const wr_layout *l)
{
    return l->sol_total + l->or_total + l->n_out * sizeof(float);
}

double wr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool wr_write(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void wr_clean_text(char *s, size_t n)
{
    if (n == 0) return;
    s[n - 1] = '\0';
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) *s = '.';
}

int wr_read(int fd, void *buf, size_t n, double deadline)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        int wait_ms = -1;
        if (deadline < 1e300) {
            double left = (deadline - wr_now()) * 1e3;
            if (left < 0) return -1;
            wait_ms = left > 1000 ? 1000 : (int)left;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        got += (size_t)k;
    }
    return 1;
}

void wr_close_other_fds(const int *keep, int n_keep)
{
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = 3; fd < max; fd++) {
        bool k = false;
        for (int i = 0; i < n_keep; i++) k |= keep[i] == fd;
        if (!k) close(fd);
    }
}
