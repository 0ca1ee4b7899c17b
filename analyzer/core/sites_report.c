/* Creation sites summed up for the report, named through the caller's
 * resolver, and the advice per site (docs/analyses.md, "Creation sites"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Advice thresholds: a site is "too small" when its median task is below
 * SMALL_X fork costs and it carries at least SMALL_SHARE of the scheduling
 * overhead; "too few" when it has under FEW_PER_WORKER tasks per worker but
 * at least FEW_SHARE of the work, in a pool whose parallelism is short of
 * its workers. */
#define SMALL_X 10
#define SMALL_SHARE 0.2
#define SMALL_MIN_TASKS 100
#define FEW_PER_WORKER 4
#define FEW_SHARE 0.5

static int by_work_desc(const void *a, const void *b)
{
    const fja_site_report *x = a, *y = b;
    if (x->work_ns != y->work_ns) return x->work_ns < y->work_ns ? 1 : -1;
    if (x->tasks != y->tasks) return x->tasks < y->tasks ? 1 : -1;
    return x->site < y->site ? -1 : x->site > y->site;
}

static void pcts_of(const fja_hist *h, fja_pcts *p)
{
    p->n = h->count;
    p->min = h->count ? h->min : 0;
    p->p50 = fja_hist_percentile(h, 50);
    p->p90 = fja_hist_percentile(h, 90);
    p->p99 = fja_hist_percentile(h, 99);
    p->max = h->max;
}

static void site_fill(const fja_sites *ss, uint32_t i, const fja_pool_report *pr,
                      fja_site_report *s)
{
    const fja_site_stats *st = &ss->v[i];
    *s = (fja_site_report){.site = st->site,
                           .forks = st->forks,
                           .submits = st->submits,
                           .tasks = st->forks + st->submits,
                           .steals = st->steals,
                           .executed = st->executed,
                           .work_ns = st->self_ns,
                           .depth_min = st->executed ? st->depth_min : 0,
                           .depth_max = st->depth_max,
                           .overhead_share = -1,
                           .inflation = -1,
                           .addresses = 1,
                           .stats = i};
    pcts_of(&st->self, &s->self);
    s->overhead_ns = st->forks * pr->fork_cost_ns + st->steals * pr->steal_cost_ns;
}

int fja_sites_analyze(const fja_pool *p, fja_pool_report *pr)
{
    const fja_sites *ss = &p->sites;
    pr->sites_known = ss->any_site;
    if (!ss->any_site || !ss->n) return 0;
    pr->sites = calloc(ss->n, sizeof *pr->sites);
    if (!pr->sites) return -1;
    uint64_t work = 0, overhead = 0;
    for (uint32_t i = 0; i < ss->n; i++) {
        site_fill(ss, i, pr, &pr->sites[i]);
        work += pr->sites[i].work_ns;
        overhead += pr->sites[i].overhead_ns;
    }
    pr->nsites = ss->n;
    for (uint32_t i = 0; i < pr->nsites; i++) {
        fja_site_report *s = &pr->sites[i];
        s->work_share = work ? (double)s->work_ns / (double)work : 0;
        /* without a fork-cost estimate the overhead is unknown, not 0 */
        if (pr->fork_cost_ns && overhead)
            s->overhead_share = (double)s->overhead_ns / (double)overhead;
    }
    if (pr->nsites) qsort(pr->sites, pr->nsites, sizeof *pr->sites, by_work_desc);
    return 0;
}

const char *fja_site_where_label(char *buf, size_t n, uint64_t site, const fja_site_where *w)
{
    const char *file = w->file, *slash;
    if (file && (slash = strrchr(file, '/'))) file = slash + 1;
    const char *bin = w->binary, *bslash;
    if (bin && (bslash = strrchr(bin, '/'))) bin = bslash + 1;
    if (!site)
        snprintf(buf, n, "(no site recorded)");
    else if (file && w->function)
        snprintf(buf, n, "%s:%" PRIu32 " (%s)", file, w->line, w->function);
    else if (file)
        snprintf(buf, n, "%s:%" PRIu32, file, w->line);
    else if (bin && w->function)
        snprintf(buf, n, "%s (%s+0x%" PRIx64 ")", w->function, bin, w->offset);
    else if (bin)
        snprintf(buf, n, "%s+0x%" PRIx64, bin, w->offset);
    else
        snprintf(buf, n, "0x%" PRIx64, site);
    return buf;
}

const char *fja_site_label(char *buf, size_t n, const fja_site_report *s)
{
    return fja_site_where_label(buf, n, s->site, &s->where);
}

/* The remedy for a site's too-small tasks, in the terms of the program's
 * own front end: OpenMP tasks carry no size, a ForkJoinTask has no libfj
 * cutoff. */
static void small_remedy(char *buf, size_t n, const fja_pool_report *pr)
{
    if (pr->totals.openmp && pr->cutoff_depth != UINT32_MAX)
        snprintf(buf, n, "add if(depth < %u) or final(depth >= %u) to this task construct",
                 pr->cutoff_depth, pr->cutoff_depth);
    else if (pr->totals.openmp)
        snprintf(buf, n, "add an if() or final() clause to this task construct");
    else if (pr->totals.jvm)
        snprintf(buf, n, "compute() directly below a sequential threshold here");
    else if (pr->cutoff_size != UINT32_MAX && pr->cutoff_size > 0)
        snprintf(buf, n, "raise the cutoff here to size >= %u", pr->cutoff_size);
    else
        snprintf(buf, n, "raise the cutoff here");
}

