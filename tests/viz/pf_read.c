/* pf-read: reads a Perfetto protobuf trace back with the protobuf-c code of
 * viz/perfetto_trace.proto (trace_processor is not available here) and
 * checks what Perfetto relies on: every packet parses; a sequence starts by
 * clearing its incremental state; every interned name and annotation key is
 * defined on the sequence before use, and no interning id means two names;
 * delta timestamps start from a clock snapshot (and never wrap: time only
 * goes forward on such a sequence); every event's track is
 * described; slices nest per track (no end without a begin, none left
 * open, none ending before it began); every flow has one start and one end.
 *
 *   pf-read FILE [--dump]
 *
 * Prints "key value" lines (packets, bytes, tracks, task slices, ...) for
 * the test to compare with known answers; --dump also prints each slice
 * begin and end of a thread track as "B|E PID TID TS_NS [NAME]", of a
 * worker's off-CPU track as "OB|OE PID TS_NS TRACK|[NAME]", and each
 * counter value as "C PID TS_NS VALUE TRACK" in file order, to compare with
 * the Chrome JSON trace of the same run. Exit 0 when
 * the file is sound, 1 with the first problem on stderr, 2 on usage. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_trace.pb-c.h"

#define CLOCK_BOOTTIME 6
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2

typedef Perfetto__Protos__TracePacket packet_t;
typedef Perfetto__Protos__TrackEvent event_t;

typedef struct {
    uint64_t uuid;
    int32_t pid, tid; /* tid 0: not a thread track */
    bool is_thread, is_process, is_counter;
    char *name;
    uint64_t *stack; /* begin timestamps of open slices */
    size_t depth, cap;
    uint64_t slices, max_depth;
} track;

typedef struct {
    uint32_t id;
    bool cleared;
    uint32_t clock_id; /* TracePacketDefaults */
    uint64_t default_track;
    bool has_delta_clock;
    uint32_t delta_clock;
    uint64_t last; /* the delta clock's value */
    bool timed;
    uint8_t *names, *keys; /* iid defined on this sequence */
    size_t nnames, nkeys;
} sequence;

static track *tracks;
static size_t ntracks;
static sequence *seqs;
static size_t nseqs;
static char **names; /* global iid -> name */
static size_t names_cap;
static uint64_t *flow_starts, *flow_ends, *task_ids;
static size_t nflow_starts, nflow_ends, ntask_ids, cap_fs, cap_fe, cap_ti;
static uint64_t packet_no;
static uint64_t absolute_events; /* timed on the trace clock, not a delta */
static bool dump;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pf-read: packet %" PRIu64 ": ", packet_no);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    p = realloc(p, n * size);
    if (!p) fail("out of memory");
    memset((char *)p + *cap * size, 0, (n - *cap) * size);
    *cap = n;
    return p;
}

static void push(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
    *a = grow(*a, cap, *n + 1, sizeof **a);
    (*a)[(*n)++] = v;
}

static sequence *seq_get(uint32_t id)
{
    for (size_t i = 0; i < nseqs; i++)
        if (seqs[i].id == id) return &seqs[i];
    seqs = realloc(seqs, (nseqs + 1) * sizeof *seqs);
    if (!seqs) fail("out of memory");
    seqs[nseqs] = (sequence){.id = id};
    return &seqs[nseqs++];
}

static track *track_find(uint64_t uuid)
{
    for (size_t i = 0; i < ntracks; i++)
        if (tracks[i].uuid == uuid) return &tracks[i];
    return NULL;
}

static void mark(uint8_t **bits, size_t *n, uint64_t iid)
{
    *bits = grow(*bits, n, iid + 1, 1);
    (*bits)[iid] = 1;
}

static bool marked(const uint8_t *bits, size_t n, uint64_t iid)
{
    return iid < n && bits[iid];
}

/* ------------------------------------------------------------ packets */

