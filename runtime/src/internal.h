/* libfj internals: the pool and worker structures shared by the modules. */
#ifndef FJ_INTERNAL_H
#define FJ_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "deque.h"
#include "fj.h"

/* fj_task.state values. WAITER: pending, and a client sleeps on the futex. */
enum { FJ_TASK_PENDING = FJ__TASK_PENDING, FJ_TASK_DONE = FJ__TASK_DONE, FJ_TASK_WAITER = 2 };
/* fj_task.flags */
enum { FJ_TASK_ROOT = 1u << 0, FJ_TASK_COMPLETER = 1u << 1 };
/* fj_worker.sleep_state */
enum { FJ_AWAKE = 0, FJ_SLEEPING = 1, FJ_NOTIFIED = 2 };

/* Statistics counters. Written only by the owning worker, read by anyone:
 * relaxed atomics make the concurrent read well defined at the cost of a
 * plain load+store on the owner side. */
typedef struct fj_stat_counters {
    _Atomic uint64_t pops;       /* own frames popped outside the inline join */
    _Atomic uint64_t joins_slow; /* fj_join calls that left the inline path */
    _Atomic uint64_t joins_waited, steals, failed_steals, parks;
    _Atomic uint64_t tasks_run; /* tasks run by fj_task_run */
} fj_stat_counters;
/* The counters the inline path would otherwise need are derived (stats.c):
 * every forked task leaves its deque exactly once (inline join, pop, steal)
 * so forks = inline_runs + pops + stolen, exact only in a pool that counts
 * tasks (fj_pool_config.count_tasks; the plain inline sync counts nothing). */

#define FJ_STAT_INC(w, field)                                                                      \
    atomic_store_explicit(&(w)->stats.field,                                                       \
                          atomic_load_explicit(&(w)->stats.field, memory_order_relaxed) + 1,       \
                          memory_order_relaxed)

typedef struct fj_worker {
    fj_ctx fast; /* first: fj__self and the typed tasks' handle point here */
    struct fj_pool *pool;
    int index;
    uint64_t next_task_seq; /* owner-only: task ids forked by this worker */
    uint64_t current_id;    /* trace id of the task whose body runs out of line here */
    uint64_t rng;           /* victim selection (xorshift) */
    _Alignas(64) _Atomic uint32_t sleep_state; /* futex word, FJ_AWAKE/... */
    _Alignas(64) fj_stat_counters stats;
    pthread_t thread;
} fj_worker;

/* The external submission queue: a mutex-protected FIFO of root tasks.
 * Submissions are rare next to forks, so a lock is simpler and fast enough;
 * `count` lets idle workers check for work without taking the lock. */
typedef struct fj_submit_queue {
    pthread_mutex_t lock;
    fj_task *head, *tail;
    _Atomic int64_t count;
} fj_submit_queue;

struct fj_pool {
    uint32_t id;
    int nworkers;
    int count_tasks; /* fj_pool_config.count_tasks: forks, joins, tasks run exact */
    int spin_rounds, yield_rounds;
    fj_worker *workers;
    fj_submit_queue submissions;
    _Atomic int64_t roots_in_flight; /* submitted and not yet done */
    _Atomic uint64_t next_root_seq;
    _Atomic int32_t sleepers;     /* workers in SLEEPING state */
    _Atomic uint32_t wake_cursor; /* round-robin start for wakers */
    _Atomic int shutdown;
};

/* Task ids: the forking worker's index+1 in the top 16 bits, a per-worker
 * sequence below; root tasks use prefix 0 and a pool-wide sequence. Unique
 * for the pool's lifetime without any shared counter on the fork path. */
#define FJ_TASK_ID(prefix, seq) (((uint64_t)(prefix) << 48) | (seq))

/* What fj__self points to on a thread that is not a worker. */
extern fj_ctx fj_outside;

/* The worker running on this thread, or NULL. */
static inline fj_worker *fj_self_worker(void)
{
    return fj__self == &fj_outside ? NULL : (fj_worker *)fj__self;
}
#define fj_self (fj_self_worker())

/* sched.c */
void *fj_worker_main(void *arg);
void fj_task_run(fj_worker *w, fj_task *t);
void fj_task_mark_done(fj_task *t);
/* A unit of work: a task (a root, or a stolen or popped proxy) or a typed
 * frame with its state as read when taken. */
typedef struct fj_work {
    fj_task *task;
    fj_frame *frame;
    uint32_t state;
} fj_work;
int fj_find_work(fj_worker *w, fj_work *out);
void fj_work_run(fj_worker *w, const fj_work *x);
/* fj_fork with the creation site given (fast.h FJ_CALLER_SITE): for the
 * exported functions that fork on the program's behalf. */
int fj_fork_at(fj_task *t, uint64_t site);

/* sleep.c */
void fj_sleep_park(fj_worker *w);
void fj_sleep_wake_one(struct fj_pool *p, int waker_index);
void fj_sleep_wake_all(struct fj_pool *p);

/* submit.c */
void fj_submit_queue_init(fj_submit_queue *q);
void fj_submit_queue_destroy(fj_submit_queue *q);
fj_task *fj_submit_queue_pop(fj_submit_queue *q);
/* fj_submit with the creation site given (for fj_invoke). */
int fj_submit_at(struct fj_pool *p, fj_task *t, uint64_t site);

#endif
