/* The scheduler: running tasks, the worker loop, fork, join and helping. */
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "fast.h"
#include "fence.h"
#include "futex.h"
#include "offcpu.h"
#include "stamp.h"

/* head == end == split == NULL: both inline paths fall through. */
fj_ctx fj_outside = {.dq = {.gate = &fj_trace_gate_off,
                            .trace_gate = &fj_trace_gate_off,
                            .rest_gate = &fj_trace_gate_off}};
__attribute__((tls_model("initial-exec"))) _Thread_local fj_ctx *fj__self = &fj_outside;

void fj_task_mark_done(fj_task *t)
{
    if (!(t->flags & FJ_TASK_ROOT)) {
        /* Release: publishes the task's results to its joiner. */
        atomic_store_explicit(&t->state, FJ_TASK_DONE, memory_order_release);
        return;
    }
    /* Release: a client that sees DONE and then destroys the pool must see
     * this root counted out. */
    atomic_fetch_sub_explicit(&t->pool->roots_in_flight, 1, memory_order_release);
    /* Acq_rel exchange: release publishes the results; we need the old value
     * to know whether a client sleeps on the futex. */
    uint32_t old = atomic_exchange_explicit(&t->state, FJ_TASK_DONE, memory_order_acq_rel);
    if (old == FJ_TASK_WAITER) futex_wake(&t->state, INT_MAX);
}

/* *ahead = the ns the parent ran its own code between the end of its fork
 * (stamp forked) and its join (stamp joined_at), as exec_joined and
 * join_stolen record it: in 32 bits, 4.29 s (4 bytes less in every
 * exec_joined, the event of almost every traced task). -1 when not known
 * (the stamps' rate not measured yet) or longer than that: the caller then
 * emits the event without ahead (exec, join), never a clipped ahead. */
static int ahead_ns(uint64_t forked, uint64_t joined_at, uint32_t *ahead)
{
    uint64_t ns;
    if (fj_stamp_ns(forked, joined_at, &ns) != 0 || ns > UINT32_MAX) return -1;
    *ahead = (uint32_t)ns;
    return 0;
}

/* Emits exec (or exec_joined: run by its parent's join, joined_at != 0,
 * with how long the parent ran ahead of that join when it is known) for a
 * task or frame about to run, and makes it the worker's current task.
 * *by_join: whether it was exec_joined (its end is its join, told). */
static uint64_t exec_begin(fj_worker *w, uint64_t id, int has_forked_ns, uint64_t forked_ns,
                           uint64_t joined_at, bool *by_join)
{
    uint64_t outer = w->current_id;
    /* The current task is the one whose exec the recording saw: none (0)
     * while nobody records. A root has an id traced or not (submit.c), and
     * a root that began before the recording did has no exec in it: its
     * first traced fork must give it one (fork_trace), and exec_end must
     * not close an exec never emitted. */
    if (!FJ__RECORDING(&w->fast)) id = 0;
    w->current_id = id;
    uint32_t ahead;
    *by_join = false;
    if (id && joined_at && has_forked_ns && ahead_ns(forked_ns, joined_at, &ahead) == 0) {
        FJ_TRACE(exec_joined, w->pool->id, w->index, id, ahead);
        *by_join = true;
    } else if (id) {
        FJ_TRACE(exec, w->pool->id, w->index, id); /* id 0: forked untraced */
    }
    return outer;
}

static void exec_end(fj_worker *w, uint64_t outer)
{
    /* executed names no task: it closes the worker's innermost open exec,
     * which is current_id's (docs/events.md). current_id and not the id the
     * task began with: a task that ran untraced got one at its first traced
     * fork (fork_trace), and its exec then. */
    if (w->current_id) FJ_TRACE(executed, w->pool->id, w->index);
    w->current_id = outer;
    FJ_STAT_INC(w, tasks_run);
}

/* Runs t; joined_at as exec_begin. Returns whether its exec was
 * exec_joined. */
