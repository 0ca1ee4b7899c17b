/* The collector: a listener of the tracker's changes that keeps what the
 * pictures need beyond the model (per-lane time buckets on each pool's own
 * time axis, queue depths, steal delays, a sample of steals); the Chrome
 * and Perfetto traces are a listener of their own (export.c). What each
 * worker is doing comes from the tracker; the collector only books it. Memory is constant in the
 * trace length except for one map entry per stolen task. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

/* The collector's slot for the model's pool `index`, started or not. */
static fjv_pool *pool_slot(fjv_collector *c, uint32_t index)
{
    if (index >= c->npools) {
        fjv_pool *np = realloc(c->pools, (index + 1) * sizeof *np);
        if (!np) return NULL;
        for (uint32_t i = c->npools; i <= index; i++)
            np[i] = (fjv_pool){.pid = -1};
        c->pools = np;
        c->npools = index + 1;
    }
    return &c->pools[index];
}

/* The collector's pool for the model's pool `index`, its time axis starting
 * at ts. */
static fjv_pool *pool_get(fjv_collector *c, const fja_pool *mp, uint32_t index, uint64_t ts)
{
    fjv_pool *p = pool_slot(c, index);
    if (p && !p->started) {
        p->source = mp->source;
        p->id = mp->id;
        p->t0 = ts;
        p->res = 256;
        p->started = true;
    }
    return p;
}

/* A pool_begin's process name and pid: the pool's label. */
static void pool_named(fjv_collector *c, uint32_t index, const fja_change *ch)
{
    fjv_pool *p = pool_slot(c, index);
    if (!p) return;
    if (ch->name) fja_name_copy(p->procname, sizeof p->procname, ch->name);
    if (ch->counted) p->pid = ch->delta;
}

/* The name kept for lock id of trace source, NULL if none. */
static fjv_lock_name *lock_find(const fjv_collector *c, uint32_t source, uint32_t id)
{
    for (uint32_t i = 0; i < c->nlock_names; i++)
        if (c->lock_names[i].source == source && c->lock_names[i].id == id)
            return &c->lock_names[i];
    return NULL;
}

/* A lock_init's name (the last one told, as the model keeps it). */
static void lock_named(fjv_collector *c, const fja_change *ch)
{
    if (!ch->name) return;
    fjv_lock_name *l = lock_find(c, ch->source, ch->lock);
    if (!l) {
        if (c->nlock_names == c->cap_lock_names) {
            uint32_t cap = c->cap_lock_names ? 2 * c->cap_lock_names : 8;
            fjv_lock_name *nl = realloc(c->lock_names, cap * sizeof *nl);
            if (!nl) return; /* no name: the hover text says none */
            c->lock_names = nl;
            c->cap_lock_names = cap;
        }
        l = &c->lock_names[c->nlock_names++];
        *l = (fjv_lock_name){.source = ch->source, .id = ch->lock};
    }
    fja_name_copy(l->name, sizeof l->name, ch->name);
}

const char *fjv_lock_name_of(const fjv_collector *c, uint32_t source, uint32_t id)
{
    const fjv_lock_name *l = lock_find(c, source, id);
    return l ? l->name : NULL;
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
    /* Off the CPU while it would compute (a task, a search) is shown as
     * such; a wait (join, lock, park) stays the wait: its time off the CPU
     * is how it waits, and the wait says why. */
    bool active = l->state == LS_RUN || l->state == LS_SEARCH;
    int s = l->off && active ? l->off : l->state;
    range_fit(p, ts);
    for (uint64_t t = from; t < ts;) {
        uint64_t i = (t - p->t0) / p->res;
        uint64_t end = p->t0 + (i + 1) * p->res;
        uint64_t len = (end < ts ? end : ts) - t;
        fjv_bucket *b = &l->b[i];
        b->ns[s] += len;
        if (s == LS_RUN) bucket_pick(&b->run_tree, &b->run_tree_ns, l->tree, len);
        if (s == LS_LOCK) bucket_pick(&b->lock, &b->lock_ns, l->lock, len);
        t += len;
    }
}

static void lane_qdepth(fjv_pool *p, fjv_lane *l, uint64_t depth, uint64_t ts)
{
    range_fit(p, ts);
    fjv_bucket *b = &l->b[(ts - p->t0) / p->res];
    if (depth > b->qmax) b->qmax = (uint32_t)depth;
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
        (fjv_steal){.ts = ch->ts, .pool = pool, .thief = ch->worker, .victim = ch->other};
}

static const fjv_lstate lane_states[FJA_WS_COUNT] = {
    [FJA_WS_OFF] = (fjv_lstate)-1, [FJA_WS_RUN] = LS_RUN,   [FJA_WS_JOIN] = LS_JOIN,
    [FJA_WS_SEARCH] = LS_SEARCH,   [FJA_WS_PARK] = LS_PARK, [FJA_WS_LOCK] = LS_LOCK,
};

/* The worker's event is applied: book the old state, take the new one. */
static void on_settled(fjv_pool *p, fjv_lane *l, const fja_pool *mp, const fja_change *ch)
{
    lane_advance(p, l, ch->ts);
    l->state = lane_states[ch->to];
    l->tree = ch->task == FJA_TASK_NONE ? FJA_TASK_NONE : fja_model_task_facts(mp, ch->task).tree;
    l->lock = l->lock_told;
}

