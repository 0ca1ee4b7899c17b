#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const anomaly_names[FJA_AN_COUNT] = {
    [FJA_AN_EXECUTED_WITHOUT_EXEC] = "executed_without_exec",
    [FJA_AN_EXEC_UNKNOWN_TASK] = "exec_of_unknown_task",
    [FJA_AN_DUPLICATE_ID] = "duplicate_task_id",
    [FJA_AN_UNKNOWN_PARENT] = "unknown_parent",
    [FJA_AN_SELF_PARENT] = "fork_names_itself_parent",
    [FJA_AN_DUPLICATE_EXEC] = "duplicate_exec",
    [FJA_AN_UNBALANCED_NESTING] = "unbalanced_nesting",
    [FJA_AN_STEAL_UNKNOWN_TASK] = "steal_of_unknown_task",
    [FJA_AN_JOIN_MISMATCH] = "join_mismatch",
    [FJA_AN_COMPLETED_WITHOUT_COMPLETING] = "completed_without_completing",
    [FJA_AN_UNKNOWN_TASK_EVENT] = "event_for_unknown_task",
    [FJA_AN_NOT_ON_WORKER] = "task_event_not_on_worker",
    [FJA_AN_EXEC_ELSEWHERE_WITHOUT_STEAL] = "exec_elsewhere_without_steal",
    [FJA_AN_RESULT_WITHOUT_SUBMIT] = "result_without_submit",
    [FJA_AN_OUT_OF_MEMORY] = "out_of_memory",
};

const char *fja_anomaly_kind_name(fja_anomaly_kind k)
{
    return k < FJA_AN_COUNT ? anomaly_names[k] : "invalid";
}

/* Copies a name from the trace (a lock's, a process's), control characters
 * replaced by '?': a terminal showing the text report must not obey escape
 * sequences planted in a trace. The outputs escape the rest for their format. */
static void name_copy(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++) {
        dst[i] = src[i];
        if ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) dst[i] = '?';
    }
    dst[i] = 0;
}

void fja_model_init(fja_model *m)
{
    *m = (fja_model){.last_pool = UINT32_MAX};
}

static void pool_free(fja_pool *p)
{
    for (uint32_t i = 0; i < p->nworkers; i++)
        free(p->workers[i].stack);
    free(p->client.stack);
    free(p->workers);
    free(p->trees);
    free(p->qsince);
    fja_taskmap_free(&p->tasks);
    fja_hist_free(&p->self_hist);
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++)
        fja_hist_free(&p->depth_hist[d]);
    fja_hist_free(&p->join_latency);
    fja_hist_free(&p->steal_latency);
    fja_hist_free(&p->gap_hist);
    fja_hist_free(&p->fork_interval);
}

void fja_model_free(fja_model *m)
{
    for (uint32_t i = 0; i < m->npools; i++)
        pool_free(&m->pools[i]);
    free(m->pools);
    free(m->locks);
    *m = (fja_model){0};
}

static void anomaly(fja_model *m, fja_anomaly_kind k, const fja_event *ev)
{
    m->anomalies[k]++;
    if (m->nexamples < FJA_ANOMALY_EXAMPLES)
        m->examples[m->nexamples++] = (fja_anomaly){
            .kind = k, .ts = ev->ts, .task = ev->task, .pool = ev->pool, .worker = ev->worker};
}

/* ------------------------------------------------------------ lookups */

static void worker_init(fja_worker *w, int32_t index)
{
    *w = (fja_worker){.index = index,
                      .cur_tree = FJA_TASK_NONE,
                      .stolen_task = FJA_TASK_NONE,
                      .last_kind = FJA_EV_UNKNOWN};
}

static void pool_init(fja_pool *p, uint32_t source, uint32_t id)
{
    *p = (fja_pool){.source = source, .id = id, .pid = -1, .qfree = FJA_TASK_NONE};
    fja_taskmap_init(&p->tasks);
    worker_init(&p->client, -1);
    fja_hist_init(&p->self_hist);
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++)
        fja_hist_init(&p->depth_hist[d]);
    fja_hist_init(&p->join_latency);
    fja_hist_init(&p->steal_latency);
    fja_hist_init(&p->gap_hist);
    fja_hist_init(&p->fork_interval);
}

static fja_pool *pool_get(fja_model *m, uint32_t source, uint32_t id)
{
    if (m->last_pool < m->npools) {
        fja_pool *p = &m->pools[m->last_pool];
        if (p->source == source && p->id == id) return p;
    }
    for (uint32_t i = 0; i < m->npools; i++)
        if (m->pools[i].source == source && m->pools[i].id == id)
            return &m->pools[m->last_pool = i];
    if (m->npools == m->cap_pools) {
        uint32_t cap = m->cap_pools ? m->cap_pools * 2 : 4;
        fja_pool *np = realloc(m->pools, cap * sizeof *np);
        if (!np) return NULL;
        m->pools = np;
        m->cap_pools = cap;
    }
    pool_init(&m->pools[m->npools], source, id);
    m->last_pool = m->npools;
    return &m->pools[m->npools++];
}

/* Worker `index` of p, growing the array; NULL for index < 0 or no memory.
 * Beware: growing moves the workers, so callers hold no fja_worker pointer
 * across a call. */
