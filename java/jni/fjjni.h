/* libfjtrace-jni: the natives of fjtrace.boot.Hooks (java/boot), which the
 * instrumented ForkJoinPool, ForkJoinTask and CountedCompleter call
 * (docs/java.md). Internal header: the pools, the threads' roles in them,
 * and the task ids. */
#ifndef FJJ_JNI_H
#define FJJ_JNI_H

#include <jni.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fjtrace_tp.h"
#include "switches.h"

#define FJJ_EMIT(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)

/* Bounds (a pool or thread past them is not traced, never mis-traced). */
enum {
    FJJ_MAX_POOLS = 4096,     /* pools per JVM */
    FJJ_MAX_WORKERS = 4095,   /* worker slots per pool (12 bits of a task id) */
    FJJ_GUESTS = 8,           /* pools a non-worker thread runs tasks of */
    FJJ_DEPTH = 256,          /* nested execs (helping joins) per thread */
    FJJ_JOIN_DEPTH = 64,      /* nested waiting joins per thread */
    FJJ_COMPLETING_DEPTH = 16 /* nested completions per thread */
};

/* Task ids (docs/java.md): pool (16 bits) | creator slot (12: the forking
 * worker + 1, 0 for a root) | sequence (36). Unique within a pool. */
#define FJJ_POOL_SHIFT 48
#define FJJ_SLOT_SHIFT 36
#define FJJ_SEQ_MASK ((UINT64_C(1) << FJJ_SLOT_SHIFT) - 1)

static inline uint32_t fjj_id_pool(uint64_t id)
{
    return (uint32_t)(id >> FJJ_POOL_SHIFT);
}
static inline int32_t fjj_id_creator(uint64_t id)
{
    return (int32_t)((id >> FJJ_SLOT_SHIFT) & 0xfff) - 1;
}
static inline uint64_t fjj_id(uint32_t pool, int32_t worker, uint64_t seq)
{
    return (uint64_t)pool << FJJ_POOL_SHIFT | (uint64_t)(worker + 1) << FJJ_SLOT_SHIFT |
           (seq & FJJ_SEQ_MASK);
}

/* A running task on this thread: its id, its pool and this thread's worker
 * index there, and the creation site in force before it started. */
typedef struct {
    uint64_t id;
    uint32_t pool;
    int32_t worker;
    uint32_t saved_site;
} fjj_frame;

typedef struct {
    uint64_t task;
    uint32_t depth; /* the exec depth the join waits at */
} fjj_join;

typedef struct {
    uint32_t pool;
    int32_t worker;
} fjj_role;

/* This thread: its own pool and index when it is a ForkJoinWorkerThread,
 * the slots it took as a guest in other pools (a client running a task:
 * caller-runs, helpComplete), its stacks. */
typedef struct {
    fjj_role own;
    fjj_role guests[FJJ_GUESTS];
    uint64_t seq;
    uint32_t site; /* the creation site of the tasks this thread forks now */
    uint32_t depth;
    fjj_frame stack[FJJ_DEPTH];
    uint32_t njoins;
    fjj_join joins[FJJ_JOIN_DEPTH];
    uint32_t ncompleting;
    uint64_t completing[FJJ_COMPLETING_DEPTH];
    fjj_role block; /* the managed block in progress (pool 0: none) */
    uint32_t block_lock;
    /* The role this thread's off-CPU intervals are told for (pool 0:
     * none yet): its first, its own worker slot or a guest slot. */
    fj_switches_for offcpu;
    /* The agent's own time in its drains since that recording opened, in
     * ticks (fj_switches_tool's `done`; pools.c, fjj_offcpu_drain). */
    uint64_t tool_ticks;
} fjj_thread;

fjj_thread *fjj_self(void);
/* Whether pool is open (begun, not ended): events of an ended pool (at the
 * JVM's exit) are dropped. */
bool fjj_pool_open(uint32_t pool);
/* This thread's worker index in pool: its own, or a guest slot (taken, with
 * its worker_begin, on first use); -1 when none can be had. */
int32_t fjj_role_in(fjj_thread *t, uint32_t pool);
/* The worker index of the Java thread javaTid in pool (wake targets); -1. */
int32_t fjj_worker_of(int64_t java_tid, uint32_t *pool);
/* A new root task id of pool (0: no such pool). */
uint64_t fjj_root_id(uint32_t pool);
/* Emits this thread's off-CPU intervals completed since the last drain
 * and, where one was drained or a piece was long, its CPU clock
 * (offcpu_task_clock; docs/java.md, "Off-CPU time"): called where its
 * task changes or its self time stops or starts (exec, executed, a join
 * that waits and its end, a managed block and its end, park, unpark),
 * before that point's event, so that the reading ends the piece before. */
void fjj_offcpu_drain(fjj_thread *t);

#endif
