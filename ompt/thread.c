/* Per-thread state: the worker index (threads numbered in thread_begin order,
 * the initial thread first), worker_begin/worker_end, and task records. */
#include <pthread.h>
#include <stdlib.h>

#include "emit.h"
#include "switches.h"
#include "tool.h"

/* initial-exec: a plain %fs-relative access instead of a __tls_get_addr
 * call on every callback. A dlopen'd library may use it for a small
 * variable (glibc keeps a surplus of static TLS for that); this one is
 * under 200 bytes. */
static _Thread_local fjomp_thread self __attribute__((tls_model("initial-exec"))) = {.worker = -1};
/* Relaxed: only uniqueness of the indices matters. */
static _Atomic int32_t next_worker;

fjomp_thread *fjomp_self(void)
{
    if (self.worker < 0)
        self.worker = atomic_fetch_add_explicit(&next_worker, 1, memory_order_relaxed);
    return &self;
}

static fj_switches_for switches_of(const fjomp_thread *t)
{
    return (fj_switches_for){.pool = FJOMP_POOL, .worker = t->worker};
}

/* The tool's own time up to now, told with each clock reading. */
static fj_switches_tool tool_of(const fjomp_thread *t)
{
    return (fj_switches_tool){
        .done = t->tool_ticks, .entry = t->entry, .entry_head = t->entry_head};
}

/* Opens the thread's recording, with a first reading of its CPU clock as
 * offcpu_task_clock: the drains at its task boundaries read it only when
 * a switch happened (switches.h), the first span begins here. */
static void open_switches(fjomp_thread *t)
{
    fj_switches_open(switches_of(t));
    t->ring_head = fj_switches_ring_head();
    if (fj_switches_is_open()) fj_switches_task_clock(switches_of(t), tool_of(t));
}

/* The thread's off-CPU recording, as libfj's workers have it: opened once
 * it is a worker of the pool (its worker_begin: the pool's events begin
 * with the first parallel region, after the initial thread's
 * thread_begin), drained at its waits and when it ends. */
int32_t fjomp_worker(fjomp_thread *t)
{
    if (!t->worker_begun && fjomp_pool_open()) {
        t->worker_begun = true;
        FJOMP_EMIT(worker_begin, FJOMP_POOL, t->worker);
        fj_switches_reset();
        t->ring_head = NULL;
        /* (in a forked child: stopped, see emit.h; its worker_begin was not
         * written, so neither is its offcpu_start) */
        bool stopped = atomic_load_explicit(&fjomp_stopped, memory_order_relaxed);
        if (!stopped && fj_switches_recorded()) open_switches(t);
    }
    return t->worker;
}

void fjomp_offcpu_drain(fjomp_thread *t, bool switch_follows)
{
    /* (in a forked child: stopped, see emit.h; its switches are not ours) */
    if (!t->worker_begun || atomic_load_explicit(&fjomp_stopped, memory_order_relaxed)) return;
    if (!fj_switches_is_open()) {
        /* a session that began recording the event after the thread began */
        if (fj_switches_refused() || !fj_switches_recorded()) return;
        open_switches(t);
        if (!fj_switches_is_open()) return;
    }
    fj_switches_drain_task(switches_of(t), tool_of(t), switch_follows);
}

void fjomp_thread_end(void)
{
    if (atomic_load_explicit(&fjomp_stopped, memory_order_relaxed)) return; /* see emit.h */
    if (self.worker_begun && fjomp_pool_open()) {
        if (fj_switches_is_open())
            fj_switches_drain_task(switches_of(&self), tool_of(&self), false);
        FJOMP_EMIT(worker_end, FJOMP_POOL, self.worker);
    }
    if (fj_switches_is_open()) fj_switches_close();
    self.ring_head = NULL;
    self.worker_begun = false;
}

void fjomp_thread_forked(void)
{
    self.ring_head = NULL;
}

/* ---- task records: recycled through the freeing thread's own list, never
 * returned to malloc. A thread that frees more than it makes (it runs
 * tasks others created) hands batches back to a shared stack, where a
 * thread that makes more than it frees takes them: the memory stays bounded
 * by the records alive at once, plus two batches per thread. */
#define BATCH_TASKS 512

