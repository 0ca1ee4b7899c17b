/* The analyzer's event record: one decoded fjtrace event, independent of
 * babeltrace2 so that tests can build event streams by hand. Field meanings
 * follow tracepoints/fjtrace_tp.h. */
#ifndef FJA_EVENT_H
#define FJA_EVENT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    FJA_EV_POOL_BEGIN,
    FJA_EV_POOL_END,
    FJA_EV_WORKER_BEGIN,
    FJA_EV_WORKER_END,
    FJA_EV_SUBMIT,
    FJA_EV_RESULT,
    FJA_EV_FORK,
    FJA_EV_EXEC,
    FJA_EV_EXECUTED,
    FJA_EV_STEAL,
    FJA_EV_JOIN,
    FJA_EV_JOINED,
    FJA_EV_COMPLETING,
    FJA_EV_COMPLETED,
    FJA_EV_PARK,
    FJA_EV_UNPARK,
    FJA_EV_WAKE,
    FJA_EV_LOCK_INIT,
    FJA_EV_LOCK_WAIT,     /* arg: lock id */
    FJA_EV_LOCK_ACQUIRED, /* arg: lock id */
    /* OpenMP (the OMPT tool, docs/openmp.md) */
    FJA_EV_POOL_RUNTIME, /* name: the model ("openmp"), runtime: its version */
    FJA_EV_SUSPEND,      /* an untied task leaves its thread unfinished */
    FJA_EV_RESUME,       /* and goes on, maybe on another thread */
    FJA_EV_DEPENDENCE,   /* task waits for arg.pred (depend clauses) */
    /* off-CPU time (docs/events.md): an interval, reported late (begin, end,
     * arg.offcpu); its recording starting; records lost; perf refused */
    FJA_EV_OFFCPU,
    FJA_EV_OFFCPU_START,
    FJA_EV_OFFCPU_LOST,        /* arg: records lost */
    FJA_EV_OFFCPU_UNAVAILABLE, /* arg: errno */
    /* exec by the task's parent's own join; arg.ahead: how long the parent
     * ran its own code between the fork's return and the join */
    FJA_EV_EXEC_JOINED,
    /* a client thread's interval off the CPU (begin, end, arg.offcpu),
     * drained when its wait for root task ended */
    FJA_EV_OFFCPU_CLIENT,
    /* join of a stolen task (instead of join); arg.ahead as in exec_joined */
    FJA_EV_JOIN_STOLEN,
    /* a join found its task done (not run by it): the join is here */
    FJA_EV_JOIN_DONE,
    /* pool event: every join of the pool is told (join_done included) */
    FJA_EV_JOINS_TOLD,
    /* a worker thread's CPU clock at its off-CPU recording's start and
     * drains (arg.cpu, ns) */
    FJA_EV_OFFCPU_CLOCK,
    /* the same at a point where its task changes or waits (the OMPT tool):
     * the off-CPU intervals between two are fitted to it (offcpu.h) */
    FJA_EV_OFFCPU_TASK_CLOCK,
    /* Not in traces: the boundaries of the off-CPU intervals, replayed in
     * time order by fja_offcpu_replay (offcpu.h); arg.offcpu the kind. */
    FJA_EV_OFFCPU_OUT,
    FJA_EV_OFFCPU_IN,
    FJA_EV_UNKNOWN, /* an fjtrace event this analyzer does not know */
    FJA_EV_COUNT
} fja_kind;

/* The one argument an event carries besides its task; which member is
 * meaningful depends on the kind. The tracepoints name it differently per
 * event, so the reader stores it once (fja_event_set_arg) and the model
 * reads it under the name of its kind. */
typedef union {
    uint64_t parent;  /* fork of the older layout (named): the forking task's id (0: none) */
    uint64_t victim;  /* steal: the worker robbed */
    uint64_t target;  /* wake: the worker woken */
    uint64_t workers; /* pool_begin: the declared worker count */
    uint64_t lock;    /* lock_init, lock_wait, lock_acquired: the lock id */
    uint64_t pred;    /* dependence: the task that must complete first */
    uint64_t offcpu;  /* offcpu, offcpu_out: FJA_OFFCPU_PREEMPTED or _BLOCKED */
    uint64_t lost;    /* offcpu_lost: switch records lost */
    uint64_t error;   /* offcpu_unavailable: the errno perf gave */
    uint64_t ahead;   /* exec_joined, join_stolen: ns of the parent's own code from fork to join */
    uint64_t cpu;     /* offcpu_clock, offcpu_task_clock: the thread's CPU clock, ns */
} fja_event_arg;

/* Why a worker was off the CPU (the offcpu event's kind). */
enum { FJA_OFFCPU_PREEMPTED = 0, FJA_OFFCPU_BLOCKED = 1, FJA_OFFCPU_KINDS = 2 };

typedef struct {
    uint64_t ts;   /* nanoseconds from the clock origin */
    uint64_t task; /* task id, for the task events */
    fja_event_arg arg;
    uint64_t size_hint; /* fork only */
    uint64_t site;      /* fork, submit: the creation site, a return address (0: unknown) */
    /* lock_init: the lock's name; pool_runtime: the model; valid during
     * the call only */
    const char *name;
    const char *runtime; /* pool_runtime: the runtime's version string */
    /* offcpu only: the interval, ns from the clock origin; a replayed
     * return (offcpu_in) as the trace recorded it: end (0: made or moved by
     * the seal, offcpu.h) */
    uint64_t begin, end;
    /* pool_begin: the process's name and pid from the recording's procname
     * and vpid contexts (NULL and -1 without them); valid during the call */
    const char *procname;
    int64_t pid;
    uint64_t recording; /* pool_begin: its FJTRACE_RECORDING token (0: none) */
    /* offcpu_task_clock: the OMPT tool's own time in its callbacks on the
     * thread so far, ns, when tool_told (traces recorded before the tool
     * timed itself do not tell it) */
    uint64_t tool;
    uint32_t pool;
    int32_t worker;  /* -1 on a thread that is not a worker */
    uint32_t source; /* index of the trace it came from: pool ids are per process */
    fja_kind kind;
    /* fork, executed of the older layout: fork names its parent (arg.parent,
     * 0: none), executed its task. The current layout names neither: the
     * parent is the task of the worker's innermost open exec, which is what
     * executed closes (docs/events.md). */
    bool named;
    bool tool_told;
    /* offcpu_task_clock: the worker's next event is the switch this reading
     * was made for, in the same callback (traces recorded before the tool
     * told it: false) */
    bool switch_follows;
} fja_event;

/* Stores the kind's argument, whatever the tracepoint calls it. */
static inline void fja_event_set_arg(fja_event *ev, uint64_t value)
{
    ev->arg = (fja_event_arg){.parent = value}; /* every member is the same word */
}

/* "fork" -> FJA_EV_FORK; any other name -> FJA_EV_UNKNOWN. The name is the
 * part after "fjtrace:". */
fja_kind fja_event_kind_from_name(const char *name);
const char *fja_event_kind_name(fja_kind kind);

#endif
