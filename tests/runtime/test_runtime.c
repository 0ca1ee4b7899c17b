/* Runtime tests through the public API. Run one case: test_runtime CASE. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "fj.h"
#include "workloads.h"

/* A pool of `workers` that counts tasks (forks, joins, tasks_executed
 * exact) or not (those three FJ_STAT_UNKNOWN). */
static fj_pool *pool_new_counting(int workers, int count_tasks)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = workers;
    cfg.count_tasks = count_tasks;
    fj_pool *p = NULL;
    require(fj_pool_create(&p, &cfg) == FJ_OK);
    require(fj_pool_workers(p) == workers);
    require(fj_pool_counts_tasks(p) == count_tasks);
    return p;
}

static fj_pool *pool_new(int workers)
{
    return pool_new_counting(workers, 0);
}

static void case_fib(void)
{
    for (int p = 1; p <= 4; p++) {
        fj_pool *pool = pool_new_counting(p, 1);
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
        /* Counting tasks: a completer's fork and run are counted too. */
        fj_pool *pool = pool_new_counting(p, 1);
        for (long n = 1; n <= 200000; n = n * 3 + 1) {
            fj_pool_stats_reset(pool);
            struct range root = {.lo = 0, .hi = n};
            fj_completer_init(&root.cc, NULL, range_compute, range_done, &root);
            ok(fj_invoke(pool, &root.cc.task) == FJ_OK,
               "P=%d: the completer sum of [0, %ld) is invoked", p, n);
            ok(fj_task_done(&root.cc.task),
               "P=%d: the root completer of [0, %ld) is done when invoke returns", p, n);
            ok_eq_u64(root.sum, (uint64_t)(n * (n - 1) / 2),
                      "P=%d: the completers sum [0, %ld) to n(n-1)/2", p, n);
            int bad = 0;
            long nodes = range_check_free(&root, &bad);
            ok_eq_u64(bad, 0, "P=%d: every completer of [0, %ld) completed exactly once", p, n);
            /* Exact once the pool is quiescent: the root's invoke returns
             * at its completion, which may run inside another completer's
             * body, counted when that body returns. */
            fj_worker_stats s;
            fj_pool_stats_total(pool, &s);
            for (int i = 0; i < 2000 && s.tasks_executed != (uint64_t)nodes; i++) {
                usleep(1000);
                fj_pool_stats_total(pool, &s);
            }
            ok_eq_u64(s.tasks_executed, nodes,
                      "P=%d: [0, %ld): the counted pool ran its %ld completers as tasks", p, n,
                      nodes);
            ok_eq_u64(s.forks, nodes - 1, "P=%d: [0, %ld): ... all but the root forked", p, n);
        }
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the idle pool is destroyed", p);
    }
}

/* ---- statistics with and without counting tasks ---- */
static _Atomic int stolen_started, stolen_release;

/* Stolen by the other worker: runs until its forker stops forking. */
static void stolen_body(void *arg)
{
    (void)arg;
    atomic_store(&stolen_started, 1);
    while (!atomic_load(&stolen_release))
        sched_yield();
}

static void noop_body(void *arg)
{
    (void)arg;
}

struct one_steal {
    long noops; /* forked and joined while waiting for the steal */
    int stolen; /* the child started elsewhere within 10 s */
};

/* Forks a child and then forks and joins no-ops (each fork answers the
 * thief's request, publishing the child) until the child started on the
 * other worker; the child runs until the forks are over, so that the thief
 * steals nothing else: exactly one steal. */
static void one_steal_body(void *arg)
{
    struct one_steal *x = arg;
    fj_task c;
    fj_task_init(&c, stolen_body, NULL);
    fj_fork(&c);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    x->stolen = 1;
    while (!atomic_load(&stolen_started)) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10) {
            x->stolen = 0;
            break;
        }
        fj_task n;
        fj_task_init(&n, noop_body, NULL);
        fj_fork(&n);
        fj_join(&n);
        x->noops++;
        sched_yield();
    }
    atomic_store(&stolen_release, 1);
    fj_join(&c);
}

