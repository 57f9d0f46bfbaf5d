/* inspect.h — look inside a stage from the harness: the compiler's resources per kernel and the
 * occupancy they allow, the PTX and SASS instruction mix, a run of the tests under
 * compute-sanitizer, one performance case under Nsight Compute, and `harness new`.
 *
 * Each mode is separate from a normal run (it never changes a verdict or a timing of one), and
 * each says in one line when its tool is missing. The parsers are pure functions over the tools'
 * text, tested on recorded samples (tests/samples/).
 *
 * The code is in src/inspect/: one file per parser or printer (resources.c, occupancy.c, mix.c,
 * sass.c, ptx.c, sanitizer.c, ncu_csv.c, ncu_print.c, over text.c), then the modes that run tools
 * (dispatch.c's in_main, compile.c, inner.c, mode_*.c, over tools.c; json.c: --json for the
 * static modes) and new.c. Their private
 * headers (text.h, mix.h, tools.h, modes.h) are for that folder alone.
 */
#ifndef INSPECT_H
#define INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "judge.h"

/* Set for the harness that --sanitize runs under compute-sanitizer (value: the tool) and for the
 * one --profile runs under ncu. Either stops a second level of inspection; HARNESS_SANITIZER also
 * asks the worker for buffers without guard zones, so that memcheck sees an access past a
 * buffer's end (a guard zone is inside the allocation and would hide it). */
#define IN_ENV_SANITIZER "HARNESS_SANITIZER"
#define IN_ENV_PROFILER "HARNESS_PROFILER"

/* The modes, combinable except --sanitize and --profile, which run alone. */
enum { IN_RESOURCES = 1, IN_PTX = 2, IN_SASS = 4, IN_SANITIZE = 8, IN_PROFILE = 16 };

typedef struct {
    unsigned modes;
    const char *san_tool; /* memcheck (default), racecheck, synccheck, initcheck */
    bool json;            /* --json: one object on stdout (--resources, --ptx, --sass only) */
} in_request;

/* Whether t names a compute-sanitizer tool. */
bool in_sanitize_tool_valid(const char *t);

/* Run the requested modes on o->solution (o as the command line filled it); the exit code. */
int in_main(const jd_options *o, const in_request *rq);

/* `harness new NAME [--problem P] [--dir DIR]` (argv[0] is "new"). */
int in_new_main(int argc, char **argv);

/* Write p's starter with the stage header as the next-numbered NN_name.cu in dir. Returns an exit
 * code (HX_*); path gets the file written, err the reason when it is not HX_SUCCESS. */
int in_new_stage(const char *dir, const char *name, const pb_problem *p, char *path, size_t len,
                 char *err, size_t errlen);

/* ---- compiler resources ---- */

typedef struct {
    char name[512];    /* mangled */
    char display[256]; /* demangled and shortened when c++filt exists, else the mangled name */
    char arch[16];     /* "sm_90a"; "" when not said */
    int regs;          /* -1: not reported */
    int barriers;      /* -1: not reported */
    long smem_static;  /* bytes, without the per-block reserve */
    long smem_reserved; /* bytes cuobjdump's SHARED adds (1 KiB on sm_80 and later), 0 for ptxas */
    long stack, spill_stores, spill_loads; /* bytes; -1: not reported (cuobjdump has no spills) */
    long local;        /* cuobjdump LOCAL; -1 from ptxas */
    int maxntid;       /* __launch_bounds__ threads from the PTX (.maxntid); 0: none */
} in_kernel;

typedef struct {
    in_kernel *k;
    size_t n, cap;
} in_kernels;

/* `nvcc -Xptxas -v` output: one kernel per "Compiling entry function" line. */
bool in_parse_ptxas(const char *text, in_kernels *out);
/* `cuobjdump --dump-resource-usage` output: one kernel per "Function NAME:" line. */
bool in_parse_resource_usage(const char *text, in_kernels *out);
void in_kernels_free(in_kernels *ks);

/* Per-SM limits for occupancy by resources (the CUDA occupancy calculator's table). */
typedef struct {
    const char *arch;  /* "sm_90" */
    int regs_per_sm, max_warps, max_blocks;
    long smem_per_sm, smem_per_block, smem_reserved;
} in_limits;

/* The limits for an architecture ("sm_90a" → sm_90's); false when the table has none. */
bool in_limits_for(const char *arch, in_limits *l);

