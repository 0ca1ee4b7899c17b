/*
 * The inline fast path of libfj (the middle header layer): the few lines that
 * run on every fork and join. Everything slower (stealing, helping, parking)
 * is out of line in sched.c and sleep.c.
 */
#ifndef FJ_FAST_H
#define FJ_FAST_H

#include "internal.h"
#include "trace.h"

static inline int fj_task_is_done(const fj_task *t)
{
    /* Acquire: pairs with the release in fj_task_mark_done, so the joiner
     * sees everything the child's body wrote. */
    return atomic_load_explicit(&t->state, memory_order_acquire) == FJ_TASK_DONE;
}

static inline uint64_t fj_current_task_id(const fj_worker *w)
{
    return w->current ? w->current->id : 0;
}

/* The creation site recorded in fork and submit events: the return address
 * of the program's call into libfj, taken in the exported function the
 * program called (no unwinding) and passed down to the internal layers. */
#define FJ_CALLER_SITE()                                                                           \
    ((uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)))

/* Prepares t for a (re)fork and pushes it; returns the deque size before the
 * push, or -1 if the deque could not grow. site: see FJ_CALLER_SITE. */
static inline int64_t fj_fast_push(fj_worker *w, fj_task *t, uint64_t site)
{
    t->id = FJ_TASK_ID(w->index + 1, ++w->next_task_seq);
    /* Relaxed: the frame is published to thieves by the push's release. */
    atomic_store_explicit(&t->state, FJ_TASK_PENDING, memory_order_relaxed);
    atomic_store_explicit(&t->thief, -1, memory_order_relaxed);
    /* Emitted before the push so that no steal of t can precede it. */
    FJ_TRACE(fork, w->pool->id, w->index, t->id, fj_current_task_id(w), t->size_hint, site);
    FJ_STAT_INC(w, forks);
    return fj_deque_push(&w->deque, t);
}

#endif