static fja_worker *worker_get(fja_pool *p, int32_t index)
{
    if (index < 0 || index > 32767) return NULL;
    if ((uint32_t)index >= p->nworkers) {
        uint32_t n = (uint32_t)index + 1;
        fja_worker *nw = realloc(p->workers, n * sizeof *nw);
        if (!nw) return NULL;
        for (uint32_t i = p->nworkers; i < n; i++)
            worker_init(&nw[i], (int32_t)i);
        p->workers = nw;
        p->nworkers = n;
    }
    return &p->workers[index];
}

static inline fja_task *task_at(fja_pool *p, uint32_t n)
{
    return fja_taskmap_get(&p->tasks, n);
}

static fja_tree *tree_of(fja_pool *p, const fja_task *t)
{
    return t->tree == FJA_TASK_NONE ? NULL : &p->trees[t->tree];
}

static uint32_t pool_width(const fja_pool *p)
{
    return p->nworkers_declared ? p->nworkers_declared : p->nworkers;
}

/* ------------------------------------------------------------ queues */

static void queued_add(fja_pool *p, uint64_t ts, int64_t delta)
{
    if (p->queued > 0 && ts > p->queued_ts) p->queued_cum += ts - p->queued_ts;
    if (ts > p->queued_ts) p->queued_ts = ts;
    p->queued += delta;
}

/* Total time with work queued anywhere in the pool, up to ts. */
static uint64_t queued_at(const fja_pool *p, uint64_t ts)
{
    return p->queued_cum + (p->queued > 0 && ts > p->queued_ts ? ts - p->queued_ts : 0);
}

/* Remembers when task t was queued (fork, submit), in a free slot. Without
 * memory for a slot the time is just not known (the report says so). */
static void qslot_take(fja_pool *p, fja_task *t, uint64_t ts)
{
    uint32_t s = p->qfree;
    if (s != FJA_TASK_NONE) {
        p->qfree = (uint32_t)p->qsince[s];
    } else {
        if (p->nqsince == p->cap_qsince) {
            uint32_t cap = p->cap_qsince ? p->cap_qsince * 2 : 64;
            uint64_t *q = cap > p->cap_qsince ? realloc(p->qsince, cap * sizeof *q) : NULL;
            if (!q) return;
            p->qsince = q;
            p->cap_qsince = cap;
        }
        s = p->nqsince++;
    }
    p->qsince[s] = ts;
    t->qslot = s;
}

/* t left its queue (taken by its owner or a thief): its slot is free. */
static void qslot_release(fja_pool *p, fja_task *t)
{
    if (t->qslot == FJA_TASK_NONE) return;
    p->qsince[t->qslot] = p->qfree;
    p->qfree = t->qslot;
    t->qslot = FJA_TASK_NONE;
}

static void worker_qadd(fja_pool *p, fja_worker *w, uint64_t ts, int64_t delta)
{
    if (w->qdepth > 0 && ts > w->q_ts) w->q_area += (double)w->qdepth * (double)(ts - w->q_ts);
    w->q_ts = ts;
    w->qdepth += delta;
    /* A pop or steal of a task forked before the trace began. */
    if (w->qdepth < 0)
        w->qdepth = 0;
    else
        queued_add(p, ts, delta);
    if (w->qdepth > w->qmax) w->qmax = w->qdepth;
}

/* ------------------------------------------------------------ self time, span */

static void frame_suspend(fja_pool *p, fja_frame *f, uint64_t ts)
{
    if (f->running && ts > f->seg_start) task_at(p, f->task)->self_ns += ts - f->seg_start;
    f->running = false;
}

static void frame_resume(fja_frame *f, uint64_t ts)
{
    if (!f->in_join && !f->in_lock) {
        f->running = true;
        f->seg_start = ts;
        f->since = ts;
    }
}

static fja_frame *top_frame(fja_worker *w)
{
    return w->depth ? &w->stack[w->depth - 1] : NULL;
}

/* Self time of task n so far, including the segment running now. */
static uint64_t self_now(fja_pool *p, uint32_t n, uint64_t ts)
{
    fja_task *t = task_at(p, n);
    uint64_t s = t->self_ns;
    if ((t->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) == FJA_TF_EXEC && t->worker >= 0 &&
        (uint32_t)t->worker < p->nworkers) {
        fja_frame *f = top_frame(&p->workers[t->worker]);
        if (f && f->task == n && f->running && ts > f->seg_start) s += ts - f->seg_start;
    }
    return s;
}

static uint64_t span_now(fja_pool *p, uint32_t n, uint64_t ts)
{
    int64_t v = task_at(p, n)->sp_base + (int64_t)self_now(p, n, ts);
    return v > 0 ? (uint64_t)v : 0;
}

static uint64_t body_end(const fja_task *t)
{
    int64_t v = t->sp_base + (int64_t)t->self_ns;
    return v > 0 ? (uint64_t)v : 0;
}

static bool task_is_done(const fja_task *t)
{
    return (t->flags & FJA_TF_COMPLETER) ? (t->flags & FJA_TF_COMPLETED)
                                         : (t->flags & FJA_TF_EXECUTED);
}

