/*
 * The split work-stealing deque (after Lace: van Dijk and van de Pol, "Lace:
 * non-blocking split deque for work-stealing", Euro-Par 2014 workshops). The
 * structure is in the public fj_fast.h because fj_fork and fj_join push and
 * pop its private part inline; everything that involves thieves is here.
 *
 * Slots [0, tail) were taken by thieves, [tail, split) are shared (thieves
 * steal the oldest, at tail), [split, head) are private to the owner, who
 * pushes and pops at head. `ts` packs tail (16 bits), split (16 bits) and a
 * generation (32 bits) that the owner bumps whenever it takes shared slots
 * back or resets the deque, so that a thief's CAS can only succeed on the
 * very state in which it read the slot (no ABA through slot reuse).
 */
#ifndef FJ_DEQUE_H
#define FJ_DEQUE_H

#include <stddef.h>
#include <stdint.h>

#include "fj.h"

/* Indices live in 16 bits of `ts`, so a deque holds at most this many. */
#define FJ_DEQUE_MAX_CAPACITY 32768

/* Result of a steal attempt: a task, or why there is none. */
typedef enum { FJ_STEAL_OK, FJ_STEAL_EMPTY, FJ_STEAL_ABORT } fj_steal_result;

int fj_deque_init(fj_deque *dq, size_t capacity);
void fj_deque_destroy(fj_deque *dq);
/* Owner only: pushes are fj__deque_try_push (fj_fast.h). A slot may hold a
 * task pointer with its low bit set (a traced task, see sched.c); pop and
 * steal return the pointer as stored. */
/* Owner only: the most recently pushed task, NULL when the deque is empty
 * (the private part, else shared slots taken back from the thieves). */
fj_task *fj_deque_pop(fj_deque *dq);
/* Owner only: answers a thief's request by moving the whole private part
 * to the shared part, so that thieves find work even while the owner is
 * descheduled (the owner takes back what it reaches first). Returns the
 * number of tasks moved. */
size_t fj_deque_publish(fj_deque *dq);
/* Any thread: takes the oldest shared task. EMPTY also raises `need`. */
fj_steal_result fj_deque_steal(fj_deque *dq, fj_task **out);
/* Any thread; a racy snapshot of the shared part's size (idle checks). */
int64_t fj_deque_size_hint(fj_deque *dq);

#endif
