/* chain: strictly sequential programs of empty tasks, nothing but libfj's
 * own overhead. "link": each task forks one child and joins it at once (a
 * chain of N tasks below the root); "loop": the root forks and joins one
 * empty task N times. Either way every task waits for the one it forked:
 * span = work, parallelism 1 (tracing_aggregates checks the report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj.h"

static void empty(void *arg)
{
    (void)arg;
}

static void link_task(void *arg)
{
    long left = (long)(intptr_t)arg;
    if (left == 0) return;
    fj_task t;
    fj_task_init(&t, link_task, (void *)(intptr_t)(left - 1));
    fj_fork(&t);
    fj_join(&t);
}

static void loop_task(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        fj_task t;
        fj_task_init(&t, empty, NULL);
        fj_fork(&t);
        fj_join(&t);
    }
}

int main(int argc, char **argv)
{
    long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (argc != 3 || (strcmp(argv[1], "link") != 0 && strcmp(argv[1], "loop") != 0) || n < 1 ||
        n > 100000) {
        fprintf(stderr, "usage: chain link|loop N (1..100000)\n");
        return 2;
    }
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 2;
    fj_pool *pool;
    if (fj_pool_create(&pool, &cfg) != FJ_OK) {
        fprintf(stderr, "chain: cannot create the pool\n");
        return 3;
    }
    fj_task root;
    fj_task_init(&root, argv[1][1] == 'i' ? link_task : loop_task, (void *)(intptr_t)n);
    int rc = fj_invoke(pool, &root);
    return rc == FJ_OK && fj_pool_destroy(pool) == FJ_OK ? 0 : 3;
}