/* Tells a parent blocked in a join on n that n is done now. */
static void join_notify(fja_pool *p, const fja_task *parent, uint32_t n, uint64_t ts)
{
    if (parent->worker < 0 || (uint32_t)parent->worker >= p->nworkers) return;
    fja_worker *w = &p->workers[parent->worker];
    for (uint32_t i = w->depth; i-- > 0;)
        if (w->stack[i].in_join && w->stack[i].awaited == n && !w->stack[i].awaited_done_ts)
            w->stack[i].awaited_done_ts = ts;
}

/* Task n is done with done-span v at ts: the path through it reaches its
 * parent now. A running parent takes it as if joined at once (the earliest
 * the join can happen, so the span is never underestimated); a parent whose
 * body is over (a counted completer) keeps it for its own completion. */
static void task_done(fja_pool *p, uint32_t n, uint64_t ts, uint64_t v)
{
    fja_task *t = task_at(p, n);
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        if (v > tr->span_ns) tr->span_ns = v;
        if (ts > tr->last_done_ts) tr->last_done_ts = ts;
    }
    if (t->parent == FJA_TASK_NONE) return;
    fja_task *par = task_at(p, t->parent);
    if ((par->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) == FJA_TF_EXEC) {
        int64_t base = (int64_t)v - (int64_t)self_now(p, t->parent, ts);
        if (base > par->sp_base) par->sp_base = base;
        join_notify(p, par, n, ts);
    } else if (v > par->child_max) {
        par->child_max = v;
    }
}

/* Adds n's subtree work to its parent and to every ancestor that already
 * passed its own up (a completer's body ends before its children do). */
static void subtree_propagate(fja_pool *p, uint32_t n)
{
    fja_task *t = task_at(p, n);
    uint64_t add = t->subtree_ns;
    t->flags |= FJA_TF_PROPAGATED;
    for (uint32_t a = t->parent; a != FJA_TASK_NONE;) {
        fja_task *q = task_at(p, a);
        q->subtree_ns += add;
        if (!(q->flags & FJA_TF_PROPAGATED)) break;
        a = q->parent;
    }
}

/* ------------------------------------------------------------ worker states */

static fja_wstate worker_state(fja_worker *w)
{
    if (!w->begun || w->ended) return FJA_WS_OFF;
    if (w->parked) return FJA_WS_PARK;
    fja_frame *f = top_frame(w);
    if (!f) return FJA_WS_SEARCH;
    if (f->running) return FJA_WS_RUN;
    return f->in_lock ? FJA_WS_LOCK : FJA_WS_JOIN;
}

static bool is_gap_state(fja_wstate s)
{
    return s == FJA_WS_JOIN || s == FJA_WS_SEARCH || s == FJA_WS_PARK || s == FJA_WS_LOCK;
}

/* The class a gap starts with; search/park gaps are settled at their end. */
static fja_gap_class gap_class_of(fja_wstate s)
{
    return s == FJA_WS_JOIN ? FJA_GAP_JOIN : s == FJA_WS_LOCK ? FJA_GAP_LOCK : FJA_GAP_NO_WORK;
}

static void gap_close(fja_pool *p, fja_worker *w, uint64_t ts)
{
    uint64_t len = ts - w->gap_start;
    fja_gap_class c = w->gap_class;
    if (c == FJA_GAP_NO_WORK) {
        uint64_t q = queued_at(p, ts) - w->gap_queued_at_start;
        w->idle_queued_ns += q;
        /* Stealing was late if work sat in a queue for most of the gap. */
        c = 2 * q > len ? FJA_GAP_WORK_QUEUED : FJA_GAP_NO_WORK;
    }
    w->gaps[c]++;
    w->gap_ns[c] += len;
    fja_hist_add(&p->gap_hist, len);
    w->in_gap = false;
}

static void gap_track(fja_pool *p, fja_worker *w, fja_wstate old, fja_wstate now, uint64_t ts)
{
    /* Search and park belong to one idle gap; a join or lock wait is its own. */
    bool same = is_gap_state(old) && is_gap_state(now) && gap_class_of(old) == gap_class_of(now);
    if (w->in_gap && !same) gap_close(p, w, ts);
    if (!w->in_gap && is_gap_state(now)) {
        w->in_gap = true;
        w->gap_start = ts;
        w->gap_class = gap_class_of(now);
        w->gap_queued_at_start = queued_at(p, ts);
    }
}

static void tree_busy(fja_pool *p, fja_worker *w, uint32_t tree, uint64_t ts)
{
    if (tree == w->cur_tree) return;
    if (w->cur_tree != FJA_TASK_NONE) p->trees[w->cur_tree].busy_now--;
    w->cur_tree = tree;
    if (tree == FJA_TASK_NONE) return;
    fja_tree *tr = &p->trees[tree];
    if (++tr->busy_now >= pool_width(p) && !tr->full_par) {
        tr->full_par = true;
        tr->full_par_ts = ts;
    }
}

/* Re-derives w's state after an event and books the time of the old one. */
static void worker_update(fja_pool *p, fja_worker *w, uint64_t ts)
{
    fja_wstate now = worker_state(w);
    if (now != w->state) {
        if (w->state != FJA_WS_OFF && ts > w->state_ts) w->state_ns[w->state] += ts - w->state_ts;
        gap_track(p, w, w->state, now, ts);
        w->state = now;
        w->state_ts = ts;
    }
    fja_frame *f = top_frame(w);
    tree_busy(p, w, now == FJA_WS_RUN ? task_at(p, f->task)->tree : FJA_TASK_NONE, ts);
}

