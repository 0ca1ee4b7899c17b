/* Threads, parallel regions and implicit tasks. Each implicit task of a
 * parallel region is a root task of the pool (submit, with the parallel
 * construct as its site, and exec when it begins; executed and result when
 * it ends); the tasks it creates hang below it. The team's primary thread
 * ends its implicit task when its wait at the region's closing barrier
 * ends (sync.c): what libomp does between that and the implicit task's end
 * (its teardown of the region: under a microsecond, but hundreds of us
 * were seen while a teammate was preempted) is the runtime's, not the
 * task's work.
 * libomp reports the end of a worker's implicit task (and of its last
 * barrier wait) only when that thread is released for the next region or
 * at shutdown: until then the worker counts as waiting in that barrier,
 * which is what it does. */
#include "emit.h"
#include "tool.h"

/* The callbacks time themselves (tool.h, fjomp_enter). */
static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    (void)type;
    (void)thread_data;
    /* numbers the threads in the order they start (fjomp_self) */
    fjomp_leave(fjomp_enter());
}

static void on_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
    fjomp_thread *th = fjomp_enter();
    fjomp_thread_end();
    fjomp_leave(th);
}

static void parallel_begin(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *parallel_data,
                           unsigned int requested_parallelism, int flags, const void *codeptr_ra)
{
    (void)encountering_task_data;
    (void)encountering_task_frame;
    (void)flags;
    /* The parallel construct's return address: the creation site of the
     * region's implicit tasks, which every thread of the team reads. */
    if (parallel_data) parallel_data->value = (uint64_t)(uintptr_t)codeptr_ra;
    fjomp_pool_begin(requested_parallelism);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_enter();
    parallel_begin(encountering_task_data, encountering_task_frame, parallel_data,
                   requested_parallelism, flags, codeptr_ra);
    fjomp_leave(th);
}

static void implicit_begin(ompt_data_t *task_data, uint64_t site)
{
    fjomp_thread *th = fjomp_self();
    fjomp_task *t = fjomp_task_new(th, NULL);
    task_data->ptr = t;
    if (!t) return;
    t->implicit = t->started = true;
    if (!fjomp_pool_open()) return;
    int32_t w = fjomp_worker(th);
    fjomp_offcpu_drain(th, true); /* the task's clock at its start */
    t->emitted = true;
    FJOMP_EMIT(submit, FJOMP_POOL, w, t->id, site);
    FJOMP_EMIT(exec, FJOMP_POOL, w, t->id);
}

void fjomp_implicit_emit_end(fjomp_thread *th, fjomp_task *t, bool drain)
{
    if (!t->emitted || t->ended || !fjomp_pool_open()) return;
    int32_t w = fjomp_worker(th);
    if (drain) fjomp_offcpu_drain(th, true); /* its last clock */
    FJOMP_EMIT(executed, FJOMP_POOL, w);
    FJOMP_EMIT(result, FJOMP_POOL, w, t->id);
    t->ended = true;
}

/* Usually already ended at the end of its wait at the region's closing
 * barrier (sync.c); a thread whose region had no such wait ends here. */
static void implicit_end(ompt_data_t *task_data)
{
    fjomp_task *t = fjomp_task_of(task_data);
    if (!t) return;
    fjomp_thread *th = fjomp_self();
    fjomp_implicit_emit_end(th, t, true);
    task_data->ptr = NULL;
    fjomp_task_complete(th, t);
}

static void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                          ompt_data_t *task_data, unsigned int actual_parallelism,
                          unsigned int index, int flags)
{
    (void)actual_parallelism;
    (void)index;
    if (!task_data) return;
    if (flags & ompt_task_initial) {
        /* The initial task (serial code) is not traced, but tasks created
         * outside any parallel region still need a parent record. */
        if (endpoint == ompt_scope_begin) {
            fjomp_task *t = fjomp_task_new(fjomp_self(), NULL);
            if (t) t->implicit = t->started = true;
            task_data->ptr = t;
        } else if (endpoint == ompt_scope_end && task_data->ptr) {
            fjomp_task_complete(fjomp_self(), task_data->ptr);
            task_data->ptr = NULL;
        }
        return;
    }
    if (endpoint == ompt_scope_begin)
        implicit_begin(task_data, parallel_data ? parallel_data->value : 0);
    else if (endpoint == ompt_scope_end)
        implicit_end(task_data);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
    fjomp_thread *th = fjomp_enter();
    implicit_task(endpoint, parallel_data, task_data, actual_parallelism, index, flags);
    fjomp_leave(th);
}

bool fjomp_register_parallel(fjomp_set_cb set)
{
    return set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin) == ompt_set_always &&
           set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end) == ompt_set_always &&
           set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) ==
               ompt_set_always &&
           set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task) == ompt_set_always;
}
