/*
 * omp-fib: Fibonacci with OpenMP tasks, the program fjtrace's OMPT tool is
 * tried on (docs/openmp.md). One parallel region; one thread runs fib(N)
 * under `single`, the team runs its tasks.
 *   naive   two tasks per call: exactly 2*F(N+1)-2 tasks
 *   cutoff  tasks only while n > T, below that plain recursion
 *   if      tasks at every call, deferred only while n > T (if clause):
 *           still 2*F(N+1)-2 tasks, those with n <= T undeferred
 *   final   tasks at every call, final once n <= T (final clause): tasks
 *           below a final task are included (run at once)
 */
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omp-sample.h"

enum variant { NAIVE, CUTOFF, IF, FINAL };
static const char *const variant_names[] = {"naive", "cutoff", "if", "final"};
static long cutoff = 20;

static long fib_seq(long n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long fib_naive(long n)
{
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a)
    a = fib_naive(n - 1);
#pragma omp task shared(b)
    b = fib_naive(n - 2);
#pragma omp taskwait
    return a + b;
}

static long fib_cutoff(long n)
{
    if (n <= cutoff) return fib_seq(n);
    long a, b;
#pragma omp task shared(a)
    a = fib_cutoff(n - 1);
#pragma omp task shared(b)
    b = fib_cutoff(n - 2);
#pragma omp taskwait
    return a + b;
}

static long fib_if(long n)
{
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a) if (n > cutoff)
    a = fib_if(n - 1);
#pragma omp task shared(b) if (n > cutoff)
    b = fib_if(n - 2);
#pragma omp taskwait
    return a + b;
}

static long fib_final(long n)
{
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a) final(n <= cutoff)
    a = fib_final(n - 1);
#pragma omp task shared(b) final(n <= cutoff)
    b = fib_final(n - 2);
#pragma omp taskwait
    return a + b;
}

static long run(enum variant v, long n)
{
    switch (v) {
    case CUTOFF:
        return fib_cutoff(n);
    case IF:
        return fib_if(n);
    case FINAL:
        return fib_final(n);
    default:
        return fib_naive(n);
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: omp-fib N [-p P] [--variant naive|cutoff|if|final] [--cutoff T]\n"
                 "  N          compute fib(N), 0 <= N <= 60\n"
                 "  -p P       threads (default: OMP_NUM_THREADS, else online CPUs)\n"
                 "  --variant  naive (default): 2 tasks per call | cutoff: tasks while n > T |\n"
                 "             if: if(n > T) | final: final(n <= T)\n"
                 "  --cutoff T the T of cutoff, if and final (default 20)\n"
                 "exit: 0 ok, 1 wrong result, 2 bad usage\n");
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "omp-fib: bad %s '%s'\n", what, value);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"variant", required_argument, 0, 'v'},
                                         {"cutoff", required_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    long p = 0, n;
    enum variant v = NAIVE;
    int c;
    while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
        if (c == 'p' && omp_sample_parse_long(optarg, 1, 1024, &p))
            return bad("thread count", optarg);
        if (c == 'c' && omp_sample_parse_long(optarg, 0, 60, &cutoff)) return bad("cutoff", optarg);
        if (c == 'v') {
            int found = -1;
            for (int i = 0; i < 4; i++)
                if (strcmp(optarg, variant_names[i]) == 0) found = i;
            if (found < 0) return bad("variant", optarg);
            v = (enum variant)found;
        }
        if (c == 'h') return usage(stdout), 0;
        if (c == 'V') return printf("%s %s\n", omp_sample_name(argv[0]), FJ_VERSION), 0;
        if (c == '?') return usage(stderr), 2;
    }
    if (optind != argc - 1) return usage(stderr), 2;
    if (omp_sample_parse_long(argv[optind], 0, 60, &n)) return bad("N", argv[optind]);
    if (p > 0) omp_set_num_threads((int)p);

    long r = 0;
    int team = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
#pragma omp single
        {
            team = omp_get_num_threads();
            r = run(v, n);
        }
    }
    double elapsed = omp_get_wtime() - t0;
    long want = fib_seq(n);
    printf("fib(%ld) = %ld\n", n, r);
    struct timespec cpu = {0, 0};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    /* cpu_s: the process's CPU time so far (all threads, start-up included) */
    printf("summary variant=%s P=%d elapsed_s=%.6f cpu_s=%.6f\n", variant_names[v], team, elapsed,
           (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9);
    if (r != want) {
        fprintf(stderr, "omp-fib: wrong result %ld, expected %ld\n", r, want);
        return 1;
    }
    return 0;
}
