/*
 * Runtime soak: until a time budget runs out, pools of 1..8 workers are
 * created, 1..4 client threads submit random fork/join trees and
 * counted-completer trees (blocking and asynchronous, several in flight),
 * every result is checked, and the pool is destroyed. The budget is
 * FJ_SOAK_SECONDS (default 20); the figures are printed at the end.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"
#include "workloads.h"

#define MAX_INFLIGHT 4

static _Atomic uint64_t trees, completer_trees, errors, destroy_errors, stats_errors;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct client {
    fj_pool *pool;
    uint64_t rng;
    int rounds;
};

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Up to MAX_INFLIGHT random trees submitted at once, then waited for. */
static void submit_batch(struct client *c)
{
    struct node nodes[MAX_INFLIGHT];
    fj_task tasks[MAX_INFLIGHT];
    int k = 1 + (int)(next_rand(&c->rng) % MAX_INFLIGHT);
    for (int i = 0; i < k; i++) {
        nodes[i] = (struct node){next_rand(&c->rng), 2 + (int)(next_rand(&c->rng) % 9), 0};
        fj_task_init(&tasks[i], tree_task, &nodes[i]);
        fj_submit(c->pool, &tasks[i]);
    }
    for (int i = k - 1; i >= 0; i--) {
        fj_wait(&tasks[i]);
        if (nodes[i].sum != tree_seq(nodes[i].seed, nodes[i].depth)) atomic_fetch_add(&errors, 1);
    }
    atomic_fetch_add(&trees, (uint64_t)k);
}

static void invoke_completers(struct client *c)
{
    long n = 1 + (long)(next_rand(&c->rng) % 50000);
    struct range root = {.lo = 0, .hi = n};
    fj_completer_init(&root.cc, NULL, range_compute, range_done, &root);
    fj_invoke(c->pool, &root.cc.task);
    int bad = 0;
    range_check_free(&root, &bad);
    if (bad || root.sum != n * (n - 1) / 2) atomic_fetch_add(&errors, 1);
    atomic_fetch_add(&completer_trees, 1);
}

static void *client_main(void *arg)
{
    struct client *c = arg;
    for (int r = 0; r < c->rounds; r++) {
        if (next_rand(&c->rng) % 3 == 0)
            invoke_completers(c);
        else
            submit_batch(c);
    }
    return NULL;
}

static void soak_round(uint64_t *rng, uint64_t *tasks)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 1 + (int)(next_rand(rng) % 8);
    cfg.spin_rounds = (int)(next_rand(rng) % 80);
    cfg.yield_rounds = cfg.spin_rounds / 4;
    cfg.count_tasks = (int)(next_rand(rng) % 2); /* both modes, the counted one slower */
    fj_pool *pool;
    require(fj_pool_create(&pool, &cfg) == FJ_OK);
    int nclients = 1 + (int)(next_rand(rng) % 4);
    struct client cl[4];
    pthread_t th[4];
    for (int i = 0; i < nclients; i++) {
        cl[i] = (struct client){pool, next_rand(rng) * 2 + 1, 1 + (int)(next_rand(rng) % 12)};
        require(pthread_create(&th[i], NULL, client_main, &cl[i]) == 0);
    }
    for (int i = 0; i < nclients; i++)
        pthread_join(th[i], NULL);
    fj_worker_stats s;
    fj_pool_stats_total(pool, &s);
    if (cfg.count_tasks) {
        /* Every fork was joined (or completed): as many left as went in. */
        if (s.tasks_executed == FJ_STAT_UNKNOWN || s.tasks_executed < s.forks)
            atomic_fetch_add(&stats_errors, 1);
        else
            *tasks += s.tasks_executed;
    } else if (s.forks != FJ_STAT_UNKNOWN || s.joins != FJ_STAT_UNKNOWN ||
               s.tasks_executed != FJ_STAT_UNKNOWN) {
        atomic_fetch_add(&stats_errors, 1);
    }
    if (fj_pool_destroy(pool) != FJ_OK) atomic_fetch_add(&destroy_errors, 1);
}

int main(void)
{
    const char *env = getenv("FJ_SOAK_SECONDS");
    double budget = env ? atof(env) : 20.0;
    plan_tests(4);
    uint64_t rng = (uint64_t)time(NULL) | 1, pools = 0, tasks = 0;
    diag("soak seed %llu, budget %.0f s", (unsigned long long)rng, budget);
    double t0 = now();
    while (now() - t0 < budget) {
        soak_round(&rng, &tasks);
        pools++;
    }
    diag("soak: %.1f s, %llu pools, %llu fork/join trees, %llu completer trees, %llu tasks, "
         "%llu wrong results (tasks: of the pools that count them)",
         now() - t0, (unsigned long long)pools, (unsigned long long)atomic_load(&trees),
         (unsigned long long)atomic_load(&completer_trees), (unsigned long long)tasks,
         (unsigned long long)atomic_load(&errors));
    ok_eq_u64(atomic_load(&errors), 0, "every tree of every client sums right");
    ok_eq_u64(atomic_load(&destroy_errors), 0, "every pool is destroyed once its clients are done");
    ok(pools > 0, "at least one pool was soaked");
    ok_eq_u64(atomic_load(&stats_errors), 0,
              "the pools that count tasks report their counts, the others FJ_STAT_UNKNOWN");
    return exit_status();
}
