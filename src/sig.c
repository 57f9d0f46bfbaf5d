/* sig.c — a small tokenizer that finds `solve(` at file scope and normalizes its parameter types.
 *
 * Not a C++ parser: it strips comments and preprocessor lines, tracks braces (remembering which
 * ones open `extern "C"` blocks or namespaces), and reads the first file-scope `solve(`. Types
 * are normalized so that `__half` = `half`, `half const *` = `const half*`, parameter names,
 * `__restrict__` and top-level const are dropped.
 */
#include "sig.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    const char *s;
    int len;
    int line;
} sig_tok;

/* Copy src with comments and preprocessor lines turned to spaces (newlines kept). */
static char *sig_strip(const char *src, size_t len)
{
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t i = 0;
    bool line_start = true;
    while (i < len) {
        char c = src[i];
        if (c == '/' && i + 1 < len && src[i + 1] == '/') {
            while (i < len && src[i] != '\n') out[i++] = ' ';
            continue;
        }
        if (c == '/' && i + 1 < len && src[i + 1] == '*') {
            out[i] = out[i + 1] = ' ';
            i += 2;
            while (i < len && !(src[i] == '*' && i + 1 < len && src[i + 1] == '/')) {
                out[i] = src[i] == '\n' ? '\n' : ' ';
                i++;
            }
            if (i < len) out[i++] = ' ';
            if (i < len) out[i++] = ' ';
            continue;
        }
        if (line_start && c == '#') { /* a directive, with its continuation lines */
            while (i < len && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n') {
                    out[i++] = ' ';
                    out[i] = '\n';
                    i++;
                    continue;
                }
                out[i++] = ' ';
            }
            continue;
        }
        if (c == '"' || c == '\'') { /* keep literals whole so braces inside them don't count */
            char q = c;
            out[i] = src[i];
            i++;
            while (i < len && src[i] != q && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < len) {
                    out[i] = src[i];
                    i++;
                }
                out[i] = src[i];
                i++;
            }
            if (i < len) {
                out[i] = src[i];
                i++;
            }
            line_start = false;
            continue;
        }
        out[i] = c;
        if (c == '\n')
            line_start = true;
        else if (!isspace((unsigned char)c))
            line_start = false;
        i++;
    }
    out[len] = '\0';
    return out;
}

/* Tokens of s into a growing array (*out; NULL and -1 when out of memory): a solution of any
 * length is read to its end (a fixed cap once hid the solve of a 50 KB stage). */
static int sig_tokenize(const char *s, size_t len, sig_tok **out)
{
    int n = 0, line = 1, cap = 4096;
    size_t i = 0;
    sig_tok *toks = malloc(sizeof(sig_tok) * (size_t)cap);
    *out = NULL;
    if (!toks) return -1;
    while (i < len) {
        if (n == cap) {
            sig_tok *grown = cap < INT_MAX / 2 ? realloc(toks, sizeof(sig_tok) * (size_t)cap * 2) : NULL;
            if (!grown) {
                free(toks);
                return -1;
            }
            toks = grown;
            cap *= 2;
        }
        char c = s[i];
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        size_t start = i;
        if (isalpha((unsigned char)c) || c == '_') {
            while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_')) i++;
        } else if (isdigit((unsigned char)c)) {
            while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.')) i++;
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < len && s[i] != c && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
            if (i < len) i++;
        } else if (c == ':' && i + 1 < len && s[i + 1] == ':') {
            i += 2;
        } else {
            i++;
        }
        toks[n++] = (sig_tok){s + start, (int)(i - start), line};
    }
    *out = toks;
    return n;
}

static bool sig_is(const sig_tok *t, const char *word)
{
    return (int)strlen(word) == t->len && strncmp(t->s, word, (size_t)t->len) == 0;
}

static bool sig_ident(const sig_tok *t)
{
    return t->len > 0 && (isalpha((unsigned char)t->s[0]) || t->s[0] == '_');
}

