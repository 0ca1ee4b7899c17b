#include "model.h"

#include "change.h"

#include "offcpu.h"
#include "recycle.h"

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
    [FJA_AN_INVALID_EVENT] = "invalid_event",
};

const fja_gap_info fja_gap_classes[FJA_GAP_COUNT] = {
#define FJA_GAP_INFO(name, key, text, offcpu_only) [FJA_GAP_##name] = {key, text, offcpu_only},
    FJA_GAP_CLASSES(FJA_GAP_INFO)
#undef FJA_GAP_INFO
};

const char *fja_anomaly_kind_name(fja_anomaly_kind k)
{
    return k < FJA_AN_COUNT ? anomaly_names[k] : "invalid";
}

/* Copies a name from the trace (a lock's, a process's), control characters
 * replaced by '?': a terminal showing the text report must not obey escape
 * sequences planted in a trace. The outputs escape the rest for their format. */
void fja_name_copy(char *dst, size_t n, const char *src)
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
    *m = (fja_model){0};
}

void fja_model_recycle(fja_model *m)
{
    m->recycle = true;
}

void fja_model_keep_wall(fja_model *m)
{
    m->wall = true;
}

static void pool_free(fja_pool *p)
{
    for (uint32_t i = 0; i < p->nworkers; i++)
        free(p->workers[i].bodies);
    free(p->workers);
    free(p->left);
    free(p->trees);
    free(p->tree_walls);
    fja_taskmap_free(&p->tasks);
    fja_sites_free(&p->sites);
    fja_depend_free(&p->deps);
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

void fja_model_restart(fja_model *m)
{
    bool recycle = m->recycle;
    fja_model_free(m);
    fja_model_init(m);
    if (recycle) fja_model_recycle(m);
}

/* Counts an inconsistent event (and keeps the first few as examples). */
static void anomaly(fja_model *m, fja_anomaly_kind k, const fja_event *ev)
{
    m->anomalies[k]++;
    if (m->nexamples < FJA_ANOMALY_EXAMPLES)
        m->examples[m->nexamples++] = (fja_anomaly){
            .kind = k, .ts = ev->ts, .task = ev->task, .pool = ev->pool, .worker = ev->worker};
}

/* ------------------------------------------------------------ the store */

static void worker_init(fja_worker *w, int32_t index)
{
    *w = (fja_worker){.index = index,
                      .cur_tree = FJA_TASK_NONE,
                      .stolen_task = FJA_TASK_NONE,
                      .last_fork_task = FJA_TASK_NONE,
                      .parted_task = FJA_TASK_NONE};
}

static void pool_init(fja_pool *p, uint32_t source, uint32_t id)
{
    *p = (fja_pool){.source = source, .id = id, .pid = -1};
    fja_taskmap_init(&p->tasks);
    worker_init(&p->client, -1);
    fja_hist_init(&p->self_hist);
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++)
        fja_hist_init(&p->depth_hist[d]);
    fja_hist_init(&p->join_latency);
    fja_hist_init(&p->steal_latency);
    fja_hist_init(&p->gap_hist);
    fja_hist_init(&p->fork_interval);
    fja_sites_init(&p->sites);
    fja_depend_init(&p->deps);
}

/* A new pool (source, id), numbered next; NULL when out of memory. */
static fja_pool *pool_make(fja_model *m, uint32_t source, uint32_t id)
{
    if (m->npools == m->cap_pools) {
        uint32_t cap = m->cap_pools ? m->cap_pools * 2 : 4;
        fja_pool *np = realloc(m->pools, cap * sizeof *np);
        if (!np) return NULL;
        m->pools = np;
        m->cap_pools = cap;
    }
    pool_init(&m->pools[m->npools], source, id);
    if (m->recycle) fja_taskmap_recycle(&m->pools[m->npools].tasks);
    if (m->wall) fja_taskmap_keep_wall(&m->pools[m->npools].tasks);
    return &m->pools[m->npools++];
}

/* Makes p's worker slots up to `index` (0..FJA_MAX_WORKER); false when
 * memory ran out. Growing moves the workers: nothing holds an fja_worker
 * pointer across a change. */
static bool pool_grow(fja_pool *p, int32_t index)
{
    uint32_t n = (uint32_t)index + 1;
    fja_worker *nw = realloc(p->workers, n * sizeof *nw);
    if (!nw) return false;
    for (uint32_t i = p->nworkers; i < n; i++)
        worker_init(&nw[i], (int32_t)i);
    p->workers = nw;
    p->nworkers = n;
    return true;
}

/* Worker `index` of p (FJA_CLIENT: its client threads), its slot made
 * at the first change naming it; NULL for FJA_NO_WORKER, or when memory
 * ran out (the model is then out of memory). */
__attribute__((noinline)) static fja_worker *pool_worker(fja_model *m, fja_pool *p, int32_t index)
{
    if (index == FJA_CLIENT) return &p->client;
    if (index < 0 || index > FJA_MAX_WORKER) return NULL;
    if ((uint32_t)index >= p->nworkers && !pool_grow(p, index)) {
        m->oom = true;
        return NULL;
    }
    return &p->workers[index];
}

/* The worker a change names (change.h: fja_change.worker), as
 * pool_worker; one already made is found inline. */
static inline fja_worker *worker_of(fja_model *m, fja_pool *p, int32_t index)
{
    if (__builtin_expect((uint32_t)index < p->nworkers, 1)) return &p->workers[index];
    return pool_worker(m, p, index);
}

static inline fja_task *task_at(fja_pool *p, uint32_t n)
{
    return fja_taskmap_get(&p->tasks, n);
}

/* Runs stmt with k each clock pool p keeps (fja_clock), a constant in
 * each copy: the model's own, then the wall-clock twins when kept. With k
 * a constant, the rules it calls (inline) are made once per clock with no
 * test of it: a loop over k cost 2-4% more instructions in the replay
 * (cachegrind, an fj-fib 22 and an omp-fib 20 recording: 125.8 M and
 * 129.0 M against 120.7 M and 126.1 M). */
#define EACH_CLOCK(p, k, stmt)                                                                     \
    do {                                                                                           \
        {                                                                                          \
            const fja_clock k = FJA_CLOCK_OWN;                                                     \
            stmt;                                                                                  \
        }                                                                                          \
        if ((p)->tasks.wall) {                                                                     \
            const fja_clock k = FJA_CLOCK_WALL;                                                    \
            stmt;                                                                                  \
        }                                                                                          \
    } while (0)

/* Task record n's figures on clock k. */
static inline fja_task_clock *clock_at(fja_pool *p, uint32_t n, fja_clock k)
{
    if (k == FJA_CLOCK_OWN) return &task_at(p, n)->clock;
    return fja_taskmap_wall(&p->tasks, n);
}

