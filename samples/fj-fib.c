/*
 * fj-fib: the Fibonacci experiment (docs/experiments.md §1).
 *   seq        plain recursion, no pool
 *   naive      spawn fib(n-2), compute fib(n-1) inline, at every call:
 *              exactly F(n+1)-1 spawns (a typed task, FJ_TASK_1)
 *   throttled  fork only while fewer than P forked tasks are live (a global
 *              atomic counter), else recurse without forking (fj_fork)
 *   cutoff     spawn only for n > T, below that run seq (a typed task)
 *   naive-fork, cutoff-fork: naive and cutoff with fj_fork/fj_join
 * Every spawned or forked task carries n as its size hint.
 */
#include <getopt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fib.h"

enum variant { SEQ, NAIVE, THROTTLED, CUTOFF, NAIVE_FORK, CUTOFF_FORK };
static const char *const variant_names[] = {"seq",    "naive",      "throttled",
                                            "cutoff", "naive-fork", "cutoff-fork"};

static long live_limit;
static _Atomic long live_forked; /* throttled: forked tasks not yet finished */

static long fib_throttled(long n);

static void throttled_body(void *arg)
{
    fib_body(arg);
    /* Relaxed: the counter is a heuristic, not a synchronisation. */
    atomic_fetch_sub_explicit(&live_forked, 1, memory_order_relaxed);
}

static long fib_throttled(long n)
{
    if (n < 2) return n;
    if (atomic_fetch_add_explicit(&live_forked, 1, memory_order_relaxed) >= live_limit) {
        atomic_fetch_sub_explicit(&live_forked, 1, memory_order_relaxed);
        return fib_throttled(n - 1) + fib_throttled(n - 2);
    }
    struct fib_frame child = {fib_throttled, n - 2, 0};
    fj_task t;
    fj_task_init(&t, throttled_body, &child);
    fj_task_set_size_hint(&t, (uint64_t)(n - 2));
    fj_fork(&t);
    long x = fib_throttled(n - 1);
    fj_join(&t);
    return x + child.result;
}

/* The typed variants' roots: the worker handle, looked up once. */
static long root_naive(long n)
{
    return fib_typed_naive(fj_ctx_self(), n);
}

static long root_cutoff(long n)
{
    return fib_typed_cutoff(fj_ctx_self(), n);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: fj-fib N [-p P] [--variant V] [--cutoff T]\n"
                 "  N          compute fib(N), 0 <= N <= 60\n"
                 "  -p P       workers (default: $FJ_WORKERS, else online CPUs)\n"
                 "  --variant  seq | naive (default) | throttled | cutoff | naive-fork |\n"
                 "             cutoff-fork (the -fork ones use fj_fork/fj_join)\n"
                 "  --cutoff T cutoff variants: spawn only while n > T (default 20)\n"
                 "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n");
}

static int parse_variant(const char *s)
{
    for (int v = SEQ; v <= CUTOFF_FORK; v++)
        if (strcmp(s, variant_names[v]) == 0) return v;
    return -1;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"variant", required_argument, 0, 'v'},
                                         {"cutoff", required_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    long p = 0, n;
    int variant = NAIVE, c;
    while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (sample_parse_long(optarg, 1, 512, &p)) {
                fprintf(stderr, "fj-fib: -p wants 1..512, got '%s'\n", optarg);
                usage(stderr);
                return SAMPLE_USAGE;
            }
            break;
        case 'v':
            if ((variant = parse_variant(optarg)) < 0) {
                fprintf(stderr, "fj-fib: unknown variant '%s'\n", optarg);
                usage(stderr);
                return SAMPLE_USAGE;
            }
            break;
        case 'c':
            if (sample_parse_long(optarg, 1, 60, &fib_cutoff_limit)) {
                fprintf(stderr, "fj-fib: --cutoff wants 1..60, got '%s'\n", optarg);
                usage(stderr);
                return SAMPLE_USAGE;
            }
            break;
        case 'h':
            usage(stdout);
            return SAMPLE_OK;
        case 'V':
            sample_print_version("fj-fib");
            return SAMPLE_OK;
        default:
            usage(stderr);
            return SAMPLE_USAGE;
        }
    }
    if (optind != argc - 1 || sample_parse_long(argv[optind], 0, 60, &n)) {
        usage(stderr);
        return SAMPLE_USAGE;
    }

    long result;
    double t0 = sample_now(), elapsed;
    if (variant == SEQ) {
        result = fib_seq(n);
        elapsed = sample_now() - t0;
        printf("fib(%ld) = %ld\nelapsed %.3f ms\n", n, result, elapsed * 1e3);
        printf("summary variant=seq P=0 elapsed_s=%.6f forks=0 steals=0\n", elapsed);
    } else {
        fj_pool *pool = sample_pool_create((int)p);
        static const fib_fn fns[] = {fib_seq,     root_naive,     fib_throttled,
                                     root_cutoff, fib_fork_naive, fib_fork_cutoff};
        live_limit = fj_pool_workers(pool);
        struct fib_frame root = {fns[variant], n, 0};
        fj_task t;
        fj_task_init(&t, fib_body, &root);
        fj_task_set_size_hint(&t, (uint64_t)n);
        t0 = sample_now();
        fj_invoke(pool, &t);
        elapsed = sample_now() - t0;
        result = root.result;
        printf("fib(%ld) = %ld\nelapsed %.3f ms\n", n, result, elapsed * 1e3);
        sample_print_stats(stdout, pool);
        sample_print_summary(stdout, variant_names[variant], pool, elapsed);
        sample_pool_destroy(pool);
    }
    if (result != fib_iter(n)) {
        fprintf(stderr, "fj-fib: WRONG result %ld, expected %ld\n", result, fib_iter(n));
        return SAMPLE_WRONG;
    }
    return SAMPLE_OK;
}
