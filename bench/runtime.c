/*
 * bench-runtime: libfj against a sequential baseline and against OpenMP
 * tasks (libgomp), all in one process, interleaved, the minimum of R
 * repetitions (the machine is shared: the fastest run is the one least
 * disturbed). P=1 rows compare process CPU time, which other programs do not
 * inflate; P=2 rows need wall time (a speedup), so they suffer when other
 * programs hold a CPU: read them with the load printed by bench/all.sh.
 *
 *   fib naive   spawn fib(n-2), compute fib(n-1) inline, sync: typed tasks,
 *               exactly the naive variant of samples/fj-fib.c (F(n+1)-1
 *               spawns)
 *   fib cutoff  the same, but sequential for n <= T: bench/fib_leaf.c's
 *               noinline fib, one object (no LTO, aligned) linked into
 *               this program and into the Lace programs (bench/lace.sh), so
 *               that the cutoff rows compare runtimes, not two placements
 *               of one loop
 *   Lace order  naive and cutoff fib as Lace's benchmarks/fib/fib-lace.c
 *               writes it: spawn fib(n-1), compute fib(n-2) inline, sync
 *               (same task count, a different shape: the inline call is
 *               the smaller half, often a leaf, and a thief takes the
 *               larger one). The like-for-like comparison with Lace; the
 *               goals are judged on samples/fib.c's order above, which
 *               the brief's experiments and the sites tests use
 *   fib fork    naive fib with fj_fork/fj_join (samples' naive-fork): the
 *               API before typed tasks, informative
 *   sort        quicksort of M random ints: partition, spawn the left part,
 *               sort the right part inline, sync; sequential below C elements
 *   Lace        with -L/-K: Lace's fib program (naive; with a cutoff), run as
 *               a child process between the others: `PROG -w P N [T]`; its
 *               P=1 time is the CPU time of the worker thread that ran its
 *               root when it prints it ("CPU: S", as libfj's root thread
 *               here), else the child's CPU time less its fib(2) run; its
 *               P=2 time the "Time:" it prints (wall, around its RUN) less
 *               its fib(2) run. With -S/-C: Lace fib programs in the
 *               samples' order, the like-for-like baseline of the samples'
 *               rows (the goals: each order against Lace in the same order)
 *
 * The sequential baselines are compiled with the same flags as everything
 * else (the project's release flags: -O3 + LTO) but the sequential fib,
 * which is fib_leaf.c's, as the cutoff rows' leaves: noinline plain
 * recursion, one aligned object without LTO, so that its speed does not
 * follow where the linker puts it (samples/fib.c's fib_seq, the same code,
 * took 93.8 ms for fib(38) in one build of this program and 85 ms in the
 * next). Pools (libfj) and thread teams (libgomp) are created and warmed
 * up outside the timed regions. libfj is the normal shared library (fj_dep):
 * tracing compiled in when the build found lttng-ust, not recording.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifdef BENCH_OPENMP
#include <omp.h>
#endif

#include "clock.h"
#include "fib.h"
#include "fib_leaf.h"
#include "fj.h"

#ifdef BENCH_OPENMP
#define BENCH_HAVE_OPENMP 1
#else
#define BENCH_HAVE_OPENMP 0
#endif
/* libgomp rows: built and not skipped with -X. */
static int with_omp = BENCH_HAVE_OPENMP;

#ifndef BENCH_FJ_TRACING
#define BENCH_FJ_TRACING 0
#endif

/* Lets spinning idle threads (libgomp's team, libfj's workers) go to sleep
 * before the next configuration, so that runs do not disturb each other. */
static void settle(void)
{
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench-runtime: %s: %s\n", what, fj_strerror(rc));
    exit(3);
}

/* ------------------------------------------------------------------ fib */

/* CPU time of the thread that ran the last fib root (at P=1 it did all the
 * work): what the P=1 fib rows compare, untouched by other threads. */
static double root_cpu;

static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void timed_fib_body(void *arg)
{
    double c0 = thread_cpu_now();
    fib_body(arg);
    root_cpu = thread_cpu_now() - c0;
}

/* Root functions of the typed variants: the worker handle, looked up once. */
static long typed_naive(long n)
{
    return fib_typed_naive(fj_ctx_self(), n);
}

/* The samples' cutoff fib (samples/fib.c's fib_cutoff) on the shared leaf. */
FJ_TASK_1(long, fib_so_cutoff, long, n)
{
    if (n <= fib_cutoff_limit) return fjb_fib_leaf(n);
    FJ_SPAWN_SIZED(fib_so_cutoff, n - 2, n - 2);
    long x = FJ_CALL(fib_so_cutoff, n - 1);
    return x + FJ_SYNC(fib_so_cutoff);
}

static long typed_cutoff(long n)
{
    fj_ctx *w = fj_ctx_self();
    return fib_so_cutoff(w, fj_head(w), n);
}

/* Lace's order (see the top of this file): spawn the larger half. */
FJ_TASK_1(long, fib_lo_naive, long, n)
{
    if (n < 2) return n;
    FJ_SPAWN_SIZED(fib_lo_naive, n - 1, n - 1);
    long y = FJ_CALL(fib_lo_naive, n - 2);
    return FJ_SYNC(fib_lo_naive) + y;
}

