/*
 * fj-quicksort: the quicksort experiment (docs/experiments.md §1).
 * Pivot = the larger of the first two distinct elements; elements below it
 * go left, the rest right; the left part is forked, the right computed
 * inline. Variants: seq, naive (fork at every split), throttled (fork only
 * while fewer than P forked tasks are live). Each forked task's size hint is
 * its sub-array length. The result is checked: sorted, and a permutation of
 * the input (compared with the C library's qsort of a copy).
 */
#include <getopt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum variant { SEQ, NAIVE, THROTTLED };
static const char *const variant_names[] = {"seq", "naive", "throttled"};

static int variant = NAIVE;
static long live_limit;
static _Atomic long live_forked;

/* Index of the larger of the first two distinct values, or -1 if all equal. */
static long pick_pivot(const int *a, long n)
{
    for (long i = 1; i < n; i++)
        if (a[i] != a[0]) return a[i] > a[0] ? i : 0;
    return -1;
}

/* Moves elements < pivot to the front; returns how many there are. */
static long partition(int *a, long n, int pivot)
{
    long i = 0, j = n - 1;
    while (i <= j) {
        while (i <= j && a[i] < pivot)
            i++;
        while (i <= j && a[j] >= pivot)
            j--;
        if (i < j) {
            int tmp = a[i];
            a[i++] = a[j];
            a[j--] = tmp;
        }
    }
    return i;
}

static int should_fork(void)
{
    if (variant == SEQ) return 0;
    if (variant == NAIVE) return 1;
    /* Relaxed: a heuristic count, as in the study's program 3 (docs/experiments.md §1). */
    if (atomic_fetch_add_explicit(&live_forked, 1, memory_order_relaxed) < live_limit) return 1;
    atomic_fetch_sub_explicit(&live_forked, 1, memory_order_relaxed);
    return 0;
}

/* Sorts a[0, n); counted: a spawned task of the throttled variant, which
 * leaves the count of live spawned tasks when it ends. */
FJ_VOID_TASK_3(sort, int *, a, long, n, int, counted)
{
    long p = n > 1 ? pick_pivot(a, n) : -1;
    if (p >= 0) {
        long left = partition(a, n, a[p]);
        if (should_fork()) {
            FJ_SPAWN_SIZED(sort, left, a, left, variant == THROTTLED);
            FJ_CALL(sort, a + left, n - left, 0);
            FJ_SYNC(sort);
        } else {
            FJ_CALL(sort, a, left, 0);
            FJ_CALL(sort, a + left, n - left, 0);
        }
    }
    /* Relaxed: a heuristic count, as in should_fork. */
    if (counted) atomic_fetch_sub_explicit(&live_forked, 1, memory_order_relaxed);
}

struct sort_root {
    int *a;
    long n;
};

static void sort_root_body(void *arg)
{
    struct sort_root *r = arg;
    fj_ctx *w = fj_ctx_self();
    sort(w, fj_head(w), r->a, r->n, variant == THROTTLED);
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fj-quicksort [-n COUNT] [-p P] [--variant seq|naive|throttled] [--seed S]\n"
            "  -n COUNT   elements (default 2000000)\n"
            "  -p P       workers (default: $FJ_WORKERS, else online CPUs)\n"
            "  --variant  seq | naive (default) | throttled\n"
            "  --seed S   input seed (default 1)\n"
            "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n");
}

static int parse_args(int argc, char **argv, long *n, long *p, long *seed)
{
    static const struct option opts[] = {{"variant", required_argument, 0, 'v'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "n:p:h", opts, NULL)) != -1) {
        int bad = 0;
        if (c == 'n')
            bad = sample_parse_long(optarg, 0, 1L << 31, n);
        else if (c == 'p')
            bad = sample_parse_long(optarg, 1, 512, p);
        else if (c == 's')
            bad = sample_parse_long(optarg, 0, 1L << 62, seed);
        else if (c == 'v') {
            variant = -1;
            for (int v = SEQ; v <= THROTTLED; v++)
                if (strcmp(optarg, variant_names[v]) == 0) variant = v;
            bad = variant < 0;
        } else if (c == 'h') {
            usage(stdout);
            exit(SAMPLE_OK);
        } else if (c == 'V') {
            sample_print_version("fj-quicksort");
            exit(SAMPLE_OK);
        } else
            return -1; /* getopt said what is wrong */
        if (bad) {
            fprintf(stderr, "fj-quicksort: bad option value '%s'\n", optarg);
            return -1;
        }
    }
    return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
    long n = 2000000, p = 0, seed = 1;
    if (parse_args(argc, argv, &n, &p, &seed)) {
        usage(stderr);
        return SAMPLE_USAGE;
    }
    int *a = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *expect = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!a || !expect) {
        fprintf(stderr, "fj-quicksort: out of memory for %ld elements\n", n);
        return SAMPLE_RUNTIME;
    }
    srand48(seed);
    for (long i = 0; i < n; i++)
        a[i] = expect[i] = (int)(lrand48() % (n * 4 + 1));

    double t0 = sample_now(), elapsed;
    if (variant == SEQ) {
        sort(NULL, NULL, a, n, 0); /* never spawns: needs no worker */
        elapsed = sample_now() - t0;
        printf("sorted %ld elements\nelapsed %.3f ms\n", n, elapsed * 1e3);
        printf("summary variant=seq P=0 elapsed_s=%.6f forks=0 steals=0\n", elapsed);
    } else {
        fj_pool *pool = sample_pool_create((int)p);
        live_limit = fj_pool_workers(pool);
        struct sort_root root = {a, n};
        fj_task t;
        fj_task_init(&t, sort_root_body, &root);
        fj_task_set_size_hint(&t, (uint64_t)n);
        if (variant == THROTTLED) /* the root counts as live, as sort ends it */
            atomic_fetch_add_explicit(&live_forked, 1, memory_order_relaxed);
        t0 = sample_now();
        fj_invoke(pool, &t);
        elapsed = sample_now() - t0;
        printf("sorted %ld elements\nelapsed %.3f ms\n", n, elapsed * 1e3);
        sample_print_stats(stdout, pool);
        sample_print_summary(stdout, variant_names[variant], pool, elapsed);
        sample_pool_destroy(pool);
    }
    qsort(expect, (size_t)n, sizeof(int), cmp_int);
    int ok = memcmp(a, expect, sizeof(int) * (size_t)n) == 0;
    free(a);
    free(expect);
    if (!ok) {
        fprintf(stderr, "fj-quicksort: WRONG: output is not the sorted input\n");
        return SAMPLE_WRONG;
    }
    return SAMPLE_OK;
}
