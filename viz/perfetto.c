/* The Perfetto protobuf writer (perfetto.h), on the protobuf-c code that
 * protoc-c generates from perfetto_trace.proto. A trace file is the message
 * Trace, whose packets are its field 1: each packet is packed on its own and
 * written as tag, length, bytes, so nothing but the tracks and the interned
 * names stays in memory. */
#include "perfetto.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket packet_t;
typedef Perfetto__Protos__TrackEvent event_t;
typedef Perfetto__Protos__DebugAnnotation annotation_t;

/* Perfetto's numbers (clock_snapshot.proto, builtin_clock.proto): clocks 64
 * to 127 belong to one packet sequence; 6 is BOOTTIME, the trace's clock. */
#define CLOCK_DELTA 64
#define CLOCK_BOOTTIME 6
#define SEQ_CLEARED PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define SEQ_NEEDS PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE

/* Slice names past this many distinct ones are written in full rather than
 * interned: the table stays bounded when names carry per-task sizes. */
#define MAX_INTERNED 65536

/* Debug annotation keys, interned once per sequence (iid = index + 1). */
enum { AN_TASK, AN_TREE, AN_LOCK, AN_COUNT };
static const char *const annotation_names[AN_COUNT] = {"task", "tree", "lock"};

/* A packet sequence: a lane's, on its thread track (and, when used, its
 * off-CPU track), or its counter's, on the counter track. */
typedef struct {
    uint64_t uuid;        /* its default track */
    uint64_t offcpu_uuid; /* 0: none yet */
    uint32_t counter_seq; /* the lane's counter's sequence, 0: none yet */
    uint64_t last_ts;     /* the delta clock's value */
    bool timed;           /* its clock snapshot is written */
    bool absolute;        /* the flows' sequence: absolute timestamps, any order */
    bool off;             /* an off-CPU slice is open */
    uint64_t *sent;       /* bit iid: that name is interned on this sequence */
    uint32_t nsent;       /* words in sent */
} pf_seq;

typedef struct {
    char *name;
    uint32_t iid;
} pf_name;

struct fjv_pf {
    FILE *f;
    fja_outfile out;
    pf_seq *seqs; /* sequence id - 1 */
    uint32_t nseqs, cap_seqs;
    uint64_t next_uuid, next_flow;
    uint32_t flow_seq; /* the sequence of the steals' fork ends, 0: none yet */
    pf_name *names;    /* open addressing on the name's hash */
    uint32_t names_cap, nnames;
    uint8_t *buf; /* one packed packet */
    size_t cap_buf;
    uint64_t clamped; /* timestamps that went back on a sequence */
    bool oom;
    int write_errno; /* the first failed write's cause: errno is gone by the close */
};

/* ------------------------------------------------------------ output */

static size_t put_varint(uint8_t *b, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        b[n++] = (uint8_t)(v | 0x80);
    b[n++] = (uint8_t)v;
    return n;
}

/* Writes one packet as Trace's field 1 (tag 0x0a: field 1, length-delimited). */
static void put_packet(fjv_pf *w, const packet_t *pk)
{
    size_t n = protobuf_c_message_get_packed_size(&pk->base);
    if (n + 11 > w->cap_buf) {
        size_t cap = (n + 11) * 2;
        uint8_t *b = realloc(w->buf, cap);
        if (!b) {
            w->oom = true;
            return;
        }
        w->buf = b;
        w->cap_buf = cap;
    }
    size_t k = 0;
    w->buf[k++] = 0x0a;
    k += put_varint(w->buf + k, n);
    protobuf_c_message_pack(&pk->base, w->buf + k);
    if (w->write_errno) return;
    errno = 0;
    if (fwrite(w->buf, 1, k + n, w->f) != k + n) w->write_errno = errno ? errno : EIO;
}

/* ------------------------------------------------------------ interning */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int names_grow(fjv_pf *w)
{
    uint32_t cap = w->names_cap ? w->names_cap * 2 : 256;
    pf_name *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    for (uint32_t i = 0; i < w->names_cap; i++) {
        if (!w->names[i].name) continue;
        uint32_t j = (uint32_t)name_hash(w->names[i].name) & (cap - 1);
        while (t[j].name)
            j = (j + 1) & (cap - 1);
        t[j] = w->names[i];
    }
    free(w->names);
    w->names = t;
    w->names_cap = cap;
    return 0;
}

