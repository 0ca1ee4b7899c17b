#include "reader.h"

#include "abortguard.h"
#include "find.h"
#include "packets.h"
#include "salvage.h"

#include <babeltrace2/babeltrace.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line for the user, cut to fit: a long path shortens the note, which
 * is all right (vsnprintf, as gcc cannot prove the paths short). */
static void note_printf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* Member indices of one event class, resolved once: looking fields up by
 * name for each of millions of events would dominate the decoding cost. */
typedef struct {
    const bt_event_class *cls;
    fja_kind kind;
    bool fjtrace;
    int64_t pool, worker, task, arg, size_hint, name, site, runtime, begin, end; /* -1: absent */
    /* a load-map event (lttng_ust_statedump / lttng_ust_dl) */
    bool map;
    fja_map_kind map_kind;
    bool map_pic; /* dlopen: always position-independent */
    int64_t baddr, memsz, path, is_pic, build_id;
} class_info;

#define CLASS_SLOTS 1024
#define MAX_TRACES 4096

typedef struct {
    const fja_reader_sink *sink;
    fja_reader_stats *stats;
    class_info classes[CLASS_SLOTS];
    const bt_trace *traces[MAX_TRACES];
    uint32_t ntraces;
    bool stopped;
    uint64_t next_progress;
    int64_t range_begin, range_end; /* trace time range, for the progress bar */
    uint64_t last_ts;
    bt_message_iterator *it;
    /* Streams that have delivered an event: a discarded-events notice on a
     * stream before its first event means its beginning was overwritten (a
     * snapshot of overwrite-mode buffers); the trace is then read from the
     * latest such beginning on, when every stream has its events. */
    const bt_stream **with_events;
    uint32_t nwith_events, cap_with_events;
    uint64_t window[MAX_TRACES]; /* per source: first time kept (0: all) */
    /* own merge: one iterator per stream port, a heap of ports by head */
    struct port_state *ports;
    uint32_t nports, nheap;
    uint32_t *heap;
    bool merge_started;
    /* What is being decoded, for a message if libbabeltrace2 aborts: the
     * port being read (-1: none yet) and its upstream port's name. */
    volatile int64_t reading;
    char **port_names;
    size_t *port_source; /* the trace folder (index) of each port */
    /* The graph being built: kept here, so that after an abort it stays
     * reachable (abortguard.h) and the leak checker has nothing to say. */
    bt_graph *graph;
    const bt_component_source **srcs;
} reader_ctx;

typedef struct port_state {
    bt_message_iterator *it;
    bt_message_array_const msgs;
    uint64_t count, pos;
    uint64_t packets; /* packet beginnings seen, for an abort message */
    int64_t head;     /* timestamp of msgs[pos]; INT64_MIN: deliver at once */
} port_state;

static int64_t member_index(const bt_field_class *payload, const char *name)
{
    uint64_t n = bt_field_class_structure_get_member_count(payload);
    for (uint64_t i = 0; i < n; i++) {
        const bt_field_class_structure_member *m =
            bt_field_class_structure_borrow_member_by_index_const(payload, i);
        if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0) return (int64_t)i;
    }
    return -1;
}

/* The load-map events the symbols stage uses (docs/events.md). */
static void map_class_resolve(class_info *ci, const char *name, const bt_field_class *payload)
{
    static const struct {
        const char *name;
        fja_map_kind kind;
        bool pic;
    } known[] = {
        {"lttng_ust_statedump:bin_info", FJA_MAP_OBJECT, false},
        {"lttng_ust_statedump:build_id", FJA_MAP_BUILD_ID, false},
        {"lttng_ust_dl:dlopen", FJA_MAP_OBJECT, true},
        {"lttng_ust_dl:dlmopen", FJA_MAP_OBJECT, true},
        {"lttng_ust_dl:build_id", FJA_MAP_BUILD_ID, false},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        if (strcmp(name, known[i].name) != 0) continue;
        if (!payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE) return;
        ci->map_kind = known[i].kind;
        ci->map_pic = known[i].pic;
        ci->baddr = member_index(payload, "baddr");
        ci->memsz = member_index(payload, "memsz");
        ci->path = member_index(payload, "path");
        ci->is_pic = member_index(payload, "is_pic");
        ci->build_id = member_index(payload, "build_id");
        ci->map =
            ci->baddr >= 0 && (known[i].kind == FJA_MAP_BUILD_ID ? ci->build_id >= 0
                                                                 : ci->memsz >= 0 && ci->path >= 0);
        return;
    }
}

static void class_resolve(class_info *ci, const bt_event_class *cls)
{
    const char *name = bt_event_class_get_name(cls);
    *ci = (class_info){.cls = cls, .kind = FJA_EV_UNKNOWN};
    if (name && strncmp(name, "lttng_ust_", 10) == 0)
        map_class_resolve(ci, name, bt_event_class_borrow_payload_field_class_const(cls));
    if (!name || strncmp(name, "fjtrace:", 8) != 0) return;
    ci->fjtrace = true;
    ci->kind = fja_event_kind_from_name(name + 8);
    const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(cls);
    ci->pool = ci->worker = ci->task = ci->arg = ci->size_hint = ci->name = ci->site = ci->runtime =
        ci->begin = ci->end = -1;
    if (!payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE) return;
    ci->pool = member_index(payload, "pool");
    ci->worker = member_index(payload, "worker");
    ci->task = member_index(payload, "task");
    ci->size_hint = member_index(payload, "size_hint");
    ci->name = member_index(payload, "name");
    ci->site = member_index(payload, "site");
    if (ci->name < 0) ci->name = member_index(payload, "model"); /* pool_runtime */
    ci->runtime = member_index(payload, "runtime");
    ci->begin = member_index(payload, "begin");
    ci->end = member_index(payload, "end");
    static const char *const args[] = {"parent", "victim", "target", "workers", "lock",
                                       "pred",   "kind",   "lost",   "error"};
    for (size_t i = 0; i < sizeof args / sizeof *args && ci->arg < 0; i++)
        ci->arg = member_index(payload, args[i]);
}

