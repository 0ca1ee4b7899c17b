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

typedef enum {
    REC_FJTRACE,   /* an fjtrace event: ev */
    REC_OTHER,     /* another provider's event, counted only */
    REC_MAP,       /* a load-map event (counted as other too): map, when map_valid */
    REC_DISCARDED, /* a discarded-events notice: count, ts, carries_fjtrace */
} rec_type;

/* One message the merge and the consumer need. Strings point into the
 * message (valid while it is held) or into strings, a block the record
 * owns once rec_own_strings copied them. */
typedef struct {
    int64_t head; /* merge key: the event's time; INT64_MIN: deliver at once */
    rec_type type;
    bool count_known;     /* discarded */
    bool carries_fjtrace; /* discarded: its stream class holds fjtrace events */
    bool map_valid;       /* map: its fields could all be read */
    uint64_t count, ts;   /* discarded */
    /* Which stream and trace it came from (the bt_stream and bt_trace;
     * pread.h puts its own numbers there): keys the consumer compares. */
    uintptr_t stream, trace;
    union {
        fja_event ev;
        fja_map_event map;
    } u;
    char *strings;
} reader_rec;

/* Member indices of one event class, resolved once: looking fields up by
 * name for each of millions of events would dominate the decoding cost. */
typedef struct {
    const bt_event_class *cls;
    fja_kind kind;
    bool fjtrace;
    bool clock; /* its stream class has a default clock */
    int64_t pool, worker, task, arg, size_hint, name, site, runtime, begin, end; /* -1: absent */
    /* a load-map event (lttng_ust_statedump / lttng_ust_dl) */
    bool map;
    fja_map_kind map_kind;
    bool map_pic; /* dlopen: always position-independent */
    int64_t baddr, memsz, path, is_pic, build_id;
} class_info;

#define CLASS_SLOTS 1024

/* One decoding thread's cache of event classes (each graph has its own). */
typedef struct {
    class_info classes[CLASS_SLOTS];
    uint8_t build_id[64]; /* a map record's build id until it is owned */
} convert_ctx;

/* Fills rec from an event or discarded-events message. Returns 1 when the
 * message is one of those, 0 for the others (stream and packet bounds). */
int convert_message(convert_ctx *c, const bt_message *msg, reader_rec *rec);

/* Copies the strings rec points to into rec->strings, so that it outlives
 * its message. Returns -1 when out of memory. */
int rec_own_strings(reader_rec *rec);

#endif
