/* babeltrace2 messages -> reader records: the per-event work of the reader
 * (event class lookup, payload fields by cached index, clock conversion),
 * done by whichever thread decodes the stream (pread.h), so that the
 * thread that merges and tracks only sees plain records. */
#ifndef FJA_CONVERT_H
#define FJA_CONVERT_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "reader.h"
#include "validate.h"

typedef enum {
    REC_FJTRACE,   /* an fjtrace event */
    REC_OTHER,     /* another provider's event, counted only */
    REC_MAP,       /* a load-map event (counted as other too): extra->map, if map_valid */
    REC_DISCARDED, /* a discarded-events notice: extra's count, ts, carries_fjtrace */
    REC_INVALID,   /* an fjtrace event that fails validation (validate.h): extra->ev, why */
} rec_type;

/* What the few records that need more than a compact one carry. */
typedef struct {
    fja_event ev; /* REC_FJTRACE: the whole event (strings, pid, an interval) */
    fja_map_event map;
    bool map_valid;       /* map: its fields could all be read */
    bool count_known;     /* discarded */
    bool carries_fjtrace; /* discarded: its stream class holds fjtrace events */
    bool offcpu;          /* discarded: ... and only off-CPU ones (their own channel) */
    uint64_t count, ts;   /* discarded */
    uint64_t begin_ts;    /* discarded: since when (0: not known) */
    uint64_t cls, inst;   /* discarded: the stream's class and instance ids */
    const char *stream;   /* discarded: the stream's name (its file), "" if none */
    const char *why;      /* invalid: the reason, naming the file and packet */
    char strings[];       /* what ev's and map's strings and build id point to */
} rec_extra;

/* One message the merge and the consumer need, compact (64 bytes: the
 * rings move millions): an fjtrace event's fields are here unless the
 * event needs extra (pool_begin, lock_init, pool_runtime, offcpu); maps and
 * discarded notices always have it. */
typedef struct {
    int64_t head; /* merge key: the event's time; INT64_MIN: deliver at once */
    uint64_t task, arg, size_hint, site;
    uint32_t pool;
    int32_t worker;
    uint8_t type, kind; /* rec_type, fja_kind */
    bool named;         /* fja_event.named */
    uint32_t stream;    /* --muxer: its stream (pread.h) */
    rec_extra *extra;   /* from the extra allocator (NULL: none) */
} reader_rec;

/* Member indices of one event class, resolved once: looking fields up by
 * name for each of millions of events would dominate the decoding cost. */
typedef struct {
    const bt_event_class *cls;
    fja_kind kind;
    bool fjtrace;
    bool rich;       /* its records need extra */
    bool clock;      /* its stream class has a default clock */
    bool invalid;    /* not the provider's layout (validate.h) */
    bool named;      /* fork with parent, executed with task: the older layout */
    uint8_t how[16]; /* how member i is read (convert.c), for the first 16 */
    int64_t pool, worker, task, arg, size_hint, name, site, runtime, begin, end; /* -1: absent */
    int64_t site_size;      /* fork's site and size_hint in one (fjtrace_site_size; -1: absent) */
    int64_t tool;           /* offcpu_task_clock's (-1: absent, an older trace) */
    int64_t switch_follows; /* offcpu_task_clock's (-1: absent, an older trace) */
    /* a load-map event (lttng_ust_statedump / lttng_ust_dl) */
    bool map;
    fja_map_kind map_kind;
    bool map_pic; /* dlopen: always position-independent */
    int64_t baddr, memsz, path, is_pic, build_id;
    int64_t site_vpid, function, file, line; /* fjtrace:site_name */
} class_info;

#define CLASS_SLOTS 1024

/* One decoding thread's cache of event classes (each graph has its own). */
typedef struct {
    class_info classes[CLASS_SLOTS];
    validate_ctx valid; /* the streams' packets and times (validate.h) */
} convert_ctx;

/* Fills rec from an event or discarded-events message (owning copies of
 * what it needs: it outlives the message). Returns 1 when the message is
 * one of those, 0 for the others (stream and packet bounds), -1 when out
 * of memory. */
int convert_message(convert_ctx *c, const bt_message *msg, reader_rec *rec);

/* The stream and trace objects of an event or discarded-events message. */
void convert_keys(const bt_message *msg, uintptr_t *stream, uintptr_t *trace);

/* Where extras come from, in this process (set before the first
 * convert_message): alloc gives size bytes, zeroed, or NULL when there is
 * no room. A decoding process (pread.h) puts them where the replaying
 * process reads them; every reading decodes in such a process. */
void convert_set_extra_alloc(rec_extra *(*alloc)(size_t size));

#endif