static class_info *class_get(reader_ctx *r, const bt_event_class *cls)
{
    size_t h = ((uintptr_t)cls >> 4) % CLASS_SLOTS;
    for (size_t i = 0; i < CLASS_SLOTS; i++, h = (h + 1) % CLASS_SLOTS) {
        class_info *ci = &r->classes[h];
        if (ci->cls == cls) return ci;
        if (!ci->cls) {
            class_resolve(ci, cls);
            return ci;
        }
    }
    return NULL; /* more classes than slots: treated as foreign */
}

/* Integer member idx of a structure, signed or not; 0 when absent. */
static uint64_t int_member(const bt_field *payload, int64_t idx, bool *ok)
{
    if (idx < 0) {
        *ok = false;
        return 0;
    }
    const bt_field *f =
        bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return (uint64_t)bt_field_integer_signed_get_value(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        return bt_field_integer_unsigned_get_value(f);
    *ok = false;
    return 0;
}

/* String member idx of a structure, NULL when it is not a string. */
static const char *string_member(const bt_field *payload, int64_t idx)
{
    const bt_field *f =
        bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
    if (bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING) return NULL;
    return bt_field_string_get_value(f);
}

/* The index of the trace a stream belongs to: pool ids are only unique per
 * process, and a trace is one process's (or one user's) recording. */
static uint32_t source_of(reader_ctx *r, const bt_stream *s)
{
    const bt_trace *t = bt_stream_borrow_trace_const(s);
    for (uint32_t i = 0; i < r->ntraces; i++)
        if (r->traces[i] == t) return i;
    if (r->ntraces == MAX_TRACES) return MAX_TRACES - 1;
    r->traces[r->ntraces] = t;
    r->stats->traces = r->ntraces + 1;
    return r->ntraces++;
}

static uint64_t msg_ns(const bt_clock_snapshot *cs)
{
    int64_t ns = 0;
    if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
                  BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
        ns = 0;
    return ns > 0 ? (uint64_t)ns : 0;
}

/* An event message's time; 0 when its stream has no clock. */
static int64_t event_ts(const bt_message *msg)
{
    const bt_event *e = bt_message_event_borrow_event_const(msg);
    const bt_stream_class *sc = bt_stream_borrow_class_const(bt_event_borrow_stream_const(e));
    if (!bt_stream_class_borrow_default_clock_class_const(sc)) return 0;
    return (int64_t)msg_ns(bt_message_event_borrow_default_clock_snapshot_const(msg));
}

/* A time in the payload (offcpu's begin, end: raw values of the clock the
 * events are timed with, CLOCK_MONOTONIC) as ns from the clock's origin,
 * like the event timestamps; 0 when it cannot be converted. */
static uint64_t clock_ns(const bt_event *e, uint64_t cycles)
{
    const bt_stream_class *sc = bt_stream_borrow_class_const(bt_event_borrow_stream_const(e));
    const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(sc);
    int64_t ns = 0;
    if (!cc || bt_clock_class_cycles_to_ns_from_origin(cc, cycles, &ns) !=
                   BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK)
        return 0;
    return ns > 0 ? (uint64_t)ns : 0;
}

/* vpid and procname from a structure (a payload or a context), if there. */
static void process_fields(const bt_field *st, fja_event *ev)
{
    if (!st || bt_field_get_class_type(st) != BT_FIELD_CLASS_TYPE_STRUCTURE) return;
    const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(st, "procname");
    if (f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING)
        ev->procname = bt_field_string_get_value(f);
    f = bt_field_structure_borrow_member_field_by_name_const(st, "vpid");
    if (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        ev->pid = bt_field_integer_signed_get_value(f);
}

/* The process a pool_begin came from: its own vpid and procname fields
 * (libfj since the lean format), else the vpid and procname contexts that
 * fjtrace-record used to add to every event (older traces). */
static void process_of(const bt_event *e, fja_event *ev)
{
    ev->pid = -1;
    process_fields(bt_event_borrow_payload_field_const(e), ev);
    if (!ev->procname && ev->pid < 0)
        process_fields(bt_event_borrow_common_context_field_const(e), ev);
}

static int64_t vpid_of(const bt_event *e)
{
    const bt_field *ctx = bt_event_borrow_common_context_field_const(e);
    if (!ctx || bt_field_get_class_type(ctx) != BT_FIELD_CLASS_TYPE_STRUCTURE) return -1;
    const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(ctx, "vpid");
    if (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return bt_field_integer_signed_get_value(f);
    return -1;
}

/* A build id: a sequence (or array) of unsigned bytes. Returns its length
 * copied to out, 0 when it is not one. */
static size_t bytes_member(const bt_field *payload, int64_t idx, uint8_t *out, size_t cap)
{
    const bt_field *f =
        bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
    if (!bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY)) return 0;
    uint64_t n = bt_field_array_get_length(f);
    if (n > cap) return 0;
    for (uint64_t i = 0; i < n; i++) {
        const bt_field *b = bt_field_array_borrow_element_field_by_index_const(f, i);
        if (!bt_field_class_type_is(bt_field_get_class_type(b),
                                    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
            return 0;
        out[i] = (uint8_t)bt_field_integer_unsigned_get_value(b);
    }
    return (size_t)n;
}

static void on_map_event(reader_ctx *r, const class_info *ci, const bt_event *e)
{
    r->stats->map_events++;
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    if (!r->sink->map || !payload) return;
    bool ok = true;
    uint8_t id[64];
    fja_map_event m = {.kind = ci->map_kind, .pid = vpid_of(e)};
    m.baddr = int_member(payload, ci->baddr, &ok);
    if (ci->map_kind == FJA_MAP_OBJECT) {
        m.memsz = int_member(payload, ci->memsz, &ok);
        m.path = string_member(payload, ci->path);
        m.is_pic = ci->map_pic || (ci->is_pic >= 0 && int_member(payload, ci->is_pic, &ok) != 0);
        if (!m.path) return;
    } else {
        m.build_id_len = bytes_member(payload, ci->build_id, id, sizeof id);
        m.build_id = id;
        if (!m.build_id_len) return;
    }
    if (ok) r->sink->map(r->sink->map_ctx, &m);
}

static bool stream_had_events(const reader_ctx *r, const bt_stream *s)
{
    for (uint32_t i = r->nwith_events; i-- > 0;)
        if (r->with_events[i] == s) return true;
    return false;
}

/* Remembers that s delivered an event; -1 when out of memory. */
static int stream_note_event(reader_ctx *r, const bt_stream *s)
{
    if (r->nwith_events && r->with_events[r->nwith_events - 1] == s) return 0;
    if (stream_had_events(r, s)) return 0;
    if (r->nwith_events == r->cap_with_events) {
        uint32_t cap = r->cap_with_events ? 2 * r->cap_with_events : 16;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
        const bt_stream **a = realloc(r->with_events, cap * sizeof *a);
        if (!a) return -1;
        r->with_events = a;
        r->cap_with_events = cap;
    }
    r->with_events[r->nwith_events++] = s;
    return 0;
}

static int on_event(reader_ctx *r, const bt_message *msg, uint64_t ts)
{
    const bt_event *e = bt_message_event_borrow_event_const(msg);
    const bt_stream *stream = bt_event_borrow_stream_const(e);
    if (stream_note_event(r, stream)) return 1;
    uint32_t src = source_of(r, stream);
    if (ts < r->window[src]) { /* before every stream has its events */
        r->stats->window_events++;
        return 0;
    }
    const bt_event_class *cls = bt_event_borrow_class_const(e);
    class_info *ci = class_get(r, cls);
    if (!ci || !ci->fjtrace) {
        r->stats->other_events++;
        if (ci && ci->map) on_map_event(r, ci, e);
        return 0;
    }
    r->stats->fjtrace_events++;
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    fja_event ev = {.kind = ci->kind, .ts = ts};
    r->last_ts = ts;
    if (payload) {
        bool ok = true;
        ev.pool = (uint32_t)int_member(payload, ci->pool, &ok);
        ev.worker = ci->worker >= 0 ? (int32_t)int_member(payload, ci->worker, &ok) : -1;
        ev.task = ci->task >= 0 ? int_member(payload, ci->task, &ok) : 0;
        fja_event_set_arg(&ev, ci->arg >= 0 ? int_member(payload, ci->arg, &ok) : 0);
        ev.size_hint = ci->size_hint >= 0 ? int_member(payload, ci->size_hint, &ok) : 0;
        ev.name = ci->name >= 0 ? string_member(payload, ci->name) : NULL;
        /* optional: traces recorded before sites existed have none */
        ev.site = ci->site >= 0 ? int_member(payload, ci->site, &ok) : 0;
        ev.runtime = ci->runtime >= 0 ? string_member(payload, ci->runtime) : NULL;
        if (ev.kind == FJA_EV_OFFCPU) {
            ev.begin = clock_ns(e, int_member(payload, ci->begin, &ok));
            ev.end = clock_ns(e, int_member(payload, ci->end, &ok));
        }
        if (!ok) ev.kind = FJA_EV_UNKNOWN; /* schema changed: do not guess */
    }
    if (ev.kind == FJA_EV_POOL_BEGIN) process_of(e, &ev);
    ev.source = src;
    return r->sink->event(r->sink->ctx, &ev);
}

/* Whether a stream class (an LTTng channel) holds fjtrace events: a loss
 * at the start of another channel's stream (the load maps) says nothing of
 * where the fjtrace events begin (and a damaged events_discarded field in
 * such a packet must not hide every fjtrace event). */
static bool carries_fjtrace(const bt_stream_class *sc)
{
    uint64_t n = bt_stream_class_get_event_class_count(sc);
    for (uint64_t i = 0; i < n; i++) {
        const char *name =
            bt_event_class_get_name(bt_stream_class_borrow_event_class_by_index_const(sc, i));
        if (name && strncmp(name, "fjtrace:", 8) == 0) return true;
    }
    return false;
}

static void on_discarded(reader_ctx *r, const bt_message *msg)
{
    uint64_t count = 0;
    if (bt_message_discarded_events_get_count(msg, &count) != BT_PROPERTY_AVAILABILITY_AVAILABLE) {
        count = 0;
        r->stats->discarded_unknown++;
    }
    const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
    const bt_stream_class *sc = bt_stream_borrow_class_const(s);
    uint64_t ts = 0;
    if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
        ts = msg_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
    uint32_t src = source_of(r, s);
    if (ts && !stream_had_events(r, s) && carries_fjtrace(sc)) {
        /* The stream's beginning is gone: what the trace holds before ts
         * misses this stream's events, so it is left out. */
        if (ts > r->window[src]) r->window[src] = ts;
        if (ts > r->stats->window_start) r->stats->window_start = ts;
        r->stats->window_lost += count;
        return;
    }
    r->sink->discarded(r->sink->ctx, count, ts, src);
}

static void progress(reader_ctx *r)
{
    uint64_t n = r->stats->fjtrace_events + r->stats->other_events;
    if (!r->sink->progress || n < r->next_progress) return;
    r->next_progress = n + 1000000;
    if (r->range_end <= r->range_begin) {
        fprintf(stderr, "\rfjtrace-analyze: %llu M events", (unsigned long long)(n / 1000000));
        return;
    }
    /* How far in trace time the merge has come: the streams advance together. */
    double f = ((double)r->last_ts - (double)r->range_begin) /
               ((double)r->range_end - (double)r->range_begin);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    char bar[41];
    int full = (int)(f * 40);
    for (int i = 0; i < 40; i++)
        bar[i] = i < full ? '#' : '.';
    bar[40] = '\0';
    fprintf(stderr, "\rfjtrace-analyze: [%s] %3.0f%% %llu M events", bar, 100 * f,
            (unsigned long long)(n / 1000000));
}

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it,
                                                                       void *data)
{
    ((reader_ctx *)data)->it = it;
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
                                                                       void *data)
{
    reader_ctx *r = data;
    bt_message_array_const msgs;
    uint64_t count = 0;
    switch (bt_message_iterator_next(it, &msgs, &count)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
        break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    default:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    for (uint64_t i = 0; i < count; i++) {
        const bt_message *m = msgs[i];
        bt_message_type t = bt_message_get_type(m);
        if (!r->stopped && t == BT_MESSAGE_TYPE_EVENT && on_event(r, m, (uint64_t)event_ts(m)))
            r->stopped = true;
        else if (t == BT_MESSAGE_TYPE_DISCARDED_EVENTS)
            on_discarded(r, m);
        bt_message_put_ref(m);
    }
    progress(r);
    return r->stopped ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END
                      : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ------------------------------------------------------------ own merge */

static bool head_less(const reader_ctx *r, uint32_t a, uint32_t b)
{
    int64_t x = r->ports[a].head, y = r->ports[b].head;
    return x < y || (x == y && a < b); /* ties: stream order, reproducibly */
}

static void heap_down(reader_ctx *r, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < r->nheap && head_less(r, r->heap[l], r->heap[m])) m = l;
        if (l + 1 < r->nheap && head_less(r, r->heap[l + 1], r->heap[m])) m = l + 1;
        if (m == i) return;
        uint32_t t = r->heap[i];
        r->heap[i] = r->heap[m];
        r->heap[m] = t;
        i = m;
    }
}

static void port_head(port_state *p)
{
    const bt_message *m = p->msgs[p->pos];
    /* Only events need ordering; the rest (stream/packet bounds, discarded
     * notices) go out as soon as they reach the front of their stream. */
    p->head = bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT ? event_ts(m) : INT64_MIN;
}

static void count_packets(port_state *p)
{
    for (uint64_t i = 0; i < p->count; i++)
        p->packets += bt_message_get_type(p->msgs[i]) == BT_MESSAGE_TYPE_PACKET_BEGINNING;
}

/* Next batch of port i: 1 with messages, 0 at its end, -1 on error. */
static int port_refill(reader_ctx *r, uint32_t i)
{
    port_state *p = &r->ports[i];
    r->reading = i;
    for (;;) {
        switch (bt_message_iterator_next(p->it, &p->msgs, &p->count)) {
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
            p->pos = 0;
            count_packets(p);
            port_head(p);
            return 1;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
            return 0;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
            continue; /* files never block */
        default:
            return -1;
        }
    }
}

static int merge_start(reader_ctx *r)
{
    r->merge_started = true;
    for (uint32_t i = 0; i < r->nports; i++) {
        int rc = port_refill(r, i);
        if (rc < 0) return -1;
        if (rc) r->heap[r->nheap++] = i;
    }
    for (uint32_t i = r->nheap / 2; i-- > 0;)
        heap_down(r, i);
    return 0;
}

static void dispatch(reader_ctx *r, const bt_message *m, int64_t ts)
{
    bt_message_type t = bt_message_get_type(m);
    if (t == BT_MESSAGE_TYPE_EVENT) {
        if (!r->stopped && on_event(r, m, ts > 0 ? (uint64_t)ts : 0)) r->stopped = true;
    } else if (t == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
        on_discarded(r, m);
    }
}

static bt_component_class_sink_consume_method_status merge_consume(bt_self_component_sink *self)
{
    reader_ctx *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    if (!r->merge_started && merge_start(r))
        return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
    for (int budget = 1 << 14; budget > 0 && r->nheap && !r->stopped; budget--) {
        port_state *p = &r->ports[r->heap[0]];
        const bt_message *m = p->msgs[p->pos++];
        dispatch(r, m, p->head);
        bt_message_put_ref(m);
        int rc = p->pos < p->count ? (port_head(p), 1) : port_refill(r, r->heap[0]);
        if (rc < 0) return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
        if (!rc) r->heap[0] = r->heap[--r->nheap];
        heap_down(r, 0);
    }
    progress(r);
    return r->nheap && !r->stopped ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
                                   : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

static bt_component_class_initialize_method_status
merge_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
           const bt_value *params, void *data)
{
    (void)config;
    (void)params;
    reader_ctx *r = data;
    bt_self_component_set_data(bt_self_component_sink_as_self_component(self), r);
    for (uint32_t i = 0; i < r->nports; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%u", i);
        if (bt_self_component_sink_add_input_port(self, name, NULL, NULL))
            return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
    }
    return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
merge_configured(bt_self_component_sink *self)
{
    reader_ctx *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    for (uint32_t i = 0; i < r->nports; i++)
        if (bt_message_iterator_create_from_sink_component(
                self, bt_self_component_sink_borrow_input_port_by_index(self, i), &r->ports[i].it))
            return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
    return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void merge_finalize(bt_self_component_sink *self)
{
    reader_ctx *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    for (uint32_t i = 0; i < r->nports; i++) {
        port_state *p = &r->ports[i];
        /* messages of a batch not consumed (stopped early) */
        for (uint64_t k = p->pos; p->it && k < p->count; k++)
            bt_message_put_ref(p->msgs[k]);
        p->count = p->pos = 0;
        bt_message_iterator_put_ref(p->it);
        p->it = NULL;
    }
}

static int64_t value_int(const bt_value *v)
{
    if (v && bt_value_is_signed_integer(v)) return bt_value_integer_signed_get(v);
    if (v && bt_value_is_unsigned_integer(v)) return (int64_t)bt_value_integer_unsigned_get(v);
    return 0;
}

/* Widens [range_begin, range_end] with the streams of one trace-infos result. */
static void range_add(reader_ctx *r, const bt_value *infos)
{
    uint64_t nt = bt_value_is_array(infos) ? bt_value_array_get_length(infos) : 0;
    for (uint64_t i = 0; i < nt; i++) {
        const bt_value *t = bt_value_array_borrow_element_by_index_const(infos, i);
        const bt_value *ss =
            bt_value_is_map(t) ? bt_value_map_borrow_entry_value_const(t, "stream-infos") : NULL;
        uint64_t ns = ss && bt_value_is_array(ss) ? bt_value_array_get_length(ss) : 0;
        for (uint64_t k = 0; k < ns; k++) {
            const bt_value *si = bt_value_array_borrow_element_by_index_const(ss, k);
            const bt_value *rg =
                bt_value_is_map(si) ? bt_value_map_borrow_entry_value_const(si, "range-ns") : NULL;
            if (!rg || !bt_value_is_map(rg)) continue;
            int64_t b = value_int(bt_value_map_borrow_entry_value_const(rg, "begin"));
            int64_t e = value_int(bt_value_map_borrow_entry_value_const(rg, "end"));
            if (!r->range_begin || b < r->range_begin) r->range_begin = b;
            if (e > r->range_end) r->range_end = e;
        }
    }
}

/* The traces' time range (the babeltrace.trace-infos query reads it from
 * the packet indexes), to show progress as a fraction. Best effort. */
static void range_query(reader_ctx *r, const bt_component_class_source *fs, char *const *dirs,
                        size_t ndirs)
{
    for (size_t i = 0; i < ndirs; i++) {
        bt_value *params = bt_value_map_create(), *inputs = NULL;
        bt_query_executor *q = NULL;
        const bt_value *res = NULL;
        if (params && !bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) &&
            !bt_value_array_append_string_element(inputs, dirs[i]) &&
            (q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs),
                                          "babeltrace.trace-infos", params)) &&
            bt_query_executor_query(q, &res) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
            range_add(r, res);
        bt_value_put_ref(res);
        bt_query_executor_put_ref(q);
        bt_value_put_ref(params);
        bt_current_thread_clear_error();
    }
}

/* babeltrace2's error causes, innermost first, as one line. */
static void take_error(char *err, size_t errlen, const char *what)
{
    size_t used = (size_t)snprintf(err, errlen, "%s", what);
    const bt_error *e = bt_current_thread_take_error();
    if (!e) return;
    uint64_t n = bt_error_get_cause_count(e);
    for (uint64_t i = 0; i < n && used < errlen; i++) {
        const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
        used += (size_t)snprintf(err + used, errlen - used, ": %s", bt_error_cause_get_message(c));
    }
    bt_error_release(e);
}

typedef struct {
    const bt_plugin *ctf, *utils;
    const bt_component_class_source *fs;
    const bt_component_class_filter *muxer;
} plugins;

static int plugins_load(plugins *p, char *err, size_t errlen)
{
    *p = (plugins){0};
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p->ctf) !=
            BT_PLUGIN_FIND_STATUS_OK ||
        bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p->utils) !=
            BT_PLUGIN_FIND_STATUS_OK) {
        take_error(err, errlen, "babeltrace2 plugins 'ctf' and 'utils' not found");
        return -1;
    }
    p->fs = bt_plugin_borrow_source_component_class_by_name_const(p->ctf, "fs");
    p->muxer = bt_plugin_borrow_filter_component_class_by_name_const(p->utils, "muxer");
    if (!p->fs || !p->muxer) {
        snprintf(err, errlen, "babeltrace2: source.ctf.fs or filter.utils.muxer missing");
        return -1;
    }
    return 0;
}

