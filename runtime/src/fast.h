/*
 * Small inline helpers shared by the out-of-line scheduler modules (the
 * middle header layer). The fork and join fast paths themselves are in the
 * public fj_fast.h, inlined into the program.
 */
#ifndef FJ_SCHED_FAST_H
#define FJ_SCHED_FAST_H

#include "internal.h"
#include "trace.h"

static inline int fj_task_is_done(const fj_task *t)
{
    /* Acquire: pairs with the release in fj_task_mark_done, so the joiner
     * sees everything the child's body wrote. */
    return atomic_load_explicit(&t->state, memory_order_acquire) == FJ_TASK_DONE;
}

/* The creation site recorded in fork and submit events: the return address
 * of the program's call into libfj, taken in the exported function the
 * program called (no unwinding) and passed down to the internal layers. */
#define FJ_CALLER_SITE()                                                                           \
    ((uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)))

#endif
