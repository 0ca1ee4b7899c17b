/* Instantiates the fjtrace probes inside libfjtrace-jni: a JVM does not
 * link libfj, so the JNI library brings the provider itself (as the OMPT
 * tool does). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "fjtrace_tp.h"
