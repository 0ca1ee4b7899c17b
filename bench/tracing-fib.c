/*
 * bench-tracing-fib: naive fib (typed tasks, samples/fib.c) on a libfj pool,
 * one timed run, for the
 * tracing overhead benchmark (bench/tracing.sh). Built twice: against the
 * static libfj with every tracepoint compiled out, and against the normal
 * shared libfj (tracing compiled in). The driver records it, or not.
 * Prints one line: n= P= tasks= steals= elapsed_ns= cpu_ns= result=
 * (cpu_ns: the CPU time of the thread that ran the root, measured inside
 * it: at P=1 all the work, and on a shared machine a fairer measure than
 * the wall clock, which counts the time other programs had the CPU).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "common.h"
#include "fib.h"
#include "fj.h"

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The root's CPU time (one root per run, read after fj_invoke returned). */
static double root_cpu_ns;

/* The root: the worker handle, looked up once. */
static long root_naive(long n)
{
    double c0 = thread_cpu_ns();
    long r = fib_typed_naive(fj_ctx_self(), n);
    root_cpu_ns = thread_cpu_ns() - c0;
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N P\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    int p = (int)strtol(argv[2], NULL, 10);
    if (n < 2 || n > 40 || p < 1 || p > 64) {
        fprintf(stderr, "%s: want 2 <= N <= 40, 1 <= P <= 64\n", argv[0]);
        return 2;
    }
    fj_pool *pool = sample_pool_create(p);
    struct fib_frame root = {root_naive, n, 0};
    fj_task t;
    fj_task_init(&t, fib_body, &root);
    fj_task_set_size_hint(&t, (uint64_t)n);
    double t0 = sample_now();
    int rc = fj_invoke(pool, &t);
    double elapsed = sample_now() - t0;
    if (rc != FJ_OK) {
        fprintf(stderr, "%s: fj_invoke: %s\n", argv[0], fj_strerror(rc));
        return 3;
    }
    fj_worker_stats st;
    fj_pool_stats_total(pool, &st);
    sample_pool_destroy(pool);
    /* tasks = the forked ones plus the root; n/a: the pool does not count
     * tasks (FJ_COUNT_TASKS=1 makes it, at a cost: not what is measured). */
    char tasks[SAMPLE_STAT_LEN];
    printf("n=%ld P=%d tasks=%s steals=%llu elapsed_ns=%.0f cpu_ns=%.0f result=%ld\n", n, p,
           st.forks == FJ_STAT_UNKNOWN ? "n/a" : sample_stat(tasks, st.forks + 1),
           (unsigned long long)st.steals, elapsed * 1e9, root_cpu_ns, root.result);
    if (root.result != fib_iter(n) ||
        (st.forks != FJ_STAT_UNKNOWN && st.forks != (uint64_t)fib_iter(n + 1) - 1)) {
        fprintf(stderr, "%s: WRONG result or fork count\n", argv[0]);
        return 1;
    }
    return 0;
}