static void on_task_begin(fjv_collector *c, const fja_pool *mp, const fja_change *ch)
{
    fja_task_facts t = fja_model_task_facts(mp, ch->task);
    bool forked = t.forked && ch->since && ch->other >= 0;
    if (forked && ch->stolen) delay_add(c, ch->pool_index, t.id, ch->ts - ch->since);
}

static void on_worker(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_pool *mp,
                      const fja_change *ch)
{
    switch (ch->kind) {
    case FJA_CHANGE_SETTLED:
        on_settled(p, l, mp, ch);
        break;
    case FJA_CHANGE_QUEUE:
        lane_qdepth(p, l, (uint64_t)ch->depth, ch->ts);
        break;
    case FJA_CHANGE_TASK_BEGIN:
        on_task_begin(c, mp, ch);
        break;
    case FJA_CHANGE_STEAL:
        steal_sample(c, ch->pool_index, ch);
        break;
    case FJA_CHANGE_LOCK_BEGIN:
        if (ch->task != FJA_TASK_NONE) l->lock_told = ch->lock; /* a wait began */
        break;
    case FJA_CHANGE_OFFCPU_OUT: /* the on-CPU replay's: its thread left the CPU */
        lane_advance(p, l, ch->ts);
        l->off = ch->offcpu == FJA_OFFCPU_BLOCKED ? LS_BLOCKED : LS_PREEMPTED;
        break;
    case FJA_CHANGE_OFFCPU_IN:
        lane_advance(p, l, ch->ts);
        l->off = 0;
        break;
    default:
        break;
    }
}

/* The client lane: some request submitted and waiting for its result. */
static void on_client(fjv_pool *p, fjv_lane *l, const fja_change *ch)
{
    lane_advance(p, l, ch->ts);
    if (ch->kind == FJA_CHANGE_RESULT && p->outstanding)
        p->outstanding--;
    else if (ch->kind == FJA_CHANGE_TASK_NEW)
        p->outstanding++;
    l->state = p->outstanding ? LS_JOIN : -1;
}

/* End of the trace: every lane is booked up to the pool's end. */
static void on_pool_end(fjv_pool *p, uint64_t end)
{
    if (end > p->last_ts) p->last_ts = end;
    for (uint32_t li = 0; li < p->nlanes; li++) {
        fjv_lane *l = &p->lanes[li];
        if (!l->b) continue;
        lane_advance(p, l, p->last_ts);
    }
}

bool fjv_change_is_client(const fja_pool *mp, const fja_change *ch)
{
    return ch->kind == FJA_CHANGE_RESULT ||
           (ch->kind == FJA_CHANGE_TASK_NEW && fja_model_task_facts(mp, ch->task).submitted);
}

static void collect_change(void *ctx, fja_model *m, const fja_change *ch)
{
    fjv_collector *c = ctx;
    /* the names of the locks and pools (the timeline's), kept apart: a
     * pool's time axis starts at its first other change */
    if (ch->kind == FJA_CHANGE_LOCK_NAME) {
        lock_named(c, ch);
        return;
    }
    if (ch->kind == FJA_CHANGE_POOL_FACT && ch->fact == FJA_FACT_BEGIN)
        pool_named(c, ch->pool_index, ch);
    /* anomalies, the pools' other facts and first and last events: the
     * model keeps them */
    if (ch->pool_index == FJA_NO_POOL || ch->kind == FJA_CHANGE_ANOMALY ||
        ch->kind == FJA_CHANGE_POOL_FACT || ch->kind == FJA_CHANGE_POOL_SPAN)
        return;
    const fja_pool *mp = &m->pools[ch->pool_index];
    c->started = true;
    fjv_pool *p = pool_get(c, mp, ch->pool_index, ch->ts);
    if (!p || ch->ts < p->t0) return; /* out of order before the pool's first event */
    if (ch->ts > p->last_ts) p->last_ts = ch->ts;
    if (ch->kind == FJA_CHANGE_POOL_END) {
        on_pool_end(p, ch->ts);
        return;
    }
    if (ch->kind == FJA_CHANGE_DEPENDENCE) {
        if (ch->counted) dep_add(c, ch->pool_index, ch->task, (uint32_t)ch->parent_id);
        return;
    }
    bool client = fjv_change_is_client(mp, ch);
    if (!client && ch->worker == FJA_NO_WORKER) return;
    fjv_lane *l = lane_get(p, client ? -1 : ch->worker);
    if (!l) return;
    if (client)
        on_client(p, l, ch);
    else
        on_worker(c, p, l, mp, ch);
}

fja_listener fjv_collector_listener(fjv_collector *c)
{
    return (fja_listener){.ctx = c, .change = collect_change};
}

void fjv_collector_offcpu_shown(fjv_collector *c)
{
    c->offcpu_shown = true;
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
    return c;
}

int fjv_collect_finish(fjv_collector *c)
{
    if (!c) return 0;
    if (c->ndelays) qsort(c->delays, c->ndelays, sizeof *c->delays, delay_cmp);
    if (c->ndeps) qsort(c->deps, c->ndeps, sizeof *c->deps, dep_cmp);
    c->delays_sorted = true;
    return 0;
}

void fjv_collector_free(fjv_collector *c)
{
    if (!c) return;
    for (uint32_t pi = 0; pi < c->npools; pi++) {
        for (uint32_t li = 0; li < c->pools[pi].nlanes; li++)
            free(c->pools[pi].lanes[li].b);
        free(c->pools[pi].lanes);
    }
    free(c->pools);
    free(c->delays);
    free(c->deps);
    free(c->steals);
    free(c->lock_names);
    free(c);
}