static bool task_run(fj_worker *w, fj_task *t, uint64_t joined_at)
{
    /* Read before the body runs: a completer may complete inside its own
     * body, after which its owner is free to reuse the frame. A completer
     * has no forked_ns. */
    const uint64_t id = t->id;
    const int completer = (t->flags & FJ_TASK_COMPLETER) != 0;
    bool by_join;
    /* forked_ns is the forking worker's field, written after the push
     * (fj_fork_at), when a thief may already have t: only its own join
     * (joined_at != 0) reads it. */
    const int has_forked = !completer && joined_at;
    const uint64_t forked = has_forked ? t->forked_ns : 0;
    uint64_t outer = exec_begin(w, id, has_forked, forked, joined_at, &by_join);
    t->fn(t->arg);
    exec_end(w, outer);
    if (!completer) fj_task_mark_done(t);
    return by_join;
}

void fj_task_run(fj_worker *w, fj_task *t)
{
    task_run(w, t, 0);
}

/* A typed frame's trace id: a SLOW typed frame was traced (fj__spawn_slow). */
static uint64_t frame_id(const fj_frame *f, uint32_t state)
{
    return (state & FJ__FRAME_SLOW) ? f->id : 0;
}

/* Runs typed frame f (state: as read when it was taken); the result lands
 * in the frame. Its header is read first: when the owner runs it, the
 * frame's slot is free again and the task's own spawns reuse it. */
static bool frame_run(fj_worker *w, fj_frame *f, uint32_t state, uint64_t joined_at)
{
    const uint64_t id = frame_id(f, state);
    bool by_join;
    /* forked_ns is the owner's field: a recorded spawn writes it after the
     * push, when a thief may already have taken the frame, so only the
     * owner's sync (joined_at != 0) reads it; a thief's exec needs none. */
    const uint64_t forked = joined_at ? f->forked_ns : 0;
    uint64_t outer = exec_begin(w, id, joined_at != 0, forked, joined_at, &by_join);
    f->run(&w->fast, f);
    exec_end(w, outer);
    return by_join;
}

/* The owner runs its own top frame f, just popped. Returns whether a
 * proxy's task ran as exec_joined. */
static bool own_frame_run(fj_worker *w, fj_frame *f, uint64_t joined_at)
{
    FJ_STAT_INC(w, pops);
    /* Relaxed: a frame of our own, never shared or taken back. */
    uint32_t state = atomic_load_explicit(&f->state, memory_order_relaxed);
    /* The slot is free again: pending, as the inline spawn expects (see
     * FJ__FRAME_SLOW), before the task's own spawns reuse it. Relaxed: our
     * own frame; thieves see it again only after fj__publish's release. */
    if (state != FJ__TASK_PENDING)
        atomic_store_explicit(&f->state, FJ__TASK_PENDING, memory_order_relaxed);
    if (!f->run) return task_run(w, f->payload.task, joined_at);
    uint64_t id = frame_id(f, state);
    /* A traced frame run here without exec_joined: its sync is now. */
    if (!frame_run(w, f, state, joined_at) && id) FJ_TRACE(join_done, w->pool->id, w->index, id);
    return false;
}

