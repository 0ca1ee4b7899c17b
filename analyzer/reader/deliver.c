#include "deliver.h"

#include <stdlib.h>

void deliver_init(deliver_ctx *d, const fja_reader_sink *sink, fja_reader_stats *stats)
{
    *d = (deliver_ctx){.sink = sink, .stats = stats};
}

void deliver_free(deliver_ctx *d)
{
    free(d->with_events);
    d->with_events = NULL;
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

/* The index of the trace a record belongs to, in order of first sight:
 * pool ids are only unique per process, and a trace is one process's (or
 * one user's) recording. */
static uint32_t source_of(deliver_ctx *d, uintptr_t trace)
{
    if (trace < SMALL_KEYS && d->small_source[trace]) return d->small_source[trace] - 1;
    for (uint32_t i = 0; i < d->ntraces; i++)
        if (d->traces[i] == trace) return i;
    if (d->ntraces == MAX_TRACES) return MAX_TRACES - 1;
    d->traces[d->ntraces] = trace;
    d->stats->traces = d->ntraces + 1;
    if (trace < SMALL_KEYS) d->small_source[trace] = d->ntraces + 1;
    return d->ntraces++;
}

static bool stream_had_events(const deliver_ctx *d, uintptr_t s)
{
    if (s < SMALL_KEYS) return d->small_had_events[s];
    for (uint32_t i = d->nwith_events; i-- > 0;)
        if (d->with_events[i] == s) return true;
    return false;
}

/* Remembers that s delivered an event; -1 when out of memory. */
static int stream_note_event(deliver_ctx *d, uintptr_t s)
{
    if (s < SMALL_KEYS) {
        d->small_had_events[s] = true;
        return 0;
    }
    if (d->nwith_events && d->with_events[d->nwith_events - 1] == s) return 0;
    if (stream_had_events(d, s)) return 0;
    if (d->nwith_events == d->cap_with_events) {
        uint32_t cap = d->cap_with_events ? 2 * d->cap_with_events : 16;
        uintptr_t *a = realloc(d->with_events, cap * sizeof *a);
        if (!a) return -1;
        d->with_events = a;
        d->cap_with_events = cap;
    }
    d->with_events[d->nwith_events++] = s;
    return 0;
}

/* The event of a compact record (convert.h). */
static fja_event event_of(const reader_rec *rec)
{
    if (rec->extra) return rec->extra->ev;
    fja_event ev = {.kind = (fja_kind)rec->kind,
                    .ts = (uint64_t)rec->head,
                    .task = rec->task,
                    .size_hint = rec->size_hint,
                    .site = rec->site,
                    .pool = rec->pool,
                    .worker = rec->worker};
    fja_event_set_arg(&ev, rec->arg);
    return ev;
}

static int deliver_event(deliver_ctx *d, const reader_rec *rec, uintptr_t stream, uintptr_t trace)
{
    if (stream_note_event(d, stream)) return -1;
    uint32_t src = source_of(d, trace);
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
    fja_event ev = event_of(rec);
    ev.source = src;
    if (d->sink->event(d->sink->ctx, &ev)) d->stopped = true;
    return 0;
}

static void deliver_discarded(deliver_ctx *d, const rec_extra *x, uintptr_t stream, uintptr_t trace)
{
    uint32_t src = source_of(d, trace);
    if (x->offcpu) {
        /* Off-CPU records lost: a state of the off-CPU figures, never a
         * loss of tasks nor a lost beginning (their channel is apart). */
        if (d->sink->offcpu_lost)
            d->sink->offcpu_lost(d->sink->ctx, x->count, x->begin_ts, x->ts, src, x->stream);
        return;
    }
    if (!x->count_known) d->stats->discarded_unknown++;
    if (x->ts && !stream_had_events(d, stream) && x->carries_fjtrace &&
        begun_late(d, x->cls, x->inst)) {
        /* The stream's beginning is gone: what the trace holds before ts
         * misses this stream's events, so it is left out. */
        if (x->ts > d->window[src]) d->window[src] = x->ts;
        if (x->ts > d->stats->window_start) d->stats->window_start = x->ts;
        d->stats->window_lost += x->count;
        return;
    }
    if (d->sink->discarded) d->sink->discarded(d->sink->ctx, x->count, x->ts, src);
}

int deliver(deliver_ctx *d, const reader_rec *rec, uintptr_t stream, uintptr_t trace)
{
    if (rec->type == REC_DISCARDED) {
        deliver_discarded(d, rec->extra, stream, trace);
        return 0;
    }
    if (d->stopped) return 0;
    if (rec->type == REC_INVALID) { /* read, not believed (validate.h) */
        d->stats->fjtrace_events++;
        fja_event ev = rec->extra->ev;
        ev.source = source_of(d, trace);
        if (d->sink->invalid) d->sink->invalid(d->sink->ctx, &ev, rec->extra->why);
        return 0;
    }
    if (deliver_event(d, rec, stream, trace)) {
        d->stopped = true;
        return -1;
    }
    return 0;
}
