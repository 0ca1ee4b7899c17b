/*
 * Asymmetric fences for the parking handshake (sleep.c). The fork path must
 * order "publish the task" before "look at the sleeper count", and the
 * parker must order "announce SLEEPING" before "look for work". Both sides
 * need a store-load fence, but forks are hot and parking is rare, so, as in
 * liburcu and Folly, the hot side uses only a compiler barrier and the rare
 * side a process-wide barrier (membarrier(2), PRIVATE_EXPEDITED): every
 * running thread of the process executes a full fence, and threads not
 * running have passed one in the context switch. Where membarrier is not
 * available both sides fall back to a seq_cst fence.
 */
#ifndef FJ_FENCE_H
#define FJ_FENCE_H

#include <stdatomic.h>

/* Nonzero once membarrier was registered; written once, before any pool's
 * first worker starts (pthread_once + pthread_create order it). */
extern _Atomic int fj_fence_asymmetric;

/* Idempotent and thread-safe; called by fj_pool_create. */
void fj_fence_init(void);

/* The hot side: on fork, after the push, before reading the sleeper count. */
static inline void fj_fence_light(void)
{
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer does not model fences (gcc rejects them with -Wtsan
     * here); a seq_cst RMW is the same ordering in a form it understands. */
    static _Atomic int tsan_fence_word;
    atomic_fetch_add_explicit(&tsan_fence_word, 0, memory_order_seq_cst);
#else
    /* Relaxed: see the declaration. */
    if (atomic_load_explicit(&fj_fence_asymmetric, memory_order_relaxed))
        atomic_signal_fence(memory_order_seq_cst); /* compiler barrier only */
    else
        atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* The rare side: a parker between announcing itself and looking for work. */
void fj_fence_heavy(void);

#endif
