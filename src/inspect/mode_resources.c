/* mode_resources.c — --resources: ptxas's report per kernel (cross-checked by cuobjdump when it
 * exists) and the occupancy those resources allow at 128/256/384 threads. */
#include "modes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static void in_fmt_bytes(long b, char *out, size_t len)
{
    if (b < 0) snprintf(out, len, "-");
    else snprintf(out, len, "%ld B", b);
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
        fprintf(stderr, "harness: --resources: cannot read ptxas's report %s\n", log);
        return HX_INTERNAL;
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

    /* cuobjdump reads the cached object itself: a cross-check of what ptxas said */
    char cuobj[PATH_MAX];
    if (in_find_tool("cuobjdump", "CUOBJDUMP", cuobj, sizeof(cuobj))) {
        char out[PATH_MAX + 16];
        snprintf(out, sizeof(out), "%s.res.txt", cx->stem);
        char *argv[] = {cuobj, "--dump-resource-usage", cx->build.so_path, NULL};
        in_kernels ku = {0};
        char *res = in_spawn(argv, NULL, out) == 0 ? ld_read_text(out, NULL) : NULL;
        if (res && in_parse_resource_usage(res, &ku)) {
            int differ = 0;
            for (size_t i = 0; i < ks.n; i++)
                for (size_t j = 0; j < ku.n; j++) {
                    if (strcmp(ks.k[i].name, ku.k[j].name) != 0) continue;
                    if (ks.k[i].regs != ku.k[j].regs || ks.k[i].smem_static != ku.k[j].smem_static) {
                        printf("  note: cuobjdump reads %d registers, %ld B static shared memory "
                               "(+%ld B reserved) for %s\n",
                               ku.k[j].regs, ku.k[j].smem_static, ku.k[j].smem_reserved, ks.k[i].display);
                        differ++;
                    }
                }
            if (!differ)
                printf("  cuobjdump --dump-resource-usage of the cached object agrees (%zu kernels)\n", ku.n);
        } else {
            printf("  cuobjdump --dump-resource-usage failed (see %s)\n", out);
        }
        free(res);
        in_kernels_free(&ku);
    } else {
        in_tool_missing(stdout, "--resources", "cuobjdump", "CUOBJDUMP",
                        "the numbers come from ptxas alone");
    }

    in_limits l;
    if (!in_limits_for(cx->arch, &l)) {
        printf("Occupancy by resources: no limits table for %s\n", cx->arch);
    } else {
        printf("Occupancy by resources — per SM on %s: %d registers, %ld KiB shared memory, %d warps, "
               "%d blocks\n",
               l.arch, l.regs_per_sm, l.smem_per_sm / 1024, l.max_warps, l.max_blocks);
        printf("  static shared memory only: the real launch's block size and dynamic shared memory are "
               "not known here (--profile measures them)\n");
        static const int sizes[] = {128, 256, 384};
        printf("  %-*s", w, "kernel");
        for (size_t s = 0; s < 3; s++) printf("  %24d thr", sizes[s]);
        putchar('\n');
        for (size_t i = 0; i < ks.n; i++) {
            const in_kernel *k = &ks.k[i];
            printf("  %-*.*s", w, w, k->display);
            for (size_t s = 0; s < 3; s++) {
                char cell[64];
                const char *by = "";
                if (k->regs < 0 || k->smem_static < 0) {
                    snprintf(cell, sizeof(cell), "n/a (not reported)");
                } else if (k->maxntid && sizes[s] > k->maxntid) {
                    snprintf(cell, sizeof(cell), "over __launch_bounds__");
                } else {
                    int b = in_blocks_per_sm(&l, k->regs, k->smem_static, sizes[s], &by);
                    snprintf(cell, sizeof(cell), "%d blk %3.0f%% (%s)", b,
                             100.0 * b * ((sizes[s] + 31) / 32) / l.max_warps, by);
                }
                printf("  %28s", cell);
            }
            putchar('\n');
        }
    }
    in_kernels_free(&ks);
    return HX_SUCCESS;
}
