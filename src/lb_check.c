/* lb_check.c — harness leaderboard --check: which sections of leaderboard.md still describe the
 * stages as they are, with no GPU and no build.
 *
 * Each section names the commit its stages were measured at. git says whether each stage the
 * section lists changed since; when one did, the host compiler's preprocessor in -fpreprocessed
 * mode (comments removed, nothing included or expanded, so a stage's text is never run or
 * followed) says whether the change touched code or only comments. A section is current when
 * every stage it lists is unchanged or changed in comments only, and it lists every stage it
 * should: all of the folder's for the stages section, those its command's --stages picks (or the
 * default pick) for the shapes and random-shapes sections. Anything the check cannot establish
 * (a commit git does not know, a run from a tree with uncommitted changes) is not current.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "lb_int.h"
#include "loader.h"
#include "report.h"

#define LC_MAX_STAGES 64
#define LC_MAX_SECTIONS 64
#define LC_MAX_SOURCE (8u << 20) /* a stage is at most 4 MiB (the judge's limit): room to spare */

typedef enum { LC_SAME, LC_COMMENTS, LC_CHANGED, LC_REMOVED, LC_UNKNOWN } lc_state;
static const char *const lc_state_name[] = {"unchanged", "comments-only", "code-changed", "removed",
                                            "unknown"};

typedef struct {
    char stem[128];
    lc_state state;
} lc_stage;

typedef struct {
    char name[96];            /* the marker's name: P, P-shapes or P-random */
    const char *kind;         /* stages, shapes, random */
    const pb_problem *p;
    char commit[48], date[16];
    char why[192];            /* why nothing can be said of its stages ("" when something can) */
    char cmd[256];            /* the command that regenerates it ("" when the section names none) */
    const char *note, *note_end; /* its header line's measured note (lb_measured_note), or NULL */
    lc_stage st[LC_MAX_STAGES];
    int n;
    char missing[LC_MAX_STAGES][128]; /* stages the section should list and does not */
    bool added[LC_MAX_STAGES];        /* ... because the file is newer than the section's commit */
    int n_missing;
    bool current;
} lc_section;

