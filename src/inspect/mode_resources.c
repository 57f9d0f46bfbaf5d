/* mode_resources.c — --resources: ptxas's report per kernel (cross-checked by cuobjdump when it
 * exists) and the occupancy those resources allow at 128/256/384 threads. */
#include "modes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tools.h"

static void in_fmt_bytes(long b, char *out, size_t len)
{
    if (b < 0) snprintf(out, len, "-");
    else snprintf(out, len, "%ld B", b);
}

/* What occupancy by resources says of kernel k at threads per block: 2 with the blocks and what
 * binds, 1 over its __launch_bounds__, 0 not reported. */
static int in_occupancy(const in_limits *l, const in_kernel *k, int threads, int *blocks, const char **by)
{
    *by = "";
    *blocks = 0;
    if (k->regs < 0 || k->smem_static < 0) return 0;
    if (k->maxntid && threads > k->maxntid) return 1;
    *blocks = in_blocks_per_sm(l, k->regs, k->smem_static, threads, by);
    return 2;
}

static const int in_occ_threads[] = {128, 256, 384};

/* cuobjdump's row for kernel k when it disagrees with ptxas's (registers or static shared memory),
 * else NULL. */
static const in_kernel *in_cuobj_differs(const in_kernel *k, const in_kernels *ku)
{
    for (size_t j = 0; j < ku->n; j++)
        if (!strcmp(k->name, ku->k[j].name) && (k->regs != ku->k[j].regs || k->smem_static != ku->k[j].smem_static))
            return &ku->k[j];
    return NULL;
}

/* A field in bytes (or a count) as JSON: null when not reported. */
static void in_json_long(FILE *j, const char *key, long v)
{
    if (v < 0) fprintf(j, ",\"%s\":null", key);
    else fprintf(j, ",\"%s\":%ld", key, v);
}

static void in_resources_json(in_ctx *cx, const in_kernels *ks, size_t foreign, const char *log,
                              const char *cuobj_state, const in_limits *l)
{
    FILE *j = cx->jm;
    fputs("\"resources\":{\"log\":", j);
    rp_json_string(j, log);
    fprintf(j, ",\"left_out\":%zu,\"cuobjdump\":\"%s\",\"limits\":", foreign, cuobj_state);
    if (l)
        fprintf(j, "{\"arch\":\"%s\",\"registers\":%d,\"shared_memory\":%ld,\"warps\":%d,\"blocks\":%d}", l->arch,
                l->regs_per_sm, l->smem_per_sm, l->max_warps, l->max_blocks);
    else
        fputs("null", j);
    fputs(",\"kernels\":[", j);
    for (size_t i = 0; i < ks->n; i++) {
        const in_kernel *k = &ks->k[i];
        in_json_named(j, i == 0, k->name, k->display);
        in_json_long(j, "registers", k->regs);
        in_json_long(j, "barriers", k->barriers);
        in_json_long(j, "smem_static", k->smem_static);
        in_json_long(j, "stack", k->stack);
        in_json_long(j, "spill_stores", k->spill_stores);
        in_json_long(j, "spill_loads", k->spill_loads);
        in_json_long(j, "max_threads", k->maxntid ? k->maxntid : -1);
        fputs(",\"occupancy\":", j);
        if (!l) {
            fputs("null}", j);
            continue;
        }
        fputc('[', j);
        for (size_t s = 0; s < 3; s++) {
            int b;
            const char *by;
            int kind = in_occupancy(l, k, in_occ_threads[s], &b, &by);
            fprintf(j, "%s{\"threads\":%d,", s ? "," : "", in_occ_threads[s]);
            if (kind == 2)
                fprintf(j, "\"blocks\":%d,\"warps_share\":%.4f,\"limited_by\":\"%s\"}", b,
                        (double)b * ((in_occ_threads[s] + 31) / 32) / l->max_warps, by);
            else
                fprintf(j, "\"blocks\":null,\"why\":\"%s\"}", kind ? "over __launch_bounds__" : "not reported");
        }
        fputs("]}", j);
    }
    fputs("]},", j);
}

