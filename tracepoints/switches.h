/*
 * A thread's own context switches, recorded without a kernel tracer: the
 * part of the off-CPU recording that libfj's workers and clients
 * (runtime/src/offcpu.c) and the OMPT tool's threads (ompt/thread.c)
 * share. Linked into both as a static library.
 *
 * While a session records fjtrace:offcpu, a thread opens a perf event on
 * itself that logs its context switches (PERF_RECORD_SWITCH) in an mmap'd
 * ring, and each drain turns the switch-out / switch-in pairs into
 * `fjtrace:offcpu` events (or `offcpu_client`, for a thread that is no
 * worker) carrying the original CLOCK_MONOTONIC times (LTTng-UST's clock).
 * The state is thread-local: the event follows the thread (inherit=0).
 * See docs/events.md.
 */
#ifndef FJ_SWITCHES_H
#define FJ_SWITCHES_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Whom the intervals are told for: a worker (task 0), or a client thread
 * waiting for root `task` of pool `pool` (worker -1). */
typedef struct {
    uint32_t pool;
    int32_t worker;
    uint64_t task;
} fj_switches_for;

/* CLOCK_MONOTONIC in ns (0 if it cannot be read). */
static inline uint64_t fj_switches_monotonic_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time at a task point and at the OMPT tool's callbacks' entries and
 * exits, read often (280,000 task points in omp-fib 23), only to compare
 * with the reading periods below and to time the tool's own code: on x86
 * the TSC itself (12 ns in the test VM, against 26-39 ns for the vDSO's
 * CLOCK_MONOTONIC, which reads it and then scales it under a sequence
 * lock). The TSC is constant and synchronised across CPUs wherever the
 * kernel uses it as its clock; where it is not, a difference that went
 * backwards after a migration is huge unsigned: a reading, the safe side
 * (a caller timing its own code must check). Elsewhere CLOCK_MONOTONIC, a
 * tick being a nanosecond. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t fj_switches_ticks(void)
{
    return __rdtsc();
}
#else
static inline uint64_t fj_switches_ticks(void)
{
    return fj_switches_monotonic_ns();
}
#endif

/* The caller's own time up to a task point, in ticks (fj_switches_ticks):
 * `done` in its code that has returned (the OMPT tool's callbacks), and
 * the code under way since `entry`, when the ring's head was `entry_head`
 * (fj_switches_head). Each offcpu_task_clock tells it in ns (its `tool`
 * field): the CPU time between two readings that was the caller's, not its
 * task's. Ticks are not CPU time: a stretch of the caller's code during
 * which the thread was switched out (the ring's head moved) is not told,
 * its CPU time is not known. */
typedef struct {
    uint64_t done, entry, entry_head;
} fj_switches_tool;

/* The calling thread's ring head (the kernel's data_head), or NULL while
 * its event is not open. It moves with every switch record the kernel
 * writes, so a caller reads it before and after a stretch of its own code
 * to know whether the thread left the CPU meanwhile (fj_switches_head). */
const unsigned long long *fj_switches_ring_head(void);

/* The head at *ring_head now; 0 without a ring. Relaxed: the value is only
 * compared with an earlier one (a switch happened or not); no record is
 * read through it. */
static inline uint64_t fj_switches_head(const unsigned long long *ring_head)
{
    return ring_head ? __atomic_load_n(ring_head, __ATOMIC_RELAXED) : 0;
}

/* The ticks from `entry` to `now` (fj_switches_ticks) of a stretch of the
 * caller's own code, if the thread stayed on the CPU throughout (the ring's
 * head is still `entry_head`) and the ticks did not go back (a migration);
 * else 0: its CPU time is not known (fj_switches_tool). */
static inline uint64_t fj_switches_stayed_ticks(const unsigned long long *ring_head,
                                                uint64_t entry_head, uint64_t entry, uint64_t now)
{
    bool stayed = fj_switches_head(ring_head) == entry_head;
    return stayed && now > entry ? now - entry : 0;
}

/* A session records the offcpu event. */
bool fj_switches_recorded(void);
/* The calling thread's event is open. */
bool fj_switches_is_open(void);
/* Opening it failed once (perf_event_open or mmap): never retried. */
bool fj_switches_refused(void);
/* Forgets the calling thread's state (a thread that starts over). */
void fj_switches_reset(void);
/* Once per process, before a pool begins: holds one switch-recording event
 * open for the process's life. The first such event in the whole system
 * makes the kernel patch its scheduler hooks (4-17 ms measured in a VM, and
 * every thread opening one meanwhile waits); paid here, outside the pool,
 * the workers' own opens take microseconds and the pool's figures do not
 * count the kernel's patching as idle workers. */
void fj_switches_prepare(void);
/* Opens the calling thread's event: offcpu_start, or offcpu_unavailable
 * with the errno when refused. */
void fj_switches_open(fj_switches_for to);
/* Emits the intervals completed since the last drain, then the thread's
 * CPU clock (offcpu_clock; a worker only) where a switch was drained or
 * FJ_SWITCHES_SPAN_READ_NS after the last reading: between two readings
 * every stay off the CPU then comes before the later one, as the analyzer
 * needs (docs/events.md), and a worker idling through its slow points
 * under load (one drain each: thousands in a fib(20) at P=4, 0.26 events
 * a task) reads it no oftener than that. */
void fj_switches_drain(fj_switches_for to);
/* The same, the clock always read: the last drain before closing. */
void fj_switches_drain_last(fj_switches_for to);
/* The same at a point where the thread's task changes or waits, the clock
 * told as offcpu_task_clock: a producer that calls it at every such point
 * of a worker (and fj_switches_task_clock once, when the recording opens)
 * gives the analyzer each task piece's on-CPU time. Read where a switch
 * was drained: between two readings every stay off the CPU lies in the
 * last piece (the pieces before it had no switch). Read too at the end of
 * a piece of FJ_SWITCHES_PIECE_READ_NS or more, and after
 * FJ_SWITCHES_SPAN_READ_NS without a reading: time a thread loses without
 * a switch (the hypervisor taking its vCPU: the trace's clock counts it,
 * the thread's not; 120 us inside one 500 us task seen on the test
 * machine) then lies in the last piece too, but for stalls shorter than a
 * piece's period in short pieces, within a span's period. A system call
 * only at those readings. switch_follows: the caller's next event is the
 * task switch it drains for, which it emits at once (the reading tells
 * so: the time from the reading to the switch is the caller's own, which
 * its next reading's `tool` counts). */
void fj_switches_drain_task(fj_switches_for to, fj_switches_tool tool, bool switch_follows);
/* The periods (ns) of the readings without a switch: at most one reading
 * per 200 us of a thread busy with tiny tasks; every piece of 20 us or
 * more has a reading at its end. */
#define FJ_SWITCHES_PIECE_READ_NS 20000u
#define FJ_SWITCHES_SPAN_READ_NS 200000u
/* Tells the thread's CPU clock as offcpu_task_clock, now. */
void fj_switches_task_clock(fj_switches_for to, fj_switches_tool tool);
/* Closes the event (no drain). */
void fj_switches_close(void);

#endif
