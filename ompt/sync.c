/* Waits: barriers, taskwait and taskgroup, from sync_region_wait (emitted
 * by libomp around every such wait, fast or not; tasks the thread runs
 * meanwhile nest inside).
 * - barrier: join/joined with the waiting implicit task's own id: the
 *   thread waits for its team (always a wait). At the region's closing
 *   barrier the end of the wait is also the implicit task's end
 *   (closes_region).
 * - taskwait: join/joined with task 0 (the awaited child is not known),
 *   only when the waiting task has a child not complete when the wait
 *   begins ("had to wait"); otherwise (fast path) join_done with task 0:
 *   every join is told (joins_told, tool.c).
 * - taskgroup: join/joined with task 0 always (its descendants are not
 *   counted, so a fast path cannot be told).
 * One bit per open wait says whether its end must emit joined: the ends
 * come with no data we could trust (libomp reports a worker's last
 * barrier end late, with no parallel data). */
#include "emit.h"
#include "tool.h"

static bool is_barrier(ompt_sync_region_t kind)
{
    switch (kind) {
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_teams:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
        return true;
    default:
        return false;
    }
}

/* The task id a join at this wait names, or -1: no join. */
static int64_t join_target(ompt_sync_region_t kind, const fjomp_task *t)
{
    if (!t || !t->emitted) return -1;
    if (is_barrier(kind)) return (int64_t)t->id;
    if (kind == ompt_sync_region_taskgroup) return 0;
    if (kind == ompt_sync_region_taskwait) return fjomp_task_unfinished_children(t) > 0 ? 0 : -1;
    return -1;
}

/* Whether this barrier wait closes implicit task t's parallel region:
 * libomp gives the closing barrier the parallel construct's own return
 * address (parallel_begin stored it in parallel_data) on the team's
 * primary thread; a barrier in the region's code has its own, and the
 * other threads' closing waits have none (their ends come late anyway). */
static bool closes_region(ompt_sync_region_t kind, const ompt_data_t *parallel_data,
                          const void *codeptr_ra, const fjomp_task *t)
{
    return is_barrier(kind) && t && t->implicit && t->emitted && parallel_data && codeptr_ra &&
           (uint64_t)(uintptr_t)codeptr_ra == parallel_data->value;
}

static void wait_begin(ompt_sync_region_t kind, const ompt_data_t *parallel_data,
                       ompt_data_t *task_data, const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_self();
    fjomp_task *waiting = fjomp_task_of(task_data);
    if (th->wait_depth < FJOMP_MAX_WAIT_NEST)
        th->closing[th->wait_depth] =
            closes_region(kind, parallel_data, codeptr_ra, waiting) ? waiting : NULL;
    int64_t target = fjomp_pool_open() ? join_target(kind, waiting) : -1;
    /* A taskwait with every child complete waits for nothing, but is their
     * join all the same (join_done, task 0: the analyzer's span). */
    if (target < 0 && kind == ompt_sync_region_taskwait && fjomp_pool_open()) {
        if (waiting && waiting->emitted) FJOMP_EMIT(join_done, FJOMP_POOL, fjomp_worker(th), 0);
    }
    bool joins = target >= 0 && th->wait_depth < FJOMP_MAX_WAIT_NEST;
    if (th->wait_depth < FJOMP_MAX_WAIT_NEST) th->join_bits = th->join_bits << 1 | joins;
    th->wait_depth++;
    fjomp_offcpu_drain(th, joins);
    if (!joins) return;
    th->join_tasks[th->wait_depth - 1] = (uint64_t)target;
    FJOMP_EMIT(join, FJOMP_POOL, fjomp_worker(th), (uint64_t)target);
}

static void wait_end(void)
{
    fjomp_thread *th = fjomp_self();
    const uint32_t depth = th->wait_depth; /* 0: began before the tool knew */
    const bool kept = depth > 0 && depth - 1 < FJOMP_MAX_WAIT_NEST;
    const bool joined = kept && (th->join_bits & 1) && fjomp_pool_open();
    fjomp_task *closing = kept ? th->closing[depth - 1] : NULL;
    const bool ends = closing && closing->emitted && !closing->ended && fjomp_pool_open();
    fjomp_offcpu_drain(th, joined || ends);
    if (depth == 0) return;
    th->wait_depth--;
    if (!kept) return;
    th->join_bits >>= 1;
    if (joined) FJOMP_EMIT(joined, FJOMP_POOL, fjomp_worker(th), th->join_tasks[depth - 1]);
    if (closing) fjomp_implicit_emit_end(th, closing, false);
}

/* Times itself (tool.h, fjomp_enter). */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_enter();
    if (endpoint == ompt_scope_begin)
        wait_begin(kind, parallel_data, task_data, codeptr_ra);
    else if (endpoint == ompt_scope_end)
        wait_end();
    fjomp_leave(th);
}

bool fjomp_register_sync(fjomp_set_cb set)
{
    return set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait) ==
           ompt_set_always;
}
