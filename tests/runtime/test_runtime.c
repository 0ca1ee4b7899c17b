/* Runtime tests through the public API. Run one case: test_runtime CASE. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "fj.h"
#include "workloads.h"

static fj_pool *pool_new(int workers)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = workers;
    fj_pool *p = NULL;
    require(fj_pool_create(&p, &cfg) == FJ_OK);
    require(fj_pool_workers(p) == workers);
    return p;
}

static void case_fib(void)
{
    for (int p = 1; p <= 4; p++) {
        fj_pool *pool = pool_new(p);
        for (long n = 0; n <= 23; n++) {
            fj_pool_stats_reset(pool);
            struct fib f = {n, -1};
            fj_task t;
            fj_task_init(&t, fib_task, &f);
            ok(fj_invoke(pool, &t) == FJ_OK, "P=%d: fib(%ld) is invoked", p, n);
            ok_eq_u64(f.r, fib_table[n], "P=%d: naive fib(%ld) computes F(%ld)", p, n, n);
            fj_worker_stats s;
            fj_pool_stats_total(pool, &s);
            /* Every internal call forks once: F(n+1) - 1 forks and joins. */
            ok_eq_u64(s.forks, fib_table[n + 1] - 1, "P=%d: fib(%ld) forks F(%ld)-1 times", p, n,
                      n + 1);
            ok_eq_u64(s.joins, fib_table[n + 1] - 1, "P=%d: fib(%ld) joins F(%ld)-1 times", p, n,
                      n + 1);
            ok_eq_u64(s.tasks_executed, fib_table[n + 1],
                      "P=%d: fib(%ld) executes F(%ld) tasks (the forks and the root)", p, n, n + 1);
        }
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the idle pool is destroyed", p);
    }
}

static void case_trees(void)
{
    for (int p = 1; p <= 4; p++) {
        fj_pool *pool = pool_new(p);
        for (uint64_t seed = 1; seed <= 40; seed++) {
            struct node root = {seed * 7919, 9, 0};
            fj_task t;
            fj_task_init(&t, tree_task, &root);
            ok(fj_invoke(pool, &t) == FJ_OK, "P=%d: random tree %llu is invoked", p,
               (unsigned long long)seed);
            ok_eq_u64(root.sum, tree_seq(root.seed, root.depth),
                      "P=%d: random tree %llu sums to its sequential sum", p,
                      (unsigned long long)seed);
        }
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the idle pool is destroyed", p);
    }
}

/* ---- many client threads at once, blocking and async ---- */
static fj_pool *shared_pool;
static _Atomic int client_errors;
static void *client(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 60; i++) {
        long n = 10 + (id + i) % 10;
        struct fib f[2] = {{n, -1}, {n + 1, -1}};
        fj_task t[2];
        fj_task_init(&t[0], fib_task, &f[0]);
        fj_task_init(&t[1], fib_task, &f[1]);
        if (i % 2) {
            fj_submit(shared_pool, &t[0]);
            fj_submit(shared_pool, &t[1]);
            fj_wait(&t[1]);
            fj_wait(&t[0]);
        } else {
            fj_invoke(shared_pool, &t[0]);
            fj_invoke(shared_pool, &t[1]);
        }
        if (f[0].r != fib_table[n] || f[1].r != fib_table[n + 1])
            atomic_fetch_add(&client_errors, 1);
    }
    return NULL;
}
static void case_clients(void)
{
    for (int p = 1; p <= 4; p++) {
        shared_pool = pool_new(p);
        pthread_t th[8];
        for (long i = 0; i < 8; i++)
            require(pthread_create(&th[i], NULL, client, (void *)i) == 0);
        for (int i = 0; i < 8; i++)
            pthread_join(th[i], NULL);
        ok_eq_u64(atomic_load(&client_errors), 0,
                  "P=%d: 8 client threads submitting and invoking at once get every fib right", p);
        ok(fj_pool_destroy(shared_pool) == FJ_OK, "P=%d: the idle pool is destroyed", p);
    }
}

static void case_completers(void)
{
    for (int p = 1; p <= 4; p++) {
        fj_pool *pool = pool_new(p);
        for (long n = 1; n <= 200000; n = n * 3 + 1) {
            struct range root = {.lo = 0, .hi = n};
            fj_completer_init(&root.cc, NULL, range_compute, range_done, &root);
            ok(fj_invoke(pool, &root.cc.task) == FJ_OK,
               "P=%d: the completer sum of [0, %ld) is invoked", p, n);
            ok(fj_task_done(&root.cc.task),
               "P=%d: the root completer of [0, %ld) is done when invoke returns", p, n);
            ok_eq_u64(root.sum, (uint64_t)(n * (n - 1) / 2),
                      "P=%d: the completers sum [0, %ld) to n(n-1)/2", p, n);
            int bad = 0;
            range_check_free(&root, &bad);
            ok_eq_u64(bad, 0, "P=%d: every completer of [0, %ld) completed exactly once", p, n);
        }
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the idle pool is destroyed", p);
    }
}

