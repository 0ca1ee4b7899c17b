/* The scheduler: running tasks, the worker loop, fork, join and helping. */
#include <limits.h>
#include <sched.h>
#include <stdbool.h>

#include "fast.h"
#include "fence.h"
#include "futex.h"
#include "offcpu.h"
#include "stamp.h"

/* head == end == split == NULL: both inline paths fall through. */
fj_worker_fast fj_outside = {.trace_gate = &fj_trace_gate_off};
__attribute__((tls_model("initial-exec"))) _Thread_local fj_worker_fast *fj__self = &fj_outside;

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

/* Runs t; joined_at != 0: t is run by its parent's join, called then (the
 * exec event says so, with how long the parent ran ahead of that join).
 * Returns whether its exec was exec_joined (its end is its join, told). */
static bool task_run(fj_worker *w, fj_task *t, uint64_t joined_at)
{
    /* Read before the body runs: a completer may complete inside its own
     * body, after which its owner is free to reuse the frame. */
    const uint64_t id = t->id;
    const int completer = (t->flags & FJ_TASK_COMPLETER) != 0;
    fj_task *outer = w->current;
    w->current = t;
    uint64_t ahead;
    bool by_join = false;
    /* a completer has no forked_ns; the stamps' rate may not be known yet */
    if (id && joined_at && !completer && fj_stamp_ns(t->forked_ns, joined_at, &ahead) == 0) {
        FJ_TRACE(exec_joined, w->pool->id, w->index, id, ahead);
        by_join = true;
    } else if (id) {
        FJ_TRACE(exec, w->pool->id, w->index, id); /* id 0: forked untraced */
    }
    t->fn(t->arg);
    if (id) FJ_TRACE(executed, w->pool->id, w->index, id);
    w->current = outer;
    FJ_STAT_INC(w, tasks_run);
    if (!completer) fj_task_mark_done(t);
    return by_join;
}

