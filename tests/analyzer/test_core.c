/* Unit tests of the analysis core on hand-built event streams. Every
 * expected number below is computed by hand in the comments. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hist.h"
#include "model.h"

static int failures;

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a,    \
                    a_, #b, b_);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                                      \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (a_ < b_ - (eps) || a_ > b_ + (eps)) {                                                  \
            fprintf(stderr, "%s:%d: %s == %g, expected %g\n", __FILE__, __LINE__, #a, a_, b_);     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);                        \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static fja_model M;

/* One event of pool 1: arg is the parent (fork), victim (steal), target
 * (wake) or worker count (pool_begin). */
static void ev(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t arg)
{
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1};
    fja_event_set_arg(&e, arg);
    fja_model_feed(&M, &e);
}

static void fork_sz(uint64_t ts, int32_t w, uint64_t task, uint64_t parent, uint64_t size)
{
    fja_event e = {.ts = ts,
                   .kind = FJA_EV_FORK,
                   .worker = w,
                   .task = task,
                   .arg = {.parent = parent},
                   .size_hint = size,
                   .pool = 1};
    fja_model_feed(&M, &e);
}

static void start(uint32_t workers)
{
    fja_model_init(&M);
    ev(0, FJA_EV_POOL_BEGIN, -1, 0, workers);
    for (uint32_t w = 0; w < workers; w++)
        ev(0, FJA_EV_WORKER_BEGIN, (int32_t)w, 0, 0);
}

static void stop(uint64_t ts, uint32_t workers)
{
    for (uint32_t w = 0; w < workers; w++)
        ev(ts, FJA_EV_WORKER_END, (int32_t)w, 0, 0);
    ev(ts + 1, FJA_EV_POOL_END, -1, 0, 0);
    fja_model_finish(&M);
}

static fja_report R;

static const fja_pool_report *analyze(void)
{
    fja_filter f = {0};
    if (fja_analysis_run(&M, &f, &R)) {
        fprintf(stderr, "fja_analysis_run failed\n");
        exit(1);
    }
    return &R.pools[0];
}

static void done(void)
{
    fja_analysis_free(&R);
    fja_model_free(&M);
}

/* A root forks one child that is stolen; the root waits for it in a join. */
static void test_steal_and_waited_join(void)
{
    start(2);
    ev(2, FJA_EV_SUBMIT, -1, 1, 0);
    ev(10, FJA_EV_EXEC, 0, 1, 0);
    fork_sz(20, 0, 2, 1, 3); /* root self 10 so far: child starts at span 10 */
    ev(21, FJA_EV_STEAL, 1, 2, 0);
    ev(22, FJA_EV_EXEC, 1, 2, 0);     /* both workers busy: full parallelism */
    ev(30, FJA_EV_JOIN, 0, 2, 0);     /* root self 20 */
    ev(42, FJA_EV_EXECUTED, 1, 2, 0); /* child self 20, done at span 30 */
    ev(43, FJA_EV_JOINED, 0, 2, 0);   /* join latency 1 */
    ev(48, FJA_EV_EXECUTED, 0, 1, 0); /* root self 25 -> span 30 + 5 = 35 */
    ev(50, FJA_EV_RESULT, -1, 1, 0);
    stop(60, 2);
    const fja_pool_report *p = analyze();
    CHECK_EQ(p->ntrees, 1);
    const fja_tree_report *t = &p->trees[0];
    CHECK(t->complete);
    CHECK(R.complete);
    CHECK_EQ(t->tree->tasks, 2);
    CHECK_EQ(t->tree->max_depth, 1);
    CHECK_EQ(t->tree->work_ns, 45);
    CHECK_EQ(t->tree->span_ns, 35);
    CHECK_NEAR(t->parallelism, 45.0 / 35.0, 1e-9);
    CHECK_EQ(t->first_task_ns, 8);
    CHECK_EQ(t->full_parallelism_ns, 20);
    CHECK_EQ(t->final_handoff_ns, 2);
    CHECK_EQ(t->latency_ns, 48);
    const fja_pool *pool = p->pool;
    CHECK_EQ(pool->forks, 1);
    CHECK_EQ(pool->steals, 1);
    CHECK_EQ(pool->joins_waited, 1);
    CHECK_EQ(pool->exec_to_executed_ns, 38 + 20);
    CHECK_EQ(pool->join_latency.count, 1);
    CHECK_EQ(pool->join_latency.sum, 1);
    CHECK_EQ(pool->steal_latency.sum, 1);
    CHECK_EQ(pool->steal_depth[1], 1);
    /* worker 0: search 0-10, run 10-30, join 30-43, run 43-48, search 48-60 */
    const fja_worker *w0 = &pool->workers[0], *w1 = &pool->workers[1];
    CHECK_EQ(w0->state_ns[FJA_WS_RUN], 25);
    CHECK_EQ(w0->state_ns[FJA_WS_JOIN], 13);
    CHECK_EQ(w0->state_ns[FJA_WS_SEARCH], 22);
    CHECK_EQ(w1->state_ns[FJA_WS_RUN], 20);
    CHECK_EQ(w1->state_ns[FJA_WS_SEARCH], 40);
    /* w0's first gap (0-10) had the root queued 8 of 10 ns: stealing late;
     * w1's first gap (0-22) had work queued 9 of 22 ns: no work. */
    CHECK_EQ(w0->gaps[FJA_GAP_WORK_QUEUED], 1);
    CHECK_EQ(w0->gap_ns[FJA_GAP_WORK_QUEUED], 10);
    CHECK_EQ(w0->gap_ns[FJA_GAP_JOIN], 13);
    CHECK_EQ(w0->gap_ns[FJA_GAP_NO_WORK], 12);
    CHECK_EQ(w1->gap_ns[FJA_GAP_NO_WORK], 40);
    CHECK_EQ(w1->gaps[FJA_GAP_NO_WORK], 2);
    CHECK_EQ(w0->idle_queued_ns, 8);
    CHECK_EQ(w1->idle_queued_ns, 9);
    CHECK_EQ(p->gap_ns[FJA_GAP_NO_WORK], 52);
    /* one task queued on w0 for 1 ns out of 60 */
    CHECK_EQ(w0->qmax, 1);
    CHECK_NEAR(w0->q_area, 1.0, 1e-9);
    CHECK_EQ(p->max_queue_depth, 1);
    CHECK_NEAR(p->mean_queue_depth, (1.0 / 60) / 2, 1e-12);
    CHECK_EQ(p->granularity.p50, 20);
    CHECK_EQ(p->granularity.p90, 25);
    CHECK_EQ(p->granularity.max, 25);
    CHECK_NEAR(p->speedup_bound[0], 1.0, 1e-9);
    CHECK_NEAR(p->speedup_bound[1], 45.0 / 35.0, 1e-9);
    done();
}

