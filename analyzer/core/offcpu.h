/* Off-CPU intervals, for the reading of a trace's events. The runtime
 * reports each interval late (when a worker drains its perf ring), after
 * the events it overlaps; the model needs them in time order, as the
 * moments a worker left the CPU and came back. So a first reading (of the
 * fjtrace_offcpu streams alone, when they have their own channel)
 * collects them (fja_offcpu_collect) and the main one replays their
 * boundaries, merged with the trace's events by time (fja_offcpu_replay),
 * as FJA_EV_OFFCPU_OUT / FJA_EV_OFFCPU_IN events.
 *
 * A worker whose CPU clock is read where each task piece begins and ends
 * (offcpu_task_clock, the OMPT tool) has its intervals fitted to that
 * clock when they are sealed: between two readings, the intervals are
 * lengthened (or shortened) together by what perf's records put on the CPU
 * beyond what the thread's clock counted (a switch record falls some way
 * into the kernel's switch, ~10 us of each preemption seen as on the CPU).
 * The on-CPU time of each piece is then the kernel's own count; where the
 * missing time lies within the piece is not known (docs/analyses.md).
 * Between two readings with no interval, trace time the clock did not count
 * (the hypervisor took the vCPU: no switch, the thread's clock stops)
 * becomes a stay of its own, ending at the later reading. */
#ifndef FJA_OFFCPU_H
#define FJA_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

typedef struct {
    uint64_t ts;
    int64_t pid;
    uint32_t source, pool;
    int32_t worker;
    /* 1: leaves the CPU, 0: comes back; FJA_OFFCPU_READING: an
     * offcpu_task_clock reading (cpu), until the seal uses it */
    uint8_t out;
    uint8_t kind;
    /* 1: made or moved by the seal (a stall's stay, a return the fit
     * moved): not where the trace put it */
    uint8_t inferred;
    uint64_t cpu;
} fja_offcpu_edge;

enum { FJA_OFFCPU_READING = 2 };

typedef struct {
    fja_offcpu_edge *edges;
    size_t n, cap, next; /* next: the first edge not replayed */
    uint64_t intervals;
    /* the seal's fit to the task clocks (offcpu.c fit): the time added to
     * the intervals, and taken from them, ns */
    uint64_t fit_added_ns, fit_taken_ns;
    /* stays the seal added where the clock lost time without a switch
     * (offcpu.c, stall_add), and their time, ns */
    uint64_t stalls, stall_ns;
    int oom;
} fja_offcpu;

/* How much of [b, e) falls within [from, to): the part of a stay off the
 * CPU inside a stretch of wall-clock time. */
static inline uint64_t fja_overlap_ns(uint64_t b, uint64_t e, uint64_t from, uint64_t to)
{
    uint64_t x = b > from ? b : from, y = e < to ? e : to;
    return y > x ? y - x : 0;
}

void fja_offcpu_init(fja_offcpu *o);
void fja_offcpu_free(fja_offcpu *o);
/* First reading: keeps the intervals of offcpu events and the readings of
 * offcpu_task_clock events (others ignored). Returns -1 when out of
 * memory. */
int fja_offcpu_collect(fja_offcpu *o, const fja_event *ev);
/* Fits the intervals to the task clocks (above), then sorts the
 * boundaries by time; replay then starts from the first. */
void fja_offcpu_seal(fja_offcpu *o);
/* Second reading: calls feed with every boundary earlier than ts (all of
 * them for UINT64_MAX) not given yet, in time order; stops at a non-zero
 * return of feed and returns it. */
int fja_offcpu_replay(fja_offcpu *o, uint64_t ts, int (*feed)(void *ctx, const fja_event *ev),
                      void *ctx);

#endif
