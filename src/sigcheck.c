/* sigcheck.c — the compiler's answer about `solve` (sigcheck.h).
 *
 * The probe file, after the solution, in lines of its own (#line 1 "hx-probe-NONCE": a name the
 * solution cannot predict, so no diagnostic of its own can pass for the probe's):
 *   SHOW      an error that prints &::solve's type (when solve is not overloaded)
 *   SENTINEL  extern "C" void solve(hx_sig_tag *): compiles only when no extern "C" solve exists
 *   probes    extern "C" void solve(<a problem's types>), each const variant of its pointers too:
 *             one compiles exactly when it is the extern "C" solve's type (nvcc's front end
 *             reports every conflicting one and goes on; no type repeats, since a repeated
 *             conflicting declaration is not reported twice)
 *   CALL      a call no solve accepts: its notes list the declared overloads with file and line
 *   END       an error that must be reported, or the answer is incomplete
 * Measured (nvcc 13.0): the host front end (cudafe++) runs first and stops the pipeline on these
 * errors, so the check costs preprocessing and parsing only, never device code generation. */
#include "sigcheck.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include "xxhash.h"

#include "sig.h"

enum { SC_SHOW = 3, SC_SENTINEL = 5, SC_FIRST_PROBE = 6 };
/* Bump when how the answer is read changes: cached answers then no longer match. */
#define SC_VERSION "v2"
#define SC_VARIANTS (1 << PB_MAX_BUFS)

static const char *const sc_cxx_types[] = {"__half", "float", "signed char", "unsigned char", "double"};

/* Problem p's parameter list with the const of each pointer whose bit is set in flip toggled. */
static void sc_params(const pb_problem *p, unsigned flip, char *out, size_t len)
{
    size_t u = 0;
    int ptr = 0;
    out[0] = '\0';
    for (int i = 0; i < p->n_params && u < len; i++) {
        const pb_param *q = &p->params[i];
        const char *sep = i ? ", " : "";
        if (q->kind == PB_INT) {
            u += (size_t)snprintf(out + u, len - u, "%sint", sep);
        } else if (q->kind == PB_FLOAT) {
            u += (size_t)snprintf(out + u, len - u, "%sfloat", sep);
        } else {
            bool c = (q->role == PB_IN) != ((flip >> ptr++) & 1u);
            u += (size_t)snprintf(out + u, len - u, "%s%s%s*", sep, c ? "const " : "",
                                  sc_cxx_types[q->type]);
        }
    }
}

static int sc_pointers(const pb_problem *p)
{
    int n = 0;
    for (int i = 0; i < p->n_params; i++) n += p->params[i].kind == PB_PTR;
    return n;
}

/* Line of probe (problem pi, variant flip); the lines run in this order. */
static int sc_probe_line(size_t pi, unsigned flip)
{
    int line = SC_FIRST_PROBE;
    for (size_t i = 0; i < pi; i++) line += 1 << sc_pointers(pb_at(i));
    return line + (int)flip;
}

static int sc_call_line(void) { return sc_probe_line(pb_count(), 0); }

char *sc_probe_text(const char *wrapper, const char *scope, const char *name)
{
    /* in a namespace's scope each declaration reopens it on its own line, so lines stay put */
    const char *open = scope[0] ? "namespace " : "", *brace = scope[0] ? " { " : "";
    const char *close = scope[0] ? " }" : "";
    size_t cap = 4096 + pb_count() * SC_VARIANTS * (320 + 2 * strlen(scope)), u = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    u += (size_t)snprintf(t + u, cap - u,
                          "#include \"%s\"\n"
                          "#line 1 \"%s\"\n"
                          "struct hx_sig_tag;\n"
                          "template <class T> struct hx_sig_show;\n"
                          "hx_sig_show<decltype(&%s::solve)>::hx_type hx_sig_shown;\n"
                          "struct __half;\n"
                          "%s%s%sextern \"C\" void solve(hx_sig_tag *);%s\n",
                          wrapper, name, scope, open, scope, brace, close);
    for (size_t pi = 0; pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        for (unsigned flip = 0; flip < (1u << sc_pointers(p)); flip++) {
            char params[400];
            sc_params(p, flip, params, sizeof(params));
            u += (size_t)snprintf(t + u, cap - u, "%s%s%sextern \"C\" void solve(%s);%s\n", open,
                                  scope, brace, params, close);
        }
    }
    snprintf(t + u, cap - u,
             "using hx_sig_call = decltype(%s::solve((hx_sig_tag *)0, 0));\n"
             "hx_sig_show<int>::hx_type hx_sig_end;\n",
             scope);
    return t;
}