/* An inline child (not stolen) and a helped task nested inside a join. */
static void test_inline_and_helping(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);  /* A, span 10 */
    ev(12, FJA_EV_FORK, 0, 3, 1);  /* B, span 12 */
    ev(13, FJA_EV_STEAL, 1, 2, 0); /* w1 takes A */
    ev(14, FJA_EV_EXEC, 1, 2, 0);
    ev(15, FJA_EV_EXEC, 0, 3, 0);     /* B inline: root self 15 */
    ev(16, FJA_EV_FORK, 1, 4, 2);     /* D, forked by A at A self 2: span 12 */
    ev(20, FJA_EV_EXECUTED, 0, 3, 0); /* B self 5, done 17 -> root base 2 */
    ev(22, FJA_EV_JOIN, 0, 2, 0);     /* root self 17, waits for A */
    ev(23, FJA_EV_STEAL, 0, 4, 1);    /* helping: w0 takes D from w1 */
    ev(24, FJA_EV_EXEC, 0, 4, 0);
    ev(30, FJA_EV_EXECUTED, 0, 4, 0); /* D self 6, done 18 */
    ev(40, FJA_EV_EXECUTED, 1, 2, 0); /* A self 26, done 36 -> root base 19 */
    ev(41, FJA_EV_JOINED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0); /* root self 21 -> span 40 */
    ev(50, FJA_EV_RESULT, -1, 1, 0);
    stop(60, 2);
    const fja_pool_report *p = analyze();
    const fja_tree_report *t = &p->trees[0];
    CHECK(t->complete);
    CHECK_EQ(t->tree->tasks, 4);
    CHECK_EQ(t->tree->max_depth, 2);
    CHECK_EQ(t->tree->max_arity, 2);
    CHECK_EQ(t->tree->work_ns, 21 + 26 + 5 + 6);
    CHECK_EQ(t->tree->span_ns, 40);
    CHECK_EQ(t->first_task_ns, 0);
    CHECK_EQ(t->full_parallelism_ns, 14);
    CHECK_EQ(t->final_handoff_ns, 5);
    CHECK_EQ(t->latency_ns, 50);
    const fja_pool *pool = p->pool;
    const fja_worker *w0 = &pool->workers[0], *w1 = &pool->workers[1];
    CHECK_EQ(w0->state_ns[FJA_WS_RUN], 32); /* = root 21 + B 5 + D 6 */
    CHECK_EQ(w0->state_ns[FJA_WS_JOIN], 13);
    CHECK_EQ(w0->gaps[FJA_GAP_JOIN], 2);
    CHECK_EQ(w0->gap_ns[FJA_GAP_JOIN], 13);
    CHECK_EQ(w1->state_ns[FJA_WS_RUN], 26);
    CHECK_EQ(p->busy_ns, t->tree->work_ns);
    /* w0 queue: 1 task 10-12, 2 tasks 12-13, 1 task 13-15; w1: D 16-23 */
    CHECK_EQ(w0->qmax, 2);
    CHECK_NEAR(w0->q_area, 6.0, 1e-9);
    CHECK_NEAR(w1->q_area, 7.0, 1e-9);
    CHECK_NEAR(p->mean_queue_depth, (6.0 / 60 + 7.0 / 60) / 2, 1e-12);
    /* subtree work: root = everything, A = A + D */
    fja_task *root = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 1));
    fja_task *a = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 2));
    CHECK_EQ(root->subtree_ns, 58);
    CHECK_EQ(a->subtree_ns, 32);
    CHECK_EQ(pool->joins_waited, 1);
    CHECK_EQ(pool->steals, 2);
    done();
}

