/* device.h — everything that touches the GPU: probe, guarded buffers, the cuBLAS reference and
 * baseline, event timing. Only a child process may call these: a CUDA context does not survive
 * fork, so the harness's parent never initialises CUDA. */
#ifndef DEVICE_H
#define DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"

typedef struct {
    bool present;
    char name[256];
    int cc_major, cc_minor, sm_count;
    int clock_khz;        /* 0 when the driver does not say */
    long long l2_bytes, mem_bytes;
    int driver_version, runtime_version; /* 13000 = 13.0 */
    char error[160];      /* why no device, when !present */
} dv_info;

/* Fills info; false when no usable CUDA device exists (info->error says why). */
bool dv_probe(dv_info *info);

/* Peak dense FLOP/s the chip could do on this kind of arithmetic (0 when unknown): the bound for
 * the "faster than physically possible" flag. */
double dv_peak_flops(const dv_info *info, pb_type compute);

/* A device buffer between two guard zones filled with a pattern. The pattern is a large finite
 * value in every element type (fp32 1.5e16, fp16 203, int8 90, int4 5 and -6): a kernel that
 * reads past a buffer and uses the value fails the check, while one that multiplies it by a zero
 * it padded with still passes. (0xA5, fp32 -2.9e-16, let a missing inner-dimension bounds check
 * pass every fp32 test.) */
#define DV_GUARD_BYTES (1u << 20)
#define DV_GUARD_BYTE 0x5A
typedef struct {
    unsigned char *base; /* allocation: guard | data | guard */
    void *ptr;           /* the data, 256-byte aligned */
    size_t bytes;
} dv_buf;

/* 0 or a cudaError_t value. */
int dv_buf_alloc(dv_buf *b, size_t bytes);
void dv_buf_free(dv_buf *b);
/* The bytes of each guard zone: DV_GUARD_BYTES, or 0 under --sanitize ($HARNESS_SANITIZER),
 * where memcheck sees an access past a buffer only at its allocation's end. No CUDA call. */
size_t dv_guard_bytes(void);
/* Copy guard | data | guard (bytes + 2 guards) to host. */
int dv_buf_read_whole(const dv_buf *b, void *host);

int dv_upload(void *dst, const void *src, size_t bytes);
int dv_download(void *dst, const void *src, size_t bytes);
int dv_copy(void *dst, const void *src, size_t bytes); /* device to device, async on stream 0 */
int dv_sync(void);            /* cudaDeviceSynchronize + last error */
int dv_last_error(void);      /* cudaGetLastError */
const char *dv_error_name(int err);
const char *dv_error_string(int err);
bool dv_error_is_oom(int err);
/* A CUDA error that leaves the context unusable (illegal address, launch failure...). */
bool dv_error_is_sticky(int err);

/* cuBLAS: one handle per process. */
typedef struct dv_blas dv_blas;
int dv_blas_create(dv_blas **h, char *err, size_t errlen);
void dv_blas_destroy(dv_blas *h);

/* The reference's GEMM on host arrays (uploaded, computed pedantically: no TF32, then read
 * back), and the baseline's on device buffers (default math: what a user would call). */
void dv_ref_env_init(pb_ref_env *env, dv_blas *b);
void dv_dev_env_init(pb_dev_env *env, dv_blas *b);

/* cuBLASLt (device_lt.c): the --baseline lt yardstick, an env whose gemm is cublasLtMatmul with
 * the fastest of the heuristic's top 8 candidates, chosen at the first call of each new shape
 * (each tried a few calls) and kept for the shape's later calls; int4's dequantize and the
 * scratch are the cuBLAS env's (b), int8 is refused. */
typedef struct {
    bool chosen;              /* a shape was tuned and something ran */
    int algo_id, tile_id, stages_id, splitk, swizzle, cluster_id; /* -1: not readable */
    int candidates;           /* how many were tried */
    long long workspace_bytes;
    double trial_ms;          /* the pick's time per call in the trial */
} dv_lt_pick;
typedef struct dv_lt dv_lt;
int dv_lt_create(dv_lt **out, dv_blas *b, char *err, size_t errlen);
void dv_lt_destroy(dv_lt *l);
void dv_lt_env_init(pb_dev_env *env, dv_lt *l);
/* The pick at the last shape tuned (chosen false before any, or when that shape failed). */
dv_lt_pick dv_lt_last_pick(const dv_lt *l);

/* Flush L2 by writing a buffer twice its size (outside any timed region). */
typedef struct { void *buf; size_t bytes; } dv_flusher;
int dv_flusher_init(dv_flusher *f, const dv_info *info);
int dv_flush(dv_flusher *f);
void dv_flusher_free(dv_flusher *f);

/* Event timer on the legacy default stream. */
typedef struct { void *start, *stop; } dv_timer;
int dv_timer_init(dv_timer *t);
int dv_timer_start(dv_timer *t);
int dv_timer_stop(dv_timer *t);
/* Milliseconds between start and stop; waits for stop. */
int dv_timer_ms(dv_timer *t, double *ms);
void dv_timer_free(dv_timer *t);

#endif
