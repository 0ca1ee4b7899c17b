/* The tracker (analyzer/core/tracker.h) on hand-made events: the changes it
 * tells a listener, in order, and that the model (its first listener) books
 * the same intervals. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "fja.h"

#define MAX_LOG 256

/* What a listener saw: the changes, with the worker index (-2: none). */
typedef struct {
    fja_change c[MAX_LOG];
    int32_t worker[MAX_LOG];
    uint64_t task_id[MAX_LOG];
    int n;
} change_log;

static void record(void *ctx, fja_model *m, const fja_change *c)
{
    change_log *log = ctx;
    if (log->n == MAX_LOG) return;
    log->c[log->n] = *c;
    log->worker[log->n] = c->worker != FJA_NO_WORKER ? c->worker : -2;
    log->task_id[log->n] = c->pool_index != FJA_NO_POOL && c->task != FJA_TASK_NONE
                               ? fja_taskmap_get(&m->pools[c->pool_index].tasks, c->task)->id
                               : 0;
    log->n++;
}

/* The first change of kind k on worker w at or after index *from. */
static const fja_change *find(const change_log *log, fja_change_kind k, int32_t w, int *from)
{
    for (int i = *from; i < log->n; i++)
        if (log->c[i].kind == k && log->worker[i] == w) {
            *from = i + 1;
            return &log->c[i];
        }
    return NULL;
}

static fja_model M;
static fja_tracker T;
static change_log L;

static void ev(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t arg)
{
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1};
    fja_event_set_arg(&e, arg);
    fja_tracker_feed(&T, &e);
}

static void start(void)
{
    fja_model_init(&M);
    memset(&L, 0, sizeof L);
    fja_tracker_init(&T, &M);
    fja_tracker_listen(&T, (fja_listener){.ctx = &L, .change = record});
    ev(0, FJA_EV_POOL_BEGIN, -1, 0, 2);
    ev(0, FJA_EV_WORKER_BEGIN, 0, 0, 0);
    ev(0, FJA_EV_WORKER_BEGIN, 1, 0, 0);
}

static bool is_state(const fja_change *c, fja_wstate from, fja_wstate to, uint64_t ts,
                     uint64_t since)
{
    return c && c->from == from && c->to == to && c->ts == ts && c->since == since;
}

static void lock_wait(void)
{
    start();
    ev(5, FJA_EV_SUBMIT, -1, 1, 0);
    ev(10, FJA_EV_EXEC, 0, 1, 0);
    ev(20, FJA_EV_LOCK_WAIT, 0, 0, 7);
    ev(50, FJA_EV_LOCK_ACQUIRED, 0, 0, 7);
    ev(60, FJA_EV_EXECUTED, 0, 1, 0);
    int i = 0;
    ok(is_state(find(&L, FJA_CHANGE_STATE, 0, &i), FJA_WS_OFF, FJA_WS_SEARCH, 0, 0),
       "worker_begin: worker 0 switches from off to searching at 0");
    ok(is_state(find(&L, FJA_CHANGE_STATE, 0, &i), FJA_WS_SEARCH, FJA_WS_RUN, 10, 0),
       "exec: searching -> running at 10");
    int j = i;
    const fja_change *lb = find(&L, FJA_CHANGE_LOCK_BEGIN, 0, &j);
    ok(lb && lb->ts == 20 && lb->lock == 7 && L.task_id[j - 1] == 1,
       "lock_wait: LOCK_BEGIN at 20 for lock 7, charged to task 1");
    ok(is_state(find(&L, FJA_CHANGE_STATE, 0, &i), FJA_WS_RUN, FJA_WS_LOCK, 20, 10),
       "lock_wait: running (since 10) -> lock wait at 20, not running");
    const fja_change *le = find(&L, FJA_CHANGE_LOCK_END, 0, &j);
    ok(le && le->ts == 50 && le->since == 20 && le->lock == 7,
       "lock_acquired: LOCK_END at 50 for lock 7, waiting since 20");
    ok(is_state(find(&L, FJA_CHANGE_STATE, 0, &i), FJA_WS_LOCK, FJA_WS_RUN, 50, 20),
       "lock_acquired: lock wait (since 20) -> running at 50");
    ok(is_state(find(&L, FJA_CHANGE_STATE, 0, &i), FJA_WS_RUN, FJA_WS_SEARCH, 60, 50),
       "executed: running -> searching at 60");
    ok_eq_u64(M.pools[0].workers[0].state_ns[FJA_WS_LOCK], 30,
              "the model, listening first, books the same 30 ns of lock wait");
    ok_eq_u64(M.pools[0].workers[0].state_ns[FJA_WS_RUN], 20, "and 20 ns running (10..20, 50..60)");
    fja_tracker_free(&T);
    fja_model_free(&M);
}

