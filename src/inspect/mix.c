/* mix.c — the instruction mix's vocabulary and storage (op names, one entry per function) and its
 * printer; sass.c and ptx.c fill it. */
#include "mix.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

static const char *const in_sass_names[IN_S_N] = {
    "FFMA", "HMMA", "HGMMA", "LDS.32", "LDS.64", "LDS.128", "LDSM", "STS.32", "STS.64",
    "STS.128", "LDG.E", "LDG.E.64", "LDG.E.128", "LDGSTS", "UTMALDG", "STG.E", "STG.E.64",
    "STG.E.128", "LDL", "STL", "BAR"};

static const char *const in_ptx_names[IN_P_N] = {
    "fma.f32", "mma.sync", "wmma.mma", "wgmma.mma_async", "ld.shared", "ld.shared.v2",
    "ld.shared.v4", "ldmatrix", "st.shared", "st.shared.v2", "st.shared.v4", "ld.global",
    "ld.global.v2", "ld.global.v4", "cp.async", "cp.async.bulk.tensor", "st.global",
    "st.global.v2", "st.global.v4", "ld.local", "st.local", "bar", "mbarrier"};

const char *in_sass_op_name(int op) { return op >= 0 && op < IN_S_N ? in_sass_names[op] : "?"; }
const char *in_ptx_op_name(int op) { return op >= 0 && op < IN_P_N ? in_ptx_names[op] : "?"; }

in_mix_fn *in_mix_add(in_mix *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++) /* nvdisasm names a function twice (section and label) */
        if (strcmp(m->f[i].name, name) == 0) return &m->f[i];
    in_mix_fn *f = in_grow(m->f, &m->cap, m->n + 1, sizeof(*f));
    if (!f) return NULL;
    m->f = f;
    f = &m->f[m->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    snprintf(f->display, sizeof(f->display), "%s", name);
    return f;
}

void in_mix_free(in_mix *m)
{
    free(m->f);
    memset(m, 0, sizeof(*m));
}


/* Groups of the printed mix: a label, then op indices (-1 ends). */
typedef struct {
    const char *label;
    int ops[12];
} in_group;

void in_print_mix(FILE *out, const in_mix *m, bool sass)
{
    static const in_group sg[] = {
        {"math", {IN_S_FFMA, IN_S_HMMA, IN_S_HGMMA, -1}},
        {"shared", {IN_S_LDS32, IN_S_LDS64, IN_S_LDS128, IN_S_LDSM, IN_S_STS32, IN_S_STS64, IN_S_STS128, -1}},
        {"global", {IN_S_LDG32, IN_S_LDG64, IN_S_LDG128, IN_S_LDGSTS, IN_S_UTMALDG, IN_S_STG32, IN_S_STG64, IN_S_STG128, -1}},
        {"local", {IN_S_LDL, IN_S_STL, -1}},
        {"sync", {IN_S_BAR, -1}}};
    static const in_group pg[] = {
        {"math", {IN_P_FMA, IN_P_MMA, IN_P_WMMA, IN_P_WGMMA, -1}},
        {"shared", {IN_P_LDS, IN_P_LDS_V2, IN_P_LDS_V4, IN_P_LDMATRIX, IN_P_STS, IN_P_STS_V2, IN_P_STS_V4, -1}},
        {"global", {IN_P_LDG, IN_P_LDG_V2, IN_P_LDG_V4, IN_P_CP_ASYNC, IN_P_TMA, IN_P_STG, IN_P_STG_V2, IN_P_STG_V4, -1}},
        {"local", {IN_P_LDL, IN_P_STL, -1}},
        {"sync", {IN_P_BAR, IN_P_MBARRIER, -1}}};
    const in_group *g = sass ? sg : pg;
    for (size_t i = 0; i < m->n; i++) {
        const in_mix_fn *f = &m->f[i];
        fprintf(out, "  %s  (%ld instructions", f->display, f->total);
        if (f->maxntid) fprintf(out, ", at most %d threads per block", f->maxntid);
        fprintf(out, ")\n");
        for (size_t gi = 0; gi < 5; gi++) {
            fprintf(out, "    %-7s", g[gi].label);
            for (size_t j = 0; g[gi].ops[j] >= 0; j++) {
                int op = g[gi].ops[j];
                fprintf(out, "  %s %ld", sass ? in_sass_op_name(op) : in_ptx_op_name(op), f->count[op]);
            }
            fputc('\n', out);
        }
    }
}