/* The name's interning id, 0 when it is not interned (table full, no
 * memory). Ids are global, so no id ever means two names. */
static uint32_t name_iid(fjv_pf *w, const char *s)
{
    if (w->nnames < MAX_INTERNED && w->nnames * 2 >= w->names_cap && names_grow(w)) return 0;
    /* at most half full: the probe ends */
    uint32_t j = (uint32_t)name_hash(s) & (w->names_cap - 1);
    for (; w->names[j].name; j = (j + 1) & (w->names_cap - 1))
        if (strcmp(w->names[j].name, s) == 0) return w->names[j].iid;
    if (w->nnames >= MAX_INTERNED) return 0;
    char *copy = strdup(s);
    if (!copy) return 0;
    w->names[j] = (pf_name){.name = copy, .iid = ++w->nnames};
    return w->names[j].iid;
}

/* True when iid still has to be sent on sequence s (and marks it sent). */
static bool name_unsent(fjv_pf *w, pf_seq *s, uint32_t iid)
{
    uint32_t word = iid / 64;
    if (word >= s->nsent) {
        uint32_t n = word + 16;
        uint64_t *b = realloc(s->sent, n * sizeof *b);
        if (!b) {
            w->oom = true;
            return true; /* sent again: harmless */
        }
        memset(b + s->nsent, 0, (n - s->nsent) * sizeof *b);
        s->sent = b;
        s->nsent = n;
    }
    uint64_t bit = 1ull << (iid % 64);
    if (s->sent[word] & bit) return false;
    s->sent[word] |= bit;
    return true;
}

/* ------------------------------------------------------------ sequences */

static uint32_t chrome_pid(const fjv_xpool *p)
{
    return p->source * 1000 + p->id; /* as the Chrome trace's pid */
}

static void put_descriptor(fjv_pf *w, uint32_t seq, Perfetto__Protos__TrackDescriptor *d,
                           uint32_t flags, Perfetto__Protos__TracePacketDefaults *defaults,
                           Perfetto__Protos__InternedData *interned)
{
    packet_t pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    pk.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
    pk.track_descriptor = d;
    pk.optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pk.trusted_packet_sequence_id = seq;
    pk.has_sequence_flags = true;
    pk.sequence_flags = flags;
    pk.trace_packet_defaults = defaults;
    pk.interned_data = interned;
    if (flags & SEQ_CLEARED) pk.has_first_packet_on_sequence = pk.first_packet_on_sequence = true;
    put_packet(w, &pk);
}

/* The pool's process track, once. */
static void process_track(fjv_pf *w, fjv_xpool *p, uint32_t seq)
{
    if (p->pf_uuid) return;
    p->pf_uuid = ++w->next_uuid;
    char name[64];
    snprintf(name, sizeof name, "fjtrace pool %u (trace %u)", p->id, p->source);
    Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
    pd.has_pid = true;
    pd.pid = (int32_t)chrome_pid(p);
    pd.process_name = name;
    Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    d.has_uuid = true;
    d.uuid = p->pf_uuid;
    d.process = &pd;
    put_descriptor(w, seq, &d, SEQ_NEEDS, NULL, NULL);
}

/* Room for one more sequence; false (and the writer out of memory) when
 * there is none. */
static bool seq_room(fjv_pf *w)
{
    if (w->nseqs < w->cap_seqs) return true;
    uint32_t cap = w->cap_seqs ? w->cap_seqs * 2 : 16;
    pf_seq *s = realloc(w->seqs, cap * sizeof *s);
    if (!s) {
        w->oom = true;
        return false;
    }
    w->seqs = s;
    w->cap_seqs = cap;
    return true;
}

/* A new packet sequence whose first packet describes track d, makes it the
 * sequence's default track, sets the delta clock as its timestamps' clock
 * and interns the annotation keys. Its id, 0 when out of memory. */
