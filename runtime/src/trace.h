/* The runtime's single door to the fjtrace tracepoints: FJ_TRACE(event, ...)
 * becomes lttng_ust_tracepoint(fjtrace, event, ...) when libfj is built with
 * -Dtracing=enabled, and nothing at all otherwise. */
#ifndef FJ_TRACE_H
#define FJ_TRACE_H

#ifdef FJ_TRACING
#include "fjtrace_tp.h"
#define FJ_TRACE(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)
#else
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
#endif

#endif