FJ_TASK_1(long, fib_lo_cutoff, long, n)
{
    if (n <= fib_cutoff_limit) return fjb_fib_leaf(n);
    FJ_SPAWN_SIZED(fib_lo_cutoff, n - 1, n - 1);
    long y = FJ_CALL(fib_lo_cutoff, n - 2);
    return FJ_SYNC(fib_lo_cutoff) + y;
}

static long lace_order_naive(long n)
{
    fj_ctx *w = fj_ctx_self();
    return fib_lo_naive(w, fj_head(w), n);
}

static long lace_order_cutoff(long n)
{
    fj_ctx *w = fj_ctx_self();
    return fib_lo_cutoff(w, fj_head(w), n);
}

static long fj_run_fib(fj_pool *pool, fib_fn fn, long n)
{
    struct fib_frame root = {fn, n, 0};
    fj_task t;
    fj_task_init(&t, timed_fib_body, &root);
    fj_task_set_size_hint(&t, (uint64_t)n);
    int rc = fj_invoke(pool, &t);
    if (rc != FJ_OK) die("fj_invoke", rc);
    return root.result;
}

#ifdef BENCH_OPENMP
static long omp_fib_naive(long n)
{
    if (n < 2) return n;
    long x, y;
#pragma omp task shared(y)
    y = omp_fib_naive(n - 2);
    x = omp_fib_naive(n - 1);
#pragma omp taskwait
    return x + y;
}

static long omp_fib_cutoff(long n)
{
    if (n <= fib_cutoff_limit) return fjb_fib_leaf(n);
    long x, y;
#pragma omp task shared(y)
    y = omp_fib_cutoff(n - 2);
    x = omp_fib_cutoff(n - 1);
#pragma omp taskwait
    return x + y;
}

static long omp_run_fib(int p, fib_fn fn, long n)
{
    long r = 0;
#pragma omp parallel num_threads(p) shared(r)
#pragma omp single
    {
        double c0 = thread_cpu_now();
        r = fn(n);
        root_cpu = thread_cpu_now() - c0;
    }
    return r;
}
#endif

/* ------------------------------------------------------------------ sort */

static long sort_cutoff = 8192;

