/* Parallel reading. babeltrace2 runs a graph in one thread, but an LTTng
 * trace is a set of independent stream files (one per CPU and channel):
 * the streams (the ports of source.ctf.fs) are dealt by size to `jobs`
 * decoding processes, each with a graph of its own holding the sources
 * and a sink that takes only its streams. Each process builds its graph
 * and runs it; this one never calls libbabeltrace2 (reader.c learns the
 * streams from a child process too): a crash, an abort or an allocation
 * beyond its budget (RLIMIT_DATA) inside the library ends a child, never
 * this process. With --muxer, one decoding process runs babeltrace2's
 * filter.utils.muxer over all the streams into one ring. A
 * decoding process turns messages into records (convert.h) and pushes
 * them into a bounded ring per stream, their extras into a ring of bytes
 * per stream, both in memory shared with this process and mapped before
 * the fork (at the same addresses in both: a record's extra pointer, and
 * the strings it points to, are valid here as they are). The calling
 * process merges the rings by timestamp (a heap on (time, stream
 * number): the order of the single-graph merge, so the report does not
 * depend on jobs) and hands them to deliver.h.
 *
 * Memory is bounded: a ring holds at most RING_BYTES / streams records
 * (at least 64), a ring of extras four of the largest. A process blocks
 * only when all of its rings are full, and the merge only on a stream
 * whose ring is empty, so they cannot wait for each other; while it
 * waits, the merge looks for decoding processes that died. */
#ifndef FJA_PREAD_H
#define FJA_PREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "deliver.h"

typedef struct preader preader;

/* How a stream ended; PORT_RUNNING while its process may push more.
 * PORT_DAMAGED: libbabeltrace2 failed on it (or ended it early without
 * its end message: pread.c's port_ended), or its process died while
 * decoding it (a crash, an abort, an allocation beyond the budget): that
 * stream ends there, the others are read on (a new process takes the dead
 * one's other streams). PORT_ERROR: the graph failed; PORT_ABORTED: its
 * process died elsewhere, or --muxer's died. Those two, and PORT_NO_MEMORY,
 * end the reading. */
enum { PORT_RUNNING, PORT_END, PORT_ERROR, PORT_NO_MEMORY, PORT_ABORTED, PORT_DAMAGED };

/* jobs: decoding processes wanted (0: one per online core). */
preader *pread_create(unsigned jobs);

/* The streams of the trace folders dirs (kept: the decoding processes
 * open them): names[i] is the name source.ctf.fs gives the output port of
 * stream i, of folder sources[i], in its order. Deals the streams to the
 * processes (weights.h: the largest first, to the process with least to
 * do); muxer: one process reads them all through filter.utils.muxer.
 * Returns -1 when out of memory. */
int pread_setup(preader *p, char *const *dirs, size_t ndirs, char *const *names,
                const uint32_t *sources, uint32_t nports, bool muxer);

/* Instead of pread_setup: one decoding process follows the live session
 * at url (net://HOST[:PORT]/host/HOSTNAME/SESSION, kept) through
 * src.ctf.lttng-live, its records numbered by stream as --muxer's. The
 * merge calls tick as reader.h's fja_live_hooks say (after records were
 * delivered, and with idle = true while the relay has nothing new); its
 * non-zero ends the reading (pread_result's stopped). A death of that
 * process ends the reading (PORT_ABORTED). Returns -1 when out of
 * memory. */
int pread_setup_live(preader *p, const char *url, bool wait_for_session,
                     int (*tick)(void *ctx, bool idle), void *ctx);

/* The bits of the largest packet (0: not known): an event's extra, its
 * strings from one packet, is no larger. */
void pread_set_packet_bits(preader *p, uint64_t bits);

/* The progress line, if wanted: the total bytes of the stream files and
 * their number of packets (0: unknown); the bytes read are estimated from
 * the packets decoded. */
void pread_set_progress(preader *p, bool progress, uint64_t bytes, uint64_t packets);

typedef struct {
    int status;       /* PORT_END: read whole; else how the stream that stopped it ended */
    uint32_t port;    /* that stream */
    uint64_t packets; /* its packets begun */
    size_t source;    /* its trace folder */
    const char *port_name;
    const char *error; /* PORT_ERROR: babeltrace2's reason */
    bool aborted;      /* a decoding process died (PORT_ABORTED) */
    bool stopped;      /* live: the tick asked to stop */
    /* The first stream that ended damaged (NULL: none): why, its stream,
     * packets begun and folder. */
    const char *damaged;
    const char *damaged_port_name;
    uint64_t damaged_packets;
    /* its process died: the library may have decoded past the packets
     * begun (messages of a batch it had not handed over) */
    bool damaged_died;
    size_t damaged_source;
} pread_result;

/* Forks the decoding processes, merges into d, ends and reaps them. */
void pread_run(preader *p, deliver_ctx *d, pread_result *res);

/* Frees p. */
void pread_free(preader *p);

#endif
