#include "convert.h"

#include <stdlib.h>
#include <string.h>

/* How a member is read: it is an integer of this signedness, or not one. */
enum { MEMBER_NOT_INT, MEMBER_UNSIGNED, MEMBER_SIGNED };

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

static void fjtrace_class_resolve(class_info *ci, const bt_field_class *payload)
{
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

static void class_resolve(class_info *ci, const bt_event_class *cls)
{
    const char *name = bt_event_class_get_name(cls);
    *ci = (class_info){.cls = cls, .kind = FJA_EV_UNKNOWN};
    const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(cls);
    ci->clock = sc && bt_stream_class_borrow_default_clock_class_const(sc);
    if (name && strncmp(name, "lttng_ust_", 10) == 0)
        map_class_resolve(ci, name, bt_event_class_borrow_payload_field_class_const(cls));
    if (!name || strncmp(name, "fjtrace:", 8) != 0) return;
    ci->fjtrace = true;
    ci->kind = fja_event_kind_from_name(name + 8);
    fjtrace_class_resolve(ci, bt_event_class_borrow_payload_field_class_const(cls));
}

static class_info *class_get(convert_ctx *c, const bt_event_class *cls)
{
    size_t h = ((uintptr_t)cls >> 4) % CLASS_SLOTS;
    for (size_t i = 0; i < CLASS_SLOTS; i++, h = (h + 1) % CLASS_SLOTS) {
        class_info *ci = &c->classes[h];
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

static uint64_t msg_ns(const bt_clock_snapshot *cs)
{
    int64_t ns = 0;
    if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
                  BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
        ns = 0;
    return ns > 0 ? (uint64_t)ns : 0;
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

/* A load-map event; map_valid when its fields read well. */
static void convert_map(convert_ctx *c, const class_info *ci, const bt_event *e, reader_rec *rec)
{
    rec->type = REC_MAP;
    rec->map_valid = false;
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    if (!payload) return;
    bool ok = true;
    fja_map_event m = {.kind = ci->map_kind, .pid = vpid_of(e)};
    m.baddr = int_member(payload, ci->baddr, &ok);
    if (ci->map_kind == FJA_MAP_OBJECT) {
        m.memsz = int_member(payload, ci->memsz, &ok);
        m.path = string_member(payload, ci->path);
        m.is_pic = ci->map_pic || (ci->is_pic >= 0 && int_member(payload, ci->is_pic, &ok) != 0);
        if (!m.path) return;
    } else {
        m.build_id_len = bytes_member(payload, ci->build_id, c->build_id, sizeof c->build_id);
        m.build_id = c->build_id;
        if (!m.build_id_len) return;
    }
    if (!ok) return;
    rec->map_valid = true;
    rec->u.map = m;
}

static void convert_fjtrace(const class_info *ci, const bt_event *e, reader_rec *rec)
{
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    fja_event *ev = &rec->u.ev;
    *ev = (fja_event){.kind = ci->kind, .ts = (uint64_t)rec->head};
    if (payload) {
        bool ok = true;
        ev->pool = (uint32_t)int_member(payload, ci->pool, &ok);
        ev->worker = ci->worker >= 0 ? (int32_t)int_member(payload, ci->worker, &ok) : -1;
        ev->task = ci->task >= 0 ? int_member(payload, ci->task, &ok) : 0;
        fja_event_set_arg(ev, ci->arg >= 0 ? int_member(payload, ci->arg, &ok) : 0);
        ev->size_hint = ci->size_hint >= 0 ? int_member(payload, ci->size_hint, &ok) : 0;
        ev->name = ci->name >= 0 ? string_member(payload, ci->name) : NULL;
        /* optional: traces recorded before sites existed have none */
        ev->site = ci->site >= 0 ? int_member(payload, ci->site, &ok) : 0;
        ev->runtime = ci->runtime >= 0 ? string_member(payload, ci->runtime) : NULL;
        if (ev->kind == FJA_EV_OFFCPU) {
            ev->begin = clock_ns(e, int_member(payload, ci->begin, &ok));
            ev->end = clock_ns(e, int_member(payload, ci->end, &ok));
        }
        if (!ok) ev->kind = FJA_EV_UNKNOWN; /* schema changed: do not guess */
    }
    if (ev->kind == FJA_EV_POOL_BEGIN) process_of(e, ev);
}

static void convert_event(convert_ctx *c, const bt_message *msg, reader_rec *rec)
{
    const bt_event *e = bt_message_event_borrow_event_const(msg);
    const bt_stream *stream = bt_event_borrow_stream_const(e);
    rec->stream = (uintptr_t)stream;
    rec->trace = (uintptr_t)bt_stream_borrow_trace_const(stream);
    const class_info *ci = class_get(c, bt_event_borrow_class_const(e));
    /* an event of a stream without a clock counts as time 0 */
    rec->head = ci && ci->clock
                    ? (int64_t)msg_ns(bt_message_event_borrow_default_clock_snapshot_const(msg))
                    : 0;
    if (!ci || !ci->fjtrace) {
        rec->type = REC_OTHER;
        if (ci && ci->map) convert_map(c, ci, e, rec);
        return;
    }
    rec->type = REC_FJTRACE;
    convert_fjtrace(ci, e, rec);
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

static void convert_discarded(const bt_message *msg, reader_rec *rec)
{
    rec->type = REC_DISCARDED;
    rec->head = INT64_MIN;
    rec->count_known = bt_message_discarded_events_get_count(msg, &rec->count) ==
                       BT_PROPERTY_AVAILABILITY_AVAILABLE;
    if (!rec->count_known) rec->count = 0;
    const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
    const bt_stream_class *sc = bt_stream_borrow_class_const(s);
    rec->stream = (uintptr_t)s;
    rec->trace = (uintptr_t)bt_stream_borrow_trace_const(s);
    rec->ts = 0;
    if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
        rec->ts = msg_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
    rec->carries_fjtrace = carries_fjtrace(sc);
}

int convert_message(convert_ctx *c, const bt_message *msg, reader_rec *rec)
{
    rec->strings = NULL;
    switch (bt_message_get_type(msg)) {
    case BT_MESSAGE_TYPE_EVENT:
        convert_event(c, msg, rec);
        return 1;
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
        convert_discarded(msg, rec);
        return 1;
    default:
        return 0;
    }
}

/* Appends s (NUL included) at *at, returning where it now is. */
static const char *keep(char **at, const char *s, size_t n)
{
    char *here = *at;
    memcpy(here, s, n);
    *at += n;
    return here;
}

int rec_own_strings(reader_rec *rec)
{
    const char *s[3] = {NULL, NULL, NULL};
    size_t n[3] = {0, 0, 0}, total = 0;
    if (rec->type == REC_FJTRACE) {
        s[0] = rec->u.ev.name, s[1] = rec->u.ev.runtime, s[2] = rec->u.ev.procname;
    } else if (rec->type == REC_MAP && rec->map_valid) {
        s[0] = rec->u.map.path;
        s[1] = (const char *)rec->u.map.build_id;
    } else {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        if (rec->type == REC_MAP && i == 1)
            n[i] = s[i] ? rec->u.map.build_id_len : 0;
        else
            n[i] = s[i] ? strlen(s[i]) + 1 : 0;
        total += n[i];
    }
    if (!total) return 0;
    char *at = rec->strings = malloc(total);
    if (!at) return -1;
    for (int i = 0; i < 3; i++)
        if (s[i]) s[i] = keep(&at, s[i], n[i]);
    if (rec->type == REC_FJTRACE) {
        rec->u.ev.name = s[0], rec->u.ev.runtime = s[1], rec->u.ev.procname = s[2];
    } else {
        rec->u.map.path = s[0];
        rec->u.map.build_id = (const uint8_t *)s[1];
    }
    return 0;
}
