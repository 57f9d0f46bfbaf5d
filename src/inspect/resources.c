/* resources.c — the compiler's resources per kernel from its two reports: `nvcc -Xptxas -v` and
 * `cuobjdump --dump-resource-usage`, both into in_kernels. */
#include "inspect.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

static in_kernel *in_kernels_add(in_kernels *ks, const char *name, const char *arch)
{
    in_kernel *k = in_grow(ks->k, &ks->cap, ks->n + 1, sizeof(*k));
    if (!k) return NULL;
    ks->k = k;
    k = &ks->k[ks->n++];
    memset(k, 0, sizeof(*k));
    snprintf(k->name, sizeof(k->name), "%s", name);
    snprintf(k->display, sizeof(k->display), "%s", name);
    snprintf(k->arch, sizeof(k->arch), "%s", arch);
    k->regs = k->barriers = -1;
    k->stack = k->spill_stores = k->spill_loads = k->local = -1;
    return k;
}

void in_kernels_free(in_kernels *ks)
{
    free(ks->k);
    memset(ks, 0, sizeof(*ks));
}

typedef struct {
    char name[512];
    long stack, stores, loads;
} in_props;

/* A figure of a report inside [0, max], else -1 (not reported): a value out of range was not
 * written by the tool, and arithmetic on it would overflow. */
static long in_bounded(long v, long max)
{
    return v >= 0 && v <= max ? v : -1;
}

enum { IN_MAX_REGS = 255, IN_MAX_BARRIERS = 16 };
#define IN_MAX_BYTES (1L << 30)

/* Whether a line is ptxas's own: "ptxas info    : ...", "ptxas warning : ...", or (after
 * "Function properties for") its indented "N bytes stack frame, ..." line. */
static bool in_ptxas_line(const char *line, bool after_props)
{
    if (in_starts(line, "ptxas ")) return true;
    const char *t = in_skip_ws(line);
    return after_props && t != line && *t >= '0' && *t <= '9' && strstr(t, " bytes stack frame");
}

bool in_parse_ptxas(const char *text, in_kernels *out)
{
    memset(out, 0, sizeof(*out));
    /* "Function properties for X" also names device functions, so keep them all and match the
     * entries by name at the end */
    in_props *pr = NULL;
    size_t npr = 0, cappr = 0;
    char pending[512] = "", line[4096];
    long cur = -1;
    bool after_props = false;
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        const char *s;
        if (!*in_skip_ws(line)) continue;
        /* The compiler's log holds the front end's messages too, and a solution writes those
         * (#pragma message, #warning: a line of them may start "ptxas info"). ptxas runs last and
         * its report is one unbroken run of its own lines, while every message ends with the
         * quoted source line: so only the last run of ptxas's lines counts. */
        bool own = in_ptxas_line(line, after_props);
        after_props = false;
        if (!own) {
            out->n = 0;
            npr = 0;
            pending[0] = '\0';
            cur = -1;
            continue;
        }
        if ((s = strstr(line, "Compiling entry function '"))) {
            s += strlen("Compiling entry function '");
            const char *e = strchr(s, '\'');
            if (!e) continue;
            char name[512], arch[16] = "";
            snprintf(name, sizeof(name), "%.*s", (int)(e - s), s);
            const char *a = strstr(e + 1, "for '");
            if (a) {
                a += strlen("for '");
                const char *ae = strchr(a, '\'');
                if (ae) snprintf(arch, sizeof(arch), "%.*s", (int)(ae - a), a);
            }
            if (!in_kernels_add(out, name, arch)) goto oom;
            cur = (long)out->n - 1;
        } else if ((s = strstr(line, "Function properties for "))) {
            snprintf(pending, sizeof(pending), "%s", s + strlen("Function properties for "));
            in_rtrim(pending);
            size_t n = strlen(pending);
            if (n && pending[n - 1] == ':') pending[n - 1] = '\0';
            after_props = true;
        } else if (strstr(line, " bytes stack frame")) {
            if (!pending[0]) continue;
            in_props *np = in_grow(pr, &cappr, npr + 1, sizeof(*pr));
            if (!np) goto oom;
            pr = np;
            snprintf(pr[npr].name, sizeof(pr[npr].name), "%s", pending);
            pr[npr].stack = in_bounded(in_num_before(line, " bytes stack frame"), IN_MAX_BYTES);
            pr[npr].stores = in_bounded(in_num_before(line, " bytes spill stores"), IN_MAX_BYTES);
            pr[npr].loads = in_bounded(in_num_before(line, " bytes spill loads"), IN_MAX_BYTES);
            npr++;
            pending[0] = '\0';
        } else if (cur >= 0 && (s = strstr(line, "Used ")) && strstr(s, " registers")) {
            in_kernel *k = &out->k[cur];
            k->regs = (int)in_bounded(in_num_after(s, "Used "), IN_MAX_REGS);
            long b = in_num_after(line, "used ");
            k->barriers = b >= 0 ? (int)in_bounded(b, IN_MAX_BARRIERS) : 0; /* ptxas leaves out "used 0 barriers" */
            long sm = in_num_before(line, " bytes smem");
            k->smem_static = sm >= 0 ? in_bounded(sm, IN_MAX_BYTES) : 0;
            cur = -1;
        }
    }
    for (size_t i = 0; i < npr; i++)
        for (size_t j = 0; j < out->n; j++)
            if (strcmp(out->k[j].name, pr[i].name) == 0) {
                out->k[j].stack = pr[i].stack;
                out->k[j].spill_stores = pr[i].stores;
                out->k[j].spill_loads = pr[i].loads;
            }
    free(pr);
    return true;
oom:
    free(pr);
    in_kernels_free(out);
    return false;
}

bool in_parse_resource_usage(const char *text, in_kernels *out)
{
    memset(out, 0, sizeof(*out));
    char arch[16] = "", line[4096];
    long cur = -1;
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        const char *t = in_skip_ws(line);
        if (in_starts(t, "arch = ")) {
            snprintf(arch, sizeof(arch), "%s", t + strlen("arch = "));
            in_rtrim(arch);
        } else if (in_starts(t, "Function ") && t[strlen("Function ")] != ':') {
            /* "Function NAME:" here; the SASS dump writes "Function : NAME" */
            char name[512];
            snprintf(name, sizeof(name), "%s", t + strlen("Function "));
            in_rtrim(name);
            size_t n = strlen(name);
            if (n && name[n - 1] == ':') name[n - 1] = '\0';
            if (!in_kernels_add(out, name, arch)) {
                in_kernels_free(out);
                return false;
            }
            cur = (long)out->n - 1;
        } else if (cur >= 0 && in_starts(t, "REG:")) {
            in_kernel *k = &out->k[cur];
            long shared = 0;
            k->regs = (int)in_bounded(in_num_after(t, "REG:"), IN_MAX_REGS);
            k->stack = in_bounded(in_num_after(t, "STACK:"), IN_MAX_BYTES);
            shared = in_bounded(in_num_after(t, "SHARED:"), IN_MAX_BYTES);
            k->local = in_bounded(in_num_after(t, "LOCAL:"), IN_MAX_BYTES);
            if (shared < 0) shared = 0;
            /* SHARED counts the 1 KiB the system reserves per block on sm_80 and later (it reads
             * 1024 more than ptxas's "bytes smem") */
            k->smem_reserved = in_arch_num(k->arch) >= 80 && shared >= 1024 ? 1024 : 0;
            k->smem_static = shared - k->smem_reserved;
            cur = -1;
        }
    }
    return true;
}