/* ------------------------------------------------------------ event handlers */

static uint32_t tree_new(fja_model *m, fja_pool *p, uint32_t root, const fja_event *ev)
{
    if (p->ntrees == p->cap_trees) {
        uint32_t cap = p->cap_trees ? p->cap_trees * 2 : 16;
        fja_tree *nt = realloc(p->trees, cap * sizeof *nt);
        if (!nt) {
            anomaly(m, FJA_AN_OUT_OF_MEMORY, ev);
            return FJA_TASK_NONE;
        }
        p->trees = nt;
        p->cap_trees = cap;
    }
    p->trees[p->ntrees] = (fja_tree){.root_id = ev->task, .root = root, .tasks = 1};
    return p->ntrees++;
}

static uint32_t task_new(fja_model *m, fja_pool *p, const fja_event *ev)
{
    uint32_t n = fja_taskmap_add(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE) {
        anomaly(m, FJA_AN_OUT_OF_MEMORY, ev);
        m->oom = true;
    } else {
        task_at(p, n)->qslot = FJA_TASK_NONE;
    }
    return n;
}

static void on_submit(fja_model *m, fja_pool *p, const fja_event *ev)
{
    if (fja_taskmap_find(&p->tasks, ev->task) != FJA_TASK_NONE) {
        anomaly(m, FJA_AN_DUPLICATE_ID, ev);
        return;
    }
    uint32_t n = task_new(m, p, ev);
    if (n == FJA_TASK_NONE) return;
    uint32_t tr = tree_new(m, p, n, ev);
    fja_task *t = task_at(p, n);
    t->flags = FJA_TF_SUBMITTED;
    t->tree = tr;
    if (tr != FJA_TASK_NONE) {
        p->trees[tr].has_submit = true;
        p->trees[tr].submit_ts = ev->ts;
    }
    qslot_take(p, t, ev->ts);
    p->submits++;
    p->pending_roots++;
    queued_add(p, ev->ts, 1);
}

static void on_result(fja_model *m, fja_pool *p, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    fja_tree *tr = n == FJA_TASK_NONE ? NULL : tree_of(p, task_at(p, n));
    if (!tr || tr->root != n) {
        anomaly(m, FJA_AN_RESULT_WITHOUT_SUBMIT, ev);
        return;
    }
    tr->has_result = true;
    tr->result_ts = ev->ts;
    p->results++;
}

static void fork_interval(fja_pool *p, fja_worker *w, const fja_event *ev)
{
    /* Two forks in a row by one parent: the gap bounds one fork's cost. */
    if (w->last_kind == FJA_EV_FORK && w->last_fork_parent == ev->arg.parent && ev->arg.parent)
        fja_hist_add(&p->fork_interval, ev->ts - w->last_fork_ts);
    w->last_fork_ts = ev->ts;
    w->last_fork_parent = ev->arg.parent;
}

/* Record of task id, trying the worker's running task first: most events
 * name it (executed) or its parent (fork), and that saves a hash probe. */
static uint32_t task_find_near(fja_pool *p, fja_worker *w, uint64_t id)
{
    fja_frame *f = top_frame(w);
    if (f && task_at(p, f->task)->id == id) return f->task;
    return fja_taskmap_find(&p->tasks, id);
}

static void fork_link(fja_model *m, fja_pool *p, fja_worker *w, uint32_t n, const fja_event *ev)
{
    uint32_t pn = ev->arg.parent ? task_find_near(p, w, ev->arg.parent) : FJA_TASK_NONE;
    fja_task *t = task_at(p, n);
    if (pn == FJA_TASK_NONE) {
        if (ev->arg.parent) anomaly(m, FJA_AN_UNKNOWN_PARENT, ev);
        p->orphans++;
        return;
    }
    fja_task *par = task_at(p, pn);
    t->parent = pn;
    t->depth = par->depth < UINT16_MAX ? par->depth + 1 : UINT16_MAX;
    t->tree = par->tree;
    t->sp_base = (int64_t)span_now(p, pn, ev->ts);
    if (par->nchildren < UINT16_MAX) par->nchildren++;
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        tr->tasks++;
        tr->forks++;
        if (t->depth > tr->max_depth) tr->max_depth = t->depth;
        if (par->nchildren > tr->max_arity) tr->max_arity = par->nchildren;
    }
}

static void on_fork(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    if (fja_taskmap_find(&p->tasks, ev->task) != FJA_TASK_NONE) {
        anomaly(m, FJA_AN_DUPLICATE_ID, ev);
        return;
    }
    /* A task that is its own parent would make the ancestor walks loop. */
    if (ev->arg.parent == ev->task) {
        anomaly(m, FJA_AN_SELF_PARENT, ev);
        return;
    }
    uint32_t n = task_new(m, p, ev);
    if (n == FJA_TASK_NONE) return;
    fja_task *t = task_at(p, n);
    t->flags = FJA_TF_FORKED;
    t->worker = (int16_t)w->index;
    t->size_hint = ev->size_hint > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->size_hint;
    if (ev->size_hint) p->any_size_hint = true;
    qslot_take(p, t, ev->ts);
    fork_link(m, p, w, n, ev);
    fork_interval(p, w, ev);
    w->forks++;
    p->forks++;
    worker_qadd(p, w, ev->ts, 1);
}

