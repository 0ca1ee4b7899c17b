/* The collector: a listener of the tracker's changes that keeps what the
 * pictures need beyond the model (per-lane time buckets on each pool's own
 * time axis, queue depths, steal delays, a sample of steals), and streams
 * the Chrome trace. What each worker is doing comes from the tracker; the
 * collector only books it. Memory is constant in the trace length except
 * for one map entry per stolen task. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "perfetto.h"
#include "viz_int.h"

#define MAX_STEAL_SAMPLES 4096

/* ------------------------------------------------------------ steal delays */

static void delay_add(fjv_collector *c, uint32_t pool, uint64_t task, uint64_t ns)
{
    if (c->ndelays == c->cap_delays) {
        size_t cap = c->cap_delays ? c->cap_delays * 2 : 1024;
        fjv_delay *d = realloc(c->delays, cap * sizeof *d);
        if (!d) return; /* the diagram then says "stolen" without a delay */
        c->delays = d;
        c->cap_delays = cap;
    }
    c->delays[c->ndelays++] = (fjv_delay){.task = task, .ns = ns, .pool = pool};
}

static int delay_cmp(const void *a, const void *b)
{
    const fjv_delay *x = a, *y = b;
    if (x->pool != y->pool) return x->pool < y->pool ? -1 : 1;
    return x->task < y->task ? -1 : x->task > y->task;
}

/* ------------------------------------------------------------ dependences */

static void dep_add(fjv_collector *c, uint32_t pool, uint32_t sink, uint32_t pred)
{
    if (c->ndeps == c->cap_deps) {
        size_t cap = c->cap_deps ? c->cap_deps * 2 : 1024;
        fjv_dep *d = realloc(c->deps, cap * sizeof *d);
        if (!d) return; /* the diagram then draws fewer dependence edges */
        c->deps = d;
        c->cap_deps = cap;
    }
    c->deps[c->ndeps++] = (fjv_dep){.pool = pool, .sink = sink, .pred = pred};
}

static int dep_cmp(const void *a, const void *b)
{
    const fjv_dep *x = a, *y = b;
    if (x->pool != y->pool) return x->pool < y->pool ? -1 : 1;
    return x->sink < y->sink ? -1 : x->sink > y->sink;
}

const fjv_dep *fjv_deps_of(const fjv_collector *c, const fjv_pool *p, uint32_t sink, size_t *n)
{
    *n = 0;
    if (!c || !c->delays_sorted || !c->ndeps) return NULL;
    fjv_dep key = {.pool = (uint32_t)(p - c->pools), .sink = sink};
    const fjv_dep *d = bsearch(&key, c->deps, c->ndeps, sizeof key, dep_cmp);
    if (!d) return NULL;
    while (d > c->deps && dep_cmp(d - 1, &key) == 0)
        d--;
    const fjv_dep *end = d;
    while (end < c->deps + c->ndeps && dep_cmp(end, &key) == 0)
        end++;
    *n = (size_t)(end - d);
    return d;
}

/* ------------------------------------------------------------ pools, lanes */

fjv_pool *fjv_pool_find(const fjv_collector *c, uint32_t source, uint32_t id)
{
    for (uint32_t i = 0; i < c->npools; i++)
        if (c->pools[i].started && c->pools[i].source == source && c->pools[i].id == id)
            return &c->pools[i];
    return NULL;
}

bool fjv_steal_delay(const fjv_collector *c, const fjv_pool *p, uint64_t id, uint64_t *ns)
{
    if (!c || !c->delays_sorted) return false;
    fjv_delay key = {.task = id, .pool = (uint32_t)(p - c->pools)};
    const fjv_delay *d = bsearch(&key, c->delays, c->ndelays, sizeof key, delay_cmp);
    if (d) *ns = d->ns;
    return d != NULL;
}

/* The collector's pool for the model's pool `index`, its time axis starting
 * at ts. */
static fjv_pool *pool_get(fjv_collector *c, const fja_pool *mp, uint32_t index, uint64_t ts)
{
    if (index >= c->npools) {
        fjv_pool *np = realloc(c->pools, (index + 1) * sizeof *np);
        if (!np) return NULL;
        memset(np + c->npools, 0, (index + 1 - c->npools) * sizeof *np);
        c->pools = np;
        c->npools = index + 1;
    }
    fjv_pool *p = &c->pools[index];
    if (!p->started)
        *p = (fjv_pool){.source = mp->source, .id = mp->id, .t0 = ts, .res = 256, .started = true};
    return p;
}

