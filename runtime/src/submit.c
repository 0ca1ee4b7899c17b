/* External submission: the pool's root-task queue, fj_submit, fj_wait and
 * fj_invoke. */
#include "fast.h"
#include "futex.h"
#include "offcpu.h"

void fj_submit_queue_init(fj_submit_queue *q)
{
    pthread_mutex_init(&q->lock, NULL);
    q->head = q->tail = NULL;
    atomic_init(&q->count, 0);
}

void fj_submit_queue_destroy(fj_submit_queue *q)
{
    pthread_mutex_destroy(&q->lock);
}

static void submit_queue_push(fj_submit_queue *q, fj_task *t)
{
    pthread_mutex_lock(&q->lock);
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    /* Relaxed: the count is a hint read without the lock; the task itself
     * is handed over under the mutex. */
    atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
    pthread_mutex_unlock(&q->lock);
}

fj_task *fj_submit_queue_pop(fj_submit_queue *q)
{
    /* Relaxed: the cheap emptiness check on every idle scan. */
    if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&q->lock);
    fj_task *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q->lock);
    return t;
}

static int caller_index_in(const fj_pool *p)
{
    return fj_self && fj_self->pool == p ? fj_self->index : -1;
}

int fj_submit(fj_pool *p, fj_task *t)
{
    return fj_submit_at(p, t, FJ_CALLER_SITE());
}

int fj_submit_at(fj_pool *p, fj_task *t, uint64_t site)
{
    if (!p || !t || !t->fn) return FJ_EINVAL;
    t->flags |= FJ_TASK_ROOT;
    t->pool = p;
    atomic_store_explicit(&t->state, FJ_TASK_PENDING, memory_order_relaxed);
    atomic_store_explicit(&t->thief, 0, memory_order_relaxed);
    /* Relaxed: only uniqueness matters. */
    t->id =
        FJ_TASK_ID(0, atomic_fetch_add_explicit(&p->next_root_seq, 1, memory_order_relaxed) + 1);
    /* Relaxed: ordered before the hand-over by the queue's mutex. */
    atomic_fetch_add_explicit(&p->roots_in_flight, 1, memory_order_relaxed);
    /* Once per client thread, before the round trip it would lengthen. */
    if (!fj_self) fj_offcpu_client_begin(p);
    FJ_TRACE(submit, p->id, caller_index_in(p), t->id, site);
    submit_queue_push(&p->submissions, t);
    /* Seq_cst fence: the waker's half of the parking handshake (sleep.c). */
    atomic_thread_fence(memory_order_seq_cst);
    fj_sleep_wake_one(p, caller_index_in(p));
    return FJ_OK;
}

void fj_wait(fj_task *t)
{
    /* Spin first: short roots finish before a futex round trip would. */
    for (int i = 0; i < FJ_WAIT_SPINS; i++) {
        if (fj_task_is_done(t)) goto done;
        cpu_relax();
    }
    uint32_t seen = FJ_TASK_PENDING;
    /* Acquire on both paths: if the task is already DONE we read its
     * results. Announce a sleeper so that fj_task_mark_done wakes us. */
    atomic_compare_exchange_strong_explicit(&t->state, &seen, FJ_TASK_WAITER, memory_order_acquire,
                                            memory_order_acquire);
    while (!fj_task_is_done(t))
        futex_wait(&t->state, FJ_TASK_WAITER);
done:
    /* the wait is over: a slow point of the client (fj_offcpu_client_drain) */
    if (t->pool && !fj_self) fj_offcpu_client_drain(t->pool, t->id);
    if (t->pool) FJ_TRACE(result, t->pool->id, caller_index_in(t->pool), t->id);
}

int fj_invoke(fj_pool *p, fj_task *t)
{
    uint64_t site = FJ_CALLER_SITE();
    if (!p || !t || !t->fn) return FJ_EINVAL;
    if (fj_self && fj_self->pool == p) {
        /* From inside a task of this pool: blocking a worker would waste
         * it, so fork and join (which runs t here unless stolen). */
        fj_fork_at(t, site); /* not the inline fork: t may be a completer */
        fj_join(t);
        return FJ_OK;
    }
    int rc = fj_submit_at(p, t, site);
    if (rc == FJ_OK) fj_wait(t);
    return rc;
}
