/* The analyzer's event record: one decoded fjtrace event, independent of
 * babeltrace2 so that tests can build event streams by hand. Field meanings
 * follow tracepoints/fjtrace_tp.h. */
#ifndef FJA_EVENT_H
#define FJA_EVENT_H

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
    FJA_EV_UNKNOWN,       /* an fjtrace event this analyzer does not know */
    FJA_EV_COUNT
} fja_kind;

typedef struct {
    uint64_t ts;   /* nanoseconds from the clock origin */
    uint64_t task; /* task id, for the task events */
    uint64_t arg;  /* fork: parent id; steal: victim; wake: target; pool_begin: workers; lock */
    uint64_t size_hint; /* fork only */
    const char *name;   /* lock_init: the lock's name, valid during the call only */
    /* pool_begin: the process's name and pid from the recording's procname
     * and vpid contexts (NULL and -1 without them); valid during the call */
    const char *procname;
    int64_t pid;
    uint32_t pool;
    int32_t worker;  /* -1 on a thread that is not a worker */
    uint32_t source; /* index of the trace it came from: pool ids are per process */
    fja_kind kind;
} fja_event;

/* "fork" -> FJA_EV_FORK; any other name -> FJA_EV_UNKNOWN. The name is the
 * part after "fjtrace:". */
fja_kind event_kind_from_name(const char *name);
const char *event_kind_name(fja_kind kind);

#endif
