#include "tracker.h"

#include "offcpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ telling */

/* The listeners after the model, if any: only then is a change built for
 * the five commonest kinds (SETTLED, QUEUE, a fork's TASK_NEW, TASK_BEGIN,
 * TASK_END), which reach the model through its entries for them
 * (change.h): building and dispatching a change for each of them cost
 * the replay 2-11% (bench/RESULTS.md, issue 26). */
static inline bool others_listen(const fja_tracker *t)
{
    return t->nlisteners > 1;
}

static void tell_others(const fja_tracker *t, const fja_change *c)
{
    for (uint32_t i = 1; i < t->nlisteners; i++)
        t->listeners[i].change(t->listeners[i].ctx, t->model, c);
}

/* Every other change: the first listener is always the model's
 * accounting (fja_tracker_init), called directly (no indirect call). */
static void tell(const fja_tracker *t, const fja_change *c)
{
    fja_model_change(NULL, t->model, c);
    tell_others(t, c);
}

/* A change about worker w (its index; FJA_NO_WORKER: off the workers,
 * FJA_CLIENT: a client thread) of pool p at ts. */
static fja_change change_of(const fja_tracker *t, fja_change_kind k, fja_pool *p, int32_t w,
                            uint64_t ts)
{
    return (fja_change){.kind = k,
                        .ts = ts,
                        .pool_index = (uint32_t)(p - t->model->pools),
                        .worker = w,
                        .task = FJA_TASK_NONE,
                        .other = -1};
}

static void tell_task(const fja_tracker *t, fja_change_kind k, fja_pool *p, int32_t w, uint32_t n,
                      uint64_t ts)
{
    fja_change c = change_of(t, k, p, w, ts);
    c.task = n;
    tell(t, &c);
}

/* Event ev is inconsistent (k): the model counts it. About the event, not
 * a pool: the pictures' listeners skip it. */
static void tell_anomaly(const fja_tracker *t, fja_anomaly_kind k, const fja_event *ev)
{
    fja_change c = {.kind = FJA_CHANGE_ANOMALY,
                    .ts = ev->ts,
                    .pool_index = FJA_NO_POOL,
                    .worker = FJA_NO_WORKER,
                    .task = FJA_TASK_NONE,
                    .other = -1,
                    .event = ev,
                    .anomaly = (uint8_t)k};
    tell(t, &c);
}

/* Event ev is not believed (why): an invalid_event anomaly, and counted
 * as read if it is an event of the trace (not a replayed edge). */
static void tell_invalid(const fja_tracker *t, const fja_event *ev, const char *why, bool read)
{
    fja_change c = {.kind = FJA_CHANGE_ANOMALY,
                    .ts = ev->ts,
                    .pool_index = FJA_NO_POOL,
                    .worker = FJA_NO_WORKER,
                    .task = FJA_TASK_NONE,
                    .other = -1,
                    .event = ev,
                    .name = why,
                    .counted = read,
                    .anomaly = FJA_AN_INVALID_EVENT};
    tell(t, &c);
}

void fja_tracker_init(fja_tracker *t, fja_model *m)
{
    *t = (fja_tracker){.model = m};
    fja_tracker_listen(t, (fja_listener){.change = fja_model_change});
}

int fja_tracker_listen(fja_tracker *t, fja_listener l)
{
    if (t->nlisteners == FJA_MAX_LISTENERS) return -1;
    t->listeners[t->nlisteners++] = l;
    return 0;
}

void fja_tracker_recording(fja_tracker *t, uint64_t token)
{
    t->recording_set = true;
    t->recording = token;
}

/* ------------------------------------------------------- the replay's own */

/* A frame of the replay: a task on a worker's stack. */
typedef struct {
    uint32_t task; /* record number */
    /* its body runs (on the CPU or not): false while a nested task runs,
     * or in a join or lock wait */
    bool running;
    bool in_join;
    bool in_lock;
    uint32_t awaited;         /* record joined, FJA_TASK_NONE */
    uint64_t awaited_done_ts; /* 0 until the awaited task is done */
    uint64_t exec_ts;
    /* when it entered its current state (running, join wait, lock wait, or
     * under a nested task): what a killed program's report shows (told as
     * FJA_CHANGE_UNFINISHED at the end) */
    uint64_t since;
} fja_frame;

/* What the replay keeps of a worker (or of the pool's client threads, for
 * their completions) that no listener reads. */
typedef struct {
    fja_frame *stack; /* the tasks under way, innermost last */
    uint32_t depth, cap;
    /* a completion under way (completing -> completed): of which task id,
     * since when */
    bool completing;
    uint64_t completing_task, completing_ts;
    uint64_t off_checked_end;  /* end of its last off-CPU record believed */
    uint64_t stolen_queued_ts; /* its pending steal's task: when it was queued, */
    int32_t stolen_from;       /* and by whom (-1: not known) */
    int64_t qdepth;            /* its deque's depth */
    bool stolen;               /* a steal waits for its exec: */
    uint64_t stolen_id;        /* of which task id */
    uint32_t lock_id;          /* the fj_mutex its running task waits for (lock_wait), */
    uint64_t lock_wait_ts;     /* since when */
    uint32_t in_joins; /* frames of its stack in a join: none, no join to tell of a task done */
    /* An event of the worker ended its stay off the CPU early: when (0:
     * none since the last edge) */
    uint64_t cut_ts;
    /* the OMPT tool's own time its last clock reading told (tool_read) */
    bool tool_read;
    uint64_t tool_last;
    /* its life and state: begun (its worker_begin or first event; when),
     * ended, parked; the state worker_switch derived last, since when */
    bool begun, ended, parked;
    uint64_t begin_ts;
    fja_wstate state;
    uint64_t state_ts;
    /* off the CPU now (a replayed stay): why, since when, whether its top
     * body ran when it left; all its replayed time off the CPU */
    bool off, holder_off;
    uint8_t off_kind;
    uint64_t off_ts, off_all_ns;
    /* its last CPU-clock reading (clock_read: there was one): when, the
     * clock, off_all_ns then */
    bool clock_read;
    uint64_t clock_ts, clock_cpu, clock_off;
    /* its last reading said the next event is the switch it was made for
     * (switch_follows), and that event has not come: told as TOOL_TAIL
     * once it is applied (or when the worker leaves the CPU first) */
    bool tail_open;
} replay_worker;

/* What the replay knows of a task (replay_task.flags), its own: made by
 * a fork, or a root (submitted, or met by an exec: a tree's root);
 * begun (exec), its body ended (executed), stolen, suspended (an untied
 * part ended, not resumed); a counted completer (completing seen), its
 * completion ended (completed). */
enum {
    RT_FORKED = 1 << 0,
    RT_ROOT = 1 << 1,
    RT_EXEC = 1 << 2,
    RT_EXECUTED = 1 << 3,
    RT_STOLEN = 1 << 4,
    RT_SUSPENDED = 1 << 5,
    RT_COMPLETER = 1 << 6,
    RT_COMPLETED = 1 << 7,
};

/* The replay's own of a task record (numbered as the pool's map numbers
 * them, fja_taskmap; set as the record is made, task_new). */
typedef struct {
    uint32_t qslot;  /* its slot in qsince while queued, else FJA_TASK_NONE */
    uint32_t parent; /* a fork's parent's record, FJA_TASK_NONE: none found */
    int16_t worker;  /* the forker until a steal or exec, then the thief, then the
                        worker running it (-1: none) */
    uint16_t flags;  /* RT_* */
} replay_task;

/* An event of a worker inside its own recorded off-CPU interval
 * contradicts it (a thread emits events only on the CPU); none was seen in
 * undamaged traces (~900 intervals of libfj and OpenMP recordings under
 * load). Stays the seal made or lengthened from the OpenMP tool's clock
 * readings (offcpu.c: a stall's stay, a fitted return) may hold events and
 * are not checked (an undamaged nested-team trace held one 311 us before
 * a stay's end). A cut more than this before a recorded end is a damaged
 * record. */
#define OFFCPU_CUT_TOLERANCE_NS 50000u

typedef struct {
    replay_worker *workers;
    uint32_t nworkers;
    replay_worker client; /* completions on threads that are not workers */
    /* what its pool_begin, pool_runtime and pool_end said that the replay
     * needs (the checks, the end): workers declared (0: not told), made
     * by OpenMP or a JVM, ended when */
    uint32_t declared;
    bool openmp, jvm, has_end;
    uint64_t end_ts;
    /* fork/submit time of each task still queued, in slots reused once it
     * is taken (qslot): only the few tasks queued at a time need one. A
     * free slot holds the next free one; qfree heads that list
     * (FJA_TASK_NONE: empty). */
    uint64_t *qsince;
    uint32_t nqsince, cap_qsince, qfree;
    uint32_t qtaken; /* slots in use: none, no task left queued to look for */
    /* the replay's own of each task record, cap_tasks of them */
    replay_task *tasks;
    uint32_t cap_tasks;
    /* an event of it was replayed (seen): the first one's time, the
     * latest (told at the end: POOL_SPAN) */
    bool seen;
    uint64_t first_ts, last_ts;
    uint32_t source, id; /* the pool as the events name it */
} replay_pool;