static void plugins_put(plugins *p)
{
    bt_plugin_put_ref(p->ctf);
    bt_plugin_put_ref(p->utils);
}

/* One source.ctf.fs per trace directory. */
static const bt_component_source *add_source(bt_graph *g, const plugins *pl, const char *dir,
                                             size_t idx, char *err, size_t errlen)
{
    bt_value *params = bt_value_map_create();
    bt_value *inputs = NULL;
    const bt_component_source *src = NULL;
    if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
        bt_value_array_append_string_element(inputs, dir)) {
        snprintf(err, errlen, "out of memory");
    } else {
        char name[32];
        snprintf(name, sizeof name, "src%zu", idx);
        if (bt_graph_add_source_component(g, pl->fs, name, params, BT_LOGGING_LEVEL_NONE, &src)) {
            /* source.ctf.fs indexes every packet when it starts: a stream
             * file cut mid-packet (a recording cut short) fails here. */
            char what[4200];
            snprintf(what, sizeof what,
                     "%s: cannot open this CTF trace: a stream file or the metadata is "
                     "truncated or damaged (a recording cut short?); babeltrace2 says",
                     dir);
            take_error(err, errlen, what);
            src = NULL;
        }
    }
    bt_value_put_ref(params);
    return src;
}

static int add_sources(bt_graph *g, const plugins *pl, char *const *dirs, size_t ndirs,
                       const bt_component_source **srcs, char *err, size_t errlen)
{
    for (size_t i = 0; i < ndirs; i++)
        if (!(srcs[i] = add_source(g, pl, dirs[i], i, err, errlen))) return -1;
    return 0;
}