/* Counted completers: the root completes on the thread of its last child,
 * after its own body has ended. */
static void test_completers(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(2, FJA_EV_FORK, 0, 2, 1); /* C1 at span 2 */
    ev(3, FJA_EV_STEAL, 1, 2, 0);
    ev(4, FJA_EV_FORK, 0, 3, 1); /* C2 at span 4 */
    ev(4, FJA_EV_EXEC, 1, 2, 0);
    ev(5, FJA_EV_EXECUTED, 0, 1, 0); /* root body: self 5, pending children */
    ev(6, FJA_EV_EXEC, 0, 3, 0);
    ev(8, FJA_EV_COMPLETING, 0, 3, 0);
    ev(9, FJA_EV_COMPLETED, 0, 3, 0); /* C2 done at span 4 + 3 = 7 */
    ev(10, FJA_EV_EXECUTED, 0, 3, 0); /* C2 self 4 */
    ev(12, FJA_EV_COMPLETING, 1, 2, 0);
    ev(13, FJA_EV_COMPLETED, 1, 2, 0);  /* C1 done at span 2 + 9 = 11 */
    ev(13, FJA_EV_COMPLETING, 1, 1, 0); /* last child: the root completes */
    ev(15, FJA_EV_COMPLETED, 1, 1, 0);  /* root done at span 2 + 11 = 13 */
    ev(16, FJA_EV_EXECUTED, 1, 2, 0);   /* C1 self 12: span 14 */
    ev(20, FJA_EV_RESULT, -1, 1, 0);
    stop(30, 2);
    const fja_pool_report *p = analyze();
    const fja_tree_report *t = &p->trees[0];
    const fja_pool *pool = p->pool;
    CHECK(t->complete);
    CHECK_EQ(t->tree->work_ns, 5 + 4 + 12);
    CHECK_EQ(t->tree->span_ns, 14);
    CHECK_EQ(t->tree->done_ts, 15);
    /* From the root's completion (15), which released the client, not from
     * C1's body end (16): a completer is done at `completed`. */
    CHECK_EQ(t->final_handoff_ns, 5);
    CHECK_EQ(t->latency_ns, 20);
    CHECK_EQ(pool->exec_to_executed_ns, 5 + 4 + 12);
    CHECK_EQ(pool->completing_to_completed_ns, 1 + 1 + 2);
    CHECK_EQ(pool->completions, 3);
    CHECK_EQ(pool->unfinished, 0);
    fja_task *root = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 1));
    CHECK_EQ(root->subtree_ns, 21); /* children ended after the root's body */
    done();
}

/* Parking, waking, and an idle gap with no work anywhere. */
static void test_park(void)
{
    start(1);
    ev(10, FJA_EV_PARK, 0, 0, 0);
    ev(20, FJA_EV_SUBMIT, -1, 7, 0);
    ev(21, FJA_EV_WAKE, -1, 0, 0);
    ev(25, FJA_EV_UNPARK, 0, 0, 0);
    ev(26, FJA_EV_EXEC, 0, 7, 0);
    ev(36, FJA_EV_EXECUTED, 0, 7, 0);
    ev(40, FJA_EV_RESULT, -1, 7, 0);
    stop(50, 1);
    const fja_pool_report *p = analyze();
    const fja_worker *w = &p->pool->workers[0];
    CHECK_EQ(w->parks, 1);
    CHECK_EQ(p->pool->wakes, 1);
    CHECK_EQ(w->state_ns[FJA_WS_PARK], 15);
    CHECK_EQ(w->state_ns[FJA_WS_SEARCH], 11 + 14);
    CHECK_EQ(w->state_ns[FJA_WS_RUN], 10);
    /* gap 0-26: root queued 20-26 (6 of 26): no work; gap 36-50: no work */
    CHECK_EQ(w->gaps[FJA_GAP_NO_WORK], 2);
    CHECK_EQ(w->gap_ns[FJA_GAP_NO_WORK], 40);
    CHECK_EQ(w->idle_queued_ns, 6);
    CHECK_EQ(p->trees[0].first_task_ns, 6);
    CHECK_EQ(p->trees[0].full_parallelism_ns, 6); /* one worker: busy at once */
    CHECK_EQ(p->trees[0].tree->span_ns, 10);
    CHECK_EQ(p->pool->gap_hist.count, 2);
    done();
}

