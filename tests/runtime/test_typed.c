/* The typed task API (FJ_TASK_n, FJ_SPAWN, FJ_SYNC, FJ_CALL, FJ_INVOKE)
 * through the public header: known answers at several pool sizes, every
 * arity, nesting past the shareable capacity, a frame that can only finish
 * after a thief took it (its result read back from the frame), and the
 * waiting owner running the thief's children (leapfrogging). Run one case:
 * test_typed CASE. */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "../tap.h"
#include "fj.h"
#include "workloads.h"

/* A pool that counts tasks (forks, joins, tasks_executed exact) or not
 * (those three FJ_STAT_UNKNOWN). */
static fj_pool *pool_new_counting(int workers, size_t deque, int count_tasks)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = workers;
    cfg.count_tasks = count_tasks;
    if (deque) cfg.deque_initial = deque;
    fj_pool *p = NULL;
    require(fj_pool_create(&p, &cfg) == FJ_OK);
    return p;
}

static fj_pool *pool_new(int workers, size_t deque)
{
    return pool_new_counting(workers, deque, 0);
}

FJ_TASK_1(long, tfib, long, n)
{
    if (n < 2) return n;
    FJ_SPAWN_SIZED(tfib, n - 2, n - 2);
    long x = FJ_CALL(tfib, n - 1);
    return x + FJ_SYNC(tfib);
}

/* Every arity: sum of a range split in halves (4 arguments), a void task
 * writing through a pointer (3), a pair of results (2: a struct result). */
FJ_TASK_4(long, range_sum, long, lo, long, hi, long, cut, int, depth)
{
    if (hi - lo <= cut) {
        long s = 0;
        for (long i = lo; i < hi; i++)
            s += i;
        return s;
    }
    long mid = lo + (hi - lo) / 2;
    FJ_SPAWN(range_sum, lo, mid, cut, depth + 1);
    long right = FJ_CALL(range_sum, mid, hi, cut, depth + 1);
    return FJ_SYNC(range_sum) + right;
}

FJ_VOID_TASK_3(fill, long *, a, long, n, long, value)
{
    if (n <= 16) {
        for (long i = 0; i < n; i++)
            a[i] = value + i;
        return;
    }
    FJ_SPAWN(fill, a, n / 2, value);
    FJ_CALL(fill, a + n / 2, n - n / 2, value + n / 2);
    FJ_SYNC(fill);
}

struct minmax {
    long min, max;
};

FJ_TASK_2(struct minmax, span, const long *, a, long, n)
{
    if (n == 1) return (struct minmax){a[0], a[0]};
    FJ_SPAWN(span, a, n / 2);
    struct minmax r = FJ_CALL(span, a + n / 2, n - n / 2);
    struct minmax l = FJ_SYNC(span);
    return (struct minmax){l.min < r.min ? l.min : r.min, l.max > r.max ? l.max : r.max};
}

/* A chain nested `n` spawns deep: each level spawns the next and syncs it. */
FJ_TASK_1(long, chain, long, n)
{
    if (n == 0) return 0;
    FJ_SPAWN(chain, n - 1);
    return FJ_SYNC(chain) + 1;
}

static void case_typed_fib(void)
{
    for (int p = 1; p <= 4; p++) {
        fj_pool *pool = pool_new_counting(p, 0, 1);
        for (long n = 0; n <= 23; n += 1 + (n >= 10)) {
            fj_pool_stats_reset(pool);
            long r = -1;
            ok(FJ_INVOKE(pool, tfib, &r, n) == FJ_OK, "P=%d: typed fib(%ld) is invoked", p, n);
            ok_eq_u64(r, fib_table[n], "P=%d: typed fib(%ld) computes F(%ld)", p, n, n);
            fj_worker_stats s;
            fj_pool_stats_total(pool, &s);
            /* One spawn per internal call: F(n+1) - 1 spawns and syncs. */
            ok_eq_u64(s.forks, fib_table[n + 1] - 1, "P=%d: fib(%ld) spawns F(%ld)-1 times", p, n,
                      n + 1);
            ok_eq_u64(s.joins, fib_table[n + 1] - 1, "P=%d: fib(%ld) syncs F(%ld)-1 times", p, n,
                      n + 1);
            ok_eq_u64(s.tasks_executed, fib_table[n + 1],
                      "P=%d: fib(%ld) runs F(%ld) tasks with the root", p, n, n + 1);
        }
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the pool is destroyed", p);
    }
}