/* Whether s is a stage's stem as the leaderboard writes it: digits, '_', then a name. */
static bool lc_is_stem(const char *s, size_t n)
{
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9') d++;
    if (!d || d + 1 >= n || s[d] != '_' || n >= 120) return false;
    for (size_t i = d; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", s[i])) return false;
    return true;
}

/* The stage stems a section's tables name, in order, once each: the first word of any cell that
 * is a stem ("| 12_best |", "| 09_mma_ldmatrix ms |"). False when there are more than fit. */
static bool lc_section_stems(const char *b, const char *e, lc_section *s)
{
    for (const char *line = b; line < e;) {
        const char *eol = memchr(line, '\n', (size_t)(e - line));
        if (!eol) eol = e;
        for (const char *c = line; *line == '|' && c < eol;) {
            c++;
            while (c < eol && *c == ' ') c++;
            size_t w = strcspn(c, " |\n");
            if (c + w > eol) w = (size_t)(eol - c);
            bool seen = false;
            for (int i = 0; i < s->n; i++) seen |= strlen(s->st[i].stem) == w && !strncmp(s->st[i].stem, c, w);
            if (lc_is_stem(c, w) && !seen) {
                if (s->n == LC_MAX_STAGES) return false;
                snprintf(s->st[s->n++].stem, sizeof(s->st[0].stem), "%.*s", (int)w, c);
            }
            const char *bar = memchr(c, '|', (size_t)(eol - c));
            c = bar ? bar : eol;
        }
        line = eol + 1;
    }
    return true;
}

/* The section's header: "... · 2026-12-03 · solutions at commit 646237b[ (... modified since)]". */
static void lc_section_header(const char *b, const char *e, lc_section *s)
{
    const char *key = "solutions at commit ";
    const char *at = strstr(b, key);
    if (!at || at >= e) {
        snprintf(s->why, sizeof(s->why), "names no commit");
        return;
    }
    const char *h = at + strlen(key);
    size_t n = strspn(h, "0123456789abcdef");
    const char *eol = strchr(h, '\n');
    if (n < 7 || n > 40 || (h[n] != '\n' && h[n] != ' ')) {
        snprintf(s->why, sizeof(s->why), "names no commit git could know ('%.*s')",
                 (int)(eol && eol - h < 40 ? eol - h : 40), h);
        return;
    }
    snprintf(s->commit, sizeof(s->commit), "%.*s", (int)n, h);
    const char *line_end = eol && eol < e ? eol : e;
    s->note = line_end > h + n ? memmem(h + n, (size_t)(line_end - h - (ptrdiff_t)n), "<!-- measured:", 14) : NULL;
    s->note_end = line_end;
    if (h[n] == ' ' && eol && memmem(h + n, (size_t)(eol - h - (ptrdiff_t)n), "modified since", 14))
        snprintf(s->why, sizeof(s->why), "measured from a tree with uncommitted changes to its stages");
    const char *ls = at;
    while (ls > b && ls[-1] != '\n') ls--;
    for (const char *q = ls; q + 10 <= at; q++) /* the date: the line's YYYY-MM-DD */
        if (strspn(q, "0123456789") == 4 && q[4] == '-' && strspn(q + 5, "0123456789") == 2 && q[7] == '-' &&
            strspn(q + 8, "0123456789") == 2) {
            snprintf(s->date, sizeof(s->date), "%.10s", q);
            break;
        }
}

/* The --stages LIST of the section's command (lc_section_command's), or NULL for the default
 * pick. */
static const char *lc_section_pick(const char *cmd, char *out, size_t len)
{
    const char *o = strstr(cmd, " --stages");
    if (!o) return NULL;
    o += 9;
    if (*o == '=' || *o == ' ') o++;
    size_t n = strcspn(o, " ");
    if (!n || n >= len) return NULL;
    snprintf(out, len, "%.*s", (int)n, o);
    return out;
}

/* The command a section says regenerates it ("Regenerated by `./harness leaderboard ...`"), when it
 * is one: only the characters such a command has, so that nothing else of the file is echoed. */
static void lc_section_command(const char *b, const char *e, char *out, size_t len)
{
    out[0] = '\0';
    const char *cmd = strstr(b, "Regenerated by `");
    if (!cmd || cmd >= e) return;
    cmd += 16;
    size_t n = strspn(cmd, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,=/");
    if (cmd[n] != '`' || n >= len || strncmp(cmd, "./harness leaderboard ", 22) != 0) return;
    snprintf(out, len, "%.*s", (int)n, cmd);
}

/* argv run in the stage folder through git (no shell): its exit code; output into out. */
static int lc_git(const char *dir, const char *const *args, char *out, size_t len)
{
    char *argv[12] = {"git", "-C", (char *)dir};
    int i = 3;
    for (; *args && i < 11; args++) argv[i++] = (char *)*args;
    argv[i] = NULL;
    return ld_run_capture(argv, true, out, len);
}

/* A stage's code: its text with comments removed by the host compiler's preprocessor (no
 * include opened, no macro expanded), blank lines and trailing blanks dropped. malloc'd, or NULL
 * when no host compiler reads it. */
static char *lc_code(const char *path)
{
    char *raw = malloc(LC_MAX_SOURCE);
    if (!raw) return NULL;
    int rc = -1;
    static const char *const cxx[] = {"c++", "g++"};
    for (size_t i = 0; i < 2 && rc != 0; i++) {
        char *argv[] = {(char *)cxx[i], "-fpreprocessed", "-dD", "-E", "-P", "-w", "-x", "c++", (char *)path, NULL};
        rc = ld_run_capture(argv, true, raw, LC_MAX_SOURCE);
    }
    if (rc != 0 || strlen(raw) + 1 >= LC_MAX_SOURCE) {
        free(raw);
        return NULL;
    }
    char *w = raw;
    for (char *line = raw; *line;) { /* squeeze in place: the text only shrinks */
        size_t n = strcspn(line, "\n");
        char *next = line + n + (line[n] == '\n');
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r')) n--;
        if (n) {
            memmove(w, line, n);
            w += n;
            *w++ = '\n';
        }
        line = next;
    }
    *w = '\0';
    return raw;
}

/* The stage's text at the commit (git show, whole), to free; NULL where git has no such file, the
 * text does not fit LC_MAX_SOURCE, or memory runs out. */
static char *lc_show(const char *dir, const char *commit, const char *stem)
{
    char rev[256];
    snprintf(rev, sizeof(rev), "%s:./%s.cu", commit, stem);
    const char *show[] = {"show", rev, NULL};
    char *old = malloc(LC_MAX_SOURCE);
    if (old && (lc_git(dir, show, old, LC_MAX_SOURCE) != 0 || strlen(old) + 1 >= LC_MAX_SOURCE)) {
        free(old);
        old = NULL;
    }
    return old;
}

/* Whether the stage's text at the commit and now differ in comments only (true), or in code, or
 * the check cannot tell (false). */
static bool lc_comments_only(const char *dir, const char *commit, const char *stem)
{
    char tmp[] = "/tmp/harness-check-XXXXXX", path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.cu", dir, stem);
    char *old = lc_show(dir, commit, stem);
    bool ok = old != NULL;
    int fd = ok ? mkstemp(tmp) : -1;
    if (fd >= 0) {
        size_t n = strlen(old), off = 0;
        ssize_t r = 1;
        while (off < n && (r = write(fd, old + off, n - off)) > 0) off += (size_t)r;
        ok = close(fd) == 0 && off == n;
    }
    free(old);
    char *then = fd >= 0 && ok ? lc_code(tmp) : NULL, *now = then ? lc_code(path) : NULL;
    if (fd >= 0) unlink(tmp);
    bool same = then && now && strcmp(then, now) == 0;
    free(then);
    free(now);
    return same;
}

/* The section's measured note (lb_measured_note), where it has one: each stage file it names
 * against that file at the commit the section names. A file the run read that is not the
 * commit's means the label was given for another tree (a change staged but not committed, say):
 * s->why says so. A section written before the notes keeps the other checks alone. */
static void lc_measured(const char *dir, lc_section *s)
{
    const char *note = s->note, *eol = s->note_end;
    if (!note) return;
    for (int i = 0; i < s->n && !s->why[0]; i++) {
        const char *stem = s->st[i].stem;
        char want[160], hex[17];
        snprintf(want, sizeof(want), " %s.cu=", stem);
        const char *d = memmem(note, (size_t)(eol - note), want, strlen(want));
        if (!d) continue; /* not named: the other checks alone */
        d += strlen(want);
        if (eol - d < 16 || strspn(d, "0123456789abcdef") != 16) {
            snprintf(s->why, sizeof(s->why), "its measured note's digest of %s.cu is not 16 hex digits", stem);
            break;
        }
        snprintf(hex, sizeof(hex), "%.16s", d);
        char *old = lc_show(dir, s->commit, stem);
        if (!old)
            snprintf(s->why, sizeof(s->why), "%s.cu was measured but commit %s has no such file (or git "
                     "could not give it whole)", stem, s->commit);
        else if (ch_digest(old, strlen(old)) != strtoull(hex, NULL, 16))
            snprintf(s->why, sizeof(s->why),
                     "%s.cu as measured is not commit %s's: the run's tree was not the commit it names", stem,
                     s->commit);
        free(old);
    }
}

/* One section's verdict: each stage it lists against the folder, then what it should list. */
static void lc_judge(lc_section *s, const char *b, const char *e)
{
    char base[96];
    snprintf(base, sizeof(base), "%s", s->name);
    size_t bl = strlen(base);
    s->kind = "stages";
    if (bl > 7 && !strcmp(base + bl - 7, "-shapes")) s->kind = "shapes", base[bl - 7] = '\0';
    if (bl > 7 && !strcmp(base + bl - 7, "-random")) s->kind = "random", base[bl - 7] = '\0';
    s->p = pb_find(base);
    if (!s->p) {
        snprintf(s->why, sizeof(s->why), "no problem named '%s' in this harness", base);
        return;
    }
    lc_section_header(b, e, s);
    lc_section_command(b, e, s->cmd, sizeof(s->cmd));
    if (!lc_section_stems(b, e, s)) snprintf(s->why, sizeof(s->why), "lists more than %d stages", LC_MAX_STAGES);
    char dir[PATH_MAX], out[256];
    pb_stage_dir(s->p, dir, sizeof(dir));
    struct stat db;
    if (!s->why[0] && (stat(dir, &db) != 0 || !S_ISDIR(db.st_mode)))
        snprintf(s->why, sizeof(s->why), "no folder %s here (the check runs where the leaderboard ran)", dir);
    if (!s->why[0]) {
        char rev[64];
        snprintf(rev, sizeof(rev), "%s^{commit}", s->commit);
        const char *known[] = {"cat-file", "-e", rev, NULL};
        if (lc_git(dir, known, out, sizeof(out)) != 0)
            snprintf(s->why, sizeof(s->why), "commit %s is not in %s's repository", s->commit, dir);
    }
    if (!s->why[0]) lc_measured(dir, s);
    for (int i = 0; i < s->n; i++) {
        lc_stage *t = &s->st[i];
        char path[PATH_MAX], file[160];
        snprintf(file, sizeof(file), "%s.cu", t->stem);
        snprintf(path, sizeof(path), "%s/%s", dir, file);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            t->state = LC_REMOVED;
            continue;
        }
        if (s->why[0]) {
            t->state = LC_UNKNOWN;
            continue;
        }
        const char *diff[] = {"diff", "--quiet", s->commit, "--", file, NULL};
        int rc = lc_git(dir, diff, out, sizeof(out));
        t->state = rc == 0 ? LC_SAME
                   : rc != 1 ? LC_UNKNOWN
                   : lc_comments_only(dir, s->commit, t->stem) ? LC_COMMENTS : LC_CHANGED;
    }
    lb_stage *found;
    int n_found = lb_find_stages(dir, &found), picked[LC_MAX_STAGES], n_picked = 0;
    if (n_found > 0 && n_found <= LC_MAX_STAGES) {
        char list[256];
        if (!strcmp(s->kind, "stages"))
            for (int i = 0; i < n_found; i++) picked[n_picked++] = i;
        else
            (void)lb_sweep_pick(s->p, found, n_found, lc_section_pick(s->cmd, list, sizeof(list)), picked,
                                &n_picked, true); /* a prefix gone: that stage is "removed" above */
    }
    for (int i = 0; i < (n_found <= LC_MAX_STAGES ? n_found : 0); i++) {
        bool listed = false, pick = false;
        for (int k = 0; k < s->n; k++) listed |= !strcmp(s->st[k].stem, found[i].stem);
        for (int k = 0; k < n_picked; k++) pick |= picked[k] == i;
        bool added = false; /* a stage newer than the section: a sweep's --stages could not name it */
        if (!listed && !pick && !s->why[0]) {
            char rev[256];
            snprintf(rev, sizeof(rev), "%s:./%s.cu", s->commit, found[i].stem);
            const char *had[] = {"cat-file", "-e", rev, NULL};
            added = lc_git(dir, had, out, sizeof(out)) != 0;
        }
        if (listed || !(pick || added)) continue;
        s->added[s->n_missing] = added;
        snprintf(s->missing[s->n_missing++], sizeof(s->missing[0]), "%s", found[i].stem);
    }
    free(found);
    char *st = strstr(s->cmd, " --stages ");
    for (int i = 0; st && i < s->n_missing; i++) { /* the command then names the newer stages too */
        if (!s->added[i]) continue;
        char *v = st + 10, tail[256];
        size_t at = (size_t)(v - s->cmd) + strcspn(v, " ");
        snprintf(tail, sizeof(tail), "%s", s->cmd + at);
        if (at + 1 + strlen(s->missing[i]) + strlen(tail) < sizeof(s->cmd))
            snprintf(s->cmd + at, sizeof(s->cmd) - at, ",%s%s", s->missing[i], tail);
    }
    s->current = !s->why[0] && s->n > 0 && !s->n_missing;
    for (int i = 0; i < s->n; i++) s->current &= s->st[i].state <= LC_COMMENTS;
}

/* Append to out (its length so far in *n; a full out drops the rest). */
static void lc_add(char *out, size_t len, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *n, len - *n, fmt, ap);
    va_end(ap);
    if (w > 0) *n = *n + (size_t)w < len ? *n + (size_t)w : len - 1;
}