static void on_interned(sequence *s, const Perfetto__Protos__InternedData *in)
{
    for (size_t i = 0; i < in->n_event_names; i++) {
        const Perfetto__Protos__EventName *e = in->event_names[i];
        if (!e->has_iid || !e->iid || !e->name) fail("event name without iid or name");
        names = grow(names, &names_cap, e->iid + 1, sizeof *names);
        if (names[e->iid] && strcmp(names[e->iid], e->name) != 0)
            fail("iid %" PRIu64 " names both '%s' and '%s'", e->iid, names[e->iid], e->name);
        if (!names[e->iid] && !(names[e->iid] = strdup(e->name))) fail("out of memory");
        mark(&s->names, &s->nnames, e->iid);
    }
    for (size_t i = 0; i < in->n_debug_annotation_names; i++) {
        const Perfetto__Protos__DebugAnnotationName *k = in->debug_annotation_names[i];
        if (!k->has_iid || !k->iid || !k->name) fail("annotation name without iid or name");
        mark(&s->keys, &s->nkeys, k->iid);
    }
}

static void on_descriptor(const Perfetto__Protos__TrackDescriptor *d)
{
    if (!d->has_uuid || !d->uuid) fail("track descriptor without uuid");
    if (track_find(d->uuid)) fail("track %" PRIu64 " described twice", d->uuid);
    tracks = realloc(tracks, (ntracks + 1) * sizeof *tracks);
    if (!tracks) fail("out of memory");
    track t = {.uuid = d->uuid};
    if (d->thread) {
        t.is_thread = true;
        t.pid = d->thread->pid;
        t.tid = d->thread->tid;
        t.name = d->thread->thread_name ? strdup(d->thread->thread_name) : NULL;
    } else if (d->process) {
        t.is_process = true;
        t.pid = d->process->pid;
        t.name = d->process->process_name ? strdup(d->process->process_name) : NULL;
    } else {
        t.is_counter = d->counter != NULL;
        t.name = d->name ? strdup(d->name) : NULL;
        const track *parent = d->has_parent_uuid ? track_find(d->parent_uuid) : NULL;
        if (parent) t.pid = parent->pid; /* the process it is grouped under */
    }
    tracks[ntracks++] = t;
}

static void on_clock(sequence *s, const Perfetto__Protos__ClockSnapshot *cs)
{
    bool boot = false;
    for (size_t i = 0; i < cs->n_clocks; i++) {
        const Perfetto__Protos__ClockSnapshot__Clock *c = cs->clocks[i];
        if (c->clock_id == CLOCK_BOOTTIME) boot = true;
        if (c->is_incremental) {
            if (c->clock_id < 64 || c->clock_id > 127)
                fail("incremental clock %u is not sequence-scoped (64..127)", c->clock_id);
            s->has_delta_clock = true;
            s->delta_clock = c->clock_id;
            s->last = c->timestamp;
            s->timed = false;
        }
    }
    if (!boot) fail("clock snapshot not tied to BOOTTIME");
}

/* The packet's time on the trace clock. */
static uint64_t packet_ts(sequence *s, const packet_t *pk)
{
    uint32_t clock = pk->has_timestamp_clock_id ? pk->timestamp_clock_id : s->clock_id;
    if (!pk->has_timestamp) fail("track event without timestamp");
    if (clock && s->has_delta_clock && clock == s->delta_clock) {
        uint64_t ts = s->last + pk->timestamp;
        if (ts < s->last) fail("delta clock wraps on sequence %u", s->id);
        s->last = ts;
        s->timed = true;
        return ts;
    }
    if (clock >= 64 && clock <= 127)
        fail("timestamp on sequence clock %u before its snapshot", clock);
    absolute_events++; /* the trace clock: any order, Perfetto sorts */
    return pk->timestamp;
}

static uint64_t inline_names; /* events named in full, not interned */

static const char *event_name(const sequence *s, const event_t *e)
{
    if (e->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME) {
        inline_names++;
        return e->name;
    }
    if (e->name_field_case != PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) return NULL;
    if (!marked(s->names, s->nnames, e->name_iid))
        fail("name iid %" PRIu64 " not interned on sequence %u", e->name_iid, s->id);
    return names[e->name_iid];
}

static bool is_task(const sequence *s, const event_t *e, uint64_t *id)
{
    bool task = false;
    for (size_t i = 0; i < e->n_debug_annotations; i++) {
        const Perfetto__Protos__DebugAnnotation *a = e->debug_annotations[i];
        if (a->name_field_case != PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID) continue;
        if (!marked(s->keys, s->nkeys, a->name_iid))
            fail("annotation key %" PRIu64 " not interned on sequence %u", a->name_iid, s->id);
        /* the writer's key 1 is "task", sent with every sequence's first packet */
        if (a->name_iid == 1 &&
            a->value_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE) {
            task = true;
            *id = a->pointer_value;
        }
    }
    return task;
}