static void case_typed_arities(void)
{
    static long a[5000];
    for (int p = 1; p <= 3; p += 2) {
        fj_pool *pool = pool_new(p, 0);
        long s = -1;
        ok(FJ_INVOKE(pool, range_sum, &s, 0, 100000, 7, 0) == FJ_OK && s == 100000L * 99999 / 2,
           "P=%d: a 4-argument task sums [0, 100000) (%ld)", p, s);
        memset(a, 0, sizeof(a));
        ok(FJ_INVOKE(pool, fill, a, 5000, 10) == FJ_OK, "P=%d: a void 3-argument task runs", p);
        long wrong = 0;
        for (long i = 0; i < 5000; i++)
            wrong += a[i] != 10 + i;
        ok_eq_u64(wrong, 0, "P=%d: the void task filled all 5000 elements", p);
        a[1234] = -7;
        a[4321] = 99999;
        struct minmax m = {0, 0};
        ok(FJ_INVOKE(pool, span, &m, a, 5000) == FJ_OK && m.min == -7 && m.max == 99999,
           "P=%d: a task with a struct result finds min -7 and max 99999 (%ld, %ld)", p, m.min,
           m.max);
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the pool is destroyed", p);
    }
}

static void case_typed_deep(void)
{
    /* 16 shareable frames; the chain nests 2000 deep, so most of its frames
     * are overflow frames that are never shared. */
    for (int p = 1; p <= 2; p++) {
        fj_pool *pool = pool_new_counting(p, 16, 1);
        long r = -1;
        fj_pool_stats_reset(pool);
        ok(FJ_INVOKE(pool, chain, &r, 2000) == FJ_OK && r == 2000,
           "P=%d: a chain of spawns 2000 deep past 16 shareable frames returns 2000 (%ld)", p, r);
        /* The statistics count every sync of the chain, those of its
         * overflow frames too. */
        fj_worker_stats s;
        fj_pool_stats_total(pool, &s);
        ok_eq_u64(s.forks, 2000, "P=%d: the chain 2000 deep forked 2000 times", p);
        ok_eq_u64(s.tasks_executed, 2001, "P=%d: ... and ran 2001 tasks with the root", p);
        r = -1;
        ok(FJ_INVOKE(pool, tfib, &r, 20) == FJ_OK && r == 6765,
           "P=%d: fib(20) with 16 shareable frames is 6765", p);
        ok(fj_pool_destroy(pool) == FJ_OK, "P=%d: the pool is destroyed", p);
    }
}

/* ---- stolen frames and leapfrogging (P=2) ---- */
static _Atomic int victim_started, child_started, child_worker, victim_worker;
static _Atomic long noops_spawned; /* by publish_until */