/* "12_best's code changed; 03_exact not measured" into out. */
static void lc_reasons(const lc_section *s, char *out, size_t len)
{
    out[0] = '\0';
    size_t n = 0;
    if (s->why[0]) lc_add(out, len, &n, "%s", s->why);
    else if (!s->n) lc_add(out, len, &n, "lists no stage");
    for (int i = 0; i < s->n; i++) {
        if (s->st[i].state == LC_CHANGED) lc_add(out, len, &n, "%s%s's code changed", n ? "; " : "", s->st[i].stem);
        if (s->st[i].state == LC_REMOVED) lc_add(out, len, &n, "%s%s removed", n ? "; " : "", s->st[i].stem);
    }
    for (int i = 0; i < s->n_missing; i++)
        lc_add(out, len, &n, "%s%s %s", n ? "; " : "", s->missing[i], s->added[i] ? "added since" : "not measured");
    int c = 0;
    for (int i = 0; s->current && i < s->n; i++) c += s->st[i].state == LC_COMMENTS;
    if (c) lc_add(out, len, &n, "%d stage%s changed in comments only", c, c == 1 ? "" : "s");
}

static void lc_json(FILE *j, const char *file, const lc_section *sec, int n, int n_current, int code,
                    const char *error)
{
    fputs("{\"file\":", j);
    rp_json_string(j, file);
    fputs(",\"sections\":[", j);
    for (int k = 0; k < n; k++) {
        const lc_section *s = &sec[k];
        char why[1024];
        lc_reasons(s, why, sizeof(why));
        fprintf(j, "%s{\"section\":", k ? "," : "");
        rp_json_string(j, s->name);
        fprintf(j, ",\"kind\":\"%s\",\"commit\":", s->kind);
        if (s->commit[0]) rp_json_string(j, s->commit);
        else fputs("null", j);
        fputs(",\"date\":", j);
        if (s->date[0]) rp_json_string(j, s->date);
        else fputs("null", j);
        fprintf(j, ",\"current\":%s,\"why\":", s->current ? "true" : "false");
        rp_json_string(j, why);
        fputs(",\"command\":", j);
        if (s->cmd[0]) rp_json_string(j, s->cmd);
        else fputs("null", j);
        fputs(",\"stages\":[", j);
        for (int i = 0; i < s->n; i++) {
            fprintf(j, "%s{\"stage\":", i ? "," : "");
            rp_json_string(j, s->st[i].stem);
            fprintf(j, ",\"state\":\"%s\"}", lc_state_name[s->st[i].state]);
        }
        for (int pass = 0; pass < 2; pass++) { /* the stages it should list: picked, then newer */
            fputs(pass ? "],\"added_since\":[" : "],\"not_measured\":[", j);
            for (int i = 0, w = 0; i < s->n_missing; i++) {
                if (s->added[i] != (pass == 1)) continue;
                if (w++) fputc(',', j);
                rp_json_string(j, s->missing[i]);
            }
        }
        fputs("]}", j);
    }
    /* as the main command's JSON: error null when the exit is the verdict */
    fprintf(j, "],\"n_sections\":%d,\"n_current\":%d,\"exit_code\":%d,\"error\":", n, n_current, code);
    if (error) rp_json_string(j, error);
    else fputs("null", j);
    fputs("}\n", j);
}

