/* Lace fib programs for bench-runtime's -L, -K, -S and -C (bench/lace.sh
 * builds them against Lace's sources; not part of Lace). Built with
 * -DORDER_SO for the samples' order (spawn fib(n-2), call fib(n-1)), else
 * Lace's order (spawn fib(n-1), call fib(n-2), as its benchmarks/fib);
 * -DCUTOFF: the sequential fib for n <= the cutoff given as the 3rd
 * argument, the very object bench-runtime's cutoff rows call
 * (bench/fib_leaf.c).
 * Usage: PROG -w P N [T]; prints "fib(N) = X", "Time: S" (wall, around its
 * RUN) and "CPU: S" (the CPU time of the worker thread that ran the root:
 * at P=1 all the work, the measure bench-runtime's P=1 rows take). */
#include <lace.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fib_leaf.h"

static int cut = 0;

TASK_1(long, tfib, long, n)
{
#ifdef CUTOFF
    if (n <= cut) return fjb_fib_leaf(n);
#endif
    if (n < 2) return n;
#ifdef ORDER_SO
    SPAWN(tfib, n - 2);
    long a = CALL(tfib, n - 1);
#else
    SPAWN(tfib, n - 1);
    long a = CALL(tfib, n - 2);
#endif
    long b = SYNC(tfib);
    return a + b;
}

static double root_cpu;

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The root, timed in CPU time of the worker thread that runs it. */
TASK_1(long, troot, long, n)
{
    double c0 = thread_cpu();
    long r = CALL(tfib, n);
    root_cpu = thread_cpu() - c0;
    return r;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int w = 1, c;
    while ((c = getopt(argc, argv, "w:")) != -1) {
        if (c != 'w') return 2;
        w = atoi(optarg);
    }
    if (optind >= argc) return 2;
    long n = atol(argv[optind]);
    if (optind + 1 < argc) cut = atoi(argv[optind + 1]);
    lace_start(w, 100000);
    double t0 = now();
    long r = RUN(troot, n);
    double t1 = now();
    printf("fib(%ld) = %ld\n", n, r);
    printf("Time: %f\n", t1 - t0);
    printf("CPU: %f\n", root_cpu);
    lace_stop();
    return 0;
}