/* Tree i's work and span on clock k. */
static inline fja_tree_clock *tree_clock_at(fja_pool *p, uint32_t i, fja_clock k)
{
    if (k == FJA_CLOCK_OWN) return &p->trees[i].clock;
    return &p->tree_walls[i];
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

/* Brings each searching/parked worker's "work queued elsewhere" time up
 * to ts; called before any queue changes. Elsewhere: another worker's
 * deque or the submission queue, not its own deque (a worker with tasks in
 * its own deque is about to pop them, not late to steal). */
static void elsewhere_tick(fja_pool *p, uint64_t ts)
{
    if (!p->nowork_gaps) return;
    for (uint32_t i = 0; i < p->nworkers; i++) {
        fja_worker *w = &p->workers[i];
        if (!w->in_gap || w->gap_class != FJA_GAP_NO_WORK || ts <= w->gap_else_ts) continue;
        if (p->queued - w->qdepth > 0) w->gap_else_ns += ts - w->gap_else_ts;
        w->gap_else_ts = ts;
    }
}

static void queued_add(fja_pool *p, uint64_t ts, int64_t delta)
{
    elsewhere_tick(p, ts);
    if (p->queued > 0 && ts > p->queued_ts) p->queued_cum += ts - p->queued_ts;
    if (ts > p->queued_ts) p->queued_ts = ts;
    p->queued += delta;
}

/* Total time with work queued anywhere in the pool, up to ts. */
static uint64_t queued_at(const fja_pool *p, uint64_t ts)
{
    return p->queued_cum + (p->queued > 0 && ts > p->queued_ts ? ts - p->queued_ts : 0);
}

/* ------------------------------------------------------------ bodies: self time */

/* The body at level i of w's stack (as the tracker's frames are
 * numbered), NULL if none. */
static fja_body *body_at(fja_worker *w, uint32_t i)
{
    return i < w->nbodies ? &w->bodies[i] : NULL;
}

static fja_body *top_body(fja_worker *w)
{
    return w->nbodies ? &w->bodies[w->nbodies - 1] : NULL;
}

/* Where on the CPU a piece of w's that stops at ts ends: at the reading
 * before ts when ts is the switch that reading was made for, in the same
 * callback of the OMPT tool (fja_worker.tail_open, until the tracker's
 * TOOL_TAIL after the switch's own changes): the time between
 * is the tool's, which its next reading tells (on_tool_time). The tool's
 * time there is mostly its events' writing, but now and then 100-200 us
 * of the thread's CPU clock right after a reading (seen in 5 of 774
 * readings before an executed, under two busy loops): booked in the piece,
 * it was a 500 us leaf's +40%. */
static uint64_t piece_end(const fja_worker *w, uint64_t ts)
{
    return w->tail_open && w->tail_from < ts ? w->tail_from : ts;
}

/* The time the body b on top of worker w has accrued on clock k in its
 * segment running at ts: on the model's own clock while w runs it on the
 * CPU, to the piece's end (piece_end); on the wall clock also while it is
 * off the CPU, from the segment's start before it left
 * (fja_body.wall_seg_start), to ts. */
static inline uint64_t segment_now(const fja_worker *w, const fja_body *b, uint64_t ts, fja_clock k)
{
    if (k == FJA_CLOCK_WALL) {
        bool runs = b->running || b->off_cpu;
        return runs && ts > b->wall_seg_start ? ts - b->wall_seg_start : 0;
    }
    if (!b->running) return 0;
    uint64_t end = piece_end(w, ts);
    return end > b->seg_start ? end - b->seg_start : 0;
}

/* Books a running body's segment as its task's own time on each clock
 * (segment_now); what the piece's end left out is the tool's. */
static void body_suspend(fja_pool *p, fja_worker *w, fja_body *b, uint64_t ts)
{
    EACH_CLOCK(p, k, clock_at(p, b->task, k)->self_ns += segment_now(w, b, ts, k));
    if (b->running) w->tool_taken_ns += ts - piece_end(w, ts);
    b->running = false;
}

/* The top body b of w stops or goes on running at ts (SETTLED). */
static void body_run(fja_pool *p, fja_worker *w, fja_body *b, bool runs, uint64_t ts)
{
    if (!runs) {
        body_suspend(p, w, b, ts);
        return;
    }
    b->running = true;
    b->seg_start = ts;
    b->wall_seg_start = ts;
}

/* Task n's body starts (exec) or goes on (resume) on w at ts, above the
 * one running there, which stops. -1 when memory ran out (the model is
 * then out of memory, the replay abandoned: fja_model.oom). */
static int body_push(fja_pool *p, fja_worker *w, uint32_t n, uint64_t ts)
{
    fja_body *b = top_body(w);
    if (b) body_suspend(p, w, b, ts);
    if (w->nbodies == w->cap_bodies) {
        uint32_t cap = w->cap_bodies ? w->cap_bodies * 2 : 16;
        fja_body *s = realloc(w->bodies, cap * sizeof *s);
        if (!s) return -1;
        w->bodies = s;
        w->cap_bodies = cap;
    }
    w->bodies[w->nbodies++] =
        (fja_body){.task = n, .running = true, .seg_start = ts, .wall_seg_start = ts};
    return 0;
}

/* The top body ends or leaves the worker (executed, suspend, or popped
 * without its executed) at ts. */
static void body_pop(fja_pool *p, fja_worker *w, uint64_t ts)
{
    fja_body *b = top_body(w);
    if (!b) return;
    body_suspend(p, w, b, ts);
    if (b->in_join) w->in_joins--;
    w->nbodies--;
}

/* Task n's body while it is on top of its worker's stack (under way, no
 * nested task above it), else NULL. */
static const fja_body *top_body_of(fja_pool *p, const fja_task *t, uint32_t n)
{
    if ((t->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) != FJA_TF_EXEC || t->worker < 0 ||
        (uint32_t)t->worker >= p->nworkers)
        return NULL;
    const fja_body *b = top_body(&p->workers[t->worker]);
    return b && b->task == n ? b : NULL;
}

/* The task whose body is under the top one of w (the top one nested in
 * it), FJA_TASK_NONE if none. */
static uint32_t task_below_top(fja_worker *w)
{
    const fja_body *b = w->nbodies >= 2 ? body_at(w, w->nbodies - 2) : NULL;
    return b ? b->task : FJA_TASK_NONE;
}

/* ------------------------------------------------------------ span */

/* The rules below are written once and run on each clock the pool keeps
 * (fja_clock, EACH_CLOCK): the records' own figures, and their wall-clock
 * twins when kept. The clocks differ only in when a body accrues time
 * (segment_now) and in what the code a parent ran ahead of its join is
 * worth (ahead_on). */

/* Self time of task n so far on clock k, the segment running now
 * included. */
static inline uint64_t self_now(fja_pool *p, uint32_t n, uint64_t ts, fja_clock k)
{
    const fja_task *t = task_at(p, n);
    uint64_t self = clock_at(p, n, k)->self_ns;
    const fja_body *b = top_body_of(p, t, n);
    return b ? self + segment_now(&p->workers[t->worker], b, ts, k) : self;
}

/* The length of a path that reached a task's body at base and went on
 * for self ns in it (a base may be negative: a completer's, task_done). */
static uint64_t path_end(int64_t base, uint64_t self)
{
    int64_t v = base + (int64_t)self;
    return v > 0 ? (uint64_t)v : 0;
}

static inline uint64_t span_now(fja_pool *p, uint32_t n, uint64_t ts, fja_clock k)
{
    return path_end(clock_at(p, n, k)->sp_base, self_now(p, n, ts, k));
}

static uint64_t body_end(const fja_task_clock *c)
{
    return path_end(c->sp_base, c->self_ns);
}

/* Task n's done-span on clock k (fja_task_done_span). */
static uint64_t done_span(fja_pool *p, uint32_t n, fja_clock k)
{
    return fja_task_clock_done_span(clock_at(p, n, k));
}

/* The worker whose bodies hold task record n's, NULL if none holds one
 * in a join (nothing to look for). */
static fja_worker *joining_worker_of(fja_pool *p, uint32_t n)
{
    int32_t wi = task_at(p, n)->worker;
    if (wi < 0 || (uint32_t)wi >= p->nworkers || !p->workers[wi].in_joins) return NULL;
    return &p->workers[wi];
}

/* The body of task n's parent waiting for it in a join, NULL if none. */
static const fja_body *join_body(fja_pool *p, uint32_t n)
{
    uint32_t parent = task_at(p, n)->parent;
    fja_worker *w = parent == FJA_TASK_NONE ? NULL : joining_worker_of(p, parent);
    if (!w) return NULL;
    for (uint32_t i = w->nbodies; i-- > 0;)
        if (w->bodies[i].in_join && w->bodies[i].awaited == n) return &w->bodies[i];
    return NULL;
}

/* How much later than its done-span the path through task n reaches its
 * parent, waiting for it in a join_stolen (stolen_join_shift). */
static uint64_t join_shift_of(fja_pool *p, uint32_t n, fja_clock k)
{
    const fja_body *b = join_body(p, n);
    return b ? b->join_shift[k] : 0;
}

/* The record's flag that its path is moved on clock k. */
static const uint16_t join_shift_flag[FJA_CLOCKS] = {FJA_TF_JOIN_SHIFT, FJA_TF_JOIN_SHIFT_WALL};

/* A path of length v joins running task n's at ts: n goes on from the
 * later of the two. */
static inline void path_join(fja_pool *p, uint32_t n, uint64_t ts, uint64_t v, fja_clock k)
{
    fja_task_clock *c = clock_at(p, n, k);
    int64_t base = (int64_t)v - (int64_t)self_now(p, n, ts, k);
    if (base > c->sp_base) c->sp_base = base;
}

/* Is done task n joined by its running parent now? When the pool tells
 * every join (joins_told): if the parent waits for it (a join naming it,
 * or an OpenMP taskwait/barrier waiting for every child) or ran it in its
 * own join (exec_joined); otherwise its join comes later (join_done, or
 * the parent's end). Without it, the join is taken to be now: the earliest
 * it can be, so the span is never underestimated (a producer's later forks
 * then wrongly come after its earlier children). */
static bool joined_now(fja_pool *p, uint32_t n)
{
    const fja_task *t = task_at(p, n);
    if (!p->joins_told || (t->flags & FJA_TF_RUN_BY_JOIN)) return true;
    const fja_worker *w = joining_worker_of(p, t->parent);
    if (!w) return false;
    for (uint32_t i = w->nbodies; i-- > 0;) {
        const fja_body *b = &w->bodies[i];
        if (b->task == t->parent)
            return b->in_join &&
                   (b->awaited == n || b->awaited == FJA_TASK_NONE || b->awaited == t->parent);
    }
    return false;
}

/* The path through done task n (done-span v) reaches its parent at ts. A
 * running parent takes it if it joins n now (joined_now), else keeps it
 * (child_max) for the join (pending_join) or its own end; so does a parent
 * whose body is over (a counted completer), for its own completion. */
static inline void offer_to_parent(fja_pool *p, uint32_t n, uint64_t ts, uint64_t v, fja_clock k)
{
    const fja_task *t = task_at(p, n);
    if (t->parent == FJA_TASK_NONE) return;
    if (t->flags & join_shift_flag[k]) v += join_shift_of(p, n, k);
    const fja_task *par = task_at(p, t->parent);
    fja_task_clock *pc = clock_at(p, t->parent, k);
    if ((par->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) == FJA_TF_EXEC && joined_now(p, n))
        path_join(p, t->parent, ts, v, k);
    else if (v > pc->child_max)
        pc->child_max = v;
}

/* Task n is done with done-span v at ts. */
static inline void task_done(fja_pool *p, uint32_t n, uint64_t ts, uint64_t v, fja_clock k)
{
    const fja_task *t = task_at(p, n);
    if (t->tree != FJA_TASK_NONE) {
        fja_tree_clock *tc = tree_clock_at(p, t->tree, k);
        if (v > tc->span_ns) tc->span_ns = v;
    }
    offer_to_parent(p, n, ts, v, k);
}

/* Task n's tree saw a task done at ts (on every clock: task_done). */
static void tree_saw_done(fja_pool *p, uint32_t n, uint64_t ts)
{
    fja_tree *tr = tree_of(p, task_at(p, n));
    if (tr && ts > tr->last_done_ts) tr->last_done_ts = ts;
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

/* ------------------------------------------------------------ idle gaps */

static bool is_gap_state(fja_wstate s)
{
    return s == FJA_WS_JOIN || s == FJA_WS_SEARCH || s == FJA_WS_PARK || s == FJA_WS_LOCK;
}

/* The class a gap starts with; search/park gaps are settled at their end. */
static fja_gap_class gap_class_of(fja_wstate s)
{
    return s == FJA_WS_JOIN ? FJA_GAP_JOIN : s == FJA_WS_LOCK ? FJA_GAP_LOCK : FJA_GAP_NO_WORK;
}

static void holder_off_add(fja_pool *p, uint64_t ts, int64_t delta)
{
    if (p->holders_off > 0 && ts > p->holder_off_ts) p->holder_off_cum += ts - p->holder_off_ts;
    if (ts > p->holder_off_ts) p->holder_off_ts = ts;
    p->holders_off += delta;
}

/* Total time with a worker off the CPU in the middle of a task, up to ts. */
static uint64_t holder_off_at(const fja_pool *p, uint64_t ts)
{
    return p->holder_off_cum +
           (p->holders_off > 0 && ts > p->holder_off_ts ? ts - p->holder_off_ts : 0);
}

static void gap_close(fja_pool *p, fja_worker *w, uint64_t ts)
{
    /* Only the gap's time on the CPU: preempted, the worker was not idle
     * by its own choice (off-CPU time is booked apart). */
    uint64_t wall = ts - w->gap_start;
    uint64_t len = wall > w->gap_off_ns ? wall - w->gap_off_ns : 0;
    fja_gap_class c = w->gap_class;
    if (c == FJA_GAP_NO_WORK) {
        elsewhere_tick(p, ts);
        p->nowork_gaps--;
        w->idle_queued_ns += queued_at(p, ts) - w->gap_queued_at_start;
        uint64_t q = w->gap_else_ns;
        uint64_t h = holder_off_at(p, ts) - w->gap_holder_at_start;
        /* q and h are wall-clock time: take the gap's on-CPU share of them */
        if (wall > len) {
            q = (uint64_t)((double)q * (double)len / (double)wall);
            h = (uint64_t)((double)h * (double)len / (double)wall);
        }
        /* Stealing was late if work sat in a queue for most of the gap;
         * else a worker off the CPU in the middle of a task may have held
         * up the work this one waited for. */
        c = 2 * q > len   ? FJA_GAP_WORK_QUEUED
            : 2 * h > len ? FJA_GAP_HOLDER_OFFCPU
                          : FJA_GAP_NO_WORK;
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
        w->gap_holder_at_start = holder_off_at(p, ts);
        w->gap_off_ns = 0;
        w->gap_else_ns = 0;
        w->gap_else_ts = ts;
        if (w->gap_class == FJA_GAP_NO_WORK) p->nowork_gaps++;
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

/* Task n's self time (its body done, or cut short) is its tree's work, on
 * every clock. */
static void tree_work_add(fja_pool *p, uint32_t n)
{
    uint32_t tree = task_at(p, n)->tree;
    EACH_CLOCK(p, k, tree_clock_at(p, tree, k)->work_ns += clock_at(p, n, k)->self_ns);
}

/* Book-keeping of a finished body: work, granularity, subtree, size. */
static void executed_account(fja_pool *p, uint32_t n)
{
    fja_task *t = task_at(p, n);
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        tree_work_add(p, n);
        tr->executed++;
    }
    fja_hist_add(&p->self_hist, t->self_ns);
    fja_sites_on_executed(&p->sites, n, t->self_ns, t->depth);
    fja_hist_add(&p->depth_hist[t->depth < FJA_DEPTH_SLOTS ? t->depth : FJA_DEPTH_SLOTS - 1],
                 t->self_ns);
    t->subtree_ns += t->self_ns;
    subtree_propagate(p, n);
    if (t->flags & FJA_TF_FORKED) {
        uint32_t s = t->size_hint < FJA_SIZE_SLOTS ? t->size_hint : FJA_SIZE_SLOTS - 1;
        p->size_tasks[s]++;
        p->size_subtree_ns[s] += t->subtree_ns;
        uint32_t d = t->depth < FJA_DEPTH_SLOTS ? t->depth : FJA_DEPTH_SLOTS - 1;
        p->depth_tasks[d]++;
        p->depth_subtree_ns[d] += t->subtree_ns;
    }
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

/* A completer is done when its completion ends: after its body, after its
 * children, and after the strand running the completion. */
static uint64_t completion_span(fja_pool *p, fja_worker *w, uint32_t n, uint64_t ts, fja_clock k)
{
    const fja_task_clock *c = clock_at(p, n, k);
    uint64_t v = c->child_max;
    bool executed = task_at(p, n)->flags & FJA_TF_EXECUTED;
    uint64_t own = executed ? body_end(c) : span_now(p, n, ts, k);
    if (own > v) v = own;
    const fja_body *b = w->index >= 0 ? top_body(w) : NULL;
    if (b) {
        uint64_t strand = span_now(p, b->task, ts, k);
        if (strand > v) v = strand;
    }
    return v;
}

/* ------------------------------------------------------------ the model as a listener */

static fja_tree *tree_at(fja_pool *p, uint32_t n)
{
    return n == FJA_TASK_NONE ? NULL : tree_of(p, task_at(p, n));
}

/* The state's time, less what was booked apart as off-CPU time. */
static void on_state(fja_pool *p, fja_worker *w, const fja_change *c)
{
    if (c->from != FJA_WS_OFF && c->ts > c->since) {
        uint64_t dt = c->ts - c->since;
        w->state_ns[c->from] += dt > w->state_off_ns ? dt - w->state_off_ns : 0;
    }
    w->state_off_ns = 0;
    gap_track(p, w, c->from, c->to, c->ts);
    if (c->from == FJA_WS_OFF) w->begin_ts = c->since; /* its first state began with it */
    w->state = c->to;
    w->state_ts = c->ts;
}

/* Off the CPU, is the worker's time still its state's? Sleeping is what
 * parking is. A worker waiting for a lock waits for it whether it spins,
 * sleeps (a contended fj_mutex after spinning) or gives its CPU away
 * (libomp's locks yield: a switch perf calls a preemption): all of it is
 * lock-wait time. Anything else off the CPU is booked apart. */
static bool off_is_state(fja_wstate s, uint8_t kind)
{
    (void)kind;
    return s == FJA_WS_PARK || s == FJA_WS_LOCK;
}

/* Off the CPU: a running body stops accruing self time (its wall-clock
 * twin runs on), and its worker holds its task up meanwhile. */
static void on_offcpu_out(fja_pool *p, fja_worker *w, const fja_change *c)
{
    fja_body *b = top_body(w);
    if (b && b->running) { /* body_suspend's on-CPU part */
        if (c->ts > b->seg_start) task_at(p, b->task)->self_ns += c->ts - b->seg_start;
        b->running = false;
        b->off_cpu = true;
    }
    if (c->counted) holder_off_add(p, c->ts, 1);
}

/* Back from off the CPU (an interval within one state: a worker emits no
 * event, so changes no state, while away). */
static void on_offcpu_in(fja_pool *p, fja_worker *w, const fja_change *c)
{
    fja_body *b = top_body(w);
    if (b && b->off_cpu) { /* its body runs on, from here on the CPU */
        b->off_cpu = false;
        b->running = true;
        b->seg_start = c->ts;
    }
    if (c->counted) holder_off_add(p, c->ts, -1);
    uint32_t slot = w->off_recent_next++ % FJA_OFF_RECENT;
    w->off_recent[slot].out = c->since;
    w->off_recent[slot].in = c->ts;
    if (c->ts <= c->since || off_is_state(c->to, c->offcpu)) return;
    uint64_t dt = c->ts - c->since;
    w->off_ns[c->offcpu] += dt;
    w->state_off_ns += dt;
    if (w->in_gap) w->gap_off_ns += dt;
}

/* The OMPT tool's own time since w's previous clock reading (TOOL_TIME):
 * CPU time of its callbacks at the task boundaries and task creations
 * since then, which the trace's clock put in the tasks' pieces. Taken out
 * of the task running at this reading, the last piece's (every reading
 * ends a piece), as the stays off the CPU between two readings are
 * (offcpu.h): from its running segment, or, when it is off the CPU (a
 * stay the seal made or moved ends at the reading), from its self time
 * booked so far. Never more than that: a reading where no task runs (the
 * worker waited) or a shorter piece leaves the rest in no task, or in the
 * tasks' work (the report tells both figures). */
static void on_tool_time(fja_pool *p, fja_worker *w, const fja_change *c)
{
    uint64_t d = (uint64_t)c->delta, take = 0;
    w->tool_told = true;
    w->tool_ns += d;
    w->tool_beyond_ns += c->beyond;
    w->tool_beyond_readings += c->beyond > 0;
    /* the part the previous reading's switch kept out of the pieces */
    uint64_t placed = w->tool_ahead_ns < d ? w->tool_ahead_ns : d;
    w->tool_ahead_ns = 0;
    d -= placed;
    fja_body *b = top_body(w);
    if (b && b->running) {
        take = c->ts > b->seg_start ? c->ts - b->seg_start : 0;
        take = d < take ? d : take;
        b->seg_start += take;
    } else if (b && b->off_cpu) {
        fja_task *t = task_at(p, b->task);
        take = d < t->self_ns ? d : t->self_ns;
        t->self_ns -= take;
    }
    w->tool_taken_ns += take;
}

/* A reading of w's CPU clock (CLOCK_READ): the on-CPU time the trace's
 * clock counted since the previous one less the thread's clock's. */
static void on_clock_read(fja_worker *w, const fja_change *c)
{
    w->clock_read = true;
    if (c->joined) w->task_clock = true; /* its intervals were fitted to it (offcpu.h) */
    w->tail_open = c->switch_follows;
    w->tail_from = c->ts;
    if (!c->counted) return;
    w->unattributed_ns += c->delta;
    w->clock_disagree_ns += (uint64_t)(c->delta < 0 ? -c->delta : c->delta);
}

/* The switch w's reading said follows was applied (TOOL_TAIL): its
 * pieces ended at the reading (piece_end); the time to the switch is the
 * tool's, which its next reading tells (on_tool_time). Left off the CPU
 * first (not counted): the piece ended at the stay's start as before. */
static void on_tool_tail(fja_worker *w, const fja_change *c)
{
    w->tail_open = false;
    if (c->counted && c->ts > c->since) w->tool_ahead_ns += c->ts - c->since;
}

/* The off-CPU recording of w, or of p's client threads (w NULL). */
static void on_offcpu_recording(fja_pool *p, fja_worker *w, const fja_change *c)
{
    bool refused = c->offcpu == FJA_OFFREC_REFUSED;
    int32_t error = c->delta > 0 && c->delta < INT32_MAX ? (int32_t)c->delta : -1;
    if (!w) {
        if (c->offcpu == FJA_OFFREC_STARTED) p->client_offcpu_started = true;
        if (refused) p->client_offcpu_error = error;
        return;
    }
    if (c->offcpu == FJA_OFFREC_STARTED) w->offcpu_started = true;
    if (refused) w->offcpu_error = error;
    if (c->offcpu == FJA_OFFREC_LOST) w->offcpu_lost += (uint64_t)c->delta;
    if (c->offcpu == FJA_OFFREC_INTERVAL) w->offcpu_intervals++;
}

void fja_model_queue(fja_model *m, fja_pool *p, int32_t wi, int64_t delta, int64_t depth,
                     bool counted, uint64_t ts)
{
    fja_worker *w = worker_of(m, p, wi);
    if (!w) return;
    if (w->qdepth > 0 && ts > w->q_ts) w->q_area += (double)w->qdepth * (double)(ts - w->q_ts);
    w->q_ts = ts;
    if (counted) queued_add(p, ts, delta);
    if (depth > w->qmax) w->qmax = depth;
    w->qdepth = depth;
}

static void fork_interval(fja_pool *p, fja_worker *w, uint64_t parent_id, uint64_t ts)
{
    /* Two forks in a row by one parent: the gap bounds one fork's cost. */
    if (w->fork_last && w->last_fork_parent == parent_id && parent_id)
        fja_hist_add(&p->fork_interval, ts - w->last_fork_ts);
    w->forking = true;
    w->last_fork_ts = ts;
    w->last_fork_parent = parent_id;
}

/* Task record n, forked or submitted by worker (-1: a client) at ts, was
 * made at site (sites.h). */
static void site_on_task(fja_model *m, fja_pool *p, uint32_t n, uint64_t site, bool forked,
                         int32_t worker, uint64_t ts)
{
    if (!fja_sites_on_task(&p->sites, n, site, forked)) return;
    fja_event at = {.ts = ts, .task = task_at(p, n)->id, .pool = p->id, .worker = worker};
    anomaly(m, FJA_AN_OUT_OF_MEMORY, &at);
    m->oom = true;
}

/* The record of task n, forked by w at ts, filled in: its parent (record
 * pn, which the replay found for parent_id: FJA_TASK_NONE, none) and the
 * parent's tree. */
static void fork_link(fja_model *m, fja_pool *p, fja_worker *w, uint32_t n, uint64_t parent_id,
                      uint32_t pn, uint32_t size_hint, uint64_t ts)
{
    fja_task *t = task_at(p, n);
    t->flags = FJA_TF_FORKED;
    t->worker = (int16_t)w->index; /* the forker, until a steal or exec */
    t->size_hint = size_hint;
    if (pn == FJA_TASK_NONE) {
        if (!parent_id) return;
        fja_event at = {.ts = ts, .task = t->id, .pool = p->id, .worker = w->index};
        anomaly(m, FJA_AN_UNKNOWN_PARENT, &at);
        return;
    }
    fja_task *par = task_at(p, pn);
    t->parent = pn;
    t->depth = par->depth < UINT16_MAX ? par->depth + 1 : UINT16_MAX;
    t->tree = par->tree;
    if (par->nchildren < UINT16_MAX) par->nchildren++;
    fja_recycle_child(p, pn);
}

void fja_model_forked(fja_model *m, fja_pool *p, int32_t wi, uint32_t n, uint64_t parent_id,
                      uint32_t parent, uint32_t size_hint, uint64_t site, uint64_t ts)
{
    fja_worker *w = worker_of(m, p, wi);
    if (!w) return;
    fork_link(m, p, w, n, parent_id, parent, size_hint, ts);
    site_on_task(m, p, n, site, true, w->index, ts);
    fja_task *t = task_at(p, n);
    if (t->size_hint) p->any_size_hint = true;
    w->last_fork_task = t->parent == FJA_TASK_NONE ? FJA_TASK_NONE : n;
    if (t->parent == FJA_TASK_NONE) {
        p->orphans++;
    } else {
        fja_task *par = task_at(p, t->parent);
        EACH_CLOCK(p, k, {
            w->last_fork_self[k] = self_now(p, t->parent, ts, k);
            clock_at(p, n, k)->sp_base = (int64_t)span_now(p, t->parent, ts, k);
        });
        fja_tree *tr = tree_of(p, t);
        if (tr) {
            tr->tasks++;
            tr->forks++;
            if (t->depth > tr->max_depth) tr->max_depth = t->depth;
            if (par->nchildren > tr->max_arity) tr->max_arity = par->nchildren;
        }
    }
    fork_interval(p, w, parent_id, ts);
    w->forks++;
    p->forks++;
}

/* A new tree whose root is record root, made at ts (by worker: -1 a
 * client); FJA_TASK_NONE when out of memory (counted). */
static uint32_t tree_new(fja_model *m, fja_pool *p, uint32_t root, int32_t worker, uint64_t ts)
{
    uint64_t root_id = task_at(p, root)->id;
    if (p->ntrees == p->cap_trees) {
        uint32_t cap = p->cap_trees ? p->cap_trees * 2 : 16;
        fja_tree *nt = realloc(p->trees, cap * sizeof *nt);
        fja_tree_clock *nw = nt && m->wall ? realloc(p->tree_walls, cap * sizeof *nw) : NULL;
        if (nt) p->trees = nt;
        if (nw) p->tree_walls = nw;
        if (!nt || (m->wall && !nw)) {
            fja_event at = {.ts = ts, .task = root_id, .pool = p->id, .worker = worker};
            anomaly(m, FJA_AN_OUT_OF_MEMORY, &at);
            return FJA_TASK_NONE;
        }
        p->cap_trees = cap;
    }
    p->trees[p->ntrees] = (fja_tree){.root_id = root_id, .root = root};
    if (m->wall) p->tree_walls[p->ntrees] = (fja_tree_clock){0};
    return p->ntrees++;
}

/* A root: submitted, or exec'd without a fork seen (a tree of its own). */
static void on_root(fja_model *m, fja_pool *p, const fja_change *c)
{
    fja_task *t = task_at(p, c->task);
    if (c->other < 0) t->flags = FJA_TF_SUBMITTED;
    t->tree = tree_new(m, p, c->task, c->other, c->ts);
    fja_tree *tr = tree_of(p, t);
    if (tr) tr->tasks = 1;
    if (!(t->flags & FJA_TF_SUBMITTED)) return;
    site_on_task(m, p, c->task, c->site, false, -1, c->ts);
    if (tr) {
        tr->has_submit = true;
        tr->submit_ts = c->ts;
    }
    p->submits++;
    p->pending_roots++;
    queued_add(p, c->ts, 1);
}

/* The time worker w was on the CPU in [from, to]: less its stays off the
 * CPU there (its last FJA_OFF_RECENT; none in a model fed no boundary). */
static uint64_t oncpu_within(const fja_worker *w, uint64_t from, uint64_t to)
{
    uint64_t off = 0;
    for (uint32_t i = 0; i < FJA_OFF_RECENT; i++)
        off += fja_overlap_ns(w->off_recent[i].out, w->off_recent[i].in, from, to);
    return to > from + off ? to - from - off : 0;
}

/* ahead is wall-clock time: the worker's stays off the CPU that fall in
 * the parent's run ahead of its join were none of its code (the on-CPU
 * span it is taken from does not hold them either). The ring holds the
 * latest; a stretch with more stays than that keeps the older ones. */
static uint64_t oncpu_ahead(const fja_worker *w, const fja_change *c)
{
    uint64_t from = c->ts > c->ahead ? c->ts - c->ahead : 0;
    return oncpu_within(w, from, c->ts);
}

/* The parent's own code ahead of its join (c->ahead, wall-clock time), on
 * clock k: on the model's own clock less the worker's stays off the CPU in
 * it (oncpu_ahead: none in a model fed no boundary); on the wall clock all
 * of it (a model fed no boundary knows no stay off the CPU). */
static uint64_t ahead_on(const fja_worker *w, const fja_change *c, fja_clock k)
{
    return k == FJA_CLOCK_OWN ? oncpu_ahead(w, c) : c->ahead;
}

/* Run by its parent's own join (exec_joined), right on top of it: the
 * parent's strand from the fork to here, less the code it ran ahead of its
 * join (ahead_on), was the fork's and the join's own cost while the parent
 * waited: it comes before the child on the path, not beside it (a chain of
 * empty tasks has span = work, not half of it). A sibling done meanwhile
 * is taken as joined at once, as everywhere (task_done). */
static inline void joined_start(fja_pool *p, fja_worker *w, const fja_change *c, fja_clock k)
{
    const fja_task *t = task_at(p, c->task);
    if (!c->joined || t->parent == FJA_TASK_NONE || task_below_top(w) != t->parent) return;
    uint64_t parent_span = span_now(p, t->parent, c->ts, k);
    uint64_t ahead = ahead_on(w, c, k);
    /* A damaged trace may claim more code ahead than the parent's whole
     * strand: then the join tells nothing, and the child starts as before. */
    if (ahead > parent_span) return;
    int64_t base = (int64_t)(parent_span - ahead);
    fja_task_clock *tc = clock_at(p, c->task, k);
    if (base > tc->sp_base) tc->sp_base = base;
}

void fja_model_task_begin(fja_model *m, fja_pool *p, const fja_change *c)
{
    fja_worker *w = worker_of(m, p, c->worker);
    if (!w) return;
    fja_task *t = task_at(p, c->task);
    t->flags |= FJA_TF_EXEC;
    t->worker = (int16_t)w->index; /* its executor from now on */
    if (body_push(p, w, c->task, c->ts)) m->oom = true;
    if (c->joined && t->parent != FJA_TASK_NONE && task_below_top(w) == t->parent)
        t->flags |= FJA_TF_RUN_BY_JOIN;
    EACH_CLOCK(p, k, joined_start(p, w, c, k));
    if (!c->stolen && (t->flags & FJA_TF_SUBMITTED)) {
        p->pending_roots--;
        queued_add(p, c->ts, -1);
    }
    /* On the thief's CPU: a stay off it is no cost of the steal (and the
     * burdened bound's work and span are on-CPU time too). */
    if (w->stolen_task == c->task) {
        fja_hist_add(&p->steal_latency, oncpu_within(w, w->steal_ts, c->ts));
        w->stolen_task = FJA_TASK_NONE;
    }
    fja_tree *tr = tree_of(p, t);
    if (tr) {
        if (!tr->started) {
            tr->started = true;
            tr->first_exec_ts = c->ts;
        }
        if (w->index < 64) tr->workers_mask |= 1ull << w->index;
    }
    w->tasks++;
    p->execs++;
}

static void tree_done(fja_tree *tr, uint32_t n, uint64_t ts, bool once)
{
    if (tr && tr->root == n && !(once && tr->done)) {
        tr->done = true;
        tr->done_ts = ts;
    }
}

/* ---- Dependences (OpenMP depend): a task cannot start before its
 * predecessors are done, so the path through it begins no earlier than
 * the longest path through any of them (its sp_base is raised to their
 * done-spans, as its parent's span at the fork raised it first). The
 * runtime reports an edge only while the predecessor is not done; one done
 * already (its end and the edge raced) is followed at once. */

/* Task sink starts no earlier than the path through pred, done. */
static void follow_edge(fja_pool *p, uint32_t sink, uint32_t pred)
{
    EACH_CLOCK(p, k, {
        fja_task_clock *sc = clock_at(p, sink, k);
        int64_t v = (int64_t)done_span(p, pred, k);
        if (v > sc->sp_base) sc->sp_base = v;
    });
}

typedef struct {
    fja_pool *p;
    uint32_t pred;
} release_ctx;

static void let_go(void *ctx, uint32_t sink)
{
    const release_ctx *r = ctx;
    follow_edge(r->p, sink, r->pred);
}

static void release_dependents(fja_pool *p, uint32_t n)
{
    release_ctx r = {.p = p, .pred = n};
    fja_depend_release(&p->deps, n, let_go, &r);
}

static void on_dependence(fja_model *m, fja_pool *p, const fja_change *c)
{
    p->dependences++; /* every edge, followed or not */
    if (!c->counted) return;
    uint32_t pred = (uint32_t)c->parent_id;
    const fja_task *t = task_at(p, pred);
    if (fja_task_finished(t)) {
        follow_edge(p, c->task, pred);
    } else if (fja_depend_add(&p->deps, pred, c->task) != 0) {
        m->oom = true;
    }
}

void fja_model_task_end(fja_model *m, fja_pool *p, int32_t wi, uint32_t n, uint64_t since,
                        uint64_t ts)
{
    fja_worker *w = worker_of(m, p, wi);
    if (!w) return;
    fja_task *t = task_at(p, n);
    t->flags |= FJA_TF_EXECUTED;
    body_pop(p, w, ts);
    p->exec_to_executed_ns += ts - since;
    if (w->nbodies == 0) p->outermost_bodies_ns += ts - since;
    executed_account(p, n);
    EACH_CLOCK(p, k, task_done(p, n, ts, done_span(p, n, k), k));
    tree_saw_done(p, n, ts);
    release_dependents(p, n);
    tree_done(tree_of(p, t), n, ts, true);
}

static void on_task_done(fja_pool *p, fja_worker *w, const fja_change *c)
{
    task_at(p, c->task)->flags |= FJA_TF_COMPLETER | FJA_TF_COMPLETED;
    if (c->counted) {
        p->completing_to_completed_ns += c->ts - c->since;
        p->completions++;
    }
    EACH_CLOCK(p, k, task_done(p, c->task, c->ts, completion_span(p, w, c->task, c->ts, k), k));
    tree_saw_done(p, c->task, c->ts);
    tree_done(tree_at(p, c->task), c->task, c->ts, false);
}

static void on_steal(fja_pool *p, fja_worker *w, const fja_change *c)
{
    fja_task *t = task_at(p, c->task);
    t->flags |= FJA_TF_STOLEN;
    t->worker = (int16_t)w->index; /* the thief, until its exec */
    w->stolen_task = c->task;
    w->steal_ts = c->ts;
    w->steals++;
    p->steals++;
    fja_sites_on_steal(&p->sites, c->task);
    fja_tree *tr = tree_of(p, t);
    if (tr) tr->steals++;
    p->steal_depth[t->depth < FJA_DEPTH_SLOTS ? t->depth : FJA_DEPTH_SLOTS - 1]++;
}

/* The stolen child of a join_stolen whose strand is known (the last task
 * this worker forked, the waiting frame's child), else NULL. */
static fja_task *stolen_join_child(fja_pool *p, const fja_worker *w, const fja_body *b,
                                   const fja_change *c)
{
    if (!c->joined || c->task == FJA_TASK_NONE || c->task != w->last_fork_task) return NULL;
    fja_task *t = task_at(p, c->task);
    return t->parent == b->task ? t : NULL;
}

/* The fork's and the join's cost: the parent's self time from the fork
 * (self_at_fork) to now (self), less its own code ahead; 0 when the join
 * tells nothing (a damaged trace: more code ahead than the strand). */
static uint64_t stolen_join_cost(uint64_t self, uint64_t self_at_fork, uint64_t ahead)
{
    uint64_t strand = self > self_at_fork ? self - self_at_fork : 0;
    return ahead < strand ? strand - ahead : 0;
}

/* A waited join of a stolen child (join_stolen): as for a child run by the
 * join itself (joined_start), the parent's strand from the fork to here,
 * less its own code ahead of the join, was the fork's and the join's own
 * cost: it comes before the child on the path, not beside it (a chain of
 * empty tasks passed back and forth between two workers is sequential).
 * The strand is known when the child is the last task this worker forked:
 * a fork followed by its join, the shape where that cost is all there is.
 * The child's path reaches the parent later by that cost: when it is done
 * (the frame keeps the cost: the child's own children, forked before this
 * event, started from its unmoved span), or now, moved, if it was done
 * already (between the runtime's check and its event). */
static void stolen_join_shift(fja_pool *p, fja_worker *w, const fja_change *c, fja_clock k)
{
    fja_body *b = top_body(w);
    if (!b) return;
    b->join_shift[k] = 0;
    fja_task *t = stolen_join_child(p, w, b, c);
    if (!t) return;
    uint64_t cost =
        stolen_join_cost(self_now(p, t->parent, c->ts, k), w->last_fork_self[k], ahead_on(w, c, k));
    if (!cost) return;
    if (fja_task_finished(t)) {
        offer_to_parent(p, c->task, c->ts, done_span(p, c->task, k) + cost, k);
        return;
    }
    b->join_shift[k] = cost;
    t->flags |= join_shift_flag[k];
}

/* Running task n joins the paths of its done children it had kept for
 * their join (child_max): an OpenMP taskwait or barrier waits for every
 * child. */
static void join_children(fja_pool *p, uint32_t n, uint64_t ts)
{
    EACH_CLOCK(p, k, path_join(p, n, ts, clock_at(p, n, k)->child_max, k));
}

/* The worker's running task joins its child c->task, done before
 * (join_done): the child's path reaches the parent here; no task (an
 * OpenMP taskwait that waited for nothing): every child done so far. */
static void on_join_done(fja_pool *p, fja_worker *w, const fja_change *c)
{
    const fja_body *b = top_body(w);
    if (!b) return; /* not kept: memory ran out */
    uint32_t parent = b->task;
    if (c->task == FJA_TASK_NONE) {
        join_children(p, parent, c->ts);
        return;
    }
    EACH_CLOCK(p, k, path_join(p, parent, c->ts, done_span(p, c->task, k), k));
}

/* w's top body waits in a join for c->task from now (the tracker's top
 * frame does: JOIN_BEGIN), until JOIN_END. */
static void join_wait(fja_worker *w, const fja_change *c)
{
    fja_body *b = top_body(w);
    if (!b) return; /* not kept: memory ran out */
    if (!b->in_join) w->in_joins++;
    b->in_join = true;
    b->awaited = c->task;
}

static void on_join_begin(fja_pool *p, fja_worker *w, const fja_change *c)
{
    join_wait(w, c);
    EACH_CLOCK(p, k, stolen_join_shift(p, w, c, k));
    w->joins_waited++;
    p->joins_waited++;
    const fja_body *b = top_body(w);
    if (!b) return; /* not kept: memory ran out */
    uint32_t waiter = b->task;
    fja_tree *tr = tree_at(p, waiter);
    if (tr) tr->joins_waited++;
    /* OpenMP: a barrier names the waiting implicit task itself, a taskwait
     * or taskgroup no task (docs/openmp.md). */
    if (c->task == waiter)
        p->barrier_waits++;
    else if (c->task == FJA_TASK_NONE)
        p->taskwait_waits++;
    if (c->task == waiter || c->task == FJA_TASK_NONE) join_children(p, waiter, c->ts);
}

static void join_end(fja_worker *w)
{
    fja_body *b = top_body(w);
    if (!b || !b->in_join) return; /* not kept: memory ran out */
    b->in_join = false;
    w->in_joins--;
}

static void on_lock_begin(fja_pool *p, fja_worker *w, const fja_change *c)
{
    if (c->task == FJA_TASK_NONE) {
        p->lock_waits_outside++;
        return;
    }
    w->lock_waits++;
    p->lock_waits++;
}

static void on_lock_end(fja_model *m, const fja_pool *p, const fja_change *c)
{
    fja_lock *l = lock_get(m, p->source, c->lock);
    if (!l) {
        m->oom = true;
        return;
    }
    l->waits++;
    l->wait_ns += c->ts > c->since ? c->ts - c->since : 0;
}

static void on_lock_name(fja_model *m, const fja_change *c)
{
    fja_lock *l = lock_get(m, c->source, c->lock);
    if (!l) {
        m->oom = true;
        return;
    }
    if (c->name) fja_name_copy(l->name, sizeof l->name, c->name);
}

/* A task the replay left under way at the end: kept for the report. */
static void on_unfinished(fja_model *m, fja_pool *p, const fja_change *c)
{
    if (p->nleft == p->cap_left) {
        uint32_t cap = p->cap_left ? p->cap_left * 2 : 16;
        fja_left *l = realloc(p->left, cap * sizeof *l);
        if (!l) {
            m->oom = true;
            return;
        }
        p->left = l;
        p->cap_left = cap;
    }
    p->left[p->nleft++] = (fja_left){.since = c->since,
                                     .awaited = c->parent_id,
                                     .task = c->task,
                                     .worker = c->worker >= 0 ? c->worker : -1,
                                     .state = (fja_ustate)c->left};
}

/* What the pool's own events say of it. */
static void on_pool_fact(fja_pool *p, const fja_change *c)
{
    switch ((fja_pool_fact)c->fact) {
    case FJA_FACT_BEGIN:
        p->has_begin = true;
        p->begin_ts = c->ts;
        p->nworkers_declared = (uint32_t)c->workers;
        if (c->name) fja_name_copy(p->procname, sizeof p->procname, c->name);
        if (c->counted) p->pid = c->delta;
        /* a slot for every worker declared (none without memory: made
         * as named, or the model runs out of memory then) */
        if (c->workers && c->workers <= FJA_MAX_WORKER + 1 && c->workers > p->nworkers)
            pool_grow(p, (int32_t)c->workers - 1);
        break;
    case FJA_FACT_RUNTIME: /* OpenMP pools have inferred steals and no parking */
        if (c->name) fja_name_copy(p->runtime_model, sizeof p->runtime_model, c->name);
        if (c->version) fja_name_copy(p->runtime_version, sizeof p->runtime_version, c->version);
        p->openmp = c->name && strcmp(c->name, "openmp") == 0;
        p->jvm = c->name && strcmp(c->name, "jvm") == 0;
        break;
    case FJA_FACT_END:
        p->has_end = true;
        p->end_ts = c->ts;
        break;
    case FJA_FACT_JOINS_TOLD:
        p->joins_told = true;
        break;
    }
}

/* A client thread's stay off the CPU while it waited for a tree: the
 * part within the tree's round trip, and within its final hand-off (from
 * done on). */
static void on_client_offcpu(fja_pool *p, const fja_change *c)
{
    fja_tree *tr = tree_at(p, c->task);
    if (!tr->has_submit) return;
    tr->client_off_ns[c->offcpu] += fja_overlap_ns(c->since, c->ts, tr->submit_ts, c->ts);
    if (tr->done) tr->client_wake_ns += fja_overlap_ns(c->since, c->ts, tr->done_ts, c->ts);
}

static void on_result(fja_pool *p, const fja_change *c)
{
    fja_tree *tr = tree_at(p, c->task);
    tr->has_result = true;
    tr->result_ts = c->ts;
    p->results++;
}

/* End of the trace: the last queue interval, and what never finished. */
static void on_pool_end(fja_pool *p)
{
    for (uint32_t i = 0; i < p->nworkers; i++) {
        fja_worker *w = &p->workers[i];
        if (w->qdepth > 0 && w->end_ts > w->q_ts)
            w->q_area += (double)w->qdepth * (double)(w->end_ts - w->q_ts);
        w->q_ts = w->end_ts;
    }
    for (uint32_t n = 0; n < p->tasks.count; n++) {
        fja_task *t = task_at(p, n);
        if (fja_task_finished(t) || (t->flags & FJA_TF_FREE)) continue;
        p->unfinished++;
        fja_tree *tr = tree_of(p, t);
        if (!tr) continue;
        tr->unfinished++;
        /* Work so far: what a task cut short ran (booked when its worker
         * was closed) is work too, and keeps span <= work for a cut tree. */
        if ((t->flags & (FJA_TF_EXEC | FJA_TF_EXECUTED)) != FJA_TF_EXEC) continue;
        tree_work_add(p, n);
    }
}

void fja_model_settled(fja_model *m, fja_pool *p, int32_t wi, uint32_t task, bool runs, uint64_t ts)
{
    fja_worker *w = worker_of(m, p, wi);
    if (!w) return;
    /* The tracker's frame stopped or went on at this event's time: its
     * segment ends or begins now (a worker is on the CPU at its events). */
    fja_body *b = top_body(w);
    if (b && b->running != runs) body_run(p, w, b, runs, ts);
    tree_busy(p, w, task == FJA_TASK_NONE ? FJA_TASK_NONE : task_at(p, task)->tree, ts);
    w->fork_last = w->forking; /* every event of a worker ends with its SETTLED */
    w->forking = false;
    w->seen = true;
}

static void on_worker_change(fja_model *m, fja_pool *p, fja_worker *w, const fja_change *c)
{
    switch (c->kind) {
    case FJA_CHANGE_STATE:
        on_state(p, w, c);
        break;
    case FJA_CHANGE_TASK_LOST:
        body_pop(p, w, c->ts);
        break;
    case FJA_CHANGE_STEAL:
        on_steal(p, w, c);
        break;
    case FJA_CHANGE_JOIN_BEGIN:
        on_join_begin(p, w, c);
        break;
    case FJA_CHANGE_TASK_SUSPEND:
        task_at(p, c->task)->flags |= FJA_TF_SUSPENDED;
        body_pop(p, w, c->ts);
        p->suspends++;
        w->parted_task = c->task;
        w->parted_execs = w->tasks;
        break;
    case FJA_CHANGE_TASK_RESUME:
        task_at(p, c->task)->flags &= (uint16_t)~FJA_TF_SUSPENDED;
        task_at(p, c->task)->worker = (int16_t)w->index;
        if (body_push(p, w, c->task, c->ts)) m->oom = true;
        /* Taken back by its own worker before it ran anything else: the
         * task never left the thread (a part boundary, docs/openmp.md). */
        if (w->parted_task == c->task && w->parted_execs == w->tasks) p->suspends--;
        w->parted_task = FJA_TASK_NONE;
        break;
    case FJA_CHANGE_JOIN_END:
        join_end(w);
        /* on the waiter's CPU, as the steal's */
        if (c->since) fja_hist_add(&p->join_latency, oncpu_within(w, c->since, c->ts));
        break;
    case FJA_CHANGE_JOIN_DONE:
        on_join_done(p, w, c);
        break;
    case FJA_CHANGE_LOCK_BEGIN:
        on_lock_begin(p, w, c);
        break;
    case FJA_CHANGE_PARK:
        w->parks++;
        p->parks++;
        break;
    case FJA_CHANGE_OFFCPU_OUT:
        on_offcpu_out(p, w, c);
        break;
    case FJA_CHANGE_OFFCPU_IN:
        on_offcpu_in(p, w, c);
        break;
    case FJA_CHANGE_TOOL_TIME:
        on_tool_time(p, w, c);
        break;
    case FJA_CHANGE_CLOCK_READ:
        on_clock_read(w, c);
        break;
    case FJA_CHANGE_TOOL_TAIL:
        on_tool_tail(w, c);
        break;
    case FJA_CHANGE_WORKER_END:
        w->ended = true;
        w->end_ts = c->ts;
        break;
    default:
        break;
    }
}

/* What the events claim contradicts itself (why), found at ev: an
 * invalid_event anomaly, the first reason kept. */
static void contradiction(fja_model *m, const fja_event *ev, const char *why)
{
    if (!*m->invalid_first)
        snprintf(m->invalid_first, sizeof m->invalid_first, "%s", why && *why ? why : "invalid");
    /* its time is what may be wrong: the example is placed at the last
     * time believed */
    fja_event at = *ev;
    at.ts = m->last_ts > m->first_ts ? m->last_ts : m->first_ts;
    anomaly(m, FJA_AN_INVALID_EVENT, &at);
}

/* An event the tracker found inconsistent; one it does not believe (a
 * reason told) is counted as read unless it was a replayed edge. One
 * that names a worker no other change named (change.h) made its slot
 * (fja_model_change). */
static void on_anomaly(fja_model *m, const fja_change *c)
{
    if (!c->name) {
        anomaly(m, (fja_anomaly_kind)c->anomaly, c->event);
        return;
    }
    if (c->counted) m->events++;
    contradiction(m, c->event, c->name);
}

/* The trace's end: the --recording token and what it left out, and an
 * invalid event met before the first believed one placed at it. */
static void on_trace_end(fja_model *m, const fja_change *c)
{
    m->recording_set = c->counted;
    m->recording = c->recording;
    m->left_out_pools = c->pools;
    m->left_out_events = (uint64_t)c->delta;
    for (uint32_t i = 0; i < m->nexamples; i++)
        if (m->examples[i].ts < m->first_ts) m->examples[i].ts = m->first_ts;
}

void fja_model_change(void *ctx, fja_model *m, const fja_change *c)
{
    (void)ctx;
    fja_pool *p = c->pool_index < m->npools ? &m->pools[c->pool_index] : NULL;
    /* the worker it names (NULL: none), its slot made at the first change
     * naming it; a change of no pool names none but an anomaly's */
    fja_worker *w = p && c->worker != FJA_NO_WORKER ? worker_of(m, p, c->worker) : NULL;
    switch (c->kind) {
    case FJA_CHANGE_LOCK_NAME:
        on_lock_name(m, c);
        break;
    case FJA_CHANGE_DEPENDENCE:
        on_dependence(m, p, c);
        break;
    case FJA_CHANGE_TASK_NEW: /* a fork's comes through fja_model_forked */
        if (c->worker == FJA_NO_WORKER) on_root(m, p, c);
        break;
    case FJA_CHANGE_TASK_DONE:
        if (w) on_task_done(p, w, c);
        break;
    case FJA_CHANGE_COMPLETING: /* on a worker or a client thread */
        if (c->task != FJA_TASK_NONE) task_at(p, c->task)->flags |= FJA_TF_COMPLETER;
        break;
    case FJA_CHANGE_LOCK_END:
        on_lock_end(m, p, c);
        break;
    case FJA_CHANGE_RESULT:
        on_result(p, c);
        break;
    case FJA_CHANGE_WAKE:
        p->wakes++;
        break;
    case FJA_CHANGE_TRACE_END:
        on_trace_end(m, c);
        break;
    case FJA_CHANGE_ANOMALY:
        on_anomaly(m, c);
        break;
    case FJA_CHANGE_POOL_SPAN:
        p->first_ts = c->since;
        p->last_ts = c->ts;
        break;
    case FJA_CHANGE_POOL_END:
        on_pool_end(p);
        break;
    case FJA_CHANGE_UNFINISHED:
        on_unfinished(m, p, c);
        break;
    case FJA_CHANGE_OFFCPU_RECORDING:
        if (w || c->worker == FJA_NO_WORKER) on_offcpu_recording(p, w, c);
        break;
    case FJA_CHANGE_CLIENT_OFFCPU:
        on_client_offcpu(p, c);
        break;
    case FJA_CHANGE_POOL_FACT:
        on_pool_fact(p, c);
        break;
    default:
        if (w) on_worker_change(m, p, w, c);
    }
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

void fja_model_window(fja_model *m, uint64_t left_out)
{
    m->window_clipped = true;
    m->window_events += left_out;
}

void fja_model_decode_stopped(fja_model *m, const char *why)
{
    snprintf(m->decode_error, sizeof m->decode_error, "%s", why && *why ? why : "unknown error");
}

void fja_model_offcpu_unread(fja_model *m, const char *why)
{
    snprintf(m->offcpu_unread, sizeof m->offcpu_unread, "%s", why && *why ? why : "unknown error");
}

void fja_model_release(fja_pool *p, uint32_t n)
{
    fja_recycle_settle(p, n);
}

void fja_model_counted(fja_model *m, const fja_event *ev, uint32_t pool)
{
    /* the first event of a pool: its number is the next (change.h) */
    if (pool == m->npools && !pool_make(m, ev->source, ev->pool)) m->oom = true;
    /* the first believed event (an invalid one, counted, gave no time) */
    if (m->events == m->anomalies[FJA_AN_INVALID_EVENT]) m->first_ts = ev->ts;
    if (ev->ts < m->last_ts)
        m->out_of_order++;
    else
        m->last_ts = ev->ts;
    m->events++;
    m->by_kind[ev->kind < FJA_EV_COUNT ? ev->kind : FJA_EV_UNKNOWN]++;
    if (ev->kind >= FJA_EV_UNKNOWN) m->unknown_events++;
}

void fja_model_invalid(fja_model *m, const fja_event *ev, const char *why)
{
    m->events++;
    contradiction(m, ev, why);
}

void fja_model_offcpu_lost(fja_model *m, uint64_t count, uint64_t begin_ts, uint64_t end_ts,
                           const char *stream)
{
    uint64_t from = begin_ts ? begin_ts : end_ts;
    if (!m->offcpu_lost_notices || (from && from < m->offcpu_lost_from)) m->offcpu_lost_from = from;
    m->offcpu_lost_notices++;
    m->offcpu_lost_events += count;
    /* each stream named once: its file name only (the folder is the trace's) */
    const char *slash = stream ? strrchr(stream, '/') : NULL;
    const char *name = slash ? slash + 1 : stream && *stream ? stream : "an off-CPU stream";
    char *have = m->offcpu_lost_streams;
    size_t len = strlen(have), n = strlen(name);
    for (const char *p = have; (p = strstr(p, name)); p += n)
        if ((p == have || p[-1] == ' ') && (p[n] == ',' || !p[n])) return;
    snprintf(have + len, sizeof m->offcpu_lost_streams - len, "%s%s", len ? ", " : "", name);
}

fja_task_facts fja_model_task_facts(const fja_pool *p, uint32_t n)
{
    const fja_task *t = fja_taskmap_get(&p->tasks, n);
    return (fja_task_facts){.id = t->id,
                            .site = fja_sites_address(&p->sites, n),
                            .tree = t->tree,
                            .size_hint = t->size_hint,
                            .forked = t->flags & FJA_TF_FORKED,
                            .submitted = t->flags & FJA_TF_SUBMITTED};
}

size_t fja_model_bytes(const fja_model *m)
{
    size_t b = m->cap_pools * sizeof(fja_pool);
    for (uint32_t i = 0; i < m->npools; i++) {
        const fja_pool *p = &m->pools[i];
        b += fja_taskmap_bytes(&p->tasks) + p->cap_trees * sizeof(fja_tree) +
             p->nworkers * sizeof(fja_worker) + fja_sites_bytes(&p->sites) +
             fja_depend_bytes(&p->deps) + p->cap_left * sizeof *p->left;
    }
    return b;
}