static int stats_unknown(const fj_worker_stats *s)
{
    return s->forks == FJ_STAT_UNKNOWN && s->joins == FJ_STAT_UNKNOWN &&
           s->tasks_executed == FJ_STAT_UNKNOWN;
}

static void case_counting(void)
{
    for (int counting = 0; counting <= 1; counting++) {
        const char *mode = counting ? "counting" : "not counting";
        for (int p = 1; p <= 2; p++) {
            fj_pool *pool = pool_new_counting(p, counting);
            struct fib f = {20, -1};
            fj_task t;
            fj_task_init(&t, fib_task, &f);
            ok(fj_invoke(pool, &t) == FJ_OK && f.r == 6765,
               "%s, P=%d: fj_fork/fj_join fib(20) is 6765", mode, p);
            fj_worker_stats s, w[2];
            fj_pool_stats_total(pool, &s);
            ok_eq_u64(fj_pool_stats(pool, w, 2), p, "%s, P=%d: %d workers' statistics", mode, p, p);
            if (counting) {
                ok(s.forks == (uint64_t)fib_table[21] - 1 &&
                       s.joins == (uint64_t)fib_table[21] - 1 &&
                       s.tasks_executed == (uint64_t)fib_table[21],
                   "%s, P=%d: forks %llu, joins %llu, tasks %llu: F(21)-1, F(21)-1, F(21)", mode, p,
                   (unsigned long long)s.forks, (unsigned long long)s.joins,
                   (unsigned long long)s.tasks_executed);
                uint64_t sum = 0;
                for (int i = 0; i < p; i++)
                    sum += w[i].forks;
                ok_eq_u64(sum, s.forks, "%s, P=%d: the workers' forks add up to the total", mode,
                          p);
            } else {
                ok(stats_unknown(&s),
                   "%s, P=%d: forks, joins and tasks_executed are FJ_STAT_UNKNOWN, not a count "
                   "(%llu, %llu, %llu)",
                   mode, p, (unsigned long long)s.forks, (unsigned long long)s.joins,
                   (unsigned long long)s.tasks_executed);
                int all = 1;
                for (int i = 0; i < p; i++)
                    all &= stats_unknown(&w[i]);
                ok(all, "%s, P=%d: ... and so are every worker's", mode, p);
            }
            if (p == 1) {
                ok(s.steals == 0 && s.failed_steals == 0 && s.joins_waited == 0,
                   "%s, P=1: no steal, no failed steal, no waited join (%llu, %llu, %llu)", mode,
                   (unsigned long long)s.steals, (unsigned long long)s.failed_steals,
                   (unsigned long long)s.joins_waited);
            } else {
                fj_pool_stats_reset(pool);
                atomic_store(&stolen_started, 0);
                atomic_store(&stolen_release, 0);
                struct one_steal x = {0, 0};
                fj_task_init(&t, one_steal_body, &x);
                ok(fj_invoke(pool, &t) == FJ_OK && x.stolen,
                   "%s, P=2: a child forked is stolen while its forker forks %ld no-ops", mode,
                   x.noops);
                fj_pool_stats_total(pool, &s);
                /* The join waits unless the child ended first. */
                ok(s.steals == 1 && s.joins_waited <= 1,
                   "%s, P=2: exactly one steal, at most one waited join (%llu, %llu)", mode,
                   (unsigned long long)s.steals, (unsigned long long)s.joins_waited);
                if (counting)
                    ok(s.forks == (uint64_t)x.noops + 1 && s.joins == s.forks &&
                           s.tasks_executed == s.forks + 1,
                       "%s, P=2: forks %llu, joins %llu, tasks %llu: the %ld no-ops, the child, "
                       "the root",
                       mode, (unsigned long long)s.forks, (unsigned long long)s.joins,
                       (unsigned long long)s.tasks_executed, x.noops);
                else
                    ok(stats_unknown(&s), "%s, P=2: forks, joins and tasks_executed unknown", mode);
            }
            ok(fj_pool_destroy(pool) == FJ_OK, "%s, P=%d: the pool is destroyed", mode, p);
        }
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
        {"counting", case_counting},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) cases[i].run(), ran++;
    if (!ran) bail_out("no test case named %s", argv[1]);
    return done_testing();
}
