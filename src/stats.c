/* stats.c — median and spread of timing samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int st_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the usual "type 7" quantile). */
static double st_quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n) return sorted[n - 1];
    double f = pos - (double)i;
    return sorted[i] * (1 - f) + sorted[i + 1] * f;
}

st_summary st_summarize(double *v, size_t n)
{
    st_summary s;
    memset(&s, 0, sizeof(s));
    s.n = n;
    if (n == 0) return s;
    qsort(v, n, sizeof(*v), st_cmp);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = st_quantile(v, n, 0.5);
    s.p25 = st_quantile(v, n, 0.25);
    s.p75 = st_quantile(v, n, 0.75);
    s.noise_pct = s.median > 0 ? 100.0 * (s.p75 - s.p25) / (2.0 * s.median) : 0;
    return s;
}

st_ratio_dist st_ratio_distribution(const double *v, size_t n)
{
    st_ratio_dist d;
    memset(&d, 0, sizeof(d));
    double *sorted = n ? malloc(n * sizeof(double)) : NULL;
    if (!sorted) return d;
    size_t le1 = 0;
    for (size_t i = 0; i < n; i++) {
        sorted[i] = v[i];
        le1 += v[i] <= 1.0;
        if (v[i] > d.worst) {
            d.worst = v[i];
            d.worst_i = i;
        }
    }
    qsort(sorted, n, sizeof(double), st_cmp);
    d.n = n;
    d.geomean = st_geomean(v, n);
    d.share_le1 = (double)le1 / (double)n;
    d.p90 = st_quantile(sorted, n, 0.9);
    free(sorted);
    return d;
}

double st_geomean(const double *v, size_t n)
{
    if (n == 0) return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += log(v[i]);
    return exp(s / (double)n);
}

/* The median of n values drawn with replacement from v (scratch holds n). */
static double st_resampled_median(const double *v, size_t n, double *scratch, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        scratch[i] = v[(z ^ (z >> 31)) % n];
    }
    qsort(scratch, n, sizeof(*scratch), st_cmp);
    return st_quantile(scratch, n, 0.5);
}

bool st_ratio_interval(const double *a, size_t na, const double *b, size_t nb, int rounds,
                       double *lo, double *hi)
{
    const st_stratum one = {a, na, b, nb};
    return st_ratio_interval_strata(&one, 1, rounds, lo, hi);
}

bool st_ratio_interval_strata(const st_stratum *s, int k, int rounds, double *lo, double *hi)
{
    if (k < 1 || rounds < 10) return false;
    size_t most = 0;
    for (int j = 0; j < k; j++) {
        if (s[j].na == 0 || s[j].nb == 0) return false;
        most = s[j].na > most ? s[j].na : most;
        most = s[j].nb > most ? s[j].nb : most;
    }
    double *scratch = malloc(most * sizeof(double)), *r = malloc((size_t)rounds * sizeof(double));
    bool ok = scratch && r;
    uint64_t state = 0x5eedull; /* fixed: the same samples give the same interval */
    for (int i = 0; ok && i < rounds; i++) {
        double prod = 1.0;
        for (int j = 0; j < k; j++) {
            double mb = st_resampled_median(s[j].b, s[j].nb, scratch, &state);
            prod *= mb > 0 ? st_resampled_median(s[j].a, s[j].na, scratch, &state) / mb : INFINITY;
        }
        r[i] = k == 1 ? prod : pow(prod, 1.0 / k);
    }
    if (ok) {
        qsort(r, (size_t)rounds, sizeof(*r), st_cmp);
        *lo = st_quantile(r, (size_t)rounds, 0.025);
        *hi = st_quantile(r, (size_t)rounds, 0.975);
    }
    free(scratch);
    free(r);
    return ok;
}