static void insertion_sort(int *a, long n)
{
    for (long i = 1; i < n; i++) {
        int v = a[i];
        long j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static inline void swap_int(int *a, int *b)
{
    int t = *a;
    *a = *b;
    *b = t;
}

/* Hoare partition around the median of first, middle, last. Returns k:
 * a[0..k) <= pivot <= a[k..n), both parts non-empty (n >= 3). */
static long partition(int *a, long n)
{
    long m = n / 2;
    if (a[m] < a[0]) swap_int(&a[m], &a[0]);
    if (a[n - 1] < a[0]) swap_int(&a[n - 1], &a[0]);
    if (a[n - 1] < a[m]) swap_int(&a[n - 1], &a[m]);
    int pivot = a[m];
    long i = -1, j = n;
    for (;;) {
        do
            i++;
        while (a[i] < pivot);
        do
            j--;
        while (a[j] > pivot);
        if (i >= j) return j + 1;
        swap_int(&a[i], &a[j]);
    }
}

__attribute__((noinline)) static void qsort_seq(int *a, long n)
{
    while (n > 32) {
        long k = partition(a, n);
        /* Recurse into the smaller part, loop on the larger. */
        if (k < n - k) {
            qsort_seq(a, k);
            a += k;
            n -= k;
        } else {
            qsort_seq(a + k, n - k);
            n = k;
        }
    }
    insertion_sort(a, n);
}

FJ_VOID_TASK_2(qsort_fj, int *, a, long, n)
{
    if (n <= sort_cutoff) {
        qsort_seq(a, n);
        return;
    }
    long k = partition(a, n);
    FJ_SPAWN_SIZED(qsort_fj, k, a, k);
    FJ_CALL(qsort_fj, a + k, n - k);
    FJ_SYNC(qsort_fj);
}

static void fj_run_sort(fj_pool *pool, int *a, long n)
{
    int rc = FJ_INVOKE(pool, qsort_fj, a, n);
    if (rc != FJ_OK) die("fj_invoke", rc);
}

#ifdef BENCH_OPENMP
static void qsort_omp(int *a, long n)
{
    if (n <= sort_cutoff) {
        qsort_seq(a, n);
        return;
    }
    long k = partition(a, n);
#pragma omp task
    qsort_omp(a, k);
    qsort_omp(a + k, n - k);
#pragma omp taskwait
}

static void omp_run_sort(int p, int *a, long n)
{
#pragma omp parallel num_threads(p)
#pragma omp single
    qsort_omp(a, n);
}
#endif

/* ------------------------------------------------------------------ Lace */

/* Runs `prog -w P N [T]` (Lace's fib program, given by the user: never
 * built by this project), checks the "fib(N) = X" it prints, and returns
 * its wall time ("Time: S", measured by Lace around its RUN) in *wall_s,
 * the child's CPU time (user + system, start-up included) in *cpu_s, and
 * the CPU time of the thread that ran its root in *root_s if it prints one
 * ("CPU: S"; else -1); -1 if it failed. */
static int lace_run(const char *prog, int p, long n, long cutoff, double *wall_s, double *cpu_s,
                    double *root_s)
{
    char ps[16], ns[24], ts[24];
    snprintf(ps, sizeof ps, "%d", p);
    snprintf(ns, sizeof ns, "%ld", n);
    snprintf(ts, sizeof ts, "%ld", cutoff);
    char *argv[] = {(char *)prog, "-w", ps, ns, cutoff > 0 ? ts : NULL, NULL};
    int out[2];
    if (pipe(out) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    if (rc != 0) {
        close(out[0]);
        return -1;
    }
    char text[512];
    size_t len = 0;
    ssize_t got;
    while (len < sizeof text - 1 && (got = read(out[0], text + len, sizeof text - 1 - len)) > 0)
        len += (size_t)got;
    text[len] = '\0';
    close(out[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    long fn = -1, value = -1;
    const char *fib = strstr(text, "fib("), *time = strstr(text, "Time:");
    if (!fib || !time || sscanf(fib, "fib(%ld) = %ld", &fn, &value) != 2 || fn != n ||
        value != fib_iter(n) || sscanf(time, "Time: %lf", wall_s) != 1)
        return -1;
    *cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    const char *root = strstr(text, "CPU:");
    if (!root || sscanf(root, "CPU: %lf", root_s) != 1 || *root_s < 0) *root_s = -1;
    return 0;
}

/* ------------------------------------------------------------------ driver */

enum cfg {
    FIB_SEQ,
    FIB_NAIVE_FJ1,
    FIB_NAIVE_FJ2,
    FIB_NAIVE_OMP1,
    FIB_NAIVE_OMP2,
    FIB_CUT_FJ1,
    FIB_CUT_FJ2,
    FIB_CUT_OMP1,
    FIB_CUT_OMP2,
    SORT_SEQ,
    SORT_FJ1,
    SORT_FJ2,
    SORT_OMP1,
    SORT_OMP2,
    FIB_FORK_FJ1,
    FIB_FORK_FJ2,
    LACE_NAIVE1,
    LACE_NAIVE2,
    LACE_CUT1,
    LACE_CUT2,
    LACE_EMPTY1,
    LACE_EMPTY2,
    FIB_LO_NAIVE_FJ1,
    FIB_LO_NAIVE_FJ2,
    FIB_LO_CUT_FJ1,
    FIB_LO_CUT_FJ2,
    LACE_SO_NAIVE1,
    LACE_SO_NAIVE2,
    LACE_SO_CUT1,
    LACE_SO_CUT2,
    NCFG
};

static const char *const cfg_names[NCFG] = {
    "fib seq",       "fib naive fj1",   "fib naive fj2",   "fib naive omp1", "fib naive omp2",
    "fib cut fj1",   "fib cut fj2",     "fib cut omp1",    "fib cut omp2",   "sort seq",
    "sort fj1",      "sort fj2",        "sort omp1",       "sort omp2",      "fib fork fj1",
    "fib fork fj2",  "lace naive 1",    "lace naive 2",    "lace cut 1",     "lace cut 2",
    "lace fib(2) 1", "lace fib(2) 2",   "fib lo naive 1",  "fib lo naive 2", "fib lo cut 1",
    "fib lo cut 2",  "lace so naive 1", "lace so naive 2", "lace so cut 1",  "lace so cut 2"};

#define MAX_REPS 64
static double wall[NCFG][MAX_REPS], cpu[NCFG][MAX_REPS];
/* Lace rows: the CPU time of the thread that ran Lace's root, -1 when the
 * program does not print it. */
static double lace_root[NCFG][MAX_REPS];

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* P=1 fib rows keep the root thread's CPU time (root_cpu); the others the
 * process's. */
static void record(enum cfg c, int r, double t0, double c0)
{
    wall[c][r] = sample_now() - t0;
    cpu[c][r] = cpu_now() - c0;
}

static void record_root(enum cfg c, int r, double t0, double c0)
{
    record(c, r, t0, c0);
    cpu[c][r] = root_cpu;
}

static double least(const double *v, int reps)
{
    double m = v[0];
    for (int r = 1; r < reps; r++)
        m = v[r] < m ? v[r] : m;
    return m;
}

/* count_tasks: the pool counts forks, joins and tasks run (every spawn
 * leaves the inline path); 0: it does not, the default and what libfj
 * costs untraced. */
static fj_pool *make_pool(int p, int count_tasks)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = p;
    cfg.count_tasks = count_tasks;
    fj_pool *pool;
    int rc = fj_pool_create(&pool, &cfg);
    if (rc != FJ_OK) die("fj_pool_create", rc);
    return pool;
}

static volatile long sink; /* keeps results observable */
static int failures;

static void check_fib(const char *what, long got, long n)
{
    sink = got;
    if (got != fib_iter(n)) {
        fprintf(stderr, "bench-runtime: %s: WRONG fib(%ld) = %ld, expected %ld\n", what, n, got,
                fib_iter(n));
        failures++;
    }
}

static void check_sort(const char *what, const int *got, const int *ref, long m)
{
    for (long i = 1; i < m; i++)
        if (got[i - 1] > got[i]) {
            fprintf(stderr, "bench-runtime: %s: NOT SORTED at %ld\n", what, i);
            failures++;
            return;
        }
    if (ref && memcmp(got, ref, sizeof(int) * (size_t)m) != 0) {
        fprintf(stderr, "bench-runtime: %s: sorted output differs from the sequential one\n", what);
        failures++;
    }
}

static const char *pf(int ok)
{
    return ok ? "PASS" : "MISS";
}

/* Lace's P=1 figure of row c: the least CPU time of the thread that ran
 * its root when the program printed it in every repetition (the measure
 * libfj's P=1 rows take), else the least CPU time of the process less the
 * least of its fib(2) run. */
static double lace_p1(enum cfg c, const double *cpu_min, int reps)
{
    double m = lace_root[c][0];
    for (int r = 0; r < reps; r++) {
        if (lace_root[c][r] < 0) return cpu_min[c] - cpu_min[LACE_EMPTY1];
        m = lace_root[c][r] < m ? lace_root[c][r] : m;
    }
    return m;
}

/* One order's comparison: libfj's naive fib at P=1 (CPU) and P=2 (wall)
 * and cutoff fib at P=2 (wall), rows naive1, naive2 and cut2, against the
 * Lace programs of rows lnaive1, lnaive2 and lcut2 (P=2 less Lace's fib(2)
 * run); `order` names the pairing. judged: goal lines (PASS/MISS), else
 * informative lines. Returns 1 if every row was measured and no slower
 * than Lace, 0 if one was slower, -1 if one is n/a. */
static int lace_compare(const char *order, const char *lace_naive, const char *lace_cutoff,
                        const double *cpu_min, const double *wall_min, int reps, enum cfg naive1,
                        enum cfg naive2, enum cfg cut2, enum cfg lnaive1, enum cfg lnaive2,
                        enum cfg lcut2, bool judged)
{
    const struct {
        const char *what, *prog;
        double fj, lace;
    } rows[] = {
        {"naive fib P=1 (CPU)", lace_naive, cpu_min[naive1], lace_p1(lnaive1, cpu_min, reps)},
        {"naive fib P=2 (wall)", lace_naive, wall_min[naive2],
         wall_min[lnaive2] - wall_min[LACE_EMPTY2]},
        {"cutoff fib P=2 (wall)", lace_cutoff, wall_min[cut2],
         wall_min[lcut2] - wall_min[LACE_EMPTY2]},
    };
    int all = 1;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double ratio = rows[i].fj / rows[i].lace;
        if (!rows[i].prog) {
            printf(judged ? "goal %s no slower than Lace, %s: n/a (no Lace program given)\n"
                          : "  %s against Lace, %s: n/a (no Lace program given)\n",
                   rows[i].what, order);
            all = -1;
            continue;
        }
        if (all == 1 && ratio > 1.0) all = 0;
        if (judged)
            printf("goal %s no slower than Lace, %s: libfj %.2f ms, Lace %.2f ms, libfj/Lace "
                   "%.3fx %s\n",
                   rows[i].what, order, rows[i].fj * 1e3, rows[i].lace * 1e3, ratio,
                   pf(ratio <= 1.0));
        else
            printf("  %s against Lace, %s: libfj %.2f ms, Lace %.2f ms, libfj/Lace %.3fx\n",
                   rows[i].what, order, rows[i].fj * 1e3, rows[i].lace * 1e3, ratio);
    }
    return all;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench-runtime [-n N] [-r REPS] [-t T] [-m M] [-c C] [-L PROG] [-K PROG] "
                 "[-S PROG] [-C PROG] [-X] [-v]\n"
                 "  -n N  fib(N) for the fib rows (default 32)\n"
                 "  -t T  fib cutoff: sequential for n <= T (default 20)\n"
                 "  -m M  sort M ints (default 4000000)\n"
                 "  -c C  sort cutoff: sequential below C elements (default 8192)\n"
                 "  -r R  repetitions, the minimum reported (default 11)\n"
                 "  -L PROG  Lace's naive fib program, run as PROG -w P N (Lace rows)\n"
                 "  -K PROG  a Lace fib with a cutoff, run as PROG -w P N T\n"
                 "  -S PROG  a Lace naive fib in the samples' order (spawn fib(n-2), call "
                 "fib(n-1))\n"
                 "  -C PROG  the same with a cutoff (run as -K)\n"
                 "  -X    no libgomp rows (naive fib on libgomp takes minutes at N=38)\n"
                 "  -T    libfj's timed pools count tasks (fj_pool_config.count_tasks: the\n"
                 "        cost of exact forks, joins and tasks run); default: they do not\n"
                 "  -v    also print every sample to stderr\n");
}

int main(int argc, char **argv)
{
    long n = 32, m = 4000000;
    int reps = 11, verbose = 0, count_tasks = 0, c;
    const char *lace_naive = NULL, *lace_cutoff = NULL, *lace_so_naive = NULL,
               *lace_so_cutoff = NULL;
    while ((c = getopt(argc, argv, "n:r:t:m:c:L:K:S:C:XTvh")) != -1) {
        switch (c) {
        case 'T':
            count_tasks = 1;
            break;
        case 'X':
            with_omp = 0;
            break;
        case 'L':
            lace_naive = optarg;
            break;
        case 'K':
            lace_cutoff = optarg;
            break;
        case 'S':
            lace_so_naive = optarg;
            break;
        case 'C':
            lace_so_cutoff = optarg;
            break;
        case 'n':
            n = strtol(optarg, NULL, 10);
            break;
        case 'r':
            reps = (int)strtol(optarg, NULL, 10);
            break;
        case 't':
            fib_cutoff_limit = strtol(optarg, NULL, 10);
            break;
        case 'm':
            m = strtol(optarg, NULL, 10);
            break;
        case 'c':
            sort_cutoff = strtol(optarg, NULL, 10);
            break;
        case 'v':
            verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (n < 2 || n > 45 || reps < 1 || reps > MAX_REPS || fib_cutoff_limit < 1 || m < 2 ||
        sort_cutoff < 32 || optind != argc) {
        usage(stderr);
        return 2;
    }
    volatile long vn = n; /* the compiler must not see n as a constant */

    double t_start = sample_now();
    fj_pool *pool1 = make_pool(1, count_tasks), *pool2 = make_pool(2, count_tasks);
    /* The spawn count is checked on a pool of its own that counts tasks:
     * the timed pools do not unless -T. */
    fj_pool *pool_counted = make_pool(1, 1);
    fj_pool *pools[3] = {NULL, pool1, pool2};

    /* Input for the sort: xorshift, fixed seed. */
    int *input = malloc(sizeof(int) * (size_t)m), *work = malloc(sizeof(int) * (size_t)m),
        *ref = malloc(sizeof(int) * (size_t)m);
    if (!input || !work || !ref) {
        fprintf(stderr, "bench-runtime: out of memory\n");
        return 3;
    }
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (long i = 0; i < m; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        input[i] = (int)(s >> 33);
    }
    memcpy(ref, input, sizeof(int) * (size_t)m);
    qsort_seq(ref, m);
    check_sort("reference", ref, NULL, m);

    /* Warm-up: threads started, libgomp's team built, caches touched. */
    check_fib("warm-up", fj_run_fib(pool1, typed_cutoff, 25), 25);
    check_fib("warm-up", fj_run_fib(pool2, typed_cutoff, 25), 25);
#ifdef BENCH_OPENMP
    if (with_omp) {
        check_fib("warm-up", omp_run_fib(1, omp_fib_cutoff, 25), 25);
        check_fib("warm-up", omp_run_fib(2, omp_fib_cutoff, 25), 25);
    }
#endif

    fj_worker_stats st;
    check_fib("spawn count", fj_run_fib(pool_counted, typed_naive, vn), n);
    fj_pool_stats_total(pool_counted, &st);
    const uint64_t forks = (uint64_t)fib_iter(n + 1) - 1;
    if (st.forks != forks) {
        fprintf(stderr, "bench-runtime: naive fib(%ld) forked %llu tasks, expected %llu\n", n,
                (unsigned long long)st.forks, (unsigned long long)forks);
        failures++;
    }
    fj_pool_stats_reset(pool_counted);
    check_fib("spawn count", fj_run_fib(pool_counted, lace_order_naive, vn), n);
    fj_pool_stats_total(pool_counted, &st);
    if (st.forks != forks) {
        fprintf(stderr,
                "bench-runtime: naive fib(%ld) in Lace's order forked %llu tasks, expected %llu\n",
                n, (unsigned long long)st.forks, (unsigned long long)forks);
        failures++;
    }
    int rc0 = fj_pool_destroy(pool_counted);
    if (rc0 != FJ_OK) die("fj_pool_destroy", rc0);
    settle();

    for (int r = 0; r < reps; r++) {
        double t0, c0;
        /* fib */
        settle();
        t0 = sample_now();
        c0 = cpu_now();
        double main_cpu = thread_cpu_now();
        long res = fjb_fib_leaf(vn);
        root_cpu = thread_cpu_now() - main_cpu;
        record_root(FIB_SEQ, r, t0, c0);
        check_fib("seq", res, n);
        for (int p = 1; p <= 2; p++) {
            settle();
            t0 = sample_now();
            c0 = cpu_now();
            res = fj_run_fib(pools[p], fib_fork_naive, vn);
            record_root(p == 1 ? FIB_FORK_FJ1 : FIB_FORK_FJ2, r, t0, c0);
            check_fib("libfj fork naive", res, n);
            if (lace_naive || lace_so_naive) {
                /* Lace's start-up, handing its root over and shutdown: the
                 * same program computing fib(2), subtracted from its rows. */
                const char *prog = lace_naive ? lace_naive : lace_so_naive;
                settle();
                enum cfg le = p == 1 ? LACE_EMPTY1 : LACE_EMPTY2;
                if (lace_run(prog, p, 2, 0, &wall[le][r], &cpu[le][r], &lace_root[le][r]) != 0) {
                    fprintf(stderr, "bench-runtime: %s -w %d 2 failed\n", prog, p);
                    failures++;
                }
            }
            /* libfj's typed naive and cutoff fib and Lace's, each in the
             * samples' order and in Lace's: eight runs whose order is
             * rotated by one every repetition, so that none always follows
             * the same one (a run after a child process's start-up or
             * after another runtime's threads ran may find caches and the
             * CPU's frequency otherwise). */
            static const struct {
                enum cfg cfg[2]; /* P=1, P=2 */
                fib_fn fj;       /* libfj's root; NULL: a Lace program */
                int lace;        /* Lace: index into progs below */
                const char *what;
            } jobs[8] = {
                {{FIB_NAIVE_FJ1, FIB_NAIVE_FJ2}, typed_naive, 0, "libfj naive"},
                {{LACE_SO_NAIVE1, LACE_SO_NAIVE2}, NULL, 2, NULL},
                {{FIB_LO_NAIVE_FJ1, FIB_LO_NAIVE_FJ2},
                 lace_order_naive,
                 0,
                 "libfj naive, Lace's order"},
                {{LACE_NAIVE1, LACE_NAIVE2}, NULL, 0, NULL},
                {{FIB_CUT_FJ1, FIB_CUT_FJ2}, typed_cutoff, 0, "libfj cutoff"},
                {{LACE_SO_CUT1, LACE_SO_CUT2}, NULL, 3, NULL},
                {{FIB_LO_CUT_FJ1, FIB_LO_CUT_FJ2},
                 lace_order_cutoff,
                 0,
                 "libfj cutoff, Lace's order"},
                {{LACE_CUT1, LACE_CUT2}, NULL, 1, NULL},
            };
            const char *const progs[4] = {lace_naive, lace_cutoff, lace_so_naive, lace_so_cutoff};
            for (int j = 0; j < 8; j++) {
                const int k = (j + r) % 8;
                const enum cfg cf = jobs[k].cfg[p - 1];
                if (jobs[k].fj) {
                    settle();
                    t0 = sample_now();
                    c0 = cpu_now();
                    res = fj_run_fib(pools[p], jobs[k].fj, vn);
                    record_root(cf, r, t0, c0);
                    check_fib(jobs[k].what, res, n);
                    continue;
                }
                const char *prog = progs[jobs[k].lace];
                if (!prog) continue;
                settle();
                if (lace_run(prog, p, n, jobs[k].lace % 2 ? fib_cutoff_limit : 0, &wall[cf][r],
                             &cpu[cf][r], &lace_root[cf][r]) != 0) {
                    fprintf(stderr,
                            "bench-runtime: %s -w %d %ld failed or printed no right fib(%ld) and "
                            "Time:\n",
                            prog, p, n, n);
                    failures++;
                }
            }
#ifdef BENCH_OPENMP
            if (!with_omp) continue;
            settle();
            t0 = sample_now();
            c0 = cpu_now();
            res = omp_run_fib(p, omp_fib_naive, vn);
            record_root(p == 1 ? FIB_NAIVE_OMP1 : FIB_NAIVE_OMP2, r, t0, c0);
            check_fib("omp naive", res, n);
            settle();
            t0 = sample_now();
            c0 = cpu_now();
            res = omp_run_fib(p, omp_fib_cutoff, vn);
            record_root(p == 1 ? FIB_CUT_OMP1 : FIB_CUT_OMP2, r, t0, c0);
            check_fib("omp cutoff", res, n);
#endif
        }
        /* sort: the copy of the input is outside the timed region */
        settle();
        memcpy(work, input, sizeof(int) * (size_t)m);
        t0 = sample_now();
        c0 = cpu_now();
        qsort_seq(work, m);
        record(SORT_SEQ, r, t0, c0);
        check_sort("seq sort", work, ref, m);
        for (int p = 1; p <= 2; p++) {
            memcpy(work, input, sizeof(int) * (size_t)m);
            settle();
            t0 = sample_now();
            c0 = cpu_now();
            fj_run_sort(pools[p], work, m);
            record(p == 1 ? SORT_FJ1 : SORT_FJ2, r, t0, c0);
            check_sort("libfj sort", work, ref, m);
#ifdef BENCH_OPENMP
            if (!with_omp) continue;
            memcpy(work, input, sizeof(int) * (size_t)m);
            settle();
            t0 = sample_now();
            c0 = cpu_now();
            omp_run_sort(p, work, m);
            record(p == 1 ? SORT_OMP1 : SORT_OMP2, r, t0, c0);
            check_sort("omp sort", work, ref, m);
#endif
        }
    }

    double cpu_min[NCFG], wall_min[NCFG];
    for (int i = 0; i < NCFG; i++) {
        cpu_min[i] = least(cpu[i], reps);
        wall_min[i] = least(wall[i], reps);
        if (verbose) {
            fprintf(stderr, "%-15s wall", cfg_names[i]);
            for (int r = 0; r < reps; r++)
                fprintf(stderr, " %8.3f", wall[i][r] * 1e3);
            fprintf(stderr, "  cpu");
            for (int r = 0; r < reps; r++)
                fprintf(stderr, " %8.3f", cpu[i][r] * 1e3);
            fprintf(stderr, "  (ms)\n");
        }
    }

    printf("bench-runtime: %d repetitions, interleaved, the minimum; times in ms; 2 pools (P=1, "
           "P=2)\n",
           reps);
    printf("P=1 rows: CPU time (fib: of the thread running the root, which does all the work; "
           "seq: the main thread; sort: the process); P=2 rows: wall time (speedups need it)\n");
    printf("libfj: shared library (fj_dep), typed tasks (FJ_TASK_1, samples/fib.c), tracing %s, no "
           "LTTng session "
           "recording\n",
           BENCH_FJ_TRACING ? "compiled in" : "NOT compiled in (lttng-ust not found)");
    if (with_omp)
        printf("OpenMP: libgomp, #pragma omp task shared(..) + taskwait in parallel+single, "
               "num_threads(P)\n");
    else
        printf("OpenMP: %s: omp columns are n/a\n",
               BENCH_HAVE_OPENMP ? "not run (-X)" : "not built (dependency('openmp') not found)");
    printf("seq = noinline plain recursion / sequential quicksort, same flags (" BENCH_CFLAGS
           ")\n");
    printf("fib forks (naive) = F(n+1)-1 = %llu (checked against libfj's stats, on a pool "
           "counting tasks)\n",
           (unsigned long long)forks);
    printf("libfj's timed pools %s tasks (fj_pool_config.count_tasks%s)\n\n",
           count_tasks ? "COUNT" : "do not count", count_tasks ? ", -T" : "");

    printf("%-22s %2s %4s %9s %9s %8s %8s %9s %8s  %s\n", "case", "P", "time", "seq ms", "libfj ms",
           "vs seq", "ns/fork", "omp ms", "omp/fj", "goals");
    char name[64];
    struct row {
        const char *kind;
        int p;
        enum cfg seq, fj, omp, fj1;
    } rows[] = {
        {"naive", 1, FIB_SEQ, FIB_NAIVE_FJ1, FIB_NAIVE_OMP1, FIB_NAIVE_FJ1},
        {"naive", 2, FIB_SEQ, FIB_NAIVE_FJ2, FIB_NAIVE_OMP2, FIB_NAIVE_FJ1},
        {"cutoff", 1, FIB_SEQ, FIB_CUT_FJ1, FIB_CUT_OMP1, FIB_CUT_FJ1},
        {"cutoff", 2, FIB_SEQ, FIB_CUT_FJ2, FIB_CUT_OMP2, FIB_CUT_FJ1},
        {"sort", 1, SORT_SEQ, SORT_FJ1, SORT_OMP1, SORT_FJ1},
        {"sort", 2, SORT_SEQ, SORT_FJ2, SORT_OMP2, SORT_FJ1},
    };
    int all_faster = 1;
    double speedup[3] = {0, 0, 0}; /* naive, cutoff, sort: P=1 wall / P=2 wall */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *w = &rows[i];
        const double *t = w->p == 1 ? cpu_min : wall_min;
        double ts = t[w->seq], tf = t[w->fj];
        int naive = strcmp(w->kind, "naive") == 0, cutoff = strcmp(w->kind, "cutoff") == 0;
        if (naive)
            snprintf(name, sizeof name, "fib(%ld) naive", n);
        else if (cutoff)
            snprintf(name, sizeof name, "fib(%ld) cutoff<=%ld", n, fib_cutoff_limit);
        else
            snprintf(name, sizeof name, "sort %ldM cut %ld", m / 1000000, sort_cutoff);
        char goals[160] = "", nsfork[16] = "", vs[16];
        size_t g = 0;
        if (naive && w->p == 1)
            snprintf(nsfork, sizeof nsfork, "%.2f", (tf - ts) * 1e9 / (double)forks);
        char omp_ms[16] = "n/a", ratio[16] = "n/a";
        if (with_omp) {
            double to = t[w->omp];
            int faster = tf < to;
            all_faster &= faster;
            g += (size_t)snprintf(goals + g, sizeof goals - g, "fj<omp %s", pf(faster));
            snprintf(omp_ms, sizeof omp_ms, "%.2f", to * 1e3);
            snprintf(ratio, sizeof ratio, "%.2fx", to / tf);
        } else {
            all_faster = 0;
            g += (size_t)snprintf(goals + g, sizeof goals - g, "fj<omp n/a");
        }
        if (w->p == 1) {
            /* vs seq: slowdown (t/seq) for naive, speedup (seq/t) otherwise */
            snprintf(vs, sizeof vs, "%.2fx", naive ? tf / ts : ts / tf);
            if (naive)
                g += (size_t)snprintf(goals + g, sizeof goals - g, "; <=1.5x seq %s",
                                      pf(tf <= 1.5 * ts));
        } else {
            double sp = wall_min[w->fj1] / tf;
            speedup[naive ? 0 : cutoff ? 1 : 2] = sp;
            snprintf(vs, sizeof vs, "%.2fx", sp);
            const double want = naive || cutoff ? 1.9 : 1.85;
            g += (size_t)snprintf(goals + g, sizeof goals - g, "; speedup>=%.2fx %s", want,
                                  pf(sp >= want));
        }
        printf("%-22s %2d %4s %9.2f %9.2f %8s %8s %9s %8s  %s\n", name, w->p,
               w->p == 1 ? "cpu" : "wall", ts * 1e3, tf * 1e3, vs, nsfork, omp_ms, ratio, goals);
    }
    printf("\nvs seq: P=1 naive = libfj / seq (slowdown); P=1 cutoff and sort = seq / libfj "
           "(speedup); P=2 = libfj P=1 wall / libfj P=2 wall (speedup)\n");
    printf("omp/fj: libgomp time / libfj time (> 1: libfj faster)\n");
    printf("ns/fork = (t_libfj(P=1) - t_seq) / forks, CPU time\n");
    printf("\nnaive fib P=1 with fj_fork/fj_join (the API before typed tasks): %.2f ms CPU, "
           "%.2fx sequential; typed tasks %.2fx faster\n",
           cpu_min[FIB_FORK_FJ1] * 1e3, cpu_min[FIB_FORK_FJ1] / cpu_min[FIB_SEQ],
           cpu_min[FIB_FORK_FJ1] / cpu_min[FIB_NAIVE_FJ1]);
    printf("naive fib P=2 with fj_fork/fj_join: %.2f ms wall\n", wall_min[FIB_FORK_FJ2] * 1e3);
    double naive_vs_seq = cpu_min[FIB_NAIVE_FJ1] / cpu_min[FIB_SEQ];
    printf("goal naive fib P=1 <= 1.5x sequential (CPU time): %.2fx %s\n", naive_vs_seq,
           pf(naive_vs_seq <= 1.5));
    printf("goal naive fib P=2 speedup >= 1.9x (wall, P=1/P=2): %.2fx %s\n", speedup[0],
           pf(speedup[0] >= 1.9));
    printf("goal cutoff fib P=2 speedup >= 1.9x (wall, P=1/P=2): %.2fx %s\n", speedup[1],
           pf(speedup[1] >= 1.9));
    /* Against Lace like for like: each order of libfj's fib against Lace's
     * fib in the same order (the same program shape: which half is
     * spawned decides how often the task function is entered, and costs
     * Lace as much as libfj, bench/RESULTS.md 2026-12-06 19:00). */
    int so = lace_compare("samples' order (Lace's in the same order, -S/-C)", lace_so_naive,
                          lace_so_cutoff, cpu_min, wall_min, reps, FIB_NAIVE_FJ1, FIB_NAIVE_FJ2,
                          FIB_CUT_FJ2, LACE_SO_NAIVE1, LACE_SO_NAIVE2, LACE_SO_CUT2, true);
    int lo = lace_compare("Lace's order (Lace's own fib, -L/-K)", lace_naive, lace_cutoff, cpu_min,
                          wall_min, reps, FIB_LO_NAIVE_FJ1, FIB_LO_NAIVE_FJ2, FIB_LO_CUT_FJ2,
                          LACE_NAIVE1, LACE_NAIVE2, LACE_CUT2, true);
    printf("goal no slower than Lace, like for like in both orders: %s\n",
           so < 0 || lo < 0 ? "n/a (a Lace program missing)" : pf(so == 1 && lo == 1));
    printf("\nLace's order (spawn fib(n-1), call fib(n-2), as fib-lace.c):\n");
    printf("  naive fib P=1: %.2f ms CPU, %.2fx sequential\n", cpu_min[FIB_LO_NAIVE_FJ1] * 1e3,
           cpu_min[FIB_LO_NAIVE_FJ1] / cpu_min[FIB_SEQ]);
    printf("  P=2 speedup (wall, P=1/P=2): naive %.2fx, cutoff %.2fx\n",
           wall_min[FIB_LO_NAIVE_FJ1] / wall_min[FIB_LO_NAIVE_FJ2],
           wall_min[FIB_LO_CUT_FJ1] / wall_min[FIB_LO_CUT_FJ2]);
    /* Informative: the samples' order against Lace's own fib, two
     * different programs (the goals' reading before 2026-12-06). */
    printf("Different programs: libfj's fib in the samples' order against Lace's own (-L/-K):\n");
    lace_compare("samples' order vs Lace's order", lace_naive, lace_cutoff, cpu_min, wall_min, reps,
                 FIB_NAIVE_FJ1, FIB_NAIVE_FJ2, FIB_CUT_FJ2, LACE_NAIVE1, LACE_NAIVE2, LACE_CUT2,
                 false);
    printf("goal libfj faster than libgomp on every row: %s\n", pf(all_faster));
    printf("total wall time %.1f s; results verified: %s\n", sample_now() - t_start,
           failures ? "FAILED" : "all correct");

    free(input);
    free(work);
    free(ref);
    int rc1 = fj_pool_destroy(pool1), rc2 = fj_pool_destroy(pool2);
    if (rc1 != FJ_OK || rc2 != FJ_OK) die("fj_pool_destroy", rc1 != FJ_OK ? rc1 : rc2);
    return failures ? 1 : 0;
}
