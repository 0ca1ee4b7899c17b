/*
 * Chase–Lev work-stealing deque, in the C11 formulation of Lê, Pop, Cohen
 * and Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
 * Models" (PPoPP 2013), with growth. The owner pushes and takes at the
 * bottom; thieves steal at the top.
 */
#ifndef FJ_DEQUE_H
#define FJ_DEQUE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fj.h"

typedef struct fj_deque_array {
    size_t mask;                         /* capacity - 1, capacity a power of two */
    struct fj_deque_array *retired_next; /* older arrays, freed at destroy */
    _Atomic(fj_task *) slot[];
} fj_deque_array;

typedef struct fj_deque {
    /* top and bottom on separate cache lines: thieves hammer top, the owner
     * bottom. */
    _Alignas(64) _Atomic int64_t top;
    _Alignas(64) _Atomic int64_t bottom;
    _Atomic(fj_deque_array *) array;
    fj_deque_array *retired; /* owner-only list of outgrown arrays */
} fj_deque;

/* Result of a steal attempt: a task, or why there is none. */
typedef enum { FJ_STEAL_OK, FJ_STEAL_EMPTY, FJ_STEAL_ABORT } fj_steal_result;

int fj_deque_init(fj_deque *dq, size_t capacity);
void fj_deque_destroy(fj_deque *dq);
/* Owner only. Returns the number of tasks that were in the deque before the
 * push (as seen by the owner), or -1 if growing failed (task not pushed). */
int64_t fj_deque_push(fj_deque *dq, fj_task *t);
/* Owner only. NULL when empty. */
fj_task *fj_deque_take(fj_deque *dq);
/* Any thread. */
fj_steal_result fj_deque_steal(fj_deque *dq, fj_task **out);
/* Any thread; a racy snapshot, used only as a hint (idle checks, stats). */
int64_t fj_deque_size_hint(fj_deque *dq);

#endif
