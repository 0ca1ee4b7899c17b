/* Per-worker statistics (relaxed counters, see internal.h): steals, failed
 * steals, parks and waited joins always; forks, joins and tasks executed in
 * a pool that counts tasks, FJ_STAT_UNKNOWN in one that does not. */
#include <string.h>

#include "internal.h"

#define LOAD(w, f) atomic_load_explicit(&(w)->stats.f, memory_order_relaxed)

static void stats_read(const fj_worker *w, fj_worker_stats *s)
{
    fj_worker *mw = (fj_worker *)w; /* atomic_load wants a non-const pointer in C11 */
    /* Relaxed: counters, exact once the pool is quiescent. */
    uint64_t inline_runs = atomic_load_explicit(&mw->fast.dq.inline_syncs, memory_order_relaxed);
    uint64_t stolen = atomic_load_explicit(&mw->fast.dq.stolen, memory_order_relaxed);
    /* Derived (see internal.h): each forked task left this deque once.
     * Without the count of the inline syncs (a pool that does not count
     * tasks) these are not known: said so, never a number too low. */
    const int counted = mw->pool->count_tasks;
    s->forks = counted ? inline_runs + LOAD(mw, pops) + stolen : FJ_STAT_UNKNOWN;
    s->joins = counted ? inline_runs + LOAD(mw, joins_slow) : FJ_STAT_UNKNOWN;
    s->joins_waited = LOAD(mw, joins_waited);
    s->steals = LOAD(mw, steals);
    s->failed_steals = LOAD(mw, failed_steals);
    s->parks = LOAD(mw, parks);
    s->tasks_executed = counted ? inline_runs + LOAD(mw, tasks_run) : FJ_STAT_UNKNOWN;
}

int fj_pool_stats(const fj_pool *p, fj_worker_stats *out, int n)
{
    int count = n < p->nworkers ? n : p->nworkers;
    for (int i = 0; i < count; i++)
        stats_read(&p->workers[i], &out[i]);
    return count;
}

/* A sum of figures that may be unknown (all of a pool's are, or none):
 * unknown once one of them is. */
static void add_known(uint64_t *sum, uint64_t v)
{
    *sum = v == FJ_STAT_UNKNOWN || *sum == FJ_STAT_UNKNOWN ? FJ_STAT_UNKNOWN : *sum + v;
}

void fj_pool_stats_total(const fj_pool *p, fj_worker_stats *total)
{
    memset(total, 0, sizeof(*total));
    for (int i = 0; i < p->nworkers; i++) {
        fj_worker_stats s;
        stats_read(&p->workers[i], &s);
        add_known(&total->forks, s.forks);
        add_known(&total->joins, s.joins);
        total->joins_waited += s.joins_waited;
        total->steals += s.steals;
        total->failed_steals += s.failed_steals;
        total->parks += s.parks;
        add_known(&total->tasks_executed, s.tasks_executed);
    }
}

int fj_pool_counts_tasks(const fj_pool *p)
{
    return p->count_tasks;
}

void fj_pool_stats_reset(fj_pool *p)
{
    /* Relaxed stores; meant for a quiescent pool (between invocations). */
    for (int i = 0; i < p->nworkers; i++) {
        fj_worker *w = &p->workers[i];
        fj_stat_counters *c = &w->stats;
        atomic_store_explicit(&w->fast.dq.inline_syncs, 0, memory_order_relaxed);
        atomic_store_explicit(&w->fast.dq.stolen, 0, memory_order_relaxed);
        atomic_store_explicit(&c->pops, 0, memory_order_relaxed);
        atomic_store_explicit(&c->joins_slow, 0, memory_order_relaxed);
        atomic_store_explicit(&c->joins_waited, 0, memory_order_relaxed);
        atomic_store_explicit(&c->steals, 0, memory_order_relaxed);
        atomic_store_explicit(&c->failed_steals, 0, memory_order_relaxed);
        atomic_store_explicit(&c->parks, 0, memory_order_relaxed);
        atomic_store_explicit(&c->tasks_run, 0, memory_order_relaxed);
    }
}