/* Many submissions: milestone percentiles over trees (exact, nearest rank). */
static void test_many_submissions(void)
{
    start(1);
    uint64_t t = 100;
    for (uint64_t i = 1; i <= 10; i++) {
        ev(t, FJA_EV_SUBMIT, -1, i, 0);
        ev(t + 1, FJA_EV_EXEC, 0, i, 0);
        ev(t + 1 + i * 10, FJA_EV_EXECUTED, 0, i, 0);
        ev(t + 3 + i * 10, FJA_EV_RESULT, -1, i, 0); /* latency 3 + 10 i */
        t += 1000;
    }
    stop(t, 1);
    const fja_pool_report *p = analyze();
    CHECK_EQ(p->ntrees, 10);
    CHECK_EQ(p->latency.n, 10);
    CHECK_EQ(p->latency.min, 13);
    CHECK_EQ(p->latency.p50, 53);
    CHECK_EQ(p->latency.p90, 93);
    CHECK_EQ(p->latency.p99, 103);
    CHECK_EQ(p->latency.max, 103);
    CHECK_EQ(p->handoff.p50, 2);
    CHECK_EQ(p->first_task.max, 1);
    CHECK_EQ(p->granularity.p50, 50);
    CHECK_EQ(p->work_ns, 550);
    CHECK_EQ(p->span_ns, 550);
    done();

    /* --root narrows to one tree */
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 5, 0);
    ev(2, FJA_EV_EXEC, 0, 5, 0);
    ev(9, FJA_EV_EXECUTED, 0, 5, 0);
    ev(10, FJA_EV_RESULT, -1, 5, 0);
    ev(11, FJA_EV_SUBMIT, -1, 6, 0);
    ev(12, FJA_EV_EXEC, 0, 6, 0);
    ev(15, FJA_EV_EXECUTED, 0, 6, 0);
    ev(16, FJA_EV_RESULT, -1, 6, 0);
    stop(20, 1);
    fja_filter f = {.root_set = true, .root = 6};
    CHECK_EQ(fja_analysis_run(&M, &f, &R), 0);
    CHECK_EQ(R.pools[0].ntrees, 1);
    CHECK_EQ(R.pools[0].work_ns, 3);
    done();
}

/* Inconsistent and truncated streams: counted, flagged, never crashing. */
static void test_anomalies(void)
{
    start(2);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev(3, FJA_EV_EXECUTED, 1, 99, 0); /* executed without exec */
    ev(4, FJA_EV_FORK, 0, 2, 1);
    ev(5, FJA_EV_FORK, 0, 2, 1);    /* duplicate id */
    ev(6, FJA_EV_FORK, 0, 3, 1234); /* unknown parent */
    ev(7, FJA_EV_EXEC, 0, 2, 0);
    ev(8, FJA_EV_EXECUTED, 0, 2, 0);
    ev(9, FJA_EV_JOINED, 1, 2, 0); /* joined without join */
    fja_event unk = {.ts = 10, .kind = FJA_EV_UNKNOWN, .pool = 1};
    fja_model_feed(&M, &unk);
    /* the recording stops here: the root never finishes */
    fja_model_finish(&M);
    const fja_pool_report *p = analyze();
    CHECK_EQ(M.anomalies[FJA_AN_EXECUTED_WITHOUT_EXEC], 1);
    CHECK_EQ(M.anomalies[FJA_AN_DUPLICATE_ID], 1);
    CHECK_EQ(M.anomalies[FJA_AN_UNKNOWN_PARENT], 1);
    CHECK_EQ(M.anomalies[FJA_AN_JOIN_MISMATCH], 1);
    CHECK_EQ(M.unknown_events, 1);
    CHECK_EQ(R.anomalies, 4);
    CHECK_EQ(M.nexamples, 4);
    CHECK_EQ(p->pool->unfinished, 2); /* the root (running) and the orphan (queued) */
    CHECK_EQ(p->pool->orphans, 1);
    CHECK(!p->trees[0].complete);
    CHECK_EQ(p->trees[0].latency_ns, FJA_NULL_NS);
    CHECK_EQ(p->incomplete_trees, 1);
    CHECK(!R.complete);
    /* the root ran 2-10 (the trace's last event) and is booked as busy */
    CHECK_EQ(p->pool->workers[0].state_ns[FJA_WS_RUN], 8);
    /* work so far: task 2 ran 7-8 (1 ns), the root 2-7 and 8-10 (7 ns) */
    CHECK_EQ(p->trees[0].tree->work_ns, 8);
    CHECK(p->trees[0].tree->span_ns <= p->trees[0].tree->work_ns);
    done();

    /* a trace that begins mid-run: exec of an unknown task */
    fja_model_init(&M);
    ev(5, FJA_EV_EXEC, 0, 42, 0);
    ev(9, FJA_EV_EXECUTED, 0, 42, 0);
    fja_model_finish(&M);
    p = analyze();
    CHECK_EQ(M.anomalies[FJA_AN_EXEC_UNKNOWN_TASK], 1);
    CHECK_EQ(p->ntrees, 1);
    CHECK(!p->trees[0].complete);
    CHECK_EQ(p->trees[0].tree->work_ns, 4);
    done();

    /* a fork naming itself its parent (found by fuzz-core: the ancestor
     * walk looped forever); the fork is dropped, the rest analyses */
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev(3, FJA_EV_FORK, 0, 7, 7);
    ev(4, FJA_EV_EXEC, 0, 7, 0);
    ev(5, FJA_EV_EXECUTED, 0, 7, 0);
    ev(6, FJA_EV_EXECUTED, 0, 1, 0);
    stop(7, 1);
    p = analyze();
    CHECK_EQ(M.anomalies[FJA_AN_SELF_PARENT], 1);
    CHECK_EQ(M.anomalies[FJA_AN_EXEC_UNKNOWN_TASK], 1); /* 7, now a tree of its own */
    CHECK_EQ(p->ntrees, 2);
    CHECK_EQ(p->trees[0].tree->work_ns, 3); /* 1 ran 2-4 and 5-6 */
    done();
}