int in_run_resources(in_ctx *cx)
{
    char log[PATH_MAX + 16], cubin[PATH_MAX + 16];
    snprintf(log, sizeof(log), "%s.ptxas.txt", cx->stem);
    snprintf(cubin, sizeof(cubin), "%s.cubin", cx->stem);
    const char *what[] = {"GENCODE", "-Xptxas", "-v", "-cubin", NULL};
    if (!in_nvcc(cx, "--resources", what, cubin, log)) return HX_INTERNAL;
    char *text = ld_read_text(log, NULL);
    in_kernels ks;
    if (!text || !in_parse_ptxas(text, &ks)) {
        free(text);
        return in_fail(cx, HX_INTERNAL, "--resources: cannot read ptxas's report %s", log);
    }
    free(text);
    /* ptxas compiles the PTX's entries and no other: a row naming none of them is not ptxas's */
    size_t foreign = 0;
    if (cx->have_ptx) {
        size_t kept = 0;
        for (size_t i = 0; i < ks.n; i++) {
            bool entry = false;
            for (size_t j = 0; j < cx->ptx.n && !entry; j++) entry = strcmp(cx->ptx.f[j].name, ks.k[i].name) == 0;
            if (entry) ks.k[kept++] = ks.k[i];
            else foreign++;
        }
        ks.n = kept;
    }
    in_dm *d = calloc(ks.n ? ks.n : 1, sizeof(*d));
    for (size_t i = 0; d && i < ks.n; i++) {
        d[i] = (in_dm){ks.k[i].name, ks.k[i].display, sizeof(ks.k[i].display)};
        for (size_t j = 0; j < cx->ptx.n; j++) /* __launch_bounds__ from the PTX */
            if (strcmp(cx->ptx.f[j].name, ks.k[i].name) == 0) ks.k[i].maxntid = cx->ptx.f[j].maxntid;
    }
    if (d) in_demangle(d, ks.n);
    free(d);

    /* cuobjdump reads the cached object itself: a cross-check of what ptxas said */
    char cuobj[PATH_MAX], res_path[PATH_MAX + 16], *res = NULL;
    in_kernels ku = {0};
    const char *cuobj_state = "missing"; /* agrees, differs, failed, missing */
    snprintf(res_path, sizeof(res_path), "%s.res.txt", cx->stem);
    if (in_find_tool("cuobjdump", "CUOBJDUMP", cuobj, sizeof(cuobj))) {
        char *argv[] = {cuobj, "--dump-resource-usage", cx->build.so_path, NULL};
        res = in_spawn(argv, NULL, res_path) == 0 ? ld_read_text(res_path, NULL) : NULL;
        cuobj_state = res && in_parse_resource_usage(res, &ku) ? "agrees" : "failed";
        for (size_t i = 0; !strcmp(cuobj_state, "agrees") && i < ks.n; i++)
            if (in_cuobj_differs(&ks.k[i], &ku)) cuobj_state = "differs";
    }
    in_limits lim;
    bool have_lim = in_limits_for(cx->arch, &lim);

    if (cx->rq->json) {
        for (size_t i = 0; i < ks.n; i++) {
            const in_kernel *u = in_cuobj_differs(&ks.k[i], &ku);
            if (u)
                in_json_note(cx, "--resources: cuobjdump reads %d registers, %ld B static shared memory "
                                 "(+%ld B reserved) for %s", u->regs, u->smem_static, u->smem_reserved,
                             ks.k[i].display);
        }
        if (!strcmp(cuobj_state, "failed")) in_json_note(cx, "--resources: cuobjdump --dump-resource-usage failed (see %s)", res_path);
        if (!strcmp(cuobj_state, "missing"))
            in_missing(cx, "--resources", "cuobjdump", "CUOBJDUMP", "the numbers come from ptxas alone");
        in_resources_json(cx, &ks, foreign, log, cuobj_state, have_lim ? &lim : NULL);
        free(res);
        in_kernels_free(&ku);
        in_kernels_free(&ks);
        return HX_SUCCESS;
    }

    printf("Resources — %s for %s (ptxas -v with the cached build's flags: %s)\n", cx->o->solution,
           cx->arch, log);
    int w = 6;
    for (size_t i = 0; i < ks.n; i++) {
        int l = (int)strlen(ks.k[i].display);
        if (l > w) w = l;
    }
    if (w > 64) w = 64;
    printf("  %-*s %5s %12s %7s %13s %4s %7s\n", w, "kernel", "regs", "smem static", "stack",
           "spill st/ld", "bar", "bounds");
    for (size_t i = 0; i < ks.n; i++) {
        const in_kernel *k = &ks.k[i];
        char regs[16], bar[16], smem[32], stack[32], spill[48], bounds[16];
        if (k->regs < 0) snprintf(regs, sizeof(regs), "-");
        else snprintf(regs, sizeof(regs), "%d", k->regs);
        if (k->barriers < 0) snprintf(bar, sizeof(bar), "-");
        else snprintf(bar, sizeof(bar), "%d", k->barriers);
        in_fmt_bytes(k->smem_static, smem, sizeof(smem));
        in_fmt_bytes(k->stack, stack, sizeof(stack));
        if (k->spill_stores < 0) snprintf(spill, sizeof(spill), "-");
        else snprintf(spill, sizeof(spill), "%ld/%ld B", k->spill_stores, k->spill_loads);
        if (k->maxntid) snprintf(bounds, sizeof(bounds), "%d", k->maxntid);
        else snprintf(bounds, sizeof(bounds), "-");
        printf("  %-*.*s %5s %12s %7s %13s %4s %7s\n", w, w, k->display, regs, smem, stack, spill, bar, bounds);
    }
    if (!ks.n) printf("  (ptxas compiled no kernel)\n");
    if (foreign)
        printf("  note: %zu row%s of the compiler's log named no entry of the PTX: left out\n", foreign,
               foreign == 1 ? "" : "s");
    printf("  bounds: the block size __launch_bounds__ allows (from the PTX's .maxntid); spills and "
           "stack are per thread\n");

    if (!strcmp(cuobj_state, "missing")) {
        in_missing(cx, "--resources", "cuobjdump", "CUOBJDUMP", "the numbers come from ptxas alone");
    } else if (!strcmp(cuobj_state, "failed")) {
        printf("  cuobjdump --dump-resource-usage failed (see %s)\n", res_path);
    } else {
        for (size_t i = 0; i < ks.n; i++) {
            const in_kernel *u = in_cuobj_differs(&ks.k[i], &ku);
            if (u)
                printf("  note: cuobjdump reads %d registers, %ld B static shared memory (+%ld B reserved) for %s\n",
                       u->regs, u->smem_static, u->smem_reserved, ks.k[i].display);
        }
        if (!strcmp(cuobj_state, "agrees"))
            printf("  cuobjdump --dump-resource-usage of the cached object agrees (%zu kernels)\n", ku.n);
    }
    free(res);
    in_kernels_free(&ku);

    if (!have_lim) {
        printf("Occupancy by resources: no limits table for %s\n", cx->arch);
    } else {
        const in_limits *l = &lim;
        printf("Occupancy by resources — per SM on %s: %d registers, %ld KiB shared memory, %d warps, "
               "%d blocks\n",
               l->arch, l->regs_per_sm, l->smem_per_sm / 1024, l->max_warps, l->max_blocks);
        printf("  static shared memory only: the real launch's block size and dynamic shared memory are "
               "not known here (--profile measures them)\n");
        printf("  %-*s", w, "kernel");
        for (size_t s = 0; s < 3; s++) printf("  %24d thr", in_occ_threads[s]);
        putchar('\n');
        for (size_t i = 0; i < ks.n; i++) {
            const in_kernel *k = &ks.k[i];
            printf("  %-*.*s", w, w, k->display);
            for (size_t s = 0; s < 3; s++) {
                char cell[64];
                const char *by;
                int b, kind = in_occupancy(l, k, in_occ_threads[s], &b, &by);
                if (kind == 0) snprintf(cell, sizeof(cell), "n/a (not reported)");
                else if (kind == 1) snprintf(cell, sizeof(cell), "over __launch_bounds__");
                else
                    snprintf(cell, sizeof(cell), "%d blk %3.0f%% (%s)", b,
                             100.0 * b * ((in_occ_threads[s] + 31) / 32) / l->max_warps, by);
                printf("  %28s", cell);
            }
            putchar('\n');
        }
    }
    in_kernels_free(&ks);
    return HX_SUCCESS;
}
