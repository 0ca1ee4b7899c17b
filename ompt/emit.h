/* The tool's door to the fjtrace tracepoints (provider linked into the tool,
 * ompt/fjtrace_omp_tp.c). */
#ifndef FJOMP_EMIT_H
#define FJOMP_EMIT_H

#include <stdatomic.h>
#include <stdbool.h>

#include "fjtrace_tp.h"

/* True in a child forked without exec: the tool is stopped there (tool.c,
 * on_fork_child). Read relaxed: it is stored once, in the child, by its
 * only thread before any other exists (pthread_create orders the store
 * before every thread made later), and never in the parent. */
extern _Atomic bool fjomp_stopped;

#define FJOMP_EMIT(event, ...)                                                                     \
    do {                                                                                           \
        if (!atomic_load_explicit(&fjomp_stopped, memory_order_relaxed))                           \
            lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__);                                     \
    } while (0)

#endif