/* Whether line l is a diagnostic on the probe's line *num ("NAME(N): "); *rest after it. */
static bool sc_probe_diag(const char *l, const char *name, int *num, const char **rest)
{
    size_t n = strlen(name);
    if (strncmp(l, name, n) != 0 || l[n] != '(') return false;
    char *end;
    long v = strtol(l + n + 1, &end, 10);
    if (end == l + n + 1 || strncmp(end, "): ", 3) != 0 || v < 1 || v > 100000) return false;
    *num = (int)v;
    *rest = end + 3;
    return true;
}

/* An extern "C" solve declared in a namespace is not ::solve, and a global redeclaration of
 * another type only warns (EDG #338, naming it "NS::solve"): NS, to ask again in its scope. */
static bool sc_namespace_of(const char *log, const char *name, char *out, size_t len)
{
    for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        int num = 0;
        const char *rest;
        if (!sc_probe_diag(l, name, &num, &rest) || num != SC_SENTINEL ||
            strncmp(rest, "warning", 7) != 0)
            continue;
        const char *q = strstr(l, "function \"");
        const char *end = q ? strstr(q + 10, "::solve\"") : NULL;
        const char *eol = strchr(l, '\n');
        if (!end || (eol && end > eol)) return false;
        q += 10;
        size_t n = (size_t)(end - q);
        if (n == 0 || n + 1 > len) return false;
        for (size_t i = 0; i < n; i++) /* a name that can be reopened: no "<unnamed>" */
            if (!(isalnum((unsigned char)q[i]) || q[i] == '_' || q[i] == ':')) return false;
        snprintf(out, len, "%.*s", (int)n, q);
        return true;
    }
    return false;
}

/* "void solve(P)" normalized the way the messages write types ("const half*"). */
static void sc_normalize(const char *params, size_t n, char *out, size_t len)
{
    char decl[640];
    snprintf(decl, sizeof(decl), "void solve(%.*s);", (int)(n < 600 ? n : 600), params);
    sig_info s;
    sig_read(decl, strlen(decl), &s);
    snprintf(out, len, "%s", s.found ? s.text : decl);
}

