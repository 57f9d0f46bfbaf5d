/* stats.h — order statistics over timing samples. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

typedef struct {
    size_t n;
    double median, min, max, p25, p75;
    double noise_pct; /* half the interquartile range, in % of the median */
} st_summary;

/* Summarise n samples; the array is sorted in place. */
st_summary st_summarize(double *v, size_t n);

/* Geometric mean of n positive values (0 when n is 0): the mean of ratios that treats 2× and
 * 0.5× alike. */
double st_geomean(const double *v, size_t n);

#endif
