/* mode_sass.c — --sass: the SASS of the cached object (cuobjdump, else nvdisasm of the same compile
 * as a cubin) and its instruction mix; the PTX mix when neither tool exists. */
#include "modes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "tools.h"

int in_run_sass(in_ctx *cx)
{
    char tool[PATH_MAX], sass[PATH_MAX + 16], cubin[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(sass, sizeof(sass), "%s.sass", cx->stem);
    const char *how;
    if (in_find_tool("cuobjdump", "CUOBJDUMP", tool, sizeof(tool))) {
        char *argv[] = {tool, "--dump-sass", cx->build.so_path, NULL};
        how = "cuobjdump --dump-sass of the cached object";
        if ((cx->o->rebuild || access(sass, R_OK) != 0) && in_spawn(argv, NULL, sass) != 0) {
            in_fail(cx, HX_INTERNAL, "--sass: cuobjdump failed; its output is in %s", sass);
            unlink(sass);
            return HX_INTERNAL;
        }
    } else if (in_find_tool("nvdisasm", "NVDISASM", tool, sizeof(tool))) {
        /* nvdisasm reads a cubin: the same compile as the cached object's device code */
        snprintf(cubin, sizeof(cubin), "%s.cubin", cx->stem);
        snprintf(log, sizeof(log), "%s.ptxas.txt", cx->stem);
        const char *what[] = {"GENCODE", "-Xptxas", "-v", "-cubin", NULL};
        if (!in_nvcc(cx, "--sass", what, cubin, log)) return HX_INTERNAL;
        char *argv[] = {tool, "-c", cubin, NULL};
        how = "nvdisasm of the same compile as a cubin";
        if ((cx->o->rebuild || access(sass, R_OK) != 0) && in_spawn(argv, NULL, sass) != 0) {
            in_fail(cx, HX_INTERNAL, "--sass: nvdisasm failed; its output is in %s", sass);
            unlink(sass);
            return HX_INTERNAL;
        }
    } else {
        in_missing(cx, "--sass", "cuobjdump (or nvdisasm)", "CUOBJDUMP",
                   cx->rq->json ? "no SASS (\"sass\": null): the PTX mix is what ptxas was given, not what runs"
                                : "no SASS: the PTX mix below is what ptxas was given, not what runs");
        if (cx->rq->json) {
            fputs("\"sass\":null,", cx->jm);
            if (!(cx->rq->modes & IN_PTX) && cx->have_ptx) in_json_ptx(cx); /* in its place, as the text */
            return HX_SUCCESS;
        }
        if (!(cx->rq->modes & IN_PTX) && cx->have_ptx) {
            printf("PTX — %s for compute_%s (static counts: instructions in the code)\n", cx->o->solution,
                   cx->arch + 3);
            in_print_mix(stdout, &cx->ptx, false);
        }
        return HX_SUCCESS;
    }
    char *text = ld_read_text(sass, NULL);
    in_mix m;
    if (!text || !in_parse_sass(text, &m)) {
        free(text);
        return in_fail(cx, HX_INTERNAL, "--sass: cannot read %s", sass);
    }
    free(text);
    in_dm *d = calloc(m.n ? m.n : 1, sizeof(*d));
    for (size_t i = 0; d && i < m.n; i++) {
        d[i] = (in_dm){m.f[i].name, m.f[i].display, sizeof(m.f[i].display)};
        for (size_t j = 0; j < cx->ptx.n; j++)
            if (strcmp(cx->ptx.f[j].name, m.f[i].name) == 0) m.f[i].maxntid = cx->ptx.f[j].maxntid;
    }
    if (d) in_demangle(d, m.n);
    free(d);
    if (cx->rq->json) {
        fputs("\"sass\":{\"file\":", cx->jm);
        rp_json_string(cx->jm, sass);
        fputs(",\"how\":", cx->jm);
        rp_json_string(cx->jm, how);
        fputc(',', cx->jm);
        in_json_mix(cx->jm, &m, true);
        fputs("},", cx->jm);
    } else {
        printf("SASS — %s for %s (%s: %s; static counts: instructions in the code)\n", cx->o->solution,
               cx->arch, how, sass);
        in_print_mix(stdout, &m, true);
        if (!m.n) printf("  (no function found in the SASS)\n");
    }
    in_mix_free(&m);
    return HX_SUCCESS;
}