void lb_check_json_error(FILE *j, const char *file, int code, const char *error)
{
    lc_json(j, file, NULL, 0, 0, code, error);
}

/* The human verdict: a row per section, then the commands that regenerate the stale ones. */
static void lc_table(FILE *h, const char *path, const lc_section *sec, int n, int n_current)
{
    fprintf(h, "%s: %d section%s, %d current, %d stale (measured before a change to their stages, or "
               "not checkable)\n\n%-28s %-12s %-10s %6s  %s\n",
            path, n, n == 1 ? "" : "s", n_current, n - n_current, "section", "commit", "date", "stages", "state");
    for (int k = 0; k < n; k++) {
        char why[1024];
        lc_reasons(&sec[k], why, sizeof(why));
        fprintf(h, "%-28s %-12s %-10s %6d  %s%s%s%s\n", sec[k].name, sec[k].commit[0] ? sec[k].commit : "-",
                sec[k].date[0] ? sec[k].date : "-", sec[k].n, sec[k].current ? "current" : "stale",
                why[0] ? " (" : "", why, why[0] ? ")" : "");
    }
    bool said = false; /* the commands that regenerate the stale sections, once each */
    for (int k = 0; k < n; k++) {
        bool dup = sec[k].current || !sec[k].cmd[0];
        for (int i = 0; !dup && i < k; i++) dup = !sec[i].current && !strcmp(sec[i].cmd, sec[k].cmd);
        if (dup) continue;
        if (!said) fprintf(h, "\nto regenerate the stale sections (a GPU run each):\n");
        said = true;
        fprintf(h, "  %s\n", sec[k].cmd);
    }
}