/* source.ctf.fs -> filter.utils.muxer -> simple sink */
static int graph_build_muxer(bt_graph *g, const plugins *pl, const bt_component_source **srcs,
                             size_t ndirs, reader_ctx *r, char *err, size_t errlen)
{
    const bt_component_filter *mux;
    const bt_component_sink *sink;
    if (bt_graph_add_filter_component(g, pl->muxer, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux)) {
        take_error(err, errlen, "cannot create the muxer");
        return -1;
    }
    for (size_t s = 0; s < ndirs; s++)
        for (uint64_t i = 0; i < bt_component_source_get_output_port_count(srcs[s]); i++) {
            /* the muxer always offers one free input port: the last one */
            uint64_t in = bt_component_filter_get_input_port_count(mux) - 1;
            if (bt_graph_connect_ports(
                    g, bt_component_source_borrow_output_port_by_index_const(srcs[s], i),
                    bt_component_filter_borrow_input_port_by_index_const(mux, in), NULL)) {
                take_error(err, errlen, "cannot connect the muxer");
                return -1;
            }
        }
    if (bt_graph_add_simple_sink_component(g, "fjtrace-analyze", sink_init, sink_consume, NULL, r,
                                           &sink) ||
        bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
                               bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
        take_error(err, errlen, "cannot connect the sink");
        return -1;
    }
    return 0;
}