static void advise_small(fja_pool_report *pr, const fja_site_report *s)
{
    uint64_t fork = pr->fork_cost_ns;
    if (!fork || s->forks < SMALL_MIN_TASKS || s->overhead_share < SMALL_SHARE) return;
    if (s->self.p50 >= SMALL_X * fork) return;
    char where[512], remedy[128];
    small_remedy(remedy, sizeof remedy, pr);
    fja_advise(pr, "site_too_small",
               "tasks forked at %s: %" PRIu64 " tasks, median %" PRIu64 " ns vs ~%" PRIu64
               " ns per fork, %.0f%% of the scheduling overhead (estimated) - %s",
               fja_site_label(where, sizeof where, s), s->forks, s->self.p50, fork,
               100 * s->overhead_share, remedy);
}

static void advise_few(fja_pool_report *pr, const fja_site_report *s)
{
    if (!s->forks || pr->workers < 2 || s->work_share < FEW_SHARE) return;
    if (s->tasks >= (uint64_t)FEW_PER_WORKER * pr->workers) return;
    if (pr->parallelism <= 0 || pr->parallelism >= pr->workers) return;
    char where[512];
    fja_advise(pr, "site_too_few",
               "tasks forked at %s: only %" PRIu64 " tasks carry %.0f%% of the work, too "
               "few to balance %u workers (parallelism %.1f) - split them further here",
               fja_site_label(where, sizeof where, s), s->tasks, 100 * s->work_share, pr->workers,
               pr->parallelism);
}

static int str_cmp(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* Sites with one source line (binary, file, line, function) are one site
 * to the reader: inlining and unrolling copy a call to several addresses.
 * Unresolved sites keep their address (never merged). */
static int by_place(const void *a, const void *b)
{
    const fja_site_report *x = a, *y = b;
    bool xf = x->where.file != NULL, yf = y->where.file != NULL;
    if (xf != yf) return xf ? -1 : 1;
    if (!xf) return x->site < y->site ? -1 : x->site > y->site;
    int c = str_cmp(x->where.binary, y->where.binary);
    if (!c) c = str_cmp(x->where.file, y->where.file);
    if (!c) c = x->where.line < y->where.line ? -1 : x->where.line > y->where.line;
    if (!c) c = str_cmp(x->where.function, y->where.function);
    if (!c) c = x->site < y->site ? -1 : x->site > y->site;
    return c;
}

static bool same_place(const fja_site_report *x, const fja_site_report *y)
{
    return x->where.file && y->where.file && x->where.line == y->where.line &&
           !str_cmp(x->where.file, y->where.file) && !str_cmp(x->where.binary, y->where.binary) &&
           !str_cmp(x->where.function, y->where.function);
}

/* Adds site k into the group leader g (the self-time percentiles are
 * recomputed from the merged histograms by merge_group). */
static void merge_into(fja_site_report *g, const fja_site_report *k)
{
    g->tasks += k->tasks;
    g->forks += k->forks;
    g->submits += k->submits;
    g->steals += k->steals;
    g->executed += k->executed;
    g->work_ns += k->work_ns;
    g->work_share += k->work_share;
    g->overhead_ns += k->overhead_ns;
    if (g->overhead_share >= 0 && k->overhead_share >= 0) g->overhead_share += k->overhead_share;
    if (k->executed && (!g->executed || k->depth_min < g->depth_min)) g->depth_min = k->depth_min;
    if (k->depth_max > g->depth_max) g->depth_max = k->depth_max;
    g->addresses += k->addresses;
}

/* Merges sites [from, to) of one place into sites[from]. */
static void merge_group(const fja_sites *ss, fja_site_report *v, uint32_t from, uint32_t to)
{
    fja_hist h;
    fja_hist_init(&h);
    for (uint32_t k = from; k < to; k++) {
        if (k > from) merge_into(&v[from], &v[k]);
        if (v[k].stats < ss->n) fja_hist_merge(&h, &ss->v[v[k].stats].self);
    }
    pcts_of(&h, &v[from].self);
    fja_hist_free(&h);
    v[from].stats = UINT32_MAX;
}

static void sites_merge(const fja_sites *ss, fja_pool_report *pr)
{
    if (!pr->nsites) return; /* qsort on a NULL array, even empty, is undefined */
    qsort(pr->sites, pr->nsites, sizeof *pr->sites, by_place);
    uint32_t out = 0;
    for (uint32_t i = 0; i < pr->nsites;) {
        uint32_t j = i + 1;
        while (j < pr->nsites && same_place(&pr->sites[i], &pr->sites[j]))
            j++;
        if (j - i > 1) merge_group(ss, pr->sites, i, j);
        pr->sites[out++] = pr->sites[i];
        i = j;
    }
    pr->nsites = out;
    qsort(pr->sites, pr->nsites, sizeof *pr->sites, by_work_desc);
}

/* Names every site of the report (made from m), merges the addresses of
 * one place, and appends the advice per site. */
static void sites_resolve(const fja_model *m, fja_report *r, fja_site_resolver resolve, void *ctx)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        fja_pool_report *pr = &r->pools[i];
        for (uint32_t k = 0; k < pr->nsites; k++) {
            fja_site_report *s = &pr->sites[k];
            if (resolve && s->site && resolve(ctx, pr->totals.pid, s->site, &s->where) != 0)
                s->where = (fja_site_where){0};
        }
        sites_merge(&fja_report_pool(m, pr)->sites, pr);
        for (uint32_t k = 0; k < pr->nsites; k++) {
            advise_small(pr, &pr->sites[k]);
            advise_few(pr, &pr->sites[k]);
        }
    }
}

int fja_analysis_run_sites(const fja_model *m, const fja_filter *f, fja_site_resolver resolve,
                           void *ctx, fja_report *r)
{
    if (fja_analysis_run(m, f, r)) return -1;
    sites_resolve(m, r, resolve, ctx);
    return 0;
}
