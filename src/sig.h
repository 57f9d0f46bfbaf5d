/* sig.h — read the declared `solve` signature from a solution's source text. */
#ifndef SIG_H
#define SIG_H

#include <stdbool.h>
#include <stddef.h>

#define SIG_MAX_PARAMS 16
#define SIG_TYPE_LEN 48

typedef struct {
    bool found;          /* a `solve(` declaration or definition at file scope */
    bool extern_c;       /* with C linkage (extern "C" before it or around it) */
    int line;            /* where it was found */
    int n_params;
    char types[SIG_MAX_PARAMS][SIG_TYPE_LEN]; /* normalized: "const half*", "int" */
    char text[512];      /* "void solve(const half*, ...)": the normalized declaration */
} sig_info;

/* Parse src (len bytes). Always fills info; info->found says whether solve was there. */
void sig_read(const char *src, size_t len, sig_info *info);

typedef enum {
    SIG_MATCH,           /* the same types */
    SIG_MATCH_CONST,     /* the same but for const on a pointee: same ABI, a warning */
    SIG_MISMATCH
} sig_verdict;

sig_verdict sig_compare(const sig_info *info, const char *const *types, int n);

/* "void solve(const half*, const half*, ...)" from a type list. */
void sig_format(const char *const *types, int n, char *buf, size_t len);

#endif
