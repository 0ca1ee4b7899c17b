/* Chase–Lev deque; see deque.h for the reference. Each memory order below is
 * the one the PPoPP 2013 proof uses, except where a comment says otherwise. */
#include "deque.h"

#include <stdlib.h>

static fj_deque_array *array_new(size_t capacity)
{
    fj_deque_array *a = malloc(sizeof(*a) + capacity * sizeof(a->slot[0]));
    if (!a) return NULL;
    a->mask = capacity - 1;
    a->retired_next = NULL;
    return a;
}

int fj_deque_init(fj_deque *dq, size_t capacity)
{
    size_t cap = 16;
    while (cap < capacity)
        cap <<= 1;
    fj_deque_array *a = array_new(cap);
    if (!a) return FJ_ENOMEM;
    /* Relaxed: the deque is published to other threads by pthread_create,
     * which synchronises. */
    atomic_init(&dq->top, 0);
    atomic_init(&dq->bottom, 0);
    atomic_init(&dq->array, a);
    dq->retired = NULL;
    return FJ_OK;
}

void fj_deque_destroy(fj_deque *dq)
{
    free(atomic_load_explicit(&dq->array, memory_order_relaxed));
    for (fj_deque_array *r = dq->retired, *next; r; r = next) {
        next = r->retired_next;
        free(r);
    }
}

/* Owner only: copy live slots into an array twice as large. The old array is
 * kept (not freed) because a thief may still be reading a slot from it. */
static fj_deque_array *deque_grow(fj_deque *dq, fj_deque_array *old, int64_t top, int64_t bottom)
{
    fj_deque_array *a = array_new((old->mask + 1) * 2);
    if (!a) return NULL;
    for (int64_t i = top; i < bottom; i++) {
        fj_task *t = atomic_load_explicit(&old->slot[i & old->mask], memory_order_relaxed);
        atomic_store_explicit(&a->slot[i & a->mask], t, memory_order_relaxed);
    }
    old->retired_next = dq->retired;
    dq->retired = old;
    /* Release: a thief that loads the new array (acquire) must see the slots
     * copied into it. */
    atomic_store_explicit(&dq->array, a, memory_order_release);
    return a;
}

int64_t fj_deque_push(fj_deque *dq, fj_task *t)
{
    /* Relaxed: only the owner writes bottom. */
    int64_t b = atomic_load_explicit(&dq->bottom, memory_order_relaxed);
    /* Acquire: pairs with the thieves' CAS on top so that a slot freed by a
     * steal is not overwritten before the thief has read it. */
    int64_t top = atomic_load_explicit(&dq->top, memory_order_acquire);
    fj_deque_array *a = atomic_load_explicit(&dq->array, memory_order_relaxed);
    if (b - top > (int64_t)a->mask) {
        /* The published fix: after growing, use the new array, never the
         * stale pointer loaded above. */
        a = deque_grow(dq, a, top, b);
        if (!a) return -1;
    }
    atomic_store_explicit(&a->slot[b & a->mask], t, memory_order_relaxed);
    /* Release (the paper: release fence + relaxed store): a thief that
     * acquires this bottom sees the slot and everything the owner wrote into
     * the task frame before forking it. A release store is what ThreadSanitizer
     * understands, and on x86 and ARMv8 it costs the same as the fence. */
    atomic_store_explicit(&dq->bottom, b + 1, memory_order_release);
    return b - top;
}

fj_task *fj_deque_take(fj_deque *dq)
{
    int64_t b = atomic_load_explicit(&dq->bottom, memory_order_relaxed) - 1;
    fj_deque_array *a = atomic_load_explicit(&dq->array, memory_order_relaxed);
    atomic_store_explicit(&dq->bottom, b, memory_order_relaxed);
    /* Seq_cst fence: the store to bottom must be globally visible before we
     * read top, or an owner and a thief could both take the last task. */
    atomic_thread_fence(memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&dq->top, memory_order_relaxed);
    if (t > b) {
        /* Empty: restore bottom (relaxed: only the owner writes it). */
        atomic_store_explicit(&dq->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    fj_task *x = atomic_load_explicit(&a->slot[b & a->mask], memory_order_relaxed);
    if (t == b) {
        /* Last task: race the thieves for it. Seq_cst CAS as in the paper;
         * relaxed on failure since we only give up. */
        if (!atomic_compare_exchange_strong_explicit(&dq->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            x = NULL;
        atomic_store_explicit(&dq->bottom, b + 1, memory_order_relaxed);
    }
    return x;
}

fj_steal_result fj_deque_steal(fj_deque *dq, fj_task **out)
{
    /* Acquire on top, seq_cst fence, acquire on bottom: the fence orders our
     * read of top before our read of bottom against the owner's fence in
     * take; acquire on bottom pairs with the release in push (slot + frame
     * contents visible). */
    int64_t t = atomic_load_explicit(&dq->top, memory_order_acquire);
    atomic_thread_fence(memory_order_seq_cst);
    int64_t b = atomic_load_explicit(&dq->bottom, memory_order_acquire);
    if (t >= b) return FJ_STEAL_EMPTY;
    /* Acquire (the paper: consume): pairs with the release in deque_grow. */
    fj_deque_array *a = atomic_load_explicit(&dq->array, memory_order_acquire);
    fj_task *x = atomic_load_explicit(&a->slot[t & a->mask], memory_order_relaxed);
    /* Seq_cst CAS claims slot t against the owner and other thieves. */
    if (!atomic_compare_exchange_strong_explicit(&dq->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return FJ_STEAL_ABORT;
    *out = x;
    return FJ_STEAL_OK;
}

int64_t fj_deque_size_hint(fj_deque *dq)
{
    /* Relaxed: a hint; callers that must not miss work use a fence first. */
    int64_t b = atomic_load_explicit(&dq->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&dq->top, memory_order_relaxed);
    return b > t ? b - t : 0;
}
