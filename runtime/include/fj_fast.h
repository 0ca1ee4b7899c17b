/*
 * fj_fast.h — the inline fast path of libfj: fj_fork and fj_join as static
 * inline functions, so that the common fork and join are a few instructions
 * in the caller, with no call into the library. Included by fj.h; do not
 * include it directly. Everything here except fj_fork and fj_join is an
 * implementation detail that programs must not touch (names start with fj__
 * or belong to structures documented as private).
 *
 * The deque is split, after Lace (van Dijk and van de Pol, 2014): the owner's
 * bottom part [split, head) is private, thieves cannot touch it and the
 * owner pushes and pops there with plain stores, no fence and no atomic
 * read-modify-write; the top part [tail, split) is shared and thieves steal
 * from it with a CAS on the packed word `ts`. A thief that finds the shared
 * part empty raises `need`; the owner looks at `need` once per fork and then
 * moves its private part to the shared part (runtime/src/deque.c).
 */
#ifndef FJ_FAST_H
#define FJ_FAST_H

#ifndef FJ_H
#error "include <fj.h>, not <fj_fast.h>"
#endif

/* fj_task.state values (the inline path needs two of them). */
#define FJ__TASK_PENDING 0u
#define FJ__TASK_DONE 1u

typedef _Atomic(fj_task *) fj__slot;

/* A worker's deque. Private: the layout may change between versions. */
typedef struct fj_deque {
    /* Owner-private: only the owning worker reads or writes these. */
    fj__slot *head;  /* next free slot */
    fj__slot *split; /* the private part is [split, head) */
    fj__slot *end;   /* one past the last slot: head == end means full */
    fj__slot *base;  /* slot 0 */
    /* Shared with thieves, on a cache line of its own: the owner only reads
     * `need` on its common path, thieves write here only when they steal or
     * find nothing. */
    _Alignas(64) _Atomic uint64_t ts; /* tail | split << 16 | generation << 32 */
    _Atomic uint32_t need;            /* a thief found the shared part empty */
    _Atomic uint64_t stolen;          /* tasks thieves took from this deque */
} fj_deque;

/* The part of a worker the inline path touches. Private. */
typedef struct fj_worker_fast {
    fj_deque dq;
    /* "Is anybody recording": nonzero while a tracing session has the
     * fjtrace:fork event enabled (LTTng-UST's own state word of that
     * tracepoint; a constant zero when libfj is built without tracing). */
    const volatile int *trace_gate;
    /* Forked tasks that fj_join ran inline on the fast path. Written only
     * by the owner, read by fj_pool_stats: relaxed (a plain load and store). */
    _Atomic uint64_t inline_runs;
} fj_worker_fast;

/* The worker running on this thread. On a thread that is not a worker it
 * points to a placeholder whose deque is full and empty at once, so both
 * fast paths fall through to the out-of-line code without a NULL check. */
FJ_API extern __attribute__((tls_model("initial-exec"))) _Thread_local fj_worker_fast *fj__self;

/* Out of line (runtime/src/sched.c). */
FJ_API int fj__fork_slow(fj_task *t);
FJ_API void fj__join_slow(fj_task *t);
FJ_API void fj__publish(fj_worker_fast *w);

/* Compiled out (-DFJ_NOTRACE, set by the fj_notrace build) the gate is a
 * constant and the fast path has no tracing branch at all. */
#ifdef FJ_NOTRACE
#define FJ__RECORDING(w) 0
#else
#define FJ__RECORDING(w) (*(w)->trace_gate)
#endif

/* Owner only: push p on the private part; 0, or -1 if the deque is full. */
static inline int fj__deque_try_push(fj_deque *dq, fj_task *p)
{
    fj__slot *h = dq->head;
    if (__builtin_expect(h == dq->end, 0)) return -1;
    /* Relaxed: a private slot; thieves read it only after the owner moved
     * it to the shared part with a release (deque.c, fj_deque_publish). */
    atomic_store_explicit(h, p, memory_order_relaxed);
    dq->head = h + 1;
    return 0;
}

/* Inside a task: make t available to thieves and go on. Allocates nothing;
 * t must be freshly initialised (fj_task_init) and stay valid until
 * fj_join(t) returns. Outside a worker, runs t at once and returns
 * FJ_ENOTASK. */
static inline int fj_fork(fj_task *t)
{
    fj_worker_fast *w = fj__self;
    fj__slot *h = w->dq.head;
    if (__builtin_expect(h == w->dq.end || FJ__RECORDING(w), 0)) return fj__fork_slow(t);
    /* fj_task_init left id 0 (not traced) and state pending. Relaxed: a
     * private slot; thieves read it only after fj__publish's release. */
    atomic_store_explicit(h, t, memory_order_relaxed);
    w->dq.head = h + 1;
    /* Relaxed: a request, not a hand-over of data; a request raised just
     * after this look is seen at the next fork. */
    if (__builtin_expect(atomic_load_explicit(&w->dq.need, memory_order_relaxed) != 0, 0))
        fj__publish(w);
    return FJ_OK;
}

/* Inside a task: wait for t. If t is still on top of the private part (it
 * was not stolen and nothing was forked after it without a join), pop it
 * and run it here; otherwise the out-of-line join runs the worker's own
 * tasks and helps thieves until t is done. */
static inline void fj_join(fj_task *t)
{
    fj_worker_fast *w = fj__self;
    fj__slot *h = w->dq.head;
    /* Relaxed: a private slot that only this thread writes. A traced task
     * is pushed tagged (low bit set), so it never matches here. */
    if (__builtin_expect(h > w->dq.split && atomic_load_explicit(h - 1, memory_order_relaxed) == t,
                         1)) {
        w->dq.head = h - 1;
        t->fn(t->arg);
        /* Relaxed: t never left this thread; fj_task_done on this thread. */
        atomic_store_explicit(&t->state, FJ__TASK_DONE, memory_order_relaxed);
        /* Relaxed: see inline_runs. */
        atomic_store_explicit(&w->inline_runs,
                              atomic_load_explicit(&w->inline_runs, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        return;
    }
    fj__join_slow(t);
}

#endif /* FJ_FAST_H */