/* A slice track of a lane's beside its thread track: its off-CPU slices. */
static bool is_side(const track *t)
{
    return !t->is_thread && !t->is_process && !t->is_counter;
}

static void on_event(sequence *s, const packet_t *pk, const event_t *e, uint64_t *task_slices)
{
    uint64_t ts = packet_ts(s, pk);
    uint64_t uuid = e->has_track_uuid ? e->track_uuid : s->default_track;
    track *t = track_find(uuid);
    if (!t) fail("event on undescribed track %" PRIu64, uuid);
    if (!(pk->sequence_flags & SEQ_NEEDS)) fail("event without SEQ_NEEDS_INCREMENTAL_STATE");
    const char *name = event_name(s, e);
    for (size_t i = 0; i < e->n_flow_ids; i++)
        push(&flow_starts, &nflow_starts, &cap_fs, e->flow_ids[i]);
    for (size_t i = 0; i < e->n_terminating_flow_ids; i++)
        push(&flow_ends, &nflow_ends, &cap_fe, e->terminating_flow_ids[i]);
    switch (e->type) {
    case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN: {
        if (t->is_counter) fail("slice on counter track %s", t->name);
        if (!name) fail("slice without a name on %s", t->name);
        uint64_t id;
        if (is_task(s, e, &id)) {
            ++*task_slices;
            push(&task_ids, &ntask_ids, &cap_ti, id);
        }
        t->stack = grow(t->stack, &t->cap, t->depth + 1, sizeof *t->stack);
        t->stack[t->depth++] = ts;
        if (t->depth > t->max_depth) t->max_depth = t->depth;
        if (dump && t->is_thread) printf("B %d %d %" PRIu64 " %s\n", t->pid, t->tid, ts, name);
        if (dump && is_side(t)) printf("OB %d %" PRIu64 " %s|%s\n", t->pid, ts, t->name, name);
        break;
    }
    case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END:
        if (!t->depth) fail("slice end without a begin on %s", t->name);
        if (ts < t->stack[--t->depth]) fail("slice ends before it began on %s", t->name);
        t->slices++;
        if (dump && t->is_thread) printf("E %d %d %" PRIu64 "\n", t->pid, t->tid, ts);
        if (dump && is_side(t)) printf("OE %d %" PRIu64 " %s|\n", t->pid, ts, t->name);
        break;
    case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT:
        if (!name) fail("instant without a name");
        break;
    case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER:
        if (!t->is_counter) fail("counter value on a non-counter track %s", t->name);
        if (e->counter_value_field_case !=
            PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE)
            fail("counter event without a value");
        if (dump)
            printf("C %d %" PRIu64 " %" PRId64 " %s\n", t->pid, ts, e->counter_value, t->name);
        break;
    default:
        fail("track event of type %d", e->type);
    }
}

static void on_packet(const packet_t *pk, uint64_t *task_slices)
{
    if (pk->optional_trusted_packet_sequence_id_case !=
            PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID ||
        !pk->trusted_packet_sequence_id)
        fail("packet without a sequence id");
    sequence *s = seq_get(pk->trusted_packet_sequence_id);
    if (pk->sequence_flags & SEQ_CLEARED) {
        free(s->names);
        free(s->keys);
        *s = (sequence){.id = s->id, .cleared = true};
    }
    if (!s->cleared) fail("sequence %u used before its incremental state is cleared", s->id);
    if (pk->trace_packet_defaults) {
        const Perfetto__Protos__TracePacketDefaults *d = pk->trace_packet_defaults;
        if (d->has_timestamp_clock_id) s->clock_id = d->timestamp_clock_id;
        if (d->track_event_defaults && d->track_event_defaults->has_track_uuid)
            s->default_track = d->track_event_defaults->track_uuid;
    }
    if (pk->interned_data) on_interned(s, pk->interned_data);
    switch (pk->data_case) {
    case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR:
        on_descriptor(pk->track_descriptor);
        break;
    case PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT:
        on_clock(s, pk->clock_snapshot);
        break;
    case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT:
        on_event(s, pk, pk->track_event, task_slices);
        break;
    default: /* state only (a sequence's first packet) */
        if (!(pk->sequence_flags & SEQ_CLEARED) && !pk->trace_packet_defaults && !pk->interned_data)
            fail("packet with no data");
    }
}

/* ------------------------------------------------------------ stream */

