/* sigcheck.h — what the compiler says the solution's `solve` is. One nvcc front-end run over a
 * generated file that includes the solution (through the cache's wrapper) and then redeclares
 * `extern "C" void solve(...)` once per problem's signature (and its const variants): a C
 * function may have one type only, so exactly the redeclarations that match the solution's
 * extern "C" solve compile, and nvcc's diagnostics, read back by line, say which. The answer is
 * cached like an object (loader.h), keyed without the target: the host front end never sees it. */
#ifndef SIGCHECK_H
#define SIGCHECK_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "loader.h"
#include "problem.h"

typedef struct {
    bool answered;             /* the compiler read the file through (false: error says why) */
    bool extern_c;             /* an extern "C" solve exists */
    bool declared;             /* some ::solve is declared (C or C++ linkage) */
    const pb_problem *exact;   /* the problem whose signature the extern "C" solve has */
    const pb_problem *consts;  /* ...or has but for const on a pointee (same ABI) */
    char text[512];            /* "void solve(const half*, ...)" as declared; "" when unknown */
    char where[PATH_MAX + 16]; /* "FILE:LINE" of the declaration; "" when unknown */
    bool cached;
    double seconds;            /* nvcc's time; 0 when cached */
    char log_path[PATH_MAX + 64];
    char error[512];
} sc_answer;

/* Ask (or read the cached answer). o gives the cache, the extra flags and rebuild; its arch is
 * not used. LD_OK with a->answered false: nvcc ran but could not read the file through (a
 * compile error, or flags such as -E): the object's build then says why. */
ld_status sc_check(const ld_options *o, const char *src_path, sc_answer *a);

/* The same in two halves, so the check runs beside other work (the device probe, the object's
 * build): start returns LD_OK when nvcc was started or the answer is cached; finish waits. */
typedef struct {
    sc_answer *a;
    ld_options o;
    char scope[256];           /* "" (global), or the namespace asked in again */
    char name[32];             /* the probe's #line name, with a nonce */
    ld_prep p;
    char src_path[PATH_MAX];
    char stem[PATH_MAX + 64], dfile[PATH_MAX + 96], probe[PATH_MAX + 96];
    char dtmp[PATH_MAX + 128], logtmp[PATH_MAX + 160];
    pid_t pid;
    int slot;
    double t0;
} sc_job;
ld_status sc_start(const ld_options *o, const char *src_path, sc_answer *a, sc_job *j);
ld_status sc_finish(sc_job *j);
void sc_cancel(sc_job *j); /* a started check no longer wanted */

/* The probe file's text for the solution's wrapper, its declarations in scope ("": global), its
 * lines named name. */
char *sc_probe_text(const char *wrapper, const char *scope, const char *name);

#endif
