/* What the events claim, checked before the model believes it (issue 24).
 * libbabeltrace2 decodes whatever the metadata and the bytes say: two
 * changed bytes in an event header moved the rest of a packet 4 s ahead
 * (exit 0, every figure wrong), and a metadata that names fjtrace:joined
 * fjtrace:pool_begin made joins into pools. Here, per stream:
 *
 * - an event's time lies inside its packet's bounds (timestamp_begin ..
 *   timestamp_end of the packet header, as the packet walk read them,
 *   packets.h) and never goes back within the stream;
 * - an fjtrace event's class has the provider's field layout for its name
 *   (tracepoints/fjtrace_tp.h, read at build time: tp-layout.py): no
 *   member the provider never gives that event, and pool, worker (and
 *   task, when the event has one) present, of integer type.
 *
 * An event that fails is not handed to the model as an event: the reader
 * makes it an invalid record (convert.h) whose reason names the stream
 * file and packet; the model counts it as an anomaly (invalid_event) and
 * the report is not whole. The checks of what an event says about the
 * model (a worker below the pool's size or begun, a pool that began,
 * off-CPU intervals inside a worker's life) are the tracker's (tracker.c),
 * which knows the pools. */
#ifndef FJA_VALIDATE_H
#define FJA_VALIDATE_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The packet bounds of every stream file of the traces about to be read,
 * in clock cycles, from their headers. Built by the reading thread before
 * the decoding threads get work (which the work queue orders after it),
 * read-only while they decode. */
void validate_bounds_clear(void);
/* Adds the stream files of trace folder dir (the folder libbabeltrace2
 * reads: a salvage copy when there is one). -1 when out of memory (then
 * the times of those streams are not checked). */
int validate_bounds_add(const char *dir);

#define VALIDATE_SLOTS 1024

/* One stream as one decoding context sees it. */
typedef struct {
    const bt_stream *stream; /* NULL: free slot */
    const void *file;        /* its packet bounds (NULL: not known, not checked) */
    uint64_t packet;         /* packets begun so far (the current one, 1-based) */
    uint64_t last;           /* clock value of its last event accepted */
} validate_slot;

typedef struct {
    validate_slot slots[VALIDATE_SLOTS];
    /* the slot found last: a decoding process converts a run of one
     * stream's messages (pread.c's PUSH_BUDGET), so that one lookup in the
     * table per event was all misses of this one */
    validate_slot *last;
} validate_ctx;

/* A packet of stream s begins. */
void validate_packet(validate_ctx *c, const bt_stream *s);

/* Whether an event of stream s at clock value cycles may be believed:
 * true, and its clock value is the stream's last, or false (the stream's
 * state unchanged: validate_time then says why). The check of every
 * event, without validate_time's buffers for the reason. */
bool validate_time_ok(validate_ctx *c, const bt_stream *s, uint64_t cycles);

/* Whether an event of stream s at clock value cycles may be believed:
 * NULL, or why not ("FILE: packet K: ...", written into why). */
const char *validate_time(validate_ctx *c, const bt_stream *s, uint64_t cycles, char *why,
                          size_t n);

/* "FILE: packet K" of the event's stream, for a reason of the caller's. */
void validate_where(validate_ctx *c, const bt_stream *s, char *where, size_t n);

/* Whether the payload class of fjtrace event `name` (without "fjtrace:")
 * fits the provider's layout for it: NULL, or why not (into why). A name
 * the provider does not define is not checked here (an unknown event). */
const char *validate_layout(const char *name, const bt_field_class *payload, char *why, size_t n);

#endif
