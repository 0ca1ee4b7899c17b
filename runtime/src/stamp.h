/*
 * The cheap timestamps of exec_joined's `ahead` (sched.c): a recorded fork
 * takes one at its end, the join that runs the task one at its start, and
 * the event says how many ns of the parent's own code lay between them. On
 * x86-64 a stamp is the time-stamp counter (rdtsc, ~8 ns here, half the
 * cost of the vDSO's clock_gettime), converted to ns with a rate measured
 * against CLOCK_MONOTONIC between the first pool's creation and the first
 * conversion; elsewhere it is CLOCK_MONOTONIC itself.
 */
#ifndef FJ_STAMP_H
#define FJ_STAMP_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#define FJ_STAMP_TSC 1
#else
#define FJ_STAMP_TSC 0
#endif

static inline uint64_t fj_stamp_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t fj_stamp(void)
{
#if FJ_STAMP_TSC
    return __rdtsc();
#else
    return fj_stamp_clock_ns();
#endif
}

/* At a pool's creation: where the stamps' rate is measured from (the first
 * call only). */
void fj_stamp_origin(void);
/* *ns = the ns from stamp `from` to stamp `to`, less the cost of one stamp
 * (two back-to-back stamps measure that much around no code at all); 0 if
 * to is not after. -1 while the stamps' rate is not known yet (the first
 * FJ_STAMP_RATE_MIN_NS after the first pool's creation, config.h): a time
 * that cannot be known is not given. */
int fj_stamp_ns(uint64_t from, uint64_t to, uint64_t *ns);

#endif
