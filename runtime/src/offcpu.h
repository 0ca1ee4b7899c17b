/*
 * Off-CPU time of the worker threads, recorded without a kernel tracer.
 *
 * While a session records the fjtrace provider, each worker opens a perf
 * event on its own thread that logs its context switches
 * (PERF_RECORD_SWITCH) in an mmap'd ring, and turns each switch-out /
 * switch-in pair into one `fjtrace:offcpu` event carrying the original
 * CLOCK_MONOTONIC times (LTTng-UST's clock). The ring is drained only at
 * points that are slow anyway (idle, a join that waits, worker end), never
 * on the fork/exec path. A client thread (fj_submit, fj_invoke from outside
 * the pools) opens one too, drained when its wait for a root is over
 * (offcpu_client events). See docs/events.md.
 */
#ifndef FJ_OFFCPU_H
#define FJ_OFFCPU_H

#include "internal.h"

#ifdef FJ_TRACING
/* Before pool_begin: the process's one-time cost of recording switches is
 * paid outside the pool (tracepoints/switches.h). */
void fj_offcpu_prepare(void);
/* On the worker's thread, after worker_begin: opens the perf event when the
 * offcpu event is being recorded (else it is opened by a later drain once a
 * session records it). A refusal is recorded as offcpu_unavailable. */
void fj_offcpu_begin(const fj_worker *w);
/* Emits the intervals completed since the last drain. Cheap when nothing
 * is recorded: one thread-local test. */
void fj_offcpu_drain(const fj_worker *w);
/* Before worker_end: last drain, closes the event. */
void fj_offcpu_end(const fj_worker *w);
/* On a client thread (not a worker) submitting to p: opens its perf event
 * once, when the offcpu events are recorded (closed when the thread ends);
 * a refusal is offcpu_unavailable with worker -1. */
void fj_offcpu_client_begin(const fj_pool *p);
/* On that client thread, its wait for root `task` of p over: emits the
 * intervals since the last drain as offcpu_client events. */
void fj_offcpu_client_drain(const fj_pool *p, uint64_t task);
#else
static inline void fj_offcpu_prepare(void) {}
static inline void fj_offcpu_begin(const fj_worker *w)
{
    (void)w;
}
static inline void fj_offcpu_drain(const fj_worker *w)
{
    (void)w;
}
static inline void fj_offcpu_end(const fj_worker *w)
{
    (void)w;
}
static inline void fj_offcpu_client_begin(const fj_pool *p)
{
    (void)p;
}
static inline void fj_offcpu_client_drain(const fj_pool *p, uint64_t task)
{
    (void)p;
    (void)task;
}
#endif

#endif