static fjv_lane *lane_get(fjv_pool *p, int32_t worker)
{
    if (worker > 32767) return NULL;
    uint32_t i = worker < 0 ? 0 : (uint32_t)worker + 1;
    if (i >= p->nlanes) {
        fjv_lane *nl = realloc(p->lanes, (i + 1) * sizeof *nl);
        if (!nl) return NULL;
        for (uint32_t k = p->nlanes; k <= i; k++)
            nl[k] = (fjv_lane){.state = -1, .tree = FJA_TASK_NONE};
        p->lanes = nl;
        p->nlanes = i + 1;
    }
    fjv_lane *l = &p->lanes[i];
    if (!l->b && !(l->b = calloc(NBUCKETS, sizeof *l->b))) return NULL;
    return l;
}

/* ------------------------------------------------------------ buckets */

static void bucket_merge(fjv_bucket *d, const fjv_bucket *a, const fjv_bucket *b)
{
    fjv_bucket r = *a;
    for (int s = 0; s < LS_COUNT; s++)
        r.ns[s] += b->ns[s];
    if (b->run_tree_ns > r.run_tree_ns) {
        r.run_tree = b->run_tree;
        r.run_tree_ns = b->run_tree_ns;
    }
    if (b->lock_ns > r.lock_ns) {
        r.lock = b->lock;
        r.lock_ns = b->lock_ns;
    }
    if (b->qmax > r.qmax) r.qmax = b->qmax;
    *d = r;
}

/* Halves the resolution of every lane of p until ts fits. */
static void range_fit(fjv_pool *p, uint64_t ts)
{
    while (ts - p->t0 >= NBUCKETS * p->res) {
        for (uint32_t li = 0; li < p->nlanes; li++) {
            fjv_bucket *b = p->lanes[li].b;
            if (!b) continue;
            for (uint32_t i = 0; i < NBUCKETS / 2; i++)
                bucket_merge(&b[i], &b[2 * i], &b[2 * i + 1]);
            memset(b + NBUCKETS / 2, 0, NBUCKETS / 2 * sizeof *b);
        }
        p->res *= 2;
    }
}

/* The longest of (id, len) booked into a bucket, as its representative. */
static void bucket_pick(uint32_t *id, uint64_t *ns, uint32_t v, uint64_t len)
{
    if (v == *id)
        *ns += len;
    else if (len > *ns) {
        *id = v;
        *ns = len;
    }
}

/* Books the lane's state from its last change up to ts. */
static void lane_advance(fjv_pool *p, fjv_lane *l, uint64_t ts)
{
    uint64_t from = l->state_ts > p->t0 ? l->state_ts : p->t0;
    l->state_ts = ts;
    if (l->state < 0 || ts <= from) return;
    range_fit(p, ts);
    for (uint64_t t = from; t < ts;) {
        uint64_t i = (t - p->t0) / p->res;
        uint64_t end = p->t0 + (i + 1) * p->res;
        uint64_t len = (end < ts ? end : ts) - t;
        fjv_bucket *b = &l->b[i];
        b->ns[l->state] += len;
        if (l->state == LS_RUN) bucket_pick(&b->run_tree, &b->run_tree_ns, l->tree, len);
        if (l->state == LS_LOCK) bucket_pick(&b->lock, &b->lock_ns, l->lock, len);
        t += len;
    }
}

static void lane_qdepth(fjv_pool *p, fjv_lane *l, uint64_t depth, uint64_t ts)
{
    range_fit(p, ts);
    fjv_bucket *b = &l->b[(ts - p->t0) / p->res];
    if (depth > b->qmax) b->qmax = (uint32_t)depth;
}

/* ------------------------------------------------------------ Chrome trace */

/* Browsers (and the Perfetto UI's JSON import) give up on JSON traces of a
 * few GB: said once, while there is time to stop and choose otherwise. */
#define CHROME_WARN_BYTES (1ull << 30)

/* Opens one event of traceEvents (one line: json.h's flat depth). */
static fja_json *chrome_event(fjv_collector *c, const char *ph)
{
    fja_json *j = &c->cj;
    fja_json_open(j, NULL, '{');
    fja_json_str(j, "ph", ph);
    if (++c->chrome_events % 65536 || c->chrome_warned) return j;
    off_t at = ftello(c->chrome);
    if (at < 0 || (uint64_t)at < CHROME_WARN_BYTES) return j;
    c->chrome_warned = true;
    fprintf(stderr,
            "fjtrace-analyze: warning: the Chrome trace %s passed 1 GiB (%llu events so far, "
            "~%llu bytes each): too large for a browser; --perfetto FILE.pftrace writes the "
            "compact protobuf trace, --window FROM:TO keeps a time range\n",
            c->o->chrome_trace, (unsigned long long)c->chrome_events,
            (unsigned long long)((uint64_t)at / c->chrome_events));
    return j;
}

