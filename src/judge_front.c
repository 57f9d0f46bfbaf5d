/* judge_front.c — the judge's front: the compiler's answer on solve (or the tokenizer's guess),
 * the signature's verdict on the problem, and what depends on the problem (--size, --sweep's
 * shapes, the --vs file's signature). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "judge_int.h"

typedef struct {
    char text[PB_MAX_PARAMS][32];
    const char *ptr[PB_MAX_PARAMS];
} jd_types;

static void jd_types_of(const pb_problem *p, jd_types *t)
{
    for (int i = 0; i < p->n_params && i < PB_MAX_PARAMS; i++) {
        pb_param_type(&p->params[i], t->text[i], sizeof(t->text[i]));
        t->ptr[i] = t->text[i];
    }
}

sig_verdict jd_compare_signature(const sig_info *sig, const pb_problem *p)
{
    jd_types t;
    jd_types_of(p, &t);
    return sig_compare(sig, t.ptr, p->n_params);
}

void jd_format_signature(const pb_problem *p, char *buf, size_t len)
{
    jd_types t;
    jd_types_of(p, &t);
    sig_format(t.ptr, p->n_params, buf, len);
}

const pb_problem *jd_infer_problem(const sig_info *sig)
{
    for (size_t i = 0; i < pb_count(); i++) {
        const pb_problem *p = pb_at(i);
        if (jd_compare_signature(sig, p) != SIG_MISMATCH) return p;
    }
    return NULL;
}

/* The answer's verdict on problem p: the compiler's, or without nvcc the tokenizer's guess. */
static sig_verdict jd_verdict(const sc_answer *a, const pb_problem *p)
{
    if (a->exact == p) return SIG_MATCH;
    if (a->consts == p) return SIG_MATCH_CONST;
    return SIG_MISMATCH;
}

/* The problems a declared text matches (a C++-linkage solve, whose type no probe asks about). */
static void jd_classify_text(sc_answer *a)
{
    sig_info s;
    sig_read(a->text, strlen(a->text), &s);
    for (size_t i = 0; s.found && i < pb_count(); i++) {
        sig_verdict v = jd_compare_signature(&s, pb_at(i));
        if (v == SIG_MATCH && !a->exact) a->exact = pb_at(i);
        if (v == SIG_MATCH_CONST && !a->consts) a->consts = pb_at(i);
    }
}

/* The compiler's answer (sigcheck.h) given its status ls. Without nvcc, the tokenizer's first
 * guess (src/sig.c): the build then fails anyway (exit 12), and --gpu all's first check still
 * names the problem. HX_SUCCESS or an exit code with r->detail. */
int jd_take_answer(ld_status ls, const char *path, sc_answer *a, jd_result *r)
{
    if (ls == LD_NO_NVCC) {
        size_t n;
        char *text = ld_read_text(path, &n);
        sig_info s;
        memset(&s, 0, sizeof(s));
        if (text) sig_read(text, n, &s);
        free(text);
        memset(a, 0, sizeof(*a));
        a->answered = true;
        a->declared = s.found;
        a->extern_c = s.found && s.extern_c;
        if (s.found) {
            snprintf(a->text, sizeof(a->text), "%s", s.text);
            snprintf(a->where, sizeof(a->where), "%.*s:%d", PATH_MAX, path, s.line);
            jd_classify_text(a);
        }
        return HX_SUCCESS;
    }
    if (ls == LD_COMPILE_ERROR) { /* the file kept nvcc's front end from finishing */
        r->status = RS_COMPILE_ERROR;
        snprintf(r->detail, sizeof(r->detail), "%s: %s", path, a->error);
        return HX_COMPILE;
    }
    if (ls != LD_OK) {
        snprintf(r->detail, sizeof(r->detail), "%s", a->error);
        return HX_INTERNAL;
    }
    if (a->answered && a->declared && !a->extern_c && a->text[0]) jd_classify_text(a);
    return HX_SUCCESS;
}

ld_options jd_check_options(const jd_options *o)
{
    return (ld_options){.extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                        .rebuild = o->rebuild, .quiet = o->quiet};
}

/* The problem from the answer, the signature's verdict on it, then what depends on the problem
 * (--size, --sweep's shapes, --vs's file). *op becomes the sweep's options (in *sweep_o). */
