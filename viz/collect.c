/* The collector: sees each event right after the model and keeps what the
 * pictures need beyond the model (per-lane time buckets, queue depths,
 * steal delays, a sample of steals), and streams the Chrome trace. Memory
 * is constant in the trace length except for one map entry per stolen task
 * and per task still queued. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

#define MAX_STEAL_SAMPLES 4096
#define STOLEN_BIT 0x80000000u

/* ------------------------------------------------------------ the map */

static uint64_t slot_hash(uint32_t pool, uint64_t task)
{
    uint64_t h = task ^ ((uint64_t)pool << 56) ^ ((uint64_t)pool << 20);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

fjv_slot *fjv_map_get(const fjv_map *m, uint32_t pool_index, uint64_t task)
{
    if (!m->s) return NULL;
    uint32_t pool = pool_index + 1;
    for (uint64_t i = slot_hash(pool, task) & m->mask;; i = (i + 1) & m->mask) {
        fjv_slot *s = &m->s[i];
        if (!s->pool) return NULL;
        if (s->pool == pool && s->task == task) return s;
    }
}

static int map_grow(fjv_map *m)
{
    uint64_t n = m->s ? (m->mask + 1) * 2 : 1024;
    fjv_slot *ns = calloc(n, sizeof *ns);
    if (!ns) return -1;
    for (uint64_t i = 0; m->s && i <= m->mask; i++) {
        fjv_slot *s = &m->s[i];
        if (!s->pool) continue;
        uint64_t j = slot_hash(s->pool, s->task) & (n - 1);
        while (ns[j].pool)
            j = (j + 1) & (n - 1);
        ns[j] = *s;
    }
    free(m->s);
    m->s = ns;
    m->mask = n - 1;
    return 0;
}

static fjv_slot *map_put(fjv_map *m, uint32_t pool_index, uint64_t task)
{
    if ((!m->s || (m->count + 1) * 4 > (m->mask + 1) * 3) && map_grow(m)) return NULL;
    uint32_t pool = pool_index + 1;
    uint64_t i = slot_hash(pool, task) & m->mask;
    while (m->s[i].pool && !(m->s[i].pool == pool && m->s[i].task == task))
        i = (i + 1) & m->mask;
    if (!m->s[i].pool) m->count++;
    m->s[i] = (fjv_slot){.task = task, .pool = pool};
    return &m->s[i];
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void map_del(fjv_map *m, fjv_slot *s)
{
    uint64_t i = (uint64_t)(s - m->s);
    for (uint64_t j = (i + 1) & m->mask; m->s[j].pool; j = (j + 1) & m->mask) {
        uint64_t home = slot_hash(m->s[j].pool, m->s[j].task) & m->mask;
        /* Move j into the hole i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        m->s[i] = m->s[j];
        i = j;
    }
    m->s[i].pool = 0;
    m->count--;
}

/* ------------------------------------------------------------ pools, lanes */

fjv_pool *fjv_pool_find(const fjv_collector *c, uint32_t source, uint32_t id)
{
    for (uint32_t i = 0; i < c->npools; i++)
        if (c->pools[i].source == source && c->pools[i].id == id) return &c->pools[i];
    return NULL;
}

bool fjv_steal_delay(const fjv_collector *c, const fjv_pool *p, uint64_t id, uint64_t *ns)
{
    fjv_slot *s = c ? fjv_map_get(&c->delays, (uint32_t)(p - c->pools), id) : NULL;
    if (s) *ns = s->a;
    return s != NULL;
}

static fjv_pool *pool_get(fjv_collector *c, const fja_model *m, uint32_t source, uint32_t id)
{
    fjv_pool *p = fjv_pool_find(c, source, id);
    if (p) return p;
    fjv_pool *np = realloc(c->pools, (c->npools + 1) * sizeof *np);
    if (!np) return NULL;
    c->pools = np;
    p = &np[c->npools++];
    *p = (fjv_pool){.source = source, .id = id, .model_index = UINT32_MAX};
    for (uint32_t i = 0; i < m->npools; i++)
        if (m->pools[i].source == source && m->pools[i].id == id) p->model_index = i;
    return p;
}

static fjv_lane *lane_get(fjv_pool *p, int32_t worker)
{
    if (worker > 32767) return NULL;
    uint32_t i = worker < 0 ? 0 : (uint32_t)worker + 1;
    if (i >= p->nlanes) {
        fjv_lane *nl = realloc(p->lanes, (i + 1) * sizeof *nl);
        if (!nl) return NULL;
        memset(nl + p->nlanes, 0, (i + 1 - p->nlanes) * sizeof *nl);
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
    if (b->qmax > r.qmax) r.qmax = b->qmax;
    *d = r;
}

/* Halves the resolution of every lane until ts fits. */
static void range_fit(fjv_collector *c, uint64_t ts)
{
    while (ts - c->t0 >= NBUCKETS * c->res) {
        for (uint32_t pi = 0; pi < c->npools; pi++)
            for (uint32_t li = 0; li < c->pools[pi].nlanes; li++) {
                fjv_bucket *b = c->pools[pi].lanes[li].b;
                if (!b) continue;
                for (uint32_t i = 0; i < NBUCKETS / 2; i++)
                    bucket_merge(&b[i], &b[2 * i], &b[2 * i + 1]);
                memset(b + NBUCKETS / 2, 0, NBUCKETS / 2 * sizeof *b);
            }
        c->res *= 2;
    }
}

static int lane_state(const fjv_pool *p, const fjv_lane *l, uint32_t *tree)
{
    *tree = FJA_TASK_NONE;
    if (l == &p->lanes[0]) return p->outstanding ? LS_JOIN : -1;
    if (!l->begun || l->ended) return -1;
    if (!l->depth) return LS_SEARCH;
    const fjv_frame *f = &l->stack[l->depth - 1];
    *tree = f->tree;
    return f->kind == FR_TASK ? LS_RUN : f->kind == FR_JOIN ? LS_JOIN : LS_PARK;
}

/* Books the lane's current state from its last change up to ts. */
static void lane_advance(fjv_collector *c, fjv_pool *p, fjv_lane *l, uint64_t ts)
{
    uint32_t tree;
    int s = lane_state(p, l, &tree);
    uint64_t from = l->state_ts > c->t0 ? l->state_ts : c->t0;
    l->state_ts = ts;
    if (s < 0 || ts <= from) return;
    for (uint64_t t = from; t < ts;) {
        uint64_t i = (t - c->t0) / c->res;
        uint64_t end = c->t0 + (i + 1) * c->res;
        uint64_t len = (end < ts ? end : ts) - t;
        fjv_bucket *b = &l->b[i];
        b->ns[s] += len;
        if (s == LS_RUN) {
            if (tree == b->run_tree) {
                b->run_tree_ns += len;
            } else if (len > b->run_tree_ns) {
                b->run_tree = tree;
                b->run_tree_ns = len;
            }
        }
        t += len;
    }
}

static void lane_qdepth(fjv_collector *c, fjv_lane *l, uint64_t ts)
{
    fjv_bucket *b = &l->b[(ts - c->t0) / c->res];
    if (l->qdepth > b->qmax) b->qmax = l->qdepth;
}

/* ------------------------------------------------------------ Chrome trace */

static double chrome_us(const fjv_collector *c, uint64_t ts)
{
    return (double)(ts - c->t0) / 1e3;
}

static void chrome_begin_event(fjv_collector *c)
{
    if (!c->chrome_first) fputs(",\n", c->chrome);
    c->chrome_first = false;
}

static uint32_t chrome_pid(const fjv_pool *p)
{
    return p->source * 1000 + p->id;
}

static void chrome_names(fjv_collector *c, fjv_pool *p, fjv_lane *l, int32_t worker)
{
    if (!c->chrome) return;
    if (!p->named) {
        p->named = true;
        chrome_begin_event(c);
        fprintf(c->chrome,
                "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
                "\"args\":{\"name\":\"fjtrace pool %u (trace %u)\"}}",
                chrome_pid(p), p->id, p->source);
    }
    if (l->named) return;
    l->named = true;
    char name[48];
    if (worker < 0)
        snprintf(name, sizeof name, "client threads");
    else
        snprintf(name, sizeof name, "worker %d", worker);
    chrome_begin_event(c);
    fprintf(c->chrome,
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%d,"
            "\"args\":{\"name\":\"%s\"}}",
            chrome_pid(p), worker + 1, name);
    chrome_begin_event(c);
    fprintf(c->chrome,
            "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            chrome_pid(p), worker + 1, worker + 1);
}

static const char *frame_name(const fjv_frame *f)
{
    return f->kind == FR_TASK ? "task" : f->kind == FR_JOIN ? "join wait" : "parked";
}

static void chrome_slice(fjv_collector *c, const fjv_pool *p, int32_t worker, char ph,
                         const fjv_frame *f, uint64_t ts, uint32_t size)
{
    if (!c->chrome) return;
    chrome_begin_event(c);
    fprintf(c->chrome, "{\"ph\":\"%c\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f", ph, chrome_pid(p),
            worker + 1, chrome_us(c, ts));
    if (ph == 'B') {
        if (f->kind == FR_TASK && size)
            fprintf(c->chrome, ",\"name\":\"task n=%u\"", size);
        else
            fprintf(c->chrome, ",\"name\":\"%s\"", frame_name(f));
        if (f->kind == FR_TASK)
            fprintf(c->chrome, ",\"cat\":\"task\",\"args\":{\"task\":\"0x%llx\",\"tree\":%d}",
                    (unsigned long long)f->task, f->tree == FJA_TASK_NONE ? -1 : (int)f->tree);
    }
    fputc('}', c->chrome);
}

static void chrome_counter(fjv_collector *c, const fjv_pool *p, const char *name, int32_t worker,
                           uint64_t v, uint64_t ts)
{
    if (!c->chrome) return;
    chrome_begin_event(c);
    if (worker >= 0)
        fprintf(c->chrome,
                "{\"ph\":\"C\",\"name\":\"%s w%d\",\"pid\":%u,\"ts\":%.3f,"
                "\"args\":{\"depth\":%llu}}",
                name, worker, chrome_pid(p), chrome_us(c, ts), (unsigned long long)v);
    else
        fprintf(c->chrome,
                "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%u,\"ts\":%.3f,"
                "\"args\":{\"count\":%llu}}",
                name, chrome_pid(p), chrome_us(c, ts), (unsigned long long)v);
}

/* A flow arrow fork -> exec: both ends are written together, at exec, so
 * every flow has two ends even when the trace stops in between. */
static void chrome_flow(fjv_collector *c, const fjv_pool *p, int32_t from, uint64_t from_ts,
                        int32_t to, uint64_t to_ts, bool stolen)
{
    if (!c->chrome) return;
    uint64_t id = ++c->flow_id;
    const char *name = stolen ? "steal" : "fork";
    chrome_begin_event(c);
    fprintf(c->chrome,
            "{\"ph\":\"s\",\"id\":%llu,\"name\":\"%s\",\"cat\":\"flow\",\"pid\":%u,"
            "\"tid\":%d,\"ts\":%.3f}",
            (unsigned long long)id, name, chrome_pid(p), from + 1, chrome_us(c, from_ts));
    chrome_begin_event(c);
    fprintf(c->chrome,
            "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"name\":\"%s\",\"cat\":\"flow\","
            "\"pid\":%u,\"tid\":%d,\"ts\":%.3f}",
            (unsigned long long)id, name, chrome_pid(p), to + 1, chrome_us(c, to_ts));
}

/* ------------------------------------------------------------ frames */

static int frame_push(fjv_lane *l, fjv_frame f)
{
    if (l->depth == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        fjv_frame *s = realloc(l->stack, cap * sizeof *s);
        if (!s) return -1;
        l->stack = s;
        l->cap = cap;
    }
    l->stack[l->depth++] = f;
    return 0;
}

/* Pops frames down to and including the top-most one matching (kind,
 * task), closing their slices. Nothing when there is none. */
static void frame_pop(fjv_collector *c, fjv_pool *p, fjv_lane *l, int32_t w, fjv_frame_kind k,
                      uint64_t task, uint64_t ts)
{
    uint32_t i = l->depth;
    while (i > 0 && !(l->stack[i - 1].kind == k && (k != FR_TASK || l->stack[i - 1].task == task)))
        i--;
    if (!i) return;
    while (l->depth >= i) {
        l->depth--;
        chrome_slice(c, p, w, 'E', &l->stack[l->depth], ts, 0);
    }
}

/* ------------------------------------------------------------ events */

static const fja_task *model_task(const fja_model *m, const fjv_pool *p, uint64_t id)
{
    if (p->model_index >= m->npools) return NULL;
    const fja_pool *mp = &m->pools[p->model_index];
    uint32_t n = fja_taskmap_find(&mp->tasks, id);
    return n == FJA_TASK_NONE ? NULL : fja_taskmap_get(&mp->tasks, n);
}

static void steal_sample(fjv_collector *c, uint32_t pool, const fja_event *ev)
{
    if (c->steal_seen++ % c->steal_stride) return;
    if (c->nsteals == MAX_STEAL_SAMPLES) {
        /* Keep every other sample and sample half as often from now on. */
        for (uint32_t i = 0; i < MAX_STEAL_SAMPLES / 2; i++)
            c->steals[i] = c->steals[2 * i];
        c->nsteals = MAX_STEAL_SAMPLES / 2;
        c->steal_stride *= 2;
    }
    c->steals[c->nsteals++] = (fjv_steal){
        .ts = ev->ts, .pool = pool, .thief = ev->worker, .victim = (int32_t)ev->arg.victim};
}

static void on_fork(fjv_collector *c, fjv_pool *p, fjv_lane *l, const fja_event *ev)
{
    uint32_t pi = (uint32_t)(p - c->pools);
    fjv_slot *s = map_put(&c->queued, pi, ev->task);
    if (s) {
        s->a = ev->ts;
        s->b = (uint32_t)ev->worker + 1;
    }
    l->qdepth++;
    lane_qdepth(c, l, ev->ts);
    chrome_counter(c, p, "queue", ev->worker, l->qdepth, ev->ts);
}

static void queue_drop(fjv_collector *c, fjv_pool *p, int32_t owner, uint64_t ts)
{
    fjv_lane *o = owner >= 0 && (uint32_t)owner + 1 < p->nlanes ? &p->lanes[owner + 1] : NULL;
    if (!o || !o->qdepth) return;
    o->qdepth--;
    lane_qdepth(c, o, ts);
    chrome_counter(c, p, "queue", owner, o->qdepth, ts);
}

static void on_steal(fjv_collector *c, fjv_pool *p, const fja_event *ev)
{
    uint32_t pi = (uint32_t)(p - c->pools);
    fjv_slot *s = fjv_map_get(&c->queued, pi, ev->task);
    if (s && !(s->b & STOLEN_BIT)) {
        queue_drop(c, p, (int32_t)s->b - 1, ev->ts);
        s->b |= STOLEN_BIT;
    }
    steal_sample(c, pi, ev);
}

static void on_exec(fjv_collector *c, const fja_model *m, fjv_pool *p, fjv_lane *l,
                    const fja_event *ev)
{
    uint32_t pi = (uint32_t)(p - c->pools);
    const fja_task *t = model_task(m, p, ev->task);
    fjv_frame f = {.task = ev->task, .tree = t ? t->tree : FJA_TASK_NONE, .kind = FR_TASK};
    if (frame_push(l, f)) return;
    chrome_slice(c, p, ev->worker, 'B', &f, ev->ts, t ? t->size_hint : 0);
    fjv_slot *s = fjv_map_get(&c->queued, pi, ev->task);
    if (!s) return;
    bool stolen = s->b & STOLEN_BIT;
    int32_t forker = (int32_t)(s->b & ~STOLEN_BIT) - 1;
    uint64_t fork_ts = s->a;
    map_del(&c->queued, s);
    if (!stolen) queue_drop(c, p, forker, ev->ts);
    chrome_flow(c, p, forker, fork_ts, ev->worker, ev->ts, stolen);
    if (stolen && (s = map_put(&c->delays, pi, ev->task))) {
        s->a = ev->ts - fork_ts;
        s->b = (uint32_t)ev->worker;
    }
}

static void on_worker(fjv_collector *c, const fja_model *m, fjv_pool *p, fjv_lane *l,
                      const fja_event *ev)
{
    int32_t w = ev->worker;
    switch (ev->kind) {
    case FJA_EV_WORKER_END:
        frame_pop(c, p, l, w, l->depth ? l->stack[0].kind : FR_TASK,
                  l->depth ? l->stack[0].task : 0, ev->ts);
        l->depth = 0;
        l->ended = true;
        break;
    case FJA_EV_FORK:
        on_fork(c, p, l, ev);
        break;
    case FJA_EV_STEAL:
        on_steal(c, p, ev);
        break;
    case FJA_EV_EXEC:
        on_exec(c, m, p, l, ev);
        break;
    case FJA_EV_EXECUTED:
        frame_pop(c, p, l, w, FR_TASK, ev->task, ev->ts);
        break;
    case FJA_EV_JOIN:
    case FJA_EV_PARK: {
        fjv_frame f = {.kind = ev->kind == FJA_EV_JOIN ? FR_JOIN : FR_PARK,
                       .tree = l->depth ? l->stack[l->depth - 1].tree : FJA_TASK_NONE};
        if (!frame_push(l, f)) chrome_slice(c, p, w, 'B', &f, ev->ts, 0);
        break;
    }
    case FJA_EV_JOINED:
        if (l->depth && l->stack[l->depth - 1].kind == FR_JOIN)
            frame_pop(c, p, l, w, FR_JOIN, 0, ev->ts);
        break;
    case FJA_EV_UNPARK:
        if (l->depth && l->stack[l->depth - 1].kind == FR_PARK)
            frame_pop(c, p, l, w, FR_PARK, 0, ev->ts);
        break;
    default:
        break;
    }
}

static void on_client(fjv_collector *c, fjv_pool *p, const fja_event *ev)
{
    if (ev->kind == FJA_EV_SUBMIT)
        p->outstanding++;
    else if (ev->kind == FJA_EV_RESULT && p->outstanding)
        p->outstanding--;
    else
        return;
    chrome_counter(c, p, "requests outstanding", -1, p->outstanding, ev->ts);
}

void fjv_collect_event(fjv_collector *c, const fja_model *m, const fja_event *ev)
{
    if (!c || ev->kind >= FJA_EV_UNKNOWN) return;
    if (!c->started) {
        c->started = true;
        c->t0 = ev->ts;
    }
    fja_event shifted = *ev;
    if (ev->source < FJV_MAX_SOURCES) {
        if (!c->src_seen[ev->source]) {
            c->src_seen[ev->source] = true;
            c->src_t0[ev->source] = ev->ts;
        }
        if (ev->ts < c->src_t0[ev->source]) return; /* before its first event */
        shifted.ts = c->t0 + (ev->ts - c->src_t0[ev->source]);
    }
    ev = &shifted;
    if (ev->ts < c->t0) return; /* out of order before the first event */
    range_fit(c, ev->ts);
    if (ev->ts > c->last_ts) c->last_ts = ev->ts;
    fjv_pool *p = pool_get(c, m, ev->source, ev->pool);
    fjv_lane *l = p ? lane_get(p, ev->worker) : NULL;
    fjv_lane *client = p ? lane_get(p, -1) : NULL;
    if (!l || !client) return;
    if (!p->first_ts) p->first_ts = ev->ts;
    if (ev->ts > p->last_ts) p->last_ts = ev->ts;
    chrome_names(c, p, l, ev->worker);
    lane_advance(c, p, l, ev->ts);
    if (ev->kind == FJA_EV_SUBMIT || ev->kind == FJA_EV_RESULT) {
        lane_advance(c, p, client, ev->ts);
        on_client(c, p, ev);
        return;
    }
    if (ev->worker < 0) return;
    if (!l->begun) {
        l->begun = true;
        l->state_ts = ev->ts;
    }
    on_worker(c, m, p, l, ev);
}

void fjv_collect_discarded(fjv_collector *c, uint64_t count, uint64_t ts)
{
    (void)ts;
    if (c) c->discarded += count;
}

fjv_collector *fjv_collector_new(const fjv_options *o, char *err, size_t errlen)
{
    fjv_collector *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->res = 256; /* ns per bucket to start with: doubles as needed */
    c->steal_stride = 1;
    c->chrome_first = true;
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
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", c->chrome);
    }
    return c;
}

int fjv_collect_finish(fjv_collector *c, const fja_model *m)
{
    if (!c) return 0;
    uint64_t end = m->last_ts > c->last_ts ? m->last_ts : c->last_ts;
    if (c->started) range_fit(c, end);
    for (uint32_t pi = 0; pi < c->npools; pi++) {
        fjv_pool *p = &c->pools[pi];
        for (uint32_t li = 0; li < p->nlanes; li++) {
            fjv_lane *l = &p->lanes[li];
            if (!l->b) continue;
            lane_advance(c, p, l, end);
            /* Slices still open when the trace stopped end with it. */
            while (l->depth) {
                l->depth--;
                chrome_slice(c, p, (int32_t)li - 1, 'E', &l->stack[l->depth], end, 0);
            }
        }
    }
    if (c->started) c->last_ts = end;
    int rc = 0;
    if (c->chrome) {
        char err[4200];
        fputs("\n]}\n", c->chrome);
        c->chrome = NULL;
        if ((rc = fja_outfile_commit(&c->chrome_out, err, sizeof err)))
            fprintf(stderr, "fjtrace-analyze: %s\n", err);
    }
    return rc;
}

void fjv_collector_free(fjv_collector *c)
{
    if (!c) return;
    if (c->chrome) fja_outfile_abort(&c->chrome_out); /* the run failed before the end */
    for (uint32_t pi = 0; pi < c->npools; pi++) {
        for (uint32_t li = 0; li < c->pools[pi].nlanes; li++) {
            free(c->pools[pi].lanes[li].b);
            free(c->pools[pi].lanes[li].stack);
        }
        free(c->pools[pi].lanes);
    }
    free(c->pools);
    free(c->queued.s);
    free(c->delays.s);
    free(c->steals);
    free(c);
}
