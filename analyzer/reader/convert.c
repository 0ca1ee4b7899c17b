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

/* How the first members of payload are read (ci->how). */
static void member_kinds(class_info *ci, const bt_field_class *payload)
{
    uint64_t n = bt_field_class_structure_get_member_count(payload);
    for (uint64_t i = 0; i < n && i < sizeof ci->how; i++) {
        const bt_field_class *f = bt_field_class_structure_member_borrow_field_class_const(
            bt_field_class_structure_borrow_member_by_index_const(payload, i));
        bt_field_class_type t = bt_field_class_get_type(f);
        ci->how[i] = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? MEMBER_SIGNED
                     : bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)
                         ? MEMBER_UNSIGNED
                         : MEMBER_NOT_INT;
    }
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
        member_kinds(ci, payload);
        ci->map =
            ci->baddr >= 0 && (known[i].kind == FJA_MAP_BUILD_ID ? ci->build_id >= 0
                                                                 : ci->memsz >= 0 && ci->path >= 0);
        return;
    }
}

/* fjtrace:site_name is a load-map event: a site's name (docs/events.md). */
static void site_name_class_resolve(class_info *ci, const bt_field_class *payload)
{
    if (!payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE) return;
    ci->map_kind = FJA_MAP_SITE_NAME;
    ci->site = member_index(payload, "site");
    ci->site_vpid = member_index(payload, "vpid");
    ci->function = member_index(payload, "function");
    ci->file = member_index(payload, "file");
    ci->line = member_index(payload, "line");
    member_kinds(ci, payload);
    ci->map =
        ci->site >= 0 && ci->site_vpid >= 0 && ci->function >= 0 && ci->file >= 0 && ci->line >= 0;
}

static void fjtrace_class_resolve(class_info *ci, const bt_field_class *payload)
{
    ci->pool = ci->worker = ci->task = ci->arg = ci->size_hint = ci->name = ci->site = ci->runtime =
        ci->begin = ci->end = ci->tool = ci->switch_follows = ci->site_size = -1;
    if (!payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE) return;
    ci->pool = member_index(payload, "pool");
    ci->worker = member_index(payload, "worker");
    ci->task = member_index(payload, "task");
    ci->size_hint = member_index(payload, "size_hint");
    ci->name = member_index(payload, "name");
    ci->site = member_index(payload, "site");
    ci->site_size = member_index(payload, "site_size");
    if (ci->name < 0) ci->name = member_index(payload, "model"); /* pool_runtime */
    ci->runtime = member_index(payload, "runtime");
    ci->begin = member_index(payload, "begin");
    ci->end = member_index(payload, "end");
    ci->tool = member_index(payload, "tool");
    ci->switch_follows = member_index(payload, "switch_follows");
    /* the older layout's fork names its parent, its executed its task */
    ci->named = (ci->kind == FJA_EV_FORK && member_index(payload, "parent") >= 0) ||
                (ci->kind == FJA_EV_EXECUTED && ci->task >= 0);
    static const char *const args[] = {"parent", "victim", "target", "workers", "lock", "pred",
                                       "kind",   "lost",   "error",  "ahead",   "cpu"};
    for (size_t i = 0; i < sizeof args / sizeof *args && ci->arg < 0; i++)
        ci->arg = member_index(payload, args[i]);
    member_kinds(ci, payload);
}