/* The sections of text, in order, judged (only only's, when not NULL): their count, or -1 with
 * why (markers that are not one begin before one end, by the writer's own rule; too many
 * sections). *n_all: how many sections the file has, whatever only says. */
static int lc_sections(const char *path, const char *text, const char *only, lc_section *sec, int *n_all,
                       char *why, size_t why_len)
{
    static const char open[] = "<!-- leaderboard:", begin[] = ":begin -->", end[] = ":end -->";
    int n = 0;
    *n_all = 0;
    for (const char *m = text; (m = strstr(m, open)); m++) {
        const char *nm = m + strlen(open);
        size_t w = strspn(nm, "abcdefghijklmnopqrstuvwxyz0123456789_-");
        bool is_begin = !strncmp(nm + w, begin, strlen(begin)), is_end = !strncmp(nm + w, end, strlen(end));
        if (w == 0 || w >= sizeof(sec[0].name) || !(is_begin || is_end)) continue;
        char name[sizeof(sec[0].name)], bm[160], em[160];
        snprintf(name, sizeof(name), "%.*s", (int)w, nm);
        snprintf(bm, sizeof(bm), "%s%s%s", open, name, begin);
        snprintf(em, sizeof(em), "%s%s%s", open, name, end);
        const char *fb = strstr(text, bm), *fe = strstr(text, em);
        if ((fb && fb < m) || (fe && fe < m)) continue; /* each name once, at its first marker */
        /* a stray end counts too: what the writer would refuse to splice, the check refuses */
        const char *b, *e;
        if (lb_section_bounds(text, name, &b, &e) != 1) {
            snprintf(why, why_len, "%s: the markers of section %s are not one begin before one end", path, name);
            return -1;
        }
        (*n_all)++;
        lc_section s = {0};
        snprintf(s.name, sizeof(s.name), "%s", name);
        size_t ol = only ? strlen(only) : 0;
        if (only && !(strncmp(s.name, only, ol) == 0 &&
                      (!s.name[ol] || !strcmp(s.name + ol, "-shapes") || !strcmp(s.name + ol, "-random"))))
            continue;
        if (n == LC_MAX_SECTIONS) {
            snprintf(why, why_len, "%s: more than %d sections", path, LC_MAX_SECTIONS);
            return -1;
        }
        sec[n] = s;
        lc_judge(&sec[n++], b + strlen(bm), e);
    }
    return n;
}

