/* Parallel reading. babeltrace2 runs a graph in one thread, but an LTTng
 * trace is a set of independent stream files (one per CPU and channel):
 * the streams (the ports of source.ctf.fs) are dealt by size to `jobs`
 * decoding processes, each with a graph of its own holding the sources
 * and a sink that takes only its streams. The graphs are built here, the
 * processes forked from this one run them: a crash, an abort or an
 * allocation beyond its budget (RLIMIT_DATA) inside libbabeltrace2 ends
 * that process, never this one, whose library state stays whole. A
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
#include "graph.h"

typedef struct preader preader;

/* How a stream ended; PORT_RUNNING while its process may push more.
 * PORT_ABORTED: its process died while reading it; PORT_LOST: while
 * reading another of its streams. */
enum { PORT_RUNNING, PORT_END, PORT_ERROR, PORT_NO_MEMORY, PORT_ABORTED, PORT_LOST, PORT_REFUSED };

/* jobs: decoding processes wanted (0: one per online core). */
preader *pread_create(unsigned jobs);

/* Graph 0, its sources srcs (one per trace folder dirs[i]) just added:
 * numbers the streams, deals them to the processes (weights.h: the largest
 * first, to the process with least to do) and adds graph 0's sink. Returns
 * -1 with err set on failure. */
int pread_build_first(preader *p, bt_graph *g, char *const *dirs, const bt_component_source **srcs,
                      size_t ndirs, char *err, size_t errlen);

/* The other processes' graphs, on the same folders. */
int pread_build_rest(preader *p, const plugins *pl, char *const *dirs, size_t ndirs, char *err,
                     size_t errlen);

/* Each decoding process refuses a dynamic array longer than max_bits
 * (lengthguard.h); 0: no guard. A stream where one is refused ends there
 * (PORT_REFUSED), the others are read on. */
void pread_set_guard(preader *p, uint64_t max_bits);

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
    /* The first stream that ended at an array lengthguard.h refused (NULL:
     * none): what was refused, its stream, packets begun and folder. */
    const char *refused;
    const char *refused_port_name;
    uint64_t refused_packets;
    size_t refused_source;
} pread_result;

/* Forks the decoding processes, merges into d, ends and reaps them. */
void pread_run(preader *p, deliver_ctx *d, pread_result *res);

/* Frees p and its graphs (this process's: a decoding process's death
 * leaves them whole); aborted: p is kept reachable instead. */
void pread_free(preader *p, bool aborted);

#endif