static uint32_t seq_open(fjv_pf *w, Perfetto__Protos__TrackDescriptor *d)
{
    if (!seq_room(w)) return 0;
    uint32_t seq = ++w->nseqs;
    w->seqs[seq - 1] = (pf_seq){.uuid = d->uuid};

    Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
    ted.has_track_uuid = true;
    ted.track_uuid = d->uuid;
    Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
    def.has_timestamp_clock_id = true;
    def.timestamp_clock_id = CLOCK_DELTA;
    def.track_event_defaults = &ted;

    Perfetto__Protos__DebugAnnotationName an[AN_COUNT], *anp[AN_COUNT];
    for (int i = 0; i < AN_COUNT; i++) {
        an[i] =
            (Perfetto__Protos__DebugAnnotationName)PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
        an[i].has_iid = true;
        an[i].iid = (uint64_t)i + 1;
        an[i].name = (char *)annotation_names[i];
        anp[i] = &an[i];
    }
    Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
    in.n_debug_annotation_names = AN_COUNT;
    in.debug_annotation_names = anp;
    put_descriptor(w, seq, d, SEQ_CLEARED, &def, &in);
    return seq;
}

/* Lane l's sequence, made with its thread track on first use. 0: none. */
static uint32_t lane_seq(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    if (l->pf_seq) return l->pf_seq;
    char name[48];
    if (worker < 0)
        snprintf(name, sizeof name, "client threads");
    else
        snprintf(name, sizeof name, "worker %d", worker);
    Perfetto__Protos__ThreadDescriptor td = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
    td.has_pid = td.has_tid = td.has_legacy_sort_index = true;
    td.pid = (int32_t)chrome_pid(p);
    /* unique over the trace (Perfetto tells threads apart by tid), the
     * worker readable in it; past int32, unique only */
    uint64_t tid = (uint64_t)chrome_pid(p) * 100000 + (uint64_t)(worker + 1);
    td.tid = tid <= INT32_MAX ? (int32_t)tid : INT32_MAX - (int32_t)w->nseqs;
    td.legacy_sort_index = worker + 1;
    td.thread_name = name;
    Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    d.has_uuid = true;
    d.uuid = ++w->next_uuid;
    d.thread = &td;
    if (!(l->pf_seq = seq_open(w, &d))) return 0;
    process_track(w, p, l->pf_seq);
    return l->pf_seq;
}

/* Stamps pk for sequence s at ts: the first timed packet of a sequence is
 * preceded by the snapshot that starts its delta clock at ts (and ties it
 * to BOOTTIME at the same value: the trace keeps the recording's times). */
static void stamp(fjv_pf *w, pf_seq *s, uint32_t seq, packet_t *pk, uint64_t ts)
{
    if (s->absolute) {
        pk->has_timestamp = true;
        pk->timestamp = ts;
    } else if (!s->timed) {
        Perfetto__Protos__ClockSnapshot__Clock ck[2] = {
            PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
            PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT};
        Perfetto__Protos__ClockSnapshot__Clock *ckp[2] = {&ck[0], &ck[1]};
        ck[0].has_clock_id = ck[0].has_timestamp = ck[0].has_is_incremental = true;
        ck[0].clock_id = CLOCK_DELTA;
        ck[0].timestamp = ts;
        ck[0].is_incremental = true;
        ck[1].has_clock_id = ck[1].has_timestamp = true;
        ck[1].clock_id = CLOCK_BOOTTIME;
        ck[1].timestamp = ts;
        Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
        cs.n_clocks = 2;
        cs.clocks = ckp;
        packet_t sp = PERFETTO__PROTOS__TRACE_PACKET__INIT;
        sp.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
        sp.clock_snapshot = &cs;
        sp.optional_trusted_packet_sequence_id_case =
            PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
        sp.trusted_packet_sequence_id = seq;
        sp.has_sequence_flags = true;
        sp.sequence_flags = SEQ_NEEDS;
        put_packet(w, &sp);
        s->timed = true;
        s->last_ts = ts;
    }
    if (!s->absolute) {
        if (ts < s->last_ts) { /* the tracker's changes come in time order */
            w->clamped++;
            ts = s->last_ts;
        }
        pk->has_timestamp = true;
        pk->timestamp = ts - s->last_ts;
        s->last_ts = ts;
    }
    pk->optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pk->trusted_packet_sequence_id = seq;
    pk->has_sequence_flags = true;
    pk->sequence_flags = SEQ_NEEDS;
}

