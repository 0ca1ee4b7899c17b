/* The workloads of the creation-site tests (tests/sites/test_sites.py),
 * each with its fj_fork lines marked "SITE:<name>" for the test to find:
 *   sites-prog qs N        quicksort of N ints forking its left part at one
 *                          line and its right part at another
 *   sites-prog lib D       a tree of depth D forked inside libsites-lib.so
 *   sites-prog dlopen D    the same, the library loaded with dlopen()
 *   sites-prog share N     N tasks of fixed private work (the "steady"
 *                          site), then N tasks that each add 2000 x P^2
 *                          times to one shared cache line (the "share" site:
 *                          their work grows with P on purpose, and P workers
 *                          also fight over the line); prints the median
 *                          thread CPU time of a steady task's loop, the
 *                          program's own measure of the steady site's work
 * Options after the mode: -p P (workers, default 2). Exit 0 when the result
 * is right, 1 when wrong, 2 on bad usage, 3 when the runtime fails. */
#include <dlfcn.h>
#include <fj.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sites_lib.h"

struct qs_frame {
    int *a;
    long n;
};

static void qs(int *a, long n);

static void qs_body(void *arg)
{
    struct qs_frame *f = arg;
    qs(f->a, f->n);
}

static long partition(int *a, long n)
{
    int pivot = a[n / 2];
    long i = 0, j = n - 1;
    for (;;) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i >= j) return j + 1;
        int t = a[i];
        a[i++] = a[j];
        a[j--] = t;
    }
}

static void qs(int *a, long n)
{
    if (n < 64) { /* insertion sort below 64 elements */
        for (long i = 1; i < n; i++)
            for (long j = i; j > 0 && a[j - 1] > a[j]; j--) {
                int t = a[j];
                a[j] = a[j - 1];
                a[j - 1] = t;
            }
        return;
    }
    long m = partition(a, n);
    struct qs_frame left = {a, m}, right = {a + m, n - m};
    fj_task l, r;
    fj_task_init(&l, qs_body, &left);
    fj_task_init(&r, qs_body, &right);
    fj_fork(&l); /* SITE:left */
    fj_fork(&r); /* SITE:right */
    fj_join(&r);
    fj_join(&l);
}

/* One counter for every task: its cache line moves between the workers. */
static _Atomic unsigned long shared_line;
static long share_rounds; /* 2000 x P^2: set before the pool runs tasks */

static void share_body(void *arg)
{
    (void)arg;
    /* Relaxed: only the final sum is read, after every join. */
    for (long i = 0; i < share_rounds; i++)
        atomic_fetch_add_explicit(&shared_line, 1, memory_order_relaxed);
}

static unsigned long steady_median_ns;

static unsigned long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

/* The same number of additions at every P, on the task's own counter; its
 * own CPU time in *arg. Whether that time is the same at every P is the
 * hardware's business (a sibling hyperthread spinning beside it slows it):
 * the test compares the analyzer's inflation with this measure. */
static void steady_body(void *arg)
{
    unsigned long start = thread_cpu_ns();
    volatile unsigned long mine = 0;
    for (int i = 0; i < 100000; i++)
        mine = mine + 1;
    *(unsigned long *)arg = thread_cpu_ns() - start;
}

static int by_value(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

struct share_frame {
    long n;
};

static void share_spawn(void *arg)
{
    long n = ((struct share_frame *)arg)->n;
    fj_task *t = calloc((size_t)(2 * n), sizeof *t);
    unsigned long *out = calloc((size_t)n, sizeof *out);
    if (!t || !out) {
        free(t);
        free(out);
        return;
    }
    /* The steady tasks first, joined before the share tasks start: run
     * beside a worker hammering the shared line, a task's own work slows
     * too where the two vCPUs share a core (likely: SMT siblings on the host;
     * the steady site was once flagged x2.5 that way under load),
     * and then its work is not the same at every P. */
    for (long i = 0; i < n; i++) {
        fj_task_init(&t[n + i], steady_body, &out[i]);
        fj_fork(&t[n + i]); /* SITE:steady */
    }
    for (long i = 2 * n; i-- > n;)
        fj_join(&t[i]);
    if (n > 0) {
        qsort(out, (size_t)n, sizeof *out, by_value);
        steady_median_ns = out[n / 2];
    }
    for (long i = 0; i < n; i++) {
        fj_task_init(&t[i], share_body, NULL);
        fj_fork(&t[i]); /* SITE:share */
    }
    for (long i = n; i-- > 0;)
        fj_join(&t[i]);
    free(t);
    free(out);
}

struct lib_frame {
    long (*tree)(int);
    int depth;
    long count;
};

static void lib_body(void *arg)
{
    struct lib_frame *f = arg;
    f->count = f->tree(f->depth);
}

static void qs_root(void *arg)
{
    struct qs_frame *f = arg;
    qs(f->a, f->n);
}

static int run(fj_pool *pool, const char *mode, long n)
{
    fj_task t;
    if (!strcmp(mode, "qs")) {
        int *a = malloc((size_t)n * sizeof *a);
        if (!a) return 3;
        srand(1);
        for (long i = 0; i < n; i++)
            a[i] = rand();
        struct qs_frame f = {a, n};
        fj_task_init(&t, qs_root, &f);
        fj_invoke(pool, &t);
        int sorted = 1;
        for (long i = 1; i < n; i++)
            sorted &= a[i - 1] <= a[i];
        free(a);
        return sorted ? 0 : 1;
    }
    if (!strcmp(mode, "share")) {
        struct share_frame f = {n};
        long p = fj_pool_workers(pool);
        share_rounds = 2000 * p * p;
        fj_task_init(&t, share_spawn, &f);
        fj_invoke(pool, &t);
        printf("steady median cpu ns: %lu\n", steady_median_ns);
        return atomic_load(&shared_line) == (unsigned long)(n * share_rounds) ? 0 : 1;
    }
    struct lib_frame f = {sites_lib_tree, (int)n, 0};
    if (!strcmp(mode, "dlopen")) {
        void *h = dlopen("libsites-lib.so", RTLD_NOW);
        if (!h) {
            fprintf(stderr, "sites-prog: %s\n", dlerror());
            return 3;
        }
        *(void **)&f.tree = dlsym(h, "sites_lib_tree");
        if (!f.tree) return 3;
    } else if (strcmp(mode, "lib") != 0) {
        return 2;
    }
    fj_task_init(&t, lib_body, &f);
    fj_invoke(pool, &t);
    return f.count == (2L << n) - 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sites-prog qs|lib|dlopen|share N [-p P]\n");
        return 2;
    }
    long n = strtol(argv[2], NULL, 10);
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = argc >= 5 && !strcmp(argv[3], "-p") ? atoi(argv[4]) : 2;
    fj_pool *pool;
    if (n <= 0 || cfg.workers <= 0) return 2;
    if (fj_pool_create(&pool, &cfg) != FJ_OK) return 3;
    int rc = run(pool, argv[1], n);
    fj_pool_destroy(pool);
    return rc;
}
