/* Work inflation per creation site (Grain Graphs' "work deviation"): the
 * median self time per task of each site against the same place in a
 * baseline run of the program, usually at P=1 (docs/analyses.md). The
 * median, not the mean: a task preempted on a busy machine would weigh on
 * a mean as much as a thousand others. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

/* Sites with fewer executed tasks than this are not flagged: a mean over
 * a handful of tasks says little. */
#define INFLATION_MIN_TASKS 10

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

static bool str_eq(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* One place in both runs: the addresses differ between two processes
 * (ASLR), the place in the program does not. By binary name so that a copy
 * of the program elsewhere still matches. */
static bool same_place(const fja_site_report *a, const fja_site_report *b)
{
    const fja_site_where *x = &a->where, *y = &b->where;
    if (!x->binary || !y->binary || !str_eq(base_name(x->binary), base_name(y->binary)))
        return false;
    if (x->file || y->file)
        return str_eq(base_name(x->file), base_name(y->file)) && x->line == y->line &&
               str_eq(x->function, y->function);
    return x->offset == y->offset;
}

static const fja_site_report *match(const fja_pool_report *base, const fja_site_report *s)
{
    for (uint32_t i = 0; i < base->nsites; i++)
        if (same_place(&base->sites[i], s)) return &base->sites[i];
    return NULL;
}

static void advise_inflation(fja_pool_report *pr, const fja_site_report *s)
{
    char where[512];
    fja_advise(pr, "site_work_inflation",
               "tasks forked at %s take %.2fx as long per task here (%u workers) as in the "
               "baseline (%u workers): median self time %" PRIu64 " ns vs %" PRIu64
               " ns - memory bandwidth, false sharing or cache misses after steals",
               fja_site_label(where, sizeof where, s), s->inflation, pr->workers,
               pr->baseline_workers, s->mean_ns, s->base_mean_ns);
}

void fja_sites_baseline(fja_report *r, const fja_report *base)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        fja_pool_report *pr = &r->pools[i];
        const fja_pool_report *bp = i < base->npools ? &base->pools[i]
                                    : base->npools   ? &base->pools[0]
                                                     : NULL;
        if (!bp) continue;
        pr->has_baseline = true;
        pr->baseline_workers = bp->workers;
        pr->baseline_oncpu = bp->oncpu;
        for (uint32_t k = 0; k < pr->nsites; k++) {
            fja_site_report *s = &pr->sites[k];
            const fja_site_report *b = match(bp, s);
            s->inflation = -1;
            if (!s->executed) continue;
            s->mean_ns = s->self.p50;
            if (!b || !b->executed || pr->oncpu != bp->oncpu) continue;
            s->base_mean_ns = b->self.p50;
            if (!s->base_mean_ns) continue;
            s->inflation = (double)s->mean_ns / (double)s->base_mean_ns;
            s->inflated = s->inflation >= FJA_INFLATION_FLAG &&
                          s->executed >= INFLATION_MIN_TASKS && b->executed >= INFLATION_MIN_TASKS;
            if (s->inflated) advise_inflation(pr, s);
        }
    }
}
