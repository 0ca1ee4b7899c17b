/* How the reports name pools and trees for a reader (docs/report-schema.md,
 * "Labels"): a pool by its process and pid, a tree by its place in the
 * pool's listing. The JSON report keeps the raw ids beside them. */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

const char *fja_pool_label(const fja_pool_totals *p, bool with_trace, char *buf, size_t n)
{
    int k;
    if (*p->procname && p->pid >= 0)
        k = snprintf(buf, n, "%u of process %s pid %" PRId64, p->id, p->procname, p->pid);
    else if (p->pid >= 0)
        k = snprintf(buf, n, "%u of pid %" PRId64, p->id, p->pid);
    else if (*p->procname)
        k = snprintf(buf, n, "%u of process %s", p->id, p->procname);
    else
        k = snprintf(buf, n, "%u", p->id);
    /* A process unknown (traces from before pool_begin said it): the trace
     * tells pools of several processes apart. */
    bool unknown = !*p->procname && p->pid < 0;
    if ((with_trace || (unknown && p->source)) && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " (trace %u)", p->source);
    return buf;
}

bool fja_report_several_traces(const fja_report *r)
{
    for (uint32_t i = 1; i < r->npools; i++)
        if (r->pools[i].totals.source != r->pools[0].totals.source) return true;
    return false;
}

uint32_t fja_root_number(const fja_pool_report *pr, uint64_t root)
{
    for (uint32_t i = 0; i < pr->ntrees; i++)
        if (pr->trees[i].root_id == root) return i + 1;
    return 0;
}
