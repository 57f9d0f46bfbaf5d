/* ncu_print.c — the --profile summary per kernel: duration, occupancy and its limiter, throughputs,
 * the clock and L2, tensor pipes, top stalls, the launch; units normalised from whatever ncu
 * printed. */
#include "inspect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* A metric's value, or NAN. */
static double in_pv(const in_prof_kernel *k, const char *name)
{
    const in_metric *m = in_prof_metric(k, name);
    return m ? m->value : NAN;
}

/* Duration in microseconds whatever unit ncu printed it in. */
static double in_usec(const in_metric *m)
{
    static const struct { const char *unit; double scale; } u[] = {
        {"nsecond", 1e-3}, {"ns", 1e-3}, {"usecond", 1}, {"us", 1},
        {"msecond", 1e3}, {"ms", 1e3}, {"second", 1e6}, {"s", 1e6}};
    /* ncu writes launch sizes per block ("byte/block"): the unit is the part before '/' */
    size_t n = strcspn(m->unit, "/");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        if (strlen(u[i].unit) == n && strncmp(m->unit, u[i].unit, n) == 0) return m->value * u[i].scale;
    return NAN;
}

/* Bytes whatever unit ncu printed them in (it scales by 1000). */
static double in_bytes(const in_metric *m)
{
    static const struct { const char *unit; double scale; } u[] = {
        {"byte", 1}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"KB", 1e3}, {"MB", 1e6}, {"B", 1}};
    /* ncu writes launch sizes per block ("byte/block"): the unit is the part before '/' */
    size_t n = strcspn(m->unit, "/");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        if (strlen(u[i].unit) == n && strncmp(m->unit, u[i].unit, n) == 0) return m->value * u[i].scale;
    return NAN;
}

typedef struct {
    const char *unit;
    double scale;
} in_unit;

/* A rate in base units per second, whatever unit ncu printed it in: one of the units given, or
 * one of them with an SI prefix (ncu scales by 1000); NAN for anything else. */