/* Takes an exec'd task off the queue it was counted in. */
static void exec_dequeue(fja_model *m, fja_pool *p, fja_worker *w, fja_task *t, const fja_event *ev)
{
    if (t->flags & FJA_TF_STOLEN) return; /* the steal dequeued it */
    qslot_release(p, t);
    if (t->flags & FJA_TF_FORKED) {
        fja_worker *owner = t->worker >= 0 ? worker_get(p, t->worker) : NULL;
        if (owner) worker_qadd(p, owner, ev->ts, -1);
        if (t->worker != w->index) anomaly(m, FJA_AN_EXEC_ELSEWHERE_WITHOUT_STEAL, ev);
    } else if (t->flags & FJA_TF_SUBMITTED) {
        p->pending_roots--;
        queued_add(p, ev->ts, -1);
    }
}

/* exec of a task never forked nor submitted: the trace began after its
 * fork. It becomes the root of a tree without a submission. */
static uint32_t exec_unknown(fja_model *m, fja_pool *p, const fja_event *ev)
{
    anomaly(m, FJA_AN_EXEC_UNKNOWN_TASK, ev);
    uint32_t n = task_new(m, p, ev);
    if (n == FJA_TASK_NONE) return n;
    uint32_t tr = tree_new(m, p, n, ev);
    task_at(p, n)->tree = tr;
    return n;
}

static int frame_push(fja_worker *w, uint32_t n, uint64_t ts)
{
    if (w->depth == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 16;
        fja_frame *s = realloc(w->stack, cap * sizeof *s);
        if (!s) return -1;
        w->stack = s;
        w->cap = cap;
    }
    w->stack[w->depth++] = (fja_frame){.task = n,
                                       .running = true,
                                       .seg_start = ts,
                                       .exec_ts = ts,
                                       .since = ts,
                                       .awaited = FJA_TASK_NONE};
    return 0;
}

static void on_exec(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE && (n = exec_unknown(m, p, ev)) == FJA_TASK_NONE) return;
    fja_task *t = task_at(p, n);
    if (t->flags & FJA_TF_EXEC) {
        anomaly(m, FJA_AN_DUPLICATE_EXEC, ev);
        return;
    }
    exec_dequeue(m, p, w, t, ev);
    if (w->stolen_task == n) {
        fja_hist_add(&p->steal_latency, ev->ts - w->steal_ts);
        w->stolen_task = FJA_TASK_NONE;
    }
    fja_frame *f = top_frame(w);
    if (f) {
        if (f->running) f->since = ev->ts; /* from running to under the nested task */
        frame_suspend(p, f, ev->ts);
    }
    if (frame_push(w, n, ev->ts)) {
        anomaly(m, FJA_AN_OUT_OF_MEMORY, ev);
        return;
    }
    t->flags |= FJA_TF_EXEC;
    t->worker = (int16_t)w->index;
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        if (!tr->started) {
            tr->started = true;
            tr->first_exec_ts = ev->ts;
        }
        if (w->index < 64) tr->workers_mask |= 1ull << w->index;
    }
    w->tasks++;
    p->execs++;
}

/* Book-keeping of a finished body: work, granularity, subtree, size. */
static void executed_account(fja_pool *p, uint32_t n)
{
    fja_task *t = task_at(p, n);
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        tr->work_ns += t->self_ns;
        tr->executed++;
    }
    fja_hist_add(&p->self_hist, t->self_ns);
    fja_hist_add(&p->depth_hist[t->depth < FJA_DEPTH_SLOTS ? t->depth : FJA_DEPTH_SLOTS - 1],
                 t->self_ns);
    t->subtree_ns += t->self_ns;
    subtree_propagate(p, n);
    if (t->flags & FJA_TF_FORKED) {
        uint32_t s = t->size_hint < FJA_SIZE_SLOTS ? t->size_hint : FJA_SIZE_SLOTS - 1;
        p->size_tasks[s]++;
        p->size_subtree_ns[s] += t->subtree_ns;
    }
}

/* Pops frames down to task n; frames above it never saw their executed. */
static bool frame_pop_to(fja_model *m, fja_pool *p, fja_worker *w, uint32_t n, const fja_event *ev)
{
    uint32_t i = w->depth;
    while (i > 0 && w->stack[i - 1].task != n)
        i--;
    if (i == 0) return false;
    while (w->depth > i) {
        anomaly(m, FJA_AN_UNBALANCED_NESTING, ev);
        frame_suspend(p, top_frame(w), ev->ts);
        w->depth--;
    }
    return true;
}

