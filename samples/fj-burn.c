/*
 * fj-burn: a complete binary tree of tasks whose leaves each burn a fixed
 * amount of CPU time: they spin on the thread's own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID), so preemption stretches their wall time but
 * not the CPU time they take. The known answers of depth D and leaf time L
 * on the CPU: 2^(D+1)-1 tasks, work 2^D * L, span L (plus the overheads),
 * parallelism 2^D. --sleep-us adds a sleep after each leaf's burn (the
 * leaf is then blocked, off the CPU, for that long): the CPU answers stay
 * the same. Off-CPU tests and bench/offcpu.sh record it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"

static long depth = 6, leaf_us = 500, sleep_us = 0;
static _Atomic long leaves_run;

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void leaf(void)
{
    const uint64_t until = thread_cpu_ns() + (uint64_t)leaf_us * 1000u;
    while (thread_cpu_ns() < until)
        ;
    if (sleep_us > 0) {
        struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    /* Relaxed: a count read after the whole tree has been joined. */
    atomic_fetch_add_explicit(&leaves_run, 1, memory_order_relaxed);
}

static void node_task(void *arg)
{
    long d = (long)(intptr_t)arg;
    if (d == 0) {
        leaf();
        return;
    }
    /* Both children are tasks (a tree of 2^(D+1)-1 tasks, as in the issue
     * that asked for this sample). */
    fj_task kids[2];
    for (int i = 0; i < 2; i++) {
        fj_task_init(&kids[i], node_task, (void *)(intptr_t)(d - 1));
        fj_fork(&kids[i]);
    }
    fj_join(&kids[1]);
    fj_join(&kids[0]);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: fj-burn [-p P] [--depth D] [--leaf-us L] [--sleep-us S]\n"
                 "  a binary tree of depth D (default 6, at most 20) whose 2^D leaves each\n"
                 "  burn L microseconds of CPU time (default 500), then sleep S (default 0)\n"
                 "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n");
}

static int parse(int argc, char **argv, long *p)
{
    static const struct option opts[] = {
        {"depth", required_argument, 0, 'd'},    {"leaf-us", required_argument, 0, 'l'},
        {"sleep-us", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},        {0, 0, 0, 0}};
    int c, bad = 0;
    while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
        if (c == 'p')
            bad |= sample_parse_long(optarg, 1, 512, p);
        else if (c == 'd')
            bad |= sample_parse_long(optarg, 0, 20, &depth);
        else if (c == 'l')
            bad |= sample_parse_long(optarg, 0, 10000000, &leaf_us);
        else if (c == 's')
            bad |= sample_parse_long(optarg, 0, 10000000, &sleep_us);
        else if (c == 'h') {
            usage(stdout);
            exit(SAMPLE_OK);
        } else if (c == 'V') {
            sample_print_version("fj-burn");
            exit(SAMPLE_OK);
        } else
            bad = 1;
    }
    return bad || optind != argc;
}

int main(int argc, char **argv)
{
    long p = 0;
    if (parse(argc, argv, &p)) {
        usage(stderr);
        return SAMPLE_USAGE;
    }
    fj_pool *pool = sample_pool_create((int)p);
    fj_task root;
    fj_task_init(&root, node_task, (void *)(intptr_t)depth);
    double t0 = sample_now();
    int rc = fj_invoke(pool, &root);
    double elapsed = sample_now() - t0;
    if (rc != FJ_OK) {
        fprintf(stderr, "fj-burn: fj_invoke: %s\n", fj_strerror(rc));
        return SAMPLE_RUNTIME;
    }
    const long leaves = 1L << depth;
    printf("%ld tasks, %ld leaves of %ld us CPU: work %.3f ms, span %.3f ms on the CPU\n",
           2 * leaves - 1, leaves, leaf_us, (double)(leaves * leaf_us) / 1e3,
           (double)leaf_us / 1e3);
    printf("elapsed %.3f ms\n", elapsed * 1e3);
    sample_print_summary(stdout, "burn", pool, elapsed);
    sample_pool_destroy(pool);
    /* Relaxed: the tree was joined (fj_invoke returned) before this read. */
    return atomic_load_explicit(&leaves_run, memory_order_relaxed) == leaves ? SAMPLE_OK
                                                                             : SAMPLE_WRONG;
}