/* nvcc's output, line by line, into a. */
static void sc_parse(const char *log, const char *name, const ch_source *src, const char *src_path,
                     sc_answer *a)
{
    int n_lines = sc_call_line() + 2;
    bool *err = calloc((size_t)n_lines + 1, sizeof(bool));
    if (!err) return;
    bool user_error = false, no_solve = false, candidate = false;
    const char *end_of_text = log + strlen(log);
    for (const char *l = log; l < end_of_text;) {
        size_t len = strcspn(l, "\n");
        char line[8192];
        snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), l);
        l += len + (l[len] == '\n');
        int num = 0;
        const char *rest;
        if (sc_probe_diag(line, name, &num, &rest)) {
            if (strncmp(rest, "error", 5) != 0 || num > n_lines) continue;
            err[num] = true;
            if (num != SC_SHOW) continue;
            if (strstr(line, "has no \"solve\"")) no_solve = true;
            const char *t = strstr(line, "hx_sig_show<void (*)(");
            const char *e = t ? strstr(t, ")>\"") : NULL;
            if (t && e) {
                t += strlen("hx_sig_show<void (*)(");
                sc_normalize(t, (size_t)(e - t), a->text, sizeof(a->text));
            }
            continue;
        }
        /* FILE(LINE): note ... function "solve(...)": a declared overload and where */
        const char *note = strstr(line, "): note");
        const char *fn = strstr(line, "of function \"solve(");
        if (note && fn && !candidate) {
            const char *paren = NULL; /* FILE(LINE)'s */
            for (const char *q = line; q < note; q++)
                if (*q == '(') paren = q;
            const char *params = fn + strlen("of function \"solve(");
            const char *close = strstr(params, ")\"");
            if (paren && close) {
                candidate = true;
                if (!a->text[0]) sc_normalize(params, (size_t)(close - params), a->text, sizeof(a->text));
                char file[PATH_MAX];
                snprintf(file, sizeof(file), "%.*s", (int)(paren - line), line);
                bool own = strcmp(file, src->included) == 0;
                snprintf(a->where, sizeof(a->where), "%s:%d", own ? src_path : file, atoi(paren + 1));
            }
            continue;
        }
        if (strstr(line, "errors detected in the compilation") ||
            strstr(line, "error detected in the compilation"))
            continue;
        if (strstr(line, "): error") || strstr(line, "): catastrophic error") ||
            strstr(line, ": fatal error") || strstr(line, ": error:") ||
            strncmp(line, "nvcc fatal", 10) == 0)
            user_error = true;
    }
    a->answered = err[sc_call_line() + 1] && !user_error;
    a->extern_c = err[SC_SENTINEL];
    a->declared = a->extern_c || candidate || (err[SC_SHOW] && !no_solve);
    for (size_t pi = 0; a->extern_c && pi < pb_count(); pi++) {
        const pb_problem *p = pb_at(pi);
        for (unsigned flip = 0; flip < (1u << sc_pointers(p)); flip++) {
            if (err[sc_probe_line(pi, flip)]) continue;
            if (flip == 0 && !a->exact) a->exact = p;
            if (flip != 0 && !a->consts) a->consts = p;
        }
    }
    free(err);
}

/* The cached answer: "key value" lines. */
static bool sc_save(const char *path, const sc_answer *a)
{
    char text[8192], what[sizeof(a->text)], where[sizeof(a->where)];
    snprintf(what, sizeof(what), "%s", a->text);
    snprintf(where, sizeof(where), "%s", a->where);
    for (char *c = what; *c; c++) if (*c == '\n' || *c == '\r') *c = '?';
    for (char *c = where; *c; c++) if (*c == '\n' || *c == '\r') *c = '?'; /* one line each */
    snprintf(text, sizeof(text), "hx-sig 1\nextern_c %d\ndeclared %d\nexact %s\nconsts %s\ntext %s\nwhere %s\n",
             a->extern_c, a->declared, a->exact ? a->exact->name : "-",
             a->consts ? a->consts->name : "-", what, where);
    return ch_write(path, text);
}

static bool sc_load(const char *path, sc_answer *a)
{
    char *text = ld_read_text(path, NULL);
    if (!text || strncmp(text, "hx-sig 1\n", 9) != 0) {
        free(text);
        return false;
    }
    bool ok = true;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = '\0';
        if (strcmp(line, "extern_c") == 0) a->extern_c = atoi(v) != 0;
        else if (strcmp(line, "declared") == 0) a->declared = atoi(v) != 0;
        else if (strcmp(line, "exact") == 0) a->exact = strcmp(v, "-") ? pb_find(v) : NULL;
        else if (strcmp(line, "consts") == 0) a->consts = strcmp(v, "-") ? pb_find(v) : NULL;
        else if (strcmp(line, "text") == 0) snprintf(a->text, sizeof(a->text), "%s", v);
        else if (strcmp(line, "where") == 0) snprintf(a->where, sizeof(a->where), "%s", v);
        if ((strcmp(line, "exact") == 0 || strcmp(line, "consts") == 0) && strcmp(v, "-") &&
            !pb_find(v))
            ok = false; /* a problem since renamed: ask again */
    }
    free(text);
    a->answered = ok;
    return ok;
}


static ld_status sc_launch(sc_job *j);

