/* shapes.c — the random sweep's shapes (shapes.h): splitmix64 (rng.h) and IEEE +, ×, ÷ only,
 * so a seed names the same list on every machine and compiler (no libm exp/log, whose last bits
 * differ between libraries). */
#include "shapes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* No fused multiply-adds: they round differently from a multiply then an add. GCC's ISO C mode
 * (-std=c11) never fuses; clang may, unless told. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static const double sh_ln2 = 0.69314718055994530942;

sh_class sh_class_of(int v)
{
    if (v % 2) return SH_ODD;
    return v % 8 ? SH_OFF8 : SH_MUL8;
}

/* e^x for 0 <= x < 700: 2^k · e^r with r in [0, ln 2), a Taylor sum (frexp/ldexp are exact). */
static double sh_exp(double x)
{
    int k = (int)(x / sh_ln2);
    double r = x - (double)k * sh_ln2, term = 1.0, sum = 1.0;
    for (int i = 1; i < 30; i++) {
        term = term * r / (double)i;
        sum += term;
    }
    return ldexp(sum, k);
}

/* ln y for y >= 1: e·ln 2 + 2·atanh((m − 1)/(m + 1)) with y = m·2^e, m in [0.5, 1). */
static double sh_log(double y)
{
    int e;
    double m = frexp(y, &e), z = (m - 1.0) / (m + 1.0), z2 = z * z, term = z, sum = 0.0;
    for (int i = 1; i < 80; i += 2) {
        sum += term / (double)i;
        term *= z2;
    }
    return (double)e * sh_ln2 + 2.0 * sum;
}

bool sh_is_random(const char *s)
{
    return s && strncmp(s, "random", 6) == 0 && (s[6] == '\0' || s[6] == ':');
}

/* Decimal digits only (no sign, no space), below max; *end after them. */
static bool sh_digits(const char *s, char **end, unsigned long long max, unsigned long long *out)
{
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno || v > max) return false;
    *out = v;
    return true;
}

bool sh_parse_random(const char *s, sh_random *out, char *err, size_t errlen)
{
    sh_random r = {SH_DEFAULT_N, SH_DEFAULT_SEED};
    bool ok = sh_is_random(s);
    const char *c = ok ? s + 6 : s;
    if (ok && *c == ':') {
        char *end;
        unsigned long long n, seed;
        ok = sh_digits(c + 1, &end, SH_MAX_N, &n) && n >= 1;
        if (ok) r.n = (int)n;
        if (ok && *end == ':') {
            ok = sh_digits(end + 1, &end, UINT64_MAX, &seed);
            if (ok) r.seed = seed;
        }
        ok = ok && *end == '\0';
    }
    if (!ok) {
        snprintf(err, errlen,
                 "--sweep: expected random, random:N or random:N:SEED (N in 1..%d, SEED a "
                 "non-negative integer), got '%s'",
                 SH_MAX_N, s ? s : "");
        return false;
    }
    *out = r;
    return true;
}

/* v moved to the nearest value of class k inside [lo, hi]; false when none is near. */
static bool sh_snap(int v, sh_class k, int lo, int hi, int *out)
{
    if (k == SH_ODD) {
        if (v % 2 == 0) v = v + 1 <= hi ? v + 1 : v - 1;
    } else if (k == SH_OFF8) {
        if (v % 2) v = v - 1 >= lo ? v - 1 : v + 1;
        if (v % 8 == 0) v = v + 2 <= hi ? v + 2 : v - 2;
    } else {
        v = (v + 4) / 8 * 8;
        if (v < lo) v += 8;
        if (v > hi) v -= 8;
    }
    *out = v;
    return v >= lo && v <= hi && v > 0 && sh_class_of(v) == k;
}

/* One size: its class, then log-uniform over [lo, hi] (two draws, always both). */
static int sh_draw(rg_state *s, int lo, int hi)
{
    uint64_t c = rg_next(s) >> 62; /* 0: odd, 1: off-8, 2 and 3: multiples of 8 */
    double u = (double)(rg_next(s) >> 11) * (1.0 / 9007199254740992.0); /* [0, 1), 53 bits */
    double x = (double)lo * sh_exp(u * sh_log(((double)hi + 1.0) / (double)lo));
    int v = x >= (double)hi ? hi : (int)x; /* floor: [lo, hi + 1) → lo..hi */
    if (v < lo) v = lo;
    int snapped;
    if (sh_snap(v, c == 0 ? SH_ODD : c == 1 ? SH_OFF8 : SH_MUL8, lo, hi, &snapped)) v = snapped;
    return v;
}

static bool sh_fits(const pb_problem *p, pb_size s)
{
    pb_case c = pb_perf_case(p, s, 0, "");
    char why[300];
    return pb_values_ok(p, c.v, why, sizeof(why));
}

/* A shape the problem's own check refuses: the first size (in order), rounded to the smallest
 * power-of-two step that passes (int4: K to a multiple of group_size). */
static bool sh_repair(const pb_problem *p, pb_size *s)
{
    for (int step = 2; step <= 1 << 14; step *= 2) {
        for (int j = 0; j < pb_n_sizes(p); j++) {
            const pb_param *q = pb_scalar(p, pb_size_scalar(p, j));
            int lo = ((int)q->lo + step - 1) / step * step, hi = (int)q->hi / step * step;
            if (lo < step) lo = step;
            if (lo > hi) continue;
            pb_size t = *s;
            t.v[j] = (t.v[j] + step / 2) / step * step;
            t.v[j] = t.v[j] < lo ? lo : t.v[j] > hi ? hi : t.v[j];
            if (sh_fits(p, t)) {
                *s = t;
                return true;
            }
        }
    }
    return false;
}

bool sh_random_shapes(const pb_problem *p, const sh_random *r, pb_size *out)
{
    int ns = pb_n_sizes(p);
    if (ns <= 0 || ns > PB_MAX_SIZES || r->n < 1 || r->n > SH_MAX_N) return false;
    for (int j = 0; j < ns; j++) { /* every range must be usable before anything is drawn */
        const pb_param *q = pb_scalar(p, pb_size_scalar(p, j));
        if (!(q->lo >= 1 && q->hi >= q->lo && q->hi <= 1 << 20)) return false;
    }
    rg_state st = {r->seed};
    for (int i = 0; i < r->n; i++) {
        pb_size s;
        memset(&s, 0, sizeof(s));
        for (int j = 0; j < ns; j++) {
            const pb_param *q = pb_scalar(p, pb_size_scalar(p, j));
            s.v[j] = sh_draw(&st, (int)q->lo, (int)q->hi);
        }
        if (!sh_fits(p, s) && !sh_repair(p, &s)) return false;
        out[i] = s;
    }
    return true;
}

void sh_describe(const sh_random *r, char *out, size_t len)
{
    snprintf(out, len,
             "%d random shapes, seed %llu (log-uniform per size; 1/4 odd, 1/4 even off a "
             "multiple of 8, 1/2 multiples of 8)",
             r->n, (unsigned long long)r->seed);
}