static void on_executed(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    uint32_t n = task_find_near(p, w, ev->task);
    if (n == FJA_TASK_NONE || !frame_pop_to(m, p, w, n, ev)) {
        anomaly(m, FJA_AN_EXECUTED_WITHOUT_EXEC, ev);
        return;
    }
    fja_frame *f = top_frame(w);
    frame_suspend(p, f, ev->ts);
    p->exec_to_executed_ns += ev->ts - f->exec_ts;
    w->depth--;
    fja_task *t = task_at(p, n);
    t->flags |= FJA_TF_EXECUTED;
    executed_account(p, n);
    uint64_t v = body_end(t);
    task_done(p, n, ev->ts, v > t->child_max ? v : t->child_max);
    fja_tree *tr = tree_of(p, t);
    if (tr && tr->root == n && !tr->done) {
        tr->done = true;
        tr->done_ts = ev->ts;
    }
    if ((f = top_frame(w))) frame_resume(f, ev->ts);
}

static void on_steal(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE) {
        anomaly(m, FJA_AN_STEAL_UNKNOWN_TASK, ev);
        return;
    }
    fja_task *t = task_at(p, n);
    int32_t owner_index = t->flags & FJA_TF_FORKED ? t->worker : -1;
    int32_t self_index = w->index;
    if (!(t->flags & FJA_TF_STOLEN) && owner_index >= 0) {
        fja_worker *owner = worker_get(p, owner_index);
        if (owner) worker_qadd(p, owner, ev->ts, -1);
    }
    qslot_release(p, t);
    w = &p->workers[self_index]; /* worker_get may have moved the array */
    t->flags |= FJA_TF_STOLEN;
    t->worker = (int16_t)self_index;
    w->steals++;
    p->steals++;
    fja_tree *tr = tree_of(p, t);
    if (tr) tr->steals++;
    p->steal_depth[t->depth < FJA_DEPTH_SLOTS ? t->depth : FJA_DEPTH_SLOTS - 1]++;
    w->stolen_task = n;
    w->steal_ts = ev->ts;
}

static void on_join(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    fja_frame *f = top_frame(w);
    if (!f) {
        anomaly(m, FJA_AN_JOIN_MISMATCH, ev);
        return;
    }
    frame_suspend(p, f, ev->ts);
    f->in_join = true;
    f->since = ev->ts;
    f->awaited = fja_taskmap_find(&p->tasks, ev->task);
    /* Done between the runtime's check and its event: no wait to measure. */
    f->awaited_done_ts =
        f->awaited != FJA_TASK_NONE && task_is_done(task_at(p, f->awaited)) ? ev->ts : 0;
    w->joins_waited++;
    p->joins_waited++;
    fja_tree *tr = tree_of(p, task_at(p, f->task));
    if (tr) tr->joins_waited++;
}

static void on_joined(fja_model *m, fja_pool *p, fja_worker *w, const fja_event *ev)
{
    fja_frame *f = top_frame(w);
    if (!f || !f->in_join) {
        anomaly(m, FJA_AN_JOIN_MISMATCH, ev);
        return;
    }
    if (f->awaited != fja_taskmap_find(&p->tasks, ev->task))
        anomaly(m, FJA_AN_JOIN_MISMATCH, ev);
    else if (f->awaited_done_ts)
        fja_hist_add(&p->join_latency, ev->ts - f->awaited_done_ts);
    f->in_join = false;
    frame_resume(f, ev->ts);
}

/* The lock table: a handful of named mutexes per program, so a linear
 * search is enough. Returns NULL only when out of memory. */
static fja_lock *lock_get(fja_model *m, uint32_t source, uint32_t id)
{
    for (uint32_t i = 0; i < m->nlocks; i++)
        if (m->locks[i].source == source && m->locks[i].id == id) return &m->locks[i];
    if (m->nlocks == m->cap_locks) {
        uint32_t cap = m->cap_locks ? m->cap_locks * 2 : 8;
        fja_lock *grown = realloc(m->locks, cap * sizeof *grown);
        if (!grown) return NULL;
        m->locks = grown;
        m->cap_locks = cap;
    }
    fja_lock *l = &m->locks[m->nlocks++];
    *l = (fja_lock){.source = source, .id = id};
    snprintf(l->name, sizeof l->name, "lock %u", id); /* until lock_init names it */
    return l;
}

static void on_lock_init(fja_model *m, const fja_event *ev)
{
    fja_lock *l = lock_get(m, ev->source, (uint32_t)ev->arg.lock);
    if (!l) {
        m->oom = true;
        return;
    }
    if (ev->name) name_copy(l->name, sizeof l->name, ev->name);
}

/* A lock wait suspends the running task: waiting is not work, and it is
 * the serialisation the program cannot see (brief, experiment 3). */
static void on_lock_wait(fja_pool *p, fja_worker *w, const fja_event *ev)
{
    fja_frame *f = top_frame(w);
    if (!f || !f->running) {
        p->lock_waits_outside++;
        return;
    }
    frame_suspend(p, f, ev->ts);
    f->in_lock = true;
    f->since = ev->ts;
    w->lock_waits++;
    p->lock_waits++;
    w->lock_id = (uint32_t)ev->arg.lock;
    w->lock_wait_ts = ev->ts;
}

static void on_lock_acquired(fja_model *m, fja_worker *w, const fja_event *ev)
{
    fja_frame *f = top_frame(w);
    if (f && f->in_lock) {
        f->in_lock = false;
        frame_resume(f, ev->ts);
        fja_lock *l = lock_get(m, ev->source, w->lock_id);
        if (!l) {
            m->oom = true;
            return;
        }
        l->waits++;
        l->wait_ns += ev->ts > w->lock_wait_ts ? ev->ts - w->lock_wait_ts : 0;
    }
}

