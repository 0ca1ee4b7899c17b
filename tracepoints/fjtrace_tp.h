/*
 * The fjtrace LTTng-UST tracepoint provider. Every event carries the pool id
 * and the emitting worker's index (-1 on a thread that is not a worker).
 * Payloads are tight, since every byte is recorded millions of times: pool
 * ids and worker indices are 16 bits in the trace (the arguments stay 32),
 * placed first so that a 64-bit field after them needs no padding behind the
 * 32-bit compact event header; who the process and the threads are is said
 * once (pool_begin: vpid, procname; worker_begin: tid), not in a context of
 * every event.
 * Field names and meanings are documented in docs/events.md; the analyzer
 * (analyzer/reader) depends on them, so change both together.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fjtrace

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "fjtrace_tp.h"

#if !defined(FJTRACE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FJTRACE_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef FJTRACE_TP_HELPERS
#define FJTRACE_TP_HELPERS
/* The calling thread's name (what LTTng's procname context records), for
 * pool_begin; evaluated only when the event is recorded. */
static inline const char *fjtrace_thread_name(void)
{
    static _Thread_local char name[17];
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0) name[0] = '\0';
    return name;
}

/* The recording this process belongs to: FJTRACE_RECORDING, which
 * fjtrace-record exports to CMD and its descendants inherit (0 when unset),
 * for pool_begin; evaluated only when the event is recorded. */
static inline uint64_t fjtrace_recording(void)
{
    const char *token = getenv("FJTRACE_RECORDING");
    return token ? strtoull(token, NULL, 10) : 0;
}

/* fork's site_size: the creation site in its low 48 bits (a user-space
 * address, or a producer's site number), size_hint in its high 16. A fork
 * whose values do not fit (a size of 65535 or more, an address at or above
 * 2^48) is emitted as fork_wide, which carries them as they are: emitters
 * choose with fjtrace_fork_packs. */
#define FJTRACE_SITE_BITS 48
static inline int fjtrace_fork_packs(uint64_t size_hint, uint64_t site)
{
    return size_hint < (UINT64_C(1) << (64 - FJTRACE_SITE_BITS)) &&
           site < (UINT64_C(1) << FJTRACE_SITE_BITS);
}
static inline uint64_t fjtrace_site_size(uint64_t size_hint, uint64_t site)
{
    return site | size_hint << FJTRACE_SITE_BITS;
}
#endif

/* The LTTng event DSL reads best laid out by hand, one field a line, so
 * clang-format leaves the rest of this file alone: the marker below has no
 * matching "on", so events appended at the end stay as laid out too.
 * (clang-format 14 ignores a marker with more text in its comment, and
 * some block-comment markers: keep it a bare line comment.) */
// clang-format off

/* pool + worker only */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fjtrace, where,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
    )
)

/* pool + worker + one task id */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fjtrace, task_event,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
    )
)

/* The process, said once per pool: its pid and its name (the creating
 * thread's name, as LTTng's procname context would give), and the
 * recording it belongs to (fjtrace-record's token, inherited through the
 * environment by CMD's descendants; 0: none). */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, pool_begin,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint32_t, workers),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint32_t, workers, workers)
        lttng_ust_field_integer(int32_t, vpid, getpid())
        lttng_ust_field_integer(uint64_t, recording, fjtrace_recording())
        lttng_ust_field_string(procname, fjtrace_thread_name())
    )
)