struct fja_replay {
    /* in order of first sight, the model's pools numbered so (it makes
     * them as told: fja_model_counted) */
    replay_pool *pools;
    uint32_t npools;
    replay_pool *now; /* the pool of the event being replayed (fja_tracker_feed) */
};

/* The replay's pool p, of the event being replayed (fja_tracker_feed
 * made it, and keeps it at hand: no pool is made meanwhile). */
static inline replay_pool *replay_pool_in(const fja_tracker *t, const fja_pool *p)
{
    (void)p;
    return t->replay->now;
}

/* A new pool, numbered next, for ev's (source, pool); NULL when memory
 * ran out. */
static replay_pool *replay_pool_make(fja_tracker *t, const fja_event *ev)
{
    struct fja_replay *r = t->replay;
    replay_pool *np = realloc(r->pools, (size_t)(r->npools + 1) * sizeof *np);
    if (!np) return NULL;
    r->pools = np;
    np[r->npools] = (replay_pool){.qfree = FJA_TASK_NONE, .source = ev->source, .id = ev->pool};
    return &np[r->npools++];
}

/* The pool numbered pi as the replay keeps it, NULL if it keeps nothing
 * of it yet (nothing told: all zero). */
static const replay_pool *replay_pool_at(const fja_tracker *t, uint32_t pi)
{
    const struct fja_replay *r = t->replay;
    return r && pi < r->npools ? &r->pools[pi] : NULL;
}

/* replay_worker_of's making: grows pool rp's workers (a worker's index,
 * FJA_MAX_WORKER at most) up to index; growing moves them, so a caller
 * holding one makes no other (owner_dequeue finds a forker's, made by its
 * fork). */
static replay_worker *replay_worker_make(fja_tracker *t, replay_pool *rp, int32_t index)
{
    if (index < 0) return &rp->client;
    if ((uint32_t)index >= rp->nworkers) {
        uint32_t n = (uint32_t)index + 1;
        replay_worker *nw = realloc(rp->workers, (size_t)n * sizeof *nw);
        if (!nw) goto oom;
        for (uint32_t i = rp->nworkers; i < n; i++)
            nw[i] = (replay_worker){.stolen_from = -1};
        rp->workers = nw;
        rp->nworkers = n;
    }
    return &rp->workers[index];
oom:
    t->oom = true;
    return NULL;
}

/* Worker `index` of pool rp (index -1: the pool's client threads), made
 * as needed; NULL when memory ran out (oom says so). Once per worker
 * event: the one already made is found inline. */
static inline replay_worker *replay_worker_of(fja_tracker *t, replay_pool *rp, int32_t index)
{
    if (index >= 0 && (uint32_t)index < rp->nworkers) return &rp->workers[index];
    return replay_worker_make(t, rp, index);
}

/* Worker `index` of pool rp, NULL when none was made yet (no event of
 * that worker: it never began). */
static inline replay_worker *replay_worker_found(replay_pool *rp, int32_t index)
{
    return index >= 0 && (uint32_t)index < rp->nworkers ? &rp->workers[index] : NULL;
}

void fja_tracker_free(fja_tracker *t)
{
    if (t->replay) {
        for (uint32_t i = 0; i < t->replay->npools; i++) {
            replay_pool *rp = &t->replay->pools[i];
            for (uint32_t w = 0; w < rp->nworkers; w++)
                free(rp->workers[w].stack);
            free(rp->client.stack);
            free(rp->workers);
            free(rp->qsince);
            free(rp->tasks);
        }
        free(t->replay->pools);
        free(t->replay);
        t->replay = NULL;
    }
    free(t->foreign);
    t->foreign = NULL;
    t->nforeign = t->cap_foreign = 0;
}

/* ------------------------------------------------------------ --recording */

static bool is_foreign(const fja_tracker *t, uint32_t source, uint32_t pool)
{
    for (uint32_t i = 0; i < t->nforeign; i++)
        if (t->foreign[i].source == source && t->foreign[i].pool == pool) return true;
    return false;
}

/* Is ev of a pool left out by fja_tracker_recording? A pool_begin with
 * another token puts its pool there. -1 when memory ran out. */
static int foreign_event(fja_tracker *t, const fja_event *ev)
{
    if (!t->recording_set || ev->kind == FJA_EV_LOCK_INIT) return 0;
    bool foreign = is_foreign(t, ev->source, ev->pool);
    if (!foreign && ev->kind == FJA_EV_POOL_BEGIN && ev->recording != t->recording) {
        if (t->nforeign == t->cap_foreign) {
            uint32_t cap = t->cap_foreign ? 2 * t->cap_foreign : 8;
            fja_pool_key *k = realloc(t->foreign, cap * sizeof *k);
            if (!k) return -1;
            t->foreign = k;
            t->cap_foreign = cap;
        }
        t->foreign[t->nforeign++] = (fja_pool_key){ev->source, ev->pool};
        t->left_out_pools++;
        foreign = true;
    }
    bool replayed = ev->kind == FJA_EV_OFFCPU_OUT || ev->kind == FJA_EV_OFFCPU_IN;
    if (foreign && !replayed) t->left_out_events++;
    return foreign;
}

/* ------------------------------------------------------------ lookups */

static inline fja_task *task_at(fja_pool *p, uint32_t n)
{
    return fja_taskmap_get(&p->tasks, n);
}

static fja_frame *top_frame(const replay_worker *rw)
{
    return rw->depth ? &rw->stack[rw->depth - 1] : NULL;
}

/* Record of task id, trying the worker's running task first: most events
 * name it (executed) or its parent (fork), and that saves a hash probe. */
static uint32_t task_find_near(fja_pool *p, const replay_worker *rw, uint64_t id)
{
    fja_frame *f = top_frame(rw);
    if (f && task_at(p, f->task)->id == id) return f->task;
    return fja_taskmap_find(&p->tasks, id);
}

/* ------------------------------------------------------------ the one state switch */

static fja_wstate worker_state(const replay_worker *rw)
{
    if (!rw->begun || rw->ended) return FJA_WS_OFF;
    if (rw->parked) return FJA_WS_PARK;
    fja_frame *f = top_frame(rw);
    if (!f) return FJA_WS_SEARCH;
    if (f->running) return FJA_WS_RUN; /* off the CPU or not: booked apart */
    return f->in_lock ? FJA_WS_LOCK : FJA_WS_JOIN;
}

/* Every worker state change goes through here: after each event on w, its
 * state is derived again from the replay, and a switch is told to the
 * listeners with the time the old state began, before it is recorded. */
static void worker_switch(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t ts)
{
    fja_wstate now = worker_state(rw);
    if (now != rw->state) {
        fja_change c = change_of(t, FJA_CHANGE_STATE, p, w, ts);
        c.from = rw->state;
        c.to = now;
        c.since = rw->state_ts;
        tell(t, &c);
        rw->state = now;
        rw->state_ts = ts;
    }
    fja_frame *f = top_frame(rw);
    uint32_t running = now == FJA_WS_RUN ? f->task : FJA_TASK_NONE;
    bool runs = f && f->running;
    fja_model_settled(t->model, p, w, running, runs, ts);
    if (others_listen(t)) {
        fja_change c = change_of(t, FJA_CHANGE_SETTLED, p, w, ts);
        c.task = running;
        c.counted = runs;
        c.to = now;
        tell_others(t, &c);
    }
}

/* ------------------------------------------------------------ frames */

/* The frame's body stops running (the model books its time as the
 * changes tell it: fja_body). */
static void frame_suspend(fja_frame *f)
{
    f->running = false;
}

static void frame_resume(fja_frame *f, uint64_t ts)
{
    if (!f->in_join && !f->in_lock) {
        f->running = true;
        f->since = ts;
    }
}

/* The top frame goes. */
static void frame_drop(replay_worker *rw)
{
    rw->depth--;
    if (rw->stack[rw->depth].in_join) rw->in_joins--;
}

static int frame_push(replay_worker *rw, uint32_t n, uint64_t ts)
{
    if (rw->depth == rw->cap) {
        uint32_t cap = rw->cap ? rw->cap * 2 : 16;
        fja_frame *s = realloc(rw->stack, cap * sizeof *s);
        if (!s) return -1;
        rw->stack = s;
        rw->cap = cap;
    }
    rw->stack[rw->depth++] = (fja_frame){
        .task = n, .running = true, .exec_ts = ts, .since = ts, .awaited = FJA_TASK_NONE};
    return 0;
}

/* Pops frames down to task n; frames above it never saw their executed. */
static bool frame_pop_to(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint32_t n,
                         const fja_event *ev)
{
    uint32_t i = rw->depth;
    while (i > 0 && rw->stack[i - 1].task != n)
        i--;
    if (i == 0) return false;
    while (rw->depth > i) {
        tell_anomaly(t, FJA_AN_UNBALANCED_NESTING, ev);
        frame_suspend(top_frame(rw));
        frame_drop(rw);
        tell_task(t, FJA_CHANGE_TASK_LOST, p, w, rw->stack[rw->depth].task, ev->ts);
    }
    return true;
}

