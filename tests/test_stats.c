/* medians and noise of timing samples. */
#include <criterion/criterion.h>

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
