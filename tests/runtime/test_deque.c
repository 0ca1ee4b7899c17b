/* Deque stress: one owner pushes and pops frames, several thieves steal;
 * every task must be taken exactly once. The owner answers the thieves'
 * requests as a spawn does (publish the private part when `need` is
 * raised); a thief writes a result into the frame it stole and marks it
 * done, and the owner, reaching a stolen frame, waits for that and checks
 * the result before it drops the frame (what a sync does). The shareable
 * capacity is small, so that pushes often go past it (frames that must
 * never be stolen), the deque often drains to empty and shared frames are
 * often taken back while thieves race for them. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"
#include "config.h"
#include "deque.h"

#define THIEVES 3
#define TASKS 2000000
#define CAPACITY 64

static fj_deque dq;
static _Atomic uint32_t *taken; /* per task: times taken */
static _Atomic int owner_done;
static _Atomic uint64_t stolen_total;
static _Atomic uint64_t stolen_unshareable; /* frames at or above `end` stolen: must stay 0 */
static _Atomic int thieves_started;
static _Atomic int stole_one; /* set at a thief's first steal */

static void take_once(uint64_t i)
{
    atomic_fetch_add_explicit(&taken[i], 1, memory_order_relaxed);
}

static uint64_t frame_task(const fj_frame *f)
{
    uint64_t i;
    memcpy(&i, f->payload.bytes, sizeof(i));
    return i;
}

static void *thief(void *arg)
{
    (void)arg;
    uint64_t n = 0;
    atomic_fetch_add(&thieves_started, 1);
    for (;;) {
        fj_frame *f;
        fj_steal_result r = fj_deque_steal(&dq, &f);
        if (r == FJ_STEAL_OK) {
            if (f >= dq.end) atomic_fetch_add(&stolen_unshareable, 1);
            uint64_t i = frame_task(f);
            take_once(i);
            uint64_t result = ~i; /* the owner checks it */
            memcpy(f->payload.bytes, &result, sizeof(result));
            /* Release: the owner's acquire sees the result. */
            atomic_store_explicit(&f->state, FJ__FRAME_DONE, memory_order_release);
            /* Relaxed: a flag that only ends the owner's wait (below); it
             * publishes nothing. */
            if (n++ == 0) atomic_store_explicit(&stole_one, 1, memory_order_relaxed);
        } else if (r == FJ_STEAL_EMPTY && atomic_load(&owner_done)) {
            break;
        }
    }
    atomic_fetch_add(&stolen_total, n);
    return NULL;
}

static uint64_t owner_taken, results_wrong;
static uint64_t *pushed; /* per frame slot: the task the owner pushed there last */

/* The owner's sync of its top frame; 0 when the deque is empty. */
static int owner_pop(void)
{
    fj_frame *f = dq.head - 1;
    switch (fj_deque_top(&dq)) {
    case FJ_TOP_NONE:
        return 0;
    case FJ_TOP_OWN:
        dq.head = f;
        take_once(frame_task(f));
        owner_taken++;
        return 1;
    case FJ_TOP_STOLEN:
        break;
    }
    while (!(atomic_load_explicit(&f->state, memory_order_acquire) & FJ__FRAME_DONE))
        sched_yield();
    uint64_t result;
    memcpy(&result, f->payload.bytes, sizeof(result));
    fj_deque_drop_stolen(&dq);
    results_wrong += result != ~pushed[dq.head - dq.base];
    return 1;
}

/* On a loaded machine the thieves can get no CPU time while the owner runs
 * through all its tasks (a CI at a load of 18: no steal in 2M tasks):
 * halfway, the owner stops popping until some thief has stolen a frame,
 * answering the thieves' requests meanwhile, for at most 30 s. */
static void wait_for_a_steal(void)
{
    const struct timespec ms = {0, 1000000};
    /* Relaxed: the flag orders nothing; the deque's own protocol does. */
    for (int i = 0; i < 30000 && !atomic_load_explicit(&stole_one, memory_order_relaxed); i++) {
        if (atomic_load_explicit(&dq.need, memory_order_relaxed)) fj_deque_publish(&dq);
        nanosleep(&ms, NULL);
    }
}

int main(void)
{
    plan_tests(6);
    taken = calloc(TASKS, sizeof(*taken));
    pushed = calloc(CAPACITY + FJ_DEQUE_OVERFLOW, sizeof(*pushed));
    require(taken && pushed);
    require(fj_deque_init(&dq, CAPACITY) == FJ_OK);
    pthread_t th[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&th[i], NULL, thief, NULL);
    /* On a loaded machine the thieves may not run at all unless the owner
     * waits for them and yields now and then. */
    while (atomic_load(&thieves_started) < THIEVES)
        sched_yield();
    /* Bursts of pushes then a few pops: the deque both fills and drains. */
    uint64_t next = 0, past_end = 0;
    bool waited = false;
    unsigned rng = 12345;
    while (next < TASKS) {
        rng = rng * 1103515245u + 12345u;
        size_t burst = 1 + (rng >> 16) % 200;
        if ((next & 0xffff) < burst) sched_yield();
        for (size_t k = 0; k < burst && next < TASKS; k++) {
            fj_frame *f = dq.head;
            past_end += f >= dq.end;
            uint64_t i = next++;
            memcpy(f->payload.bytes, &i, sizeof(i));
            pushed[f - dq.base] = i;
            /* Relaxed: a private frame, published by fj_deque_publish. */
            atomic_store_explicit(&f->state, 0, memory_order_relaxed);
            dq.head = f + 1;
            if (atomic_load_explicit(&dq.need, memory_order_relaxed)) fj_deque_publish(&dq);
        }
        if (next >= TASKS / 2 && !waited) {
            wait_for_a_steal();
            waited = true;
        }
        /* Mostly fewer pops than pushes; past twice the capacity, all. */
        size_t depth = (size_t)(dq.head - dq.base);
        size_t pops = depth > 2 * CAPACITY ? depth : burst / 2;
        for (size_t k = 0; k < pops; k++)
            if (!owner_pop()) break;
    }
    while (owner_pop())
        ;
    atomic_store(&owner_done, 1);
    for (int i = 0; i < THIEVES; i++)
        pthread_join(th[i], NULL);
    uint64_t once = 0;
    for (size_t i = 0; i < TASKS; i++)
        once += atomic_load(&taken[i]) == 1;
    diag("owner took %llu, thieves stole %llu, %llu pushes past the shareable capacity",
         (unsigned long long)owner_taken, (unsigned long long)atomic_load(&stolen_total),
         (unsigned long long)past_end);
    ok_eq_u64(once, TASKS, "every one of the %d tasks is taken exactly once", TASKS);
    ok_eq_u64(owner_taken + atomic_load(&stolen_total), TASKS,
              "the owner's takes and the thieves' steals add up to the %d tasks", TASKS);
    ok(atomic_load(&stolen_total) > 0, "the %d thieves stole some tasks", THIEVES);
    ok_eq_u64(atomic_load(&dq.stolen), atomic_load(&stolen_total),
              "the deque's steal counter matches the thieves' count");
    ok_eq_u64(results_wrong, 0,
              "the owner reads every stolen frame's result where the thief left it");
    ok(past_end > 0 && atomic_load(&stolen_unshareable) == 0,
       "frames pushed past the shareable capacity (%llu) are never stolen",
       (unsigned long long)past_end);
    fj_deque_destroy(&dq);
    free(taken);
    free(pushed);
    return done_testing();
}