/* The unfinished task of id `task` in the report, or NULL. */
static const fja_unfinished *unfinished(const fja_pool_report *p, uint64_t task)
{
    for (uint32_t i = 0; i < p->nunfinished; i++)
        if (p->unfinished[i].task == task) return &p->unfinished[i];
    return NULL;
}

#define CHECK_UNFINISHED(p, id, st, w, dep, par, since)                                            \
    do {                                                                                           \
        const fja_unfinished *u_ = unfinished(p, id);                                              \
        CHECK(u_ != NULL);                                                                         \
        if (!u_) break;                                                                            \
        CHECK_EQ(u_->state, st);                                                                   \
        CHECK_EQ(u_->worker, w);                                                                   \
        CHECK_EQ(u_->depth, dep);                                                                  \
        CHECK_EQ(u_->parent, par);                                                                 \
        CHECK_EQ(u_->since_ns, since);                                                             \
    } while (0)

/* A program killed mid-run: every task it left is listed with where it
 * was, the running and waiting ones first. */
static void test_unfinished(void)
{
    start(2);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_SUBMIT, -1, 9, 0); /* a second root, never started */
    ev(10, FJA_EV_EXEC, 0, 1, 0);
    ev(20, FJA_EV_FORK, 0, 2, 1);  /* C */
    ev(21, FJA_EV_STEAL, 1, 2, 0); /* w1 takes C */
    ev(22, FJA_EV_EXEC, 1, 2, 0);
    ev(30, FJA_EV_FORK, 1, 4, 2); /* G, grandchild, queued on w1 */
    ev(40, FJA_EV_JOIN, 1, 4, 0); /* C waits for G */
    ev(50, FJA_EV_FORK, 0, 3, 1); /* D, queued on w0 */
    ev(60, FJA_EV_FORK, 0, 5, 1);
    ev(61, FJA_EV_EXEC, 0, 5, 0); /* run inline: the root is under it */
    ev(70, FJA_EV_EXECUTED, 0, 5, 0);
    ev(100, FJA_EV_WAKE, -1, 0, 1); /* the last event: the program dies */
    fja_model_finish(&M);
    const fja_pool_report *p = analyze();
    CHECK_EQ(p->pool->unfinished, 5);
    CHECK_EQ(p->nunfinished, 5);
    /* the root runs again since 70; C waits at its join since 40 */
    CHECK_UNFINISHED(p, 1, FJA_UT_RUNNING, 0, 0, 0, 70);
    CHECK_UNFINISHED(p, 2, FJA_UT_WAITING, 1, 1, 1, 40);
    CHECK_UNFINISHED(p, 3, FJA_UT_QUEUED, 0, 1, 1, 50);
    CHECK_UNFINISHED(p, 4, FJA_UT_QUEUED, 1, 2, 2, 30);
    CHECK_UNFINISHED(p, 9, FJA_UT_QUEUED, -1, 0, 0, 2); /* submitted: on no worker */
    CHECK_EQ(unfinished(p, 2)->awaited, 4);
    CHECK_EQ(unfinished(p, 1)->awaited, 0);
    CHECK_EQ(unfinished(p, 1)->for_ns, 30);
    CHECK_EQ(unfinished(p, 9)->for_ns, 98);
    CHECK_EQ(unfinished(p, 4)->root, 1);
    CHECK_EQ(unfinished(p, 9)->root, 9);
    CHECK(!unfinished(p, 5)); /* finished */
    /* report order: running, waiting, then queued by worker (none last) */
    const uint64_t order[] = {1, 2, 3, 4, 9};
    for (uint32_t i = 0; i < 5 && i < p->nunfinished; i++)
        CHECK_EQ(p->unfinished[i].task, order[i]);
    CHECK_EQ(p->unfinished_by_state[FJA_UT_RUNNING], 1);
    CHECK_EQ(p->unfinished_by_state[FJA_UT_WAITING], 1);
    CHECK_EQ(p->unfinished_by_state[FJA_UT_QUEUED], 3);
    CHECK(!R.complete);
    done();

    /* the other states: under a task run inline, waiting for a lock, a
     * counted completer completing, stolen but not started */
    start(3);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(1, FJA_EV_EXEC, 0, 1, 0);
    ev(2, FJA_EV_FORK, 0, 2, 1); /* A */
    ev(3, FJA_EV_FORK, 0, 3, 1); /* B */
    ev(4, FJA_EV_STEAL, 1, 2, 0);
    ev(5, FJA_EV_EXEC, 1, 2, 0);
    ev(6, FJA_EV_FORK, 1, 5, 2);     /* K, A's child */
    ev(7, FJA_EV_EXECUTED, 1, 2, 0); /* A's body is over: a completer waiting for K */
    ev(8, FJA_EV_STEAL, 2, 5, 1);
    ev(9, FJA_EV_EXEC, 2, 5, 0);
    ev(10, FJA_EV_COMPLETING, 2, 5, 0); /* K, a leaf, completes in its body */
    ev(11, FJA_EV_COMPLETED, 2, 5, 0);
    ev(11, FJA_EV_COMPLETING, 2, 2, 0); /* ... and so A completes: cut short */
    ev(12, FJA_EV_EXEC, 0, 3, 0);       /* B inline: the root under it */
    ev(13, FJA_EV_FORK, 0, 4, 3);       /* C, queued in a reused slot */
    ev(14, FJA_EV_LOCK_WAIT, 0, 0, 7);  /* B waits for a lock */
    ev(15, FJA_EV_STEAL, 1, 4, 0);      /* w1 takes C: the program dies first */
    ev(20, FJA_EV_WAKE, -1, 0, 1);
    fja_model_finish(&M);
    p = analyze();
    CHECK_EQ(p->nunfinished, 5);
    CHECK_UNFINISHED(p, 1, FJA_UT_SUSPENDED, 0, 0, 0, 12);
    CHECK_UNFINISHED(p, 3, FJA_UT_LOCK_WAIT, 0, 1, 1, 14);
    CHECK_UNFINISHED(p, 5, FJA_UT_RUNNING, 2, 2, 2, 9); /* its body still runs */
    CHECK_UNFINISHED(p, 2, FJA_UT_COMPLETING, 2, 1, 1, 11);
    CHECK_UNFINISHED(p, 4, FJA_UT_STOLEN, 1, 2, 3, 15);
    const uint64_t order2[] = {5, 3, 2, 1, 4};
    for (uint32_t i = 0; i < 5 && i < p->nunfinished; i++)
        CHECK_EQ(p->unfinished[i].task, order2[i]);
    CHECK_EQ(p->pool->unfinished, 5);
    done();

    /* a whole trace: nothing left, nothing listed */
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev(3, FJA_EV_EXECUTED, 0, 1, 0);
    ev(4, FJA_EV_RESULT, -1, 1, 0);
    stop(5, 1);
    p = analyze();
    CHECK_EQ(p->nunfinished, 0);
    CHECK(p->unfinished == NULL);
    done();
}

