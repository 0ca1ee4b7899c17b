/* The runtime's single door to the fjtrace tracepoints: FJ_TRACE(event, ...)
 * becomes lttng_ust_tracepoint(fjtrace, event, ...) when libfj is built with
 * -Dtracing=enabled, and nothing at all otherwise. */
#ifndef FJ_TRACE_H
#define FJ_TRACE_H

#ifdef FJ_TRACING
#include "fjtrace_tp.h"
#define FJ_TRACE(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)
#else
#define FJ_TRACE(event, ...) ((void)0)
#endif

#endif
