/* The test workloads' known amount of work: spin until the calling thread
 * has used ns of CPU time (CLOCK_THREAD_CPUTIME_ID), so that preemption
 * stretches the wall time but not the work (samples/fj-burn.c does the
 * same for users, on its own). */
#ifndef FJ_TEST_CPUBURN_H
#define FJ_TEST_CPUBURN_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cpuburn_thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpuburn(uint64_t ns)
{
    const uint64_t until = cpuburn_thread_ns() + ns;
    while (cpuburn_thread_ns() < until)
        ;
}

#endif