/* Discarded events mark the open trees lossy and the trace incomplete. */
static void test_discarded(void)
{
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev(3, FJA_EV_EXECUTED, 0, 1, 0);
    ev(4, FJA_EV_RESULT, -1, 1, 0);
    ev(5, FJA_EV_SUBMIT, -1, 2, 0);
    ev(6, FJA_EV_EXEC, 0, 2, 0);
    fja_model_discarded(&M, 17, 7, 1); /* another trace: this one stays whole */
    CHECK(!M.pools[0].trees[1].lossy);
    fja_model_discarded(&M, 17, 7, 0);
    ev(8, FJA_EV_EXECUTED, 0, 2, 0);
    ev(9, FJA_EV_RESULT, -1, 2, 0);
    stop(10, 1);
    const fja_pool_report *p = analyze();
    CHECK_EQ(M.discarded_events, 34);
    CHECK(p->trees[0].complete);
    CHECK(!p->trees[1].complete);
    CHECK_EQ(p->incomplete_trees, 1);
    CHECK(!R.complete);
    CHECK(p->nadvice >= 1);
    CHECK(!strcmp(p->advice[0].kind, "incomplete_trace"));
    done();
}

static void test_percentiles(void)
{
    fja_hist h;
    fja_hist_init(&h);
    uint64_t v[1000];
    for (uint64_t i = 0; i < 1000; i++) {
        v[i] = 1000 - i;
        fja_hist_add(&h, 1000 - i);
    }
    CHECK_EQ(fja_hist_percentile(&h, 50), 500); /* 500 is a bucket bound */
    CHECK_EQ(fja_hist_percentile(&h, 90), 896); /* 900 falls in [896, 904) */
    CHECK_EQ(fja_hist_percentile(&h, 100), 1000);
    CHECK_EQ(fja_hist_percentile(&h, 0), 1);
    CHECK_EQ(fja_percentile_exact(v, 1000, 90), 900);
    CHECK_EQ(fja_percentile_exact(v, 1000, 99), 990);
    CHECK_EQ(fja_percentile_exact(v, 1000, 50), 500);
    uint64_t lg[64];
    fja_hist_log2(&h, lg);
    CHECK_EQ(lg[0], 1);   /* 1 */
    CHECK_EQ(lg[1], 2);   /* 2, 3 */
    CHECK_EQ(lg[9], 489); /* 512..1000 */
    fja_hist_free(&h);
    /* a huge value stays in range */
    fja_hist_init(&h);
    fja_hist_add(&h, UINT64_MAX);
    fja_hist_add(&h, 1ull << 40);
    CHECK_EQ(fja_hist_percentile(&h, 50), 1ull << 40);
    fja_hist_free(&h);
}

