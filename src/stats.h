/* stats.h — order statistics over timing samples. */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* How a sweep's ratios (solution time / yardstick time, lower is better) spread. */
typedef struct {
    size_t n;
    double geomean;
    double worst;        /* the largest ratio */
    size_t worst_i;      /* its index in the input (the first, on a tie) */
    double share_le1;    /* the fraction of ratios at or under 1.0 */
    double p90;          /* the 90th percentile (type 7: interpolated between order statistics) */
} st_ratio_dist;

/* The distribution of n positive ratios (all zero when n is 0 or memory runs out). */
st_ratio_dist st_ratio_distribution(const double *v, size_t n);

/* A 95% interval for median(a) / median(b) by a bootstrap of both medians (rounds resamples,
 * a fixed seed); false when a series is empty or out of memory. */
bool st_ratio_interval(const double *a, size_t na, const double *b, size_t nb, int rounds,
                       double *lo, double *hi);

/* One stratum of samples: a's and b's, drawn under the same conditions. */
typedef struct {
    const double *a;
    size_t na;
    const double *b;
    size_t nb;
} st_stratum;

/* A 95% interval for the geometric mean over k strata of median(a) / median(b), each median
 * resampled within its own stratum (--vs: the two orders of the files' first calls weigh
 * alike however many samples each has); k = 1 is st_ratio_interval. */
bool st_ratio_interval_strata(const st_stratum *s, int k, int rounds, double *lo, double *hi);

#endif