void fj_task_run(fj_worker *w, fj_task *t)
{
    task_run(w, t, 0);
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
    if (fj_deque_steal(&victim->fast.dq, &t) != FJ_STEAL_OK) {
        /* Empty or lost a race: either way try elsewhere rather than spin on
         * one contended deque. */
        FJ_STAT_INC(w, failed_steals);
        return NULL;
    }
    t = fj_slot_untag(t);
    /* Relaxed: only a hint for the joiner's leapfrogging. */
    atomic_store_explicit(&t->thief, w->index + 1, memory_order_relaxed);
    if (t->id) FJ_TRACE(steal, p->id, w->index, t->id, victim_index);
    FJ_STAT_INC(w, steals);
    /* The victim still has work: make sure a sleeper comes to take it. */
    if (fj_deque_size_hint(&victim->fast.dq) > 0) {
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

/* The worker's own newest task, if any (private part, else taken back from
 * the shared part). */
static fj_task *own_pop(fj_worker *w)
{
    fj_task *t = fj_deque_pop(&w->fast.dq);
    if (!t) return NULL;
    FJ_STAT_INC(w, pops);
    return fj_slot_untag(t);
}

fj_task *fj_find_work(fj_worker *w)
{
    fj_task *t = own_pop(w);
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
    fj__self = &w->fast;
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
    fj__self = &fj_outside;
    return NULL;
}

/* Answers `need`: publishes, then wakes a sleeper. The light fence and the
 * relaxed look at the sleeper count are the Dekker half that pairs with
 * fj_sleep_park (store SLEEPING, heavy fence, look at the shared parts):
 * either a parking worker sees the published tasks, or we see it and wake
 * it. See fence.h for why light suffices. A parked worker cannot ask again,
 * so while workers sleep we keep asking ourselves: the next fork publishes
 * and wakes another one (as every fork did before the split deque). */
void fj__publish(fj_worker_fast *fast)
{
    fj_worker *w = (fj_worker *)fast;
    fj_pool *p = w->pool;
    if (fj_deque_publish(&w->fast.dq) == 0) return;
    fj_fence_light();
    /* Relaxed: ordered by the fence above (the protocol in sleep.c). */
    if (atomic_load_explicit(&p->sleepers, memory_order_relaxed) <= 0) return;
    fj_sleep_wake_one(p, w->index);
    /* Relaxed: a hint to ourselves, read at our next fork. */
    atomic_store_explicit(&w->fast.dq.need, 1, memory_order_relaxed);
}

/* Everything fj_fork's inline path leaves to us: a thread that is not a
 * worker, a session recording, a full deque. */
int fj__fork_slow(fj_task *t)
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
    /* Relaxed: the frame is published to thieves by the deque's release. */
    atomic_store_explicit(&t->state, FJ_TASK_PENDING, memory_order_relaxed);
    atomic_store_explicit(&t->thief, 0, memory_order_relaxed);
    const int traced = FJ__RECORDING(&w->fast) != 0;
    t->id = traced ? FJ_TASK_ID(w->index + 1, ++w->next_task_seq) : 0;
    /* Emitted before the push so that no steal of t can precede it. */
    if (traced)
        FJ_TRACE(fork, w->pool->id, w->index, t->id, fj_current_task_id(w), t->size_hint, site);
    int tag = traced || (t->flags & FJ_TASK_COMPLETER);
    if (fj__deque_try_push(&w->fast.dq, tag ? fj_slot_tag(t) : t) != 0) {
        /* Full: run the task now, lose nothing. */
        FJ_STAT_INC(w, forks_unpushed);
        fj_task_run(w, t);
        return FJ_OK;
    }
    /* Relaxed: as in fj_fork. */
    if (atomic_load_explicit(&w->fast.dq.need, memory_order_relaxed)) fj__publish(&w->fast);
    /* After the push and the publishing: what the fork cost is not the
     * parent's own code (exec_joined). Only this worker reads it, when its
     * join pops t; a thief never does. Not a completer: once pushed, its
     * frame may already be completed and reused elsewhere. */
    if (traced && !(t->flags & FJ_TASK_COMPLETER)) t->forked_ns = fj_stamp();
    return FJ_OK;
}

/* Where a waiting joiner looks for work: the thief's deque first (it holds
 * the stolen task's own children — leapfrogging), then anyone's. */
static fj_task *help_find(fj_worker *w, const fj_task *awaited)
{
    /* Relaxed: a hint only; a stale value just means a worse first victim. */
    int thief = atomic_load_explicit(&awaited->thief, memory_order_relaxed) - 1;
    fj_task *t = NULL;
    if (thief >= 0 && thief != w->index) t = steal_from(w, thief);
    return t ? t : steal_round(w);
}

/* The event of a join that waits for t: join_stolen says how long the
 * parent ran its own code ahead of the join (joined_at: when the join was
 * called, 0 if no session recorded then), join alone when that is not
 * known (a completer has no forked_ns; a session that began in between;
 * the stamps' rate not measured yet). */
static void join_begin_trace(fj_worker *w, const fj_task *t, uint64_t joined_at)
{
    if (!t->id) return;
    uint64_t ahead;
    if (joined_at && !(t->flags & FJ_TASK_COMPLETER) &&
        fj_stamp_ns(t->forked_ns, joined_at, &ahead) == 0)
        FJ_TRACE(join_stolen, w->pool->id, w->index, t->id, ahead);
    else
        FJ_TRACE(join, w->pool->id, w->index, t->id);
}

static void join_help(fj_worker *w, fj_task *t, uint64_t joined_at)
{
    FJ_STAT_INC(w, joins_waited);
    join_begin_trace(w, t, joined_at);
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
    if (t->id) FJ_TRACE(joined, w->pool->id, w->index, t->id);
}

/* Everything fj_join's inline path leaves to us: t stolen, traced, not on
 * top of the deque, or a thread that is not a worker. */
void fj__join_slow(fj_task *t)
{
    fj_worker *w = fj_self;
    if (!w) {
        /* Forked outside a pool: fj_fork already ran it. */
        while (!fj_task_is_done(t))
            sched_yield();
        return;
    }
    FJ_STAT_INC(w, joins_slow);
    /* When the parent called this join, if a session records. */
    uint64_t joined_at = FJ__RECORDING(&w->fast) ? fj_stamp() : 0;
    const uint64_t id = t->id;
    bool told = false; /* t ran here as exec_joined: its end was its join */
    /* Run our own deque's tasks (t itself, if nobody stole it, is at the
     * bottom) until t is done; once the deque is empty t was stolen. */
    while (!fj_task_is_done(t)) {
        fj_task *x = own_pop(w);
        if (!x) {
            join_help(w, t, joined_at);
            return;
        }
        bool by_join = task_run(w, x, joined_at);
        if (x == t) told = by_join;
    }
    /* Done without a wait (a thief finished it, a full deque's fork ran it,
     * or it ran here with a plain exec): the join is now (events.md). Only
     * the slow joins that found a task done pay this event. */
    if (id && !told) FJ_TRACE(join_done, w->pool->id, w->index, id);
}

int fj_task_done(const fj_task *t)
{
    return fj_task_is_done(t);
}

int fj_worker_index(void)
{
    return fj_self ? fj_self->index : -1;
}