/* Advice: a fib-like pile-up with size hints gets a cutoff in size units. */
static void test_advice_cutoff(void)
{
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    /* 40 forks 10 ns apart (fork cost ~10 ns), sizes 0..3; each queued long */
    uint64_t t = 0, id = 2;
    for (int i = 0; i < 40; i++)
        fork_sz(t += 10, 0, id++, 1, (uint64_t)(i % 4));
    /* run them: size s tasks take 2 + 300*s ns (size 2 has 602 >= 500) */
    for (uint64_t k = 2; k < id; k++) {
        uint64_t size = (k - 2) % 4;
        ev(t += 1, FJA_EV_EXEC, 0, k, 0);
        ev(t += 2 + 300 * size, FJA_EV_EXECUTED, 0, k, 0);
    }
    ev(t += 1, FJA_EV_EXECUTED, 0, 1, 0);
    ev(t += 1, FJA_EV_RESULT, -1, 1, 0);
    stop(t + 1, 1);
    const fja_pool_report *p = analyze();
    CHECK_EQ(p->fork_cost_ns, 10);
    CHECK_EQ(p->cutoff_size, 2);
    CHECK_NEAR(p->cutoff_saving, 0.5, 1e-9);
    /* the root's self time is 400 (forking) + 41 (between children): the
     * median of 41 tasks is the 21st, 441, reported as its bucket's 440 */
    CHECK_EQ(p->granularity.p50, 440);
    CHECK_EQ(p->granularity.p90, 896); /* 902 is in [896, 904) */
    done();
}

static bool has_advice(const fja_pool_report *p, const char *kind, const char *text)
{
    for (uint32_t i = 0; i < p->nadvice; i++)
        if (!strcmp(p->advice[i].kind, kind) && strstr(p->advice[i].message, text)) return true;
    return false;
}

/* fib-like: many tiny tasks queued; size 3 is the first worth forking. */
static void test_advice_pile_up(void)
{
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    uint64_t t = 0, id = 2;
    for (int i = 0; i < 40; i++)
        fork_sz(t += 10, 0, id++, 1, (uint64_t)(i % 4)); /* fork cost ~10 ns */
    for (uint64_t k = 2; k < id; k++) {
        ev(t += 1, FJA_EV_EXEC, 0, k, 0);
        ev(t += (k - 2) % 4 == 3 ? 600 : 5, FJA_EV_EXECUTED, 0, k, 0);
    }
    ev(t += 1, FJA_EV_EXECUTED, 0, 1, 0);
    ev(t += 1, FJA_EV_RESULT, -1, 1, 0);
    stop(t + 1, 1);
    const fja_pool_report *p = analyze();
    CHECK_EQ(p->granularity.p50, 5); /* 30 tasks of 5 ns out of 41 */
    CHECK(p->mean_queue_depth >= 1.0);
    CHECK_EQ(p->cutoff_size, 3);
    CHECK_NEAR(p->cutoff_saving, 0.75, 1e-9); /* 30 of 40 forks are below size 3 */
    CHECK(has_advice(p, "tasks_pile_up", "stop forking below size 3"));
    CHECK(has_advice(p, "tasks_pile_up", "saving 75%"));
    CHECK(!has_advice(p, "queues_run_dry", ""));
    done();
}