static bt_component_class_sink *merge_class(void)
{
    bt_component_class_sink *c = bt_component_class_sink_create("fjtrace-merge", merge_consume);
    if (c && (bt_component_class_sink_set_initialize_method(c, merge_init) ||
              bt_component_class_sink_set_graph_is_configured_method(c, merge_configured) ||
              bt_component_class_sink_set_finalize_method(c, merge_finalize))) {
        bt_component_class_sink_put_ref(c);
        c = NULL;
    }
    return c;
}

/* every stream port of every source -> one input port of our merging sink */
static int graph_build_merge(bt_graph *g, const bt_component_source **srcs, size_t ndirs,
                             reader_ctx *r, char *err, size_t errlen)
{
    for (size_t s = 0; s < ndirs; s++)
        r->nports += (uint32_t)bt_component_source_get_output_port_count(srcs[s]);
    r->ports = calloc(r->nports ? r->nports : 1, sizeof *r->ports);
    r->heap = calloc(r->nports ? r->nports : 1, sizeof *r->heap);
    r->port_names = calloc(r->nports ? r->nports : 1, sizeof *r->port_names);
    r->port_source = calloc(r->nports ? r->nports : 1, sizeof *r->port_source);
    bt_component_class_sink *cls = merge_class();
    const bt_component_sink *sink = NULL;
    int rc = -1;
    if (!r->ports || !r->heap || !r->port_names || !r->port_source || !cls) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (bt_graph_add_sink_component_with_initialize_method_data(g, cls, "fjtrace-analyze", NULL, r,
                                                                BT_LOGGING_LEVEL_NONE, &sink)) {
        take_error(err, errlen, "cannot create the sink");
        goto out;
    }
    uint64_t in = 0;
    for (size_t s = 0; s < ndirs; s++)
        for (uint64_t i = 0; i < bt_component_source_get_output_port_count(srcs[s]); i++, in++) {
            const bt_port_output *out =
                bt_component_source_borrow_output_port_by_index_const(srcs[s], i);
            r->port_names[in] = strdup(bt_port_get_name(bt_port_output_as_port_const(out)));
            r->port_source[in] = s;
            if (bt_graph_connect_ports(
                    g, out, bt_component_sink_borrow_input_port_by_index_const(sink, in), NULL)) {
                take_error(err, errlen, "cannot connect the sink");
                goto out;
            }
        }
    rc = 0;
out:
    bt_component_class_sink_put_ref(cls);
    return rc;
}

