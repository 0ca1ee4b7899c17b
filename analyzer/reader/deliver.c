#include "deliver.h"

#include <stdlib.h>

void deliver_init(deliver_ctx *d, const fja_reader_sink *sink, fja_reader_stats *stats)
{
    *d = (deliver_ctx){.sink = sink, .stats = stats};
}

static void map_free(deliver_map *m)
{
    free(m->keys);
    free(m->vals);
    *m = (deliver_map){0};
}

void deliver_free(deliver_ctx *d)
{
    map_free(&d->big_source);
    map_free(&d->big_had_events);
    free(d->window);
    d->window = NULL;
    free(d->late);
    d->late = NULL;
}

void deliver_late(void *ctx, uint64_t cls, uint64_t inst)
{
    deliver_ctx *d = ctx;
    if (d->nlate == d->cap_late) {
        size_t cap = d->cap_late ? 2 * d->cap_late : 16;
        uint64_t(*a)[2] = realloc(d->late, cap * sizeof *a);
        if (!a) {
            d->late_unknown = true;
            return;
        }
        d->late = a;
        d->cap_late = cap;
    }
    d->late[d->nlate][0] = cls;
    d->late[d->nlate++][1] = inst;
}

static bool begun_late(const deliver_ctx *d, uint64_t cls, uint64_t inst)
{
    if (d->late_unknown) return true;
    for (size_t i = 0; i < d->nlate; i++)
        if (d->late[i][0] == cls && d->late[i][1] == inst) return true;
    return false;
}

/* Fibonacci hashing: object addresses differ in their middle bits. */
static size_t map_slot(const deliver_map *m, uintptr_t key)
{
    return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15u) >> 32) & (m->cap - 1);
}

/* The value of key in m, 0 when absent. */
static uint32_t map_get(const deliver_map *m, uintptr_t key)
{
    if (!m->cap) return 0;
    for (size_t i = map_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (!m->vals[i]) return 0;
    }
}