static pthread_mutex_t batches_lock = PTHREAD_MUTEX_INITIALIZER;
/* Batches of BATCH_TASKS free records linked by next_free; a batch's first
 * record links to the next batch through its parent field. */
static fjomp_task *batches;
/* Every block of records ever allocated, linked here under batches_lock so
 * that records stay reachable for the process's lifetime (they are recycled,
 * never freed): the free records of a thread that ended are not a leak. */
typedef struct block {
    struct block *next;
    fjomp_task tasks[BATCH_TASKS];
} block;
static block *blocks;

static fjomp_task *new_block(void)
{
    block *blk = calloc(1, sizeof *blk);
    if (!blk) return NULL;
    pthread_mutex_lock(&batches_lock);
    blk->next = blocks;
    blocks = blk;
    pthread_mutex_unlock(&batches_lock);
    for (int i = 0; i + 1 < BATCH_TASKS; i++)
        blk->tasks[i].next_free = &blk->tasks[i + 1];
    return blk->tasks;
}

static void take_batch(fjomp_thread *th)
{
    pthread_mutex_lock(&batches_lock);
    fjomp_task *b = batches;
    if (b) batches = b->parent;
    pthread_mutex_unlock(&batches_lock);
    if (b) {
        b->parent = NULL;
    } else if (!(b = new_block())) {
        return;
    }
    fjomp_task *last = b;
    while (last->next_free)
        last = last->next_free;
    last->next_free = th->free_tasks;
    th->free_tasks = b;
    th->nfree += BATCH_TASKS;
}

static void give_batch(fjomp_thread *th)
{
    fjomp_task *b = th->free_tasks, *last = b;
    for (int i = 1; i < BATCH_TASKS; i++)
        last = last->next_free;
    th->free_tasks = last->next_free;
    last->next_free = NULL;
    th->nfree -= BATCH_TASKS;
    pthread_mutex_lock(&batches_lock);
    b->parent = batches;
    batches = b;
    pthread_mutex_unlock(&batches_lock);
}

static void recycle(fjomp_thread *th, fjomp_task *t)
{
    t->next_free = th->free_tasks;
    th->free_tasks = t;
    if (++th->nfree >= 2 * BATCH_TASKS) give_batch(th);
}

fjomp_task *fjomp_task_new(fjomp_thread *th, fjomp_task *parent)
{
    if (!th->free_tasks) take_batch(th);
    fjomp_task *t = th->free_tasks;
    if (!t) return NULL; /* out of memory: the task goes untraced */
    th->free_tasks = t->next_free;
    th->nfree--;
    /* Id: the creating thread's index + 1 above bit 40, then its count. */
    t->id = ((uint64_t)(th->worker + 1) << 40) | ++th->next_seq;
    t->parent = parent;
    /* Relaxed: the record is not shared yet (published through the
     * runtime's own task hand-over). */
    atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
    /* Relaxed: a counter; its readers need no ordering (a hint). */
    if (parent) atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    t->creator = th->worker;
    t->untied = t->started = t->implicit = t->emitted = t->suspended = t->ended = false;
    t->below = NULL;
    t->next_free = NULL;
    return t;
}

static void unref(fjomp_thread *th, fjomp_task *t)
{
    /* Acq_rel: the usual reference count, whoever drops the last one sees
     * every write made to the record before it recycles it. */
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1) return;
    recycle(th, t);
}

void fjomp_task_complete(fjomp_thread *th, fjomp_task *t)
{
    fjomp_task *parent = t->parent;
    t->parent = NULL;
    if (parent) unref(th, parent);
    /* Acquire: pairs with the children's releases. At 1 only t's own
     * reference is left, and no one can take another (only t makes
     * children, and it is done): recycle without a locked instruction, the
     * common case (every leaf task). */
    if (atomic_load_explicit(&t->refs, memory_order_acquire) == 1) {
        recycle(th, t);
        return;
    }
    unref(th, t);
}

uint32_t fjomp_task_unfinished_children(const fjomp_task *t)
{
    /* Acquire: pairs with a child's release of its reference. */
    uint32_t refs = atomic_load_explicit(&t->refs, memory_order_acquire);
    return refs > 0 ? refs - 1 : 0;
}
