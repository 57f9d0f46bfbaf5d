/* inspect.c — --resources, --ptx, --sass, --sanitize, --profile and `harness new`.
 *
 * Everything here runs beside the judge, never inside it: the static modes read what the compiler
 * made of the cached build (same source, flags, architecture and nvcc, so the same cache key), and
 * the two dynamic modes run the harness binary itself again under the tool, with an environment
 * variable that stops a second level. The parent still never initialises CUDA.
 */
#include "inspect.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "runner.h"

/* ------------------------------------------------------------------------------------------ */
/* small helpers                                                                              */

/* Grow an array to hold need elements (zeroing the new ones); NULL when out of memory, base kept. */
static void *in_grow(void *base, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return base;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need) nc *= 2;
    char *p = realloc(base, nc * elem);
    if (!p) return NULL;
    memset(p + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return p;
}

/* Copy the line at *p into buf (no newline) and advance *p; false at the end of the text. */
static bool in_getline(const char **p, char *buf, size_t len)
{
    if (!*p || !**p) return false;
    const char *e = strchr(*p, '\n');
    size_t n = e ? (size_t)(e - *p) : strlen(*p);
    size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, *p, c);
    buf[c] = '\0';
    if (c && buf[c - 1] == '\r') buf[c - 1] = '\0';
    *p = e ? e + 1 : *p + n;
    return true;
}

static const char *in_skip_ws(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

static void in_rtrim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
}

static bool in_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The number just before suffix in line ("16384 bytes smem"); -1 when absent. */
static long in_num_before(const char *line, const char *suffix)
{
    const char *s = strstr(line, suffix);
    if (!s) return -1;
    const char *b = s;
    while (b > line && isdigit((unsigned char)b[-1])) b--;
    return b == s ? -1 : strtol(b, NULL, 10);
}

/* The number just after prefix in line ("Used 94"); -1 when absent. */
static long in_num_after(const char *line, const char *prefix)
{
    const char *s = strstr(line, prefix);
    if (!s) return -1;
    s += strlen(prefix);
    return isdigit((unsigned char)*s) ? strtol(s, NULL, 10) : -1;
}

/* "sm_90a" → 90 */
static int in_arch_num(const char *arch)
{
    return in_starts(arch, "sm_") ? atoi(arch + 3) : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* compiler resources                                                                         */

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

bool in_parse_ptxas(const char *text, in_kernels *out)
{
    memset(out, 0, sizeof(*out));
    /* "Function properties for X" also names device functions, so keep them all and match the
     * entries by name at the end */
    in_props *pr = NULL;
    size_t npr = 0, cappr = 0;
    char pending[512] = "", line[4096];
    long cur = -1;
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        const char *s;
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
        } else if (strstr(line, " bytes stack frame")) {
            if (!pending[0]) continue;
            in_props *np = in_grow(pr, &cappr, npr + 1, sizeof(*pr));
            if (!np) goto oom;
            pr = np;
            snprintf(pr[npr].name, sizeof(pr[npr].name), "%s", pending);
            pr[npr].stack = in_num_before(line, " bytes stack frame");
            pr[npr].stores = in_num_before(line, " bytes spill stores");
            pr[npr].loads = in_num_before(line, " bytes spill loads");
            npr++;
            pending[0] = '\0';
        } else if (cur >= 0 && (s = strstr(line, "Used ")) && strstr(s, " registers")) {
            in_kernel *k = &out->k[cur];
            k->regs = (int)in_num_after(s, "Used ");
            long b = in_num_after(line, "used ");
            k->barriers = b >= 0 ? (int)b : 0; /* ptxas leaves out "used 0 barriers" */
            long sm = in_num_before(line, " bytes smem");
            k->smem_static = sm >= 0 ? sm : 0;
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
            k->regs = (int)in_num_after(t, "REG:");
            k->stack = in_num_after(t, "STACK:");
            shared = in_num_after(t, "SHARED:");
            k->local = in_num_after(t, "LOCAL:");
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

bool in_limits_for(const char *arch, in_limits *l)
{
    /* per SM: registers, warps, blocks, shared memory (SM, block, reserved per block) */
    static const in_limits table[] = {
        {"sm_75", 65536, 32, 16, 65536, 65536, 0},
        {"sm_80", 65536, 64, 32, 167936, 166912, 1024},
        {"sm_86", 65536, 48, 16, 102400, 101376, 1024},
        {"sm_87", 65536, 48, 16, 167936, 166912, 1024},
        {"sm_89", 65536, 48, 24, 102400, 101376, 1024},
        {"sm_90", 65536, 64, 32, 233472, 232448, 1024},
    };
    int num = in_arch_num(arch);
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (in_arch_num(table[i].arch) == num) {
            *l = table[i];
            return true;
        }
    return false;
}

int in_blocks_per_sm(const in_limits *l, int regs, long smem, int threads, const char **limiter)
{
    int warps = (threads + 31) / 32;
    /* registers go to warps in units of 256 (8 per thread), from four 16384-register quarters */
    int per_warp = ((regs > 0 ? regs : 1) * 32 + 255) / 256 * 256;
    int by_regs = 4 * (l->regs_per_sm / 4 / per_warp) / warps;
    long block_smem = smem + l->smem_reserved;
    int by_smem = smem > l->smem_per_block ? 0 : (int)(l->smem_per_sm / (block_smem > 0 ? block_smem : 1));
    int by_warps = l->max_warps / warps;
    int best = l->max_blocks;
    *limiter = "blocks";
    if (by_warps < best) best = by_warps, *limiter = "warps";
    if (by_smem < best) best = by_smem, *limiter = "shared memory";
    if (by_regs < best) best = by_regs, *limiter = "registers";
    return best;
}

/* ------------------------------------------------------------------------------------------ */
/* instruction mix                                                                            */

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

static in_mix_fn *in_mix_add(in_mix *m, const char *name)
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

/* Whether the dot-separated modifiers hold exactly tok (".E.LTC128B.128" holds "128"). */
static bool in_has_mod(const char *mods, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *s = mods; (s = strchr(s, '.')); s++)
        if (strncmp(s + 1, tok, n) == 0 && (s[1 + n] == '.' || s[1 + n] == '\0')) return true;
    return false;
}

static int in_sass_class(const char *op)
{
    char base[32];
    size_t n = strcspn(op, ".");
    snprintf(base, sizeof(base), "%.*s", (int)(n < 31 ? n : 31), op);
    const char *mods = op + n;
    static const struct { const char *base; int op; } plain[] = {
        {"FFMA", IN_S_FFMA}, {"HMMA", IN_S_HMMA}, {"HGMMA", IN_S_HGMMA}, {"LDSM", IN_S_LDSM},
        {"LDGSTS", IN_S_LDGSTS}, {"UTMALDG", IN_S_UTMALDG}, {"LDL", IN_S_LDL}, {"STL", IN_S_STL},
        {"BAR", IN_S_BAR}};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcmp(base, plain[i].base) == 0) return plain[i].op;
    static const struct { const char *base; int op32; } wide[] = {
        {"LDS", IN_S_LDS32}, {"STS", IN_S_STS32}, {"LDG", IN_S_LDG32}, {"STG", IN_S_STG32}};
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
        if (strcmp(base, wide[i].base) == 0) /* the .32, .64, .128 triples are consecutive */
            return wide[i].op32 + (in_has_mod(mods, "128") ? 2 : in_has_mod(mods, "64") ? 1 : 0);
    return -1;
}

/* The opcode of a SASS instruction line: an address comment (slash-star, hex digits, star-slash),
 * an optional predicate ("@!P0"), then "LDG.E.128 R4, ... ;". False for the encoding lines (their
 * comment starts with a space and "0x") and everything else. */