/* quicksort-like: one long task, the other worker finds nothing to do. */
static void test_advice_dry(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(1000, FJA_EV_EXECUTED, 0, 1, 0);
    ev(1001, FJA_EV_RESULT, -1, 1, 0);
    stop(1010, 2);
    const fja_pool_report *p = analyze();
    /* w1 idle 0-1010, w0 idle 1000-1010: 1020 of 2020 ns with no work */
    CHECK_EQ(p->gap_ns[FJA_GAP_NO_WORK], 1020);
    CHECK_EQ(p->lifetime_ns, 2020);
    CHECK_NEAR(p->parallelism, 1.0, 1e-9);
    CHECK(has_advice(p, "queues_run_dry", "idle 50% with no work anywhere"));
    CHECK(has_advice(p, "queues_run_dry", "parallelism 1.0 < 2 workers"));
    CHECK(!has_advice(p, "tasks_pile_up", ""));
    CHECK(!has_advice(p, "steals_late", ""));
    done();
}

/* Quicksort-like: queues empty, one worker blocked in a join on a stolen
 * child for most of the run. Idle gaps with no work stay under 20%; the
 * join waits with dry queues make it "queues run dry" all the same. */
static void test_advice_dry_joins(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(11, FJA_EV_STEAL, 1, 2, 0);
    ev(11, FJA_EV_EXEC, 1, 2, 0);
    ev(12, FJA_EV_JOIN, 0, 2, 0);
    ev(100, FJA_EV_EXECUTED, 1, 2, 0);
    ev(100, FJA_EV_JOINED, 0, 2, 0);
    ev(110, FJA_EV_EXECUTED, 0, 1, 0);
    ev(111, FJA_EV_RESULT, -1, 1, 0);
    stop(120, 2);
    const fja_pool_report *p = analyze();
    CHECK(p->parallelism < 2);
    CHECK(p->mean_queue_depth < 0.5);
    CHECK(p->gap_ns[FJA_GAP_NO_WORK] < p->lifetime_ns / 5);
    CHECK_EQ(p->gap_ns[FJA_GAP_JOIN], 88);
    CHECK(has_advice(p, "queues_run_dry", "waiting at joins"));
    CHECK(has_advice(p, "queues_run_dry", "more than about 2 workers only wait"));
    done();
}

/* Lock waits are neither work nor idleness for want of tasks. */
static void test_lock_wait(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(20, FJA_EV_LOCK_WAIT, 0, 0, 7);
    ev(50, FJA_EV_LOCK_ACQUIRED, 0, 0, 7);
    ev(100, FJA_EV_EXECUTED, 0, 1, 0);
    ev(101, FJA_EV_RESULT, -1, 1, 0);
    /* Named after its first wait: the name still sticks. Pool 0: no pool. */
    fja_event init = {.ts = 101,
                      .kind = FJA_EV_LOCK_INIT,
                      .pool = 0,
                      .worker = -1,
                      .arg = {.lock = 7},
                      .name = "db"};
    fja_model_feed(&M, &init);
    ev(102, FJA_EV_LOCK_WAIT, -1, 0, 7); /* a client thread: not pool time */
    stop(110, 2);
    const fja_pool_report *p = analyze();
    CHECK_EQ(M.npools, 1);
    const fja_worker *w0 = &p->pool->workers[0];
    CHECK_EQ(p->trees[0].tree->work_ns, 70);
    CHECK_EQ(p->trees[0].tree->span_ns, 70);
    CHECK_EQ(w0->state_ns[FJA_WS_LOCK], 30);
    CHECK_EQ(w0->state_ns[FJA_WS_RUN], 70);
    CHECK_EQ(w0->gaps[FJA_GAP_LOCK], 1);
    CHECK_EQ(w0->gap_ns[FJA_GAP_LOCK], 30);
    CHECK_EQ(w0->lock_waits, 1);
    CHECK_EQ(p->lock_ns, 30);
    CHECK(has_advice(p, "hidden_serialization", "waited for locks 14%")); /* 30 of 220 */
    CHECK(has_advice(p, "hidden_serialization", "most for lock \"db\" (0.00 ms in 1 waits)"));
    const fja_lock *l = fja_model_top_lock(&M, 0);
    CHECK(l && l->id == 7 && l->waits == 1 && l->wait_ns == 30 && strcmp(l->name, "db") == 0);
    CHECK_EQ(R.anomalies, 0);
    done();
}

int main(void)
{
    test_steal_and_waited_join();
    test_inline_and_helping();
    test_completers();
    test_park();
    test_many_submissions();
    test_anomalies();
    test_unfinished();
    test_discarded();
    test_percentiles();
    test_advice_cutoff();
    test_advice_pile_up();
    test_advice_dry();
    test_advice_dry_joins();
    test_lock_wait();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all core tests passed\n");
    return 0;
}
