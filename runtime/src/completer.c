/* Counted completers (after java.util.concurrent.CountedCompleter). */
#include "fast.h"

static void completer_body(void *arg)
{
    fj_completer *c = arg;
    c->compute(c);
}

void fj_completer_init(fj_completer *c, fj_completer *parent, fj_completer_fn compute,
                       fj_completion_fn on_completion, void *user)
{
    fj_task_init(&c->task, completer_body, c);
    c->task.flags = FJ_TASK_COMPLETER;
    c->task.cc = c;
    c->task.pool = NULL; /* set by fj_submit for a root */
    c->parent = parent;
    atomic_init(&c->pending, 0);
    c->compute = compute;
    c->on_completion = on_completion;
    c->user = user;
}

void fj_completer_add_pending(fj_completer *c, int32_t delta)
{
    /* Relaxed: called before forking the children it counts, and the fork's
     * release store publishes it to whoever runs them. */
    atomic_fetch_add_explicit(&c->pending, delta, memory_order_relaxed);
}

int fj_completer_fork(fj_completer *c)
{
    return fj_fork_at(&c->task, FJ_CALLER_SITE()); /* pushed SLOW: never joined inline */
}

/* Trace context for completion events, which may run on any thread. */
static uint32_t trace_pool_id(const fj_completer *c)
{
    if (fj_self) return fj_self->pool->id;
    return c->task.pool ? c->task.pool->id : 0;
}

/* Completes `a` (pending already zero): the hook, then `a` is done. Returns
 * the parent to propagate to. `caller` is the completer whose completion
 * triggered this one (a itself when it completed directly). */
static fj_completer *complete_one(fj_completer *a, fj_completer *caller, uint64_t *id)
{
    *id = a->task.id;
    FJ_TRACE(completing, trace_pool_id(a), fj_worker_index(), *id);
    if (a->on_completion) a->on_completion(a, caller);
    fj_completer *parent = a->parent;
    if (parent) /* the root is marked done after its `completed` event */
        fj_task_mark_done(&a->task);
    return parent;
}

void fj_completer_try_complete(fj_completer *c)
{
    fj_completer *a = c, *child = NULL;
    uint64_t child_id = 0;
    const uint32_t pool = trace_pool_id(c);
    for (;;) {
        /* Acquire: when the count reads zero we are about to run a's hook,
         * which must see every child's results. */
        int32_t pending = atomic_load_explicit(&a->pending, memory_order_acquire);
        if (pending > 0) {
            /* Acq_rel: release publishes this subtree's results to whoever
             * brings the count to zero; acquire chains the earlier ones. */
            if (!atomic_compare_exchange_weak_explicit(&a->pending, &pending, pending - 1,
                                                       memory_order_acq_rel, memory_order_relaxed))
                continue;
            if (child) FJ_TRACE(completed, pool, fj_worker_index(), child_id);
            return;
        }
        if (child) FJ_TRACE(completed, pool, fj_worker_index(), child_id);
        fj_completer *parent = complete_one(a, child ? child : a, &child_id);
        if (!parent) {
            FJ_TRACE(completed, pool, fj_worker_index(), child_id);
            fj_task_mark_done(&a->task);
            return;
        }
        child = a;
        a = parent;
    }
}
