/*
 * fj-contention: "parallel is slower" (docs/experiments.md §3). TASKS independent
 * tasks, each doing LOCAL units of private work and SHARED units inside one
 * shared resource guarded by an fj_mutex named "shared-resource". With the
 * lock, the shared part serialises and P=2 is no faster than P=1; with
 * --no-lock each task works on its own copy and the same work scales.
 * The tasks are spread by recursive halving (fork/join), as a parallel for.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static long local_units = 2000, shared_units = 20000;
static int use_lock = 1;
static fj_mutex resource_lock;
static uint64_t shared_state; /* the shared resource */
static uint64_t *private_state;

static uint64_t burn(uint64_t x, long units)
{
    for (long i = 0; i < units; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x)); /* keep the loop: it is the work */
    }
    return x;
}

static void one_task(long i)
{
    uint64_t mine = burn((uint64_t)i, local_units);
    if (use_lock) {
        fj_mutex_lock(&resource_lock);
        shared_state = burn(shared_state ^ mine, shared_units);
        fj_mutex_unlock(&resource_lock);
    } else {
        private_state[i] = burn(private_state[i] ^ mine, shared_units);
    }
}

struct range {
    long lo, hi;
};
static void range_task(void *arg);

static void range_run(long lo, long hi)
{
    if (hi - lo == 1) {
        one_task(lo);
        return;
    }
    long mid = lo + (hi - lo) / 2;
    struct range left = {lo, mid};
    fj_task t;
    fj_task_init(&t, range_task, &left);
    fj_task_set_size_hint(&t, (uint64_t)(mid - lo));
    fj_fork(&t);
    range_run(mid, hi);
    fj_join(&t);
}

static void range_task(void *arg)
{
    struct range *r = arg;
    range_run(r->lo, r->hi);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: fj-contention [-n TASKS] [-p P] [--local U] [--shared U] [--no-lock]\n"
                 "  -n TASKS     independent tasks (default 2000)\n"
                 "  -p P         workers (default: $FJ_WORKERS, else online CPUs)\n"
                 "  --local U    private work units per task (default 2000)\n"
                 "  --shared U   work units inside the shared resource (default 20000)\n"
                 "  --no-lock    give every task its own resource: the same work, no lock\n"
                 "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"local", required_argument, 0, 'l'}, {"shared", required_argument, 0, 's'},
        {"no-lock", no_argument, 0, 'u'},     {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},     {0, 0, 0, 0}};
    long n = 2000, p = 0;
    int c, bad = 0;
    while ((c = getopt_long(argc, argv, "n:p:h", opts, NULL)) != -1) {
        if (c == 'n')
            bad |= sample_parse_long(optarg, 1, 100000000, &n);
        else if (c == 'p')
            bad |= sample_parse_long(optarg, 1, 512, &p);
        else if (c == 'l')
            bad |= sample_parse_long(optarg, 0, 1L << 40, &local_units);
        else if (c == 's')
            bad |= sample_parse_long(optarg, 0, 1L << 40, &shared_units);
        else if (c == 'u')
            use_lock = 0;
        else if (c == 'h') {
            usage(stdout);
            return SAMPLE_OK;
        } else if (c == 'V') {
            sample_print_version("fj-contention");
            return SAMPLE_OK;
        } else
            bad = 1;
    }
    if (bad || optind != argc) {
        usage(stderr);
        return SAMPLE_USAGE;
    }
    fj_mutex_init(&resource_lock, "shared-resource");
    private_state = calloc((size_t)n, sizeof(*private_state));
    if (!private_state) return SAMPLE_RUNTIME;
    /* Counting tasks: the check below needs the count of tasks run. */
    fj_pool *pool = sample_pool_create_counting((int)p);
    struct range all = {0, n};
    fj_task t;
    fj_task_init(&t, range_task, &all);
    fj_task_set_size_hint(&t, (uint64_t)n);
    double t0 = sample_now();
    fj_invoke(pool, &t);
    double elapsed = sample_now() - t0;

    /* Check: the lock version's result is order-dependent, so recompute the
     * total work count instead: every task ran exactly once. */
    fj_worker_stats s;
    fj_pool_stats_total(pool, &s);
    int ok = s.tasks_executed == (uint64_t)n; /* n-1 forks + the root */
    printf("%ld tasks, %s, elapsed %.3f ms\n", n, use_lock ? "one shared lock" : "no lock",
           elapsed * 1e3);
    sample_print_stats(stdout, pool);
    sample_print_summary(stdout, use_lock ? "lock" : "nolock", pool, elapsed);
    sample_pool_destroy(pool);
    free(private_state);
    if (!ok) {
        fprintf(stderr, "fj-contention: WRONG: %llu tasks ran, expected %ld\n",
                (unsigned long long)s.tasks_executed, n);
        return SAMPLE_WRONG;
    }
    return SAMPLE_OK;
}