static void class_resolve(class_info *ci, const bt_event_class *cls)
{
    const char *name = bt_event_class_get_name(cls);
    *ci = (class_info){.cls = cls, .kind = FJA_EV_UNKNOWN};
    const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(cls);
    ci->clock = sc && bt_stream_class_borrow_default_clock_class_const(sc);
    if (name && strncmp(name, "lttng_ust_", 10) == 0)
        map_class_resolve(ci, name, bt_event_class_borrow_payload_field_class_const(cls));
    if (name && strcmp(name, "fjtrace:site_name") == 0) {
        /* a load-map event, but the provider's: another event renamed so
         * (fjtrace:park named fjtrace:site_name) is an invalid fjtrace
         * event, not a site name that could not be read */
        char why[8];
        const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(cls);
        if (validate_layout(name + 8, payload, why, sizeof why)) {
            ci->fjtrace = ci->invalid = true;
            return;
        }
        site_name_class_resolve(ci, payload);
        return;
    }
    if (!name || strncmp(name, "fjtrace:", 8) != 0) return;
    ci->fjtrace = true;
    ci->kind = fja_event_kind_from_name(name + 8);
    char why[8];
    ci->invalid = validate_layout(name + 8, bt_event_class_borrow_payload_field_class_const(cls),
                                  why, sizeof why) != NULL;
    fjtrace_class_resolve(ci, bt_event_class_borrow_payload_field_class_const(cls));
    /* (offcpu_task_clock's tool: rich, its readings being few, one per
     * task piece of 20 us or more, per switch or per 200 us of a thread) */
    ci->rich = ci->name >= 0 || ci->runtime >= 0 || ci->kind == FJA_EV_POOL_BEGIN ||
               ci->kind == FJA_EV_OFFCPU || ci->kind == FJA_EV_OFFCPU_CLIENT || ci->tool >= 0;
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

/* Integer member idx of a structure of class ci, signed or not; 0 when
 * absent. The first members' kinds are known from the class: no type
 * query per event. */
static uint64_t int_member(const class_info *ci, const bt_field *payload, int64_t idx, bool *ok)
{
    if (idx < 0) {
        *ok = false;
        return 0;
    }
    const bt_field *f =
        bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)idx);
    int how = MEMBER_NOT_INT;
    if ((size_t)idx < sizeof ci->how) {
        how = ci->how[idx];
    } else {
        bt_field_class_type t = bt_field_get_class_type(f);
        how = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)     ? MEMBER_SIGNED
              : bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER) ? MEMBER_UNSIGNED
                                                                                : MEMBER_NOT_INT;
    }
    if (how == MEMBER_SIGNED) return (uint64_t)bt_field_integer_signed_get_value(f);
    if (how == MEMBER_UNSIGNED) return bt_field_integer_unsigned_get_value(f);
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
    f = bt_field_structure_borrow_member_field_by_name_const(st, "recording");
    if (f &&
        bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        ev->recording = bt_field_integer_unsigned_get_value(f);
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

/* A new extra with room for n bytes of strings (at *at); NULL when out
 * of memory. */
static rec_extra *(*extra_alloc)(size_t size); /* convert_set_extra_alloc */

static rec_extra *extra_new(size_t n, char **at)
{
    rec_extra *x = extra_alloc(sizeof *x + n);
    if (x) *at = x->strings;
    return x;
}

/* Copies n bytes of s to *at, returning where they now are. */
static const void *keep(char **at, const void *s, size_t n)
{
    char *here = *at;
    if (!s) return NULL;
    memcpy(here, s, n);
    *at += n;
    return here;
}

static size_t str_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* fjtrace:site_name: the process is in the payload (the event is in the
 * main channel, which has no vpid context). */
static int convert_site_name(const class_info *ci, const bt_field *payload, reader_rec *rec,
                             fja_map_event m)
{
    bool ok = payload != NULL;
    if (ok) {
        m.pid = (int64_t)(int32_t)int_member(ci, payload, ci->site_vpid, &ok);
        m.site = int_member(ci, payload, ci->site, &ok);
        m.line = (uint32_t)int_member(ci, payload, ci->line, &ok);
        m.function = string_member(payload, ci->function);
        m.file = string_member(payload, ci->file);
        ok &= m.function != NULL && m.file != NULL;
    }
    char *at;
    size_t flen = ok ? str_size(m.function) : 0, llen = ok ? str_size(m.file) : 0;
    rec_extra *x = rec->extra = extra_new(flen + llen, &at);
    if (!x) return -1;
    if (!ok) return 0;
    x->map_valid = true;
    x->map = m;
    x->map.function = keep(&at, m.function, flen);
    x->map.file = keep(&at, m.file, llen);
    return 0;
}

/* A load-map event; map_valid when its fields read well. -1: no memory. */
static int convert_map(const class_info *ci, const bt_event *e, reader_rec *rec)
{
    rec->type = REC_MAP;
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    bool ok = payload != NULL;
    uint8_t id[64];
    fja_map_event m = {.kind = ci->map_kind, .pid = vpid_of(e)};
    if (ci->map_kind == FJA_MAP_SITE_NAME) return convert_site_name(ci, payload, rec, m);
    if (ok) {
        m.baddr = int_member(ci, payload, ci->baddr, &ok);
        if (ci->map_kind == FJA_MAP_OBJECT) {
            m.memsz = int_member(ci, payload, ci->memsz, &ok);
            m.path = string_member(payload, ci->path);
            m.is_pic =
                ci->map_pic || (ci->is_pic >= 0 && int_member(ci, payload, ci->is_pic, &ok) != 0);
            ok &= m.path != NULL;
        } else {
            m.build_id_len = bytes_member(payload, ci->build_id, id, sizeof id);
            m.build_id = id;
            ok &= m.build_id_len > 0;
        }
    }
    char *at;
    size_t plen = ok ? str_size(m.path) : 0;
    rec_extra *x = rec->extra = extra_new(plen + (ok ? m.build_id_len : 0), &at);
    if (!x) return -1;
    if (!ok) return 0;
    x->map_valid = true;
    x->map = m;
    x->map.path = keep(&at, m.path, plen);
    x->map.build_id = m.build_id_len ? keep(&at, m.build_id, m.build_id_len) : NULL;
    return 0;
}

/* An fjtrace event whose class needs extra: the whole fja_event, with
 * copies of its strings. -1: no memory. */
static int convert_rich(const class_info *ci, const bt_event *e, const bt_field *payload,
                        reader_rec *rec)
{
    fja_event ev = {.kind = ci->kind, .ts = (uint64_t)rec->head, .named = ci->named};
    if (payload) {
        bool ok = true;
        ev.pool = (uint32_t)int_member(ci, payload, ci->pool, &ok);
        ev.worker = ci->worker >= 0 ? (int32_t)int_member(ci, payload, ci->worker, &ok) : -1;
        ev.task = ci->task >= 0 ? int_member(ci, payload, ci->task, &ok) : 0;
        fja_event_set_arg(&ev, ci->arg >= 0 ? int_member(ci, payload, ci->arg, &ok) : 0);
        ev.size_hint = ci->size_hint >= 0 ? int_member(ci, payload, ci->size_hint, &ok) : 0;
        ev.name = ci->name >= 0 ? string_member(payload, ci->name) : NULL;
        /* optional: traces recorded before sites existed have none */
        ev.site = ci->site >= 0 ? int_member(ci, payload, ci->site, &ok) : 0;
        ev.runtime = ci->runtime >= 0 ? string_member(payload, ci->runtime) : NULL;
        if (ev.kind == FJA_EV_OFFCPU || ev.kind == FJA_EV_OFFCPU_CLIENT) {
            ev.begin = clock_ns(e, int_member(ci, payload, ci->begin, &ok));
            ev.end = clock_ns(e, int_member(ci, payload, ci->end, &ok));
        }
        if (ci->tool >= 0) {
            ev.tool = int_member(ci, payload, ci->tool, &ok);
            ev.tool_told = true;
        }
        if (ci->switch_follows >= 0)
            ev.switch_follows = int_member(ci, payload, ci->switch_follows, &ok) != 0;
        if (!ok) ev.kind = FJA_EV_UNKNOWN; /* schema changed: do not guess */
    }
    if (ev.kind == FJA_EV_POOL_BEGIN) process_of(e, &ev);
    size_t n[3] = {str_size(ev.name), str_size(ev.runtime), str_size(ev.procname)};
    char *at;
    rec_extra *x = rec->extra = extra_new(n[0] + n[1] + n[2], &at);
    if (!x) return -1;
    x->ev = ev;
    x->ev.name = keep(&at, ev.name, n[0]);
    x->ev.runtime = keep(&at, ev.runtime, n[1]);
    x->ev.procname = keep(&at, ev.procname, n[2]);
    return 0;
}

/* An fjtrace event that fails validation: the event as far as it could be
 * read, and why, naming the file and packet. -1: no memory. */
static int convert_invalid(convert_ctx *c, const class_info *ci, const bt_event *e, const char *why,
                           reader_rec *rec)
{
    char where[600], layout[700];
    char buf[sizeof where + sizeof layout + 2]; /* "where: layout", never cut */
    if (!why) { /* the class: the reason again (rare: only for these) */
        const char *name = bt_event_class_get_name(bt_event_borrow_class_const(e));
        validate_layout(
            name + 8,
            bt_event_class_borrow_payload_field_class_const(bt_event_borrow_class_const(e)), layout,
            sizeof layout);
        validate_where(&c->valid, bt_event_borrow_stream_const(e), where, sizeof where);
        snprintf(buf, sizeof buf, "%s: %s", where, layout);
        why = buf;
    }
    size_t len = strlen(why) + 1;
    char *at;
    rec_extra *x = rec->extra = extra_new(len, &at);
    if (!x) return -1;
    rec->type = REC_INVALID;
    x->ev = (fja_event){.kind = ci->kind, .ts = (uint64_t)rec->head, .worker = -1};
    x->why = keep(&at, why, len);
    return 0;
}

/* fork's site_size: the site in its low SITE_BITS bits, size_hint above
 * (FJTRACE_SITE_BITS, tracepoints/fjtrace_tp.h). */
enum { SITE_BITS = 48 };

/* An fjtrace event: the common ones fit the compact record. */
static int convert_fjtrace(const class_info *ci, const bt_event *e, reader_rec *rec)
{
    const bt_field *payload = bt_event_borrow_payload_field_const(e);
    rec->type = REC_FJTRACE;
    if (ci->rich) return convert_rich(ci, e, payload, rec);
    rec->kind = (uint8_t)ci->kind;
    rec->named = ci->named;
    rec->pool = 0;
    rec->worker = -1;
    rec->task = rec->arg = rec->size_hint = rec->site = 0;
    if (!payload) return 0;
    bool ok = true;
    rec->pool = (uint32_t)int_member(ci, payload, ci->pool, &ok);
    if (ci->worker >= 0) rec->worker = (int32_t)int_member(ci, payload, ci->worker, &ok);
    if (ci->task >= 0) rec->task = int_member(ci, payload, ci->task, &ok);
    if (ci->arg >= 0) rec->arg = int_member(ci, payload, ci->arg, &ok);
    if (ci->size_hint >= 0) rec->size_hint = int_member(ci, payload, ci->size_hint, &ok);
    /* optional: traces recorded before sites existed have none */
    if (ci->site >= 0) rec->site = int_member(ci, payload, ci->site, &ok);
    if (ci->site_size >= 0) {
        /* fork: both in one field (fjtrace_tp.h); fork_wide and forks
         * recorded before 2026-12-06 have two */
        uint64_t v = int_member(ci, payload, ci->site_size, &ok);
        rec->site = v & ((UINT64_C(1) << SITE_BITS) - 1);
        rec->size_hint = v >> SITE_BITS;
    }
    if (!ok) rec->kind = FJA_EV_UNKNOWN; /* schema changed: do not guess */
    return 0;
}

/* An fjtrace event not believed: its time (bad_time: validate_time says
 * why, finding what validate_time_ok found, the stream's state being
 * unchanged) or its class. Apart from convert_event, whose every call
 * would otherwise set up the reason's buffer. -1: no memory. */
static __attribute__((noinline, cold)) int convert_unbelieved(convert_ctx *c, const class_info *ci,
                                                              const bt_event *e, uint64_t cycles,
                                                              bool bad_time, reader_rec *rec)
{
    char why[1024];
    const char *bad = bad_time ? validate_time(&c->valid, bt_event_borrow_stream_const(e), cycles,
                                               why, sizeof why)
                               : NULL;
    return convert_invalid(c, ci, e, bad, rec);
}

static int convert_event(convert_ctx *c, const bt_message *msg, reader_rec *rec)
{
    const bt_event *e = bt_message_event_borrow_event_const(msg);
    const class_info *ci = class_get(c, bt_event_borrow_class_const(e));
    /* an event of a stream without a clock counts as time 0 */
    const bt_clock_snapshot *cs =
        ci && ci->clock ? bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL;
    rec->head = cs ? (int64_t)msg_ns(cs) : 0;
    uint64_t cycles = cs ? bt_clock_snapshot_get_value(cs) : 0;
    bool bad = cs && !validate_time_ok(&c->valid, bt_event_borrow_stream_const(e), cycles);
    if (ci && ci->fjtrace && (bad || ci->invalid))
        return convert_unbelieved(c, ci, e, cycles, bad, rec);
    if (ci && ci->fjtrace) return convert_fjtrace(ci, e, rec);
    rec->type = REC_OTHER;
    return ci && ci->map ? convert_map(ci, e, rec) : 0;
}

/* Whether a stream class (an LTTng channel) holds fjtrace events: a loss
 * at the start of another channel's stream (the load maps) says nothing of
 * where the fjtrace events begin (and a damaged events_discarded field in
 * such a packet must not hide every fjtrace event). */
static bool carries_fjtrace(const bt_stream_class *sc, bool *offcpu_only)
{
    uint64_t n = bt_stream_class_get_event_class_count(sc);
    bool any = false;
    *offcpu_only = true;
    for (uint64_t i = 0; i < n; i++) {
        const char *name =
            bt_event_class_get_name(bt_stream_class_borrow_event_class_by_index_const(sc, i));
        if (!name || strncmp(name, "fjtrace:", 8) != 0) continue;
        any = true;
        /* the off-CPU channel: offcpu, offcpu_client, _start, _lost, ... */
        if (strncmp(name, "fjtrace:offcpu", 14) != 0) *offcpu_only = false;
    }
    *offcpu_only &= any;
    return any;
}

static int convert_discarded(const bt_message *msg, reader_rec *rec)
{
    rec->type = REC_DISCARDED;
    rec->head = INT64_MIN;
    char *at;
    const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
    const char *name = bt_stream_get_name(s); /* ctf.fs: the stream file's path */
    size_t len = name ? strlen(name) + 1 : 1;
    rec_extra *x = rec->extra = extra_new(len, &at);
    if (!x) return -1;
    x->stream = keep(&at, name ? name : "", len);
    x->count_known =
        bt_message_discarded_events_get_count(msg, &x->count) == BT_PROPERTY_AVAILABILITY_AVAILABLE;
    if (!x->count_known) x->count = 0;
    const bt_stream_class *sc = bt_stream_borrow_class_const(s);
    if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
        x->ts = msg_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
        x->begin_ts =
            msg_ns(bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg));
    }
    x->carries_fjtrace = carries_fjtrace(sc, &x->offcpu);
    x->cls = bt_stream_class_get_id(sc);
    x->inst = bt_stream_get_id(s);
    return 0;
}

int convert_message(convert_ctx *c, const bt_message *msg, reader_rec *rec)
{
    rec->extra = NULL;
    switch (bt_message_get_type(msg)) {
    case BT_MESSAGE_TYPE_EVENT:
        return convert_event(c, msg, rec) ? -1 : 1;
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
        return convert_discarded(msg, rec) ? -1 : 1;
    case BT_MESSAGE_TYPE_PACKET_BEGINNING:
        validate_packet(&c->valid, bt_packet_borrow_stream_const(
                                       bt_message_packet_beginning_borrow_packet_const(msg)));
        return 0;
    default:
        return 0;
    }
}

void convert_keys(const bt_message *msg, uintptr_t *stream, uintptr_t *trace)
{
    const bt_stream *s =
        bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT
            ? bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg))
            : bt_message_discarded_events_borrow_stream_const(msg);
    *stream = (uintptr_t)s;
    *trace = (uintptr_t)bt_stream_borrow_trace_const(s);
}

void convert_set_extra_alloc(rec_extra *(*alloc)(size_t size))
{
    extra_alloc = alloc;
}