static bool in_sass_opcode(const char *line, char *op, size_t len)
{
    const char *s = in_skip_ws(line);
    if (s[0] != '/' || s[1] != '*' || !isxdigit((unsigned char)s[2])) return false;
    s += 2;
    while (isxdigit((unsigned char)*s)) s++;
    if (s[0] != '*' || s[1] != '/') return false;
    s = in_skip_ws(s + 2);
    if (*s == '@') { /* predicate */
        while (*s && !isspace((unsigned char)*s)) s++;
        s = in_skip_ws(s);
    }
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]) && s[n] != ';') n++;
    if (!n || !isupper((unsigned char)s[0])) return false;
    snprintf(op, len, "%.*s", (int)n, s);
    return true;
}

bool in_parse_sass(const char *text, in_mix *out)
{
    memset(out, 0, sizeof(*out));
    char line[4096], op[128];
    long cur = -1;
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        const char *t = in_skip_ws(line);
        char name[512] = "";
        if (in_starts(t, "Function : ")) { /* cuobjdump */
            snprintf(name, sizeof(name), "%s", t + strlen("Function : "));
        } else if (in_starts(t, ".text.")) { /* nvdisasm: the function's label ".text.NAME:" */
            snprintf(name, sizeof(name), "%s", t + strlen(".text."));
            in_rtrim(name);
            size_t n = strlen(name);
            if (!n || name[n - 1] != ':') continue;
            name[n - 1] = '\0';
        }
        if (name[0]) {
            in_rtrim(name);
            in_mix_fn *f = in_mix_add(out, name);
            if (!f) {
                in_mix_free(out);
                return false;
            }
            cur = f - out->f;
            continue;
        }
        if (cur < 0 || !in_sass_opcode(line, op, sizeof(op))) continue;
        in_mix_fn *f = &out->f[cur];
        f->total++;
        int c = in_sass_class(op);
        if (c >= 0) f->count[c]++;
    }
    return true;
}

/* Whether a PTX opcode's dot-separated parts include part ("ld.volatile.global.u32" has
 * "global"; "shared::cta" counts as "shared"). */
static bool in_ptx_part(const char *op, const char *part)
{
    size_t n = strlen(part);
    for (const char *s = op; s; s = strchr(s, '.')) {
        if (*s == '.') s++;
        if (strncmp(s, part, n) == 0 && (s[n] == '.' || s[n] == ':' || s[n] == '\0')) return true;
    }
    return false;
}

static int in_ptx_class(const char *op)
{
    if (in_starts(op, "fma.") && in_ptx_part(op, "f32")) return IN_P_FMA;
    if (in_starts(op, "mma.sync")) return IN_P_MMA;
    if (in_starts(op, "wmma.mma")) return IN_P_WMMA;
    if (in_starts(op, "wgmma.mma_async")) return IN_P_WGMMA;
    if (in_starts(op, "ldmatrix")) return IN_P_LDMATRIX;
    if (in_starts(op, "cp.async.bulk.tensor")) return IN_P_TMA;
    if (in_starts(op, "cp.async.ca.") || in_starts(op, "cp.async.cg.")) return IN_P_CP_ASYNC;
    if (in_starts(op, "mbarrier.")) return IN_P_MBARRIER;
    if ((in_starts(op, "bar.") && !in_starts(op, "bar.warp")) || in_starts(op, "barrier."))
        return IN_P_BAR;
    bool ld = in_starts(op, "ld."), st = in_starts(op, "st.");
    if (!ld && !st) return -1;
    int v = in_ptx_part(op, "v4") ? 2 : in_ptx_part(op, "v2") ? 1 : 0;
    if (in_ptx_part(op, "global")) return (ld ? IN_P_LDG : IN_P_STG) + v;
    if (in_ptx_part(op, "shared")) return (ld ? IN_P_LDS : IN_P_STS) + v;
    if (in_ptx_part(op, "local")) return ld ? IN_P_LDL : IN_P_STL;
    return -1;
}

/* One PTX statement of a function body: count it when it is an instruction. */
static void in_ptx_stmt(const char *stmt, in_mix_fn *f)
{
    const char *s = in_skip_ws(stmt);
    if (*s == '@') { /* predicate */
        while (*s && !isspace((unsigned char)*s)) s++;
        s = in_skip_ws(s);
    }
    if (!islower((unsigned char)*s)) return; /* directives, labels, operand fragments */
    char op[128];
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]) && n < sizeof(op) - 1) n++;
    if (s[n - 1] == ':') return; /* a label */
    snprintf(op, sizeof(op), "%.*s", (int)n, s);
    f->total++;
    int c = in_ptx_class(op);
    if (c >= 0) f->count[c]++;
}

/* The function a PTX header line declares (".visible .entry NAME(" or
 * ".func (.param .b32 r) NAME("); false when the line declares none. */
static bool in_ptx_header(const char *t, char *name, size_t len)
{
    const char *s = strstr(t, ".entry ");
    if (s) {
        s = in_skip_ws(s + strlen(".entry "));
    } else if ((s = strstr(t, ".func ")) || (s = strstr(t, ".func\t"))) {
        s = in_skip_ws(s + strlen(".func "));
        if (*s == '(') { /* return value */
            const char *e = strchr(s, ')');
            if (!e) return false;
            s = in_skip_ws(e + 1);
        }
    } else {
        return false;
    }
    size_t n = strcspn(s, "( \t;");
    if (!n) return false;
    snprintf(name, len, "%.*s", (int)n, s);
    return true;
}

