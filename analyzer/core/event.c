#include "event.h"

#include <string.h>

static const char *const kind_names[FJA_EV_COUNT] = {
    [FJA_EV_POOL_BEGIN] = "pool_begin",
    [FJA_EV_POOL_END] = "pool_end",
    [FJA_EV_WORKER_BEGIN] = "worker_begin",
    [FJA_EV_WORKER_END] = "worker_end",
    [FJA_EV_SUBMIT] = "submit",
    [FJA_EV_RESULT] = "result",
    [FJA_EV_FORK] = "fork",
    [FJA_EV_EXEC] = "exec",
    [FJA_EV_EXECUTED] = "executed",
    [FJA_EV_STEAL] = "steal",
    [FJA_EV_JOIN] = "join",
    [FJA_EV_JOINED] = "joined",
    [FJA_EV_COMPLETING] = "completing",
    [FJA_EV_COMPLETED] = "completed",
    [FJA_EV_PARK] = "park",
    [FJA_EV_UNPARK] = "unpark",
    [FJA_EV_WAKE] = "wake",
    [FJA_EV_LOCK_INIT] = "lock_init",
    [FJA_EV_LOCK_WAIT] = "lock_wait",
    [FJA_EV_LOCK_ACQUIRED] = "lock_acquired",
    [FJA_EV_POOL_RUNTIME] = "pool_runtime",
    [FJA_EV_SUSPEND] = "suspend",
    [FJA_EV_RESUME] = "resume",
    [FJA_EV_DEPENDENCE] = "dependence",
    [FJA_EV_OFFCPU] = "offcpu",
    [FJA_EV_OFFCPU_START] = "offcpu_start",
    [FJA_EV_OFFCPU_LOST] = "offcpu_lost",
    [FJA_EV_OFFCPU_UNAVAILABLE] = "offcpu_unavailable",
    [FJA_EV_EXEC_JOINED] = "exec_joined",
    [FJA_EV_OFFCPU_CLIENT] = "offcpu_client",
    [FJA_EV_JOIN_STOLEN] = "join_stolen",
    [FJA_EV_JOIN_DONE] = "join_done",
    [FJA_EV_JOINS_TOLD] = "joins_told",
    [FJA_EV_OFFCPU_CLOCK] = "offcpu_clock",
    [FJA_EV_OFFCPU_TASK_CLOCK] = "offcpu_task_clock",
    [FJA_EV_OFFCPU_OUT] = "(offcpu_out)",
    [FJA_EV_OFFCPU_IN] = "(offcpu_in)",
    [FJA_EV_UNKNOWN] = "unknown",
};

fja_kind fja_event_kind_from_name(const char *name)
{
    /* fork_wide: a fork whose site and size do not fit fork's one field */
    if (strcmp(name, "fork_wide") == 0) return FJA_EV_FORK;
    for (int k = 0; k < FJA_EV_UNKNOWN; k++)
        if (strcmp(kind_names[k], name) == 0) return (fja_kind)k;
    return FJA_EV_UNKNOWN;
}

const char *fja_event_kind_name(fja_kind kind)
{
    return kind < FJA_EV_COUNT ? kind_names[kind] : "invalid";
}
