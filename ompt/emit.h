/* The tool's door to the fjtrace tracepoints (provider linked into the tool,
 * ompt/fjtrace_omp_tp.c). */
#ifndef FJOMP_EMIT_H
#define FJOMP_EMIT_H

#include "fjtrace_tp.h"

#define FJOMP_EMIT(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)

#endif
