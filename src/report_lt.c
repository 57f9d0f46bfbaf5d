/* report_lt.c — what the reports say about the --baseline lt yardstick: the algorithm cuBLASLt
 * picked for a shape, as one line of text and as JSON members. */
#include "report.h"

const char *rp_yardstick_name(const rp_report *r)
{
    return r->vs ? r->vs : r->yardstick == RN_YS_LT ? "cuBLASLt" : "cuBLAS";
}

/* An id, or "?" when the library could not say (-1). */
static int rp_lt_id(char *out, size_t len, const char *name, int v)
{
    return v < 0 ? snprintf(out, len, "%s ?", name) : snprintf(out, len, "%s %d", name, v);
}

void rp_lt_describe(const dv_lt_pick *k, bool brief, char *out, size_t len)
{
    if (!k->chosen) {
        snprintf(out, len, "%s", brief ? "" : "no algorithm ran");
        return;
    }
    char a[24], t[24], s[24], c[24];
    rp_lt_id(a, sizeof(a), "algo", k->algo_id);
    rp_lt_id(t, sizeof(t), brief ? "tile" : "tile id", k->tile_id);
    rp_lt_id(s, sizeof(s), brief ? "stages" : "stages id", k->stages_id);
    rp_lt_id(c, sizeof(c), brief ? "cluster" : "cluster id", k->cluster_id);
    double mib = (double)k->workspace_bytes / (1024.0 * 1024.0);
    if (brief)
        snprintf(out, len, "%s %s %s split-K %d ws %.1fM", a, t, s, k->splitk, mib);
    else
        snprintf(out, len,
                 "%s, %s, %s, split-K %d, swizzle %d, %s, workspace %.1f MiB (%lld B); the fastest "
                 "of %d heuristic candidates, %.4fms a call in the trial",
                 a, t, s, k->splitk, k->swizzle, c, mib, k->workspace_bytes, k->candidates,
                 k->trial_ms);
}

void rp_lt_json(FILE *out, const dv_lt_pick *k)
{
    if (!k->chosen) {
        fputs(",\"lt_algo\":null", out);
        return;
    }
    fprintf(out,
            ",\"lt_algo\":{\"algo_id\":%d,\"tile_id\":%d,\"stages_id\":%d,\"splitk\":%d,"
            "\"swizzle\":%d,\"cluster_id\":%d,\"workspace_bytes\":%lld,\"candidates\":%d,"
            "\"trial_ms\":%.6f}",
            k->algo_id, k->tile_id, k->stages_id, k->splitk, k->swizzle, k->cluster_id,
            k->workspace_bytes, k->candidates, k->trial_ms);
}