/* ------------------------------------------------------------ queues */

/* The deque of w grew or shrank by delta. A pop or steal of a task forked
 * before the trace began would go below 0: clamped, and not counted. */
static void worker_queue(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, int64_t delta,
                         uint64_t ts)
{
    int64_t depth = rw->qdepth + delta;
    bool counted = depth >= 0;
    if (!counted) depth = 0;
    fja_model_queue(t->model, p, w, delta, depth, counted, ts);
    if (others_listen(t)) {
        fja_change c = change_of(t, FJA_CHANGE_QUEUE, p, w, ts);
        c.delta = delta;
        c.depth = depth;
        c.counted = counted;
        tell_others(t, &c);
    }
    rw->qdepth = depth;
}

/* The deque of worker `index` (who forked a task: its fork made its
 * replay, found here, so the replay's workers do not move) gives a task
 * up, taken by its owner or a thief. */
static void owner_dequeue(fja_tracker *t, fja_pool *p, int32_t index, uint64_t ts)
{
    replay_worker *orw = replay_worker_found(replay_pool_in(t, p), index);
    if (orw) worker_queue(t, p, index, orw, -1, ts);
}

/* A new slot at the end of rp's queue times, FJA_TASK_NONE without
 * memory (out of line: taken only while the most tasks are queued). */
static uint32_t qslot_grow(replay_pool *rp)
{
    if (rp->nqsince == rp->cap_qsince) {
        uint32_t cap = rp->cap_qsince ? rp->cap_qsince * 2 : 64;
        uint64_t *q = cap > rp->cap_qsince ? realloc(rp->qsince, cap * sizeof *q) : NULL;
        if (!q) return FJA_TASK_NONE;
        rp->qsince = q;
        rp->cap_qsince = cap;
    }
    return rp->nqsince++;
}

/* Remembers when task record n of pool p was queued (fork, submit), in
 * a free slot. Without memory for a slot the time is just not known (the
 * report says so). */
static inline void qslot_take(replay_pool *rp, uint32_t n, uint64_t ts)
{
    uint32_t s = rp->qfree;
    if (s != FJA_TASK_NONE)
        rp->qfree = (uint32_t)rp->qsince[s];
    else if ((s = qslot_grow(rp)) == FJA_TASK_NONE)
        return;
    rp->qsince[s] = ts;
    rp->qtaken++;
    rp->tasks[n].qslot = s;
}

/* Task record n left its queue (taken by its owner or a thief): its
 * slot is free. Returns when it was queued, 0 when unknown. */
static uint64_t qslot_release(replay_pool *rp, uint32_t n)
{
    uint32_t s = rp->tasks[n].qslot;
    if (s == FJA_TASK_NONE) return 0;
    uint64_t since = rp->qsince[s];
    rp->qsince[s] = rp->qfree;
    rp->qfree = s;
    rp->qtaken--;
    rp->tasks[n].qslot = FJA_TASK_NONE;
    return since;
}

/* ------------------------------------------------------------ tasks and trees */

/* Room for the replay's own of record n of rp (out of line: taken as
 * the records outgrow it). */
static bool replay_tasks_grow(replay_pool *rp, uint32_t n)
{
    uint32_t cap = rp->cap_tasks ? rp->cap_tasks : 64;
    while (cap <= n)
        cap *= 2;
    replay_task *q = realloc(rp->tasks, (size_t)cap * sizeof *q);
    if (!q) return false;
    rp->tasks = q;
    rp->cap_tasks = cap;
    return true;
}

/* A record for ev's task in pool p (the replay's pool rp), FJA_TASK_NONE
 * when memory ran out (told). */
static uint32_t task_new(fja_tracker *t, fja_pool *p, replay_pool *rp, const fja_event *ev)
{
    /* the next record's number is count at most (or a free one below) */
    bool room = p->tasks.count < rp->cap_tasks || replay_tasks_grow(rp, p->tasks.count);
    uint32_t n = room ? fja_taskmap_add(&p->tasks, ev->task) : FJA_TASK_NONE;
    if (n == FJA_TASK_NONE) {
        tell_anomaly(t, FJA_AN_OUT_OF_MEMORY, ev);
        t->oom = true;
    } else {
        rp->tasks[n] = (replay_task){.qslot = FJA_TASK_NONE, .parent = FJA_TASK_NONE, .worker = -1};
    }
    return n;
}

/* Done: its body ended, and a counted completer's completion too. */
static bool task_is_done(const replay_task *k)
{
    return (k->flags & RT_COMPLETER) ? (k->flags & RT_COMPLETED) : (k->flags & RT_EXECUTED);
}

/* The frame of task n's parent waiting for it in a join, NULL if none. */
static fja_frame *join_frame(const fja_tracker *t, const fja_pool *p, uint32_t n)
{
    const replay_pool *rp = replay_pool_in(t, p);
    uint32_t parent = rp->tasks[n].parent;
    if (parent == FJA_TASK_NONE) return NULL;
    uint32_t wi = (uint32_t)rp->tasks[parent].worker; /* -1: none, beyond nworkers */
    const replay_worker *rw = wi < rp->nworkers ? &rp->workers[wi] : NULL;
    if (!rw || !rw->in_joins) return NULL;
    for (uint32_t i = rw->depth; i-- > 0;)
        if (rw->stack[i].in_join && rw->stack[i].awaited == n) return &rw->stack[i];
    return NULL;
}

/* Task n is done at ts: a parent blocked in a join on it learns when. */
static void join_notify(fja_tracker *t, fja_pool *p, uint32_t n, uint64_t ts)
{
    fja_frame *f = join_frame(t, p, n);
    if (f && !f->awaited_done_ts) f->awaited_done_ts = ts;
}

/* ------------------------------------------------------------ event handlers */

static void on_submit(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    if (fja_taskmap_find(&p->tasks, ev->task) != FJA_TASK_NONE) {
        tell_anomaly(t, FJA_AN_DUPLICATE_ID, ev);
        return;
    }
    replay_pool *rp = replay_pool_in(t, p);
    uint32_t n = task_new(t, p, rp, ev);
    if (n == FJA_TASK_NONE) return;
    rp->tasks[n].flags = RT_ROOT;
    qslot_take(rp, n, ev->ts);
    fja_change c = change_of(t, FJA_CHANGE_TASK_NEW, p, FJA_NO_WORKER, ev->ts);
    c.task = n;
    c.site = ev->site;
    tell(t, &c);
}

/* The root task an event of its client names (result, offcpu_client),
 * FJA_TASK_NONE (an anomaly told) if it names no tree's root. */
static uint32_t client_root(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n != FJA_TASK_NONE && (replay_pool_in(t, p)->tasks[n].flags & RT_ROOT)) return n;
    tell_anomaly(t, FJA_AN_RESULT_WITHOUT_SUBMIT, ev);
    return FJA_TASK_NONE;
}

static void on_result(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    uint32_t n = client_root(t, p, ev);
    if (n == FJA_TASK_NONE) return;
    tell_task(t, FJA_CHANGE_RESULT, p, FJA_NO_WORKER, n, ev->ts);
}

/* The id of a fork's parent: the older layout names it (0: none); the
 * current one is the task of the worker's innermost open exec, of which
 * there is one (claims_fault refuses a fork on a worker running nothing). */
static uint64_t fork_parent(fja_pool *p, const replay_worker *rw, const fja_event *ev)
{
    return ev->named ? ev->arg.parent : task_at(p, top_frame(rw)->task)->id;
}

static void on_fork(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, const fja_event *ev)
{
    if (fja_taskmap_find(&p->tasks, ev->task) != FJA_TASK_NONE) {
        tell_anomaly(t, FJA_AN_DUPLICATE_ID, ev);
        return;
    }
    uint64_t parent = fork_parent(p, rw, ev);
    /* A task that is its own parent would make the ancestor walks loop. */
    if (parent == ev->task) {
        tell_anomaly(t, FJA_AN_SELF_PARENT, ev);
        return;
    }
    replay_pool *rp = replay_pool_in(t, p);
    uint32_t n = task_new(t, p, rp, ev);
    if (n == FJA_TASK_NONE) return;
    /* its parent's record (the model's too): most forks are by the
     * worker's running task */
    uint32_t pn = parent ? task_find_near(p, rw, parent) : FJA_TASK_NONE;
    rp->tasks[n] = (replay_task){
        .qslot = FJA_TASK_NONE, .parent = pn, .worker = (int16_t)w, .flags = RT_FORKED};
    qslot_take(rp, n, ev->ts);
    uint32_t size_hint = ev->size_hint > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->size_hint;
    fja_model_forked(t->model, p, w, n, parent, pn, size_hint, ev->site, ev->ts);
    if (others_listen(t)) {
        fja_change c = change_of(t, FJA_CHANGE_TASK_NEW, p, w, ev->ts);
        c.task = n;
        c.parent_id = parent;
        c.size_hint = size_hint;
        c.site = ev->site;
        tell_others(t, &c);
    }
    worker_queue(t, p, w, rw, 1, ev->ts);
}

