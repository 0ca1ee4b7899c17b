/* The changes a replay tells (tracker.h makes them, from the events) and
 * their consumers, the listeners: the model's accounting (model.c), the
 * pictures' collector (viz/collect.c), fjtrace-top's view. Apart from
 * tracker.h so that the model, which consumes changes and asks the
 * tracker nothing, depends on the changes only: the tracker calls the
 * model, never the other way round. */
#ifndef FJA_CHANGE_H
#define FJA_CHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "model.h"

typedef enum {
    FJA_CHANGE_STATE,      /* worker switched from -> to (state_since: when it entered from) */
    FJA_CHANGE_TASK_NEW,   /* task record made: fork, submit, or exec of a task never seen (the
                              model fills it in: its flags, forker, parent, tree, size hint) */
    FJA_CHANGE_TASK_BEGIN, /* worker started task's body (exec) */
    FJA_CHANGE_TASK_END,   /* task's body ended (executed); popped off worker */
    FJA_CHANGE_TASK_LOST,  /* task's frame popped without its executed (unbalanced nesting) */
    FJA_CHANGE_TASK_DONE,  /* a counted completer's completion ended (completed) */
    FJA_CHANGE_QUEUE,      /* worker's deque depth changed by delta to depth */
    FJA_CHANGE_STEAL,      /* worker stole task from other */
    FJA_CHANGE_JOIN_BEGIN, /* worker's top task waits in a join for task */
    FJA_CHANGE_JOIN_END,
    FJA_CHANGE_LOCK_BEGIN, /* worker's running task waits for lock (task NONE: no task) */
    FJA_CHANGE_LOCK_END,   /* it got the lock; since: when the wait began */
    FJA_CHANGE_LOCK_NAME,  /* lock_init named lock (source: the trace) */
    FJA_CHANGE_PARK,
    FJA_CHANGE_UNPARK,
    FJA_CHANGE_WAKE,
    FJA_CHANGE_COMPLETING,   /* a completer's completion starts on worker (or a client) */
    FJA_CHANGE_RESULT,       /* a client took the result of root task */
    FJA_CHANGE_SETTLED,      /* worker's event is fully applied: state and running task are final */
    FJA_CHANGE_POOL_END,     /* end of trace: the pool's workers are closed */
    FJA_CHANGE_TASK_SUSPEND, /* an untied task's part ended on worker (not the task) */
    FJA_CHANGE_TASK_RESUME,  /* its next part began on worker */
    FJA_CHANGE_OFFCPU_OUT,   /* worker left the CPU (offcpu: why; counted: mid-task) */
    FJA_CHANGE_OFFCPU_IN,    /* it is back (since: when it left; offcpu, counted: as at OUT) */
    FJA_CHANGE_JOIN_DONE,    /* worker's top task joined its child task, done before (join_done);
                                task NONE: every child done so far (an OpenMP taskwait) */
    FJA_CHANGE_DEPENDENCE,   /* a dependence edge (depend); counted: both its tasks are in
                                the trace, task cannot start before record parent_id is done
                                (else task NONE, parent_id 0: an edge not followed) */
    FJA_CHANGE_OFFCPU_REPORTED,  /* worker reported, late (at its next drain), that it was off
                                    the CPU from since to ts (an offcpu record, believed: inside
                                    its life, after its last one); offcpu: why */
    FJA_CHANGE_UNFINISHED,       /* at the end (before POOL_END), task was left under way on
                                    worker (FJA_NO_WORKER: a client thread's completion): left says
                                    where, since since when; WAITING: parent_id, the task id
                                    awaited (0: none named) */
    FJA_CHANGE_TOOL_TIME,        /* worker's CPU clock reading told the tracer's own time (the
                                    OMPT tool's, the JVM agent's) since its previous reading:
                                    delta ns (0 at its first), beyond */
    FJA_CHANGE_TOOL_TAIL,        /* the switch worker's last CLOCK_READ said follows
                                    (switch_follows) was applied (counted: the time from the
                                    reading, since, to ts was the tracer's own), or it left the
                                    CPU first (not counted: that time is not known); told after
                                    the switch's own changes */
    FJA_CHANGE_WORKER_END,       /* worker's life ended (its worker_end, or the trace's end);
                                    it began at its first STATE out of FJA_WS_OFF (since) */
    FJA_CHANGE_CLOCK_READ,       /* worker's CPU clock was read (joined: at a task boundary,
                                    offcpu_task_clock); counted: compared with its previous
                                    reading, delta the trace's time on the CPU since then less
                                    what the clock counted (either sign: docs/analyses.md) */
    FJA_CHANGE_OFFCPU_RECORDING, /* worker's (FJA_NO_WORKER: a client thread's) off-CPU recording:
                                    offcpu an fja_offcpu_recording, delta its count */
    FJA_CHANGE_CLIENT_OFFCPU,    /* a client thread waiting for root task was off the CPU
                                    from since to ts (its record's end, or the drain that
                                    told it if earlier); offcpu: why */
    FJA_CHANGE_POOL_FACT,        /* the pool's own event said fact (an fja_pool_fact) */
    FJA_CHANGE_POOL_SPAN,        /* at the end (before POOL_END), of a pool an event of which
                                    was replayed: its first event was at since, its last at ts */
    FJA_CHANGE_TRACE_END,        /* the trace's end, after every POOL_END (no pool): --recording
                                    left out delta events of pools other pools (0: none);
                                    counted: a token was chosen (recording) */
    FJA_CHANGE_ANOMALY,          /* event (no pool: about the event) is inconsistent, an
                                    anomaly; with name, why it is not believed (invalid_event;
                                    counted: an event of the trace, not a replayed edge) */
    FJA_CHANGE_KINDS,            /* how many kinds there are (no change is of it) */
} fja_change_kind;