static int graph_build(bt_graph *g, const plugins *pl, char *const *dirs, size_t ndirs,
                       reader_ctx *r, char *err, size_t errlen)
{
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
    const bt_component_source **srcs = r->srcs = calloc(ndirs ? ndirs : 1, sizeof *srcs);
    int rc = -1;
    if (!srcs)
        snprintf(err, errlen, "out of memory");
    else if (!add_sources(g, pl, dirs, ndirs, srcs, err, errlen))
        rc = r->sink->use_muxer ? graph_build_muxer(g, pl, srcs, ndirs, r, err, errlen)
                                : graph_build_merge(g, srcs, ndirs, r, err, errlen);
    free(srcs);
    r->srcs = NULL;
    return rc;
}

/* Whether source.ctf.fs can open dir on its own (it indexes the packets). */
static bool source_opens(const plugins *pl, const char *dir)
{
    char err[64];
    bt_graph *g = bt_graph_create(0);
    bool ok = g && add_source(g, pl, dir, 0, err, sizeof err);
    bt_current_thread_clear_error();
    bt_graph_put_ref(g);
    return ok;
}

/* A salvage copy of dir that opens, or -1. */
static int salvage_one(const plugins *pl, const char *dir, fja_salvage *s)
{
    if (salvage_make(dir, s, SALVAGE_HEADERS) == 1 && source_opens(pl, s->dir)) return 0;
    salvage_remove(s);
    return -1;
}

/* After the graph could not be built: replaces each trace that does not
 * open by its salvage copy. Returns 0 when some trace was salvaged and all
 * now open, -1 otherwise (the caller keeps its error). */
static int salvage_all(const plugins *pl, char **use, fja_salvage *salv, size_t ndirs)
{
    bool salvaged = false;
    for (size_t i = 0; i < ndirs; i++) {
        if (source_opens(pl, use[i])) continue;
        /* a salvage copy already (packets.h): nothing more to mend */
        if (*salv[i].dir || salvage_one(pl, use[i], &salv[i])) return -1;
        use[i] = salv[i].dir;
        salvaged = true;
    }
    return salvaged ? 0 : -1;
}

/* Counts what the traces' stream files lack (salvage_missing), by their
 * index: not for a trace whose index is wrong (bad_index[i]). */
static void cut_check(char *const *dirs, const bool *bad_index, size_t ndirs,
                      fja_reader_stats *stats)
{
    for (size_t i = 0; i < ndirs; i++) {
        if (bad_index[i]) continue;
        char first[256] = "";
        uint64_t n = salvage_missing(dirs[i], first, sizeof first);
        if (n && !stats->cut_bytes)
            snprintf(stats->cut_note, sizeof stats->cut_note,
                     "%s/%s is cut short (a recording cut short?): its last packets are "
                     "missing or cut",
                     dirs[i], first);
        stats->cut_bytes += n;
    }
}

/* Builds the graph, from salvage copies if the traces themselves do not
 * open. */
