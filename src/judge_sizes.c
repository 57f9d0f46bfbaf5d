/* judge_sizes.c — whether a size or a shape fits: the problem's constraints, the buffers' extents
 * and the host's memory; --size's text; --sweep's options and cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "judge.h"
#include "judge_int.h"
#include "wire.h"

/* Whether the values fit the problem (what names them: "size 8x8x8"); r->detail says why not.
 * --no-constraints (any) lifts the ranges, never the problem's own check its extents rely on. */
bool jd_values_fit(const pb_problem *p, const double *v, bool any, const char *what,
                          jd_result *r)
{
    char why[300];
    bool sound = pb_values_sound(p, v, why, sizeof(why));
    if (sound && (any || pb_values_ok(p, v, why, sizeof(why)))) return true;
    snprintf(r->detail, sizeof(r->detail), "%s is outside %s's constraints (%s%s)", what, p->name,
             why, sound ? "; --no-constraints to time it anyway" : "");
    return false;
}

/* Whether a case's buffers can exist here (what names it: "size 8x8x8"): every extent inside
 * 64 bits and WR_MAX_BUF_BYTES, and all of them inside the host's memory (the parent and the
 * oracle hold them). A size that cannot exist is the user's (exit 4), never the solution's; what
 * the device cannot hold is the run's out-of-memory verdict (10). */
bool jd_buffers_fit(const jd_options *o, const pb_problem *p, const double *v,
                           const char *what, jd_result *r)
{
    wr_layout l;
    if (!wr_layout_for(p, v, dv_guard_bytes(), o->topts.max_runs, &l)) {
        snprintf(r->detail, sizeof(r->detail), "%s cannot be run: a buffer of %s would hold more "
                 "than %zu GiB (or more than 64 bits count)", what, p->name, WR_MAX_BUF_BYTES >> 30);
        return false;
    }
    struct sysinfo si;
    if (sysinfo(&si) == 0) {
        double host = ((double)si.totalram + (double)si.totalswap) * (double)si.mem_unit;
        double need = (double)wr_host_bytes(&l);
        if (need > host) {
            snprintf(r->detail, sizeof(r->detail), "%s cannot be run: its buffers need %.1f GiB "
                     "of host memory, more than this machine has (%.1f GiB)", what,
                     need / (1u << 30), host / (1u << 30));
            return false;
        }
    }
    return true;
}

/* --size's text for the problem: HX_SUCCESS with sz set, or the exit code with r->detail. A text
 * that is not sizes (or the wrong number of them) is a usage error; sizes that cannot be (0,
 * negative, past int) a bad size, --no-constraints or not. */
int jd_size_arg(const jd_options *o, const pb_problem *p, pb_size *sz, jd_result *r)
{
    char names[64];
    pb_size_names(p, names, sizeof(names));
    int count = 0;
    memset(sz, 0, sizeof(*sz));
    pb_scan sc = pb_scan_sizes(o->size, false, sz->v, &count);
    if (sc == PB_SCAN_SYNTAX || count != pb_n_sizes(p)) {
        snprintf(r->detail, sizeof(r->detail), "--size: %s takes %s (positive integers), got '%s'",
                 p->name, names, o->size);
        return HX_USAGE;
    }
    if (sc == PB_SCAN_RANGE) {
        snprintf(r->detail, sizeof(r->detail), "size %s is outside %s's constraints (%s: every "
                 "size an integer in 1..%d, --no-constraints or not)", o->size, p->name, names,
                 PB_SIZE_MAX);
        return HX_BAD_SIZE;
    }
    return HX_SUCCESS;
}

/* --sweep: o with the performance set only, its table replaced by the recipe at every shape,
 * timing and the cuBLAS baseline on. The cases live in r. HX_SUCCESS or the exit code. */
int jd_sweep_options(const jd_options *o, const pb_problem *p, jd_options *eff, jd_result *r)
{
    const pb_size *sh = p->sweep;
    size_t n = p->n_sweep;
    if (o->random.n > 0) {
        n = (size_t)o->random.n;
        r->shapes = calloc(n, sizeof(*r->shapes));
        if (!r->shapes || !sh_random_shapes(p, &o->random, r->shapes)) {
            snprintf(r->detail, sizeof(r->detail), "--sweep random: no shapes for %s", p->name);
            return HX_INTERNAL;
        }
        sh = r->shapes;
    } else if (o->shapes) {
        r->shapes = calloc(PB_MAX_SHAPES, sizeof(*r->shapes));
        char names[64];
        pb_size_names(p, names, sizeof(names));
        pb_scan sc = r->shapes ? pb_scan_size_list(pb_n_sizes(p), o->shapes, r->shapes,
                                                   PB_MAX_SHAPES, &n)
                               : PB_SCAN_SYNTAX;
        if (sc == PB_SCAN_SYNTAX) {
            snprintf(r->detail, sizeof(r->detail),
                     "--shapes: expected a comma list of %s or N (at most %d) for %s, got '%s'",
                     names, PB_MAX_SHAPES, p->name, o->shapes);
            return HX_USAGE;
        }
        if (sc == PB_SCAN_RANGE) {
            snprintf(r->detail, sizeof(r->detail), "--shapes %s: a shape is outside %s's "
                     "constraints (%s: every size an integer in 1..%d, --no-constraints or not)",
                     o->shapes, p->name, names, PB_SIZE_MAX);
            return HX_BAD_SIZE;
        }
        sh = r->shapes;
    }
    if (n == 0) {
        snprintf(r->detail, sizeof(r->detail), "%s has no sweep shapes (give them with --shapes)", p->name);
        return HX_USAGE;
    }
    for (size_t i = 0; i < n; i++) {
        pb_case c = pb_perf_case(p, sh[i], i, "");
        char shape[48], what[64];
        pb_format_size(p, c.v, shape, sizeof(shape));
        snprintf(what, sizeof(what), "shape %s", shape);
        if (!jd_values_fit(p, c.v, o->any_size, what, r) || !jd_buffers_fit(o, p, c.v, what, r))
            return HX_BAD_SIZE;
    }
    r->sweep_cases = calloc(n, sizeof(*r->sweep_cases));
    r->sweep_names = calloc(n, sizeof(*r->sweep_names));
    if (!r->sweep_cases || !r->sweep_names) {
        snprintf(r->detail, sizeof(r->detail), "out of memory");
        return HX_INTERNAL;
    }
    for (size_t i = 0; i < n; i++) {
        r->sweep_cases[i] = pb_perf_case(p, sh[i], i, r->sweep_names[i]);
        pb_format_size(p, r->sweep_cases[i].v, r->sweep_names[i], sizeof(r->sweep_names[i]));
    }
    *eff = *o;
    for (int s = 0; s < PB_N_SETS; s++) eff->sets[s] = s == PB_SET_PERFORMANCE;
    eff->custom = false;
    eff->override_perf = r->sweep_cases;
    eff->n_override_perf = n;
    eff->timing = true;
    eff->topts.baseline = true;
    return HX_SUCCESS;
}

