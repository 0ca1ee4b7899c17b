/*
 * omp-quicksort: sorts N pseudo-random integers with OpenMP tasks: each
 * partition step makes one task per half longer than the cutoff, shorter
 * ones are sorted in place by the task that holds them (docs/openmp.md).
 */
#include <getopt.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp-sample.h"

static long cutoff = 1000;

static void insertion_sort(int32_t *a, long n)
{
    for (long i = 1; i < n; i++) {
        int32_t x = a[i];
        long j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Hoare partition around the median of three; returns the split. */
static long partition(int32_t *a, long n)
{
    int32_t x = a[0], y = a[n / 2], z = a[n - 1];
    int32_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    long i = -1, j = n;
    for (;;) {
        do
            i++;
        while (a[i] < pivot);
        do
            j--;
        while (a[j] > pivot);
        if (i >= j) return j + 1;
        int32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static void seq_sort(int32_t *a, long n)
{
    while (n > 16) {
        long k = partition(a, n);
        seq_sort(a, k);
        a += k;
        n -= k;
    }
    insertion_sort(a, n);
}

static void task_sort(int32_t *a, long n)
{
    if (n <= cutoff) {
        seq_sort(a, n);
        return;
    }
    long k = partition(a, n);
#pragma omp task
    task_sort(a, k);
#pragma omp task
    task_sort(a + k, n - k);
#pragma omp taskwait
}

static void usage(FILE *out)
{
    fprintf(out, "usage: omp-quicksort [-n N] [-p P] [--cutoff T] [--seed S]\n"
                 "  -n N       elements (default 1000000)\n"
                 "  -p P       threads (default: OMP_NUM_THREADS, else online CPUs)\n"
                 "  --cutoff T sort sub-arrays of at most T elements without tasks "
                 "(default 1000)\n"
                 "  --seed S   pseudo-random seed (default 1)\n"
                 "exit: 0 sorted, 1 not sorted, 2 bad usage, 3 out of memory\n");
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "omp-quicksort: bad %s '%s'\n", what, value);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"cutoff", required_argument, 0, 'c'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    long n = 1000000, p = 0, seed = 1;
    int c;
    while ((c = getopt_long(argc, argv, "n:p:h", opts, NULL)) != -1) {
        if (c == 'n' && omp_sample_parse_long(optarg, 1, 1L << 30, &n))
            return bad("element count", optarg);
        if (c == 'p' && omp_sample_parse_long(optarg, 1, 1024, &p))
            return bad("thread count", optarg);
        if (c == 'c' && omp_sample_parse_long(optarg, 16, 1L << 30, &cutoff))
            return bad("cutoff", optarg);
        if (c == 's' && omp_sample_parse_long(optarg, 0, 1L << 31, &seed))
            return bad("seed", optarg);
        if (c == 'h') return usage(stdout), 0;
        if (c == 'V') return printf("%s %s\n", omp_sample_name(argv[0]), FJ_VERSION), 0;
        if (c == '?') return usage(stderr), 2;
    }
    if (optind != argc) return usage(stderr), 2;
    if (p > 0) omp_set_num_threads((int)p);
    int32_t *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "omp-quicksort: out of memory for %ld elements\n", n);
        return 3;
    }
    uint64_t x = (uint64_t)seed * 2862933555777941757ull + 3037000493ull;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = (int32_t)(x >> 33);
    }
    int team = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
#pragma omp single
        {
            team = omp_get_num_threads();
            task_sort(a, n);
        }
    }
    double elapsed = omp_get_wtime() - t0;
    long bad_at = -1;
    for (long i = 1; i < n && bad_at < 0; i++)
        if (a[i - 1] > a[i]) bad_at = i;
    free(a);
    printf("summary variant=tasks P=%d elapsed_s=%.6f n=%ld cutoff=%ld\n", team, elapsed, n,
           cutoff);
    if (bad_at >= 0) {
        fprintf(stderr, "omp-quicksort: not sorted at %ld\n", bad_at);
        return 1;
    }
    return 0;
}
