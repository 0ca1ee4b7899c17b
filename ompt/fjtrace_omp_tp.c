/* Instantiates the fjtrace probes inside libfjtrace-omp: an OpenMP program
 * does not link libfj, so the tool brings the provider itself. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "fjtrace_tp.h"
