/* Deque stress: one owner pushes and pops, several thieves steal; every
 * task must be taken exactly once. The owner answers the thieves' requests
 * as fj_fork does (publish the private part when `need` is raised), and the
 * capacity is small, so that the deque is often full (the owner then takes
 * the task itself, as a fork runs it at once), often drained to empty
 * (reset to slot 0, new generation) and often has shared slots taken back
 * while thieves race for them. */
#include <pthread.h>
#include <sched.h>
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
static _Atomic int thieves_started;

static void take_once(fj_task *t)
{
    size_t i = (size_t)(t - tasks);
    atomic_fetch_add_explicit(&taken[i], 1, memory_order_relaxed);
}

static void *thief(void *arg)
{
    (void)arg;
    uint64_t n = 0;
    atomic_fetch_add(&thieves_started, 1);
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
    plan_tests(4);
    tasks = calloc(TASKS, sizeof(*tasks));
    taken = calloc(TASKS, sizeof(*taken));
    require(tasks && taken);
    require(fj_deque_init(&dq, 64) == FJ_OK);
    pthread_t th[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&th[i], NULL, thief, NULL);
    /* On a loaded machine the thieves may not run at all unless the owner
     * waits for them and yields now and then. */
    while (atomic_load(&thieves_started) < THIEVES)
        sched_yield();
    /* Bursts of pushes then a few pops: the deque both fills and drains. */
    uint64_t owner_taken = 0;
    size_t next = 0;
    unsigned rng = 12345;
    while (next < TASKS) {
        rng = rng * 1103515245u + 12345u;
        size_t burst = 1 + (rng >> 16) % 200;
        if ((next & 0xffff) < burst) sched_yield();
        for (size_t k = 0; k < burst && next < TASKS; k++) {
            fj_task *t = &tasks[next++];
            if (fj__deque_try_push(&dq, t) != 0) { /* full: "run it at once" */
                take_once(t);
                owner_taken++;
            }
            if (atomic_load_explicit(&dq.need, memory_order_relaxed)) fj_deque_publish(&dq);
        }
        for (size_t k = 0; k < burst / 2; k++) {
            fj_task *t = fj_deque_pop(&dq);
            if (!t) break;
            take_once(t);
            owner_taken++;
        }
    }
    for (fj_task *t; (t = fj_deque_pop(&dq));) {
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
    ok_eq_u64(atomic_load(&dq.stolen), atomic_load(&stolen_total),
              "the deque's steal counter matches the thieves' count");
    fj_deque_destroy(&dq);
    free(tasks);
    free(taken);
    return done_testing();
}
