/* The runtime's single door to the fjtrace tracepoints: FJ_TRACE(event, ...)
 * becomes lttng_ust_tracepoint(fjtrace, event, ...) when libfj is built with
 * -Dtracing=enabled, and nothing at all otherwise. */
#ifndef FJ_TRACE_H
#define FJ_TRACE_H

/* Always zero: the gate of a library without tracing, and of threads that
 * are not workers. */
extern const int fj_trace_gate_off;

#ifdef FJ_TRACING
#include "fjtrace_tp.h"
#define FJ_TRACE(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)
/* The inline path's "is anybody recording" (fj_ctx.trace_gate):
 * LTTng-UST's state word of the fork tracepoint, set while a session has
 * fjtrace:fork enabled. Every fork checks this one word; the other events
 * of a traced task follow the fork's decision (untraced tasks get id 0 and
 * emit nothing), and each event still checks its own state when emitted. */
#define FJ_TRACE_GATE (&lttng_ust_tracepoint_fjtrace___fork.state)
/* A fork event: fork with site and size_hint in one field when they fit,
 * fork_wide otherwise (fjtrace_tp.h). */
#define FJ_TRACE_FORK(pool, worker, task, size_hint, site)                                         \
    do {                                                                                           \
        if (fjtrace_fork_packs(size_hint, site))                                                   \
            FJ_TRACE(fork, pool, worker, task, size_hint, site);                                   \
        else                                                                                       \
            FJ_TRACE(fork_wide, pool, worker, task, size_hint, site);                              \
    } while (0)
#else
#define FJ_TRACE_GATE (&fj_trace_gate_off)
/* Never called: keeps the arguments "used" so that builds without tracing
 * compile warning-free, while generating no code. */
static inline void fj_trace_compiled_out(int unused, ...)
{
    (void)unused;
}
#define FJ_TRACE(event, ...)                                                                       \
    do {                                                                                           \
        if (0) fj_trace_compiled_out(0, __VA_ARGS__);                                              \
    } while (0)
#define FJ_TRACE_FORK(...) FJ_TRACE(fork, __VA_ARGS__)
#endif

#endif