bool in_parse_ptx(const char *text, in_mix *out)
{
    memset(out, 0, sizeof(*out));
    char line[4096], stmt[1024];
    long cur = -1;
    int depth = 0;
    bool header = false; /* between a function's name and its opening brace */
    const char *p = text;
    while (in_getline(&p, line, sizeof(line))) {
        char *c = strstr(line, "//");
        if (c) *c = '\0';
        const char *t = in_skip_ws(line);
        char name[512];
        if (depth == 0 && in_ptx_header(t, name, sizeof(name))) {
            in_mix_fn *f = in_mix_add(out, name);
            if (!f) {
                in_mix_free(out);
                return false;
            }
            cur = f - out->f;
            header = true;
        }
        if (header && cur >= 0 && strstr(t, ".maxntid")) {
            int prod = 1;
            for (const char *s = strstr(t, ".maxntid") + strlen(".maxntid"); *s && *s != ';';) {
                char *end;
                long v = strtol(s, &end, 10);
                if (end == s) {
                    s++;
                } else {
                    prod *= (int)v;
                    s = end;
                }
            }
            out->f[cur].maxntid = prod;
        }
        /* statements end at ';', braces open and close blocks (and operand vectors) */
        size_t sl = 0;
        for (const char *s = t;; s++) {
            char ch = *s;
            if (ch == '{' || ch == '}' || ch == ';' || ch == '\0') {
                stmt[sl] = '\0';
                if (depth > 0 && cur >= 0 && !header) in_ptx_stmt(stmt, &out->f[cur]);
                sl = 0;
                if (ch == '{') {
                    depth++;
                    header = false;
                } else if (ch == '}' && depth > 0 && --depth == 0) {
                    cur = -1;
                } else if (ch == ';' && depth == 0 && header) {
                    /* a declaration (".extern .func ... ;"), not a definition: drop it */
                    if (cur == (long)out->n - 1 && out->f[cur].total == 0) out->n--;
                    header = false;
                    cur = -1;
                }
                if (!ch) break;
            } else if (sl < sizeof(stmt) - 1) {
                stmt[sl++] = ch;
            }
        }
    }
    return true;
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

/* ------------------------------------------------------------------------------------------ */
/* compute-sanitizer                                                                          */

bool in_sanitize_tool_valid(const char *t)
{
    return t && (strcmp(t, "memcheck") == 0 || strcmp(t, "racecheck") == 0 ||
                 strcmp(t, "synccheck") == 0 || strcmp(t, "initcheck") == 0);
}

/* The text after the tool's "=========" prefix; NULL for lines without it. */
static const char *in_san_content(const char *line)
{
    size_t eq = strspn(line, "=");
    if (eq < 8) return NULL;
    return line[eq] == ' ' ? line + eq + 1 : line + eq;
}

/* Blocks that report no finding: the banner, summaries, the run's own end. */
static bool in_san_ignored(const char *c)
{
    static const char *const skip[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY",
                                       "LEAK SUMMARY", "Target application returned",
                                       "Error: process didn't terminate", "Internal Sanitizer"};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (in_starts(c, skip[i])) return true;
    return false;
}

void in_parse_sanitizer(const char *text, in_san_report *r)
{
    memset(r, 0, sizeof(*r));
    r->errors = -1;
    char line[4096], block[4096] = "";
    bool in_block = false, first_any_set = false, first_err_set = false;
    char first_any[4096] = "";
    const char *p = text;
    for (bool more = true; more;) {
        more = in_getline(&p, line, sizeof(line));
        const char *c = more ? in_san_content(line) : NULL;
        bool blank = c && !*in_skip_ws(c);
        /* a block ends at a bare prefix line, a line without the prefix or the end */
        if (in_block && (!c || blank)) {
            if (!first_any_set) {
                snprintf(first_any, sizeof(first_any), "%s", block);
                first_any_set = true;
            }
            /* racecheck's WARNING and INFO reports do not fail a run: quote an error first */
            if (!first_err_set && !in_starts(block + strspn(block, "= "), "WARNING") &&
                !in_starts(block + strspn(block, "= "), "Warning") &&
                !in_starts(block + strspn(block, "= "), "INFO")) {
                snprintf(r->first, sizeof(r->first), "%s", block);
                first_err_set = true;
            }
            in_block = false;
            block[0] = '\0';
        }
        if (!c || blank) continue;
        if (in_starts(c, "COMPUTE-SANITIZER")) r->banner = true;
        long v;
        if ((v = in_num_after(c, "ERROR SUMMARY: ")) >= 0) r->errors = (r->errors < 0 ? 0 : r->errors) + (int)v;
        if (strstr(c, "RACECHECK SUMMARY:")) {
            long e = in_num_before(c, " error"), w = in_num_before(c, " warning");
            r->errors = (r->errors < 0 ? 0 : r->errors) + (int)(e > 0 ? e : 0);
            r->warnings += (int)(w > 0 ? w : 0);
        }
        if (!in_block) {
            if (in_san_ignored(c)) continue;
            in_block = true;
            r->findings++;
        }
        size_t used = strlen(block);
        if (used < sizeof(block) - 1)
            snprintf(block + used, sizeof(block) - used, "%s\n", line);
    }
    if (!first_err_set && first_any_set) snprintf(r->first, sizeof(r->first), "%s", first_any);
}

/* ------------------------------------------------------------------------------------------ */
/* Nsight Compute                                                                             */

/* Split one CSV line (quoted fields, "" escapes) into at most max fields stored in buf. */
static int in_csv_split(const char *line, char **fields, int max, char *buf, size_t len)
{
    int n = 0;
    size_t o = 0;
    const char *s = line;
    while (n < max) {
        fields[n++] = buf + o;
        if (*s == '"') {
            for (s++; *s; s++) {
                if (*s == '"' && s[1] == '"') s++;
                else if (*s == '"') {
                    s++;
                    break;
                }
                if (o < len - 1) buf[o++] = *s;
            }
        }
        while (*s && *s != ',') {
            if (o < len - 1) buf[o++] = *s;
            s++;
        }
        if (o < len) buf[o++] = '\0';
        if (*s != ',') break;
        s++;
    }
    buf[len - 1] = '\0';
    return n;
}

static int in_col(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0) return i;
    return -1;
}

void in_profile_free(in_profile *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->k[i].m);
    free(p->k);
    memset(p, 0, sizeof(*p));
}

bool in_parse_ncu_csv(const char *text, in_profile *p)
{
    memset(p, 0, sizeof(*p));
    enum { MAXF = 64 };
    char line[8192], hbuf[8192], rbuf[8192];
    char *hdr[MAXF], *f[MAXF];
    int nh = 0, c_id = -1, c_pid = -1, c_name = -1, c_block = -1, c_grid = -1, c_metric = -1, c_unit = -1,
        c_value = -1;
    const char *s = text;
    while (in_getline(&s, line, sizeof(line))) {
        const char *t = in_skip_ws(line);
        if (*t != '"') continue; /* ncu's ==PROF== lines, the program's own output */
        if (nh == 0) {
            int n = in_csv_split(t, hdr, MAXF, hbuf, sizeof(hbuf));
            if (in_col(hdr, n, "Metric Name") < 0) continue;
            nh = n;
            c_id = in_col(hdr, n, "ID");
            c_pid = in_col(hdr, n, "Process ID");
            c_name = in_col(hdr, n, "Kernel Name");
            c_block = in_col(hdr, n, "Block Size");
            c_grid = in_col(hdr, n, "Grid Size");
            c_metric = in_col(hdr, n, "Metric Name");
            c_unit = in_col(hdr, n, "Metric Unit");
            c_value = in_col(hdr, n, "Metric Value");
            continue;
        }
        int n = in_csv_split(t, f, MAXF, rbuf, sizeof(rbuf));
        if (n < nh || c_value < 0) continue;
        if (strcmp(f[c_metric], "Metric Name") == 0) continue; /* a second process's header */
        /* IDs count launches per process: a replaced worker starts again at 0 */
        char id[32];
        snprintf(id, sizeof(id), "%s:%s", c_pid >= 0 ? f[c_pid] : "", c_id >= 0 ? f[c_id] : "0");
        in_prof_kernel *k = NULL;
        for (size_t i = 0; i < p->n; i++)
            if (strcmp(p->k[i].id, id) == 0) k = &p->k[i];
        if (!k) {
            in_prof_kernel *nk = in_grow(p->k, &p->cap, p->n + 1, sizeof(*nk));
            if (!nk) goto oom;
            p->k = nk;
            k = &p->k[p->n++];
            memset(k, 0, sizeof(*k));
            snprintf(k->id, sizeof(k->id), "%s", id);
            snprintf(k->name, sizeof(k->name), "%s", c_name >= 0 ? f[c_name] : "?");
            snprintf(k->display, sizeof(k->display), "%s", k->name);
            if (c_block >= 0) snprintf(k->block, sizeof(k->block), "%s", f[c_block]);
            if (c_grid >= 0) snprintf(k->grid, sizeof(k->grid), "%s", f[c_grid]);
        }
        in_metric *m = in_grow(k->m, &k->cap, k->n + 1, sizeof(*m));
        if (!m) goto oom;
        k->m = m;
        m = &k->m[k->n++];
        snprintf(m->name, sizeof(m->name), "%s", f[c_metric]);
        snprintf(m->unit, sizeof(m->unit), "%s", c_unit >= 0 ? f[c_unit] : "");
        char num[64];
        size_t o = 0;
        for (const char *v = f[c_value]; *v && o < sizeof(num) - 1; v++)
            if (*v != ',') num[o++] = *v; /* thousands separators */
        num[o] = '\0';
        char *end;
        double v = strtod(num, &end);
        m->value = end != num && *in_skip_ws(end) == '\0' ? v : NAN;
    }
    return nh > 0;
oom:
    in_profile_free(p);
    return false;
}

const in_metric *in_prof_metric(const in_prof_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->m[i].name, name) == 0 && !isnan(k->m[i].value)) return &k->m[i];
    return NULL;
}

/* A metric's value, or NAN. */
static double in_pv(const in_prof_kernel *k, const char *name)
{
    const in_metric *m = in_prof_metric(k, name);
    return m ? m->value : NAN;
}