void fj_work_run(fj_worker *w, const fj_work *x)
{
    if (x->task) {
        task_run(w, x->task, 0);
        return;
    }
    /* A stolen typed frame: its owner waits for DONE, then reads the result
     * and reuses the frame. Release: publishes the result (and everything
     * the task wrote) to the owner's acquire in help_until_done. */
    frame_run(w, x->frame, x->state, 0);
    atomic_store_explicit(&x->frame->state, x->state | FJ__FRAME_DONE, memory_order_release);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Takes a stolen frame f as work. A proxy is released at once (its task is
 * the program's, and the owner may reuse the frame); a typed frame stays
 * the thief's until fj_work_run marks it done. */
static void take_stolen(fj_worker *w, fj_frame *f, fj_work *out)
{
    /* Relaxed: only a hint for the owner's leapfrogging. */
    atomic_store_explicit(&f->thief, w->index + 1, memory_order_relaxed);
    /* Relaxed: written by the owner before fj_deque_publish's release,
     * acquired by the steal; the owner does not touch it while stolen. */
    uint32_t state = atomic_load_explicit(&f->state, memory_order_relaxed);
    out->frame = NULL;
    out->task = NULL;
    if (!f->run) {
        fj_task *t = f->payload.task;
        /* Relaxed: a hint, as above. */
        atomic_store_explicit(&t->thief, w->index + 1, memory_order_relaxed);
        out->task = t;
        /* Release: the owner's acquire then sees our reads of the frame done
         * before it reuses it. */
        atomic_store_explicit(&f->state, state | FJ__FRAME_DONE, memory_order_release);
        return;
    }
    out->frame = f;
    out->state = state;
}

static uint64_t work_id(const fj_work *x)
{
    return x->task ? x->task->id : frame_id(x->frame, x->state);
}

static int steal_from(fj_worker *w, int victim_index, fj_work *out)
{
    fj_pool *p = w->pool;
    fj_worker *victim = &p->workers[victim_index];
    fj_frame *f;
    if (fj_deque_steal(&victim->fast.dq, &f) != FJ_STEAL_OK) {
        /* Empty or lost a race: either way try elsewhere rather than spin on
         * one contended deque. */
        FJ_STAT_INC(w, failed_steals);
        return 0;
    }
    take_stolen(w, f, out);
    uint64_t id = work_id(out);
    if (id) FJ_TRACE(steal, p->id, w->index, id, victim_index);
    FJ_STAT_INC(w, steals);
    /* The victim still has work: make sure a sleeper comes to take it. */
    if (fj_deque_size_hint(&victim->fast.dq) > 0) {
        atomic_thread_fence(memory_order_seq_cst);
        fj_sleep_wake_one(p, w->index);
    }
    return 1;
}

/* One pass over the other workers, from a random start. */
static int steal_round(fj_worker *w, fj_work *out)
{
    const int n = w->pool->nworkers;
    if (n < 2) return 0;
    int start = (int)(xorshift(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = (start + i) % n;
        if (v == w->index) continue;
        if (steal_from(w, v, out)) return 1;
    }
    return 0;
}

/* Where a waiting owner looks for work: the thief's deque first (it holds
 * the stolen task's own children: leapfrogging), then anyone's. */
static int help_find(fj_worker *w, const _Atomic int32_t *thief_word, fj_work *out)
{
    /* Relaxed: a hint only; a stale value just means a worse first victim. */
    int thief = atomic_load_explicit(thief_word, memory_order_relaxed) - 1;
    if (thief >= 0 && thief != w->index && steal_from(w, thief, out)) return 1;
    return steal_round(w, out);
}

static void stolen_top_wait(fj_worker *w, fj_frame *f, uint64_t joined_at);

/* Runs or waits for what a helped task left on our deque above `floor`
 * (counted completers return without joining their children), so that a
 * waiter's own frame is on top again when its wait ends. */
static void drain_to(fj_worker *w, fj_frame *floor)
{
    while (w->fast.dq.head > floor) {
        fj_frame *f = w->fast.dq.head - 1;
        if (fj_deque_top(&w->fast.dq) == FJ_TOP_STOLEN) {
            stolen_top_wait(w, f, 0);
        } else {
            w->fast.dq.head = f;
            own_frame_run(w, f, 0);
        }
    }
}

/* Helps until *state has its done bit (FJ_TASK_DONE == FJ__FRAME_DONE):
 * runs what help_find finds, spinning and then yielding when there is
 * nothing to take. Never sleeps on a futex, so helping never stops; takes
 * no new root tasks, so one tree's join does not wait behind another. */
static void help_until_done(fj_worker *w, const _Atomic uint32_t *state,
                            const _Atomic int32_t *thief)
{
    fj_frame *floor = w->fast.dq.head;
    unsigned misses = 0;
    /* Acquire: pairs with the release that set the bit, so the waiter sees
     * everything the task wrote (its result). */
    while (!(atomic_load_explicit(state, memory_order_acquire) & FJ__FRAME_DONE)) {
        fj_work x;
        if (help_find(w, thief, &x)) {
            fj_work_run(w, &x);
            drain_to(w, floor);
            misses = 0;
        } else if (++misses % FJ_JOIN_SPINS == 0) {
            fj_offcpu_drain(w); /* a join that waits: a slow point */
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

/* A join that waits for a stolen task or frame (id 0: untraced): join_stolen
 * says how long the parent ran its own code ahead of the join (joined_at:
 * when the join was called, 0 if no session recorded then), join alone when
 * that is not known (a completer has no forked_ns; a session that began in
 * between; the stamps' rate not measured yet). */
static void join_wait(fj_worker *w, uint64_t id, int has_forked_ns, uint64_t forked_ns,
                      uint64_t joined_at, const _Atomic uint32_t *state,
                      const _Atomic int32_t *thief)
{
    FJ_STAT_INC(w, joins_waited);
    uint32_t ahead;
    if (id && joined_at && has_forked_ns && ahead_ns(forked_ns, joined_at, &ahead) == 0)
        FJ_TRACE(join_stolen, w->pool->id, w->index, id, ahead);
    else if (id)
        FJ_TRACE(join, w->pool->id, w->index, id);
    help_until_done(w, state, thief);
    if (id) FJ_TRACE(joined, w->pool->id, w->index, id);
}

static void join_help(fj_worker *w, fj_task *t, uint64_t joined_at)
{
    join_wait(w, t->id, !(t->flags & FJ_TASK_COMPLETER), t->forked_ns, joined_at, &t->state,
              &t->thief);
}

/* The owner's top frame f was stolen: wait until its thief is done with it
 * (a proxy: at once; a typed frame: when the task ran, helping meanwhile),
 * then drop it (help_until_done leaves f on top). */
static void stolen_top_wait(fj_worker *w, fj_frame *f, uint64_t joined_at)
{
    if (!f->run) {
        help_until_done(w, &f->state, &f->thief);
    } else {
        /* Relaxed: the SLOW bit was set by us at the spawn; the thief only
         * adds DONE. */
        uint32_t state = atomic_load_explicit(&f->state, memory_order_relaxed);
        join_wait(w, frame_id(f, state), 1, f->forked_ns, joined_at, &f->state, &f->thief);
    }
    /* The slot is free again: pending, as the inline spawn expects (see
     * FJ__FRAME_SLOW). Relaxed: the thief is done with the frame (our
     * acquire of its DONE in help_until_done), so the frame is ours; thieves
     * see it again only after fj__publish's release. */
    atomic_store_explicit(&f->state, FJ__TASK_PENDING, memory_order_relaxed);
    fj_deque_drop_stolen(&w->fast.dq);
}

/* The worker's newest own work, if any: a frame popped from the private
 * part (else taken back from the shared part); stolen frames on top are
 * waited for and dropped on the way. */
static int own_take(fj_worker *w, fj_work *out)
{
    for (;;) {
        fj_frame *f = w->fast.dq.head - 1;
        switch (fj_deque_top(&w->fast.dq)) {
        case FJ_TOP_NONE:
            return 0;
        case FJ_TOP_STOLEN:
            stolen_top_wait(w, f, 0);
            continue;
        case FJ_TOP_OWN:
            break;
        }
        w->fast.dq.head = f;
        FJ_STAT_INC(w, pops);
        out->task = f->run ? NULL : f->payload.task;
        out->frame = f->run ? f : NULL;
        /* Relaxed: our own frame. */
        out->state = atomic_load_explicit(&f->state, memory_order_relaxed);
        return 1;
    }
}

int fj_find_work(fj_worker *w, fj_work *out)
{
    if (own_take(w, out) || steal_round(w, out)) return 1;
    out->frame = NULL;
    out->task = fj_submit_queue_pop(&w->pool->submissions);
    return out->task != NULL;
}

static int pool_stopping(const fj_pool *p)
{
    /* Acquire: pairs with the release store in fj_pool_destroy. */
    return atomic_load_explicit(&p->shutdown, memory_order_acquire);
}

/* Spin (then yield) through a few steal rounds before parking: work often
 * reappears within microseconds, and a futex round trip costs more. */
static void worker_idle(fj_worker *w)
{
    fj_pool *p = w->pool;
    fj_offcpu_drain(w); /* a failed find_work: a slow point */
    for (int round = 0; round < p->spin_rounds && !pool_stopping(p); round++) {
        fj_work x;
        if (fj_find_work(w, &x)) {
            fj_work_run(w, &x);
            return;
        }
        if (round >= p->spin_rounds - p->yield_rounds)
            sched_yield();
        else
            for (int i = 0; i < 32; i++)
                cpu_relax();
    }
    if (!pool_stopping(p)) fj_sleep_park(w);
}

void *fj_worker_main(void *arg)
{
    fj_worker *w = arg;
    fj_pool *p = w->pool;
    fj__self = &w->fast;
    FJ_TRACE(worker_begin, p->id, w->index);
    fj_offcpu_begin(w);
    while (!pool_stopping(p)) {
        fj_work x;
        if (fj_find_work(w, &x))
            fj_work_run(w, &x);
        else
            worker_idle(w);
    }
    fj_offcpu_end(w);
    FJ_TRACE(worker_end, p->id, w->index);
    fj__self = &fj_outside;
    return NULL;
}

/* Answers `need`: publishes, then wakes a sleeper. The light fence and the
 * relaxed look at the sleeper count are the Dekker half that pairs with
 * fj_sleep_park (store SLEEPING, heavy fence, look at the shared parts):
 * either a parking worker sees the published tasks, or we see it and wake
 * it. See fence.h for why light suffices. A parked worker cannot ask again,
 * so while workers sleep we keep asking ourselves: the next fork publishes
 * and wakes another one (as every fork did before the split deque). */
void fj__publish(fj_ctx *fast)
{
    fj_worker *w = (fj_worker *)fast;
    fj_pool *p = w->pool;
    if (fj_deque_publish(&w->fast.dq) == 0) return;
    fj_fence_light();
    /* Relaxed: ordered by the fence above (the protocol in sleep.c). */
    if (atomic_load_explicit(&p->sleepers, memory_order_relaxed) <= 0) return;
    fj_sleep_wake_one(p, w->index);
    /* A request to ourselves, answered at our next fork. */
    fj_deque_ask(&w->fast.dq);
}

/* Everything fj_fork's inline path leaves to us: a thread that is not a
 * worker, a session recording, a deque nested to its limit. */
int fj__fork_slow(fj_task *t)
{
    return fj_fork_at(t, FJ_CALLER_SITE());
}

static void nesting_overflow(const fj_worker *w)
{
    fprintf(stderr, "libfj: tasks nested more than %zu frames deep on one worker\n",
            (size_t)(w->fast.dq.guard - w->fast.dq.base));
    abort();
}

/* Pushes the frame at head (filled in), SLOW if traced or flagged, and
 * answers a thief's request. */
static void frame_push(fj_worker *w, uint32_t state)
{
    fj_frame *f = w->fast.dq.head;
    if (f == w->fast.dq.limit) nesting_overflow(w);
    /* Relaxed: a private frame; thieves see it after fj__publish's release. */
    atomic_store_explicit(&f->state, state, memory_order_relaxed);
    w->fast.dq.head = f + 1;
    fj__answer_need(&w->fast);
}

/* A new trace id for a task forked on w, and its fork event; emitted before
 * the push so that no steal of it can precede it. */
static uint64_t fork_trace(fj_worker *w, uint64_t size_hint, uint64_t site)
{
    /* fork names no parent: the analyzer takes the task whose exec is the
     * innermost open one on this worker, which is current_id's. A task
     * running untraced (id 0: forked or submitted before the recording
     * began) has no exec in the trace, and a traced task below it would be
     * taken instead: it gets an id and its exec now, where the recording
     * begins to see it (an exec of a task never forked, for the analyzer). */
    if (!w->current_id) {
        w->current_id = FJ_TASK_ID(w->index + 1, ++w->next_task_seq);
        FJ_TRACE(exec, w->pool->id, w->index, w->current_id);
    }
    uint64_t id = FJ_TASK_ID(w->index + 1, ++w->next_task_seq);
    FJ_TRACE_FORK(w->pool->id, w->index, id, size_hint, site);
    return id;
}

int fj_fork_at(fj_task *t, uint64_t site)
{
    fj_worker *w = fj_self;
    if (!w) {
        t->fn(t->arg);
        atomic_store_explicit(&t->state, FJ_TASK_DONE, memory_order_relaxed);
        return FJ_ENOTASK;
    }
    /* Relaxed: the frame is published to thieves by the deque's release. */
    atomic_store_explicit(&t->state, FJ_TASK_PENDING, memory_order_relaxed);
    atomic_store_explicit(&t->thief, 0, memory_order_relaxed);
    const int traced = FJ__RECORDING(&w->fast) != 0;
    t->id = traced ? fork_trace(w, t->size_hint, site) : 0;
    const int completer = (t->flags & FJ_TASK_COMPLETER) != 0;
    fj_frame *f = w->fast.dq.head;
    f->run = NULL;
    f->payload.task = t;
    /* Untraced in a pool that counts tasks: COUNTED (count_state), which
     * fj__join_slow counts first thing (fj_fast.h, FJ__FRAME_COUNTED). */
    frame_push(w, traced || completer ? FJ__FRAME_SLOW : w->fast.dq.count_state);
    /* After the push and the publishing: what the fork cost is not the
     * parent's own code (exec_joined). Only this worker reads it, when its
     * join pops t; a thief never does. Not a completer: once pushed, its
     * frame may already be completed and reused elsewhere. */
    if (traced && !completer) t->forked_ns = fj_stamp();
    return FJ_OK;
}

void fj__spawn_slow(fj_ctx *fw, uint64_t size_hint)
{
    fj_worker *w = (fj_worker *)fw;
    fj_frame *f = fw->dq.head;
    const int traced = FJ__RECORDING(fw) != 0;
    if (traced) f->id = fork_trace(w, size_hint, FJ_CALLER_SITE());
    frame_push(w, traced ? FJ__FRAME_SLOW : fw->dq.count_state);
    /* As in fj_fork_at; the frame stays the owner's field while stolen. */
    if (traced) f->forked_ns = fj_stamp();
}

uint64_t fj__fork_event(fj_ctx *fw, uint64_t size_hint)
{
    return fork_trace((fj_worker *)fw, size_hint, FJ_CALLER_SITE());
}

fj__traced fj__traced_begin(fj_ctx *fw, uint64_t id, uint64_t forked, uint64_t joined_at)
{
    bool by_join;
    uint64_t outer = exec_begin((fj_worker *)fw, id, 1, forked, joined_at, &by_join);
    /* Run here without exec_joined: its sync is now (as own_frame_run). */
    return (fj__traced){outer, by_join ? 0 : id};
}

void fj__traced_end(fj_ctx *fw, fj__traced t)
{
    fj_worker *w = (fj_worker *)fw;
    /* As exec_end, less its count: the inline sync counted the task. */
    if (w->current_id) FJ_TRACE(executed, w->pool->id, w->index);
    w->current_id = t.outer;
    if (t.join_done) FJ_TRACE(join_done, w->pool->id, w->index, t.join_done);
}

#if !FJ_STAMP_TSC
uint64_t fj__stamp(void)
{
    return fj_stamp();
}
#endif

/* When the parent called a join that left the inline path, if a session
 * records (for exec_joined and join_stolen). */
static uint64_t join_stamp(const fj_worker *w)
{
    (void)w; /* unused when tracing is compiled out */
    return FJ__RECORDING(&w->fast) ? fj_stamp() : 0;
}

void fj__sync_slow(fj_ctx *fw)
{
    fj_worker *w = (fj_worker *)fw;
    FJ_STAT_INC(w, joins_slow);
    uint64_t joined_at = join_stamp(w);
    fj_frame *f = fw->dq.head - 1;
    switch (fj_deque_top(&fw->dq)) {
    case FJ_TOP_OWN:
        fw->dq.head = f;
        own_frame_run(w, f, joined_at);
        return;
    case FJ_TOP_STOLEN:
        stolen_top_wait(w, f, joined_at);
        return;
    case FJ_TOP_NONE:
        break;
    }
    fprintf(stderr, "libfj: FJ_SYNC without a pending FJ_SPAWN on this worker\n");
    abort();
}

fj_ctx *fj_ctx_self(void)
{
    return fj__self == &fj_outside ? NULL : fj__self;
}

/* Whether t's proxy frame is still in w's deque, own or stolen. A join of
 * t may walk the deque down to it, running or dropping the frames above it
 * (the task's later forks). When it is gone (stolen, then dropped by a join
 * of a sibling forked before it: joins out of fork order), the frames below
 * are the enclosing tasks': running or dropping one from here would take a
 * stolen frame an enclosing join is still waiting on (it then waits for
 * ever: the soak's hang) or run a frame out of its turn. A live frame's
 * payload is never rewritten, and no other live frame points at t. */
static bool proxy_in_deque(const fj_worker *w, const fj_task *t)
{
    for (const fj_frame *f = w->fast.dq.head; f > w->fast.dq.base;) {
        f--;
        if (!f->run && f->payload.task == t) return true;
    }
    return false;
}

/* Everything fj_join's inline path leaves to us: t stolen, traced, not on
 * top of the deque, or a thread that is not a worker. */
void fj__join_slow(fj_task *t)
{
    fj_worker *w = fj_self;
    if (!w) {
        /* Forked outside a pool: fj_fork already ran it. */
        while (!fj_task_is_done(t))
            sched_yield();
        return;
    }
    fj_frame *h = w->fast.dq.head;
    /* Relaxed: a private frame (above the split); only this thread writes
     * its state. */
    if (h > w->fast.dq.split && !h[-1].run && h[-1].payload.task == t &&
        atomic_load_explicit(&h[-1].state, memory_order_relaxed) == FJ__FRAME_COUNTED) {
        /* A pool that counts tasks, t untraced and on top: fj_join's
         * inline case, counted (inline_syncs: neither a pop nor a slow
         * join, stats.c), the slot pending again (a free frame is, see
         * FJ__FRAME_SLOW) before t's own forks reuse it. Else (t stolen,
         * or below other frames) the general case below, whose pops count
         * the COUNTED frames it runs. */
        w->fast.dq.head = h - 1;
        fj__count_inline_sync(&w->fast);
        atomic_store_explicit(&h[-1].state, FJ__TASK_PENDING, memory_order_relaxed);
        t->fn(t->arg);
        /* Relaxed: t never left this thread; fj_task_done on this thread. */
        atomic_store_explicit(&t->state, FJ_TASK_DONE, memory_order_relaxed);
        return;
    }
    FJ_STAT_INC(w, joins_slow);
    uint64_t joined_at = join_stamp(w);
    const uint64_t id = t->id;
    bool told = false; /* t ran here as exec_joined: its end was its join */
    /* Run our own deque's frames (t's, if nobody stole it, is below them)
     * until t is done; if t's frame was stolen, or t is not in our deque,
     * help until it is done. */
    if (!fj_task_is_done(t) && !proxy_in_deque(w, t)) {
        join_help(w, t, joined_at);
        return;
    }
    while (!fj_task_is_done(t)) {
        fj_frame *f = w->fast.dq.head - 1;
        switch (fj_deque_top(&w->fast.dq)) {
        case FJ_TOP_NONE:
            join_help(w, t, joined_at);
            return;
        case FJ_TOP_OWN: {
            bool mine = !f->run && f->payload.task == t;
            w->fast.dq.head = f;
            bool by_join = own_frame_run(w, f, joined_at);
            if (mine) told = by_join;
            break;
        }
        case FJ_TOP_STOLEN: {
            int ours = !f->run && f->payload.task == t;
            stolen_top_wait(w, f, joined_at);
            if (ours) {
                join_help(w, t, joined_at);
                return;
            }
            break;
        }
        }
    }
    /* Done without a wait (a thief finished it, or it ran here with a plain
     * exec): the join is now (events.md). Only the slow joins that found a
     * task done pay this event. */
    if (id && !told) FJ_TRACE(join_done, w->pool->id, w->index, id);
}

int fj_task_done(const fj_task *t)
{
    return fj_task_is_done(t);
}

int fj_worker_index(void)
{
    return fj_self ? fj_self->index : -1;
}