static void steal_and_join(void)
{
    start();
    ev(5, FJA_EV_SUBMIT, -1, 1, 0);
    ev(10, FJA_EV_EXEC, 0, 1, 0);
    ev(15, FJA_EV_FORK, 0, 2, 1);
    ev(25, FJA_EV_STEAL, 1, 2, 0);
    ev(30, FJA_EV_EXEC, 1, 2, 0);
    ev(40, FJA_EV_JOIN, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 1, 2, 0);
    ev(48, FJA_EV_JOINED, 0, 2, 0);
    ev(50, FJA_EV_EXECUTED, 0, 1, 0);
    int i = 0;
    const fja_change *q = find(&L, FJA_CHANGE_QUEUE, 0, &i);
    ok(q && q->ts == 15 && q->depth == 1 && q->delta == 1, "fork: worker 0's deque grows to 1");
    q = find(&L, FJA_CHANGE_QUEUE, 0, &i);
    ok(q && q->ts == 25 && q->depth == 0 && q->counted,
       "steal: the victim's deque (worker 0) shrinks to 0 when worker 1 takes the task");
    i = 0;
    const fja_change *s = find(&L, FJA_CHANGE_STEAL, 1, &i);
    ok(s && s->ts == 25 && s->other == 0 && L.task_id[i - 1] == 2,
       "steal: worker 1 stole task 2 from worker 0");
    const fja_change *b = find(&L, FJA_CHANGE_TASK_BEGIN, 1, &i);
    ok(b && b->ts == 30 && b->stolen && b->since == 15 && b->other == 0,
       "exec of the stolen task: stolen, queued at 15 by worker 0 (the fork -> exec flow)");
    i = 0;
    const fja_change *jb = find(&L, FJA_CHANGE_JOIN_BEGIN, 0, &i);
    ok(jb && jb->ts == 40 && L.task_id[i - 1] == 2, "join: worker 0 waits for task 2 at 40");
    const fja_change *je = find(&L, FJA_CHANGE_JOIN_END, 0, &i);
    ok(je && je->ts == 48 && je->since == 45,
       "joined at 48, the awaited task done at 45 (join latency 3 ns)");
    ok_eq_u64(M.pools[0].join_latency.count, 1, "the model counts that one join latency");
    ok_eq_u64(M.pools[0].join_latency.sum, 3, "of 3 ns");
    fja_tracker_free(&T);
    fja_model_free(&M);
}

static void lost_parked_finish(void)
{
    start();
    ev(5, FJA_EV_SUBMIT, -1, 1, 0);
    ev(10, FJA_EV_EXEC, 0, 1, 0);
    ev(12, FJA_EV_FORK, 0, 2, 1);
    ev(14, FJA_EV_EXEC, 0, 2, 0);
    /* the older layout (named: the current one cannot tell) */
    fja_event named = {
        .ts = 20, .kind = FJA_EV_EXECUTED, .worker = 0, .task = 1, .pool = 1, .named = true};
    fja_tracker_feed(&T, &named); /* task 2's executed never came */
    ev(30, FJA_EV_PARK, 1, 0, 0);
    ev(35, FJA_EV_UNPARK, 1, 0, 0);
    ev(36, FJA_EV_UNPARK, 1, 0, 0); /* unpark while not parked */
    ev(40, FJA_EV_EXEC, 0, 3, 0);   /* a task never forked: still running at the end */
    int i = 0;
    const fja_change *lost = find(&L, FJA_CHANGE_TASK_LOST, 0, &i);
    ok(lost && lost->ts == 20 && L.task_id[i - 1] == 2,
       "executed of the outer task pops the inner one as TASK_LOST");
    ok(M.anomalies[FJA_AN_UNBALANCED_NESTING] == 1, "and counts one unbalanced nesting");
    i = 0;
    const fja_change *pk = find(&L, FJA_CHANGE_PARK, 1, &i);
    const fja_change *up1 = find(&L, FJA_CHANGE_UNPARK, 1, &i);
    const fja_change *up2 = find(&L, FJA_CHANGE_UNPARK, 1, &i);
    ok(pk && pk->counted && up1 && up1->counted && up2 && !up2->counted,
       "park and unpark switch; an unpark while not parked is told but not counted");
    fja_tracker_finish(&T);
    i = 0;
    const fja_change *st = NULL, *last = NULL;
    while ((st = find(&L, FJA_CHANGE_STATE, 0, &i)))
        last = st;
    ok(last && last->to == FJA_WS_OFF && last->from == FJA_WS_RUN && last->ts == 40,
       "finish closes worker 0, still running, at the pool's last event");
    i = 0;
    ok(find(&L, FJA_CHANGE_POOL_END, -2, &i) != NULL, "finish tells POOL_END for the pool");
    fja_tracker_finish(&T);
    int pool_ends = 0;
    for (int k = 0; k < L.n; k++)
        pool_ends += L.c[k].kind == FJA_CHANGE_POOL_END;
    ok_eq_i64(pool_ends, 1, "a second finish changes nothing");
    fja_tracker_free(&T);
    fja_model_free(&M);
}

int main(void)
{
    plan_tests(23);
    lock_wait();
    steal_and_join();
    lost_parked_finish();
    return done_testing();
}
