/* compile.c — the inspection's own compiles of the cached build (same source, flags, architecture
 * and nvcc): nvcc into a cached output beside the object, and the PTX the modes read names and
 * launch bounds from. */
#include "modes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools.h"

/* The extra nvcc flags, split on spaces like the loader does, appended to argv. */
static int in_add_flags(const char **argv, int argc, int max, char *copy)
{
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t", &save); tok && argc < max; tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    return argc;
}

/* Run nvcc with the cached build's flags plus `what` (-ptx / -cubin -Xptxas -v) into dest
 * (atomically), its output in log. Cached: nothing runs when dest exists. */
bool in_nvcc(in_ctx *cx, const char *mode, const char *const *what, const char *dest, const char *log)
{
    if (!cx->o->rebuild && access(dest, R_OK) == 0 && access(log, R_OK) == 0) return true;
    char tmp[PATH_MAX + 32], tmplog[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dest, (int)getpid());
    snprintf(tmplog, sizeof(tmplog), "%s.tmp.%d", log, (int)getpid());
    char gencode[96];
    ld_gencode(cx->arch, gencode, sizeof(gencode));
    char *flags = strdup(cx->o->nvcc_flags ? cx->o->nvcc_flags : "");
    if (!flags) {
        in_fail(cx, HX_INTERNAL, "out of memory");
        return false;
    }
    const char *argv[96];
    int argc = 0;
    argv[argc++] = cx->nvcc;
    argv[argc++] = "-O3";
    argv[argc++] = "-lineinfo";
    argc = in_add_flags(argv, argc, 80, flags);
    for (int i = 0; what[i]; i++) argv[argc++] = strcmp(what[i], "GENCODE") == 0 ? gencode : what[i];
    if (cx->build.prep.src.include_flag[0]) argv[argc++] = cx->build.prep.src.include_flag;
    argv[argc++] = "-o";
    argv[argc++] = tmp;
    argv[argc++] = cx->build.prep.src.wrapper; /* the cache's name for it: nvcc's shell sees names */
    argv[argc] = NULL;
    int rc = in_spawn((char *const *)argv, NULL, tmplog);
    free(flags);
    if (rc != 0) {
        in_fail(cx, HX_INTERNAL, "%s: nvcc failed (exit status %d); its output is in %s", mode, rc, tmplog);
        unlink(tmp);
        return false;
    }
    if (rename(tmp, dest) != 0 || rename(tmplog, log) != 0) {
        in_fail(cx, HX_INTERNAL, "%s: cannot write %s: %s", mode, dest, strerror(errno));
        return false;
    }
    return true;
}

/* The PTX of the cached build (STEM.ptx): --ptx prints its mix; the others take the kernels'
 * names and launch bounds from it. */
bool in_load_ptx(in_ctx *cx)
{
    char ptx[PATH_MAX + 16], log[PATH_MAX + 16], virt[32];
    snprintf(ptx, sizeof(ptx), "%s.ptx", cx->stem);
    snprintf(log, sizeof(log), "%s.ptx.log", cx->stem);
    snprintf(virt, sizeof(virt), "-arch=compute_%s", cx->arch + 3);
    const char *what[] = {virt, "-ptx", NULL};
    if (!in_nvcc(cx, "--ptx", what, ptx, log)) return false;
    char *text = ld_read_text(ptx, NULL);
    if (!text) return false;
    cx->have_ptx = in_parse_ptx(text, &cx->ptx);
    free(text);
    if (!cx->have_ptx) return false;
    in_dm *d = calloc(cx->ptx.n ? cx->ptx.n : 1, sizeof(*d));
    if (!d) return true;
    for (size_t i = 0; i < cx->ptx.n; i++)
        d[i] = (in_dm){cx->ptx.f[i].name, cx->ptx.f[i].display, sizeof(cx->ptx.f[i].display)};
    in_demangle(d, cx->ptx.n);
    free(d);
    return true;
}
