/* Deque stress: one owner pushes and takes, several thieves steal; every
 * task must be taken exactly once. Small initial capacity so that the
 * deque grows many times under concurrent steals. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../tap.h"
#include "deque.h"

#define THIEVES 3
#define TASKS 2000000

static fj_deque dq;
static fj_task *tasks;
static _Atomic uint32_t *taken; /* per task: times taken */
static _Atomic int owner_done;
static _Atomic uint64_t stolen_total;

static void take_once(fj_task *t)
{
    size_t i = (size_t)(t - tasks);
    atomic_fetch_add_explicit(&taken[i], 1, memory_order_relaxed);
}

static void *thief(void *arg)
{
    (void)arg;
    uint64_t n = 0;
    for (;;) {
        fj_task *t;
        fj_steal_result r = fj_deque_steal(&dq, &t);
        if (r == FJ_STEAL_OK) {
            take_once(t);
            n++;
        } else if (r == FJ_STEAL_EMPTY && atomic_load(&owner_done)) {
            break;
        }
    }
    atomic_fetch_add(&stolen_total, n);
    return NULL;
}

int main(void)
{
    plan_tests(3);
    tasks = calloc(TASKS, sizeof(*tasks));
    taken = calloc(TASKS, sizeof(*taken));
    require(tasks && taken);
    require(fj_deque_init(&dq, 16) == FJ_OK);
    pthread_t th[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&th[i], NULL, thief, NULL);
    /* Bursts of pushes then a few takes: the deque both grows and drains. */
    uint64_t owner_taken = 0;
    size_t next = 0;
    unsigned rng = 12345;
    while (next < TASKS) {
        rng = rng * 1103515245u + 12345u;
        size_t burst = 1 + (rng >> 16) % 200;
        for (size_t k = 0; k < burst && next < TASKS; k++)
            require(fj_deque_push(&dq, &tasks[next++]) >= 0);
        for (size_t k = 0; k < burst / 2; k++) {
            fj_task *t = fj_deque_take(&dq);
            if (!t) break;
            take_once(t);
            owner_taken++;
        }
    }
    for (fj_task *t; (t = fj_deque_take(&dq));) {
        take_once(t);
        owner_taken++;
    }
    atomic_store(&owner_done, 1);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(th[i], NULL);
    uint64_t once = 0;
    for (size_t i = 0; i < TASKS; i++)
        once += atomic_load(&taken[i]) == 1;
    diag("owner took %llu, thieves stole %llu", (unsigned long long)owner_taken,
         (unsigned long long)atomic_load(&stolen_total));
    ok_eq_u64(once, TASKS, "every one of the %d tasks is taken exactly once", TASKS);
    ok_eq_u64(owner_taken + atomic_load(&stolen_total), TASKS,
              "the owner's takes and the thieves' steals add up to the %d tasks", TASKS);
    ok(atomic_load(&stolen_total) > 0, "the %d thieves stole some tasks", THIEVES);
    fj_deque_destroy(&dq);
    free(tasks);
    free(taken);
    return done_testing();
}
