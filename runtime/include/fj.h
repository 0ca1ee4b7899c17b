/*
 * fj.h — public API of libfj, the fjtrace work-stealing fork/join runtime.
 *
 * Layering (after Fibril): this header is the public API; the inline fast
 * path (fj_fork, fj_join) lives in fj_fast.h, included at its end, and the
 * internals in runtime/src/internal.h.
 * Nothing here needs to be understood to use the library beyond the
 * documented fields of struct fj_task, which users must treat as opaque
 * (they are public only so that task frames can live on the caller's stack).
 *
 * Threading model: a pool owns N worker threads. Any thread that is not one
 * of the pool's workers submits root tasks (fj_invoke, fj_submit+fj_wait).
 * Inside a task, fj_fork pushes a child on the running worker's deque and
 * fj_join waits for it, helping with other work while the child runs
 * elsewhere. See docs/runtime.md.
 */
#ifndef FJ_H
#define FJ_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fj_version.h" /* FJ_VERSION: meson writes it from project(version:) */

#ifdef __cplusplus
extern "C" {
#endif

#define FJ_VERSION_STRING FJ_VERSION

/* Everything below is exported; the library builds with hidden visibility. */
#define FJ_API __attribute__((visibility("default")))

/* Return codes. All functions that can fail return one of these. */
enum fj_status {
    FJ_OK = 0,
    FJ_EINVAL = -1,  /* bad argument (NULL, zero workers, ...) */
    FJ_ENOMEM = -2,  /* allocation failed */
    FJ_EAGAIN = -3,  /* a worker thread could not be started */
    FJ_EBUSY = -4,   /* fj_pool_destroy: root tasks are still running */
    FJ_ENOTASK = -5, /* fj_fork/fj_join called outside a task of a pool */
};

/* Human-readable text for an fj_status value. */
FJ_API const char *fj_strerror(int status);

typedef struct fj_pool fj_pool;
typedef struct fj_task fj_task;
typedef struct fj_completer fj_completer;
typedef void (*fj_task_fn)(void *arg);

/* A task frame. Allocate it anywhere the task outlives its join (normally
 * the forking function's stack); initialise it with fj_task_init before
 * every fork or submission. */
struct fj_task {
    fj_task_fn fn;
    void *arg;
    /* Zeroed by fj_task_init, in one block (see there): */
    uint64_t id;            /* unique within the pool when traced, else 0 */
    uint64_t size_hint;     /* user's size in program units (fib: n), 0 = unknown */
    _Atomic uint32_t state; /* FJ_TASK_* in runtime/src/internal.h */
    _Atomic int32_t thief;  /* index + 1 of the worker that stole it, 0 if none */
    uint32_t flags;
    /* Set only where they are used (roots, completers): */
    struct fj_pool *pool; /* set for root tasks */
    union {
        struct fj_task *next; /* submission queue link (a root waiting to be taken) */
        /* A forked task while a session records: when its fj_fork returned
         * (CLOCK_MONOTONIC ns, the trace's clock), for exec_joined. */
        uint64_t forked_ns;
    };
    struct fj_completer *cc; /* owning completer, if any */
};

/* Inline: runs on every fork. id, size_hint, state (pending), thief (none)
 * and flags are all zero when fresh, so they are cleared as one block (two
 * vector stores, not five scalar ones); the frame is not shared yet. */
static inline void fj_task_init(fj_task *t, fj_task_fn fn, void *arg)
{
    memset(&t->id, 0, offsetof(fj_task, pool) - offsetof(fj_task, id));
    t->fn = fn;
    t->arg = arg;
}
/* Size in the program's own units; recorded in the trace's fork event. */
static inline void fj_task_set_size_hint(fj_task *t, uint64_t hint)
{
    t->size_hint = hint;
}

/* Pool configuration. fj_pool_config_init fills in the defaults. */
typedef struct fj_pool_config {
    int workers;          /* 0 = $FJ_WORKERS if set, else online CPUs */
    int spin_rounds;      /* steal rounds an idle worker tries before parking */
    int yield_rounds;     /* of those, rounds that sched_yield() between tries */
    size_t deque_initial; /* deque capacity, fixed (at most 32768); a fork into
                           * a full deque runs the child at once */
    int count_tasks;      /* nonzero: count forks, joins and tasks executed
                           * exactly (fj_pool_stats), at a cost: every spawn
                           * and fork leaves the inline path. 0: those three
                           * are FJ_STAT_UNKNOWN. Default: $FJ_COUNT_TASKS
                           * (0 or 1) if set, else 0 (docs/runtime.md) */
} fj_pool_config;

FJ_API void fj_pool_config_init(fj_pool_config *cfg);

/* Creates a pool and starts its workers. cfg may be NULL (defaults). */
FJ_API int fj_pool_create(fj_pool **out, const fj_pool_config *cfg);
/* Stops and joins the workers and frees the pool. Returns FJ_EBUSY and
 * leaves the pool running if root tasks are still in flight. */
FJ_API int fj_pool_destroy(fj_pool *pool);
FJ_API int fj_pool_workers(const fj_pool *pool);
/* Small integer naming the pool in traces, unique within the process. */
FJ_API uint32_t fj_pool_id(const fj_pool *pool);

/* External submission, from a thread that is not a worker of this pool.
 * fj_invoke runs t as a root task and returns once it (and, for a counted
 * completer, its whole completion) is done. Called from inside a task of the
 * same pool it simply runs t inline. */
FJ_API int fj_invoke(fj_pool *pool, fj_task *t);
/* Asynchronous form: t must stay valid until fj_wait(t) returns. */
FJ_API int fj_submit(fj_pool *pool, fj_task *t);
FJ_API void fj_wait(fj_task *t);

/* Inside a task: fj_fork(t) pushes t on the running worker's deque
 * (allocates nothing) and fj_join(t) waits for it: it runs t inline if
 * nobody stole it; otherwise it helps (runs tasks from the thief's deque,
 * then anyone's) until t is done. Outside a worker, fj_fork runs t inline
 * and returns FJ_ENOTASK. Both are static inline (fj_fast.h, included at the
 * end of this header): the common case costs a few instructions. */
/* True once t has finished (for a completer: once it completed). */
FJ_API int fj_task_done(const fj_task *t);

/* Index of the calling worker in its pool, -1 on a non-worker thread. */
FJ_API int fj_worker_index(void);

/* Counted completers, as the JDK's CountedCompleter: compute() runs as a
 * task body, may fork children (after fj_completer_add_pending) and ends
 * with fj_completer_try_complete(self). When a completer's pending count is
 * zero at try_complete, on_completion runs and completion propagates to the
 * parent (whose count is decremented, or which completes in turn). A root
 * completer given to fj_invoke returns when its completion has run. */
typedef void (*fj_completer_fn)(fj_completer *self);
typedef void (*fj_completion_fn)(fj_completer *self, fj_completer *caller);

struct fj_completer {
    fj_task task;
    fj_completer *parent;
    _Atomic int32_t pending;
    fj_completer_fn compute;
    fj_completion_fn on_completion; /* may be NULL */
    void *user;                     /* free for the program */
};

FJ_API void fj_completer_init(fj_completer *c, fj_completer *parent, fj_completer_fn compute,
                              fj_completion_fn on_completion, void *user);
FJ_API void fj_completer_add_pending(fj_completer *c, int32_t delta);
FJ_API int fj_completer_fork(fj_completer *c);
FJ_API void fj_completer_try_complete(fj_completer *c);

/* An instrumented mutex for resources that tasks share. It spins briefly,
 * then sleeps on a futex; contended acquisitions are traced (lock_wait /
 * lock_acquired, with the name given at init in a lock_init event) so that
 * fjtrace-analyze can attribute lost parallelism to the lock. Waiting for it
 * does not run other tasks: serialisation is what it shows. */
typedef struct fj_mutex {
    _Atomic uint32_t word; /* 0 free, 1 locked, 2 locked with waiters */
    uint32_t id;           /* unique in the process, for traces */
    const char *name;
} fj_mutex;

FJ_API void fj_mutex_init(fj_mutex *m, const char *name);
FJ_API void fj_mutex_lock(fj_mutex *m);
FJ_API void fj_mutex_unlock(fj_mutex *m);

/* A figure of fj_worker_stats that the pool does not know: forks, joins and
 * tasks_executed of a pool created without count_tasks (fj_pool_config).
 * Never a count: print it as "n/a" (samples/common.c). */
#define FJ_STAT_UNKNOWN UINT64_MAX

/* Per-worker statistics (no tracing needed), exact once the pool is
 * quiescent. joins_waited, steals, failed_steals and parks are always
 * collected; forks, joins and tasks_executed only in a pool that counts
 * tasks (fj_pool_config.count_tasks, as Lace's LACE_COUNT_TASKS), else
 * FJ_STAT_UNKNOWN: the inline spawn and sync count nothing. */
typedef struct fj_worker_stats {
    uint64_t forks;        /* spawns and fj_fork calls (FJ_STAT_UNKNOWN: not counted) */
    uint64_t joins;        /* all syncs and fj_join calls (FJ_STAT_UNKNOWN: not counted) */
    uint64_t joins_waited; /* joins whose child had been stolen */
    uint64_t steals;
    uint64_t failed_steals; /* steal attempts that found nothing or lost a race */
    uint64_t parks;
    uint64_t tasks_executed; /* forked tasks and roots run (FJ_STAT_UNKNOWN: not counted) */
} fj_worker_stats;

/* Fills out[0..n) with worker i's statistics, returns the number filled. */
FJ_API int fj_pool_stats(const fj_pool *pool, fj_worker_stats *out, int n);
/* Sum over all workers. */
FJ_API void fj_pool_stats_total(const fj_pool *pool, fj_worker_stats *total);
FJ_API void fj_pool_stats_reset(fj_pool *pool);
/* Whether the pool counts tasks (fj_pool_config.count_tasks). */
FJ_API int fj_pool_counts_tasks(const fj_pool *pool);

#include "fj_fast.h"

#ifdef __cplusplus
}
#endif
#endif /* FJ_H */
