/* fj_mutex: a three-state futex mutex (Drepper, "Futexes Are Tricky",
 * mutex #2) whose contended path is traced. */
#include "fast.h"
#include "futex.h"

enum { LOCK_FREE = 0, LOCK_HELD = 1, LOCK_CONTENDED = 2 };
#define LOCK_SPINS 100

/* Lock ids for traces; relaxed: only uniqueness matters. */
static _Atomic uint32_t next_lock_id = 1;

static uint32_t trace_pool(void)
{
    return fj_self ? fj_self->pool->id : 0;
}

void fj_mutex_init(fj_mutex *m, const char *name)
{
    atomic_init(&m->word, LOCK_FREE);
    m->id = atomic_fetch_add_explicit(&next_lock_id, 1, memory_order_relaxed);
    m->name = name ? name : "fj_mutex";
    FJ_TRACE(lock_init, trace_pool(), fj_worker_index(), m->id, m->name);
}

static int lock_try(fj_mutex *m, uint32_t *seen)
{
    *seen = LOCK_FREE;
    /* Acquire on success: the critical section sees the previous holder's
     * writes. Relaxed on failure: we only look at the value. */
    return atomic_compare_exchange_strong_explicit(&m->word, seen, LOCK_HELD, memory_order_acquire,
                                                   memory_order_relaxed);
}

void fj_mutex_lock(fj_mutex *m)
{
    uint32_t seen;
    if (lock_try(m, &seen)) return; /* uncontended: no event */
    FJ_TRACE(lock_wait, trace_pool(), fj_worker_index(), m->id);
    for (int i = 0; i < LOCK_SPINS; i++) {
        cpu_relax();
        if (atomic_load_explicit(&m->word, memory_order_relaxed) == LOCK_FREE && lock_try(m, &seen))
            goto acquired;
    }
    /* Acquire: as in lock_try. Mark contended so that unlock wakes us. */
    while (atomic_exchange_explicit(&m->word, LOCK_CONTENDED, memory_order_acquire) != LOCK_FREE)
        futex_wait(&m->word, LOCK_CONTENDED);
acquired:
    FJ_TRACE(lock_acquired, trace_pool(), fj_worker_index(), m->id);
}

void fj_mutex_unlock(fj_mutex *m)
{
    /* Release: publishes the critical section to the next holder. */
    if (atomic_exchange_explicit(&m->word, LOCK_FREE, memory_order_release) == LOCK_CONTENDED)
        futex_wake(&m->word, 1);
}