/* ---- pools created and destroyed, several at once ---- */
static void case_lifecycle(void)
{
    for (int i = 0; i < 150; i++) {
        fj_pool *a = pool_new(1 + i % 4), *b = pool_new(1 + (i + 1) % 3);
        ok(fj_pool_id(a) != fj_pool_id(b), "round %d: two live pools have different ids", i);
        if (i % 3 == 0) {
            struct fib f = {12, 0};
            fj_task t;
            fj_task_init(&t, fib_task, &f);
            fj_invoke(b, &t);
            ok_eq_u64(f.r, 144, "round %d: fib(12) on the second of two pools is 144", i);
        }
        ok(fj_pool_destroy(a) == FJ_OK, "round %d: the first pool is destroyed", i);
        ok(fj_pool_destroy(b) == FJ_OK, "round %d: the second pool is destroyed", i);
    }
    fj_pool *p;
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = -1;
    ok(fj_pool_create(&p, &cfg) == FJ_EINVAL, "a pool of -1 workers is refused with FJ_EINVAL");
    ok(fj_pool_destroy(NULL) == FJ_EINVAL, "destroying no pool is refused with FJ_EINVAL");
    ok(fj_invoke(NULL, NULL) == FJ_EINVAL, "invoking nothing on no pool is refused with FJ_EINVAL");
}

/* ---- destroying a pool with work in flight is an error, not a hang ---- */
static _Atomic int gate;
static void gated(void *arg)
{
    (void)arg;
    while (!atomic_load(&gate))
        usleep(100);
}
static void case_destroy_busy(void)
{
    fj_pool *pool = pool_new(2);
    fj_task t;
    fj_task_init(&t, gated, NULL);
    ok(fj_submit(pool, &t) == FJ_OK, "a task that waits for a gate is submitted");
    ok(fj_pool_destroy(pool) == FJ_EBUSY,
       "destroying a pool with a task in flight is refused with FJ_EBUSY");
    atomic_store(&gate, 1);
    fj_wait(&t);
    ok(fj_pool_destroy(pool) == FJ_OK, "once the task is done the pool is destroyed");
    /* Outside a pool fork runs the task at once and says so. */
    struct fib f = {10, 0};
    fj_task_init(&t, fib_task, &f);
    ok(fj_fork(&t) == FJ_ENOTASK, "fork outside a pool says FJ_ENOTASK");
    fj_join(&t);
    ok_eq_u64(f.r, 55, "fork outside a pool runs the task at once: fib(10) is 55");
    ok_eq_i64(fj_worker_index(), -1, "a thread outside any pool has worker index -1");
}

/* ---- an idle pool parks: it must not burn CPU ---- */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static void case_idle(void)
{
    fj_pool *pool = pool_new(4);
    struct fib f = {20, 0};
    fj_task t;
    fj_task_init(&t, fib_task, &f);
    fj_invoke(pool, &t);
    usleep(100 * 1000); /* let the spin phase end */
    double c0 = cpu_seconds();
    usleep(500 * 1000);
    double used = cpu_seconds() - c0;
    fj_worker_stats s;
    fj_pool_stats_total(pool, &s);
    diag("idle pool of 4 used %.4f s CPU in 0.5 s; parks=%llu", used, (unsigned long long)s.parks);
    /* Spinning workers would use ~2 s (4 x 0.5 s, capped by 2 cores: 1 s). */
    ok(used < 0.05, "a parked pool of 4 uses under 0.05 s of CPU in 0.5 s");
    ok(s.parks >= 4, "the 4 idle workers parked at least 4 times");
    /* Parked workers wake up for new work. */
    f.n = 21;
    fj_task_init(&t, fib_task, &f);
    fj_invoke(pool, &t);
    ok_eq_u64(f.r, 10946, "parked workers wake up for new work: fib(21) is 10946");
    ok(fj_pool_destroy(pool) == FJ_OK, "the idle pool is destroyed");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"fib", case_fib},
        {"trees", case_trees},
        {"clients", case_clients},
        {"completers", case_completers},
        {"lifecycle", case_lifecycle},
        {"destroy_busy", case_destroy_busy},
        {"idle", case_idle},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) cases[i].run(), ran++;
    if (!ran) bail_out("no test case named %s", argv[1]);
    return done_testing();
}