int jd_front(const jd_options **op, jd_options *sweep_o, jd_result *r)
{
    const jd_options *o = *op;
    const sc_answer *a = &r->check;
    if (!r->problem) r->problem = a->exact ? a->exact : a->consts;
    if (!r->problem) r->problem = pb_find("gemm_fp16");
    const pb_problem *p = r->problem;
    /* only an extern "C" solve is judged by its type: a C++ one is exit 6 whatever its type
     * (its declared text, which keeps typedefs, only names the problem when it reads as one) */
    if (a->answered && a->extern_c) {
        sig_verdict v = jd_verdict(a, p);
        if (v == SIG_MISMATCH) {
            char want[512];
            jd_format_signature(p, want, sizeof(want));
            snprintf(r->detail, sizeof(r->detail), "signature mismatch: %s declares %s, but %s needs %s",
                     a->where[0] ? a->where : o->solution,
                     a->text[0] ? a->text : "an extern \"C\" solve of another type", p->name, want);
            return HX_SIGNATURE;
        }
        if (v == SIG_MATCH_CONST && !o->quiet)
            fprintf(stderr, "warning: %s: solve's const qualifiers differ from the site's "
                            "(%s); same ABI, accepted\n",
                    a->where[0] ? a->where : o->solution, p->signature);
    }
    if (a->answered && a->declared && !a->extern_c && !o->quiet)
        fprintf(stderr, "warning: %s: solve is not declared extern \"C\": its symbol will "
                        "be mangled and not found\n",
                a->where[0] ? a->where : o->solution);
    if (a->answered && !a->declared && !o->quiet)
        fprintf(stderr, "warning: no solve(...) declaration found in %s; assuming %s\n",
                o->solution, p->name);
    if (o->custom) {
        pb_size sz;
        int rc = jd_size_arg(o, p, &sz, r);
        if (rc != HX_SUCCESS) return rc;
        pb_case c = pb_perf_case(p, sz, 0, "custom");
        char what[64];
        snprintf(what, sizeof(what), "size %s", o->size);
        if (!jd_values_fit(p, c.v, o->any_size, what, r) || !jd_buffers_fit(o, p, c.v, what, r))
            return HX_BAD_SIZE;
    }
    for (size_t i = 0; i < o->n_override_perf; i++) { /* the leaderboard's sizes */
        char shape[48];
        pb_format_size(p, o->override_perf[i].v, shape, sizeof(shape));
        if (!jd_buffers_fit(o, p, o->override_perf[i].v, shape, r)) return HX_BAD_SIZE;
    }
    if (o->topts.baseline && o->topts.yardstick != RN_YS_CUBLAS && p->compute == PB_I8) {
        snprintf(r->detail, sizeof(r->detail),
                 "--baseline %s: no cuBLASLt yardstick for %s (its yardstick is cuBLAS's int8 "
                 "GEMM and a requantize pass: --baseline)",
                 o->topts.yardstick == RN_YS_BOTH ? "both" : "lt", p->name);
        return HX_USAGE;
    }
    if (o->sweep) {
        int rc = jd_sweep_options(o, p, sweep_o, r);
        if (rc != HX_SUCCESS) return rc;
        *op = o = sweep_o;
    }
    if (o->vs) {
        char *vsrc = NULL, why[600];
        size_t vlen = 0;
        if (!jd_cu_name(o->vs)) {
            snprintf(r->detail, sizeof(r->detail), "--vs %s: not a .cu file", o->vs);
            return HX_BAD_FILE;
        }
        if (!jd_read_file(o->vs, &vsrc, &vlen, why, sizeof(why))) {
            snprintf(r->detail, sizeof(r->detail), "--vs: %s", why);
            return HX_BAD_FILE;
        }
        free(vsrc);
        sc_answer va;
        ld_options co = jd_check_options(o);
        int rc = jd_take_answer(sc_check(&co, o->vs, &va), o->vs, &va, r);
        if (rc != HX_SUCCESS) return rc;
        if (va.answered && va.extern_c && jd_verdict(&va, p) == SIG_MISMATCH) {
            char want[512];
            jd_format_signature(p, want, sizeof(want));
            snprintf(r->detail, sizeof(r->detail),
                     "--vs: the two files solve different problems: %s declares %s, but %s "
                     "(the problem of %s) needs %s",
                     va.where[0] ? va.where : o->vs,
                     va.text[0] ? va.text : "an extern \"C\" solve of another type", p->name,
                     o->solution, want);
            return HX_SIGNATURE;
        }
    }
    return HX_SUCCESS;
}