/* Duration in microseconds whatever unit ncu printed it in. */
static double in_usec(const in_metric *m)
{
    static const struct { const char *unit; double scale; } u[] = {
        {"nsecond", 1e-3}, {"ns", 1e-3}, {"usecond", 1}, {"us", 1},
        {"msecond", 1e3}, {"ms", 1e3}, {"second", 1e6}, {"s", 1e6}};
    /* ncu writes launch sizes per block ("byte/block"): the unit is the part before '/' */
    size_t n = strcspn(m->unit, "/");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        if (strlen(u[i].unit) == n && strncmp(m->unit, u[i].unit, n) == 0) return m->value * u[i].scale;
    return NAN;
}

/* Bytes whatever unit ncu printed them in (it scales by 1000). */
static double in_bytes(const in_metric *m)
{
    static const struct { const char *unit; double scale; } u[] = {
        {"byte", 1}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"KB", 1e3}, {"MB", 1e6}, {"B", 1}};
    /* ncu writes launch sizes per block ("byte/block"): the unit is the part before '/' */
    size_t n = strcspn(m->unit, "/");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        if (strlen(u[i].unit) == n && strncmp(m->unit, u[i].unit, n) == 0) return m->value * u[i].scale;
    return NAN;
}

typedef struct {
    const char *unit;
    double scale;
} in_unit;

/* A rate in base units per second, whatever unit ncu printed it in: one of the units given, or
 * one of them with an SI prefix (ncu scales by 1000); NAN for anything else. */