static bt_graph *graph_open(const plugins *pl, char **use, fja_salvage *salv, size_t ndirs,
                            reader_ctx *r, char *err, size_t errlen)
{
    bt_graph *g = r->graph = bt_graph_create(0);
    if (g && !graph_build(g, pl, use, ndirs, r, err, errlen)) return g;
    bt_graph_put_ref(g);
    r->graph = NULL;
    /* Only a source that failed to start (before the sink took its ports)
     * is something a salvage copy can mend. */
    if (!g || r->ports || salvage_all(pl, use, salv, ndirs)) return NULL;
    bt_current_thread_clear_error();
    g = r->graph = bt_graph_create(0);
    if (g && !graph_build(g, pl, use, ndirs, r, err, errlen)) return g;
    bt_graph_put_ref(g);
    r->graph = NULL;
    return NULL;
}

/* Before decoding: a trace with a packet libbabeltrace2 would abort on, or
 * whose index disagrees with its files, is read from a salvage copy cut
 * before that packet and without the index (packets.h). Returns the
 * number of whole packets of dir (all of them when their layout is not
 * known), or -1 when the copy cannot be made. */
static int64_t precheck(const char *dir, fja_salvage *salv, char **use, bool *bad_index,
                        fja_reader_stats *stats)
{
    fja_packets pk;
    /* For the tests of abortguard.h: hand libbabeltrace2 the trace as is. */
    if (getenv("FJTRACE_ANALYZE_NO_PACKET_CHECK")) return 1;
    if (packets_check(dir, &pk)) return 0;
    *bad_index = pk.index_damaged;
    if (!pk.damaged && !pk.index_damaged && !pk.repaired)
        return pk.layout_known ? (int64_t)pk.whole : 1;
    unsigned how = SALVAGE_HEADERS | SALVAGE_ALWAYS | (pk.index_damaged ? SALVAGE_NO_INDEX : 0);
    if (salvage_make(dir, salv, how) != 1) return -1;
    *use = salv->dir;
    if (pk.damaged && !stats->damaged)
        note_printf(stats->damage_note, sizeof stats->damage_note, "%s", pk.note);
    stats->damaged |= pk.damaged;
    if (pk.repaired && !*stats->index_note)
        note_printf(stats->index_note, sizeof stats->index_note, "%s", pk.repair_note);
    else if (pk.index_damaged && !*stats->index_note)
        note_printf(stats->index_note, sizeof stats->index_note,
                    "%s/index disagrees with the stream files (damaged?): read without it", dir);
    return (int64_t)pk.whole;
}

typedef struct {
    reader_ctx *r;
    plugins *pl;
    char *const *dirs;
    char **use;
    fja_salvage *salv;
    bool *bad_index;
    size_t ndirs;
    const fja_reader_sink *sink;
    fja_reader_stats *stats;
    char *err;
    size_t errlen;
    bt_graph *g;
    reader_status st;
} decode_job;

/* Builds the graph and runs it (under abortguard_run). */
static int decode(void *arg)
{
    decode_job *j = arg;
    reader_ctx *r = j->r;
    j->st = READER_UNREADABLE;
    if (!(j->g = graph_open(j->pl, j->use, j->salv, j->ndirs, r, j->err, j->errlen))) return -1;
    cut_check(j->dirs, j->bad_index, j->ndirs, j->stats);
    if (j->sink->progress) range_query(r, j->pl->fs, j->use, j->ndirs);
    bt_graph_run_status rs;
    while ((rs = bt_graph_run(j->g)) == BT_GRAPH_RUN_STATUS_AGAIN)
        ;
    if (rs == BT_GRAPH_RUN_STATUS_OK)
        j->st = r->stopped ? READER_STOPPED : READER_OK;
    else if (rs == BT_GRAPH_RUN_STATUS_MEMORY_ERROR)
        j->st = READER_NO_MEMORY;
    else {
        char what[4200];
        note_printf(what, sizeof what, "%s%s: cannot decode the trace", j->dirs[0],
                    j->ndirs > 1 ? " (or another of the traces)" : "");
        take_error(j->err, j->errlen, what);
    }
    return 0;
}

/* After libbabeltrace2 aborted: what it was reading. */
static void aborted_message(const decode_job *j)
{
    const reader_ctx *r = j->r;
    int64_t i = r->reading;
    if (i >= 0 && r->port_names && r->port_names[i]) {
        /* source.ctf.fs names its ports "TRACE-UUID | CLASS | STREAM" */
        const char *ids = strchr(r->port_names[i], '|');
        snprintf(j->err, j->errlen,
                 "%s: libbabeltrace2 aborted or crashed while decoding its stream %s (in or after "
                 "its packet "
                 "%" PRIu64 "): the trace is damaged in a way the library does not check",
                 j->dirs[r->port_source[i]], ids ? ids + 2 : r->port_names[i],
                 r->ports[i].packets + 1);
    } else {
        snprintf(
            j->err, j->errlen,
            "%s%s: libbabeltrace2 aborted or crashed while opening or decoding it: the trace is "
            "damaged in a way the library does not check",
            j->dirs[0], j->ndirs > 1 ? " (or another of the traces)" : "");
    }
    note_printf(j->stats->damage_note, sizeof j->stats->damage_note, "%s", j->err);
    j->stats->damaged = true;
}

/* What libbabeltrace2 held when it aborted, kept reachable so that the
 * leak checker does not report memory left alone on purpose. */
static struct {
    reader_ctx *r;
    plugins pl;
    char why[768]; /* for a later reading, which cannot use the library */
} abandoned;

