/* The monotonic clock in seconds, for the samples and the benchmarks. */
#ifndef FJ_SAMPLE_CLOCK_H
#define FJ_SAMPLE_CLOCK_H

#include <time.h>

static inline double sample_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
