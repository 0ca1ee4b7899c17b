/* The consumer side of the reader: takes records (convert.h) in merge
 * order and hands them to the sink (reader.h) -- the counts, the trace
 * numbering, the window of a snapshot trace. One thread only. */
#ifndef FJA_DELIVER_H
#define FJA_DELIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "convert.h"
#include "reader.h"

/* Keys below this (the parallel reader's stream and trace numbers) are
 * looked up in tables indexed by the key; the others (the muxer's object
 * addresses, or numbers past this many streams or traces) in a hash map. */
#define SMALL_KEYS 4096

/* An open-addressed map from a key >= SMALL_KEYS to a value (0: absent). */
typedef struct {
    uintptr_t *keys;
    uint32_t *vals;
    size_t cap, n; /* cap: a power of two, or 0 */
} deliver_map;

typedef struct {
    const fja_reader_sink *sink;
    fja_reader_stats *stats;
    bool stopped;           /* the event callback asked to stop */
    uint32_t ntraces;       /* traces seen: any number (no limit, no folding) */
    deliver_map big_source; /* source + 1 of a trace key >= SMALL_KEYS */
    /* Streams that have delivered an event: a discarded-events notice on a
     * stream before its first event means its beginning was overwritten (a
     * snapshot of overwrite-mode buffers); the trace is then read from the
     * latest such beginning on, when every stream has its events. */
    deliver_map big_had_events; /* 1 for a stream key >= SMALL_KEYS */
    uint64_t *window;           /* per source: first time kept (0: all) */
    uint32_t cap_window;
    /* Streams that begun late (packets.h: their first packet is not packet
     * 0), by class and instance id: only their discarded-events notice
     * before a first event is a lost beginning; any other stream's is a
     * loss inside the stream, counted, and its events are all read (one
     * lost event in a stream's first packet made the analyzer leave out
     * the whole trace before that packet's end). late_unknown: some trace
     * could not be walked, any stream may have begun late. */
    uint64_t (*late)[2];
    size_t nlate, cap_late;
    bool late_unknown;
    /* The folders read, by the parallel reader's trace key less one (a
     * port's folder); NULL when the keys are not folders (the muxer's and
     * the live reading's). For the sink's trace_seen. */
    char *const *folders;
    size_t nfolders;
    bool small_had_events[SMALL_KEYS]; /* big_had_events, for small stream keys */
    uint32_t small_source[SMALL_KEYS]; /* source + 1 of a small trace key (0: none yet) */
} deliver_ctx;

void deliver_init(deliver_ctx *d, const fja_reader_sink *sink, fja_reader_stats *stats);
void deliver_free(deliver_ctx *d);
/* Notes a stream that begun late (packets_check's callback; ctx: the
 * deliver_ctx). Out of memory: every stream may then have begun late. */
void deliver_late(void *ctx, uint64_t cls, uint64_t inst);

/* Hands rec, of the stream and trace known by those keys, to the sink.
 * Returns -1 when out of memory (d->stopped set). */
int deliver(deliver_ctx *d, const reader_rec *rec, uintptr_t stream, uintptr_t trace);

#endif
