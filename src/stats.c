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

double st_geomean(const double *v, size_t n)
{
    if (n == 0) return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += log(v[i]);
    return exp(s / (double)n);
}