int lb_check(const char *path, const char *only, const char *json_path, bool quiet)
{
    char out[256], error[PATH_MAX + 160] = "";
    int n = 0, n_all = 0, code = HX_SUCCESS;
    lc_section *sec = NULL;
    char *ver[] = {"git", "--version", NULL};
    size_t len = 0;
    char *text = NULL;
    if (ld_run_capture(ver, true, out, sizeof(out)) != 0) {
        snprintf(error, sizeof(error), "--check asks git what changed since each section's commit: git not found");
        code = HX_INTERNAL;
    } else if (!(text = ld_read_text(path, &len)) || memchr(text, '\0', len)) {
        snprintf(error, sizeof(error), "%s cannot be read as a text file%s%s", path, text ? "" : ": ",
                 text ? "" : strerror(errno ? errno : EINVAL));
        code = HX_BAD_FILE;
    } else if (!(sec = calloc(LC_MAX_SECTIONS, sizeof(*sec)))) {
        snprintf(error, sizeof(error), "out of memory");
        code = HX_INTERNAL;
    } else if ((n = lc_sections(path, text, only, sec, &n_all, error, sizeof(error))) < 0) {
        code = HX_BAD_FILE;
    } else if (n_all == 0) {
        snprintf(error, sizeof(error), "%s has no section (no <!-- leaderboard:...:begin --> marker)", path);
        code = HX_BAD_FILE;
    }
    free(text);
    if (code != HX_SUCCESS) {
        fprintf(stderr, "harness leaderboard: %s\n", error);
        lb_json js;
        if (json_path && lb_json_open(&js, json_path)) {
            lb_check_json_error(js.f, path, code, error);
            (void)lb_json_close(&js);
        }
        free(sec);
        return code;
    }
    for (size_t i = 0; i < pb_count() && n < LC_MAX_SECTIONS; i++) { /* a problem with no section */
        const pb_problem *p = pb_at(i);
        bool has = false;
        for (int k = 0; k < n; k++) has |= !strcmp(sec[k].name, p->name);
        if (has || (only && strcmp(only, p->name))) continue;
        lc_section *s = &sec[n++];
        snprintf(s->name, sizeof(s->name), "%s", p->name);
        s->kind = "stages";
        s->p = p;
        snprintf(s->why, sizeof(s->why), "no section");
        snprintf(s->cmd, sizeof(s->cmd), "./harness leaderboard --problem %s", p->name);
    }
    int n_current = 0;
    for (int k = 0; k < n; k++) n_current += sec[k].current;
    code = n_current == n ? HX_SUCCESS : HX_FAILED;
    /* -q: the exit code alone; --json -: stdout holds the JSON only, the table goes to stderr */
    FILE *h = quiet ? NULL : json_path && !strcmp(json_path, "-") ? stderr : stdout;
    if (h) lc_table(h, path, sec, n, n_current);
    lb_json js;
    if (json_path && !lb_json_open(&js, json_path)) code = HX_INTERNAL;
    else if (json_path) {
        lc_json(js.f, path, sec, n, n_current, code, NULL);
        if (lb_json_close(&js) != HX_SUCCESS) code = HX_INTERNAL;
    }
    free(sec);
    return code;
}
