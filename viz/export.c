/* The exporter: the traces streamed while the trace is replayed, a
 * listener of the tracker's changes per format asked for (--chrome-trace:
 * chrome.c, --perfetto: perfetto.c), next to the model and the pictures'
 * collector (collect.c). Each lane's slices (task bodies, join and lock
 * waits, parks) nest as the changes open and close them, within --window;
 * the format writes them as they come (fjv_format). Memory is constant in
 * the trace length. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "perfetto.h"
#include "viz_int.h"

struct fjv_exporter {
    const fjv_options *o; /* the window, site names */
    fjv_xpool *pools;     /* index = the model's pool index */
    uint32_t npools;
    uint64_t t0; /* the trace's first event: origin of the Chrome trace and --window */
    bool started;
    const fjv_format *fmt;
    void *f; /* the format's, while its file is written */
};

/* The exporter's pool for the model's pool `index`, from ts on. */
static fjv_xpool *pool_get(fjv_exporter *c, const fja_pool *mp, uint32_t index, uint64_t ts)
{
    if (index >= c->npools) {
        fjv_xpool *np = realloc(c->pools, (index + 1) * sizeof *np);
        if (!np) return NULL;
        memset(np + c->npools, 0, (index + 1 - c->npools) * sizeof *np);
        c->pools = np;
        c->npools = index + 1;
    }
    fjv_xpool *p = &c->pools[index];
    if (!p->started)
        *p = (fjv_xpool){.source = mp->source, .id = mp->id, .t0 = ts, .started = true};
    return p;
}

static fjv_xlane *lane_get(fjv_xpool *p, int32_t worker)
{
    if (worker > 32767) return NULL;
    uint32_t i = worker < 0 ? 0 : (uint32_t)worker + 1;
    if (i >= p->nlanes) {
        fjv_xlane *nl = realloc(p->lanes, (i + 1) * sizeof *nl);
        if (!nl) return NULL;
        memset(nl + p->nlanes, 0, (i + 1 - p->nlanes) * sizeof *nl);
        p->lanes = nl;
        p->nlanes = i + 1;
    }
    return &p->lanes[i];
}

/* ------------------------------------------------------------ slices */

/* The export window (--window): outside it the traces get no new slices,
 * counters or flows. */
static bool in_window(const fjv_exporter *c, uint64_t ts)
{
    const fjv_options *o = c->o;
    return !o->window_set ||
           (ts - c->t0 >= o->window_from && ts - c->t0 <= o->window_to && ts >= c->t0);
}

/* Opens a slice named name on the lane (rec: its task's record in pool fp,
 * or FJA_TASK_NONE; s: the rest of it, its flow). A task's slice is named
 * by its creation site when the sites are resolved ("fib.c:23 (fib_split)
 * n=13"). Slices are nested per lane: those opened before the window
 * (below) and after it (above) are not written, nor are their ends. */
static void slice_begin(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker,
                        const char *name, const fja_pool *fp, uint32_t rec, uint64_t ts,
                        fjv_xslice *s)
{
    l->open++;
    if (!in_window(c, ts)) {
        if (ts - c->t0 < c->o->window_from || ts < c->t0)
            l->skip_below++;
        else
            l->skip_above++;
        return;
    }
    bool task = rec != FJA_TASK_NONE;
    fja_task_facts t = {0};
    if (task) t = fja_model_task_facts(fp, rec);
    char site[512], full[600];
    const char *where = task ? fjv_site_label(c->o, fp->pid, t.site, site, sizeof site) : NULL;
    const char *label = where ? where : task ? "task" : name;
    if (task && t.size_hint) {
        snprintf(full, sizeof full, "%s n=%u", label, t.size_hint);
        label = full;
    }
    s->name = label;
    s->task = task ? &t : NULL;
    c->fmt->begin(c->f, p, l, worker, ts, s);
}

/* A slice without a flow: lock the lock waited for, -1: none. */
static void slice_open(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker,
                       const char *name, const fja_pool *fp, uint32_t rec, uint64_t ts,
                       int64_t lock)
{
    fjv_xslice s = {.lock = lock, .from = -1};
    slice_begin(c, p, l, worker, name, fp, rec, ts, &s);
}

/* Closes the lane's innermost open slice. */
static void slice_end(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
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
    c->fmt->end(c->f, p, l, worker, ts);
}

static void counter(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const char *name, int32_t worker,
                    uint64_t v, uint64_t ts)
{
    if (in_window(c, ts)) c->fmt->counter(c->f, p, l, name, worker, v, ts);
}

/* ------------------------------------------------------------ changes */

/* The worker's event is applied: a worker that ended closes its slices. */
static void on_settled(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    if (ch->to != FJA_WS_OFF) return;
    l->in_lock = false;
    while (l->open)
        slice_end(c, p, l, ch->worker, ch->ts);
}

