/* medians and noise of timing samples. */
#include <criterion/criterion.h>

#include <math.h>

#include "stats.h"

Test(stats, median_min_noise)
{
    double v[] = {5, 1, 4, 2, 3};
    st_summary s = st_summarize(v, 5);
    cr_expect_float_eq(s.median, 3, 1e-12);
    cr_expect_float_eq(s.min, 1, 1e-12);
    cr_expect_float_eq(s.max, 5, 1e-12);
    cr_expect_float_eq(s.p25, 2, 1e-12);
    cr_expect_float_eq(s.p75, 4, 1e-12);
    cr_expect_float_eq(s.noise_pct, 100.0 * 2 / (2 * 3), 1e-9);
    double e[] = {2, 4};
    cr_expect_float_eq(st_summarize(e, 2).median, 3, 1e-12);
    cr_expect_eq(st_summarize(e, 0).n, 0);
}

Test(stats, geometric_mean)
{
    const double v[] = {0.5, 2.0, 1.0};
    cr_expect_float_eq(st_geomean(v, 3), 1.0, 1e-12);
    cr_expect_float_eq(st_geomean(v + 1, 1), 2.0, 1e-12);
    cr_expect_eq(st_geomean(v, 0), 0.0);
}

/* A sweep footer's distribution: worst and where, the share at or under 1.0×, the 90th
 * percentile (interpolated), the input left as it was. */
Test(stats, ratio_distribution)
{
    double v[] = {0.5, 2.0, 1.0, 0.8, 1.5, 2.0};
    st_ratio_dist d = st_ratio_distribution(v, 5);
    cr_expect_eq(d.n, 5);
    cr_expect_float_eq(d.geomean, pow(1.2, 0.2), 1e-12);
    cr_expect_float_eq(d.worst, 2.0, 1e-12);
    cr_expect_eq(d.worst_i, 1);
    cr_expect_float_eq(d.share_le1, 0.6, 1e-12); /* 0.5, 1.0 (at 1.0 counts), 0.8 */
    cr_expect_float_eq(d.p90, 1.8, 1e-12);       /* sorted 0.5 0.8 1 1.5 2: 1.5 + 0.6·0.5 */
    cr_expect(v[0] == 0.5 && v[1] == 2.0 && v[4] == 1.5, "the input was reordered");
    d = st_ratio_distribution(v, 6);                /* a tie for the worst: the first */
    cr_expect_eq(d.worst_i, 1);
    d = st_ratio_distribution(v + 3, 1);
    cr_expect(d.n == 1 && d.worst == 0.8 && d.worst_i == 0 && d.p90 == 0.8 && d.share_le1 == 1.0);
    d = st_ratio_distribution(v, 0);
    cr_expect(d.n == 0 && d.worst == 0 && d.geomean == 0 && d.p90 == 0 && d.share_le1 == 0);
}

/* --vs's interval: one stratum brackets the ratio of medians; two strata whose ratios are 2/3
 * and 3/2 (each file faster in one order of the first calls) give their geometric mean, 1,
 * however unequal their sample counts; an empty series has no interval. */
Test(stats, ratio_interval_over_strata)
{
    double a[41], b[41], a2[11], b2[11];
    for (int i = 0; i < 41; i++) {
        a[i] = 2.0 + 0.001 * (i % 7);
        b[i] = 3.0 + 0.001 * (i % 5);
    }
    for (int i = 0; i < 11; i++) {
        a2[i] = 3.0 + 0.001 * (i % 3);
        b2[i] = 2.0 + 0.001 * (i % 4);
    }
    double lo = 0, hi = 0;
    cr_assert(st_ratio_interval(a, 41, b, 41, 1000, &lo, &hi));
    cr_expect(lo <= 2.003 / 3.002 && hi >= 2.003 / 3.002 && hi < 0.68 && lo > 0.66, "[%g, %g]", lo, hi);
    const st_stratum s[2] = {{a, 41, b, 41}, {a2, 11, b2, 11}};
    cr_assert(st_ratio_interval_strata(s, 2, 1000, &lo, &hi));
    cr_expect(lo > 0.995 && hi < 1.005 && lo <= hi, "[%g, %g]", lo, hi);
    double lo1 = 0, hi1 = 0;
    cr_assert(st_ratio_interval_strata(s, 1, 1000, &lo1, &hi1));
    cr_assert(st_ratio_interval(a, 41, b, 41, 1000, &lo, &hi));
    cr_expect(lo1 == lo && hi1 == hi, "one stratum is the plain interval");
    const st_stratum empty[2] = {{a, 41, b, 41}, {a2, 0, b2, 11}};
    cr_expect(!st_ratio_interval_strata(empty, 2, 1000, &lo, &hi));
}