/* pid and tid of an event on lane tid (0: the pool itself) of pool p */
static void chrome_ids(fja_json *j, const fjv_pool *p, int64_t tid)
{
    fja_json_u64(j, "pid", (uint64_t)p->source * 1000 + p->id);
    if (tid >= 0) fja_json_i64(j, "tid", tid);
}

static void chrome_ts(fja_json *j, const fjv_collector *c, const char *k, uint64_t ts)
{
    fja_json_fixed(j, k, ts > c->t0 ? (double)(ts - c->t0) / 1e3 : 0, 3);
}

/* A metadata event: name, and args {key: value} */
static void chrome_meta(fjv_collector *c, const fjv_pool *p, int64_t tid, const char *name,
                        const char *key, const char *str, int64_t num)
{
    fja_json *j = chrome_event(c, "M");
    fja_json_str(j, "name", name);
    chrome_ids(j, p, tid);
    fja_json_open(j, "args", '{');
    if (str)
        fja_json_str(j, key, str);
    else
        fja_json_i64(j, key, num);
    fja_json_close(j, '}');
    fja_json_close(j, '}');
}

static void chrome_names(fjv_collector *c, fjv_pool *p, fjv_lane *l, int32_t worker)
{
    if (c->pf) fjv_pf_lane(c->pf, p, l, worker);
    if (!c->chrome) return;
    if (!p->named) {
        p->named = true;
        char name[64];
        snprintf(name, sizeof name, "fjtrace pool %u (trace %u)", p->id, p->source);
        chrome_meta(c, p, 0, "process_name", "name", name, 0);
    }
    if (l->named) return;
    l->named = true;
    char name[48];
    if (worker < 0)
        snprintf(name, sizeof name, "client threads");
    else
        snprintf(name, sizeof name, "worker %d", worker);
    chrome_meta(c, p, worker + 1, "thread_name", "name", name, 0);
    chrome_meta(c, p, worker + 1, "thread_sort_index", "sort_index", NULL, worker + 1);
}

/* The export window (--window): outside it the traces get no new slices,
 * counters or flows. */
static bool in_window(const fjv_collector *c, uint64_t ts)
{
    const fjv_options *o = c->o;
    return !o->window_set ||
           (ts - c->t0 >= o->window_from && ts - c->t0 <= o->window_to && ts >= c->t0);
}

/* Opens a slice named name on the lane (rec: its task's record in pool fp,
 * or FJA_TASK_NONE; flow: the Perfetto flow ending at it; lock: the lock
 * waited for, -1: none). A task's slice is named by its creation site when
 * the sites are resolved ("fib.c:23 (fib_split) n=13"). Slices are nested
 * per lane: those opened before the window (below) and after it (above)
 * are not written, nor are their ends. */
static void chrome_begin(fjv_collector *c, fjv_pool *p, fjv_lane *l, int32_t worker,
                         const char *name, const fja_pool *fp, uint32_t rec, uint64_t ts,
                         uint64_t flow, int64_t lock)
{
    l->open++;
    if (!in_window(c, ts)) {
        if (ts - c->t0 < c->o->window_from || ts < c->t0)
            l->skip_below++;
        else
            l->skip_above++;
        return;
    }
    if (!c->chrome && !c->pf) return;
    const fja_task *task = rec == FJA_TASK_NONE ? NULL : fja_taskmap_get(&fp->tasks, rec);
    char site[512], full[600];
    const char *where = task ? fjv_site_label(c->o, fp, rec, site, sizeof site) : NULL;
    const char *label = where ? where : task ? "task" : name;
    if (task && task->size_hint) {
        snprintf(full, sizeof full, "%s n=%u", label, task->size_hint);
        label = full;
    }
    if (c->pf)
        fjv_pf_begin(c->pf, p, l, worker, ts,
                     &(fjv_pf_slice){.name = label, .task = task, .flow = flow, .lock = lock});
    if (!c->chrome) return;
    fja_json *j = chrome_event(c, "B");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_str(j, "name", label); /* file and function names may hold anything */
    if (task || lock >= 0) {
        fja_json_str(j, "cat", task ? "task" : "lock");
        fja_json_open(j, "args", '{');
        if (task) {
            fja_json_strf(j, "task", "0x%llx", (unsigned long long)task->id);
            fja_json_i64(j, "tree", task->tree == FJA_TASK_NONE ? -1 : (int64_t)task->tree);
        } else {
            fja_json_i64(j, "lock", lock);
        }
        fja_json_close(j, '}');
    }
    fja_json_close(j, '}');
}