FJ_VOID_TASK_1(noop, int, unused)
{
    (void)unused;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spawns and syncs a no-op until *flag is set: each spawn answers a
 * thief's request, so the frames below become stealable. Whether it was
 * set within 10 s: a case whose thieves never come fails its checks
 * instead of hanging. */
static int publish_until(FJ_CTX_PARAMS, _Atomic int *flag)
{
    double until = now_s() + 10.0;
    while (!atomic_load(flag)) {
        if (now_s() > until) return 0;
        FJ_SPAWN(noop, 0);
        FJ_SYNC(noop);
        atomic_fetch_add(&noops_spawned, 1);
        sched_yield();
    }
    return 1;
}

FJ_TASK_1(long, grandchild, long, x)
{
    atomic_store(&child_worker, fj_worker_index());
    atomic_store(&child_started, 1);
    return x * 3;
}

/* Runs on the thief: spawns a child and does not sync it until the child
 * started elsewhere, which only the waiting owner can do (leapfrogging:
 * the other worker is waiting for this very task). */
FJ_TASK_1(long, victim, long, x)
{
    atomic_store(&victim_worker, fj_worker_index());
    atomic_store(&victim_started, 1);
    FJ_SPAWN(grandchild, x);
    publish_until(FJ_CTX_ARGS, &child_started);
    return FJ_SYNC(grandchild) + 1;
}

/* Spawns victim and does not sync it until it started elsewhere. */
FJ_TASK_1(long, owner, long, x)
{
    FJ_SPAWN(victim, x);
    publish_until(FJ_CTX_ARGS, &victim_started);
    long r = FJ_SYNC(victim);
    return r * 10 + (fj_worker_index() == atomic_load(&child_worker));
}

static void case_typed_stolen(void)
{
    /* Counting tasks: the counts stay exact with frames stolen. */
    fj_pool *pool = pool_new_counting(2, 0, 1);
    for (int round = 0; round < 20; round++) {
        atomic_store(&victim_started, 0);
        atomic_store(&child_started, 0);
        atomic_store(&noops_spawned, 0);
        fj_pool_stats_reset(pool);
        long r = -1;
        ok(FJ_INVOKE(pool, owner, &r, 5 + round) == FJ_OK, "round %d: invoked", round);
        long want = (3 * (5 + round) + 1) * 10 + 1;
        ok(r == want,
           "round %d: the stolen frame's result %ld reaches its owner, and the grandchild ran on "
           "the owner (%ld, want %ld)",
           round, (long)(3 * (5 + round) + 1), r, want);
        ok(atomic_load(&victim_worker) != atomic_load(&child_worker),
           "round %d: the victim ran on the thief, its child on the waiting owner", round);
        fj_worker_stats s;
        fj_pool_stats_total(pool, &s);
        ok(s.steals >= 2 && s.joins_waited >= 2,
           "round %d: two steals and two waited syncs (%llu steals, %llu waited)", round,
           (unsigned long long)s.steals, (unsigned long long)s.joins_waited);
        const uint64_t spawns = 2 + (uint64_t)atomic_load(&noops_spawned);
        ok(s.forks == spawns && s.joins == spawns && s.tasks_executed == spawns + 1,
           "round %d: forks %llu, syncs %llu, tasks %llu: victim, grandchild, %ld no-ops, root",
           round, (unsigned long long)s.forks, (unsigned long long)s.joins,
           (unsigned long long)s.tasks_executed, atomic_load(&noops_spawned));
    }
    ok(fj_pool_destroy(pool) == FJ_OK, "the pool is destroyed");
}

/* The old API beside the new one: a typed task calls plain code that forks
 * and joins with fj_fork/fj_join between a spawn and its sync (the plain
 * code's forks and joins balance, so the head is where it was), and an
 * fj_task body calls a typed task with its worker's head. */
FJ_TASK_1(long, mixed, long, n)
{
    FJ_SPAWN(tfib, n);
    struct fib f = {n, -1};
    fib_task(&f); /* fj_fork/fj_join inside */
    long y = FJ_SYNC(tfib);
    return f.r + y;
}

struct typed_in_plain {
    long n, r;
};

static void typed_in_plain_body(void *arg)
{
    struct typed_in_plain *x = arg;
    struct fib f = {x->n, -1};
    fj_task t;
    fj_task_init(&t, fib_task, &f);
    fj_fork(&t);
    fj_ctx *w = fj_ctx_self();
    long y = tfib(w, fj_head(w), x->n);
    fj_join(&t);
    x->r = f.r + y;
}

/* Statistics of a pool that counts tasks or not (FJ_STAT_UNKNOWN). */
static void mixed_stats(fj_pool *pool, int p, int counting, uint64_t tasks, const char *what)
{
    fj_worker_stats s;
    fj_pool_stats_total(pool, &s);
    if (counting)
        ok(s.forks == tasks - 1 && s.joins == tasks - 1 && s.tasks_executed == tasks,
           "counting, P=%d: %s: forks %llu, joins %llu, tasks %llu (want %llu, %llu, %llu)", p,
           what, (unsigned long long)s.forks, (unsigned long long)s.joins,
           (unsigned long long)s.tasks_executed, (unsigned long long)tasks - 1,
           (unsigned long long)tasks - 1, (unsigned long long)tasks);
    else
        ok(s.forks == FJ_STAT_UNKNOWN && s.joins == FJ_STAT_UNKNOWN &&
               s.tasks_executed == FJ_STAT_UNKNOWN,
           "not counting, P=%d: %s: forks, joins, tasks FJ_STAT_UNKNOWN (%llu, %llu, %llu)", p,
           what, (unsigned long long)s.forks, (unsigned long long)s.joins,
           (unsigned long long)s.tasks_executed);
    if (p == 1)
        ok(s.steals == 0 && s.failed_steals == 0 && s.joins_waited == 0,
           "%s, P=1: %s: no steal, failed steal or waited join (%llu, %llu, %llu)",
           counting ? "counting" : "not counting", what, (unsigned long long)s.steals,
           (unsigned long long)s.failed_steals, (unsigned long long)s.joins_waited);
}

static void case_typed_mixed(void)
{
    for (int counting = 0; counting <= 1; counting++)
        for (int p = 1; p <= 2; p++) {
            fj_pool *pool = pool_new_counting(p, 0, counting);
            long r = -1;
            ok(FJ_INVOKE(pool, tfib, &r, 20) == FJ_OK && r == 6765,
               "counting %d, P=%d: typed fib(20) is 6765", counting, p);
            mixed_stats(pool, p, counting, (uint64_t)fib_table[21], "typed fib(20)");
            fj_pool_stats_reset(pool);
            r = -1;
            ok(FJ_INVOKE(pool, mixed, &r, 20) == FJ_OK && r == 2 * 6765,
               "counting %d, P=%d: fj_fork/fj_join between a typed spawn and its sync: 2 fib(20) "
               "= %ld",
               counting, p, r);
            /* The root, its spawn of tfib(20) and that tree's spawns, the
             * fj_fork tree's forks. */
            mixed_stats(pool, p, counting, 1 + fib_table[21] + (fib_table[21] - 1),
                        "typed and fj_fork fib(20)");
            fj_pool_stats_reset(pool);
            struct typed_in_plain x = {20, -1};
            fj_task t;
            fj_task_init(&t, typed_in_plain_body, &x);
            ok(fj_invoke(pool, &t) == FJ_OK && x.r == 2 * 6765,
               "counting %d, P=%d: a typed task between fj_fork and fj_join: 2 fib(20) = %ld",
               counting, p, x.r);
            /* The root, its fork and that tree's forks, the typed tree's
             * spawns. */
            mixed_stats(pool, p, counting, 1 + fib_table[21] + (fib_table[21] - 1),
                        "fj_fork and typed fib(20)");
            ok(fj_pool_destroy(pool) == FJ_OK, "counting %d, P=%d: the pool is destroyed", counting,
               p);
        }
}

/* ---- joins out of fork order (P=4) ---- */
/* The task forks a typed E, then c0 and c1 with fj_fork; E, c0 and c1 are
 * each stolen by another worker. It joins c0 first while c0 still runs,
 * which drops c1's frame (a stolen proxy is released when taken), and then
 * c1 while c1 still runs: c1's frame is gone, and below it lies E's, stolen and running. That
 * join must help until c1 is done, not wait for E below it: a join that
 * walked down there dropped E's frame (the runtime_soak hang: an enclosing
 * sync then waited for ever). E runs until the task has joined c1. */
static _Atomic int e_started, e_release, e_finished, c0_started, c1_started, c0_join_called,
    c1_join_called;

/* Spins until *flag is set or `seconds` pass; whether it was set. */
static int spin_until(_Atomic int *flag, double seconds)
{
    double until = now_s() + seconds;
    while (!atomic_load(flag))
        if (now_s() > until) return 0;
    return 1;
}

FJ_TASK_1(long, long_e, long, x)
{
    atomic_store(&e_started, 1);
    spin_until(&e_release, 5.0); /* the bounded wait keeps a failing join from hanging */
    atomic_store(&e_finished, 1);
    return x + 1;
}

/* Sets *started, then runs until *join_called is set and a little longer,
 * so that its join finds it running. */
static void run_past_join(_Atomic int *started, _Atomic int *join_called)
{
    atomic_store(started, 1);
    spin_until(join_called, 5.0);
    double until = now_s() + 0.02;
    while (now_s() < until)
        ;
}

static void c0_body(void *arg)
{
    (void)arg;
    run_past_join(&c0_started, &c0_join_called);
}

static void c1_body(void *arg)
{
    (void)arg;
    run_past_join(&c1_started, &c1_join_called);
}

FJ_TASK_1(long, out_of_order, long, x)
{
    fj_task c0, c1;
    fj_task_init(&c0, c0_body, NULL);
    fj_task_init(&c1, c1_body, NULL);
    FJ_SPAWN(long_e, x);
    int stolen = publish_until(FJ_CTX_ARGS, &e_started);
    /* Typed spawns after fj_fork start at the head fj_fork left. */
    fj_fork(&c0);
    stolen += publish_until(FJ_CTX, fj_head(FJ_CTX), &c0_started);
    fj_fork(&c1);
    stolen += publish_until(FJ_CTX, fj_head(FJ_CTX), &c1_started);
    atomic_store(&c0_join_called, 1);
    fj_join(&c0);
    atomic_store(&c1_join_called, 1);
    fj_join(&c1);
    int e_ran_on = !atomic_load(&e_finished);
    atomic_store(&e_release, 1);
    long e = FJ_SYNC(long_e);
    /* 100 * (all three stolen) + 10 * (E still ran after c1's join) + E's result */
    return 100 * (stolen == 3) + 10 * e_ran_on + (e - x);
}

static void case_typed_out_of_order(void)
{
    fj_pool *pool = pool_new(4, 0);
    for (int round = 0; round < 5; round++) {
        atomic_store(&e_started, 0);
        atomic_store(&e_release, 0);
        atomic_store(&e_finished, 0);
        atomic_store(&c0_started, 0);
        atomic_store(&c1_started, 0);
        atomic_store(&c0_join_called, 0);
        atomic_store(&c1_join_called, 0);
        long r = -1;
        ok(FJ_INVOKE(pool, out_of_order, &r, round) == FJ_OK, "round %d: invoked", round);
        ok(r / 100 == 1, "round %d: E, c0 and c1 were each stolen (%ld)", round, r);
        ok(r % 100 / 10 == 1,
           "round %d: the join of c1, whose frame was gone, returned while E below it still ran "
           "(%ld)",
           round, r);
        ok(r % 10 == 1, "round %d: E's result reaches its sync (%ld)", round, r);
    }
    ok(fj_pool_destroy(pool) == FJ_OK, "the pool is destroyed");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"fib", case_typed_fib},     {"arities", case_typed_arities},
        {"deep", case_typed_deep},   {"stolen", case_typed_stolen},
        {"mixed", case_typed_mixed}, {"out_of_order", case_typed_out_of_order},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) cases[i].run(), ran++;
    if (!ran) bail_out("no test case named %s", argv[1]);
    return done_testing();
}
