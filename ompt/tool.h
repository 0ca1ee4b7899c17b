/* libfjtrace-omp: an OMPT tool that turns the OpenMP runtime's callbacks into
 * fjtrace events (docs/openmp.md). Shared state of its parts: the process's
 * one pool, the per-thread state, task records, and the callbacks each part
 * registers. */
#ifndef FJOMP_TOOL_H
#define FJOMP_TOOL_H

#include <omp-tools.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "switches.h"

/* ---- the pool: one per process, from the first parallel region to the
 * runtime's shutdown (tool finalize). */
#define FJOMP_POOL 1u
/* Nonzero once pool_begin was emitted: events before it are not emitted. */
bool fjomp_pool_open(void);
/* Emits pool_begin + pool_runtime on the first call (workers: the first
 * parallel region's requested team size). */
void fjomp_pool_begin(uint32_t workers);
void fjomp_pool_end(void);
void fjomp_set_runtime_version(const char *version);

/* ---- per-thread state */
#define FJOMP_MAX_WAIT_NEST 16 /* deeper waits are not traced */
typedef struct {
    int32_t worker;    /* the thread's index in the pool: thread_begin order */
    bool worker_begun; /* worker_begin emitted */
    uint64_t next_seq; /* task ids made by this thread */
    /* one bit per open sync_region_wait: 1 if it emitted a join */
    uint64_t join_bits;
    uint64_t join_tasks[FJOMP_MAX_WAIT_NEST]; /* the task each open join named */
    /* per open wait: the implicit task whose region it closes (its end is
     * this wait's end), or NULL */
    struct fjomp_task *closing[FJOMP_MAX_WAIT_NEST];
    uint32_t wait_depth;
    uint32_t lock_waiting; /* lock id in lock_wait (0: none) */
    struct fjomp_task *free_tasks;
    uint32_t nfree; /* records on free_tasks */
    /* The tool's own time on the thread (fjomp_enter, fjomp_leave), in
     * ticks: its callbacks that returned, and the entry of the one under
     * way, with the off-CPU ring's head then (ring_head: NULL while the
     * thread's recording is not open) */
    uint64_t tool_ticks, entry, entry_head;
    const unsigned long long *ring_head;
} fjomp_thread;

fjomp_thread *fjomp_self(void);
/* Every callback runs between these two: the time between them is the
 * tool's own, not the task's, which each clock reading tells (its `tool`
 * field, docs/events.md) so that the analyzer books it apart from the
 * tasks' work. Two TSC reads a callback (~12 ns each in the test VM),
 * against 1-4 us of the tool's own code at a task boundary where the
 * thread's clock is read. Not counted: libomp's call into the callback and
 * back, and a callback during which the thread left the CPU (a switch
 * record moved the ring's head: its ticks hold the time off the CPU, up to
 * a second seen under load, and its CPU time is not known). */
static inline fjomp_thread *fjomp_enter(void)
{
    fjomp_thread *th = fjomp_self();
    th->entry_head = fj_switches_head(th->ring_head);
    th->entry = fj_switches_ticks();
    return th;
}
static inline void fjomp_leave(fjomp_thread *th)
{
    uint64_t now = fj_switches_ticks();
    th->tool_ticks += fj_switches_stayed_ticks(th->ring_head, th->entry_head, th->entry, now);
}
/* th's worker index, emitting worker_begin on first use. Callbacks look up
 * fjomp_self() once (a TLS access through __tls_get_addr in a dlopen'd
 * tool) and pass it on. */
int32_t fjomp_worker(fjomp_thread *th);
/* Emits th's off-CPU intervals since the last drain and, when there were
 * any, its CPU clock (offcpu_task_clock), at every point where its task's
 * self time begins or ends: task schedule points, waits, the implicit
 * task's ends (when no switch happened: a load of the ring's head).
 * switch_follows: the caller emits the switch (exec, executed, join...)
 * right after, as th's next event (fj_switches_drain_task). */
void fjomp_offcpu_drain(fjomp_thread *th, bool switch_follows);
/* Last drain, worker_end, closes the off-CPU recording. */
void fjomp_thread_end(void);
/* In a child forked without exec: the forking thread's off-CPU ring is not
 * mapped there (the kernel does not copy a perf mapping), so its callbacks
 * must not load the ring's head. */
void fjomp_thread_forked(void);

/* ---- task records (ompt_data_t.ptr of each task) */
typedef struct fjomp_task {
    uint64_t id;               /* the id in events: unique in the process */
    struct fjomp_task *parent; /* holds a reference on it until done */
    /* 1 while the task is not complete, +1 per child not complete: the
     * record is recycled at 0. */
    _Atomic uint32_t refs;
    int32_t creator; /* worker that created it */
    bool untied, started, implicit, emitted;
    bool suspended; /* an untied task whose part ended: suspend said, resume not yet */
    bool ended;     /* an implicit task whose executed and result are emitted */
    /* The task it runs on top of on its thread: the one it returns to when
     * it completes or its part ends. Set when it starts or resumes. */
    struct fjomp_task *below;
    struct fjomp_task *next_free;
} fjomp_task;

fjomp_task *fjomp_task_new(fjomp_thread *th, fjomp_task *parent);
/* The task is complete: drops its reference on its parent and its own. */
void fjomp_task_complete(fjomp_thread *th, fjomp_task *t);
/* Emits the end of implicit task t (executed, result) once, after draining
 * th's off-CPU records (the task's last clock reading) unless the caller
 * has just done so. */
void fjomp_implicit_emit_end(fjomp_thread *th, fjomp_task *t, bool drain);
/* Children created by t and not complete yet (t still running). */
uint32_t fjomp_task_unfinished_children(const fjomp_task *t);

static inline fjomp_task *fjomp_task_of(const ompt_data_t *d)
{
    return d ? (fjomp_task *)d->ptr : 0;
}

/* ---- callbacks: each part registers its own */
typedef int (*fjomp_set_cb)(ompt_callbacks_t which, ompt_callback_t cb);
bool fjomp_register_parallel(fjomp_set_cb set);
bool fjomp_register_tasks(fjomp_set_cb set);
bool fjomp_register_sync(fjomp_set_cb set);
bool fjomp_register_mutex(fjomp_set_cb set);

#endif