static fja_worker *completion_slot(fja_pool *p, const fja_event *ev)
{
    return ev->worker >= 0 ? worker_get(p, ev->worker) : &p->client;
}

static void on_completing(fja_model *m, fja_pool *p, const fja_event *ev)
{
    fja_worker *w = completion_slot(p, ev);
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (!w) return;
    if (n == FJA_TASK_NONE)
        anomaly(m, FJA_AN_UNKNOWN_TASK_EVENT, ev);
    else
        task_at(p, n)->flags |= FJA_TF_COMPLETER;
    w->completing = true;
    w->completing_task = ev->task;
    w->completing_ts = ev->ts;
}

/* A completer is done when its completion ends: after its body, after its
 * children, and after the strand running the completion. */
static uint64_t completion_span(fja_pool *p, fja_worker *w, uint32_t n, uint64_t ts)
{
    fja_task *t = task_at(p, n);
    uint64_t v = t->child_max;
    uint64_t own = (t->flags & FJA_TF_EXECUTED) ? body_end(t) : span_now(p, n, ts);
    if (own > v) v = own;
    fja_frame *f = w->index >= 0 ? top_frame(w) : NULL;
    if (f) {
        uint64_t strand = span_now(p, f->task, ts);
        if (strand > v) v = strand;
    }
    return v;
}

static void on_completed(fja_model *m, fja_pool *p, const fja_event *ev)
{
    fja_worker *w = completion_slot(p, ev);
    if (!w) return;
    if (w->completing && w->completing_task == ev->task) {
        p->completing_to_completed_ns += ev->ts - w->completing_ts;
        p->completions++;
    } else {
        anomaly(m, FJA_AN_COMPLETED_WITHOUT_COMPLETING, ev);
    }
    w->completing = false;
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE) {
        anomaly(m, FJA_AN_UNKNOWN_TASK_EVENT, ev);
        return;
    }
    fja_task *t = task_at(p, n);
    t->flags |= FJA_TF_COMPLETER | FJA_TF_COMPLETED;
    task_done(p, n, ev->ts, completion_span(p, w, n, ev->ts));
    fja_tree *tr = tree_of(p, t);
    if (tr && tr->root == n) {
        tr->done = true;
        tr->done_ts = ev->ts;
    }
}

static void worker_begin(fja_worker *w, uint64_t ts)
{
    w->begun = true;
    w->begin_ts = ts;
    w->state_ts = ts;
    w->q_ts = ts;
}

/* Events of one worker thread. */
static void on_worker_event(fja_model *m, fja_pool *p, const fja_event *ev)
{
    fja_worker *w = worker_get(p, ev->worker);
    if (!w) {
        anomaly(m, FJA_AN_NOT_ON_WORKER, ev);
        return;
    }
    if (!w->begun && ev->kind != FJA_EV_WORKER_END)
        worker_begin(w, ev->ts); /* the trace began after worker_begin */
    w->seen = true;
    w->last_ts = ev->ts;
    switch (ev->kind) {
    case FJA_EV_WORKER_END:
        w->ended = true;
        w->end_ts = ev->ts;
        break;
    case FJA_EV_FORK:
        on_fork(m, p, w, ev);
        break;
    case FJA_EV_EXEC:
        on_exec(m, p, w, ev);
        break;
    case FJA_EV_EXECUTED:
        on_executed(m, p, w, ev);
        break;
    case FJA_EV_STEAL:
        on_steal(m, p, w, ev);
        break;
    case FJA_EV_JOIN:
        on_join(m, p, w, ev);
        break;
    case FJA_EV_JOINED:
        on_joined(m, p, w, ev);
        break;
    case FJA_EV_PARK:
        w->parked = true;
        w->parks++;
        p->parks++;
        break;
    case FJA_EV_UNPARK:
        w->parked = false;
        break;
    case FJA_EV_LOCK_WAIT:
        on_lock_wait(p, w, ev);
        break;
    case FJA_EV_LOCK_ACQUIRED:
        on_lock_acquired(m, w, ev);
        break;
    default:
        break;
    }
    w = &p->workers[ev->worker]; /* handlers may have grown the array */
    w->last_kind = ev->kind;
    worker_update(p, w, ev->ts);
}

static void on_pool_event(fja_model *m, fja_pool *p, const fja_event *ev)
{
    switch (ev->kind) {
    case FJA_EV_POOL_BEGIN:
        p->has_begin = true;
        p->begin_ts = ev->ts;
        p->nworkers_declared = (uint32_t)ev->arg.workers;
        if (ev->procname) name_copy(p->procname, sizeof p->procname, ev->procname);
        if (ev->procname || ev->pid > 0) p->pid = ev->pid;
        if (ev->arg.workers && ev->arg.workers <= 32768)
            worker_get(p, (int32_t)ev->arg.workers - 1);
        break;
    case FJA_EV_POOL_END:
        p->has_end = true;
        p->end_ts = ev->ts;
        break;
    case FJA_EV_SUBMIT:
        on_submit(m, p, ev);
        break;
    case FJA_EV_RESULT:
        on_result(m, p, ev);
        break;
    case FJA_EV_WAKE:
        p->wakes++;
        break;
    case FJA_EV_COMPLETING:
        on_completing(m, p, ev);
        break;
    case FJA_EV_COMPLETED:
        on_completed(m, p, ev);
        break;
    default:
        if (ev->worker >= 0)
            on_worker_event(m, p, ev);
        else
            anomaly(m, FJA_AN_NOT_ON_WORKER, ev);
    }
}

