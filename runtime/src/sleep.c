/*
 * Idle workers: parking on a per-worker futex and waking them.
 *
 * The protocol is a Dekker handshake between a parking worker and a thread
 * that makes work visible (an owner moving tasks to the shared part of its
 * deque, submit, a steal that leaves work behind):
 *
 *   parker:  state = SLEEPING; sleepers++; heavy fence; look for work; wait
 *   waker:   publish work;               light fence; if (sleepers) CAS a SLEEPING
 *                                               worker to NOTIFIED, wake it
 *
 * Tasks in the private part of a deque are not visible and need no wake-up:
 * a parking worker raises `need` on every other deque (ask_all_owners);
 * the owner answers at its next fork by publishing, which is a waker's
 * "publish work" above.
 *
 * The fences (fence.h: a compiler barrier on the fork path paired with
 * membarrier(2) here, or seq_cst fences on both sides where membarrier is
 * missing) make at least one side see the other's write: either
 * the parker finds the work and cancels, or the waker finds the parker. A
 * worker is woken only through NOTIFIED, so spurious futex returns are
 * harmless, and each wake-up targets one named worker (traced as `wake`).
 */
#include <limits.h>

#include "fast.h"
#include "fence.h"
#include "futex.h"

/* Is there work anywhere a woken worker could take? Called after the
 * parker's fence, so relaxed loads are enough (see the header comment). */
static int work_visible(fj_pool *p)
{
    if (atomic_load_explicit(&p->submissions.count, memory_order_relaxed) > 0) return 1;
    for (int i = 0; i < p->nworkers; i++)
        if (fj_deque_size_hint(&p->workers[i].fast.dq) > 0) return 1;
    return 0;
}

/* Asks every other owner to share its private part. Our failed steals
 * raised `need` on the deques we found empty, but an owner's publish clears
 * it, and one that came after our last look at that deque left nothing to
 * ask for us: the owner then kept forking with `need` clear and its new
 * frames private while we slept (a stolen sibling's frame never shared: the
 * typed_out_of_order case waited 5 s). A request, seen at the owner's next
 * fork (fj_deque_ask writes only when `need` is clear). Cold:
 * it runs once per park, and placed among the hot code it shifted the
 * fork and join paths' alignment (bench-runtime naive fib P=1 +10%, the
 * same instruction count). */
__attribute__((cold)) static void ask_all_owners(fj_worker *w)
{
    fj_pool *p = w->pool;
    for (int i = 0; i < p->nworkers; i++)
        if (i != w->index) fj_deque_ask(&p->workers[i].fast.dq);
}

void fj_sleep_park(fj_worker *w)
{
    fj_pool *p = w->pool;
    /* Relaxed stores ordered by the seq_cst fence that follows. */
    atomic_store_explicit(&w->sleep_state, FJ_SLEEPING, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->sleepers, 1, memory_order_relaxed);
    ask_all_owners(w);
    fj_fence_heavy();
    if (work_visible(p) || atomic_load_explicit(&p->shutdown, memory_order_relaxed)) {
        /* Cancel. A waker may have notified us meanwhile; we are awake and
         * about to look for work, which is what it wanted. */
        atomic_store_explicit(&w->sleep_state, FJ_AWAKE, memory_order_relaxed);
        atomic_fetch_sub_explicit(&p->sleepers, 1, memory_order_relaxed);
        return;
    }
    FJ_TRACE(park, p->id, w->index);
    FJ_STAT_INC(w, parks);
    /* Acquire: pairs with the waker's CAS so that the wake-up is not
     * reordered before what made it (belt and braces: the work itself is
     * published through the deques' own synchronisation). */
    while (atomic_load_explicit(&w->sleep_state, memory_order_acquire) == FJ_SLEEPING)
        futex_wait(&w->sleep_state, FJ_SLEEPING);
    atomic_store_explicit(&w->sleep_state, FJ_AWAKE, memory_order_relaxed);
    atomic_fetch_sub_explicit(&p->sleepers, 1, memory_order_relaxed);
    FJ_TRACE(unpark, p->id, w->index);
}

/* Wakes one parked worker, if any. Callers issue the seq_cst fence of the
 * protocol between publishing their work and calling this. */
void fj_sleep_wake_one(fj_pool *p, int waker_index)
{
    if (atomic_load_explicit(&p->sleepers, memory_order_relaxed) <= 0) return;
    const int n = p->nworkers;
    /* Relaxed: spreads wake-ups round-robin; no ordering needed. */
    uint32_t start = atomic_fetch_add_explicit(&p->wake_cursor, 1, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        int v = (int)((start + (uint32_t)i) % (uint32_t)n);
        fj_worker *target = &p->workers[v];
        uint32_t expected = FJ_SLEEPING;
        /* Release: pairs with the parker's acquire load (see fj_sleep_park). */
        if (atomic_compare_exchange_strong_explicit(&target->sleep_state, &expected, FJ_NOTIFIED,
                                                    memory_order_release, memory_order_relaxed)) {
            FJ_TRACE(wake, p->id, waker_index, v);
            futex_wake(&target->sleep_state, 1);
            return;
        }
    }
}

/* Shutdown: every worker, parked or about to park, must see NOTIFIED. */
void fj_sleep_wake_all(fj_pool *p)
{
    for (int i = 0; i < p->nworkers; i++) {
        /* Release: the shutdown flag was stored before; a woken worker sees it. */
        atomic_store_explicit(&p->workers[i].sleep_state, FJ_NOTIFIED, memory_order_release);
        futex_wake(&p->workers[i].sleep_state, INT_MAX);
    }
}
