/* The OMPT entry point (ompt_start_tool), the registration of every
 * callback, and the process's one pool. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "switches.h"
#include "tool.h"

static char runtime_version[128] = "unknown";
_Atomic bool fjomp_stopped;

/* fork() without exec: the child goes on with a copy of the tool's state
 * (the pool begun, its workers' numbers) and, unless liblttng-ust-fork is
 * preloaded, with its parent's LTTng-UST buffers and cached pid, so that
 * every event it emitted landed in its parent's trace, counted in the
 * parent's pool (issue 24). The tool stops in the child instead: no event
 * of the child's, and the parent's trace is its own. (A child that execs
 * is a new program, traced as usual when it loads the tool.) */
static void on_fork_child(void)
{
    atomic_store_explicit(&fjomp_stopped, true, memory_order_relaxed); /* see emit.h */
    fjomp_thread_forked();
}
/* 0: not begun, 1: begun, 2: ended. Acq_rel/acquire: a thread that sees 1
 * emits after pool_begin in time (the analyzer drops events of a pool it
 * has not seen begin). */
static _Atomic int pool_state;

bool fjomp_pool_open(void)
{
    return atomic_load_explicit(&pool_state, memory_order_acquire) == 1;
}

void fjomp_set_runtime_version(const char *version)
{
    snprintf(runtime_version, sizeof runtime_version, "%s", version ? version : "unknown");
}

void fjomp_pool_begin(uint32_t workers)
{
    if (atomic_load_explicit(&pool_state, memory_order_acquire) != 0) return;
    int expected = 0;
    /* Only the first parallel region (of any thread) begins the pool. The
     * events are emitted before the state is published, so any event of the
     * pool follows them. A racing thread just skips its events meanwhile. */
    static _Atomic int claimed;
    if (!atomic_compare_exchange_strong_explicit(&claimed, &expected, 1, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    fj_switches_prepare();
    FJOMP_EMIT(pool_begin, FJOMP_POOL, -1, workers);
    FJOMP_EMIT(pool_runtime, FJOMP_POOL, -1, "openmp", runtime_version);
    FJOMP_EMIT(joins_told, FJOMP_POOL, -1); /* sync.c: taskwaits always joined */
    atomic_store_explicit(&pool_state, 1, memory_order_release);
}

void fjomp_pool_end(void)
{
    int expected = 1;
    /* Acq_rel: after every event the threads emitted before shutdown. */
    if (atomic_compare_exchange_strong_explicit(&pool_state, &expected, 2, memory_order_acq_rel,
                                                memory_order_relaxed))
        FJOMP_EMIT(pool_end, FJOMP_POOL, -1);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    (void)initial_device_num;
    (void)tool_data;
    fjomp_set_cb set = (fjomp_set_cb)lookup("ompt_set_callback");
    if (!set) return 0;
    bool ok = fjomp_register_parallel(set) && fjomp_register_tasks(set) &&
              fjomp_register_sync(set) && fjomp_register_mutex(set);
    if (!ok) {
        fprintf(stderr, "libfjtrace-omp: the OpenMP runtime refused a callback the tool needs; "
                        "not tracing\n");
        return 0; /* the runtime then unloads the tool */
    }
    /* Registered once the tool stays (the library is linked -z nodelete:
     * libomp's dlclose at shutdown must not leave a dangling handler). */
    if (pthread_atfork(NULL, NULL, on_fork_child))
        fprintf(stderr, "libfjtrace-omp: cannot register a fork handler: a child forked "
                        "without exec would be recorded into its parent's trace\n");
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    fjomp_thread *th = fjomp_enter(); /* the last drain tells the tool's time */
    fjomp_thread_end();
    fjomp_pool_end();
    fjomp_leave(th);
}

/* The one symbol the runtime looks up in a tool named by OMP_TOOL_LIBRARIES. */
__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime)
{
    (void)omp_version;
    static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
    fjomp_set_runtime_version(runtime);
    return &result;
}