/* exec of a task never forked nor submitted: the trace began after its
 * fork. It becomes the root of a tree without a submission. */
static uint32_t exec_unknown(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    tell_anomaly(t, FJA_AN_EXEC_UNKNOWN_TASK, ev);
    replay_pool *rp = replay_pool_in(t, p);
    uint32_t n = task_new(t, p, rp, ev);
    if (n == FJA_TASK_NONE) return n;
    rp->tasks[n].flags = RT_ROOT;
    fja_change c = change_of(t, FJA_CHANGE_TASK_NEW, p, FJA_NO_WORKER, ev->ts);
    c.task = n;
    c.other = ev->worker; /* not submitted: met by this worker's exec */
    tell(t, &c);
    return n;
}

/* Takes an exec'd task off the queue it was counted in; fills in when it
 * was queued and by whom. */
static void exec_dequeue(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                         const replay_task *k, const fja_event *ev, fja_change *c)
{
    if (k->flags & RT_STOLEN) { /* the steal dequeued it */
        c->stolen = true;
        if (rw->stolen && rw->stolen_id == ev->task) {
            c->since = rw->stolen_queued_ts;
            c->other = rw->stolen_from;
        }
        return;
    }
    c->since = qslot_release(replay_pool_in(t, p), c->task);
    if (k->flags & RT_FORKED) {
        int32_t owner = k->worker;
        c->other = owner;
        if (owner == w) { /* popped off its own deque: w's replay at hand */
            worker_queue(t, p, w, rw, -1, ev->ts);
            return;
        }
        owner_dequeue(t, p, owner, ev->ts);
        tell_anomaly(t, FJA_AN_EXEC_ELSEWHERE_WITHOUT_STEAL, ev);
    }
}

static void on_exec(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE && (n = exec_unknown(t, p, ev)) == FJA_TASK_NONE) return;
    replay_task *k = &replay_pool_in(t, p)->tasks[n];
    if (k->flags & RT_EXEC) {
        tell_anomaly(t, FJA_AN_DUPLICATE_EXEC, ev);
        return;
    }
    fja_change c = change_of(t, FJA_CHANGE_TASK_BEGIN, p, w, ev->ts);
    c.task = n;
    c.joined = ev->kind == FJA_EV_EXEC_JOINED;
    c.ahead = c.joined ? ev->arg.ahead : 0;
    exec_dequeue(t, p, w, rw, k, ev, &c);
    fja_frame *f = top_frame(rw);
    if (f) {
        if (f->running) f->since = ev->ts; /* from running to under the nested task */
        frame_suspend(f);
    }
    if (frame_push(rw, n, ev->ts)) {
        tell_anomaly(t, FJA_AN_OUT_OF_MEMORY, ev);
        return;
    }
    k->flags |= RT_EXEC;
    k->worker = (int16_t)w; /* its executor from now on */
    fja_model_task_begin(t->model, p, &c);
    tell_others(t, &c);
    if (rw->stolen && rw->stolen_id == ev->task) rw->stolen = false;
}

static void on_executed(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                        const fja_event *ev)
{
    fja_frame *f = top_frame(rw);
    /* The current layout's executed closes the innermost open exec, of
     * which there is one (claims_fault); the older one names its task,
     * and frames above it never saw their executed. */
    uint32_t n = ev->named ? task_find_near(p, rw, ev->task) : f->task;
    if (ev->named && (n == FJA_TASK_NONE || !frame_pop_to(t, p, w, rw, n, ev))) {
        tell_anomaly(t, FJA_AN_EXECUTED_WITHOUT_EXEC, ev);
        return;
    }
    f = top_frame(rw);
    frame_suspend(f);
    frame_drop(rw);
    replay_pool_in(t, p)->tasks[n].flags |= RT_EXECUTED;
    fja_model_task_end(t->model, p, w, n, f->exec_ts, ev->ts);
    if (others_listen(t)) {
        fja_change c = change_of(t, FJA_CHANGE_TASK_END, p, w, ev->ts);
        c.task = n;
        c.since = f->exec_ts;
        tell_others(t, &c);
    }
    join_notify(t, p, n, ev->ts);
    fja_model_release(p, n);
    if ((f = top_frame(rw))) frame_resume(f, ev->ts);
}

/* An untied OpenMP task leaves this worker unfinished: its frame goes, its
 * time so far stays its own, and it is on no worker until resumed. */
static void on_suspend(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                       const fja_event *ev)
{
    uint32_t n = task_find_near(p, rw, ev->task);
    if (n == FJA_TASK_NONE || !frame_pop_to(t, p, w, rw, n, ev)) {
        tell_anomaly(t, FJA_AN_EXECUTED_WITHOUT_EXEC, ev);
        return;
    }
    fja_frame *f = top_frame(rw);
    frame_suspend(f);
    frame_drop(rw);
    replay_pool_in(t, p)->tasks[n].flags |= RT_SUSPENDED;
    tell_task(t, FJA_CHANGE_TASK_SUSPEND, p, w, n, ev->ts);
    if ((f = top_frame(rw))) frame_resume(f, ev->ts);
}

/* The suspended task goes on here, as a new frame (like an exec, but not a
 * new start: no queue, no steal). */
static void on_resume(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                      const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    replay_task *k = n == FJA_TASK_NONE ? NULL : &replay_pool_in(t, p)->tasks[n];
    if (!k || !(k->flags & RT_SUSPENDED)) {
        tell_anomaly(t, FJA_AN_UNKNOWN_TASK_EVENT, ev);
        return;
    }
    fja_frame *f = top_frame(rw);
    if (f) {
        if (f->running) f->since = ev->ts;
        frame_suspend(f);
    }
    if (frame_push(rw, n, ev->ts)) {
        tell_anomaly(t, FJA_AN_OUT_OF_MEMORY, ev);
        return;
    }
    k->flags &= (uint16_t)~RT_SUSPENDED;
    k->worker = (int16_t)w;
    tell_task(t, FJA_CHANGE_TASK_RESUME, p, w, n, ev->ts);
}

/* A dependence edge between two tasks of the trace; an edge naming a task
 * the trace does not hold (created before it began) is counted, not
 * followed. */
static void on_dependence(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    uint32_t sink = fja_taskmap_find(&p->tasks, ev->task);
    uint32_t pred = ev->arg.pred ? fja_taskmap_find(&p->tasks, ev->arg.pred) : FJA_TASK_NONE;
    fja_change c = change_of(t, FJA_CHANGE_DEPENDENCE, p, FJA_NO_WORKER, ev->ts);
    c.counted = sink != FJA_TASK_NONE && pred != FJA_TASK_NONE && sink != pred;
    if (c.counted) {
        c.task = sink;
        c.parent_id = pred;
    }
    tell(t, &c);
}

static void on_steal(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, const fja_event *ev)
{
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE) {
        tell_anomaly(t, FJA_AN_STEAL_UNKNOWN_TASK, ev);
        return;
    }
    replay_pool *rp = replay_pool_in(t, p);
    replay_task *k = &rp->tasks[n];
    int32_t owner_index = k->flags & RT_FORKED ? k->worker : -1;
    if (!(k->flags & RT_STOLEN)) owner_dequeue(t, p, owner_index, ev->ts);
    k->flags |= RT_STOLEN;
    k->worker = (int16_t)w; /* the thief, until its exec */
    rw->stolen_queued_ts = qslot_release(rp, n);
    rw->stolen_from = owner_index;
    rw->stolen = true;
    rw->stolen_id = ev->task;
    fja_change c = change_of(t, FJA_CHANGE_STEAL, p, w, ev->ts);
    c.task = n;
    c.other = (int32_t)ev->arg.victim;
    tell(t, &c);
}

static void on_join(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, const fja_event *ev)
{
    fja_frame *f = top_frame(rw);
    if (!f) {
        tell_anomaly(t, FJA_AN_JOIN_MISMATCH, ev);
        return;
    }
    frame_suspend(f);
    if (!f->in_join) rw->in_joins++;
    f->in_join = true;
    f->since = ev->ts;
    f->awaited = fja_taskmap_find(&p->tasks, ev->task);
    /* Done between the runtime's check and its event: no wait to measure. */
    f->awaited_done_ts =
        f->awaited != FJA_TASK_NONE && task_is_done(&replay_pool_in(t, p)->tasks[f->awaited])
            ? ev->ts
            : 0;
    fja_change c = change_of(t, FJA_CHANGE_JOIN_BEGIN, p, w, ev->ts);
    c.task = f->awaited;
    c.joined = ev->kind == FJA_EV_JOIN_STOLEN;
    c.ahead = c.joined ? ev->arg.ahead : 0;
    tell(t, &c);
}

