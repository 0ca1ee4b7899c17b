/* The tracker: the one replay of the event stream. It keeps, per pool and
 * worker, what is going on now (the frame stack of running, joining and
 * lock-waiting tasks, parked or not, the deque depth, the steal waiting for
 * its exec, the completion under way), makes the task records (the model
 * fills them in and makes the trees, from TASK_NEW and the changes after),
 * switches worker states through a single function, and tells every
 * listener what changed. Everything else consumes those changes: the model's
 * accounting (model.c) is one listener, the pictures' collector
 * (viz/collect.c) another. Like Perfetto's slice tracker, and cheetah's one
 * cilk_switch_timing(w, from, to) transition.
 *
 * The frame stacks, the completions under way, the deque depths, the
 * pending steals, the lock waits, and each worker's life, state, parks,
 * stays off the CPU and last CPU-clock reading are the tracker's own
 * (struct fja_replay, private to tracker.c): a listener asks it nothing,
 * what they leave under way at the end it is told
 * (FJA_CHANGE_UNFINISHED), a worker's life by
 * STATE (its first, out of FJA_WS_OFF) and WORKER_END. A change names
 * its worker by index (change.h), which each listener resolves: the
 * model makes its own worker slots, and its pools, numbered by the
 * tracker in order of first sight (fja_model_counted). What the replay knows of each task
 * (flags, parent, the worker holding it, its queue slot) is its own too,
 * per record number; the records themselves are still made by the
 * tracker in the fja_model's pools (model.h), whose index by id it
 * shares, so a listener reads the task records it is told about; the
 * pools --recording leaves out are the tracker's own
 * (fja_tracker_recording).
 * The changes and the listener are change.h's. The tracker books no time: the model books
 * self time in task bodies of its own (fja_body), from the changes. */
#ifndef FJA_TRACKER_H
#define FJA_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "change.h"
#include "event.h"
#include "model.h"

#define FJA_MAX_LISTENERS 4

/* A pool as the events name it: pool ids are per process (trace). */
typedef struct {
    uint32_t source, pool;
} fja_pool_key;

/* The replay's state that no listener reads (tracker.c), per pool and
 * worker: the tracker's alone (the frame stacks, the completions under
 * way), out of model.h's fja_worker. */
struct fja_replay;

typedef struct {
    fja_model *model;
    struct fja_replay *replay; /* made by the first event */
    fja_listener listeners[FJA_MAX_LISTENERS];
    uint32_t nlisteners;
    uint32_t last_pool; /* the pool of the last event fed (its number), a lookup cache */
    uint64_t last_ts;   /* the latest event believed: where a pool cut short ends */
    /* --recording (fja_tracker_recording): the token, and the pools left
     * out as met (a pool_begin with another token) */
    bool recording_set;
    uint64_t recording;
    fja_pool_key *foreign;
    uint32_t nforeign, cap_foreign;
    uint64_t left_out_pools, left_out_events; /* told at the end (TRACE_END) */
    bool finished;                            /* fja_tracker_finish ran */
    bool oom;                                 /* memory ran out in the replay */
} fja_tracker;

/* A tracker replaying into m, with the model's own accounting as its first
 * listener: one per replay (every event of it goes through the same one,
 * and fja_tracker_free ends it), as the replay's state is the tracker's. */
void fja_tracker_init(fja_tracker *t, fja_model *m);
/* Adds a listener after the ones already there. -1 when the list is full. */
int fja_tracker_listen(fja_tracker *t, fja_listener l);
/* Before the first event: replay only the pools of the recording whose
 * token (FJTRACE_RECORDING, pool_begin's `recording`) is `token`; the
 * others are left out, their pools and events counted, and told to the
 * model with the token at the end (TRACE_END). */
void fja_tracker_recording(fja_tracker *t, uint64_t token);
/* Frees what the replay kept of its own (the pools left out); the model
 * and the listeners stay. */
void fja_tracker_free(fja_tracker *t);
/* Replays one event (timestamp order, ties in any order). Returns 0, or -1
 * when memory ran out (the model stays usable). */
int fja_tracker_feed(fja_tracker *t, const fja_event *ev);
/* Did memory run out, in the replay or in its model? Then the replay was
 * abandoned and its figures are not to be reported. */
bool fja_tracker_oom(const fja_tracker *t);
/* End of the trace: closes every worker still running (at its pool's end,
 * or the trace's last event) and sends POOL_END for each pool. */
void fja_tracker_finish(fja_tracker *t);

#endif