/* Writes event ev on sequence seq (0: none) at ts, interning its name. */
static void put_event(fjv_pf *w, uint32_t seq, uint64_t ts, event_t *ev, const char *name)
{
    if (!seq) return;
    pf_seq *s = &w->seqs[seq - 1];
    packet_t pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT, *enp = &en;
    Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
    if (name) {
        uint32_t iid = name_iid(w, name);
        if (iid) {
            ev->name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
            ev->name_iid = iid;
            if (name_unsent(w, s, iid)) {
                en.has_iid = true;
                en.iid = iid;
                en.name = (char *)name;
                in.n_event_names = 1;
                in.event_names = &enp;
                pk.interned_data = &in;
            }
        } else {
            ev->name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
            ev->name = (char *)name;
        }
    }
    stamp(w, s, seq, &pk, ts);
    pk.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
    pk.track_event = ev;
    put_packet(w, &pk);
}

/* ------------------------------------------------------------ public */

fjv_pf *fjv_pf_open(const char *path, char *err, size_t errlen)
{
    fjv_pf *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(w->f = fja_outfile_open(&w->out, path, err, errlen))) {
        free(w);
        return NULL;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    return w;
}

static void pf_free(fjv_pf *w)
{
    for (uint32_t i = 0; i < w->nseqs; i++)
        free(w->seqs[i].sent);
    free(w->seqs);
    for (uint32_t i = 0; i < w->names_cap; i++)
        free(w->names[i].name);
    free(w->names);
    free(w->buf);
    free(w);
}

int fjv_pf_close(fjv_pf *w, FILE *err)
{
    if (!w) return 0;
    char msg[4200];
    int rc = 0;
    if (w->oom) {
        fja_outfile_fail(&w->out, ENOMEM, msg, sizeof msg);
        fprintf(err, "fjtrace-analyze: %s\n", msg);
        rc = -1;
    } else if (w->write_errno) {
        fja_outfile_fail(&w->out, w->write_errno, msg, sizeof msg);
        fprintf(err, "fjtrace-analyze: %s\n", msg);
        rc = -1;
    } else if ((rc = fja_outfile_commit(&w->out, msg, sizeof msg)))
        fprintf(err, "fjtrace-analyze: %s\n", msg);
    if (w->clamped)
        fprintf(err,
                "fjtrace-analyze: warning: Perfetto trace: %llu timestamps went back on "
                "their track and were written at the track's last time\n",
                (unsigned long long)w->clamped);
    pf_free(w);
    return rc;
}

void fjv_pf_abort(fjv_pf *w)
{
    if (!w) return;
    fja_outfile_abort(&w->out);
    pf_free(w);
}

void fjv_pf_lane(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    lane_seq(w, p, l, worker);
}

static annotation_t annotation(int key)
{
    annotation_t a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
    a.name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
    a.name_iid = (uint64_t)key + 1;
    return a;
}

void fjv_pf_begin(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                  const fjv_pf_slice *s)
{
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
    annotation_t a[2], *ap[2] = {&a[0], &a[1]};
    if (s->task) {
        a[0] = annotation(AN_TASK);
        a[0].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE;
        a[0].pointer_value = s->task->id; /* shown in hex, as the Chrome trace's "0x..." */
        a[1] = annotation(AN_TREE);
        a[1].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
        a[1].int_value = s->task->tree == FJA_TASK_NONE ? -1 : (int64_t)s->task->tree;
        ev.n_debug_annotations = 2;
        ev.debug_annotations = ap;
    } else if (s->lock >= 0) {
        a[0] = annotation(AN_LOCK);
        a[0].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
        a[0].uint_value = (uint64_t)s->lock;
        ev.n_debug_annotations = 1;
        ev.debug_annotations = ap;
    }
    uint64_t flow = s->flow;
    if (flow) {
        ev.n_terminating_flow_ids = 1;
        ev.terminating_flow_ids = &flow;
    }
    put_event(w, lane_seq(w, p, l, worker), ts, &ev, s->name);
}

void fjv_pf_end(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    put_event(w, lane_seq(w, p, l, worker), ts, &ev, NULL);
}