static void on_task_begin(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_pool *mp,
                          const fja_change *ch)
{
    fja_task_facts t = fja_model_task_facts(mp, ch->task);
    int32_t w = ch->worker;
    bool forked = t.forked && ch->since && ch->other >= 0;
    fjv_xslice s = {.lock = -1, .from = -1};
    if (forked && in_window(c, ch->since) && in_window(c, ch->ts)) {
        /* a flow from the fork, both ends in the window */
        s.from = ch->other;
        s.from_ts = ch->since;
        s.stolen = ch->stolen;
        /* the forker's lane, for an arrow from another worker's fork (the
         * Perfetto trace; its own forks are shown by the nesting); made
         * before l is taken again, as it may move the lanes */
        if (ch->stolen && ch->other != w) {
            s.from_lane = lane_get(p, ch->other);
            l = lane_get(p, w);
        }
    }
    if (l) slice_begin(c, p, l, w, "task", mp, ch->task, ch->ts, &s);
}

static void on_worker(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_pool *mp,
                      const fja_change *ch)
{
    int32_t w = ch->worker;
    switch (ch->kind) {
    case FJA_CHANGE_SETTLED:
        on_settled(c, p, l, ch);
        break;
    case FJA_CHANGE_QUEUE:
        counter(c, p, l, "queue", w, (uint64_t)ch->depth, ch->ts);
        break;
    case FJA_CHANGE_TASK_BEGIN:
        on_task_begin(c, p, l, mp, ch);
        break;
    case FJA_CHANGE_TASK_RESUME:
        slice_open(c, p, l, w, "task", mp, ch->task, ch->ts, -1);
        break;
    case FJA_CHANGE_JOIN_BEGIN:
        slice_open(c, p, l, w, "join wait", mp, FJA_TASK_NONE, ch->ts, -1);
        break;
    case FJA_CHANGE_LOCK_BEGIN:
        if (l->in_lock) break;
        l->in_lock = true;
        slice_open(c, p, l, w, "lock wait", mp, FJA_TASK_NONE, ch->ts, ch->lock);
        break;
    case FJA_CHANGE_LOCK_END:
        if (!l->in_lock) break; /* the wait began before the trace */
        l->in_lock = false;
        slice_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_OFFCPU_OUT:
        if (c->fmt->offcpu && in_window(c, ch->ts))
            c->fmt->offcpu(c->f, p, l, w, ch->ts,
                           ch->offcpu == FJA_OFFCPU_PREEMPTED ? "off-CPU: preempted"
                                                              : "off-CPU: blocked");
        break;
    case FJA_CHANGE_OFFCPU_IN:
        if (c->fmt->oncpu) c->fmt->oncpu(c->f, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_PARK:
        if (ch->counted) slice_open(c, p, l, w, "parked", mp, FJA_TASK_NONE, ch->ts, -1);
        break;
    case FJA_CHANGE_UNPARK:
        if (ch->counted) slice_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_TASK_END:
    case FJA_CHANGE_TASK_SUSPEND:
    case FJA_CHANGE_TASK_LOST:
    case FJA_CHANGE_JOIN_END:
        slice_end(c, p, l, w, ch->ts);
        break;
    default:
        break;
    }
}

/* The client lane: the requests submitted and waiting for their result. */
static void on_client(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    if (ch->kind == FJA_CHANGE_RESULT && p->outstanding)
        p->outstanding--;
    else if (ch->kind == FJA_CHANGE_TASK_NEW)
        p->outstanding++;
    counter(c, p, l, "requests outstanding", -1, p->outstanding, ch->ts);
}

/* End of the trace: slices still open when it stopped end with it. */
static void on_pool_end(fjv_exporter *c, fjv_xpool *p, uint64_t end)
{
    if (end > p->last_ts) p->last_ts = end;
    for (uint32_t li = 0; li < p->nlanes; li++) {
        fjv_xlane *l = &p->lanes[li];
        l->in_lock = false;
        while (l->open)
            slice_end(c, p, l, (int32_t)li - 1, p->last_ts);
        if (c->fmt->oncpu) c->fmt->oncpu(c->f, p, l, (int32_t)li - 1, p->last_ts);
    }
}

static void export_change(void *ctx, fja_model *m, const fja_change *ch)
{
    fjv_exporter *c = ctx;
    /* lock names, anomalies, the pools' facts and first and last events:
     * the model keeps them */
    if (ch->pool_index == FJA_NO_POOL || ch->kind == FJA_CHANGE_ANOMALY ||
        ch->kind == FJA_CHANGE_POOL_FACT || ch->kind == FJA_CHANGE_POOL_SPAN)
        return;
    const fja_pool *mp = &m->pools[ch->pool_index];
    if (!c->started) {
        /* the trace's first event, as --window counts from it */
        c->started = true;
        c->t0 = m->first_ts && m->first_ts < ch->ts ? m->first_ts : ch->ts;
    }
    fjv_xpool *p = pool_get(c, mp, ch->pool_index, ch->ts);
    if (!p || ch->ts < p->t0) return; /* out of order before the pool's first event */
    if (ch->ts > p->last_ts) p->last_ts = ch->ts;
    if (ch->kind == FJA_CHANGE_POOL_END) {
        on_pool_end(c, p, ch->ts);
        return;
    }
    if (ch->kind == FJA_CHANGE_DEPENDENCE) return;
    bool client = fjv_change_is_client(mp, ch);
    if (!client && ch->worker == FJA_NO_WORKER) return;
    fjv_xlane *l = lane_get(p, client ? -1 : ch->worker);
    if (!l) return;
    c->fmt->lane(c->f, p, l, client ? -1 : ch->worker);
    if (client)
        on_client(c, p, l, ch);
    else
        on_worker(c, p, l, mp, ch);
}

fja_listener fjv_exporter_listener(fjv_exporter *c)
{
    return (fja_listener){.ctx = c, .change = export_change};
}

/* ------------------------------------------------------------ Perfetto */

/* The Perfetto trace is perfetto.c's writer (perfetto_none.c's refusal
 * in a build without protobuf-c), as a format. */
static void *pf_open(const fjv_options *o, const uint64_t *t0, char *err, size_t errlen)
{
    (void)t0; /* absolute times */
    return fjv_pf_open(o->perfetto, err, errlen);
}

static void pf_lane(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    fjv_pf_lane(f, p, l, worker);
}

/* A steal gets an arrow from the fork, on the forker's lane, to the slice;
 * a worker's own forks none (the nesting shows them). */
static void pf_begin(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                     const fjv_xslice *s)
{
    uint64_t flow = s->from_lane ? fjv_pf_steal(f, p, s->from_lane, s->from, s->from_ts) : 0;
    fjv_pf_begin(f, p, l, worker, ts,
                 &(fjv_pf_slice){.name = s->name, .task = s->task, .flow = flow, .lock = s->lock});
}

static void pf_end(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    fjv_pf_end(f, p, l, worker, ts);
}

static void pf_counter(void *f, fjv_xpool *p, fjv_xlane *l, const char *name, int32_t worker,
                       uint64_t v, uint64_t ts)
{
    (void)name; /* the track says it */
    fjv_pf_counter(f, p, l, worker, ts, (int64_t)v);
}

static void pf_offcpu(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                      const char *why)
{
    fjv_pf_offcpu(f, p, l, worker, ts, why);
}

static void pf_oncpu(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    fjv_pf_oncpu(f, p, l, worker, ts);
}

static int pf_close(void *f)
{
    return fjv_pf_close(f, stderr);
}

static void pf_abort(void *f)
{
    fjv_pf_abort(f);
}

static const fjv_format perfetto_format = {
    .path = offsetof(fjv_options, perfetto),
    .open = pf_open,
    .lane = pf_lane,
    .begin = pf_begin,
    .end = pf_end,
    .counter = pf_counter,
    .offcpu = pf_offcpu,
    .oncpu = pf_oncpu,
    .close = pf_close,
    .abort = pf_abort,
};

/* ------------------------------------------------------------ the listener */

static const fjv_format *const formats[FJV_TRACE_FORMATS] = {&fjv_chrome_format, &perfetto_format};

fjv_exporter *fjv_exporter_new(const fjv_options *o, int format, char *err, size_t errlen)
{
    *err = '\0';
    const fjv_format *fmt = format >= 0 && format < FJV_TRACE_FORMATS ? formats[format] : NULL;
    const char *path = fmt ? *(const char *const *)((const char *)o + fmt->path) : NULL;
    if (!path) return NULL; /* not asked for */
    fjv_exporter *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *c = (fjv_exporter){.o = o, .fmt = fmt};
    if (!(c->f = fmt->open(o, &c->t0, err, errlen))) {
        free(c);
        return NULL;
    }
    return c;
}

int fjv_exporter_finish(fjv_exporter *c)
{
    if (!c || !c->f) return 0;
    int rc = c->fmt->close(c->f);
    c->f = NULL;
    return rc;
}

void fjv_exporter_free(fjv_exporter *c)
{
    if (!c) return;
    if (c->f) c->fmt->abort(c->f); /* the run failed before the end */
    for (uint32_t pi = 0; pi < c->npools; pi++)
        free(c->pools[pi].lanes);
    free(c->pools);
    free(c);
}