reader_status reader_run(char *const *dirs, size_t ndirs, const fja_reader_sink *sink,
                         fja_reader_stats *stats, char *err, size_t errlen)
{
    *stats = (fja_reader_stats){0};
    reader_ctx *r = calloc(1, sizeof *r);
    if (!r) return READER_NO_MEMORY;
    r->sink = sink;
    r->stats = stats;
    r->next_progress = 1000000;
    r->reading = -1;
    plugins pl;
    reader_status st = READER_UNREADABLE;
    int aborted = 0;
    decode_job job = {.r = r,
                      .pl = &pl,
                      .dirs = dirs,
                      .ndirs = ndirs,
                      .sink = sink,
                      .stats = stats,
                      .err = err,
                      .errlen = errlen};
    char **use = calloc(ndirs ? ndirs : 1, sizeof *use); /* a trace or its salvage copy */
    fja_salvage *salv = calloc(ndirs ? ndirs : 1, sizeof *salv);
    bool *bad_index = calloc(ndirs ? ndirs : 1, sizeof *bad_index);
    if (!use || !salv || !bad_index) {
        st = READER_NO_MEMORY;
        goto out;
    }
    int64_t packets = 0;
    for (size_t i = 0; i < ndirs; i++) {
        if (find_check_metadata(dirs[i], err, errlen)) goto out;
        use[i] = dirs[i];
        int64_t n = precheck(dirs[i], &salv[i], &use[i], &bad_index[i], stats);
        if (n < 0) {
            snprintf(err, errlen, "%s: %s (and no copy without it can be made)", dirs[i],
                     stats->damage_note);
            goto out;
        }
        packets += n;
    }
    if (!packets) {
        snprintf(err, errlen,
                 "%s%s: no stream file holds a whole packet: every stream is cut or empty (was "
                 "the disk full while recording?)",
                 dirs[0], ndirs > 1 ? " (and the other traces)" : "");
        goto out;
    }
    job.use = use;
    job.salv = salv;
    job.bad_index = bad_index;
    if (abandoned.r) { /* an earlier reading made libbabeltrace2 abort */
        note_printf(err, errlen, "%s", abandoned.why);
        goto out;
    }
    /* An error left on this thread by an earlier reading (the causes of a
     * decode error are taken, not always) makes the next call abort. */
    bt_current_thread_clear_error();
    /* bt_plugin_put_ref(NULL) is a no-op: a half-loaded pair is released */
    if (plugins_load(&pl, err, errlen)) goto out_plugins;
    abortguard_run(decode, &job, &aborted);
    st = job.st;
    if (aborted) {
        aborted_message(&job);
        abandoned.r = r; /* libbabeltrace2's state is lost: left as it is */
        abandoned.pl = pl;
        note_printf(abandoned.why, sizeof abandoned.why, "%s", stats->damage_note);
        goto out;
    }
    if (sink->progress && stats->fjtrace_events + stats->other_events >= 1000000)
        fputc('\n', stderr);
out_plugins:
    bt_graph_put_ref(job.g);
    plugins_put(&pl);
    bt_current_thread_clear_error();
out:
    for (size_t i = 0; salv && i < ndirs; i++)
        salvage_remove(&salv[i]);
    free(salv);
    free(use);
    free(bad_index);
    if (aborted) return st;
    for (uint32_t i = 0; r->port_names && i < r->nports; i++)
        free(r->port_names[i]);
    free(r->port_names);
    free(r->port_source);
    free(r->ports);
    free(r->heap);
    free(r->with_events);
    free(r);
    return st;
}

/* ------------------------------------------------------------ live */

/* src.ctf.lttng-live -> simple sink: the live source merges its streams
 * itself and says AGAIN while the relay has nothing new. */
static bt_graph *live_graph(const plugins *pl, const char *url, bool wait_for_session,
                            reader_ctx *r, char *err, size_t errlen)
{
    const bt_component_class_source *cls =
        bt_plugin_borrow_source_component_class_by_name_const(pl->ctf, "lttng-live");
    if (!cls) {
        snprintf(err, errlen, "babeltrace2: src.ctf.lttng-live missing");
        return NULL;
    }
    bt_graph *g = bt_graph_create(0);
    bt_value *params = bt_value_map_create(), *inputs = NULL;
    const bt_component_source *src = NULL;
    const bt_component_sink *sink = NULL;
    if (!g || !params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
        bt_value_array_append_string_element(inputs, url) ||
        bt_value_map_insert_string_entry(params, "session-not-found-action",
                                         wait_for_session ? "continue" : "fail")) {
        snprintf(err, errlen, "out of memory");
    } else if (bt_graph_add_source_component(g, cls, "live", params, BT_LOGGING_LEVEL_NONE, &src) ||
               bt_graph_add_simple_sink_component(g, "fjtrace-live", sink_init, sink_consume, NULL,
                                                  r, &sink) ||
               bt_graph_connect_ports(
                   g, bt_component_source_borrow_output_port_by_index_const(src, 0),
                   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
        char what[600];
        snprintf(what, sizeof what, "%s: cannot follow this live session", url);
        take_error(err, errlen, what);
    } else {
        bt_value_put_ref(params);
        return g;
    }
    bt_value_put_ref(params);
    bt_graph_put_ref(g);
    return NULL;
}

reader_status reader_live_run(const char *url, const fja_reader_sink *sink,
                              const fja_live_hooks *hooks, fja_reader_stats *stats, char *err,
                              size_t errlen)
{
    *stats = (fja_reader_stats){0};
    reader_ctx *r = calloc(1, sizeof *r);
    if (!r) return READER_NO_MEMORY;
    r->sink = sink;
    r->stats = stats;
    r->next_progress = UINT64_MAX; /* the hooks show progress */
    plugins pl;
    reader_status st = READER_UNREADABLE;
    bt_graph *g = NULL;
    if (plugins_load(&pl, err, errlen) ||
        !(g = live_graph(&pl, url, hooks->wait_for_session, r, err, errlen)))
        goto out;
    for (;;) {
        bt_graph_run_once_status rs = bt_graph_run_once(g);
        if (rs == BT_GRAPH_RUN_ONCE_STATUS_END) {
            st = r->stopped ? READER_STOPPED : READER_OK;
            break;
        }
        if (rs == BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR) {
            st = READER_NO_MEMORY;
            break;
        }
        if (rs != BT_GRAPH_RUN_ONCE_STATUS_OK && rs != BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
            take_error(err, errlen, "the live session cannot be read");
            break;
        }
        if (hooks->tick(hooks->ctx, rs == BT_GRAPH_RUN_ONCE_STATUS_AGAIN)) {
            st = READER_STOPPED;
            break;
        }
    }
out:
    bt_graph_put_ref(g);
    plugins_put(&pl);
    free(r->with_events);
    free(r);
    return st;
}
