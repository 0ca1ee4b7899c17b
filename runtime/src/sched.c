/* The scheduler: running tasks, the worker loop, fork, join and helping. */
#include <limits.h>
#include <sched.h>

#include "fast.h"
#include "fence.h"
#include "futex.h"
#include "offcpu.h"

__attribute__((tls_model("initial-exec"))) _Thread_local fj_worker *fj_self;

void fj_task_mark_done(fj_task *t)
{
    if (!(t->flags & FJ_TASK_ROOT)) {
        /* Release: publishes the task's results to its joiner. */
        atomic_store_explicit(&t->state, FJ_TASK_DONE, memory_order_release);
        return;
    }
    /* Release: a client that sees DONE and then destroys the pool must see
     * this root counted out. */
    atomic_fetch_sub_explicit(&t->pool->roots_in_flight, 1, memory_order_release);
    /* Acq_rel exchange: release publishes the results; we need the old value
     * to know whether a client sleeps on the futex. */
    uint32_t old = atomic_exchange_explicit(&t->state, FJ_TASK_DONE, memory_order_acq_rel);
    if (old == FJ_TASK_WAITER) futex_wake(&t->state, INT_MAX);
}

void fj_task_run(fj_worker *w, fj_task *t)
{
    /* Read before the body runs: a completer may complete inside its own
     * body, after which its owner is free to reuse the frame. */
    const uint64_t id = t->id;
    const int completer = (t->flags & FJ_TASK_COMPLETER) != 0;
    fj_task *outer = w->current;
    w->current = t;
    FJ_TRACE(exec, w->pool->id, w->index, id);
    t->fn(t->arg);
    FJ_TRACE(executed, w->pool->id, w->index, id);
    w->current = outer;
    FJ_STAT_INC(w, tasks_executed);
    if (!completer) fj_task_mark_done(t);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static fj_task *steal_from(fj_worker *w, int victim_index)
{
    fj_pool *p = w->pool;
    fj_worker *victim = &p->workers[victim_index];
    fj_task *t;
    if (fj_deque_steal(&victim->deque, &t) != FJ_STEAL_OK) {
        /* Empty or lost a race: either way try elsewhere rather than spin on
         * one contended deque. */
        FJ_STAT_INC(w, failed_steals);
        return NULL;
    }
    /* Relaxed: only a hint for the joiner's leapfrogging. */
    atomic_store_explicit(&t->thief, w->index, memory_order_relaxed);
    FJ_TRACE(steal, p->id, w->index, t->id, victim_index);
    FJ_STAT_INC(w, steals);
    /* The victim still has work: make sure a sleeper comes to take it. */
    if (fj_deque_size_hint(&victim->deque) > 0) {
        atomic_thread_fence(memory_order_seq_cst);
        fj_sleep_wake_one(p, w->index);
    }
    return t;
}

/* One pass over the other workers, from a random start. */
static fj_task *steal_round(fj_worker *w)
{
    const int n = w->pool->nworkers;
    if (n < 2) return NULL;
    int start = (int)(xorshift(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = (start + i) % n;
        if (v == w->index) continue;
        fj_task *t = steal_from(w, v);
        if (t) return t;
    }
    return NULL;
}

fj_task *fj_find_work(fj_worker *w)
{
    fj_task *t = fj_deque_take(&w->deque);
    if (!t) t = steal_round(w);
    if (!t) t = fj_submit_queue_pop(&w->pool->submissions);
    return t;
}

static int pool_stopping(const fj_pool *p)
{
    /* Acquire: pairs with the release store in fj_pool_destroy. */
    return atomic_load_explicit(&p->shutdown, memory_order_acquire);
}

/* Spin (then yield) through a few steal rounds before parking: work often
 * reappears within microseconds, and a futex round trip costs more. */
static void worker_idle(fj_worker *w)
{
    fj_pool *p = w->pool;
    fj_offcpu_drain(w); /* a failed find_work: a slow point */
    for (int round = 0; round < p->spin_rounds && !pool_stopping(p); round++) {
        fj_task *t = fj_find_work(w);
        if (t) {
            fj_task_run(w, t);
            return;
        }
        if (round >= p->spin_rounds - p->yield_rounds)
            sched_yield();
        else
            for (int i = 0; i < 32; i++)
                cpu_relax();
    }
    if (!pool_stopping(p)) fj_sleep_park(w);
}

void *fj_worker_main(void *arg)
{
    fj_worker *w = arg;
    fj_pool *p = w->pool;
    fj_self = w;
    FJ_TRACE(worker_begin, p->id, w->index);
    fj_offcpu_begin(w);
    while (!pool_stopping(p)) {
        fj_task *t = fj_find_work(w);
        if (t)
            fj_task_run(w, t);
        else
            worker_idle(w);
    }
    fj_offcpu_end(w);
    FJ_TRACE(worker_end, p->id, w->index);
    fj_self = NULL;
    return NULL;
}

int fj_fork(fj_task *t)
{
    return fj_fork_at(t, FJ_CALLER_SITE());
}

int fj_fork_at(fj_task *t, uint64_t site)
{
    fj_worker *w = fj_self;
    if (!w) {
        t->fn(t->arg);
        atomic_store_explicit(&t->state, FJ_TASK_DONE, memory_order_relaxed);
        return FJ_ENOTASK;
    }
    int64_t before = fj_fast_push(w, t, site);
    if (before < 0) {
        /* Out of memory for a bigger deque: run the task now, lose nothing. */
        fj_task_run(w, t);
        return FJ_OK;
    }
    /* Light fence, then a relaxed look at the sleeper count: the Dekker
     * half that pairs with fj_sleep_park (store SLEEPING, heavy fence, look
     * at the deques). Either a parking worker sees this push, or we see it
     * and wake it: no lost wake-up. See fence.h for why light suffices. */
    fj_fence_light();
    if (atomic_load_explicit(&w->pool->sleepers, memory_order_relaxed) > 0)
        fj_sleep_wake_one(w->pool, w->index);
    return FJ_OK;
}

/* Where a waiting joiner looks for work: the thief's deque first (it holds
 * the stolen task's own children — leapfrogging), then anyone's. */
static fj_task *help_find(fj_worker *w, const fj_task *awaited)
{
    /* Relaxed: a hint only; a stale value just means a worse first victim. */
    int thief = atomic_load_explicit(&awaited->thief, memory_order_relaxed);
    fj_task *t = NULL;
    if (thief >= 0 && thief != w->index) t = steal_from(w, thief);
    return t ? t : steal_round(w);
}

static void join_help(fj_worker *w, fj_task *t)
{
    FJ_STAT_INC(w, joins_waited);
    FJ_TRACE(join, w->pool->id, w->index, t->id);
    unsigned misses = 0;
    while (!fj_task_is_done(t)) {
        fj_task *x = help_find(w, t);
        if (x) {
            fj_task_run(w, x);
            misses = 0;
        } else if (++misses % FJ_JOIN_SPINS == 0) {
            fj_offcpu_drain(w); /* a join that waits: a slow point */
            sched_yield();
        } else {
            cpu_relax();
        }
    }
    FJ_TRACE(joined, w->pool->id, w->index, t->id);
}

void fj_join(fj_task *t)
{
    fj_worker *w = fj_self;
    if (!w) {
        /* Forked outside a pool: fj_fork already ran it. */
        while (!fj_task_is_done(t))
            sched_yield();
        return;
    }
    FJ_STAT_INC(w, joins);
    /* Run our own deque's tasks (t itself, if nobody stole it, is at the
     * bottom) until t is done; once the deque is empty t was stolen. */
    while (!fj_task_is_done(t)) {
        fj_task *x = fj_deque_take(&w->deque);
        if (!x) {
            join_help(w, t);
            return;
        }
        fj_task_run(w, x);
    }
}

int fj_task_done(const fj_task *t)
{
    return fj_task_is_done(t);
}

int fj_worker_index(void)
{
    return fj_self ? fj_self->index : -1;
}
