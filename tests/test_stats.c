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
