/* Parallel reading. babeltrace2 runs a graph in one thread, but an LTTng
 * trace is a set of independent stream files (one per CPU and channel):
 * the streams (the ports of source.ctf.fs) are dealt by size to
 * `jobs` decoding threads, each with a graph of its own holding the
 * sources and a sink that takes only its streams. A decoding thread turns
 * messages into records (convert.h) and pushes them into a bounded ring
 * per stream; the calling thread merges the rings by timestamp (a heap on
 * (time, stream number): the order of the single-graph merge, so the
 * report does not depend on jobs) and hands them to deliver.h.
 *
 * Memory is bounded: a ring holds at most RING_BYTES / streams records
 * (at least 64). A thread blocks only when all of its rings are full, and
 * the merge only on a stream whose ring is empty, so they cannot wait for
 * each other. */
#ifndef FJA_PREAD_H
#define FJA_PREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "deliver.h"
#include "graph.h"

typedef struct preader preader;

/* How a stream ended; PORT_RUNNING while its thread may push more. */
enum { PORT_RUNNING, PORT_END, PORT_ERROR, PORT_NO_MEMORY, PORT_ABORTED, PORT_LOST, PORT_REFUSED };

/* jobs: decoding threads wanted (0: one per online core). */
preader *pread_create(unsigned jobs);

/* Graph 0, its sources srcs (one per trace folder dirs[i]) just added:
 * numbers the streams, deals them to the threads (weights.h: the largest
 * first, to the thread with least to do) and adds graph 0's sink. Returns
 * -1 with err set on failure. */
int pread_build_first(preader *p, bt_graph *g, char *const *dirs, const bt_component_source **srcs,
                      size_t ndirs, char *err, size_t errlen);

/* The other threads' graphs, on the same folders. */
int pread_build_rest(preader *p, const plugins *pl, char *const *dirs, size_t ndirs, char *err,
                     size_t errlen);

/* Each decoding thread refuses a dynamic array longer than max_bits
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
    bool aborted;      /* some thread's library state is lost (abortguard.h) */
    /* The first stream that ended at an array lengthguard.h refused (NULL:
     * none): what was refused, its stream, packets begun and folder. */
    const char *refused;
    const char *refused_port_name;
    uint64_t refused_packets;
    size_t refused_source;
} pread_result;

/* Starts the threads, merges into d, joins them. */
void pread_run(preader *p, deliver_ctx *d, pread_result *res);

/* Frees p and its graphs; after an abort (res->aborted) the library's
 * objects are left as they are (abortguard.h) and p is kept reachable. */
void pread_free(preader *p, bool aborted);

#endif