static double in_rate(const in_metric *m, const in_unit *u, size_t n)
{
    static const in_unit pre[] = {{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
    for (size_t i = 0; i < n; i++) {
        if (strcmp(m->unit, u[i].unit) == 0) return m->value * u[i].scale;
        for (size_t j = 0; j < sizeof(pre) / sizeof(pre[0]); j++)
            if (m->unit[0] == pre[j].unit[0] && strcmp(m->unit + 1, u[i].unit) == 0)
                return m->value * u[i].scale * pre[j].scale;
    }
    return NAN;
}

/* "label value unit" or "label n/a" */
static void in_put(FILE *out, const char *label, double v, const char *fmt_unit)
{
    fprintf(out, "%s", label);
    if (isnan(v)) fprintf(out, "n/a");
    else fprintf(out, fmt_unit, v);
}

typedef struct {
    char reason[64];
    double v;
} in_stall;

static int in_stall_cmp(const void *a, const void *b)
{
    double x = ((const in_stall *)a)->v, y = ((const in_stall *)b)->v;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void in_print_kernel_profile(FILE *out, const in_prof_kernel *k)
{
    fprintf(out, "  %s", k->display);
    if (k->grid[0] || k->block[0]) fprintf(out, "   grid %s x block %s", k->grid, k->block);
    fputc('\n', out);
    const in_metric *dur = in_prof_metric(k, "gpu__time_duration.sum");
    double occ = in_pv(k, "sm__warps_active.avg.pct_of_peak_sustained_active");
    double theo = in_pv(k, "sm__maximum_warps_per_active_cycle_pct");
    fprintf(out, "    duration ");
    if (dur && !isnan(in_usec(dur))) fprintf(out, "%.2f us", in_usec(dur));
    else fprintf(out, "n/a");
    fprintf(out, " · achieved occupancy ");
    if (!isnan(occ)) fprintf(out, "%.1f%%", occ);
    else fprintf(out, "n/a");
    if (!isnan(theo)) {
        static const struct { const char *metric, *what; } lim[] = {
            {"launch__occupancy_limit_registers", "registers"},
            {"launch__occupancy_limit_shared_mem", "shared memory"},
            {"launch__occupancy_limit_warps", "warps"},
            {"launch__occupancy_limit_blocks", "blocks"}};
        const char *by = NULL;
        double best = INFINITY;
        for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
            double v = in_pv(k, lim[i].metric);
            if (!isnan(v) && v < best) best = v, by = lim[i].what;
        }
        fprintf(out, " (theoretical %.1f%%", theo);
        if (by) fprintf(out, ", %.0f blocks per SM, limited by %s", best, by);
        fputc(')', out);
    }
    fputc('\n', out);
    double sm = in_pv(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    double mem = in_pv(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    fprintf(out, "    SM throughput ");
    if (!isnan(sm)) fprintf(out, "%.1f%%", sm);
    else fprintf(out, "n/a");
    fprintf(out, " of peak · memory throughput ");
    if (!isnan(mem)) fprintf(out, "%.1f%%", mem);
    else fprintf(out, "n/a");
    fprintf(out, " of peak\n");

    /* the clock the kernel ran at (a power-bound chip runs below its boost clock) and L2 */
    static const in_unit hz[] = {{"hz", 1}, {"Hz", 1}, {"cycle/second", 1}, {"cycle/nsecond", 1e9}};
    static const in_unit bps[] = {{"byte/second", 1}, {"byte/s", 1}, {"byte/nsecond", 1e9}};
    const in_metric *clk = in_prof_metric(k, "sm__cycles_elapsed.avg.per_second");
    const in_metric *x2l = in_prof_metric(k, "l1tex__m_xbar2l1tex_read_bytes.sum.per_second");
    in_put(out, "    SM clock ", clk ? in_rate(clk, hz, 4) * 1e-9 : NAN, "%.2f GHz");
    in_put(out, " · L2 throughput ", in_pv(k, "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
           "%.1f%% of peak");
    in_put(out, ", to the SMs ", x2l ? in_rate(x2l, bps, 3) * 1e-12 : NAN, "%.2f TB/s");
    in_put(out, ", hit rate ", in_pv(k, "lts__t_sector_hit_rate.pct"), "%.1f%%");
    fputc('\n', out);

    /* tensor pipes: every sm__pipe_tensor*_cycles_active that ncu knows on this chip */
    fprintf(out, "    tensor pipes (active cycles, %% of peak):");
    int pipes = 0;
    for (size_t i = 0; i < k->n; i++) {
        const in_metric *m = &k->m[i];
        const char *end = strstr(m->name, "_cycles_active.avg.pct_of_peak_sustained_active");
        if (!in_starts(m->name, "sm__pipe_tensor") || !end || isnan(m->value)) continue;
        const char *s = m->name + strlen("sm__pipe_");
        if (in_starts(s, "tensor_op_")) s += strlen("tensor_op_");
        fprintf(out, "%s %.*s %.1f%%", pipes ? "," : "", (int)(end - s), s, m->value);
        pipes++;
    }
    fprintf(out, "%s\n", pipes ? "" : " none reported by this ncu");

    /* stalls: cycles per issued instruction spent in each reason */
    in_stall st[64];
    size_t ns = 0;
    double sum = 0;
    for (size_t i = 0; i < k->n && ns < 64; i++) {
        const in_metric *m = &k->m[i];
        const char *r = strstr(m->name, "issue_stalled_");
        const char *e = strstr(m->name, "_per_issue_active");
        if (!r || !e || e < r || isnan(m->value)) continue;
        r += strlen("issue_stalled_");
        snprintf(st[ns].reason, sizeof(st[ns].reason), "%.*s", (int)(e - r), r);
        if (strcmp(st[ns].reason, "selected") == 0) continue; /* issuing, not a stall */
        st[ns].v = m->value;
        sum += m->value;
        ns++;
    }
    qsort(st, ns, sizeof(st[0]), in_stall_cmp);
    fprintf(out, "    top stalls (cycles per issued instruction):");
    for (size_t i = 0; i < ns && i < 3; i++)
        fprintf(out, "%s %s %.2f (%.0f%%)", i ? "," : "", st[i].reason, st[i].v,
                sum > 0 ? 100.0 * st[i].v / sum : 0.0);
    fprintf(out, "%s\n", ns ? "" : " none reported by this ncu");

    double regs = in_pv(k, "launch__registers_per_thread");
    const in_metric *ss = in_prof_metric(k, "launch__shared_mem_per_block_static");
    const in_metric *ds = in_prof_metric(k, "launch__shared_mem_per_block_dynamic");
    double waves = in_pv(k, "launch__waves_per_multiprocessor");
    if (!isnan(regs) || ss || ds) {
        fprintf(out, "    launch:");
        if (!isnan(regs)) fprintf(out, " %.0f registers/thread,", regs);
        fprintf(out, " shared memory %.0f B static + %.0f B dynamic per block",
                ss ? in_bytes(ss) : 0.0, ds ? in_bytes(ds) : 0.0);
        if (!isnan(waves)) fprintf(out, ", %.2f waves", waves);
        fputc('\n', out);
    }
}

void in_print_profile(FILE *out, const in_profile *p)
{
    for (size_t i = 0; i < p->n; i++) in_print_kernel_profile(out, &p->k[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* running the tools                                                                          */

/* Run argv (no shell) with env ("NAME", "VALUE", ..., NULL) added; out: NULL inherits stdout and
 * stderr, else both go to that file. The exit status, 128 + a signal, or -1 when it never ran. */
static int in_spawn(char *const argv[], const char *const env[], const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (out) {
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
            close(fd);
        }
        for (size_t i = 0; env && env[i] && env[i + 1]; i += 2)
            if (setenv(env[i], env[i + 1], 1) != 0) _exit(126);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(ws)) return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws)) return 128 + WTERMSIG(ws);
    return -1;
}

/* A CUDA tool: $ENV when set (then only there, so that a test can hide a tool), else PATH, nvcc's
 * folder, $CUDA_HOME/bin, /usr/local/cuda/bin. */
static bool in_find_tool(const char *name, const char *env, char *out, size_t len)
{
    const char *e = getenv(env);
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return access(e, X_OK) == 0;
    }
    char cand[PATH_MAX + 64];
    const char *path = getenv("PATH");
    if (path) {
        char *copy = strdup(path), *save = NULL;
        if (!copy) return false;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(cand, sizeof(cand), "%s/%s", *d ? d : ".", name);
            if (access(cand, X_OK) == 0) {
                snprintf(out, len, "%s", cand);
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    char nvcc[PATH_MAX];
    if (ld_find_nvcc(nvcc, sizeof(nvcc))) {
        snprintf(cand, sizeof(cand), "%s/%s", dirname(nvcc), name);
        if (access(cand, X_OK) == 0) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(cand, sizeof(cand), "%s/bin/%s", home, name);
        if (access(cand, X_OK) == 0) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    snprintf(cand, sizeof(cand), "/usr/local/cuda/bin/%s", name);
    if (access(cand, X_OK) == 0) {
        snprintf(out, len, "%s", cand);
        return true;
    }
    return false;
}

/* The one line for a missing tool. */
static void in_tool_missing(FILE *to, const char *mode, const char *name, const char *env,
                            const char *consequence)
{
    const char *e = getenv(env);
    if (e && *e)
        fprintf(to, "harness: %s: %s not found: $%s=%s is not an executable; %s\n", mode, name, env, e,
                consequence);
    else
        fprintf(to, "harness: %s: %s not found (looked at $%s, PATH, nvcc's folder, $CUDA_HOME/bin, "
                    "/usr/local/cuda/bin); %s\n",
                mode, name, env, consequence);
}

static bool in_tmpfile(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/harness-inspect-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return false;
    close(fd);
    return true;
}

/* Shorten a demangled kernel name: no "void ", no "(anonymous namespace)::", no parameters. */
static void in_shorten(const char *dem, char *out, size_t len)
{
    const char *s = dem;
    if (in_starts(s, "void ")) s += strlen("void ");
    if (in_starts(s, "(anonymous namespace)::")) s += strlen("(anonymous namespace)::");
    size_t n = strlen(s);
    if (n && s[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (s[i] == ')') depth++;
            else if (s[i] == '(' && --depth == 0) {
                n = i;
                break;
            }
        }
    }
    snprintf(out, len, "%.*s", (int)n, s);
}

typedef struct {
    const char *mangled;
    char *out;
    size_t len;
} in_dm;

/* Demangle through c++filt when it exists; otherwise the names stay mangled. */
static void in_demangle(in_dm *d, size_t n)
{
    char filt[PATH_MAX], tmp[PATH_MAX];
    if (!n || !in_find_tool("c++filt", "CXXFILT", filt, sizeof(filt)) || !in_tmpfile(tmp, sizeof(tmp)))
        return;
    for (size_t at = 0; at < n; at += 64) {
        char *argv[66];
        size_t m = 0;
        argv[m++] = filt;
        for (size_t i = at; i < n && m < 65; i++) argv[m++] = (char *)d[i].mangled;
        argv[m] = NULL;
        if (in_spawn(argv, NULL, tmp) != 0) break;
        char *text = ld_read_text(tmp, NULL);
        if (!text) break;
        const char *p = text;
        char line[4096];
        for (size_t i = at; i < at + m - 1 && in_getline(&p, line, sizeof(line)); i++)
            in_shorten(line, d[i].out, d[i].len);
        free(text);
    }
    unlink(tmp);
}

/* ------------------------------------------------------------------------------------------ */
/* the modes                                                                                  */

typedef struct {
    const jd_options *o;
    const in_request *rq;
    char arch[16];
    ld_build build;
    char stem[PATH_MAX];     /* build/cache/NAME-HASH: the cached object without ".so" */
    char nvcc[PATH_MAX];
    in_mix ptx;
    bool have_ptx;
} in_ctx;

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
static bool in_nvcc(in_ctx *cx, const char *mode, const char *const *what, const char *dest,
                    const char *log)
{
    if (!cx->o->rebuild && access(dest, R_OK) == 0 && access(log, R_OK) == 0) return true;
    char tmp[PATH_MAX + 32], tmplog[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dest, (int)getpid());
    snprintf(tmplog, sizeof(tmplog), "%s.tmp.%d", log, (int)getpid());
    char gencode[96];
    ld_gencode(cx->arch, gencode, sizeof(gencode));
    char *flags = strdup(cx->o->nvcc_flags ? cx->o->nvcc_flags : "");
    if (!flags) return false;
    const char *argv[96];
    int argc = 0;
    argv[argc++] = cx->nvcc;
    argv[argc++] = "-O3";
    argv[argc++] = "-lineinfo";
    argc = in_add_flags(argv, argc, 80, flags);
    for (int i = 0; what[i]; i++) argv[argc++] = strcmp(what[i], "GENCODE") == 0 ? gencode : what[i];
    argv[argc++] = "-o";
    argv[argc++] = tmp;
    argv[argc++] = cx->o->solution;
    argv[argc] = NULL;
    int rc = in_spawn((char *const *)argv, NULL, tmplog);
    free(flags);
    if (rc != 0) {
        fprintf(stderr, "harness: %s: nvcc failed (exit status %d); its output is in %s\n", mode, rc, tmplog);
        unlink(tmp);
        return false;
    }
    if (rename(tmp, dest) != 0 || rename(tmplog, log) != 0) {
        fprintf(stderr, "harness: %s: cannot write %s: %s\n", mode, dest, strerror(errno));
        return false;
    }
    return true;
}

/* The PTX of the cached build (STEM.ptx): --ptx prints its mix; the others take the kernels'
 * names and launch bounds from it. */
static bool in_load_ptx(in_ctx *cx)
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

static void in_fmt_bytes(long b, char *out, size_t len)
{
    if (b < 0) snprintf(out, len, "-");
    else snprintf(out, len, "%ld B", b);
}

static int in_run_resources(in_ctx *cx)
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
        char smem[32], stack[32], spill[48], bounds[16];
        in_fmt_bytes(k->smem_static, smem, sizeof(smem));
        in_fmt_bytes(k->stack, stack, sizeof(stack));
        if (k->spill_stores < 0) snprintf(spill, sizeof(spill), "-");
        else snprintf(spill, sizeof(spill), "%ld/%ld B", k->spill_stores, k->spill_loads);
        if (k->maxntid) snprintf(bounds, sizeof(bounds), "%d", k->maxntid);
        else snprintf(bounds, sizeof(bounds), "-");
        printf("  %-*.*s %5d %12s %7s %13s %4d %7s\n", w, w, k->display, k->regs, smem, stack, spill,
               k->barriers, bounds);
    }
    if (!ks.n) printf("  (ptxas compiled no kernel)\n");
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
                if (k->maxntid && sizes[s] > k->maxntid) {
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

static int in_run_sass(in_ctx *cx)
{
    char tool[PATH_MAX], sass[PATH_MAX + 16], cubin[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(sass, sizeof(sass), "%s.sass", cx->stem);
    const char *how;
    if (in_find_tool("cuobjdump", "CUOBJDUMP", tool, sizeof(tool))) {
        char *argv[] = {tool, "--dump-sass", cx->build.so_path, NULL};
        how = "cuobjdump --dump-sass of the cached object";
        if ((cx->o->rebuild || access(sass, R_OK) != 0) && in_spawn(argv, NULL, sass) != 0) {
            fprintf(stderr, "harness: --sass: cuobjdump failed; its output is in %s\n", sass);
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
            fprintf(stderr, "harness: --sass: nvdisasm failed; its output is in %s\n", sass);
            unlink(sass);
            return HX_INTERNAL;
        }
    } else {
        in_tool_missing(stdout, "--sass", "cuobjdump (or nvdisasm)", "CUOBJDUMP",
                        "no SASS: the PTX mix below is what ptxas was given, not what runs");
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
        fprintf(stderr, "harness: --sass: cannot read %s\n", sass);
        return HX_INTERNAL;
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
    printf("SASS — %s for %s (%s: %s; static counts: instructions in the code)\n", cx->o->solution,
           cx->arch, how, sass);
    in_print_mix(stdout, &m, true);
    if (!m.n) printf("  (no function found in the SASS)\n");
    in_mix_free(&m);
    return HX_SUCCESS;
}

/* The inner harness's arguments: what the user asked for, less the inspection, plus the mode's
 * defaults (the tests to run, no timing, a longer time limit under the sanitizer). */
typedef struct {
    const char *argv[64];
    int argc;
    char size[64], alpha[32], beta[32], timeout[32], seed[32], tests[96];
} in_inner;

static void in_inner_args(const in_ctx *cx, bool sanitize, in_inner *in)
{
    const jd_options *o = cx->o;
    in->argc = 0;
    in->argv[in->argc++] = "--arch";
    in->argv[in->argc++] = cx->arch;
    in->argv[in->argc++] = "--no-timing";
    if (o->custom) {
        snprintf(in->size, sizeof(in->size), "%dx%dx%d", o->m, o->n, o->k);
        snprintf(in->alpha, sizeof(in->alpha), "%.9g", o->alpha);
        snprintf(in->beta, sizeof(in->beta), "%.9g", o->beta);
        const char *a[] = {"--size", in->size, "--alpha", in->alpha, "--beta", in->beta};
        for (size_t i = 0; i < 6; i++) in->argv[in->argc++] = a[i];
        if (o->any_size) in->argv[in->argc++] = "--no-constraints";
    } else {
        bool all = true;
        for (int s = 0; s < PB_N_SETS; s++) all = all && o->sets[s];
        if (all) {
            snprintf(in->tests, sizeof(in->tests), "%s", sanitize ? "example,functional,extra" : "perf");
        } else {
            static const struct { pb_set s; const char *name; } names[] = {
                {PB_SET_EXAMPLE, "example"}, {PB_SET_FUNCTIONAL, "functional"},
                {PB_SET_PERFORMANCE, "perf"}, {PB_SET_EXTRA, "extra"}};
            in->tests[0] = '\0';
            for (size_t i = 0; i < 4; i++)
                if (o->sets[names[i].s]) {
                    size_t u = strlen(in->tests);
                    snprintf(in->tests + u, sizeof(in->tests) - u, "%s%s", u ? "," : "", names[i].name);
                }
        }
        in->argv[in->argc++] = "--tests";
        in->argv[in->argc++] = in->tests;
    }
    /* the tools slow kernels down by 10-100x: the normal 10 s per test is too short */
    snprintf(in->timeout, sizeof(in->timeout), "%g", o->timeout_s != 10.0 ? o->timeout_s : sanitize ? 600.0 : 120.0);
    in->argv[in->argc++] = "--timeout";
    in->argv[in->argc++] = in->timeout;
    if (o->problem) {
        in->argv[in->argc++] = "--problem";
        in->argv[in->argc++] = o->problem;
    }
    if (o->nvcc_flags) {
        in->argv[in->argc++] = "--nvcc-flags";
        in->argv[in->argc++] = o->nvcc_flags;
    }
    if (o->seed) {
        snprintf(in->seed, sizeof(in->seed), "%llu", (unsigned long long)o->seed);
        in->argv[in->argc++] = "--seed";
        in->argv[in->argc++] = in->seed;
    }
    if (!sanitize || o->quiet) in->argv[in->argc++] = "-q";
}

static bool in_self(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0) return false;
    out[n] = '\0';
    return true;
}

/* Print the lines of text that start with prefix (ncu's ==ERROR== lines), at most max. */
static int in_print_lines_with(FILE *to, const char *text, const char *prefix, int max)
{
    char line[4096];
    int n = 0;
    for (const char *p = text; n < max && in_getline(&p, line, sizeof(line));)
        if (strstr(line, prefix)) {
            fprintf(to, "  %s\n", line);
            n++;
        }
    return n;
}

static int in_run_sanitize(in_ctx *cx, const char *tool)
{
    const char *t = cx->rq->san_tool ? cx->rq->san_tool : "memcheck";
    char log[PATH_MAX + 32], self[PATH_MAX];
    snprintf(log, sizeof(log), "%s.%s.log", cx->stem, t);
    if (!in_self(self, sizeof(self))) {
        fprintf(stderr, "harness: --sanitize: cannot find the harness binary: %s\n", strerror(errno));
        return HX_INTERNAL;
    }
    in_inner in;
    in_inner_args(cx, true, &in);
    /* only the solution's kernels: cuBLAS's reference runs unchecked (and fast) */
    size_t nk = cx->have_ptx ? cx->ptx.n : 0;
    char(*filters)[560] = calloc(nk ? nk : 1, sizeof(*filters));
    const char **argv = calloc(96 + 2 * nk, sizeof(char *));
    if (!filters || !argv) {
        free(filters);
        free(argv);
        return HX_INTERNAL;
    }
    int argc = 0;
    const char *fixed[] = {tool, "--tool", t, "--error-exitcode", "99", "--target-processes", "all",
                           "--require-cuda-init", "no", "--check-exit-code", "no", "--show-backtrace",
                           "no", "--print-limit", "20", "--log-file", log};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    if (strcmp(t, "memcheck") == 0) { /* the harness's own and cuBLAS's API errors are not findings */
        argv[argc++] = "--report-api-errors";
        argv[argc++] = "no";
    }
    for (size_t i = 0; i < nk; i++) {
        snprintf(filters[i], sizeof(filters[i]), "kne=%s", cx->ptx.f[i].name);
        argv[argc++] = "--kernel-name";
        argv[argc++] = filters[i];
    }
    argv[argc++] = self;
    for (int i = 0; i < in.argc; i++) argv[argc++] = in.argv[i];
    argv[argc++] = cx->o->solution;
    argv[argc] = NULL;
    const char *env[] = {IN_ENV_SANITIZER, t, "HARNESS_CACHE", cx->o->cache_dir, NULL};

    printf("compute-sanitizer %s — running the harness's %s tests under it (no timing; slow)\n", t,
           cx->o->custom ? in.size : in.tests);
    if (nk) {
        printf("  checking the solution's %zu kernel%s:", nk, nk == 1 ? "" : "s");
        for (size_t i = 0; i < nk; i++) printf("%s %s", i ? "," : "", cx->ptx.f[i].display);
        printf("\n");
    } else {
        printf("  checking every kernel (the solution's names are not known: no PTX)\n");
    }
    unlink(log);
    int rc = in_spawn((char *const *)argv, env, NULL);
    free(filters);
    free(argv);

    if (rc == HX_NO_DEVICE) { /* the harness under the tool said so already */
        printf("compute-sanitizer %s: no CUDA device, nothing was checked\n", t);
        return HX_NO_DEVICE;
    }
    char *text = ld_read_text(log, NULL);
    in_san_report r;
    in_parse_sanitizer(text ? text : "", &r);
    free(text);
    if (!r.banner) {
        fprintf(stderr, "harness: --sanitize: compute-sanitizer did not run the harness (exit status %d)%s%s\n",
                rc, access(log, R_OK) == 0 ? "; its log: " : "", access(log, R_OK) == 0 ? log : "");
        return HX_INTERNAL;
    }
    bool failed = r.errors > 0 || rc == 99 || (r.errors < 0 && r.findings > 0);
    printf("\nSanitizer: compute-sanitizer %s: ", t);
    if (r.errors >= 0) printf("%d error%s", r.errors, r.errors == 1 ? "" : "s");
    else printf("no summary (the run was cut short), %d report%s", r.findings, r.findings == 1 ? "" : "s");
    if (r.warnings) printf(", %d warning%s (not counted)", r.warnings, r.warnings == 1 ? "" : "s");
    printf(" — full log: %s\n", log);
    if (r.first[0] && (failed || r.warnings)) {
        printf("%s report:\n", failed ? "First" : "First warning");
        fputs(r.first, stdout);
    }
    if (failed) {
        /* the report's own first line says what it is (an invalid read, a race, a barrier...) */
        char what[160] = "";
        const char *c = r.first[0] ? in_san_content(r.first) : NULL;
        if (c) snprintf(what, sizeof(what), ": %.*s", (int)strcspn(c, "\n"), c);
        if (strlen(what) > 110) snprintf(what + 104, sizeof(what) - 104, " ...");
        printf("Status: error (compute-sanitizer %s%s)\n", t, what);
        return HX_ERROR;
    }
    return rc >= 0 && rc <= HX_INTERNAL ? rc : HX_INTERNAL;
}

static int in_run_profile(in_ctx *cx, const char *ncu)
{
    char csv[PATH_MAX + 16], self[PATH_MAX];
    snprintf(csv, sizeof(csv), "%s.ncu.csv", cx->stem);
    if (!in_self(self, sizeof(self))) {
        fprintf(stderr, "harness: --profile: cannot find the harness binary: %s\n", strerror(errno));
        return HX_INTERNAL;
    }
    in_inner in;
    in_inner_args(cx, false, &in);
    /* the solution's kernels by mangled name, so cuBLAS's reference is not profiled */
    size_t nk = cx->have_ptx ? cx->ptx.n : 0, rlen = 32;
    for (size_t i = 0; i < nk; i++) rlen += strlen(cx->ptx.f[i].name) * 2 + 1;
    char *regex = malloc(rlen);
    if (!regex) return HX_INTERNAL;
    size_t u = (size_t)snprintf(regex, rlen, "regex:^(");
    for (size_t i = 0; i < nk; i++) {
        if (i) regex[u++] = '|';
        for (const char *s = cx->ptx.f[i].name; *s; s++) {
            if (*s == '$' || *s == '.') regex[u++] = '\\';
            regex[u++] = *s;
        }
    }
    snprintf(regex + u, rlen - u, ")$");
    static const char metrics[] =
        "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
        "sm__maximum_warps_per_active_cycle_pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
        "sm__cycles_elapsed.avg.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,"
        "l1tex__m_xbar2l1tex_read_bytes.sum.per_second,lts__t_sector_hit_rate.pct,"
        "launch__registers_per_thread,launch__shared_mem_per_block_static,"
        "launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,"
        "launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,"
        "launch__occupancy_limit_blocks,launch__waves_per_multiprocessor,"
        "regex:sm__pipe_tensor.*cycles_active\\.avg\\.pct_of_peak_sustained_active,"
        "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio";
    const char *argv[96];
    int argc = 0;
    const char *fixed[] = {ncu, "--clock-control", "none", "--target-processes", "all", "--csv",
                           "--print-units", "base", "--print-kernel-base", "mangled", "--launch-count",
                           "20", "--metrics", metrics};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    if (nk) {
        argv[argc++] = "--kernel-name-base";
        argv[argc++] = "mangled";
        argv[argc++] = "--kernel-name";
        argv[argc++] = regex;
    }
    argv[argc++] = self;
    for (int i = 0; i < in.argc; i++) argv[argc++] = in.argv[i];
    argv[argc++] = cx->o->solution;
    argv[argc] = NULL;
    const char *env[] = {IN_ENV_PROFILER, "ncu", "HARNESS_CACHE", cx->o->cache_dir, NULL};
    int rc = in_spawn((char *const *)argv, env, csv);
    free(regex);

    char *text = ld_read_text(csv, NULL);
    in_profile p;
    bool parsed = text && in_parse_ncu_csv(text, &p);
    if (text && strstr(text, "ERR_NVGPUCTRPERM")) {
        printf("harness: --profile: ncu cannot read the GPU's performance counters here (ERR_NVGPUCTRPERM: "
               "they need admin rights, or the driver option NVreg_RestrictProfilingToAdminUsers=0)\n");
        free(text);
        if (parsed) in_profile_free(&p);
        return HX_INTERNAL;
    }
    if (!parsed || !p.n) {
        if (rc == HX_NO_DEVICE) {
            printf("harness: --profile: no CUDA device: nothing to profile\n");
        } else {
            printf("harness: --profile: ncu returned no kernel profile (exit status %d); its output: %s\n", rc, csv);
            if (text && !in_print_lines_with(stdout, text, "==ERROR==", 5))
                in_print_lines_with(stdout, text, "==WARNING==", 5);
        }
        free(text);
        if (parsed) in_profile_free(&p);
        return rc == HX_NO_DEVICE ? HX_NO_DEVICE : HX_INTERNAL;
    }
    in_dm *d = calloc(p.n, sizeof(*d));
    for (size_t i = 0; d && i < p.n; i++) d[i] = (in_dm){p.k[i].name, p.k[i].display, sizeof(p.k[i].display)};
    if (d) in_demangle(d, p.n);
    free(d);
    printf("Profile — %s, %s, one call under Nsight Compute (ncu --clock-control none; each kernel "
           "replayed once per metric pass): %s\n",
           cx->o->solution, cx->o->custom ? in.size : "the performance case", csv);
    in_print_profile(stdout, &p);
    if (rc != 0) {
        printf("note: the run under ncu ended with exit status %d (its output is in %s)\n", rc, csv);
        in_print_lines_with(stdout, text, "==ERROR==", 5);
    }
    free(text);
    in_profile_free(&p);
    return rc >= 0 && rc <= HX_INTERNAL ? rc : HX_INTERNAL;
}

int in_main(const jd_options *o, const in_request *rq)
{
    bool dynamic = rq->modes & (IN_SANITIZE | IN_PROFILE);
    const char *under = getenv(IN_ENV_SANITIZER) ? IN_ENV_SANITIZER : getenv(IN_ENV_PROFILER) ? IN_ENV_PROFILER : NULL;
    if (dynamic && under) {
        fprintf(stderr, "harness: already running under a tool ($%s is set): no --sanitize or --profile inside it\n",
                under);
        return HX_USAGE;
    }
    size_t len = strlen(o->solution);
    struct stat sb;
    if (len < 4 || strcmp(o->solution + len - 3, ".cu") != 0) {
        fprintf(stderr, "harness: %s: not a .cu file\n", o->solution);
        return HX_BAD_FILE;
    }
    if (stat(o->solution, &sb) != 0 || access(o->solution, R_OK) != 0) {
        fprintf(stderr, "harness: cannot open %s: %s\n", o->solution, strerror(errno));
        return HX_BAD_FILE;
    }
    if (!S_ISREG(sb.st_mode)) {
        fprintf(stderr, "harness: %s is not a regular file\n", o->solution);
        return HX_BAD_FILE;
    }
    /* the run-time tools first: without one there is nothing to do */
    char tool[PATH_MAX] = "";
    if ((rq->modes & IN_SANITIZE) && !in_find_tool("compute-sanitizer", "COMPUTE_SANITIZER", tool, sizeof(tool))) {
        in_tool_missing(stderr, "--sanitize", "compute-sanitizer", "COMPUTE_SANITIZER", "nothing was run");
        return HX_INTERNAL;
    }
    if ((rq->modes & IN_PROFILE) && !in_find_tool("ncu", "NCU", tool, sizeof(tool))) {
        in_tool_missing(stderr, "--profile", "ncu (Nsight Compute)", "NCU", "nothing was run");
        return HX_INTERNAL;
    }

    in_ctx cx;
    memset(&cx, 0, sizeof(cx));
    cx.o = o;
    cx.rq = rq;
    /* the architecture a normal run picks, so that the cached object is the same one */
    if (o->arch) {
        snprintf(cx.arch, sizeof(cx.arch), "%s", o->arch);
    } else {
        dv_info info;
        if (rn_probe(&info, 60.0)) ld_arch_for(info.cc_major, info.cc_minor, cx.arch, sizeof(cx.arch));
        else snprintf(cx.arch, sizeof(cx.arch), "sm_90a");
    }
    ld_options lo = {.arch = cx.arch, .extra_flags = o->nvcc_flags, .cache_dir = o->cache_dir,
                     .rebuild = o->rebuild, .quiet = o->quiet};
    ld_status ls = ld_build_solution(&lo, o->solution, &cx.build);
    if (ls == LD_COMPILE_ERROR) {
        ld_print_log(&cx.build, stderr);
        fprintf(stderr, "harness: %s: %s\n", o->solution, cx.build.error);
        return HX_COMPILE;
    }
    if (ls != LD_OK) {
        fprintf(stderr, "harness: %s\n", cx.build.error);
        return HX_INTERNAL;
    }
    snprintf(cx.nvcc, sizeof(cx.nvcc), "%s", cx.build.nvcc);
    snprintf(cx.stem, sizeof(cx.stem), "%.*s", (int)(strlen(cx.build.so_path) - 3), cx.build.so_path);

    if (!in_load_ptx(&cx) && (rq->modes & IN_PTX)) return HX_INTERNAL;
    int code = HX_SUCCESS;
    if (rq->modes & IN_RESOURCES) code = in_run_resources(&cx);
    if ((rq->modes & IN_PTX) && code == HX_SUCCESS) {
        char ptx[PATH_MAX + 16];
        snprintf(ptx, sizeof(ptx), "%s.ptx", cx.stem);
        printf("PTX — %s for compute_%s (%s; static counts: instructions in the code)\n", o->solution,
               cx.arch + 3, ptx);
        in_print_mix(stdout, &cx.ptx, false);
    }
    if ((rq->modes & IN_SASS) && code == HX_SUCCESS) code = in_run_sass(&cx);
    if (rq->modes & IN_SANITIZE) code = in_run_sanitize(&cx, tool);
    if (rq->modes & IN_PROFILE) code = in_run_profile(&cx, tool);
    in_mix_free(&cx.ptx);
    return code;
}

/* ------------------------------------------------------------------------------------------ */
/* harness new                                                                                */

int in_new_stage(const char *dir, const char *name, const pb_problem *p, char *path, size_t len,
                 char *err, size_t errlen)
{
    size_t n = strlen(name);
    bool ok = n > 0 && n <= 48 && !isdigit((unsigned char)name[0]);
    for (size_t i = 0; ok && i < n; i++) ok = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ok) {
        snprintf(err, errlen, "'%s': a stage name is 1-48 letters, digits and '_', not starting with a "
                              "digit (the number is added)", name);
        return HX_USAGE;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open the folder %s: %s", dir, strerror(errno));
        return HX_BAD_FILE;
    }
    int last = 0;
    char clash[512] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        size_t digits = strspn(e->d_name, "0123456789");
        if (l < 4 || strcmp(e->d_name + l - 3, ".cu") != 0 || !digits || e->d_name[digits] != '_') continue;
        int num = atoi(e->d_name);
        if (num > last) last = num;
        /* the same name under another number would be a second copy of that stage */
        if (l - digits - 1 - 3 == n && strncmp(e->d_name + digits + 1, name, n) == 0)
            snprintf(clash, sizeof(clash), "%s", e->d_name);
    }
    closedir(d);
    if (clash[0]) {
        snprintf(err, errlen, "%s/%s already holds a stage named '%s': nothing written", dir, clash, name);
        return HX_USAGE;
    }
    int next = last + 1;
    snprintf(path, len, "%s/%02d_%s.cu", dir, next, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, errlen, errno == EEXIST ? "%s already exists: nothing written" : "cannot create %s: %s",
                 path, strerror(errno));
        return errno == EEXIST ? HX_USAGE : HX_BAD_FILE;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return HX_BAD_FILE;
    }
    char changed[64];
    if (last) snprintf(changed, sizeof(changed), "%02d", last);
    else snprintf(changed, sizeof(changed), "the starter");
    /* the header shape of solutions/STAGE_HEADER.md, to be filled in */
    int w = fprintf(f,
                    "// %02d_%s — TODO: the technique, in one line\n"
                    "//\n"
                    "// Changed from %s: TODO: what changed, and why it should be faster\n"
                    "// Prediction (before measuring): TODO: a number, and why\n"
                    "// Measured (H200, harness): pending\n"
                    "// Tiles: TODO: the compile-time parameters\n"
                    "// Targets: sm_75 sm_80 sm_90a\n"
                    "%s",
                    next, name, changed, p->starter);
    if (fclose(f) != 0 || w < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return HX_BAD_FILE;
    }
    return HX_SUCCESS;
}

int in_new_main(int argc, char **argv)
{
    static const struct option longs[] = {{"problem", required_argument, 0, 'p'},
                                          {"dir", required_argument, 0, 'd'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    const char *problem = "gemm_fp16", *dir = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p': problem = optarg; break;
        case 'd': dir = optarg; break;
        case 'h':
            printf("usage: harness new NAME [--problem P] [--dir DIR]\n"
                   "Writes the problem's starter, with the stage header to fill in, as the next-numbered\n"
                   "NN_NAME.cu in DIR (default solutions/, or solutions/P/ for problems other than\n"
                   "gemm_fp16), refuses to overwrite, and prints the path.\n");
            return HX_SUCCESS;
        default:
            fprintf(stderr, "harness new: %s: unknown option or missing argument (harness new --help)\n",
                    argv[optind - 1]);
            return HX_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "harness new: %s (usage: harness new NAME [--problem P] [--dir DIR])\n",
                optind >= argc ? "no stage name given" : "one stage name at a time");
        return HX_USAGE;
    }
    const pb_problem *p = pb_find(problem);
    if (!p) {
        fprintf(stderr, "harness new: unknown problem '%s'\n", problem);
        return HX_USAGE;
    }
    char dflt[PATH_MAX];
    if (!dir) {
        pb_stage_dir(p, dflt, sizeof(dflt));
        dir = dflt;
    }
    char path[PATH_MAX + 64], err[PATH_MAX + 256];
    int code = in_new_stage(dir, argv[optind], p, path, sizeof(path), err, sizeof(err));
    if (code == HX_SUCCESS) printf("%s\n", path);
    else fprintf(stderr, "harness new: %s\n", err);
    return code;
}