/* The thread, said once per worker. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, worker_begin,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(int32_t, tid, gettid())
    )
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, pool_end,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, worker_end,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, park,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, unpark,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))

/* site: the creation site, the return address of the call to fj_fork (or
 * fj_completer_fork, fj_submit, fj_invoke, a typed spawn) in the program:
 * resolved to a source line with the process's load map
 * (lttng_ust_statedump, lttng_ust_dl). size_hint: the task's size, 0 unknown.
 * No parent: it is the task whose exec is the innermost open one on the
 * forking worker (the analyzer derives it; 8 bytes and a field write less
 * per fork).
 * fork carries site and size_hint in one 64-bit field, site_size
 * (fjtrace_site_size: 48 bits of site, 16 of size_hint), when they fit
 * (fjtrace_fork_packs): a field write of liblttng-ust's and 4 bytes less
 * per fork than two fields (bench/RESULTS.md, 2026-12-06). fork_wide, the
 * same fork with its two fields, otherwise: size_hint saturated at
 * UINT32_MAX. Traces recorded before 2026-12-06 have fork with fork_wide's
 * fields (the analyzer reads both). */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, fork,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task,
                      uint64_t, size_hint, uint64_t, site),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer_hex(uint64_t, site_size, fjtrace_site_size(size_hint, site))
    )
)
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, fork_wide,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task,
                      uint64_t, size_hint, uint64_t, site),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(uint32_t, size_hint,
                                size_hint > UINT32_MAX ? UINT32_MAX : (uint32_t)size_hint)
        lttng_ust_field_integer_hex(uint64_t, site, site)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(fjtrace, submit,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint64_t, site),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer_hex(uint64_t, site, site)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, result,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, exec,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
/* executed names no task: it closes the worker's innermost open exec. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, executed,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, join,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, joined,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, completing,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, completed,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))

LTTNG_UST_TRACEPOINT_EVENT(fjtrace, steal,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, int32_t, victim),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(int16_t, victim, victim)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(fjtrace, wake,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, int32_t, target),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(int16_t, target, target)
    )
)

/* fj_mutex: its name once, then only contended acquisitions. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, lock_init,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint32_t, lock, const char *, name),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint32_t, lock, lock)
        lttng_ust_field_string(name, name)
    )
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(fjtrace, lock_event,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint32_t, lock),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint32_t, lock, lock)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, lock_event, fjtrace, lock_wait,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint32_t, lock))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, lock_event, fjtrace, lock_acquired,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint32_t, lock))

/* Off-CPU time of a worker thread (tracepoints/switches.c), from its perf
 * context-switch records, emitted when drained: begin/end are the original
 * CLOCK_MONOTONIC times (ns) of the switch-out and the switch-in; kind 0 =
 * preempted (still runnable), 1 = blocked (slept). offcpu_start: recording
 * of this worker's switches begins now; offcpu_lost: perf dropped `lost`
 * records (intervals missing); offcpu_unavailable: perf_event_open or its
 * ring was refused with `error` (an errno): this worker's off-CPU time is
 * unknown. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, offcpu,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, begin, uint64_t, end,
                      uint8_t, kind),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, begin, begin)
        lttng_ust_field_integer(uint64_t, end, end)
        lttng_ust_field_integer(uint8_t, kind, kind)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, offcpu_start,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, offcpu_lost,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, lost),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, lost, lost)
    )
)
/* The worker thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID, ns) when its
 * recording starts and at each drain, after the drained intervals. Between
 * two readings, the trace's clock less the intervals off the CPU is the
 * time perf's records put on the CPU; what the thread's clock did not count
 * of it is time the analyzer cannot give to any task (docs/events.md).
 * offcpu_task_clock (below): the same reading where a task's piece ends. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fjtrace, clock_event,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, cpu),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, cpu, cpu)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, clock_event, fjtrace, offcpu_clock,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, cpu))
/* The thread's CPU clock at a point where its task changes or waits (the
 * OMPT tool's task schedule points and waits): the analyzer fits perf's
 * intervals between two such readings to the clock, so each task piece's
 * on-CPU time is the kernel's own count. tool: the tool's own time in its
 * callbacks on this thread so far, ns (timed with the TSC from entry to
 * exit, up to this reading): the CPU time between two readings that was
 * the tool's, not the task's. switch_follows: 1 when the thread's next
 * event is the task switch this reading was made for, emitted by the same
 * callback: the time between the two is the tool's too (docs/events.md). */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, offcpu_task_clock,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, cpu, uint64_t, tool,
                      uint8_t, switch_follows),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, cpu, cpu)
        lttng_ust_field_integer(uint64_t, tool, tool)
        lttng_ust_field_integer(uint8_t, switch_follows, switch_follows)
    )
)
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, offcpu_unavailable,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, int32_t, error),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(int32_t, error, error)
    )
)