static void on_joined(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                      const fja_event *ev)
{
    fja_frame *f = top_frame(rw);
    if (!f || !f->in_join) {
        tell_anomaly(t, FJA_AN_JOIN_MISMATCH, ev);
        return;
    }
    fja_change c = change_of(t, FJA_CHANGE_JOIN_END, p, w, ev->ts);
    c.task = f->awaited;
    if (f->awaited != fja_taskmap_find(&p->tasks, ev->task))
        tell_anomaly(t, FJA_AN_JOIN_MISMATCH, ev);
    else
        c.since = f->awaited_done_ts;
    f->in_join = false;
    rw->in_joins--;
    frame_resume(f, ev->ts);
    tell(t, &c);
}

/* A join that found its child done (join_done): the child's path joins
 * its parent's here. The parent is the worker's running task. Task 0 (an
 * OpenMP taskwait that waited for nothing): every child done so far. */
static void on_join_done(fja_tracker *t, fja_pool *p, int32_t w, const replay_worker *rw,
                         const fja_event *ev)
{
    fja_frame *f = top_frame(rw);
    uint32_t n = ev->task ? fja_taskmap_find(&p->tasks, ev->task) : FJA_TASK_NONE;
    bool all = ev->task == 0;
    const replay_task *k = n == FJA_TASK_NONE ? NULL : &replay_pool_in(t, p)->tasks[n];
    if (!f || f->in_join || (!all && (!k || k->parent != f->task || !task_is_done(k)))) {
        tell_anomaly(t, FJA_AN_JOIN_MISMATCH, ev);
        return;
    }
    tell_task(t, FJA_CHANGE_JOIN_DONE, p, w, n, ev->ts);
}

/* A lock wait suspends the running task: waiting is not work, and it is
 * the serialisation the program cannot see (brief, experiment 3). */
static void on_lock_wait(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                         const fja_event *ev)
{
    fja_change c = change_of(t, FJA_CHANGE_LOCK_BEGIN, p, w, ev->ts);
    c.lock = (uint32_t)ev->arg.lock;
    fja_frame *f = top_frame(rw);
    if (f && f->running) {
        frame_suspend(f);
        f->in_lock = true;
        f->since = ev->ts;
        rw->lock_id = c.lock;
        rw->lock_wait_ts = ev->ts;
        c.task = f->task;
    }
    tell(t, &c);
}

static void on_lock_acquired(fja_tracker *t, fja_pool *p, int32_t w, const replay_worker *rw,
                             const fja_event *ev)
{
    fja_frame *f = top_frame(rw);
    if (!f || !f->in_lock) return;
    f->in_lock = false;
    frame_resume(f, ev->ts);
    fja_change c = change_of(t, FJA_CHANGE_LOCK_END, p, w, ev->ts);
    c.task = f->task;
    c.lock = rw->lock_id;
    c.since = rw->lock_wait_ts;
    tell(t, &c);
}

static void on_lock_init(fja_tracker *t, const fja_event *ev)
{
    fja_change c = {.kind = FJA_CHANGE_LOCK_NAME,
                    .ts = ev->ts,
                    .pool_index = FJA_NO_POOL,
                    .worker = FJA_NO_WORKER,
                    .task = FJA_TASK_NONE,
                    .lock = (uint32_t)ev->arg.lock,
                    .name = ev->name,
                    .source = ev->source,
                    .other = -1};
    tell(t, &c);
}

/* Completions run on workers or on client threads (FJA_CLIENT): where
 * the replay keeps the completion of ev's thread, NULL when memory ran
 * out or a worker index is beyond FJA_MAX_WORKER. */
static replay_worker *completion_slot(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    if (ev->worker > FJA_MAX_WORKER) return NULL;
    return replay_worker_of(t, replay_pool_in(t, p), ev->worker);
}

static void on_completing(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    replay_worker *rw = completion_slot(t, p, ev);
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (!rw) return;
    if (n == FJA_TASK_NONE)
        tell_anomaly(t, FJA_AN_UNKNOWN_TASK_EVENT, ev);
    else
        replay_pool_in(t, p)->tasks[n].flags |= RT_COMPLETER;
    rw->completing = true;
    rw->completing_task = ev->task;
    rw->completing_ts = ev->ts;
    tell_task(t, FJA_CHANGE_COMPLETING, p, ev->worker >= 0 ? ev->worker : FJA_NO_WORKER, n, ev->ts);
}

static void on_completed(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    replay_worker *rw = completion_slot(t, p, ev);
    if (!rw) return;
    fja_change c =
        change_of(t, FJA_CHANGE_TASK_DONE, p, ev->worker >= 0 ? ev->worker : FJA_CLIENT, ev->ts);
    c.counted = rw->completing && rw->completing_task == ev->task;
    c.since = rw->completing_ts;
    if (!c.counted) tell_anomaly(t, FJA_AN_COMPLETED_WITHOUT_COMPLETING, ev);
    rw->completing = false;
    uint32_t n = fja_taskmap_find(&p->tasks, ev->task);
    if (n == FJA_TASK_NONE) {
        /* no change names the worker: the anomaly does (its slot made) */
        fja_change a = {.kind = FJA_CHANGE_ANOMALY,
                        .ts = ev->ts,
                        .pool_index = c.pool_index,
                        .worker = ev->worker >= 0 ? ev->worker : FJA_NO_WORKER,
                        .task = FJA_TASK_NONE,
                        .other = -1,
                        .event = ev,
                        .anomaly = FJA_AN_UNKNOWN_TASK_EVENT};
        tell(t, &a);
        return;
    }
    c.task = n;
    replay_pool_in(t, p)->tasks[n].flags |= RT_COMPLETER | RT_COMPLETED;
    tell(t, &c);
    join_notify(t, p, n, ev->ts);
    fja_model_release(p, n);
}

/* ------------------------------------------------------------ off the CPU */

/* The switch w's last clock reading said follows was applied at ts (told
 * after its own changes, so the piece it ended stopped at the reading:
 * model.c, piece_end): the time from the reading to ts was the OMPT
 * tool's (switched); or w left the CPU first (!switched), the tool's time
 * to the switch not known (switches.h). */
static void tool_tail(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t ts,
                      bool switched)
{
    if (!rw->tail_open) return;
    rw->tail_open = false;
    fja_change c = change_of(t, FJA_CHANGE_TOOL_TAIL, p, w, ts);
    c.since = rw->clock_ts;
    c.counted = switched;
    tell(t, &c);
}

/* The worker left the CPU (a replayed boundary, offcpu.h): the task it was
 * running stops accruing self time (the model's), and while it is away it
 * holds that task up. Its state does not change: the time is booked
 * apart. */
static void offcpu_out(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t ts,
                       uint8_t kind)
{
    if (!rw->begun || rw->ended || rw->off) return;
    tool_tail(t, p, w, rw, ts, false);
    rw->off = true;
    rw->off_kind = kind < FJA_OFFCPU_KINDS ? kind : FJA_OFFCPU_PREEMPTED;
    rw->off_ts = ts;
    fja_frame *f = top_frame(rw);
    rw->holder_off = f && f->running;
    fja_change c = change_of(t, FJA_CHANGE_OFFCPU_OUT, p, w, ts);
    c.offcpu = rw->off_kind;
    c.counted = rw->holder_off;
    tell(t, &c);
}

/* Back on the CPU: the task it was running runs again. Also done before
 * any event of the worker (it emits events only on the CPU). */
static void offcpu_in(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t ts)
{
    if (!rw->off) return;
    rw->off = false;
    if (ts > rw->off_ts) rw->off_all_ns += ts - rw->off_ts;
    fja_change c = change_of(t, FJA_CHANGE_OFFCPU_IN, p, w, ts);
    c.offcpu = rw->off_kind;
    c.counted = rw->holder_off;
    c.since = rw->off_ts;
    c.to = rw->state;
    rw->holder_off = false;
    tell(t, &c);
}

/* The real end of a stay an event of its worker ended early: a cut far
 * before it means the interval's begin (or the events' times) is damaged,
 * which babeltrace2 reads cleanly: an invalid event, not a silent loss of
 * the rest of the stay (issue 24: a begin moved 13.8 us earlier cut a
 * 100 ms blocked stay to microseconds, exit 0). */
static void check_cut(fja_tracker *t, fja_pool *p, replay_worker *rw, const fja_event *ev)
{
    if (!rw->cut_ts || !ev->end || ev->ts <= rw->cut_ts + OFFCPU_CUT_TOLERANCE_NS) return;
    char why[256];
    snprintf(why, sizeof why,
             "an off-CPU interval of worker %d of pool %u holding an event of that worker %.1f us "
             "before its end",
             ev->worker, p->id, (double)(ev->ts - rw->cut_ts) / 1e3);
    tell_invalid(t, ev, why, false);
}

/* A replayed boundary, for a worker already known. */
static void on_offcpu_edge(fja_tracker *t, const fja_event *ev)
{
    struct fja_replay *r = t->replay;
    uint32_t pi = 0;
    while (pi < r->npools && (r->pools[pi].source != ev->source || r->pools[pi].id != ev->pool))
        pi++;
    /* a worker the replay does not keep never began: nothing to tell */
    replay_worker *rw = pi < r->npools ? replay_worker_found(&r->pools[pi], ev->worker) : NULL;
    if (!rw) return;
    fja_pool *p = &t->model->pools[pi];
    int32_t w = ev->worker;
    if (ev->kind == FJA_EV_OFFCPU_IN && !rw->off) check_cut(t, p, rw, ev);
    rw->cut_ts = 0;
    if (ev->kind == FJA_EV_OFFCPU_OUT)
        offcpu_out(t, p, w, rw, ev->ts, (uint8_t)ev->arg.offcpu);
    else
        offcpu_in(t, p, w, rw, ev->ts);
}