/* What an FJA_CHANGE_POOL_FACT says: the pool began (pool_begin: name
 * the process's, NULL if not recorded; workers declared; delta the pid,
 * counted: told); the runtime that made it (pool_runtime: name its
 * model, NULL for libfj; version); the pool ended (pool_end); every join
 * is in the trace (joins_told). */
typedef enum {
    FJA_FACT_BEGIN,
    FJA_FACT_RUNTIME,
    FJA_FACT_END,
    FJA_FACT_JOINS_TOLD,
} fja_pool_fact;

/* What an FJA_CHANGE_OFFCPU_RECORDING says: the recording started;
 * refused (delta: the errno, -1 when not told); records lost (delta: how
 * many); one interval reported. */
typedef enum {
    FJA_OFFREC_STARTED,
    FJA_OFFREC_REFUSED,
    FJA_OFFREC_LOST,
    FJA_OFFREC_INTERVAL,
} fja_offcpu_recording;

/* fja_change.worker: not on a worker (a submit, a result, a pool's fact,
 * a client thread's COMPLETING); FJA_CLIENT: the pool's client threads
 * (a completion's TASK_DONE on one, fja_pool.client); else the worker's
 * index, which each listener resolves itself (the model makes its slot
 * for a worker at the first change that names it). */
#define FJA_NO_WORKER INT32_MIN
#define FJA_CLIENT (-1)
/* fja_change.pool_index of a change of no pool (LOCK_NAME, TRACE_END, an
 * ANOMALY but one naming its worker: fja_change.worker) */
#define FJA_NO_POOL UINT32_MAX

