/* Perfetto's protobuf trace (TrackEvent format), the compact counterpart of
 * the Chrome JSON trace: an exporter (export.c) drives it, as another
 * drives the Chrome trace, from the same slices; the writer streams packets
 * as they come, so its memory does not grow with the trace (only with the
 * tracks and the distinct slice names).
 *
 * Layout: a process track per pool, a thread track per worker (and one for
 * the client threads), each lane its own packet sequence with its track as
 * the sequence's default, slice names and annotation keys interned per
 * sequence, timestamps as deltas on a sequence-scoped incremental clock;
 * the fork ends of the steals' flows, written late, on a sequence of their
 * own with absolute timestamps.
 * Built only with protobuf-c (perfetto.c); perfetto_none.c says why not. */
#ifndef FJV_PERFETTO_H
#define FJV_PERFETTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "viz_int.h"

typedef struct fjv_pf fjv_pf;

/* A slice's name and what is known about it. */
typedef struct {
    const char *name;
    const fja_task_facts *task; /* NULL: not a task's body */
    uint64_t flow;              /* a flow ending here (fjv_pf_steal), 0: none */
    int64_t lock;               /* a lock wait's lock id, -1: none */
} fjv_pf_slice;

/* Creates path (whole or not at all: fja_outfile). NULL when it cannot, or
 * when this build has no protobuf-c; err says why. */
fjv_pf *fjv_pf_open(const char *path, char *err, size_t errlen);
/* Finishes and frees the writer; 0, or -1 with the reason on err. */
int fjv_pf_close(fjv_pf *w, FILE *err);
/* Removes the unfinished file and frees the writer (NULL: nothing). */
void fjv_pf_abort(fjv_pf *w);

/* Lane l (worker, -1: the client threads) of pool p gets its tracks. */
void fjv_pf_lane(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker);
void fjv_pf_begin(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                  const fjv_pf_slice *s);
/* Ends the lane's innermost slice. */
void fjv_pf_end(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts);
/* The lane's counter (a worker's deque depth, the clients' outstanding
 * requests) is v from ts on. */
void fjv_pf_counter(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts, int64_t v);
/* A steal: a "steal" instant on the forker's lane at the fork time, whose
 * flow ends at the thief's slice of the task (pass the id returned in
 * fjv_pf_slice.flow); 0 when it could not be written. */
uint64_t fjv_pf_steal(fjv_pf *w, fjv_xpool *p, fjv_xlane *forker, int32_t forker_worker,
                      uint64_t fork_ts);

/* The lane's thread is off the CPU from ts (begin) or back (end at ts), on
 * a track of its own next to the lane's: its events come from the
 * scheduler, not the runtime, so they need not nest in its slices. */
void fjv_pf_offcpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                   const char *why);
void fjv_pf_oncpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts);

#endif