/* OpenMP (the libfjtrace-omp OMPT tool, docs/openmp.md). */
/* Which runtime made the pool: model "openmp" and the runtime's own version
 * string. libfj pools emit none. Right after pool_begin. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, pool_runtime,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, const char *, model, const char *, runtime),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_string(model, model)
        lttng_ust_field_string(runtime, runtime)
    )
)
/* An untied task leaves its thread unfinished (suspend) and goes on later,
 * maybe on another thread (resume). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, suspend,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, resume,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))
/* task may not start before pred is done (an OpenMP depend clause). */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, dependence,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint64_t, pred),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(uint64_t, pred, pred)
    )
)

/* A task event of a join that knows how long the parent ran ahead of it:
 * ahead = the ns the parent ran its own code between its fj_fork of task
 * returning and its call to fj_join (runtime/src/sched.c), in 32 bits (up
 * to 4.29 s; a longer one is not given: exec or join instead). The rest of the
 * parent's time from the fork to the event is the fork's and the join's
 * own cost: the parent waited, and the analyzer's span says so. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(fjtrace, task_ahead_event,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint32_t, ahead),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(uint32_t, ahead, ahead)
    )
)

/* exec of a task that its own parent's join runs (popped from the parent's
 * worker's deque inside fj_join): instead of exec, same meaning. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_ahead_event, fjtrace, exec_joined,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint32_t, ahead))

/* Off-CPU time of a client thread (not a worker: fj_submit, fj_invoke from
 * outside the pools), drained when its wait for root `task` is over, just
 * before that root's result: the thread was off the CPU from begin to end
 * (as offcpu; worker -1). offcpu_start / offcpu_unavailable with worker -1
 * say the client thread's recording began or was refused. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, offcpu_client,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint64_t, begin,
                      uint64_t, end, uint8_t, kind),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer(uint64_t, task, task)
        lttng_ust_field_integer(uint64_t, begin, begin)
        lttng_ust_field_integer(uint64_t, end, end)
        lttng_ust_field_integer(uint8_t, kind, kind)
    )
)

/* join of a task a thief took (the parent's fj_join has to wait for it):
 * instead of join, same meaning; the analyzer puts the fork's and the
 * join's own cost before the stolen child on the span's path, as for
 * exec_joined (a chain of empty tasks passed back and forth between two
 * workers is sequential). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_ahead_event, fjtrace, join_stolen,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task, uint32_t, ahead))

/* A join that found its task already done (a thief finished it, or its
 * fork ran it at once into a full deque) and did not run it itself: the
 * join happens here, with no wait. The analyzer joins the child's path to
 * its parent's at this point, not when the child finished (a producer's
 * later forks do not come after its earlier children). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, task_event, fjtrace, join_done,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, task))

/* Right after pool_begin: every join of this pool's traced tasks is told
 * (join/join_stolen..joined when it waits, exec_joined when it runs its
 * task, join_done otherwise), so a child's path can wait for its join. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(fjtrace, where, fjtrace, joins_told,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker))

/* A creation site named by its producer instead of by an address (the JVM
 * agent, docs/java.md): site is a small number the fork/submit events of
 * process vpid carry in their own site field; function is
 * "package.Class.method", file the class's source file ("" unknown), line
 * its source line (0 unknown). Said once per site and recording, before the
 * site's first use; pool 0, worker -1. */
LTTNG_UST_TRACEPOINT_EVENT(fjtrace, site_name,
    LTTNG_UST_TP_ARGS(uint32_t, pool, int32_t, worker, uint64_t, site, const char *, function,
                      const char *, file, uint32_t, line),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, pool, pool)
        lttng_ust_field_integer(int16_t, worker, worker)
        lttng_ust_field_integer_hex(uint64_t, site, site)
        lttng_ust_field_integer(uint32_t, line, line)
        lttng_ust_field_integer(int32_t, vpid, getpid())
        lttng_ust_field_string(function, function)
        lttng_ust_field_string(file, file)
    )
)

#endif /* FJTRACE_TP_H */

#include <lttng/tracepoint-event.h>