/* The off-CPU recording of worker w (NULL: a client thread): started,
 * refused, lossy; the late intervals themselves are only counted here
 * (replayed in time order). */
static void on_offcpu_status(fja_tracker *t, fja_pool *p, int32_t w, const fja_event *ev)
{
    fja_change c = change_of(t, FJA_CHANGE_OFFCPU_RECORDING, p, w, ev->ts);
    if (ev->kind == FJA_EV_OFFCPU_START) {
        c.offcpu = FJA_OFFREC_STARTED;
    } else if (ev->kind == FJA_EV_OFFCPU_UNAVAILABLE) {
        c.offcpu = FJA_OFFREC_REFUSED;
        c.delta = ev->arg.error && ev->arg.error < INT32_MAX ? (int64_t)ev->arg.error : -1;
    } else if (ev->kind == FJA_EV_OFFCPU_LOST) {
        c.offcpu = FJA_OFFREC_LOST;
        c.delta = ev->arg.lost < INT64_MAX ? (int64_t)ev->arg.lost : INT64_MAX;
    } else {
        c.offcpu = FJA_OFFREC_INTERVAL;
        c.delta = 1;
    }
    tell(t, &c);
}

/* A reading of the worker's CPU clock, after the intervals drained with it
 * (replayed before it: they ended before it was read). From the previous
 * reading, the trace's clock less the time off the CPU is what the report
 * counts as on the CPU; the thread's clock counted more or less of it:
 * perf writes a switch record some way into the kernel's switch, after the
 * clock stopped or started (docs/analyses.md, "Off-CPU time"). */
static void on_offcpu_clock(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                            const fja_event *ev)
{
    uint64_t cpu = ev->arg.cpu;
    fja_change c = change_of(t, FJA_CHANGE_CLOCK_READ, p, w, ev->ts);
    c.joined = ev->kind == FJA_EV_OFFCPU_TASK_CLOCK;
    c.switch_follows = c.joined && ev->switch_follows;
    if (rw->clock_read && ev->ts >= rw->clock_ts && cpu >= rw->clock_cpu &&
        rw->off_all_ns >= rw->clock_off) {
        uint64_t on = ev->ts - rw->clock_ts;
        uint64_t off = rw->off_all_ns - rw->clock_off;
        c.delta = (int64_t)(on > off ? on - off : 0) - (int64_t)(cpu - rw->clock_cpu);
        c.counted = true;
    }
    tell(t, &c);
    rw->tail_open = c.switch_follows;
    rw->clock_read = true;
    rw->clock_ts = ev->ts;
    rw->clock_cpu = cpu;
    rw->clock_off = rw->off_all_ns;
}

/* A clock reading that tells the OMPT tool's own time on the thread so
 * far: what came since the worker's previous one is the tool's, not its
 * task's (the model takes it out of the task: model.c, on_tool_time). A
 * count that went back (the thread's recording opened anew) starts over.
 * Called before the reading's clock is taken (on_offcpu_clock): the tool's
 * CPU time since the previous reading is no more than the thread's, and
 * what it told beyond that is not CPU time (its callbacks time themselves
 * in wall time: a stall of the vCPU inside one, or a tool that timed
 * itself wrong) and is not taken out of any task (the report tells it). */
static void on_tool_time(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                         const fja_event *ev)
{
    fja_change c = change_of(t, FJA_CHANGE_TOOL_TIME, p, w, ev->ts);
    if (rw->tool_read && ev->tool >= rw->tool_last) c.delta = (int64_t)(ev->tool - rw->tool_last);
    bool clocked = rw->clock_read && ev->arg.cpu >= rw->clock_cpu;
    uint64_t cpu = clocked ? ev->arg.cpu - rw->clock_cpu : 0;
    if (clocked && (uint64_t)c.delta > cpu) {
        c.beyond = (uint64_t)c.delta - cpu;
        c.delta = (int64_t)cpu;
    }
    rw->tool_read = true;
    rw->tool_last = ev->tool;
    tell(t, &c);
}

/* Its state's time begins here (the first STATE change tells since when:
 * the model's life of the worker). */
static void worker_begin(replay_worker *rw, uint64_t ts)
{
    rw->begun = true;
    rw->begin_ts = ts;
    rw->state_ts = ts;
}

/* Its life ends at ts (its worker_end, or the trace's end): told, as no
 * change of state says when (a worker_end again, or of a worker that never
 * began). */
static void worker_end(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t ts)
{
    rw->ended = true;
    fja_change c = change_of(t, FJA_CHANGE_WORKER_END, p, w, ts);
    tell(t, &c);
}

static void on_park(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, const fja_event *ev)
{
    bool park = ev->kind == FJA_EV_PARK;
    fja_change c = change_of(t, park ? FJA_CHANGE_PARK : FJA_CHANGE_UNPARK, p, w, ev->ts);
    c.counted = rw->parked != park;
    rw->parked = park;
    tell(t, &c);
}

static void worker_dispatch(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw,
                            const fja_event *ev)
{
    switch (ev->kind) {
    case FJA_EV_WORKER_END:
        worker_end(t, p, w, rw, ev->ts);
        break;
    case FJA_EV_FORK:
        on_fork(t, p, w, rw, ev);
        break;
    case FJA_EV_EXEC:
    case FJA_EV_EXEC_JOINED:
        on_exec(t, p, w, rw, ev);
        break;
    case FJA_EV_EXECUTED:
        on_executed(t, p, w, rw, ev);
        break;
    case FJA_EV_STEAL:
        on_steal(t, p, w, rw, ev);
        break;
    case FJA_EV_JOIN:
    case FJA_EV_JOIN_STOLEN:
        on_join(t, p, w, rw, ev);
        break;
    case FJA_EV_JOINED:
        on_joined(t, p, w, rw, ev);
        break;
    case FJA_EV_JOIN_DONE:
        on_join_done(t, p, w, rw, ev);
        break;
    case FJA_EV_PARK:
    case FJA_EV_UNPARK:
        on_park(t, p, w, rw, ev);
        break;
    case FJA_EV_LOCK_WAIT:
        on_lock_wait(t, p, w, rw, ev);
        break;
    case FJA_EV_LOCK_ACQUIRED:
        on_lock_acquired(t, p, w, rw, ev);
        break;
    case FJA_EV_SUSPEND:
        on_suspend(t, p, w, rw, ev);
        break;
    case FJA_EV_RESUME:
        on_resume(t, p, w, rw, ev);
        break;
    case FJA_EV_OFFCPU:
        on_offcpu_status(t, p, w, ev);
        if (ev->end > ev->begin) { /* the live view's off-CPU time (top/frame.c) */
            fja_change c = change_of(t, FJA_CHANGE_OFFCPU_REPORTED, p, w, ev->end);
            c.since = ev->begin;
            c.offcpu =
                ev->arg.offcpu < FJA_OFFCPU_KINDS ? (uint8_t)ev->arg.offcpu : FJA_OFFCPU_PREEMPTED;
            tell(t, &c);
        }
        break;
    case FJA_EV_OFFCPU_START:
    case FJA_EV_OFFCPU_LOST:
    case FJA_EV_OFFCPU_UNAVAILABLE:
        on_offcpu_status(t, p, w, ev);
        break;
    case FJA_EV_OFFCPU_CLOCK:
        on_offcpu_clock(t, p, w, rw, ev);
        break;
    case FJA_EV_OFFCPU_TASK_CLOCK:
        if (ev->tool_told) on_tool_time(t, p, w, rw, ev);
        on_offcpu_clock(t, p, w, rw, ev);
        break;
    default:
        break;
    }
}

/* Events of one worker thread; rw: the replay's worker, if made before
 * (fja_tracker_feed found it). */
static void on_worker_event(fja_tracker *t, fja_pool *p, replay_worker *rw, const fja_event *ev)
{
    int32_t w = ev->worker;
    if (w > FJA_MAX_WORKER) {
        tell_anomaly(t, FJA_AN_NOT_ON_WORKER, ev);
        return;
    }
    if (!rw && !(rw = replay_worker_of(t, replay_pool_in(t, p), w))) return; /* out of memory */
    if (!rw->begun && ev->kind != FJA_EV_WORKER_END)
        worker_begin(rw, ev->ts); /* the trace began after worker_begin */
    /* a reading after a reading: the first one's switch never came */
    bool switched = ev->kind != FJA_EV_OFFCPU_TASK_CLOCK && ev->kind != FJA_EV_OFFCPU_CLOCK;
    /* the handlers make no other worker's replay (owner_dequeue finds
     * it): rw stays */
    worker_dispatch(t, p, w, rw, ev);
    worker_switch(t, p, w, rw, ev->ts);
    if (switched) tool_tail(t, p, w, rw, ev->ts, true);
}

