/* Instantiates the fjtrace probes inside libfj (the provider is linked into
 * the library, so a traced program needs nothing but libfj). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "fjtrace_tp.h"
