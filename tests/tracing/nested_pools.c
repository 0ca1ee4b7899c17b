/* nested_pools: a task of pool A waits in fj_invoke for a task of pool B
 * that burns 20 ms of CPU time (spinning on its thread's CPU clock). The
 * computation is 20 ms: pool A's task only waits, outside libfj's joins,
 * blocked on a futex (tracing_aggregates checks the report says so). */
#include <stdio.h>

#include "cpuburn.h"
#include "fj.h"

static fj_pool *pool_b;

static void burn(void *arg)
{
    (void)arg;
    cpuburn(20000000u);
}

static void wait_on_b(void *arg)
{
    (void)arg;
    fj_task t;
    fj_task_init(&t, burn, NULL);
    fj_invoke(pool_b, &t);
}

int main(void)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 1;
    fj_pool *pool_a;
    if (fj_pool_create(&pool_a, &cfg) != FJ_OK || fj_pool_create(&pool_b, &cfg) != FJ_OK) {
        fprintf(stderr, "nested_pools: cannot create the pools\n");
        return 3;
    }
    fj_task t;
    fj_task_init(&t, wait_on_b, NULL);
    fj_invoke(pool_a, &t);
    return fj_pool_destroy(pool_a) == FJ_OK && fj_pool_destroy(pool_b) == FJ_OK ? 0 : 3;
}