typedef struct {
    /* Ordered by size, no padding: one is built (zeroed) per change, a few
     * per event, so its size is replay time (bench/RESULTS.md). */
    uint64_t ts;
    uint64_t since; /* STATE: when from began; TASK_BEGIN: when the task was queued (0:
                       unknown); JOIN_END: when the awaited task was done (0: unknown);
                       LOCK_END: when the wait began; TASK_DONE: when completing began
                       (if counted) */
    int64_t delta;  /* QUEUE; TOOL_TIME: the tool's time since the last reading;
                       CLOCK_READ, OFFCPU_RECORDING, POOL_FACT: as their kinds say */
    union {
        int64_t depth;      /* QUEUE */
        uint64_t beyond;    /* TOOL_TIME: what the tool told beyond the thread's clock */
        uint64_t workers;   /* POOL_FACT, FJA_FACT_BEGIN: the workers declared */
        uint64_t size_hint; /* TASK_NEW of a fork: its size hint (saturated at UINT32_MAX) */
        uint64_t pools;     /* TRACE_END: the pools --recording left out */
    };
    uint64_t parent_id; /* TASK_NEW of a fork: the parent named by the event (0: none);
                           DEPENDENCE: the predecessor's record number */
    const char *name;   /* LOCK_NAME, POOL_FACT, ANOMALY: valid during the call */
    union {
        uint64_t ahead;         /* TASK_BEGIN, JOIN_BEGIN, joined: the parent's own code from
                                   fork to join (ns) */
        const char *version;    /* POOL_FACT, FJA_FACT_RUNTIME: valid during the call */
        uint64_t site;          /* TASK_NEW of a fork or submit: its creation site (0: none) */
        const fja_event *event; /* ANOMALY: valid during the call */
        uint64_t recording;     /* TRACE_END: the --recording token (if counted) */
    };
    fja_change_kind kind;
    uint32_t pool_index; /* its pool's number (fja_model.pools[pool_index], each listener
                            resolves it), FJA_NO_POOL: none (above) */
    int32_t worker;      /* its index, FJA_CLIENT or FJA_NO_WORKER (above); ANOMALY: of pool
                            pool_index's event, when the replay met that worker there only */
    uint32_t task;       /* record number, FJA_TASK_NONE when none */
    fja_wstate from, to; /* STATE; OFFCPU_IN: to, the state it was in meanwhile; SETTLED:
                            to, its state now */
    int32_t other;       /* STEAL: the victim; TASK_BEGIN: the forker (-1: none/unknown);
                            TASK_NEW of a root: -1 submitted, else the worker whose exec met
                            a task never seen */
    uint32_t lock;       /* LOCK_*: the lock id */
    uint32_t source;     /* LOCK_NAME */
    bool stolen;         /* TASK_BEGIN: the task was stolen */
    bool counted;        /* QUEUE: the change was not clamped at 0 (a task forked before the
                            trace began); TASK_DONE: its completing was seen;
                            PARK, UNPARK: the worker was not already so;
                            SETTLED: the body of its top task runs (not nested, waiting
                            nor stopped at the worker's close), whatever its state;
                            OFFCPU_*: that body ran when it left the CPU;
                            ANOMALY: as its kind says */
    uint8_t offcpu;      /* OFFCPU_*: FJA_OFFCPU_PREEMPTED or _BLOCKED */
    bool joined;         /* TASK_BEGIN: run by its parent's own join (exec_joined);
                            JOIN_BEGIN: ahead is known (join_stolen) */
    uint8_t left;        /* UNFINISHED: an fja_ustate (in the tail padding: no bigger) */
    uint8_t fact;        /* POOL_FACT: an fja_pool_fact (in the tail padding too) */
    uint8_t anomaly;     /* ANOMALY: an fja_anomaly_kind (in the tail padding too) */
    bool switch_follows; /* CLOCK_READ (joined): the worker's next event is the switch the
                            reading was made for (fja_event.switch_follows; tail padding):
                            a TOOL_TAIL follows it */
} fja_change;

/* A consumer of the changes. model is the one being replayed into, whose
 * pools the changes name by number. */
typedef struct {
    void *ctx;
    void (*change)(void *ctx, fja_model *model, const fja_change *c);
} fja_listener;

/* The model's own accounting (model.c), every tracker's first listener,
 * called by the tracker directly: every change but the five commonest. */
void fja_model_change(void *ctx, fja_model *m, const fja_change *c);

/* The model's entries for the five commonest changes, the only way each
 * reaches the model (fja_model_change ignores them), so that no change is
 * built for them unless another listener listens: SETTLED (worker w, an
 * index, of pool p runs task, or FJA_TASK_NONE, at ts; runs: its top
 * task's body runs, counted), which comes with every event; QUEUE (two
 * per forked task); the TASK_NEW of a fork (task n, the parent named by
 * the event, parent_id, and its record, which the replay found,
 * FJA_TASK_NONE if none; its size hint and creation site); TASK_BEGIN;
 * TASK_END (since: when the body began). */
void fja_model_settled(fja_model *m, fja_pool *p, int32_t w, uint32_t task, bool runs, uint64_t ts);
void fja_model_queue(fja_model *m, fja_pool *p, int32_t w, int64_t delta, int64_t depth,
                     bool counted, uint64_t ts);
void fja_model_forked(fja_model *m, fja_pool *p, int32_t w, uint32_t n, uint64_t parent_id,
                      uint32_t parent, uint32_t size_hint, uint64_t site, uint64_t ts);
void fja_model_task_begin(fja_model *m, fja_pool *p, const fja_change *c);
void fja_model_task_end(fja_model *m, fja_pool *p, int32_t w, uint32_t n, uint64_t since,
                        uint64_t ts);

/* And, before any change of it, each event of the trace the tracker
 * believed (ev), which the model counts: events, by kind, unknown, out
 * of order, the first and last believed (fja_model's event counts, read
 * during the replay by the reading policy, fjtrace-top and the
 * exporters); pool: the number the replay gives ev's pool (in order of
 * first sight), FJA_NO_POOL for an event it replays in no pool. The
 * first event of a pool (numbered fja_model.npools) makes the model's
 * pool, with the source and id of ev (fja_model.oom when memory ran
 * out): the model makes its pools itself, the changes name them by
 * number (pool_index). */
void fja_model_counted(fja_model *m, const fja_event *ev, uint32_t pool);
/* And, after the end of record n's body or completion was told to every
 * listener (TASK_END, TASK_DONE), that the replay holds it no more: the
 * model may give it back (recycle.h), its records being its own. */
void fja_model_release(fja_pool *p, uint32_t n);

#endif