/* Closes the lane's innermost open slice. */
static void chrome_end(fjv_collector *c, fjv_pool *p, fjv_lane *l, int32_t worker, uint64_t ts)
{
    if (!l->open) return;
    l->open--;
    if (l->skip_above) {
        l->skip_above--;
        return;
    }
    if (l->open < l->skip_below) {
        l->skip_below--;
        return;
    }
    if (c->pf) fjv_pf_end(c->pf, p, l, worker, ts);
    if (!c->chrome) return;
    fja_json *j = chrome_event(c, "E");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_close(j, '}');
}

static void chrome_counter(fjv_collector *c, fjv_pool *p, fjv_lane *l, const char *name,
                           int32_t worker, uint64_t v, uint64_t ts)
{
    if (!in_window(c, ts)) return;
    if (c->pf) fjv_pf_counter(c->pf, p, l, worker, ts, (int64_t)v);
    if (!c->chrome) return;
    fja_json *j = chrome_event(c, "C");
    if (worker >= 0)
        fja_json_strf(j, "name", "%s w%d", name, worker);
    else
        fja_json_str(j, "name", name);
    chrome_ids(j, p, -1);
    chrome_ts(j, c, "ts", ts);
    fja_json_open(j, "args", '{');
    fja_json_u64(j, worker >= 0 ? "depth" : "count", v);
    fja_json_close(j, '}');
    fja_json_close(j, '}');
}

/* A flow arrow fork -> exec: both ends are written together, at exec, so
 * every flow has two ends even when the trace stops in between. */
static void chrome_flow(fjv_collector *c, const fjv_pool *p, int32_t from, uint64_t from_ts,
                        int32_t to, uint64_t to_ts, bool stolen)
{
    if (!c->chrome || !in_window(c, from_ts) || !in_window(c, to_ts)) return;
    uint64_t id = ++c->flow_id;
    const char *name = stolen ? "steal" : "fork";
    for (int end = 0; end < 2; end++) {
        fja_json *j = chrome_event(c, end ? "f" : "s");
        if (end) fja_json_str(j, "bp", "e");
        fja_json_u64(j, "id", id);
        fja_json_str(j, "name", name);
        fja_json_str(j, "cat", "flow");
        chrome_ids(j, p, end ? to + 1 : from + 1);
        chrome_ts(j, c, "ts", end ? to_ts : from_ts);
        fja_json_close(j, '}');
    }
}

/* ------------------------------------------------------------ changes */

static void steal_sample(fjv_collector *c, uint32_t pool, const fja_change *ch)
{
    if (c->steal_seen++ % c->steal_stride) return;
    if (c->nsteals == MAX_STEAL_SAMPLES) {
        /* Keep every other sample and sample half as often from now on. */
        for (uint32_t i = 0; i < MAX_STEAL_SAMPLES / 2; i++)
            c->steals[i] = c->steals[2 * i];
        c->nsteals = MAX_STEAL_SAMPLES / 2;
        c->steal_stride *= 2;
    }
    c->steals[c->nsteals++] =
        (fjv_steal){.ts = ch->ts, .pool = pool, .thief = ch->worker->index, .victim = ch->other};
}

static const fjv_lstate lane_states[FJA_WS_COUNT] = {
    [FJA_WS_OFF] = (fjv_lstate)-1, [FJA_WS_RUN] = LS_RUN,   [FJA_WS_JOIN] = LS_JOIN,
    [FJA_WS_SEARCH] = LS_SEARCH,   [FJA_WS_PARK] = LS_PARK, [FJA_WS_LOCK] = LS_LOCK,
};

/* The worker's event is applied: book the old state, take the new one. */
static void on_settled(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_change *ch)
{
    const fja_worker *w = ch->worker;
    lane_advance(p, l, ch->ts);
    l->state = lane_states[w->state];
    l->tree = ch->task == FJA_TASK_NONE ? FJA_TASK_NONE
                                        : fja_taskmap_get(&ch->pool->tasks, ch->task)->tree;
    l->lock = w->lock_id;
    if (w->state == FJA_WS_OFF) l->in_lock = false;
    if (w->state == FJA_WS_OFF)
        while (l->open)
            chrome_end(c, p, l, w->index, ch->ts);
}

