/* Explicit tasks: creation (fork, with its creation site), the
 * running thread's switches (exec, executed, inferred steal, untied
 * suspend/resume), and dependence edges. */
#include "emit.h"
#include "tool.h"

static void task_create(ompt_data_t *encountering_task_data,
                        const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                        int flags, int has_dependences, const void *codeptr_ra)
{
    (void)encountering_task_frame;
    (void)has_dependences;
    if (!new_task_data || !(flags & ompt_task_explicit)) return;
    fjomp_task *parent = fjomp_task_of(encountering_task_data);
    fjomp_thread *th = fjomp_self();
    fjomp_task *t = fjomp_task_new(th, parent);
    new_task_data->ptr = t;
    if (!t) return;
    t->untied = (flags & ompt_task_untied) != 0;
    if (!fjomp_pool_open()) return; /* outside any parallel region */
    t->emitted = true;
    /* Emitted before the runtime queues the task: no steal or exec of it can
     * come first. Its parent, the encountering task, is the task running on
     * this thread: the innermost open exec of its worker, from which the
     * analyzer derives it (docs/events.md). */
    const uint64_t site = (uint64_t)(uintptr_t)codeptr_ra;
    /* fork_wide only for a code address above 2^48 (fjtrace_tp.h). */
    if (fjtrace_fork_packs(0, site))
        FJOMP_EMIT(fork, FJOMP_POOL, fjomp_worker(th), t->id, 0, site);
    else
        FJOMP_EMIT(fork_wide, FJOMP_POOL, fjomp_worker(th), t->id, 0, site);
}

/* Whether take_up (below) writes an event for next: its first start, or an
 * untied task going on after its part ended. */
static bool takes_up(const fjomp_task *next)
{
    return next && next->emitted && (!next->started || next->suspended);
}

/* The running thread takes up `next` on top of `below`: a first start, or
 * an untied task going on after its part ended (resume). */
static void take_up(fjomp_task *next, fjomp_task *below, int32_t w)
{
    next->below = below;
    if (!next->started) {
        next->started = true;
        /* Inferred steal: run by another thread than its creator. The
         * victim is the creator: libomp queues a task on its creator's
         * deque, except a task released by a dependence (docs/openmp.md). */
        if (next->creator != w) FJOMP_EMIT(steal, FJOMP_POOL, w, next->id, next->creator);
        FJOMP_EMIT(exec, FJOMP_POOL, w, next->id);
    } else if (next->suspended) {
        next->suspended = false;
        FJOMP_EMIT(resume, FJOMP_POOL, w, next->id);
    }
}

static bool finished(ompt_task_status_t status)
{
    return status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_detach;
}

/* A switch on the running thread from prior to next:
 * - SWITCH_AGAIN: prior is next, a part of an untied task taken up at once;
 * - SWITCH_END: prior complete: its end; next is the task below it (or one
 *   taken up on top of that);
 * - SWITCH_PART: untied prior back to the task below it: its part ended.
 *   clang runs an untied task in parts, re-queueing its continuation at
 *   each task scheduling point: the task is off the thread until a thread
 *   takes the continuation up (a resume; the same thread often does at
 *   once, in a serialised team as a switch from the task to itself). The
 *   analyzer counts as suspensions only the parts after which another task
 *   ran on the thread or another thread took the task up (docs/openmp.md);
 * - SWITCH_ON_TOP: anything else: next runs on top of prior (a child run
 *   inside a taskwait, a task run at once when created, or in a
 *   taskyield): a nested task, as in libfj's helping joins. prior did not
 *   leave: an untied task waiting in a taskwait is a join, not a
 *   suspension. */
typedef enum { SWITCH_ON_TOP, SWITCH_AGAIN, SWITCH_END, SWITCH_PART } switch_kind;

static switch_kind switch_of(const fjomp_task *prior, ompt_task_status_t prior_task_status,
                             const fjomp_task *next)
{
    if (!prior) return SWITCH_ON_TOP;
    if (prior == next) return SWITCH_AGAIN;
    if (!prior->implicit && finished(prior_task_status)) return SWITCH_END;
    if (prior->untied && !prior->implicit && next == prior->below) return SWITCH_PART;
    return SWITCH_ON_TOP;
}

/* Whether task_schedule writes an event for a switch of kind k: its
 * drain's reading says so (tool.h). */
static bool switch_writes(switch_kind k, const fjomp_task *prior, const fjomp_task *next)
{
    switch (k) {
    case SWITCH_PART:
        return prior->emitted; /* suspend */
    case SWITCH_END:
        /* executed; else back to the task below, or a task taken up */
        return prior->emitted || (next != prior->below && takes_up(next));
    default:
        return takes_up(next);
    }
}

static void task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                          ompt_data_t *next_task_data)
{
    /* Fulfilling a detached task's event is no switch on this thread. */
    if (prior_task_status == ompt_task_early_fulfill || prior_task_status == ompt_task_late_fulfill)
        return;
    fjomp_task *prior = fjomp_task_of(prior_task_data);
    fjomp_task *next = fjomp_task_of(next_task_data);
    fjomp_thread *th = fjomp_self();
    int32_t w = fjomp_worker(th);
    const switch_kind k = switch_of(prior, prior_task_status, next);
    /* The thread's CPU clock where one piece of a task ends and the next
     * begins (thread.c): the analyzer's on-CPU time of each piece. */
    fjomp_offcpu_drain(th, switch_writes(k, prior, next));
    fjomp_task *below = prior;
    if (k == SWITCH_AGAIN) {
        below = prior->below;
    } else if (k == SWITCH_END) {
        below = prior->below;
        if (prior->emitted) FJOMP_EMIT(executed, FJOMP_POOL, w);
        prior_task_data->ptr = NULL;
        fjomp_task_complete(th, prior);
        if (next == below) return;
    } else if (k == SWITCH_PART) {
        if (prior->emitted) {
            prior->suspended = true;
            FJOMP_EMIT(suspend, FJOMP_POOL, w, prior->id);
        }
        return;
    }
    if (next && next->emitted) take_up(next, below, w);
}

static void task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data)
{
    fjomp_task *src = fjomp_task_of(src_task_data);
    fjomp_task *sink = fjomp_task_of(sink_task_data);
    if (!src || !sink || !sink->emitted) return;
    FJOMP_EMIT(dependence, FJOMP_POOL, fjomp_worker(fjomp_self()), sink->id,
               src->emitted ? src->id : 0);
}

/* The callbacks: each times itself (tool.h, fjomp_enter). */
static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_enter();
    task_create(encountering_task_data, encountering_task_frame, new_task_data, flags,
                has_dependences, codeptr_ra);
    fjomp_leave(th);
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    fjomp_thread *th = fjomp_enter();
    task_schedule(prior_task_data, prior_task_status, next_task_data);
    fjomp_leave(th);
}

static void on_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data)
{
    fjomp_thread *th = fjomp_enter();
    task_dependence(src_task_data, sink_task_data);
    fjomp_leave(th);
}

bool fjomp_register_tasks(fjomp_set_cb set)
{
    return set(ompt_callback_task_create, (ompt_callback_t)on_task_create) == ompt_set_always &&
           set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule) == ompt_set_always &&
           set(ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence) ==
               ompt_set_always;
}