static bool read_varint(FILE *f, uint64_t *v, uint64_t *bytes)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        int c = getc(f);
        if (c == EOF) {
            if (shift) fail("file ends inside a varint");
            return false;
        }
        ++*bytes;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80) return true;
    }
    fail("varint longer than 10 bytes");
}

static size_t distinct_names(void)
{
    size_t n = 0;
    for (size_t i = 0; i < names_cap; i++)
        n += names[i] != NULL;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t distinct(uint64_t *a, size_t n)
{
    if (!n) return 0; /* qsort wants an array, even empty */
    qsort(a, n, sizeof *a, cmp_u64);
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || a[i] != a[i - 1]) d++;
    return d;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--dump") != 0)) {
        fprintf(stderr, "usage: pf-read FILE [--dump]\n");
        return 2;
    }
    dump = argc == 3;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    uint64_t bytes = 0, tag, len, task_slices = 0, track_events = 0;
    uint8_t *buf = NULL;
    size_t cap = 0;
    while (read_varint(f, &tag, &bytes)) {
        packet_no++;
        if (tag != 0x0a) fail("Trace field tag %" PRIu64 ", not packet (1, length-delimited)", tag);
        if (!read_varint(f, &len, &bytes)) fail("file ends before a packet's length");
        buf = grow(buf, &cap, len + 1, 1);
        if (fread(buf, 1, len, f) != len) fail("file ends inside a packet");
        bytes += len;
        packet_t *pk = perfetto__protos__trace_packet__unpack(NULL, len, buf);
        if (!pk) fail("packet does not parse");
        if (pk->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT) track_events++;
        on_packet(pk, &task_slices);
        perfetto__protos__trace_packet__free_unpacked(pk, NULL);
    }
    fclose(f);
    free(buf);

    uint64_t threads = 0, processes = 0, counters = 0, worker_tracks = 0, slices = 0, side = 0;
    for (size_t i = 0; i < ntracks; i++) {
        track *t = &tracks[i];
        if (t->depth) fail("%zu slices left open on %s", t->depth, t->name);
        threads += t->is_thread;
        processes += t->is_process;
        counters += t->is_counter;
        worker_tracks += t->is_thread && t->name && !strncmp(t->name, "worker ", 7);
        slices += t->slices;
        if (is_side(t)) side += t->slices;
        bool grouped = !t->is_thread;
        for (size_t j = 0; j < ntracks && !grouped; j++)
            grouped = tracks[j].is_process && tracks[j].pid == t->pid;
        if (!grouped) fail("thread track %s has no process track (pid %d)", t->name, t->pid);
        for (size_t j = 0; j < i; j++)
            if (t->is_thread && tracks[j].is_thread && tracks[j].pid == t->pid &&
                (tracks[j].tid == t->tid || !strcmp(tracks[j].name, t->name)))
                fail("two thread tracks %s in process %d", t->name, t->pid);
    }
    if (nflow_starts != nflow_ends || distinct(flow_starts, nflow_starts) != nflow_starts ||
        distinct(flow_ends, nflow_ends) != nflow_ends ||
        (nflow_starts && memcmp(flow_starts, flow_ends, nflow_starts * sizeof *flow_starts) != 0))
        fail("flows: %zu starts, %zu ends, not one of each per id", nflow_starts, nflow_ends);
    printf("bytes %" PRIu64 "\n", bytes);
    printf("packets %" PRIu64 "\n", packet_no);
    printf("track_events %" PRIu64 "\n", track_events);
    printf("sequences %zu\n", nseqs);
    printf("process_tracks %" PRIu64 "\n", processes);
    printf("thread_tracks %" PRIu64 "\n", threads);
    printf("worker_tracks %" PRIu64 "\n", worker_tracks);
    printf("counter_tracks %" PRIu64 "\n", counters);
    printf("slices %" PRIu64 "\n", slices);
    printf("task_slices %" PRIu64 "\n", task_slices);
    printf("side_track_slices %" PRIu64 "\n", side); /* off-CPU */
    printf("distinct_tasks %zu\n", distinct(task_ids, ntask_ids));
    printf("flows %zu\n", nflow_starts);
    printf("inline_names %" PRIu64 "\n", inline_names);
    printf("absolute_events %" PRIu64 "\n", absolute_events);
    printf("interned_names %zu\n", distinct_names());
    return 0;
}