static void on_task_begin(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_change *ch)
{
    const fja_task *t = fja_taskmap_get(&ch->pool->tasks, ch->task);
    int32_t w = ch->worker->index;
    bool forked = (t->flags & FJA_TF_FORKED) && ch->since && ch->other >= 0;
    /* Perfetto: an arrow for each steal, from the fork, as in the JSON;
     * none for a worker's own forks (the nesting shows them) */
    uint64_t flow = 0;
    fjv_lane *forker = forked && ch->stolen && c->pf && ch->other != w && in_window(c, ch->since) &&
                               in_window(c, ch->ts)
                           ? lane_get(p, ch->other)
                           : NULL;
    if (forker) flow = fjv_pf_steal(c->pf, p, forker, ch->other, ch->since);
    chrome_begin(c, p, l, w, "task", ch->pool, ch->task, ch->ts, flow, -1);
    if (!forked) return;
    chrome_flow(c, p, ch->other, ch->since, w, ch->ts, ch->stolen);
    if (ch->stolen) delay_add(c, ch->pool_index, t->id, ch->ts - ch->since);
}

static void on_worker(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_change *ch)
{
    int32_t w = ch->worker->index;
    switch (ch->kind) {
    case FJA_CHANGE_SETTLED:
        on_settled(c, p, l, ch);
        break;
    case FJA_CHANGE_QUEUE:
        lane_qdepth(p, l, (uint64_t)ch->depth, ch->ts);
        chrome_counter(c, p, l, "queue", w, (uint64_t)ch->depth, ch->ts);
        break;
    case FJA_CHANGE_TASK_BEGIN:
        on_task_begin(c, p, l, ch);
        break;
    case FJA_CHANGE_TASK_RESUME:
        chrome_begin(c, p, l, w, "task", ch->pool, ch->task, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_STEAL:
        steal_sample(c, ch->pool_index, ch);
        break;
    case FJA_CHANGE_JOIN_BEGIN:
        chrome_begin(c, p, l, w, "join wait", ch->pool, FJA_TASK_NONE, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_LOCK_BEGIN:
        if (l->in_lock) break;
        l->in_lock = true;
        chrome_begin(c, p, l, w, "lock wait", ch->pool, FJA_TASK_NONE, ch->ts, 0, ch->lock);
        break;
    case FJA_CHANGE_LOCK_END:
        if (!l->in_lock) break; /* the wait began before the trace */
        l->in_lock = false;
        chrome_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_OFFCPU_OUT:
        if (c->pf && in_window(c, ch->ts))
            fjv_pf_offcpu(c->pf, p, l, w, ch->ts,
                          ch->offcpu == FJA_OFFCPU_PREEMPTED ? "off-CPU: preempted"
                                                             : "off-CPU: blocked");
        break;
    case FJA_CHANGE_OFFCPU_IN:
        if (c->pf) fjv_pf_oncpu(c->pf, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_PARK:
        if (ch->counted) chrome_begin(c, p, l, w, "parked", ch->pool, FJA_TASK_NONE, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_UNPARK:
        if (ch->counted) chrome_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_TASK_END:
    case FJA_CHANGE_TASK_SUSPEND:
    case FJA_CHANGE_TASK_LOST:
    case FJA_CHANGE_JOIN_END:
        chrome_end(c, p, l, w, ch->ts);
        break;
    default:
        break;
    }
}

/* The client lane: some request submitted and waiting for its result. */
static void on_client(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_change *ch)
{
    lane_advance(p, l, ch->ts);
    if (ch->kind == FJA_CHANGE_RESULT && p->outstanding)
        p->outstanding--;
    else if (ch->kind == FJA_CHANGE_TASK_NEW)
        p->outstanding++;
    l->state = p->outstanding ? LS_JOIN : -1;
    chrome_counter(c, p, l, "requests outstanding", -1, p->outstanding, ch->ts);
}

/* End of the trace: every lane is booked up to the pool's end. */
static void on_pool_end(fjv_collector *c, fjv_pool *p, uint64_t end)
{
    if (end > p->last_ts) p->last_ts = end;
    for (uint32_t li = 0; li < p->nlanes; li++) {
        fjv_lane *l = &p->lanes[li];
        if (!l->b) continue;
        lane_advance(p, l, p->last_ts);
        l->in_lock = false;
        while (l->open) /* slices still open when the trace stopped end with it */
            chrome_end(c, p, l, (int32_t)li - 1, p->last_ts);
        if (c->pf) fjv_pf_oncpu(c->pf, p, l, (int32_t)li - 1, p->last_ts);
    }
}

static bool is_client(const fja_change *ch)
{
    return ch->kind == FJA_CHANGE_RESULT ||
           (ch->kind == FJA_CHANGE_TASK_NEW &&
            (fja_taskmap_get(&ch->pool->tasks, ch->task)->flags & FJA_TF_SUBMITTED));
}

static void collect_change(void *ctx, fja_model *m, const fja_change *ch)
{
    fjv_collector *c = ctx;
    if (!ch->pool) return; /* lock names: the model keeps them */
    if (!c->started) {
        /* the trace's first event, as --window counts from it */
        c->started = true;
        c->t0 = m->first_ts && m->first_ts < ch->ts ? m->first_ts : ch->ts;
    }
    fjv_pool *p = pool_get(c, ch->pool, ch->pool_index, ch->ts);
    if (!p || ch->ts < p->t0) return; /* out of order before the pool's first event */
    if (ch->ts > p->last_ts) p->last_ts = ch->ts;
    if (ch->kind == FJA_CHANGE_POOL_END) {
        on_pool_end(c, p, ch->ts);
        return;
    }
    if (ch->kind == FJA_CHANGE_DEPENDENCE) {
        dep_add(c, ch->pool_index, ch->task, (uint32_t)ch->parent_id);
        return;
    }
    bool client = is_client(ch);
    if (!client && !ch->worker) return;
    fjv_lane *l = lane_get(p, client ? -1 : ch->worker->index);
    if (!l) return;
    chrome_names(c, p, l, client ? -1 : ch->worker->index);
    if (client)
        on_client(c, p, l, ch);
    else
        on_worker(c, p, l, ch);
}

fja_listener fjv_collector_listener(fjv_collector *c)
{
    return (fja_listener){.ctx = c, .change = collect_change};
}

fjv_collector *fjv_collector_new(const fjv_options *o, char *err, size_t errlen)
{
    fjv_collector *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->steal_stride = 1;
    c->o = o;
    c->steals = malloc(MAX_STEAL_SAMPLES * sizeof *c->steals);
    if (!c->steals) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (o->chrome_trace) {
        if (!(c->chrome = fja_outfile_open(&c->chrome_out, o->chrome_trace, err, errlen))) {
            fjv_collector_free(c);
            return NULL;
        }
        setvbuf(c->chrome, NULL, _IOFBF, 1 << 20);
        /* pretty at the top, an event per line */
        fja_json_start(&c->cj, c->chrome, 3);
        fja_json_str(&c->cj, "displayTimeUnit", "ns");
        fja_json_open(&c->cj, "traceEvents", '[');
    }
    if (o->perfetto && !(c->pf = fjv_pf_open(o->perfetto, err, errlen))) {
        fjv_collector_free(c);
        return NULL;
    }
    return c;
}

int fjv_collect_finish(fjv_collector *c)
{
    if (!c) return 0;
    if (c->ndelays) qsort(c->delays, c->ndelays, sizeof *c->delays, delay_cmp);
    if (c->ndeps) qsort(c->deps, c->ndeps, sizeof *c->deps, dep_cmp);
    c->delays_sorted = true;
    int pf_rc = fjv_pf_close(c->pf, stderr);
    c->pf = NULL;
    if (!c->chrome) return pf_rc;
    char err[4200];
    fja_json_close(&c->cj, ']');
    fja_json_finish(&c->cj);
    c->chrome = NULL;
    int rc = fja_outfile_commit(&c->chrome_out, err, sizeof err);
    if (rc) fprintf(stderr, "fjtrace-analyze: %s\n", err);
    return rc || pf_rc ? -1 : 0;
}

void fjv_collector_free(fjv_collector *c)
{
    if (!c) return;
    if (c->chrome) fja_outfile_abort(&c->chrome_out); /* the run failed before the end */
    fjv_pf_abort(c->pf);
    for (uint32_t pi = 0; pi < c->npools; pi++) {
        for (uint32_t li = 0; li < c->pools[pi].nlanes; li++)
            free(c->pools[pi].lanes[li].b);
        free(c->pools[pi].lanes);
    }
    free(c->pools);
    free(c->delays);
    free(c->deps);
    free(c->steals);
    free(c);
}