/* Blocks of `threads` threads that fit on one SM with regs registers per thread and smem bytes of
 * shared memory per block; *limiter names what binds ("registers", "shared memory", "warps",
 * "blocks"). 0 when one block does not fit, and 0 with "unknown resources" when a figure is not
 * reported or out of range (regs outside 0..255, smem < 0, threads outside 1..1024). */
int in_blocks_per_sm(const in_limits *l, int regs, long smem, int threads, const char **limiter);

/* ---- instruction mix ---- */

/* SASS: what matters for GEMM. LDS/STS/LDG/STG are split by width (32 = 32 bits or narrower). */
enum {
    IN_S_FFMA, IN_S_HMMA, IN_S_HGMMA,
    IN_S_LDS32, IN_S_LDS64, IN_S_LDS128, IN_S_LDSM, IN_S_STS32, IN_S_STS64, IN_S_STS128,
    IN_S_LDG32, IN_S_LDG64, IN_S_LDG128, IN_S_LDGSTS, IN_S_UTMALDG,
    IN_S_STG32, IN_S_STG64, IN_S_STG128, IN_S_LDL, IN_S_STL, IN_S_BAR,
    IN_S_N
};

/* PTX: the same questions asked of the virtual ISA. */
enum {
    IN_P_FMA, IN_P_MMA, IN_P_WMMA, IN_P_WGMMA,
    IN_P_LDS, IN_P_LDS_V2, IN_P_LDS_V4, IN_P_LDMATRIX, IN_P_STS, IN_P_STS_V2, IN_P_STS_V4,
    IN_P_LDG, IN_P_LDG_V2, IN_P_LDG_V4, IN_P_CP_ASYNC, IN_P_TMA,
    IN_P_STG, IN_P_STG_V2, IN_P_STG_V4, IN_P_LDL, IN_P_STL, IN_P_BAR, IN_P_MBARRIER,
    IN_P_N
};

#define IN_MIX_MAX 24

typedef struct {
    char name[512];    /* mangled */
    char display[256];
    long count[IN_MIX_MAX];
    long total;        /* instructions in the function */
    int maxntid;       /* PTX .maxntid product; 0: none */
} in_mix_fn;

typedef struct {
    in_mix_fn *f;
    size_t n, cap;
} in_mix;

/* `cuobjdump --dump-sass` ("Function : NAME") or `nvdisasm` (".text.NAME:") output. */
bool in_parse_sass(const char *text, in_mix *out);
/* A .ptx file: counts per .entry (and .func). */
bool in_parse_ptx(const char *text, in_mix *out);
void in_mix_free(in_mix *m);
const char *in_sass_op_name(int op);
const char *in_ptx_op_name(int op);

/* Print the mix, a few lines per function (static counts: instructions in the code). */
void in_print_mix(FILE *out, const in_mix *m, bool sass);

/* ---- compute-sanitizer ---- */

typedef struct {
    bool banner;        /* the tool's "COMPUTE-SANITIZER" line was seen: it ran */
    int errors;         /* summed over its summaries; -1 when none was printed */
    int warnings;       /* racecheck warnings (they do not fail a run) */
    int findings;       /* report blocks */
    char first[4096];   /* the first error report (the first block when none is an error) */
} in_san_report;

void in_parse_sanitizer(const char *text, in_san_report *r);

/* ---- Nsight Compute ---- */

typedef struct {
    char name[128];
    char unit[32];
    double value;      /* NAN when not a number */
} in_metric;

typedef struct {
    char id[32];        /* "process:launch" */
    char name[512];     /* as ncu printed it */
    char display[256];
    char block[40], grid[40];
    in_metric *m;
    size_t n, cap;
} in_prof_kernel;

typedef struct {
    in_prof_kernel *k;
    size_t n, cap;
    int headers;        /* CSV header lines seen (set on failure too) */
} in_profile;

/* `ncu --csv` output (the raw page: one row per kernel and metric), ncu's own lines ignored.
 * False with no header, or with a second one (headers 2): ncu writes one into its own log file, so
 * a second means text that is not ncu's, and no row can be trusted. */
bool in_parse_ncu_csv(const char *text, in_profile *p);
const in_metric *in_prof_metric(const in_prof_kernel *k, const char *name);
void in_profile_free(in_profile *p);
/* A short summary per kernel: duration, occupancy, throughputs, tensor pipes, top stalls. */
void in_print_profile(FILE *out, const in_profile *p);

#endif