int fja_model_feed(fja_model *m, const fja_event *ev)
{
    if (m->events == 0) m->first_ts = ev->ts;
    if (ev->ts < m->last_ts)
        m->out_of_order++;
    else
        m->last_ts = ev->ts;
    m->events++;
    m->by_kind[ev->kind < FJA_EV_COUNT ? ev->kind : FJA_EV_UNKNOWN]++;
    if (ev->kind >= FJA_EV_UNKNOWN) {
        m->unknown_events++;
        return 0;
    }
    /* lock_init is not pool-bound (pool 0); locking off the workers is not
     * pool time */
    if (ev->kind == FJA_EV_LOCK_INIT) {
        on_lock_init(m, ev);
        return 0;
    }
    if (((ev->kind == FJA_EV_LOCK_WAIT || ev->kind == FJA_EV_LOCK_ACQUIRED) && ev->worker < 0))
        return 0;
    fja_pool *p = pool_get(m, ev->source, ev->pool);
    if (!p) {
        m->oom = true;
        return -1;
    }
    if (!p->seen) {
        p->seen = true;
        p->first_ts = ev->ts;
    }
    if (ev->ts > p->last_ts) p->last_ts = ev->ts;
    if (ev->kind == FJA_EV_WORKER_BEGIN) {
        fja_worker *w = worker_get(p, ev->worker);
        if (w && !w->begun) {
            worker_begin(w, ev->ts);
            w->seen = true;
            worker_update(p, w, ev->ts);
            return 0;
        }
    }
    on_pool_event(m, p, ev);
    return m->oom ? -1 : 0;
}

void fja_model_discarded(fja_model *m, uint64_t count, uint64_t ts, uint32_t source)
{
    (void)ts;
    m->discarded_events += count;
    m->discard_messages++;
    /* The lost events may belong to any tree of that trace still running. */
    for (uint32_t i = 0; i < m->npools; i++)
        for (uint32_t t = 0; t < m->pools[i].ntrees && m->pools[i].source == source; t++)
            if (!m->pools[i].trees[t].has_result) m->pools[i].trees[t].lossy = true;
}

void fja_model_decode_stopped(fja_model *m, const char *why)
{
    snprintf(m->decode_error, sizeof m->decode_error, "%s", why && *why ? why : "unknown error");
}

/* ------------------------------------------------------------ end of trace */

static void worker_close(fja_pool *p, fja_worker *w, uint64_t end)
{
    if (!w->begun || w->ended) return;
    /* Killed mid-run: book what ran up to the last event of the pool. */
    for (uint32_t i = 0; i < w->depth; i++)
        frame_suspend(p, &w->stack[i], end);
    w->ended = true;
    w->end_ts = end;
    worker_update(p, w, end);
}

/* A pool without pool_end was cut short with the trace: its workers ran
 * until the last event of the trace. */
static void pool_close(fja_pool *p, uint64_t trace_end)
{
    uint64_t end = p->has_end ? p->end_ts : trace_end;
    for (uint32_t i = 0; i < p->nworkers; i++) {
        fja_worker *w = &p->workers[i];
        worker_close(p, w, end);
        if (w->qdepth > 0 && w->end_ts > w->q_ts)
            w->q_area += (double)w->qdepth * (double)(w->end_ts - w->q_ts);
        w->q_ts = w->end_ts;
    }
    for (uint32_t n = 0; n < p->tasks.count; n++) {
        fja_task *t = task_at(p, n);
        if (fja_task_finished(t)) continue;
        p->unfinished++;
        fja_tree *tr = tree_of(p, t);
        if (!tr) continue;
        tr->unfinished++;
        /* Work so far: what a task cut short ran (booked by worker_close)
         * is work too, and keeps span <= work for a cut tree. */
        if ((t->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) == FJA_TF_EXEC) tr->work_ns += t->self_ns;
    }
}

void fja_model_finish(fja_model *m)
{
    if (m->finished) return;
    for (uint32_t i = 0; i < m->npools; i++)
        pool_close(&m->pools[i], m->last_ts);
    m->finished = true;
}

size_t fja_model_bytes(const fja_model *m)
{
    size_t b = m->cap_pools * sizeof(fja_pool);
    for (uint32_t i = 0; i < m->npools; i++) {
        const fja_pool *p = &m->pools[i];
        b += fja_taskmap_bytes(&p->tasks) + p->cap_trees * sizeof(fja_tree) +
             p->nworkers * sizeof(fja_worker) + p->cap_qsince * sizeof *p->qsince;
    }
    return b;
}

const fja_lock *fja_model_top_lock(const fja_model *m, uint32_t source)
{
    const fja_lock *top = NULL;
    for (uint32_t i = 0; i < m->nlocks; i++) {
        const fja_lock *l = &m->locks[i];
        if (l->source == source && l->waits && (!top || l->wait_ns > top->wait_ns)) top = l;
    }
    return top;
}