static double in_rate(const in_metric *m, const in_unit *u, size_t n)
{
    static const in_unit pre[] = {{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
    for (size_t i = 0; i < n; i++) {
        if (strcmp(m->unit, u[i].unit) == 0) return m->value * u[i].scale;
        for (size_t j = 0; j < sizeof(pre) / sizeof(pre[0]); j++)
            if (m->unit[0] == pre[j].unit[0] && strcmp(m->unit + 1, u[i].unit) == 0)
                return m->value * u[i].scale * pre[j].scale;
    }
    return NAN;
}

/* "label value unit" or "label n/a" */
static void in_put(FILE *out, const char *label, double v, const char *fmt_unit)
{
    fprintf(out, "%s", label);
    if (isnan(v)) fprintf(out, "n/a");
    else fprintf(out, fmt_unit, v);
}

typedef struct {
    char reason[64];
    double v;
} in_stall;

static int in_stall_cmp(const void *a, const void *b)
{
    double x = ((const in_stall *)a)->v, y = ((const in_stall *)b)->v;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void in_print_kernel_profile(FILE *out, const in_prof_kernel *k)
{
    fprintf(out, "  %s", k->display);
    if (k->grid[0] || k->block[0]) fprintf(out, "   grid %s x block %s", k->grid, k->block);
    fputc('\n', out);
    const in_metric *dur = in_prof_metric(k, "gpu__time_duration.sum");
    double occ = in_pv(k, "sm__warps_active.avg.pct_of_peak_sustained_active");
    double theo = in_pv(k, "sm__maximum_warps_per_active_cycle_pct");
    fprintf(out, "    duration ");
    if (dur && !isnan(in_usec(dur))) fprintf(out, "%.2f us", in_usec(dur));
    else fprintf(out, "n/a");
    fprintf(out, " · achieved occupancy ");
    if (!isnan(occ)) fprintf(out, "%.1f%%", occ);
    else fprintf(out, "n/a");
    if (!isnan(theo)) {
        static const struct { const char *metric, *what; } lim[] = {
            {"launch__occupancy_limit_registers", "registers"},
            {"launch__occupancy_limit_shared_mem", "shared memory"},
            {"launch__occupancy_limit_warps", "warps"},
            {"launch__occupancy_limit_blocks", "blocks"}};
        const char *by = NULL;
        double best = INFINITY;
        for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
            double v = in_pv(k, lim[i].metric);
            if (!isnan(v) && v < best) best = v, by = lim[i].what;
        }
        fprintf(out, " (theoretical %.1f%%", theo);
        if (by) fprintf(out, ", %.0f blocks per SM, limited by %s", best, by);
        fputc(')', out);
    }
    fputc('\n', out);
    double sm = in_pv(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    double mem = in_pv(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    fprintf(out, "    SM throughput ");
    if (!isnan(sm)) fprintf(out, "%.1f%%", sm);
    else fprintf(out, "n/a");
    fprintf(out, " of peak · memory throughput ");
    if (!isnan(mem)) fprintf(out, "%.1f%%", mem);
    else fprintf(out, "n/a");
    fprintf(out, " of peak\n");

    /* the clock the kernel ran at (a power-bound chip runs below its boost clock) and L2 */
    static const in_unit hz[] = {{"hz", 1}, {"Hz", 1}, {"cycle/second", 1}, {"cycle/nsecond", 1e9}};
    static const in_unit bps[] = {{"byte/second", 1}, {"byte/s", 1}, {"byte/nsecond", 1e9}};
    const in_metric *clk = in_prof_metric(k, "sm__cycles_elapsed.avg.per_second");
    const in_metric *x2l = in_prof_metric(k, "l1tex__m_xbar2l1tex_read_bytes.sum.per_second");
    in_put(out, "    SM clock ", clk ? in_rate(clk, hz, 4) * 1e-9 : NAN, "%.2f GHz");
    in_put(out, " · L2 throughput ", in_pv(k, "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
           "%.1f%% of peak");
    in_put(out, ", to the SMs ", x2l ? in_rate(x2l, bps, 3) * 1e-12 : NAN, "%.2f TB/s");
    in_put(out, ", hit rate ", in_pv(k, "lts__t_sector_hit_rate.pct"), "%.1f%%");
    fputc('\n', out);

    /* DRAM traffic, and the sectors the SMs wrote to L2: a store pattern that splits sectors
     * (rows not 16-byte aligned) shows as more sectors than bytes written / 32, and partial
     * sectors L2 must fill as DRAM reads beyond the operands' size */
    const in_metric *dr = in_prof_metric(k, "dram__bytes_read.sum");
    const in_metric *dw = in_prof_metric(k, "dram__bytes_write.sum");
    in_put(out, "    DRAM read ", dr ? in_bytes(dr) * 1e-6 : NAN, "%.2f MB");
    in_put(out, ", written ", dw ? in_bytes(dw) * 1e-6 : NAN, "%.2f MB");
    in_put(out, " · sectors stored to L2 from the SMs ",
           in_pv(k, "lts__t_sectors_srcunit_tex_op_write.sum") * 1e-6, "%.3f M");
    fputc('\n', out);

    /* tensor pipes: every sm__pipe_tensor*_cycles_active that ncu knows on this chip */
    fprintf(out, "    tensor pipes (active cycles, %% of peak):");
    int pipes = 0;
    for (size_t i = 0; i < k->n; i++) {
        const in_metric *m = &k->m[i];
        const char *end = strstr(m->name, "_cycles_active.avg.pct_of_peak_sustained_active");
        if (!in_starts(m->name, "sm__pipe_tensor") || !end || isnan(m->value)) continue;
        const char *s = m->name + strlen("sm__pipe_");
        if (in_starts(s, "tensor_op_")) s += strlen("tensor_op_");
        fprintf(out, "%s %.*s %.1f%%", pipes ? "," : "", (int)(end - s), s, m->value);
        pipes++;
    }
    fprintf(out, "%s\n", pipes ? "" : " none reported by this ncu");

    /* stalls: cycles per issued instruction spent in each reason */
    in_stall st[64];
    size_t ns = 0;
    double sum = 0;
    for (size_t i = 0; i < k->n && ns < 64; i++) {
        const in_metric *m = &k->m[i];
        const char *r = strstr(m->name, "issue_stalled_");
        const char *e = strstr(m->name, "_per_issue_active");
        if (!r || !e || e < r || isnan(m->value)) continue;
        r += strlen("issue_stalled_");
        snprintf(st[ns].reason, sizeof(st[ns].reason), "%.*s", (int)(e - r), r);
        if (strcmp(st[ns].reason, "selected") == 0) continue; /* issuing, not a stall */
        st[ns].v = m->value;
        sum += m->value;
        ns++;
    }
    qsort(st, ns, sizeof(st[0]), in_stall_cmp);
    fprintf(out, "    top stalls (cycles per issued instruction):");
    for (size_t i = 0; i < ns && i < 3; i++)
        fprintf(out, "%s %s %.2f (%.0f%%)", i ? "," : "", st[i].reason, st[i].v,
                sum > 0 ? 100.0 * st[i].v / sum : 0.0);
    fprintf(out, "%s\n", ns ? "" : " none reported by this ncu");

    double regs = in_pv(k, "launch__registers_per_thread");
    const in_metric *ss = in_prof_metric(k, "launch__shared_mem_per_block_static");
    const in_metric *ds = in_prof_metric(k, "launch__shared_mem_per_block_dynamic");
    double waves = in_pv(k, "launch__waves_per_multiprocessor");
    if (!isnan(regs) || ss || ds) {
        fprintf(out, "    launch:");
        if (!isnan(regs)) fprintf(out, " %.0f registers/thread,", regs);
        fprintf(out, " shared memory %.0f B static + %.0f B dynamic per block",
                ss ? in_bytes(ss) : 0.0, ds ? in_bytes(ds) : 0.0);
        if (!isnan(waves)) fprintf(out, ", %.2f waves", waves);
        fputc('\n', out);
    }
}

void in_print_profile(FILE *out, const in_profile *p)
{
    for (size_t i = 0; i < p->n; i++) in_print_kernel_profile(out, &p->k[i]);
}