/* Sets key (absent from m) to val (not 0); -1 when out of memory. */
static int map_put(deliver_map *m, uintptr_t key, uint32_t val)
{
    if (2 * (m->n + 1) > m->cap) { /* at most half full: short probes */
        deliver_map g = {.cap = m->cap ? 2 * m->cap : 64};
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        if (!g.keys || !g.vals) {
            map_free(&g);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i]) map_put(&g, m->keys[i], m->vals[i]); /* fits: no allocation */
        map_free(m);
        *m = g;
    }
    size_t i = map_slot(m, key);
    while (m->vals[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

/* Tells the sink the folder of the trace key numbered source. */
static void trace_told(const deliver_ctx *d, uint32_t source, uintptr_t trace)
{
    if (!d->sink->trace_seen) return;
    const char *folder = NULL;
    if (d->folders && trace >= 1 && trace <= d->nfolders) folder = d->folders[trace - 1];
    d->sink->trace_seen(d->sink->ctx, source, folder);
}

/* The index of the trace a record belongs to, in order of first sight:
 * pool ids are only unique per process, and a trace is one process's (or
 * one user's) recording. Any number of traces: each keeps its own index.
 * -1 when out of memory. */
static int64_t source_of(deliver_ctx *d, uintptr_t trace)
{
    uint32_t known = trace < SMALL_KEYS ? d->small_source[trace] : map_get(&d->big_source, trace);
    if (known) return known - 1;
    if (d->ntraces == UINT32_MAX - 1) return -1; /* fja_event.source is 32 bits */
    if (d->ntraces == d->cap_window) {
        uint32_t cap = d->cap_window ? 2 * d->cap_window : 16;
        uint64_t *w = realloc(d->window, cap * sizeof *w);
        if (!w) return -1;
        d->window = w;
        d->cap_window = cap;
    }
    if (trace < SMALL_KEYS)
        d->small_source[trace] = d->ntraces + 1;
    else if (map_put(&d->big_source, trace, d->ntraces + 1))
        return -1;
    d->window[d->ntraces] = 0;
    d->stats->traces = d->ntraces + 1;
    trace_told(d, d->ntraces, trace);
    return d->ntraces++;
}

static bool stream_had_events(const deliver_ctx *d, uintptr_t s)
{
    if (s < SMALL_KEYS) return d->small_had_events[s];
    return map_get(&d->big_had_events, s) != 0;
}

/* Remembers that s delivered an event; -1 when out of memory. */
static int stream_note_event(deliver_ctx *d, uintptr_t s)
{
    if (s < SMALL_KEYS) {
        d->small_had_events[s] = true;
        return 0;
    }
    if (stream_had_events(d, s)) return 0;
    return map_put(&d->big_had_events, s, 1);
}

/* The event of a compact record (convert.h), written in place: returned
 * by value, the 136-byte event was built and then copied once more for
 * each of millions of records. */
static void event_of(const reader_rec *rec, fja_event *ev)
{
    if (rec->extra) {
        *ev = rec->extra->ev;
        return;
    }
    *ev = (fja_event){.kind = (fja_kind)rec->kind,
                      .ts = (uint64_t)rec->head,
                      .task = rec->task,
                      .size_hint = rec->size_hint,
                      .site = rec->site,
                      .pool = rec->pool,
                      .worker = rec->worker,
                      .named = rec->named};
    fja_event_set_arg(ev, rec->arg);
}

static int deliver_event(deliver_ctx *d, const reader_rec *rec, uintptr_t stream, uintptr_t trace)
{
    int64_t src = source_of(d, trace);
    if (src < 0 || stream_note_event(d, stream)) return -1;
    if ((uint64_t)rec->head < d->window[src]) { /* before every stream has its events */
        d->stats->window_events++;
        return 0;
    }
    if (rec->type != REC_FJTRACE) {
        d->stats->other_events++;
        if (rec->type == REC_MAP) {
            d->stats->map_events++;
            if (d->sink->map && rec->extra->map_valid)
                d->sink->map(d->sink->map_ctx, &rec->extra->map);
        }
        return 0;
    }
    d->stats->fjtrace_events++;
    fja_event ev;
    event_of(rec, &ev);
    ev.source = (uint32_t)src;
    if (d->sink->event(d->sink->ctx, &ev)) d->stopped = true;
    return 0;
}

/* Returns -1 when out of memory. */
static int deliver_discarded(deliver_ctx *d, const rec_extra *x, uintptr_t stream, uintptr_t trace)
{
    int64_t src = source_of(d, trace);
    if (src < 0) return -1;
    if (x->offcpu) {
        /* Off-CPU records lost: a state of the off-CPU figures, never a
         * loss of tasks nor a lost beginning (their channel is apart). */
        if (d->sink->offcpu_lost)
            d->sink->offcpu_lost(d->sink->ctx, x->count, x->begin_ts, x->ts, (uint32_t)src,
                                 x->stream);
        return 0;
    }
    if (!x->count_known) d->stats->discarded_unknown++;
    if (x->ts && !stream_had_events(d, stream) && x->carries_fjtrace &&
        begun_late(d, x->cls, x->inst)) {
        /* The stream's beginning is gone: what the trace holds before ts
         * misses this stream's events, so it is left out. */
        if (x->ts > d->window[src]) d->window[src] = x->ts;
        if (x->ts > d->stats->window_start) d->stats->window_start = x->ts;
        d->stats->window_lost += x->count;
        return 0;
    }
    if (d->sink->discarded) d->sink->discarded(d->sink->ctx, x->count, x->ts, (uint32_t)src);
    return 0;
}

int deliver(deliver_ctx *d, const reader_rec *rec, uintptr_t stream, uintptr_t trace)
{
    if (rec->type == REC_DISCARDED) {
        if (!deliver_discarded(d, rec->extra, stream, trace)) return 0;
        d->stopped = true;
        return -1;
    }
    if (d->stopped) return 0;
    if (rec->type == REC_INVALID) { /* read, not believed (validate.h) */
        int64_t src = source_of(d, trace);
        if (src < 0) {
            d->stopped = true;
            return -1;
        }
        d->stats->fjtrace_events++;
        fja_event ev = rec->extra->ev;
        ev.source = (uint32_t)src;
        if (d->sink->invalid) d->sink->invalid(d->sink->ctx, &ev, rec->extra->why);
        return 0;
    }
    if (deliver_event(d, rec, stream, trace)) {
        d->stopped = true;
        return -1;
    }
    return 0;
}
