/* ncu_csv.c — the Nsight Compute parser: `ncu --csv` raw-page output (one row per kernel and
 * metric) → in_profile, and a metric's lookup. */
#include "inspect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

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
            p->headers = 1;
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
        if (in_col(f, n, "Metric Name") >= 0) { /* a second header: which rows are ncu's is unknown */
            int headers = p->headers + 1;
            in_profile_free(p);
            p->headers = headers;
            return false;
        }
        if (n < nh || c_value < 0) continue;
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
