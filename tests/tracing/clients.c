/* clients: four client threads each fj_invoke a tree of their own on one
 * pool of 2 workers at the same time: binary trees of depth 4 whose 16
 * leaves each burn 200 us of thread CPU time (work 3.2 ms, span 0.2 ms on
 * the CPU each). The trees overlap: the pool's span is the longest tree's,
 * not their sum (tracing_aggregates checks the report), and each client
 * thread records its own off-CPU time (its perf event closed when it ends). */
#include <pthread.h>
#include <stdio.h>

#include "cpuburn.h"
#include "fj.h"

enum { CLIENTS = 4, DEPTH = 4, LEAF_NS = 200000 };

static fj_pool *pool;
static pthread_barrier_t all_ready;

static void node(void *arg)
{
    long d = (long)(intptr_t)arg;
    if (d == 0) {
        cpuburn(LEAF_NS);
        return;
    }
    fj_task kids[2];
    for (int i = 0; i < 2; i++) {
        fj_task_init(&kids[i], node, (void *)(intptr_t)(d - 1));
        fj_fork(&kids[i]);
    }
    fj_join(&kids[1]);
    fj_join(&kids[0]);
}

static void *client(void *unused)
{
    (void)unused;
    fj_task root;
    fj_task_init(&root, node, (void *)(intptr_t)DEPTH);
    pthread_barrier_wait(&all_ready); /* the four submit together */
    return (void *)(intptr_t)fj_invoke(pool, &root);
}

int main(void)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 2;
    if (fj_pool_create(&pool, &cfg) != FJ_OK) {
        fprintf(stderr, "clients: cannot create the pool\n");
        return 3;
    }
    pthread_barrier_init(&all_ready, NULL, CLIENTS);
    pthread_t t[CLIENTS];
    for (int i = 0; i < CLIENTS; i++)
        if (pthread_create(&t[i], NULL, client, NULL) != 0) return 3;
    int bad = 0;
    for (int i = 0; i < CLIENTS; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        bad |= rc != (void *)(intptr_t)FJ_OK;
    }
    pthread_barrier_destroy(&all_ready);
    return !bad && fj_pool_destroy(pool) == FJ_OK ? 0 : 3;
}