/* What the pool's own event said of it, told. */
static void tell_fact(const fja_tracker *t, fja_pool *p, fja_pool_fact fact, const fja_event *ev)
{
    fja_change c = change_of(t, FJA_CHANGE_POOL_FACT, p, FJA_NO_WORKER, ev->ts);
    c.fact = (uint8_t)fact;
    if (fact == FJA_FACT_BEGIN) {
        c.name = ev->procname;
        c.workers = ev->arg.workers;
        c.delta = ev->pid;
        c.counted = ev->procname || ev->pid > 0;
    } else if (fact == FJA_FACT_RUNTIME) {
        c.name = ev->name;
        c.version = ev->runtime;
    }
    tell(t, &c);
}

/* The replay's part of a pool fact (rp: NULL when memory ran out). */
static void on_pool_fact(fja_tracker *t, fja_pool *p, fja_pool_fact fact, const fja_event *ev)
{
    replay_pool *rp = replay_pool_in(t, p);
    if (fact == FJA_FACT_BEGIN) rp->declared = (uint32_t)ev->arg.workers;
    if (fact == FJA_FACT_RUNTIME) { /* which runtime made the pool (none: libfj) */
        rp->openmp = ev->name && strcmp(ev->name, "openmp") == 0;
        rp->jvm = ev->name && strcmp(ev->name, "jvm") == 0;
    }
    if (fact == FJA_FACT_END) {
        rp->has_end = true;
        rp->end_ts = ev->ts;
    }
    tell_fact(t, p, fact, ev); /* the model makes the workers' slots declared */
}

/* A client thread's stay off the CPU, drained as its wait for root task
 * ended (before the result): told up to the drain (the stay's end, or the
 * drain's time if later than that), the model keeps the part within the
 * tree's round trip and within its final hand-off. */
static void on_client_offcpu(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    uint32_t n = client_root(t, p, ev);
    if (n == FJA_TASK_NONE || ev->end <= ev->begin) return;
    fja_change c = change_of(t, FJA_CHANGE_CLIENT_OFFCPU, p, FJA_NO_WORKER,
                             ev->end < ev->ts ? ev->end : ev->ts);
    c.task = n;
    c.since = ev->begin;
    c.offcpu = ev->arg.offcpu == FJA_OFFCPU_BLOCKED ? FJA_OFFCPU_BLOCKED : FJA_OFFCPU_PREEMPTED;
    tell(t, &c);
}

/* offcpu_start / offcpu_unavailable of a client thread (worker -1). */
static bool on_client_offcpu_status(fja_tracker *t, fja_pool *p, const fja_event *ev)
{
    if (ev->worker >= 0 ||
        (ev->kind != FJA_EV_OFFCPU_START && ev->kind != FJA_EV_OFFCPU_UNAVAILABLE))
        return false;
    on_offcpu_status(t, p, FJA_NO_WORKER, ev);
    return true;
}

static void on_pool_event(fja_tracker *t, fja_pool *p, replay_worker *rw, const fja_event *ev)
{
    if (on_client_offcpu_status(t, p, ev)) return;
    switch (ev->kind) {
    case FJA_EV_OFFCPU_CLIENT:
        on_client_offcpu(t, p, ev);
        break;
    case FJA_EV_POOL_BEGIN:
        on_pool_fact(t, p, FJA_FACT_BEGIN, ev);
        break;
    case FJA_EV_POOL_END:
        on_pool_fact(t, p, FJA_FACT_END, ev);
        break;
    case FJA_EV_SUBMIT:
        on_submit(t, p, ev);
        break;
    case FJA_EV_RESULT:
        on_result(t, p, ev);
        break;
    case FJA_EV_WAKE:
        tell_task(t, FJA_CHANGE_WAKE, p, FJA_NO_WORKER, FJA_TASK_NONE, ev->ts);
        break;
    case FJA_EV_COMPLETING:
        on_completing(t, p, ev);
        break;
    case FJA_EV_COMPLETED:
        on_completed(t, p, ev);
        break;
    case FJA_EV_POOL_RUNTIME:
        on_pool_fact(t, p, FJA_FACT_RUNTIME, ev);
        break;
    case FJA_EV_JOINS_TOLD:
        on_pool_fact(t, p, FJA_FACT_JOINS_TOLD, ev);
        break;
    case FJA_EV_DEPENDENCE:
        on_dependence(t, p, ev);
        break;
    default:
        if (ev->worker >= 0)
            on_worker_event(t, p, rw, ev);
        else
            tell_anomaly(t, FJA_AN_NOT_ON_WORKER, ev);
    }
}

/* The events of the off-CPU channel (the CPU-clock readings too: a
 * changed pool in one made a pool 257 of no task, issue 24). */
static bool offcpu_kind(fja_kind k)
{
    return k == FJA_EV_OFFCPU || k == FJA_EV_OFFCPU_CLIENT || k == FJA_EV_OFFCPU_START ||
           k == FJA_EV_OFFCPU_LOST || k == FJA_EV_OFFCPU_UNAVAILABLE || k == FJA_EV_OFFCPU_CLOCK ||
           k == FJA_EV_OFFCPU_TASK_CLOCK;
}

/* What an event claims about the pools, checked before the model
 * believes it (the reader checks times and layouts: validate.h): an
 * off-CPU record of a pool seen and a worker begun, its interval inside
 * the worker's life and after its last one; a worker index below the
 * pool's `workers`, or of a thread that did worker_begin (a JVM's
 * compensation threads, an OpenMP nested team's, begin beyond it). NULL,
 * or why not (into why). Off-CPU payloads read cleanly by babeltrace2
 * made pools 62, 257, 2049 and a worker 256 out of nothing (issue 24). */
static const char *claims_fault(const replay_pool *rp, const replay_worker *rw, const fja_event *ev,
                                char *why, size_t n)
{
    if (ev->kind == FJA_EV_LOCK_INIT || ev->kind >= FJA_EV_UNKNOWN) return NULL;
    bool begun = rw && rw->begun;
    if (offcpu_kind(ev->kind)) {
        if (!rp || !rp->seen)
            snprintf(why, n, "an off-CPU record (%s) of pool %u, which no event began",
                     fja_event_kind_name(ev->kind), ev->pool);
        else if (ev->worker >= 0 && !begun)
            snprintf(why, n, "an off-CPU record (%s) of worker %d of pool %u, which never began",
                     fja_event_kind_name(ev->kind), ev->worker, ev->pool);
        else if (ev->kind == FJA_EV_OFFCPU && rw &&
                 (ev->begin < rw->begin_ts || ev->end < ev->begin || ev->end > ev->ts ||
                  ev->begin < rw->off_checked_end))
            snprintf(why, n,
                     "an off-CPU interval of worker %d of pool %u outside its life or "
                     "overlapping its last one",
                     ev->worker, ev->pool);
        else
            return NULL;
        return why;
    }
    /* fork and executed of the current layout (not named): what they mean
     * is the worker's innermost open exec (docs/events.md) */
    if ((ev->kind == FJA_EV_FORK || ev->kind == FJA_EV_EXECUTED) && !ev->named &&
        (!rw || !rw->depth)) {
        if (ev->kind == FJA_EV_FORK)
            snprintf(why, n,
                     "a fork of task %" PRIu64 " on worker %d of pool %u, which runs no task: "
                     "it has no parent",
                     ev->task, ev->worker, ev->pool);
        else
            snprintf(why, n, "an executed on worker %d of pool %u, which runs no task", ev->worker,
                     ev->pool);
        return why;
    }
    if (begun || ev->worker < 0) return NULL;
    if (!rp || !rp->declared || (uint32_t)ev->worker < rp->declared) return NULL;
    if (ev->kind == FJA_EV_WORKER_BEGIN && (rp->jvm || rp->openmp)) return NULL;
    snprintf(why, n, "%s of worker %d of pool %u, which has %u workers and no such thread began",
             fja_event_kind_name(ev->kind), ev->worker, ev->pool, rp->declared);
    return why;
}

/* The number of ev's pool, npools when the replay has none yet: the pool
 * of the previous event first (most events are), then every one. */
static uint32_t pool_number(fja_tracker *t, const fja_event *ev)
{
    const struct fja_replay *r = t->replay;
    uint32_t pi = t->last_pool;
    if (pi < r->npools && r->pools[pi].source == ev->source && r->pools[pi].id == ev->pool)
        return pi;
    for (pi = 0; pi < r->npools; pi++)
        if (r->pools[pi].source == ev->source && r->pools[pi].id == ev->pool) break;
    t->last_pool = pi;
    return pi;
}