ld_status sc_start(const ld_options *o, const char *src_path, sc_answer *a, sc_job *j)
{
    memset(a, 0, sizeof(*a));
    memset(j, 0, sizeof(*j));
    j->a = a;
    j->slot = -1;
    snprintf(j->src_path, sizeof(j->src_path), "%s", src_path);
    ld_status status;
    char *probe = sc_probe_text("", "", "hx-probe");
    if (!probe) {
        snprintf(a->error, sizeof(a->error), "out of memory");
        return LD_IO_ERROR;
    }
    char tag[64];
    snprintf(tag, sizeof(tag), "signature " SC_VERSION " %016llx",
             (unsigned long long)XXH3_64bits(probe, strlen(probe)));
    free(probe);
    ld_prep *p = &j->p;
    if (!ld_prepare(o, src_path, tag, p, &status, a->error, sizeof(a->error))) return status;

    unsigned long long k0 = (unsigned long long)p->key0;
    snprintf(j->stem, sizeof(j->stem), "%s/%s", p->cache_dir, p->src.stem);
    snprintf(j->dfile, sizeof(j->dfile), "%s-%016llx.d", j->stem, k0);
    /* the probe is this process's own (its nonce): a temporary, compiled with -x cu */
    snprintf(j->probe, sizeof(j->probe), "%s-%016llx.sig.cu.tmp.%d", j->stem, k0, (int)getpid());
    snprintf(a->log_path, sizeof(a->log_path), "%s-%016llx.sig.log", j->stem, k0);
    uint64_t key;
    if (!o->rebuild && ch_deps_key(j->dfile, p->key0, &key)) {
        char answer[PATH_MAX + 160];
        snprintf(answer, sizeof(answer), "%s-%016llx.sig", j->stem, (unsigned long long)key);
        if (sc_load(answer, a)) {
            a->cached = true;
            return LD_OK;
        }
        memset(a, 0, sizeof(*a));
        snprintf(a->log_path, sizeof(a->log_path), "%s-%016llx.sig.log", j->stem, k0);
    }

    j->o = *o;
    unsigned nonce = 0;
    if (getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
        nonce = (unsigned)getpid() ^ (unsigned)(ch_now() * 1e9);
    snprintf(j->name, sizeof(j->name), "hx-probe-%08x", nonce);
    return sc_launch(j);
}

/* Write the probe for j->scope and start nvcc on it. */
static ld_status sc_launch(sc_job *j)
{
    sc_answer *a = j->a;
    ld_prep *p = &j->p;
    char *probe = sc_probe_text(p->src.wrapper, j->scope, j->name);
    if (!probe || !ch_write(j->probe, probe)) {
        free(probe);
        snprintf(a->error, sizeof(a->error), "cannot write %s: %s", j->probe, strerror(errno));
        return LD_IO_ERROR;
    }
    free(probe);
    int pid = (int)getpid();
    snprintf(j->dtmp, sizeof(j->dtmp), "%s.tmp.%d", j->dfile, pid);
    snprintf(j->logtmp, sizeof(j->logtmp), "%s.tmp.%d", a->log_path, pid);
    /* the front end only: -c into nothing; every conflicting probe reported, however many */
    const char *more[] = {"-c", "-Xcudafe", "--error_limit=100000", "-x", "cu", NULL};
    const char *argv[112];
    char *copy = NULL;
    ld_argv(p, &j->o, true, j->dtmp, more, "/dev/null", j->probe, argv, 112, &copy);
    ch_sweep(p->cache_dir);
    int log = open(j->logtmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) {
        free(copy);
        snprintf(a->error, sizeof(a->error), "cannot write %s: %s", j->logtmp, strerror(errno));
        return LD_IO_ERROR;
    }
    j->t0 = ch_now();
    const char *tmps[CH_TMPS] = {j->dtmp, j->logtmp, j->probe};
    j->pid = ch_spawn((char *const *)argv, log, tmps, &j->slot);
    close(log);
    free(copy);
    if (j->pid < 0) {
        j->pid = 0;
        unlink(j->logtmp);
        unlink(j->probe);
        snprintf(a->error, sizeof(a->error), "cannot run nvcc: %s", strerror(errno));
        return LD_IO_ERROR;
    }
    return LD_OK;
}

static ld_status sc_settle(sc_job *j, bool waited);
ld_status sc_finish(sc_job *j)
{
    sc_answer *a = j->a;
    if (j->pid <= 0) return LD_OK; /* cached, or never started */
    int ws = 0;
    int w = ch_wait(j->pid, &ws, j->t0 + ch_compile_limit());
    j->pid = 0;
    ch_reaped(j->slot);
    a->seconds = ch_now() - j->t0;
    if (w == 0) { /* killed: what it read is not an answer */
        unlink(j->probe);
        unlink(j->logtmp);
        unlink(j->dtmp);
        ch_release(j->slot);
        j->slot = -1;
        snprintf(a->error, sizeof(a->error), "nvcc did not finish reading the file within %.0f s "
                 "(killed): does it #include something that never ends, such as a FIFO or a "
                 "device?", ch_compile_limit());
        return LD_COMPILE_ERROR;
    }
    ld_status st = sc_settle(j, w == 1);
    ch_release(j->slot); /* its temporaries are moved or removed */
    j->slot = -1;
    return st;
}

static ld_status sc_settle(sc_job *j, bool waited)
{
    sc_answer *a = j->a;
    /* gone before the key is taken: the dependency list names it, and a later lookup finds it
     * missing too */
    unlink(j->probe);
    /* read before it is renamed: a parallel run's log may take the name (another nonce) */
    char *out = waited ? ld_read_text(j->logtmp, NULL) : NULL;
    if (!out || rename(j->logtmp, a->log_path) != 0) {
        free(out);
        unlink(j->logtmp);
        unlink(j->dtmp);
        snprintf(a->error, sizeof(a->error), "cannot run nvcc: %s", strerror(errno));
        return LD_IO_ERROR;
    }
    sc_parse(out, j->name, &j->p.src, j->src_path, a);
    char scope[256];
    bool retry = !j->scope[0] && !a->extern_c && sc_namespace_of(out, j->name, scope, sizeof(scope));
    free(out);
    if (retry) { /* once, in the namespace that holds the extern "C" solve */
        unlink(j->dtmp);
        double spent = a->seconds;
        char log_path[sizeof(a->log_path)];
        snprintf(log_path, sizeof(log_path), "%s", a->log_path);
        memset(a, 0, sizeof(*a));
        snprintf(a->log_path, sizeof(a->log_path), "%s", log_path);
        snprintf(j->scope, sizeof(j->scope), "%s", scope);
        ch_release(j->slot);
        j->slot = -1;
        ld_status st = sc_launch(j);
        if (st != LD_OK) return st;
        st = sc_finish(j);
        a->seconds += spent;
        return st;
    }
    if (!a->answered) {
        unlink(j->dtmp);
        snprintf(a->error, sizeof(a->error),
                 "nvcc could not read solve's signature (its output: %s)", a->log_path);
        return LD_OK;
    }
    /* cached under the key of every file the front end read, like an object */
    uint64_t key;
    if (ch_deps_key(j->dtmp, j->p.key0, &key)) {
        char answer[PATH_MAX + 160];
        snprintf(answer, sizeof(answer), "%s-%016llx.sig", j->stem, (unsigned long long)key);
        if (sc_save(answer, a) && rename(j->dtmp, j->dfile) == 0) return LD_OK;
    }
    unlink(j->dtmp);
    return LD_OK;
}

void sc_cancel(sc_job *j)
{
    if (j->pid <= 0) return;
    kill(-j->pid, SIGKILL);
    waitpid(j->pid, NULL, 0);
    j->pid = 0;
    unlink(j->dtmp);
    unlink(j->logtmp);
    ch_release(j->slot);
}

ld_status sc_check(const ld_options *o, const char *src_path, sc_answer *a)
{
    sc_job *j = malloc(sizeof(*j));
    if (!j) {
        memset(a, 0, sizeof(*a));
        snprintf(a->error, sizeof(a->error), "out of memory");
        return LD_IO_ERROR;
    }
    ld_status s = sc_start(o, src_path, a, j);
    if (s == LD_OK) s = sc_finish(j);
    free(j);
    return s;
}