/* Words that can be part of a parameter's type (anything else that ends a parameter is its name). */
static bool sig_type_word(const sig_tok *t)
{
    static const char *const words[] = {"const", "volatile", "unsigned", "signed", "short", "long",
                                        "int",   "float",    "double",   "char",   "half",  "__half",
                                        "void",  "bool",     "size_t",   "uint16_t", "int32_t",
                                        "int64_t", "uint32_t", "int8_t", "uint8_t", "__nv_bfloat16",
                                        "nv_bfloat16"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (sig_is(t, words[i])) return true;
    return false;
}

/* Normalize one parameter's tokens [a, b) into out. */
static void sig_param(const sig_tok *t, int a, int b, char *out, size_t len)
{
    /* drop qualifiers with no ABI meaning and the name */
    const sig_tok *keep[64];
    int n = 0;
    for (int i = a; i < b && n < 64; i++) {
        if (sig_is(&t[i], "__restrict__") || sig_is(&t[i], "__restrict") || sig_is(&t[i], "restrict"))
            continue;
        keep[n++] = &t[i];
    }
    if (n >= 2 && sig_ident(keep[n - 1]) && !sig_type_word(keep[n - 1])) n--; /* the name */
    /* const before the first '*' qualifies the pointee; after it, the pointer itself (top-level) */
    bool pointee_const = false;
    int stars = 0;
    char base[SIG_TYPE_LEN] = "";
    for (int i = 0; i < n; i++) {
        const sig_tok *k = keep[i];
        if (sig_is(k, "*") || sig_is(k, "&")) {
            stars++;
            continue;
        }
        if (sig_is(k, "const")) {
            if (stars == 0) pointee_const = true;
            continue;
        }
        if (sig_is(k, "volatile")) continue;
        char word[SIG_TYPE_LEN];
        snprintf(word, sizeof(word), "%.*s", k->len, k->s);
        if (strcmp(word, "__half") == 0) snprintf(word, sizeof(word), "half");
        if (base[0]) strncat(base, " ", sizeof(base) - strlen(base) - 1);
        strncat(base, word, sizeof(base) - strlen(base) - 1);
    }
    /* top-level const on a value parameter is not part of the type */
    snprintf(out, len, "%s%s", stars && pointee_const ? "const " : "", base);
    for (int i = 0; i < stars && strlen(out) + 1 < len; i++) strcat(out, "*");
}

void sig_read(const char *src, size_t len, sig_info *info)
{
    memset(info, 0, sizeof(*info));
    char *clean = sig_strip(src, len);
    sig_tok *t = NULL;
    int n = clean ? sig_tokenize(clean, len, &t) : -1;
    if (n < 0) {
        free(clean);
        return;
    }
    /* brace stack: 1 = extern "C" block or namespace (still file scope), 0 = anything else */
    char stack[256];
    int depth = 0, opaque = 0; /* opaque: how many non-file-scope braces are open */
    int stmt = 0;              /* first token of the current file-scope statement */
    bool pending_scope = false, pending_extern_c = false;
    int extern_c_blocks = 0;
    for (int i = 0; i < n; i++) {
        if (sig_is(&t[i], "{")) {
            bool scope = opaque == 0 && pending_scope;
            if (depth < (int)sizeof(stack)) stack[depth] = scope ? (pending_extern_c ? 2 : 1) : 0;
            depth++;
            if (!scope) opaque++;
            if (scope && pending_extern_c) extern_c_blocks++;
            pending_scope = pending_extern_c = false;
            stmt = i + 1;
            continue;
        }
        if (sig_is(&t[i], "}")) {
            if (depth > 0) {
                depth--;
                char kind = depth < (int)sizeof(stack) ? stack[depth] : 0;
                if (kind == 0 && opaque > 0) opaque--;
                if (kind == 2) extern_c_blocks--;
            }
            if (opaque == 0) stmt = i + 1;
            continue;
        }
        if (opaque) continue;
        if (sig_is(&t[i], ";")) {
            stmt = i + 1;
            pending_scope = pending_extern_c = false;
            continue;
        }
        if (sig_is(&t[i], "namespace")) pending_scope = true;
        if (sig_is(&t[i], "extern") && i + 2 < n && sig_is(&t[i + 1], "\"C\"") &&
            sig_is(&t[i + 2], "{")) {
            pending_scope = pending_extern_c = true;
            continue;
        }
        if (!info->found && sig_is(&t[i], "solve") && i + 1 < n && sig_is(&t[i + 1], "(")) {
            info->found = true;
            info->line = t[i].line;
            info->extern_c = extern_c_blocks > 0;
            for (int j = stmt; j < i; j++)
                if (sig_is(&t[j], "extern") && j + 1 < i && sig_is(&t[j + 1], "\"C\""))
                    info->extern_c = true;
            /* parameters up to the matching ')' */
            int level = 0, a = i + 2, j;
            for (j = i + 1; j < n; j++) {
                if (sig_is(&t[j], "(")) level++;
                if (sig_is(&t[j], ")") && --level == 0) break;
                if (level == 1 && sig_is(&t[j], ",") && info->n_params < SIG_MAX_PARAMS) {
                    sig_param(t, a, j, info->types[info->n_params++], SIG_TYPE_LEN);
                    a = j + 1;
                }
            }
            if (j > a && info->n_params < SIG_MAX_PARAMS)
                sig_param(t, a, j, info->types[info->n_params++], SIG_TYPE_LEN);
            if (info->n_params == 1 && strcmp(info->types[0], "void") == 0) info->n_params = 0;
            const char *tp[SIG_MAX_PARAMS];
            for (int k = 0; k < info->n_params; k++) tp[k] = info->types[k];
            sig_format(tp, info->n_params, info->text, sizeof(info->text));
        }
    }
    free(t);
    free(clean);
}

static const char *sig_skip_const(const char *s)
{
    return strncmp(s, "const ", 6) == 0 ? s + 6 : s;
}

sig_verdict sig_compare(const sig_info *info, const char *const *types, int n)
{
    if (!info->found || info->n_params != n) return SIG_MISMATCH;
    sig_verdict v = SIG_MATCH;
    for (int i = 0; i < n; i++) {
        if (strcmp(info->types[i], types[i]) == 0) continue;
        if (strcmp(sig_skip_const(info->types[i]), sig_skip_const(types[i])) == 0)
            v = SIG_MATCH_CONST;
        else
            return SIG_MISMATCH;
    }
    return v;
}

void sig_format(const char *const *types, int n, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "void solve(");
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", types[i]);
    if (used < len) snprintf(buf + used, len - used, ")");
}
