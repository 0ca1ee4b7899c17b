/*
 * The split work-stealing deque (after Lace: van Dijk and van de Pol, "Lace:
 * non-blocking split deque for work-stealing", Euro-Par 2014 workshops). The
 * structure is in the public fj_fast.h because fj_fork and fj_join push and
 * pop its private part inline; everything that involves thieves is here.
 *
 * The deque is an array of task frames (fj_frame). Frames [0, tail) were
 * stolen and stay in place until their thieves are done and the owner's
 * sync drops them; [tail, split) are shared (thieves steal the oldest, at
 * tail); [split, head) are private to the owner, who pushes and pops at
 * head. `ts` packs tail (16 bits), split (16 bits) and a generation (32
 * bits) that the owner bumps whenever it takes shared frames back or drops
 * a stolen one, so that a thief's CAS can only succeed on the very state in
 * which it read `ts` (no ABA through frame reuse). Frames from `end` up are
 * never shared: deeply nested spawns run where they are pushed.
 */
#ifndef FJ_DEQUE_H
#define FJ_DEQUE_H

#include <stddef.h>
#include <stdint.h>

#include "fj.h"

/* Indices live in 16 bits of `ts`, so a deque holds at most this many. */
#define FJ_DEQUE_MAX_CAPACITY 32768

/* Result of a steal attempt: a frame, or why there is none. */
typedef enum { FJ_STEAL_OK, FJ_STEAL_EMPTY, FJ_STEAL_ABORT } fj_steal_result;

/* What the owner finds on top of its deque (the frame at head - 1). */
typedef enum {
    FJ_TOP_NONE,  /* the deque is empty */
    FJ_TOP_OWN,   /* private, or taken back from the shared part: the owner's */
    FJ_TOP_STOLEN /* a thief took it; it stays in place until the thief is done */
} fj_top;

/* capacity frames can be shared; FJ_DEQUE_OVERFLOW more above them are the
 * owner's alone (spawns nested that deep run where they are pushed). */
int fj_deque_init(fj_deque *dq, size_t capacity);
void fj_deque_destroy(fj_deque *dq);
/* Owner only: pushes are inline (fj_fast.h). Classifies the top frame,
 * taking shared frames back when the private part is empty. */
fj_top fj_deque_top(fj_deque *dq);
/* Owner only, after fj_deque_top said STOLEN and the thief marked the frame
 * done: drops it; the deque restarts at that frame's slot. */
void fj_deque_drop_stolen(fj_deque *dq);
/* Owner only: answers a thief's request by moving the whole private part
 * (below `end`) to the shared part, so that thieves find work even while
 * the owner is descheduled (the owner takes back what it reaches first).
 * Returns the number of frames moved. */
size_t fj_deque_publish(fj_deque *dq);
/* Any thread: asks the owner to share its private part: raises `need` and
 * rings its gate, so that its next spawn or fj_fork publishes. */
void fj_deque_ask(fj_deque *dq);
/* Before the deque is shared: the recording state word its spawns check
 * (fj_trace_gate_off until then). */
void fj_deque_set_trace_gate(fj_deque *dq, const volatile int *trace_gate);
/* Before the deque is shared: whether its pool counts tasks
 * (fj_pool_config.count_tasks): the gate then stays rung and untraced
 * typed frames are pushed COUNTED (fj_fast.h, `rest_gate`). */
void fj_deque_set_counting(fj_deque *dq, int count_tasks);
/* Any thread: takes the oldest shared frame, which stays in the owner's
 * array (the thief reads it only after winning it). EMPTY also asks the
 * owner to share (fj_deque_ask). */
fj_steal_result fj_deque_steal(fj_deque *dq, fj_frame **out);
/* Any thread; a racy snapshot of the shared part's size (idle checks). */
int64_t fj_deque_size_hint(fj_deque *dq);

#endif
