/*
 * bench-tracing-floor: the floor of the recording cost. A bare loop calling
 * lttng_ust_tracepoint(fjtrace, exec, ...) N times, in a program that links
 * the fjtrace provider itself (tracepoints/fjtrace_tp.c). Run recorded and
 * not recorded by bench/tracing.sh; the difference per event is what one
 * event costs LTTng-UST at the least. Prints one line: events= elapsed_ns=
 * cpu_ns= (cpu_ns: the thread's CPU time around the loop, as
 * bench-tracing-fib's).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fjtrace_tp.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    if (n < 1) {
        fprintf(stderr, "%s: want N >= 1\n", argv[0]);
        return 2;
    }
    double t0 = now(), c0 = thread_cpu_ns();
    for (long i = 0; i < n; i++)
        lttng_ust_tracepoint(fjtrace, exec, 1u, 0, (uint64_t)i + 1);
    double cpu = thread_cpu_ns() - c0, elapsed = now() - t0;
    printf("events=%ld elapsed_ns=%.0f cpu_ns=%.0f\n", n, elapsed * 1e9, cpu);
    return 0;
}