/* A track of the lane's, under the pool's process: its counter, or its
 * off-CPU slices. */
static void side_track(Perfetto__Protos__TrackDescriptor *d, uint64_t uuid, const fjv_xpool *p,
                       char *name)
{
    d->has_uuid = d->has_parent_uuid = true;
    d->uuid = uuid;
    d->parent_uuid = p->pf_uuid;
    d->name = name;
}

void fjv_pf_counter(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts, int64_t v)
{
    uint32_t seq = lane_seq(w, p, l, worker);
    if (!seq) return;
    if (!w->seqs[seq - 1].counter_seq) {
        /* Its own sequence, the counter track as default: a value is then
         * only a time and a number (counters are as many as slices). */
        char name[48];
        if (worker < 0)
            snprintf(name, sizeof name, "requests outstanding");
        else
            snprintf(name, sizeof name, "queue w%d", worker);
        Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
        cd.has_unit = true;
        cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
        Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
        side_track(&d, ++w->next_uuid, p, name);
        d.counter = &cd;
        uint32_t cseq = seq_open(w, &d);
        if (!cseq) return;
        w->seqs[seq - 1].counter_seq = cseq;
    }
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
    ev.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
    ev.counter_value = v;
    put_event(w, w->seqs[seq - 1].counter_seq, ts, &ev, NULL);
}

/* The sequence of the steals' fork ends: written when the task begins on
 * the thief, at the earlier fork time, so its timestamps are absolute (on
 * the trace clock) and may go back; Perfetto sorts packets by time. Its
 * first packet clears its state. */
static uint32_t flow_seq(fjv_pf *w)
{
    if (w->flow_seq) return w->flow_seq;
    if (!seq_room(w)) return 0;
    w->flow_seq = ++w->nseqs;
    w->seqs[w->flow_seq - 1] = (pf_seq){.absolute = true};
    packet_t pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
    pk.optional_trusted_packet_sequence_id_case =
        PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
    pk.trusted_packet_sequence_id = w->flow_seq;
    pk.has_sequence_flags = pk.has_first_packet_on_sequence = pk.first_packet_on_sequence = true;
    pk.sequence_flags = SEQ_CLEARED;
    Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
    pk.trace_packet_defaults = &def; /* none: the trace clock, no default track */
    put_packet(w, &pk);
    return w->flow_seq;
}

uint64_t fjv_pf_steal(fjv_pf *w, fjv_xpool *p, fjv_xlane *forker, int32_t forker_worker,
                      uint64_t fork_ts)
{
    uint32_t seq = lane_seq(w, p, forker, forker_worker), fseq = flow_seq(w);
    if (!seq || !fseq) return 0;
    uint64_t flow = ++w->next_flow;
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = ev.has_track_uuid = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
    ev.track_uuid = w->seqs[seq - 1].uuid;
    ev.n_flow_ids = 1;
    ev.flow_ids = &flow;
    put_event(w, fseq, fork_ts, &ev, "steal");
    return flow;
}

void fjv_pf_offcpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                   const char *why)
{
    uint32_t seq = lane_seq(w, p, l, worker);
    if (!seq || w->seqs[seq - 1].off) return;
    pf_seq *s = &w->seqs[seq - 1];
    if (!s->offcpu_uuid) {
        char name[48];
        snprintf(name, sizeof name, "worker %d off-CPU", worker);
        Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
        side_track(&d, ++w->next_uuid, p, name);
        put_descriptor(w, seq, &d, SEQ_NEEDS, NULL, NULL);
        s->offcpu_uuid = d.uuid;
    }
    s->off = true;
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = ev.has_track_uuid = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
    ev.track_uuid = s->offcpu_uuid;
    put_event(w, seq, ts, &ev, why);
}

void fjv_pf_oncpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    (void)p, (void)worker;
    if (!l->pf_seq || !w->seqs[l->pf_seq - 1].off) return;
    pf_seq *s = &w->seqs[l->pf_seq - 1];
    s->off = false;
    event_t ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
    ev.has_type = ev.has_track_uuid = true;
    ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    ev.track_uuid = s->offcpu_uuid;
    put_event(w, l->pf_seq, ts, &ev, NULL);
}