int fja_tracker_feed(fja_tracker *t, const fja_event *ev)
{
    fja_model *m = t->model;
    if (!t->replay && !(t->replay = calloc(1, sizeof *t->replay))) {
        t->oom = true;
        return -1;
    }
    int foreign = foreign_event(t, ev); /* another recording's pool */
    if (foreign) {
        if (foreign < 0) t->oom = true;
        return foreign < 0 ? -1 : 0;
    }
    if (ev->kind == FJA_EV_OFFCPU_OUT || ev->kind == FJA_EV_OFFCPU_IN) {
        on_offcpu_edge(t, ev); /* replayed, not an event of the trace */
        return 0;
    }
    char why[256];
    uint32_t pi = pool_number(t, ev);
    /* the replay's pool and worker of the event (NULL: none made yet; a
     * worker that never began), for the checks and the replay: nothing
     * below grows the replay's pools while there is one, so rp stays */
    replay_pool *rp = pi < t->replay->npools ? &t->replay->pools[pi] : NULL;
    replay_worker *rw = rp && ev->worker >= 0 && (uint32_t)ev->worker < rp->nworkers
                            ? &rp->workers[ev->worker]
                            : NULL;
    if (claims_fault(rp, rw, ev, why, sizeof why)) {
        tell_invalid(t, ev, why, true);
        return 0;
    }
    if (ev->kind == FJA_EV_OFFCPU && ev->worker >= 0) { /* believed: the next one after it */
        rw = replay_worker_of(t, rp, ev->worker);       /* begun: made before, as its pool (rp) */
        if (rw && ev->end > rw->off_checked_end) rw->off_checked_end = ev->end;
    }
    /* an event of a pool replayed: not of an unknown kind, nor lock_init
     * (not pool-bound: pool 0), nor locking off the workers (not pool
     * time); its pool is made at its first (the model's too) */
    bool pooled =
        ev->kind < FJA_EV_UNKNOWN && ev->kind != FJA_EV_LOCK_INIT &&
        !((ev->kind == FJA_EV_LOCK_WAIT || ev->kind == FJA_EV_LOCK_ACQUIRED) && ev->worker < 0);
    if (pooled && !rp && !(rp = replay_pool_make(t, ev))) {
        t->oom = true;
        return -1;
    }
    fja_model_counted(m, ev, pooled ? pi : FJA_NO_POOL);
    if (ev->ts > t->last_ts) t->last_ts = ev->ts;
    if (ev->kind == FJA_EV_LOCK_INIT) {
        on_lock_init(t, ev);
        return fja_tracker_oom(t) ? -1 : 0;
    }
    if (!pooled) return 0;
    if (pi >= m->npools) { /* the model could not make it */
        t->oom = true;
        return -1;
    }
    fja_pool *p = &m->pools[pi];
    t->replay->now = rp; /* for the handlers: replay_pool_in */
    if (!rp->seen) {
        rp->seen = true;
        rp->first_ts = ev->ts;
    }
    if (ev->ts > rp->last_ts) rp->last_ts = ev->ts;
    if (rw && rw->off) { /* a worker emits events only on the CPU */
        rw->cut_ts = ev->ts;
        offcpu_in(t, p, ev->worker, rw, ev->ts);
    }
    if (ev->kind == FJA_EV_WORKER_BEGIN) {
        bool worker = ev->worker >= 0 && ev->worker <= FJA_MAX_WORKER;
        rw = worker ? replay_worker_of(t, rp, ev->worker) : NULL;
        if (rw && !rw->begun) {
            worker_begin(rw, ev->ts);
            worker_switch(t, p, ev->worker, rw, ev->ts);
            return 0;
        }
    }
    on_pool_event(t, p, rw, ev);
    return fja_tracker_oom(t) ? -1 : 0;
}

bool fja_tracker_oom(const fja_tracker *t)
{
    return t->oom || t->model->oom;
}

/* ------------------------------------------------------------ end of trace */

static void worker_close(fja_tracker *t, fja_pool *p, int32_t w, replay_worker *rw, uint64_t end)
{
    if (!rw->begun || rw->ended) return;
    offcpu_in(t, p, w, rw, end);
    /* Killed mid-run: its body stops at the last event of the pool (the
     * model books what ran up to there, told by the SETTLED below). */
    fja_frame *f = top_frame(rw);
    if (f) frame_suspend(f);
    worker_end(t, p, w, rw, end);
    worker_switch(t, p, w, rw, end);
    tool_tail(t, p, w, rw, end, true);
}

/* Where a frame's task is as the trace ends: its body on top of the
 * stack, or under a task it runs inline, or waiting. */
static fja_ustate frame_left(const replay_worker *rw, const fja_frame *f)
{
    if (f->in_lock) return FJA_UT_LOCK_WAIT;
    if (f->in_join) return FJA_UT_WAITING;
    return f == top_frame(rw) ? FJA_UT_RUNNING : FJA_UT_SUSPENDED;
}

/* The tasks left under way on worker w's stack at the trace's end, bottom
 * up: what a killed program's report shows. */
static void tell_frames_left(fja_tracker *t, fja_pool *p, int32_t w, const replay_worker *rw,
                             uint64_t end)
{
    for (uint32_t i = 0; i < rw->depth; i++) {
        const fja_frame *f = &rw->stack[i];
        fja_change c = change_of(t, FJA_CHANGE_UNFINISHED, p, w, end);
        c.task = f->task;
        c.since = f->since;
        c.left = (uint8_t)frame_left(rw, f);
        if (c.left == FJA_UT_WAITING && f->awaited != FJA_TASK_NONE)
            c.parent_id = task_at(p, f->awaited)->id;
        tell(t, &c);
    }
}

/* A completion left under way at the trace's end on worker w
 * (FJA_NO_WORKER: on a client thread). */
static void tell_completion_left(fja_tracker *t, fja_pool *p, int32_t w, const replay_worker *rw,
                                 uint64_t end)
{
    if (!rw->completing) return;
    fja_change c = change_of(t, FJA_CHANGE_UNFINISHED, p, w, end);
    c.task = fja_taskmap_find(&p->tasks, rw->completing_task);
    if (c.task == FJA_TASK_NONE) return;
    c.since = rw->completing_ts;
    c.left = FJA_UT_COMPLETING;
    tell(t, &c);
}

/* The tasks left queued in pool p at its end (forked or submitted, never
 * taken), with when they were queued, if known (a slot held it). */
static void tell_queued_left(fja_tracker *t, fja_pool *p, uint64_t end)
{
    const replay_pool *rp = replay_pool_at(t, (uint32_t)(p - t->model->pools));
    for (uint32_t n = 0; rp && rp->qtaken && n < p->tasks.count; n++) {
        const replay_task *k = &rp->tasks[n];
        if (fja_taskmap_is_free(&p->tasks, n) || k->qslot == FJA_TASK_NONE) continue;
        bool forked = (k->flags & RT_FORKED) && (uint32_t)k->worker < rp->nworkers;
        fja_change c =
            change_of(t, FJA_CHANGE_UNFINISHED, p, forked ? k->worker : FJA_NO_WORKER, end);
        c.task = n;
        c.since = rp->qsince[k->qslot];
        c.left = FJA_UT_QUEUED;
        tell(t, &c);
    }
}

/* Everything the replay leaves under way in pool p at its end: the
 * frames of every worker, then the completions (a completer's frame below
 * is told first: its completion is where it is), then the tasks queued. */
static void tell_left(fja_tracker *t, fja_pool *p, const replay_pool *rp, uint64_t end)
{
    for (uint32_t w = 0; w < rp->nworkers; w++)
        tell_frames_left(t, p, (int32_t)w, &rp->workers[w], end);
    for (uint32_t w = 0; w < rp->nworkers; w++)
        tell_completion_left(t, p, (int32_t)w, &rp->workers[w], end);
    tell_completion_left(t, p, FJA_NO_WORKER, &rp->client, end);
    tell_queued_left(t, p, end);
}

/* A pool without pool_end was cut short with the trace: its workers ran
 * until the last event of the trace. */
void fja_tracker_finish(fja_tracker *t)
{
    const fja_model *m = t->model;
    if (t->finished) return;
    for (uint32_t i = 0; i < m->npools; i++) {
        fja_pool *p = &m->pools[i];
        const replay_pool *rp = replay_pool_at(t, i);
        uint64_t end = rp && rp->has_end ? rp->end_ts : t->last_ts;
        for (uint32_t w = 0; rp && w < rp->nworkers; w++)
            worker_close(t, p, (int32_t)w, &rp->workers[w], end);
        if (rp) tell_left(t, p, rp, end);
        if (rp && rp->seen) { /* its first and last event */
            fja_change c = change_of(t, FJA_CHANGE_POOL_SPAN, p, FJA_NO_WORKER, rp->last_ts);
            c.since = rp->first_ts;
            tell(t, &c);
        }
        tell_task(t, FJA_CHANGE_POOL_END, p, FJA_NO_WORKER, FJA_TASK_NONE, end);
    }
    fja_change c = {.kind = FJA_CHANGE_TRACE_END,
                    .ts = t->last_ts,
                    .pool_index = FJA_NO_POOL,
                    .worker = FJA_NO_WORKER,
                    .task = FJA_TASK_NONE,
                    .other = -1,
                    .delta = (int64_t)t->left_out_events,
                    .pools = t->left_out_pools,
                    .counted = t->recording_set,
                    .recording = t->recording};
    tell(t, &c);
    t->finished = true;
}
