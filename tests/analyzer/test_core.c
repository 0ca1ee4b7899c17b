/* Unit tests of the analysis core on hand-built event streams. Every
 * expected number below is computed by hand in the comments. */
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "analysis.h"
#include "hist.h"
#include "model.h"
#include "offcpu.h"
#include "report.h"
#include "tracker.h"

static fja_model M;
/* The one tracker replaying into M (model_begin): the replay's state is
 * the tracker's, so one tracker lives as long as its model. */
static fja_tracker T;

/* M empty, with a tracker of its own. */
static void model_begin(void)
{
    fja_tracker_free(&T);
    fja_model_init(&M);
    fja_tracker_init(&T, &M);
}

/* One event of pool 1: arg is the parent (fork), victim (steal), target
 * (wake) or worker count (pool_begin). */
static void ev(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t arg)
{
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1};
    fja_event_set_arg(&e, arg);
    fja_tracker_feed(&T, &e);
}

/* ev in the older layout: a fork naming its parent (arg), an executed its
 * task (fja_event.named), as traces recorded before they were derived. */
static void ev_named(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t arg)
{
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1, .named = true};
    fja_event_set_arg(&e, arg);
    fja_tracker_feed(&T, &e);
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
    fja_tracker_feed(&T, &e);
}

static void start(uint32_t workers)
{
    model_begin();
    ev(0, FJA_EV_POOL_BEGIN, -1, 0, workers);
    for (uint32_t w = 0; w < workers; w++)
        ev(0, FJA_EV_WORKER_BEGIN, (int32_t)w, 0, 0);
}

/* start, each worker recording its switches (offcpu_start) */
static void start_offcpu(uint32_t workers)
{
    start(workers);
    for (uint32_t w = 0; w < workers; w++)
        ev(0, FJA_EV_OFFCPU_START, (int32_t)w, 0, 0);
}

static void stop(uint64_t ts, uint32_t workers)
{
    for (uint32_t w = 0; w < workers; w++)
        ev(ts, FJA_EV_WORKER_END, (int32_t)w, 0, 0);
    ev(ts + 1, FJA_EV_POOL_END, -1, 0, 0);
    fja_tracker_finish(&T);
}

static fja_report R;

static const fja_pool_report *analyze(void)
{
    fja_filter f = {0};
    if (fja_analysis_run(&M, &f, &R)) bail_out("fja_analysis_run failed");
    return &R.pools[0];
}

static void done(void)
{
    fja_analysis_free(&R);
    fja_tracker_free(&T);
    fja_model_free(&M);
}

/* The text report of R (analyze() first); NULL if it cannot be made. */
static char *report_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fja_run_info info = {.version = "test"};
    int rc = fja_report_text(f, &R, &info);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The JSON report of R, as report_text. */
static char *report_json(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fja_run_info info = {.version = "test"};
    int rc = fja_report_json(f, &R, &info);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
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
    ok_eq_i64(p->ntrees, 1, "steal: one tree");
    const fja_tree_report *t = &p->trees[0];
    ok(t->complete, "steal: the tree is complete");
    ok(R.complete, "steal: the report is complete");
    ok_eq_i64(t->tasks, 2, "steal: the tree has 2 tasks");
    ok_eq_i64(t->max_depth, 1, "steal: the tree is 1 fork deep");
    ok_eq_i64(t->work_ns, 45, "steal: the work is 45 ns (root 25 + child 20)");
    ok_eq_i64(t->span_ns, 35, "steal: the span is 35 ns (child done at 30, root's last 5)");
    ok_near(t->parallelism, 45.0 / 35.0, 1e-9, "steal: the parallelism is work / span = 45/35");
    ok_eq_i64(t->first_task_ns, 8, "steal: the first task starts 8 ns after the submit");
    ok_eq_i64(t->full_parallelism_ns, 20,
              "steal: full parallelism is reached 20 ns after the submit");
    ok_eq_i64(t->final_handoff_ns, 2, "steal: the final hand-off takes 2 ns");
    ok_eq_i64(t->latency_ns, 48, "steal: the latency is 48 ns");
    const fja_pool *pool = fja_report_pool(&M, p);
    ok_eq_i64(pool->forks, 1, "steal: the pool forked once");
    ok_eq_i64(pool->steals, 1, "steal: the pool stole once");
    ok_eq_i64(pool->joins_waited, 1, "steal: one join waited");
    ok_eq_i64(pool->exec_to_executed_ns, 38 + 20, "steal: EXEC->EXECUTED sums to 38 + 20 ns");
    ok_eq_i64(pool->join_latency.count, 1, "steal: one join latency is recorded");
    ok_eq_i64(pool->join_latency.sum, 1, "steal: the join latency is 1 ns");
    ok_eq_i64(pool->steal_latency.sum, 1, "steal: the steal latency is 1 ns");
    ok_eq_i64(pool->steal_depth[1], 1, "steal: the one steal took a task at depth 1");
    /* worker 0: search 0-10, run 10-30, join 30-43, run 43-48, search 48-60 */
    const fja_worker *w0 = &pool->workers[0], *w1 = &pool->workers[1];
    ok_eq_i64(w0->state_ns[FJA_WS_RUN], 25, "steal: worker 0 ran 25 ns");
    ok_eq_i64(w0->state_ns[FJA_WS_JOIN], 13, "steal: worker 0 waited 13 ns in a join");
    ok_eq_i64(w0->state_ns[FJA_WS_SEARCH], 22, "steal: worker 0 searched 22 ns");
    ok_eq_i64(w1->state_ns[FJA_WS_RUN], 20, "steal: worker 1 ran 20 ns");
    ok_eq_i64(w1->state_ns[FJA_WS_SEARCH], 40, "steal: worker 1 searched 40 ns");
    /* w0's first gap (0-10) had the root queued 8 of 10 ns: stealing late;
     * w1's first gap (0-22) had work queued 9 of 22 ns: no work. */
    ok_eq_i64(w0->gaps[FJA_GAP_WORK_QUEUED], 1,
              "steal: worker 0 had one gap with work queued elsewhere");
    ok_eq_i64(w0->gap_ns[FJA_GAP_WORK_QUEUED], 10,
              "steal: worker 0's gap with work queued lasted 10 ns");
    ok_eq_i64(w0->gap_ns[FJA_GAP_JOIN], 13, "steal: worker 0's join gap lasted 13 ns");
    ok_eq_i64(w0->gap_ns[FJA_GAP_NO_WORK], 12,
              "steal: worker 0 was idle 12 ns with no work anywhere");
    ok_eq_i64(w1->gap_ns[FJA_GAP_NO_WORK], 40,
              "steal: worker 1 was idle 40 ns with no work anywhere");
    ok_eq_i64(w1->gaps[FJA_GAP_NO_WORK], 2, "steal: worker 1 had 2 gaps with no work anywhere");
    ok_eq_i64(w0->idle_queued_ns, 8, "steal: worker 0 was idle 8 ns while a task was queued");
    ok_eq_i64(w1->idle_queued_ns, 9, "steal: worker 1 was idle 9 ns while a task was queued");
    ok_eq_i64(p->gap_ns[FJA_GAP_NO_WORK], 52,
              "steal: the pool was idle 52 ns with no work anywhere");
    /* one task queued on w0 for 1 ns out of 60 */
    ok_eq_i64(w0->qmax, 1, "steal: worker 0's queue held at most 1 task");
    ok_near(w0->q_area, 1.0, 1e-9, "steal: worker 0's queue area is 1 task-ns");
    ok_eq_i64(p->max_queue_depth, 1, "steal: the pool's deepest queue held 1 task");
    ok_near(p->mean_queue_depth, (1.0 / 60) / 2, 1e-12,
            "steal: the mean queue depth is 1 task-ns over 60 ns and 2 workers");
    ok_eq_i64(p->granularity.p50, 20, "steal: the median task self time is 20 ns");
    ok_eq_i64(p->granularity.p90, 25, "steal: the 90th percentile task self time is 25 ns");
    ok_eq_i64(p->granularity.max, 25, "steal: the longest task self time is 25 ns");
    ok_near(p->speedup_bound[0], 1.0, 1e-9, "steal: the speedup bound at P=1 is 1");
    ok_near(p->speedup_bound[1], 45.0 / 35.0, 1e-9,
            "steal: the speedup bound at P=2 is the parallelism, 45/35");
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
    ok(t->complete, "helping: the tree is complete");
    ok_eq_i64(t->tasks, 4, "helping: the tree has 4 tasks");
    ok_eq_i64(t->max_depth, 2, "helping: the tree is 2 forks deep");
    ok_eq_i64(t->max_arity, 2, "helping: a task forks at most 2 children");
    ok_eq_i64(t->work_ns, 21 + 26 + 5 + 6, "helping: the work is 21 + 26 + 5 + 6 ns");
    ok_eq_i64(t->span_ns, 40, "helping: the span is 40 ns");
    ok_eq_i64(t->first_task_ns, 0, "helping: the first task starts at the submit");
    ok_eq_i64(t->full_parallelism_ns, 14, "helping: full parallelism is reached after 14 ns");
    ok_eq_i64(t->final_handoff_ns, 5, "helping: the final hand-off takes 5 ns");
    ok_eq_i64(t->latency_ns, 50, "helping: the latency is 50 ns");
    const fja_pool *pool = fja_report_pool(&M, p);
    const fja_worker *w0 = &pool->workers[0], *w1 = &pool->workers[1];
    ok_eq_i64(w0->state_ns[FJA_WS_RUN], 32,
              "helping: worker 0 ran 32 ns (root 21 + B 5 + D 6)"); /* = root 21 + B 5 + D 6 */
    ok_eq_i64(w0->state_ns[FJA_WS_JOIN], 13, "helping: worker 0 waited 13 ns in a join");
    ok_eq_i64(w0->gaps[FJA_GAP_JOIN], 2,
              "helping: worker 0 had 2 join gaps (around the helped task)");
    ok_eq_i64(w0->gap_ns[FJA_GAP_JOIN], 13, "helping: worker 0's join gaps add up to 13 ns");
    ok_eq_i64(w1->state_ns[FJA_WS_RUN], 26, "helping: worker 1 ran 26 ns");
    ok_eq_i64(p->busy_ns, t->work_ns, "helping: the pool's busy time is the tree's work");
    /* w0 queue: 1 task 10-12, 2 tasks 12-13, 1 task 13-15; w1: D 16-23 */
    ok_eq_i64(w0->qmax, 2, "helping: worker 0's queue held at most 2 tasks");
    ok_near(w0->q_area, 6.0, 1e-9, "helping: worker 0's queue area is 6 task-ns");
    ok_near(w1->q_area, 7.0, 1e-9, "helping: worker 1's queue area is 7 task-ns");
    ok_near(p->mean_queue_depth, (6.0 / 60 + 7.0 / 60) / 2, 1e-12,
            "helping: the mean queue depth is (6 + 7) task-ns over 60 ns and 2 workers");
    /* subtree work: root = everything, A = A + D */
    fja_task *root = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 1));
    fja_task *a = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 2));
    ok_eq_i64(root->subtree_ns, 58, "helping: the root's subtree work is all the work, 58 ns");
    ok_eq_i64(a->subtree_ns, 32, "helping: A's subtree work is A + D, 32 ns");
    ok_eq_i64(pool->joins_waited, 1, "helping: one join waited");
    /* bodies: root 0-45 and A 14-40 outermost; B 15-20 and D 24-30 nested */
    ok_eq_i64(pool->exec_to_executed_ns, 45 + 26 + 5 + 6,
              "helping: EXEC->EXECUTED sums every body, nested ones again (82 ns)");
    ok_eq_i64(pool->outermost_bodies_ns, 45 + 26,
              "helping: the time in outermost bodies is 71 ns, a time (< 2 workers x 60 ns)");
    ok_eq_i64(pool->steals, 2, "helping: the pool stole twice (A, and D while helping)");
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
    const fja_pool *pool = fja_report_pool(&M, p);
    ok(t->complete, "completers: the tree is complete");
    ok_eq_i64(t->work_ns, 5 + 4 + 12, "completers: the work is 5 + 4 + 12 ns");
    ok_eq_i64(t->span_ns, 14, "completers: the span is 14 ns");
    ok_eq_i64(pool->trees[0].done_ts, 15,
              "completers: the tree is done when the root completes, at 15");
    /* From the root's completion (15), which released the client, not from
     * C1's body end (16): a completer is done at `completed`. */
    ok_eq_i64(t->final_handoff_ns, 5,
              "completers: the hand-off runs from the root's completion, 5 ns");
    ok_eq_i64(t->latency_ns, 20, "completers: the latency is 20 ns");
    ok_eq_i64(pool->exec_to_executed_ns, 5 + 4 + 12,
              "completers: EXEC->EXECUTED sums to 5 + 4 + 12 ns");
    ok_eq_i64(pool->completing_to_completed_ns, 1 + 1 + 2,
              "completers: COMPLETING->COMPLETED sums to 1 + 1 + 2 ns");
    ok_eq_i64(pool->completions, 3, "completers: 3 completions");
    ok_eq_i64(pool->unfinished, 0, "completers: no task is left unfinished");
    fja_task *root = fja_taskmap_get(&pool->tasks, fja_taskmap_find(&pool->tasks, 1));
    ok_eq_i64(root->subtree_ns, 21,
              "completers: the root's subtree work counts its children that ended after its body, "
              "21 ns"); /* children ended after the root's body */
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
    const fja_worker *w = &fja_report_pool(&M, p)->workers[0];
    ok_eq_i64(w->parks, 1, "park: the worker parked once");
    ok_eq_i64(fja_report_pool(&M, p)->wakes, 1, "park: the client woke one worker");
    ok_eq_i64(w->state_ns[FJA_WS_PARK], 15, "park: the worker was parked 15 ns");
    ok_eq_i64(w->state_ns[FJA_WS_SEARCH], 11 + 14, "park: the worker searched 11 + 14 ns");
    ok_eq_i64(w->state_ns[FJA_WS_RUN], 10, "park: the worker ran 10 ns");
    /* gap 0-26: root queued 20-26 (6 of 26): no work; gap 36-50: no work */
    ok_eq_i64(w->gaps[FJA_GAP_NO_WORK], 2, "park: the worker had 2 gaps with no work anywhere");
    ok_eq_i64(w->gap_ns[FJA_GAP_NO_WORK], 40, "park: its gaps with no work add up to 40 ns");
    ok_eq_i64(w->idle_queued_ns, 6, "park: the worker was idle 6 ns while the root was queued");
    ok_eq_i64(p->trees[0].first_task_ns, 6, "park: the first task starts 6 ns after the submit");
    ok_eq_i64(
        p->trees[0].full_parallelism_ns, 6,
        "park: one worker is at full parallelism at once, 6 ns"); /* one worker: busy at once */
    ok_eq_i64(p->trees[0].span_ns, 10, "park: the span is 10 ns");
    ok_eq_i64(fja_report_pool(&M, p)->gap_hist.count, 2, "park: the gap histogram counts 2 gaps");
    done();
}

/* Issue 24: what an event claims is checked before the model believes it.
 * Off-CPU payloads read cleanly by babeltrace2 made pools 62 and 257 and a
 * worker 256 out of nothing (off-CPU records, and CPU-clock readings of the
 * off-CPU channel); each is an invalid_event anomaly instead, and
 * the pool and worker counts stay those of the trace. */
static void test_claims_validated(void)
{
    start_offcpu(2);
    fja_event off = {
        .ts = 30, .kind = FJA_EV_OFFCPU, .worker = 0, .pool = 62, .begin = 5, .end = 9};
    fja_tracker_feed(&T, &off); /* a pool no event began */
    off.pool = 1;
    off.worker = 256; /* a worker that never began */
    fja_tracker_feed(&T, &off);
    off.worker = 1;
    off.begin = 12;
    off.end = 40; /* ends after its own record */
    fja_tracker_feed(&T, &off);
    /* a CPU-clock reading of pool 257 (two changed bytes in its payload:
     * the campaign's event-bytes@fjtrace_offcpu_1), then of a worker that
     * never began */
    fja_event clock = {.ts = 31, .kind = FJA_EV_OFFCPU_CLOCK, .worker = 0, .pool = 257};
    clock.arg.cpu = 1000;
    fja_tracker_feed(&T, &clock);
    clock.pool = 1;
    clock.worker = 9;
    fja_tracker_feed(&T, &clock);
    clock.kind = FJA_EV_OFFCPU_TASK_CLOCK; /* the OMPT tool's: the same checks */
    fja_tracker_feed(&T, &clock);
    ev(20, FJA_EV_SUBMIT, -1, 7, 0);
    ev(21, FJA_EV_FORK, 256, 8, 7); /* beyond the pool's 2 workers, never begun */
    ev(22, FJA_EV_EXEC, 0, 7, 0);
    ev(32, FJA_EV_EXECUTED, 0, 7, 0);
    ev(33, FJA_EV_RESULT, -1, 7, 0);
    stop(50, 2);
    const fja_pool_report *p = analyze();
    ok_eq_u64(M.npools, 1, "claims: no pool made by an off-CPU record of pool 62 or 257");
    ok_eq_u64(fja_report_pool(&M, p)->nworkers, 2, "claims: no worker 256 or 9 made");
    ok_eq_u64(M.anomalies[FJA_AN_INVALID_EVENT], 7,
              "claims: the 3 off-CPU records, the 3 CPU-clock readings and the fork of worker "
              "256 are invalid events");
    ok(strstr(M.invalid_first, "pool 62") != NULL, "claims: the first reason names pool 62: %s",
       M.invalid_first);
    ok_eq_u64(p->tasks, 1, "claims: the pool has its one task, not the invalid fork's");
    ok(!R.complete, "claims: the report is not whole");
    done();
}

/* Issue 24: a worker emits events only on the CPU, so an event inside its
 * own off-CPU interval ends the stay there; a cut far before the
 * interval's recorded end means a damaged record (an off-CPU begin moved
 * 13.8 us earlier cut a 100 ms blocked stay, exit 0): an invalid_event,
 * the report not whole. Not: a cut within 50 us of the end, nor a stay
 * the seal made or whose return it moved (a stall's stay, the clock fit:
 * the replayed return has no recorded end), which may hold events. */
static void offcpu_return(uint64_t ts, bool recorded)
{
    fja_event e = {.ts = ts, .kind = FJA_EV_OFFCPU_IN, .worker = 0, .pool = 1};
    e.end = recorded ? ts : 0;
    fja_tracker_feed(&T, &e);
}

static void test_offcpu_cut(void)
{
    start(1);
    ev(0, FJA_EV_OFFCPU_START, 0, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_BLOCKED);
    ev(20, FJA_EV_FORK, 0, 2, 1); /* inside the stay */
    offcpu_return(40020, true);   /* its end, 40 us after the cut */
    ev(41000, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(41010, FJA_EV_FORK, 0, 3, 1); /* inside the stay */
    offcpu_return(141010, false);    /* made or moved by the seal, 100 us on */
    ev(150000, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_BLOCKED);
    ev(150010, FJA_EV_EXEC, 0, 3, 0); /* inside the stay */
    ev(150015, FJA_EV_EXECUTED, 0, 3, 0);
    ev(150016, FJA_EV_EXEC, 0, 2, 0);
    offcpu_return(250010, true); /* its end, 100 us after the cut */
    ev(250020, FJA_EV_EXECUTED, 0, 2, 0);
    ev(250030, FJA_EV_EXECUTED, 0, 1, 0);
    stop(250040, 1);
    analyze();
    ok_eq_u64(M.anomalies[FJA_AN_INVALID_EVENT], 1,
              "offcpu cut: one invalid event, the recorded interval cut 100 us before its end");
    ok(strstr(M.invalid_first, "worker 0 of pool 1 holding an event of that worker 100.0 us before "
                               "its end") != NULL,
       "offcpu cut: the reason names the worker and how far before the end: %s", M.invalid_first);
    ok(!R.complete, "offcpu cut: the report is not whole");
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
    ok_eq_i64(p->ntrees, 10, "submissions: 10 trees");
    ok_eq_i64(p->latency.n, 10, "submissions: 10 latencies");
    ok_eq_i64(p->latency.min, 13, "submissions: the shortest latency is 13 ns");
    ok_eq_i64(p->latency.p50, 53, "submissions: the median latency is 53 ns (nearest rank)");
    ok_eq_i64(p->latency.p90, 93, "submissions: the 90th percentile latency is 93 ns");
    ok_eq_i64(p->latency.p99, 103, "submissions: the 99th percentile latency is 103 ns");
    ok_eq_i64(p->latency.max, 103, "submissions: the longest latency is 103 ns");
    ok_eq_i64(p->handoff.p50, 2, "submissions: the median hand-off is 2 ns");
    ok_eq_i64(p->first_task.max, 1, "submissions: the longest wait for the first task is 1 ns");
    ok_eq_i64(p->granularity.p50, 50, "submissions: the median task self time is 50 ns");
    ok_eq_i64(p->work_ns, 550, "submissions: the work is 550 ns");
    ok_eq_i64(p->span_ns, 550, "submissions: the span is 550 ns");
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
    ok_eq_i64(fja_analysis_run(&M, &f, &R), 0, "--root 6: the analysis runs");
    ok_eq_i64(R.pools[0].ntrees, 1, "--root 6: one tree is kept");
    ok_eq_i64(R.pools[0].work_ns, 3, "--root 6: its work is 3 ns");
    done();
}

/* A trace that begins mid-run (a snapshot): a tree whose root was run before
 * the trace is partial, with its span and parallelism unknown, and stays out
 * of the pool's work and span; a tree submitted inside the trace is whole. */
static void test_partial_tree(void)
{
    start(1);
    ev(10, FJA_EV_EXEC, 0, 7, 0); /* task 7: forked before the trace began */
    ev(40, FJA_EV_EXECUTED, 0, 7, 0);
    ev(100, FJA_EV_SUBMIT, -1, 9, 0);
    ev(101, FJA_EV_EXEC, 0, 9, 0);
    ev(121, FJA_EV_EXECUTED, 0, 9, 0);
    ev(122, FJA_EV_RESULT, -1, 9, 0);
    stop(200, 1);
    fja_model_window(&M, 5);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->ntrees, 2, "mid-run: two trees");
    ok_eq_i64(p->partial_trees, 1, "mid-run: the tree begun before the trace is partial");
    const fja_tree_report *t7 = p->trees[0].root_id == 7 ? &p->trees[0] : &p->trees[1];
    const fja_tree_report *t9 = t7 == &p->trees[0] ? &p->trees[1] : &p->trees[0];
    ok(t7->partial && !t7->complete, "mid-run: tree 7 is partial and not complete");
    ok(!t9->partial && t9->complete, "mid-run: tree 9, submitted in the trace, is whole");
    ok(t7->parallelism == 0, "mid-run: no parallelism is computed for the partial tree");
    ok(!t7->span_known && t9->span_known, "mid-run: only the whole tree's span is known");
    ok(p->span_state == FJA_SPAN_KNOWN, "mid-run: the pool's span (the whole tree's) is known");
    ok_eq_i64(p->work_ns, 20, "mid-run: the pool's work is the whole tree's alone (20 ns)");
    ok_eq_i64(p->span_ns, 20, "mid-run: the pool's span is the whole tree's alone (20 ns)");
    ok(M.window_clipped && M.window_events == 5, "mid-run: the model says the trace was cut");
    done();
}

/* A snapshot whose only tree began before it: tasks ran, yet no tree is
 * whole, so the pool's span is unknown for that reason (its sum over
 * whole trees is 0), not because no task ran. */
static void test_all_trees_partial(void)
{
    start(1);
    ev(10, FJA_EV_EXEC, 0, 7, 0);
    ev(40, FJA_EV_EXECUTED, 0, 7, 0);
    stop(200, 1);
    fja_model_window(&M, 2);
    const fja_pool_report *p = analyze();
    ok(p->span_state == FJA_SPAN_ALL_PARTIAL,
       "all partial: the pool's span is unknown, no whole tree");
    char *text = report_text();
    ok(text && strstr(text, "span n/a  parallelism n/a (every tree began before the trace)"),
       "all partial: the text report says every tree began before the trace");
    ok(text && !strstr(text, "no task ran"),
       "all partial: the text report does not say no task ran");
    free(text);
    done();
}

/* A tree submitted but never run: its span is not 0 but unknown. */
static void test_tree_never_ran(void)
{
    start(1);
    ev(10, FJA_EV_SUBMIT, -1, 7, 0);
    stop(200, 1);
    const fja_pool_report *p = analyze();
    ok(p->ntrees == 1 && !p->trees[0].span_known, "never ran: the tree's span is unknown");
    char *text = report_text();
    ok(text && strstr(text, "span n/a, parallelism n/a"),
       "never ran: the text report's tree says n/a");
    ok(text && !strstr(text, "span 0 ns"), "never ran: the text report gives no span of 0");
    free(text);
    done();
}

/* Inconsistent and truncated streams: counted, flagged, never crashing. */
static void test_anomalies(void)
{
    start(2);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    /* the older layout: an executed names its task, a fork its parent */
    ev_named(3, FJA_EV_EXECUTED, 1, 99, 0); /* executed without exec */
    ev_named(4, FJA_EV_FORK, 0, 2, 1);
    ev_named(5, FJA_EV_FORK, 0, 2, 1);    /* duplicate id */
    ev_named(6, FJA_EV_FORK, 0, 3, 1234); /* unknown parent */
    ev(7, FJA_EV_EXEC, 0, 2, 0);
    ev_named(8, FJA_EV_EXECUTED, 0, 2, 0);
    ev(9, FJA_EV_JOINED, 1, 2, 0); /* joined without join */
    fja_event unk = {.ts = 10, .kind = FJA_EV_UNKNOWN, .pool = 1};
    fja_tracker_feed(&T, &unk);
    /* the recording stops here: the root never finishes */
    fja_tracker_finish(&T);
    const fja_pool_report *p = analyze();
    ok_eq_i64(M.anomalies[FJA_AN_EXECUTED_WITHOUT_EXEC], 1, "anomalies: one executed without exec");
    ok_eq_i64(M.anomalies[FJA_AN_DUPLICATE_ID], 1, "anomalies: one duplicate task id");
    ok_eq_i64(M.anomalies[FJA_AN_UNKNOWN_PARENT], 1, "anomalies: one fork with an unknown parent");
    ok_eq_i64(M.anomalies[FJA_AN_JOIN_MISMATCH], 1, "anomalies: one joined without join");
    ok_eq_i64(M.unknown_events, 1, "anomalies: one unknown event");
    ok_eq_i64(R.anomalies, 4, "anomalies: the report counts 4 anomalies");
    ok_eq_i64(M.nexamples, 4, "anomalies: 4 examples are kept");
    ok_eq_i64(
        fja_report_pool(&M, p)->unfinished, 2,
        "anomalies: 2 tasks are unfinished (the running root and the queued orphan)"); /* the root
                                                                                          (running)
                                                                                          and the
                                                                                          orphan
                                                                                          (queued)
                                                                                        */
    ok_eq_i64(fja_report_pool(&M, p)->orphans, 1, "anomalies: one orphan");
    ok(!p->trees[0].complete, "anomalies: the cut-short tree is incomplete");
    ok_eq_i64(p->trees[0].latency_ns, FJA_NULL_NS,
              "anomalies: the cut-short tree's latency is unknown");
    ok_eq_i64(p->incomplete_trees, 1, "anomalies: one incomplete tree");
    ok(!R.complete, "anomalies: the report is incomplete");
    /* the root ran 2-10 (the trace's last event) and is booked as busy */
    ok_eq_i64(fja_report_pool(&M, p)->workers[0].state_ns[FJA_WS_RUN], 8,
              "anomalies: the root ran 2-10, the trace's last event, booked as busy");
    /* work so far: task 2 ran 7-8 (1 ns), the root 2-7 and 8-10 (7 ns) */
    ok_eq_i64(p->trees[0].work_ns, 8,
              "anomalies: the work so far is 8 ns (task 2 1 ns, the root 7 ns)");
    ok(p->trees[0].span_ns <= p->trees[0].work_ns, "anomalies: the span is at most the work");
    done();

    /* a trace that begins mid-run: exec of an unknown task */
    model_begin();
    ev(5, FJA_EV_EXEC, 0, 42, 0);
    ev(9, FJA_EV_EXECUTED, 0, 42, 0);
    fja_tracker_finish(&T);
    p = analyze();
    ok_eq_i64(M.anomalies[FJA_AN_EXEC_UNKNOWN_TASK], 1, "mid-run: one exec of an unknown task");
    ok_eq_i64(p->ntrees, 1, "mid-run: one tree");
    ok(!p->trees[0].complete, "mid-run: the tree is incomplete");
    ok_eq_i64(p->trees[0].work_ns, 4, "mid-run: its work is 4 ns");
    done();

    /* a fork naming itself its parent (found by fuzz-core: the ancestor
     * walk looped forever); the fork is dropped, the rest analyses */
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev_named(3, FJA_EV_FORK, 0, 7, 7);
    ev(4, FJA_EV_EXEC, 0, 7, 0);
    ev(5, FJA_EV_EXECUTED, 0, 7, 0);
    ev(6, FJA_EV_EXECUTED, 0, 1, 0);
    stop(7, 1);
    p = analyze();
    ok_eq_i64(M.anomalies[FJA_AN_SELF_PARENT], 1, "self-parent: one fork naming itself its parent");
    ok_eq_i64(M.anomalies[FJA_AN_EXEC_UNKNOWN_TASK], 1,
              "self-parent: its exec is of an unknown task, a tree of its own"); /* 7, now a tree of
                                                                                    its own */
    ok_eq_i64(p->ntrees, 2, "self-parent: 2 trees");
    ok_eq_i64(p->trees[0].work_ns, 3,
              "self-parent: the root's work is 3 ns (2-4 and 5-6)"); /* 1 ran 2-4 and 5-6 */
    done();

    /* the current layout: a fork's parent is the task of its worker's
     * innermost open exec, an executed closes that exec; a fork on a worker
     * running nothing, an executed with no open exec, are invalid */
    start(2);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXECUTED, 0, 0, 0); /* no open exec */
    ev(3, FJA_EV_FORK, 1, 9, 0);     /* worker 1 runs no task */
    ev(4, FJA_EV_EXEC, 0, 1, 0);
    ev(5, FJA_EV_FORK, 0, 2, 0);
    ev(6, FJA_EV_EXEC, 0, 2, 0);
    ev(7, FJA_EV_FORK, 0, 3, 0);
    ev(8, FJA_EV_EXEC, 0, 3, 0);
    ev(9, FJA_EV_EXECUTED, 0, 0, 0);
    ev(10, FJA_EV_EXECUTED, 0, 0, 0);
    ev(11, FJA_EV_EXECUTED, 0, 0, 0);
    ev(12, FJA_EV_RESULT, -1, 1, 0);
    stop(13, 2);
    p = analyze();
    ok_eq_u64(M.anomalies[FJA_AN_INVALID_EVENT], 2,
              "derived: the executed without exec and the fork outside a task are invalid");
    ok(strstr(M.invalid_first, "runs no task") != NULL, "derived: the first reason says why: %s",
       M.invalid_first);
    ok_eq_u64(M.anomalies[FJA_AN_EXECUTED_WITHOUT_EXEC] + M.anomalies[FJA_AN_UNKNOWN_PARENT] +
                  M.anomalies[FJA_AN_UNBALANCED_NESTING],
              0, "derived: no other anomaly");
    ok_eq_i64(p->ntrees, 1, "derived: one tree");
    ok(p->trees[0].complete, "derived: the tree is whole");
    ok_eq_i64(p->trees[0].tasks, 3, "derived: 3 tasks in it (2 forked under 1, 3 under 2)");
    ok_eq_i64(p->trees[0].max_depth, 2, "derived: depth 2 (task 3 is task 2's child)");
    ok_eq_i64(p->trees[0].work_ns, 7, "derived: work 4-11, 7 ns");
    done();
}

/* The unfinished task of id `task` in the report, or NULL. */
static const fja_unfinished *unfinished(const fja_pool_report *p, uint64_t task)
{
    for (uint32_t i = 0; i < p->nunfinished; i++)
        if (p->unfinished[i].task == task) return &p->unfinished[i];
    return NULL;
}

/* Task ID is listed unfinished in state ST on worker W at DEPTH under
 * PARENT, since SINCE ns into the trace: six checks. */
static void unfinished_is(const fja_pool_report *p, uint64_t id, int st, const char *st_name,
                          int32_t w, uint32_t depth, uint64_t parent, uint64_t since)
{
    const fja_unfinished *u = unfinished(p, id);
    unsigned long long n = (unsigned long long)id;
    if (!ok(u != NULL, "task %llu is listed unfinished", n)) {
        skip(5, "the task is not listed");
        return;
    }
    ok_eq_i64(u->state, st, "task %llu's state is %s", n, st_name);
    ok_eq_i64(u->worker, w, "task %llu is on worker %d", n, (int)w);
    ok_eq_i64(u->depth, depth, "task %llu is %u forks deep", n, (unsigned)depth);
    ok_eq_i64(u->parent, parent, "task %llu's parent is %llu", n, (unsigned long long)parent);
    ok_eq_i64(u->since_ns, since, "task %llu has been so since %llu ns", n,
              (unsigned long long)since);
}
#define ok_unfinished(p, id, st, w, depth, parent, since)                                          \
    unfinished_is(p, id, st, #st, w, depth, parent, since)

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
    fja_tracker_finish(&T);
    const fja_pool_report *p = analyze();
    ok_eq_i64(fja_report_pool(&M, p)->unfinished, 5, "killed: 5 tasks unfinished in the pool");
    ok_eq_i64(p->nunfinished, 5, "killed: 5 unfinished tasks listed");
    /* the root runs again since 70; C waits at its join since 40 */
    ok_unfinished(p, 1, FJA_UT_RUNNING, 0, 0, 0, 70);
    ok_unfinished(p, 2, FJA_UT_WAITING, 1, 1, 1, 40);
    ok_unfinished(p, 3, FJA_UT_QUEUED, 0, 1, 1, 50);
    ok_unfinished(p, 4, FJA_UT_QUEUED, 1, 2, 2, 30);
    ok_unfinished(p, 9, FJA_UT_QUEUED, -1, 0, 0, 2); /* submitted: on no worker */
    ok_eq_i64(unfinished(p, 2)->awaited, 4, "killed: task 2 awaits task 4");
    ok_eq_i64(unfinished(p, 1)->awaited, 0, "killed: the running root awaits nothing");
    ok_eq_i64(unfinished(p, 1)->for_ns, 30, "killed: the root has run for 30 ns at the end");
    ok_eq_i64(unfinished(p, 9)->for_ns, 98, "killed: the unstarted root 9 has waited 98 ns");
    ok_eq_i64(unfinished(p, 4)->root, 1, "killed: task 4's root is 1");
    ok_eq_i64(unfinished(p, 9)->root, 9, "killed: task 9 is its own root");
    ok(!unfinished(p, 5), "killed: the finished task 5 is not listed"); /* finished */
    /* report order: running, waiting, then queued by worker (none last) */
    const uint64_t order[] = {1, 2, 3, 4, 9};
    for (uint32_t i = 0; i < 5 && i < p->nunfinished; i++)
        ok_eq_i64(
            p->unfinished[i].task, order[i],
            "killed: unfinished tasks in report order (running, waiting, queued by worker): #%u",
            i);
    ok_eq_i64(p->unfinished_by_state[FJA_UT_RUNNING], 1, "killed: 1 task running");
    ok_eq_i64(p->unfinished_by_state[FJA_UT_WAITING], 1, "killed: 1 task waiting");
    ok_eq_i64(p->unfinished_by_state[FJA_UT_QUEUED], 3, "killed: 3 tasks queued");
    ok(!R.complete, "killed: the report is incomplete");
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
    fja_tracker_finish(&T);
    p = analyze();
    ok_eq_i64(p->nunfinished, 5, "other states: 5 unfinished tasks listed");
    ok_unfinished(p, 1, FJA_UT_SUSPENDED, 0, 0, 0, 12);
    ok_unfinished(p, 3, FJA_UT_LOCK_WAIT, 0, 1, 1, 14);
    ok_unfinished(p, 5, FJA_UT_RUNNING, 2, 2, 2, 9); /* its body still runs */
    ok_unfinished(p, 2, FJA_UT_COMPLETING, 2, 1, 1, 11);
    ok_unfinished(p, 4, FJA_UT_STOLEN, 1, 2, 3, 15);
    const uint64_t order2[] = {5, 3, 2, 1, 4};
    for (uint32_t i = 0; i < 5 && i < p->nunfinished; i++)
        ok_eq_i64(p->unfinished[i].task, order2[i],
                  "other states: unfinished tasks in report order: #%u", i);
    ok_eq_i64(fja_report_pool(&M, p)->unfinished, 5,
              "other states: 5 tasks unfinished in the pool");
    done();

    /* a whole trace: nothing left, nothing listed */
    start(1);
    ev(1, FJA_EV_SUBMIT, -1, 1, 0);
    ev(2, FJA_EV_EXEC, 0, 1, 0);
    ev(3, FJA_EV_EXECUTED, 0, 1, 0);
    ev(4, FJA_EV_RESULT, -1, 1, 0);
    stop(5, 1);
    p = analyze();
    ok_eq_i64(p->nunfinished, 0, "whole trace: no unfinished task listed");
    ok(p->unfinished == NULL, "whole trace: no unfinished list allocated");
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
    ok(!M.pools[0].trees[1].lossy, "discarded: losses in another trace leave this tree whole");
    fja_model_discarded(&M, 17, 7, 0);
    ev(8, FJA_EV_EXECUTED, 0, 2, 0);
    ev(9, FJA_EV_RESULT, -1, 2, 0);
    stop(10, 1);
    const fja_pool_report *p = analyze();
    ok_eq_i64(M.discarded_events, 34, "discarded: 2 x 17 discarded events counted");
    ok(p->trees[0].complete, "discarded: the tree before the loss is complete");
    ok(!p->trees[1].complete, "discarded: the tree open at the loss is incomplete");
    ok_eq_i64(p->incomplete_trees, 1, "discarded: one incomplete tree");
    ok(!R.complete, "discarded: the report is incomplete");
    ok(p->nadvice >= 1, "discarded: there is advice");
    ok(!strcmp(p->advice[0].kind, "incomplete_trace"),
       "discarded: the first advice says the trace is incomplete");
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
    ok_eq_i64(fja_hist_percentile(&h, 50), 500,
              "percentiles: the histogram's median of 1..1000 is 500 (a bucket bound)"); /* 500 is a
                                                                                            bucket
                                                                                            bound */
    ok_eq_i64(
        fja_hist_percentile(&h, 90), 896,
        "percentiles: the histogram's 90th percentile is 896 (900's bucket)"); /* 900 falls in [896,
                                                                                  904) */
    ok_eq_i64(fja_hist_percentile(&h, 100), 1000,
              "percentiles: the histogram's 100th percentile is 1000");
    ok_eq_i64(fja_hist_percentile(&h, 0), 1, "percentiles: the histogram's 0th percentile is 1");
    ok_eq_i64(fja_percentile_exact(v, 1000, 90), 900,
              "percentiles: the exact 90th percentile of 1..1000 is 900");
    ok_eq_i64(fja_percentile_exact(v, 1000, 99), 990,
              "percentiles: the exact 99th percentile of 1..1000 is 990");
    ok_eq_i64(fja_percentile_exact(v, 1000, 50), 500,
              "percentiles: the exact median of 1..1000 is 500");
    uint64_t lg[64];
    fja_hist_log2(&h, lg);
    ok_eq_i64(lg[0], 1, "percentiles: log2 bucket 0 holds 1 value (1)");     /* 1 */
    ok_eq_i64(lg[1], 2, "percentiles: log2 bucket 1 holds 2 values (2, 3)"); /* 2, 3 */
    ok_eq_i64(lg[9], 489,
              "percentiles: log2 bucket 9 holds 489 values (512..1000)"); /* 512..1000 */
    fja_hist_free(&h);
    /* a huge value stays in range */
    fja_hist_init(&h);
    fja_hist_add(&h, UINT64_MAX);
    fja_hist_add(&h, 1ull << 40);
    ok_eq_i64(fja_hist_percentile(&h, 50), 1ull << 40,
              "percentiles: with UINT64_MAX added the median is 2^40, in range");
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
    ok_eq_i64(p->fork_cost_ns, 10, "cutoff advice: the fork cost is 10 ns");
    ok_eq_i64(p->cutoff_size, 2, "cutoff advice: the cutoff is size 2");
    ok_near(p->cutoff_saving, 0.5, 1e-9, "cutoff advice: the cutoff saves 50%% of the forks");
    /* the root's self time is 400 (forking) + 41 (between children): the
     * median of 41 tasks is the 21st, 441, reported as its bucket's 440 */
    ok_eq_i64(p->granularity.p50, 440,
              "cutoff advice: the median task self time is 440 ns (441's bucket)");
    ok_eq_i64(
        p->granularity.p90, 896,
        "cutoff advice: the 90th percentile is 896 ns (902's bucket)"); /* 902 is in [896, 904) */
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
    ok_eq_i64(p->granularity.p50, 5,
              "pile-up: the median task self time is 5 ns"); /* 30 tasks of 5 ns out of 41 */
    ok(p->mean_queue_depth >= 1.0, "pile-up: tasks queue up, mean depth at least 1");
    ok_eq_i64(p->cutoff_size, 3, "pile-up: the cutoff is size 3");
    ok_near(p->cutoff_saving, 0.75, 1e-9,
            "pile-up: the cutoff saves 75%% of the forks"); /* 30 of 40 forks are below size 3 */
    ok(has_advice(p, "tasks_pile_up", "stop forking below size 3"),
       "pile-up: the advice says stop forking below size 3");
    ok(has_advice(p, "tasks_pile_up", "saving 75%"), "pile-up: the advice says it saves 75%%");
    ok(!has_advice(p, "queues_run_dry", ""), "pile-up: no queues_run_dry advice");
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
    ok_eq_i64(p->gap_ns[FJA_GAP_NO_WORK], 1020,
              "dry: the pool was idle 1020 ns with no work anywhere");
    ok_eq_i64(p->lifetime_ns, 2020, "dry: the pool's lifetime is 2 x 1010 ns");
    ok_near(p->parallelism, 1.0, 1e-9, "dry: the parallelism is 1");
    ok(has_advice(p, "queues_run_dry", "idle 50% with no work anywhere"),
       "dry: the advice says idle 50%% with no work anywhere");
    ok(has_advice(p, "queues_run_dry", "parallelism 1.0 < 2 workers"),
       "dry: the advice says parallelism 1.0 < 2 workers");
    ok(!has_advice(p, "tasks_pile_up", ""), "dry: no tasks_pile_up advice");
    ok(!has_advice(p, "steals_late", ""), "dry: no steals_late advice");
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
    ok(p->parallelism < 2, "dry joins: the parallelism is below 2");
    ok(p->mean_queue_depth < 0.5, "dry joins: the queues are nearly empty");
    ok(p->gap_ns[FJA_GAP_NO_WORK] < p->lifetime_ns / 5,
       "dry joins: idle with no work stays under 20%%");
    ok_eq_i64(p->gap_ns[FJA_GAP_JOIN], 88, "dry joins: the join gaps add up to 88 ns");
    ok(has_advice(p, "queues_run_dry", "waiting at joins"),
       "dry joins: the advice says the workers wait at joins");
    ok(has_advice(p, "queues_run_dry", "more than about 2 workers only wait"),
       "dry joins: the advice says more than about 2 workers only wait");
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
    fja_tracker_feed(&T, &init);
    ev(102, FJA_EV_LOCK_WAIT, -1, 0, 7); /* a client thread: not pool time */
    stop(110, 2);
    const fja_pool_report *p = analyze();
    ok_eq_i64(M.npools, 1, "lock wait: one pool (the lock_init of pool 0 makes none)");
    const fja_worker *w0 = &fja_report_pool(&M, p)->workers[0];
    ok_eq_i64(p->trees[0].work_ns, 70, "lock wait: the work is 70 ns, without the wait");
    ok_eq_i64(p->trees[0].span_ns, 70, "lock wait: the span is 70 ns");
    ok_eq_i64(w0->state_ns[FJA_WS_LOCK], 30, "lock wait: worker 0 waited 30 ns for the lock");
    ok_eq_i64(w0->state_ns[FJA_WS_RUN], 70, "lock wait: worker 0 ran 70 ns");
    ok_eq_i64(w0->gaps[FJA_GAP_LOCK], 1, "lock wait: worker 0 had one lock gap");
    ok_eq_i64(w0->gap_ns[FJA_GAP_LOCK], 30, "lock wait: worker 0's lock gap lasted 30 ns");
    ok_eq_i64(w0->lock_waits, 1, "lock wait: worker 0 waited once");
    ok_eq_i64(p->lock_ns, 30, "lock wait: the pool waited 30 ns for locks");
    ok_near(p->state_pct[FJA_WS_LOCK], 100.0 * 30 / 220, 1e-9,
            "lock wait: the report's lock-wait share is 30 of 220 ns of worker time");
    ok_near(p->gap_pct[FJA_GAP_LOCK], 100.0 * 30 / 220, 1e-9,
            "lock wait: the report's lock-gap share is 30 of 220 ns");
    ok(has_advice(p, "hidden_serialization", "waited for locks 14%"),
       "lock wait: the advice says the workers waited for locks 14%% (30 of 220 ns)"); /* 30 of 220
                                                                                        */
    ok(has_advice(p, "hidden_serialization", "most for lock \"db\" (0.00 ms in 1 waits)"),
       "lock wait: the advice names lock \"db\" with its time and waits");
    const fja_lock_report *l = p->nlocks == 1 ? &p->locks[0] : NULL;
    ok(l && l->id == 7 && l->waits == 1 && l->wait_ns == 30 && strcmp(l->name, "db") == 0,
       "lock wait: the report's one lock is id 7, \"db\", 1 wait of 30 ns");
    ok_eq_i64(R.anomalies, 0, "lock wait: no anomaly");
    done();
}

/* Off-CPU boundaries (replayed as offcpu.h does): worker 0 is preempted
 * 10-90 in the middle of the root, worker 1 blocks 60-70 while searching. */
/* A child run by its parent's own join (exec_joined): the parent's strand
 * from the fork to the join, less its code run ahead of the join, comes
 * before the child on the path (the fork's and the join's own cost). */
static void test_exec_joined(void)
{
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(30, FJA_EV_EXEC_JOINED, 0, 2, 5); /* 5 of the 20 ns were the parent's own code */
    ev(40, FJA_EV_EXECUTED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 1);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 45, "exec_joined: work 45 ns");
    ok_eq_i64(p->trees[0].span_ns, 40,
              "exec_joined: span 40 ns = work less the 5 ns run ahead (an exec: 35)");
    done();

    /* The parent was off the CPU 15 of the 20 wall-clock ns it ran ahead:
     * 5 ns of its own code, on-CPU span 25 of work 30 (without taking the
     * stay out of ahead: 20). */
    start(1);
    ev(0, FJA_EV_OFFCPU_START, 0, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(5, FJA_EV_FORK, 0, 2, 1);
    ev(12, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(27, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(30, FJA_EV_EXEC_JOINED, 0, 2, 20);
    ev(40, FJA_EV_EXECUTED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 1);
    p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 30, "exec_joined off-CPU: work 30 ns on the CPU");
    ok_eq_i64(p->trees[0].span_ns, 25,
              "exec_joined off-CPU: span 25 ns: the stay off the CPU is none of the ahead");
    done();

    /* Two stays off the CPU in the 20 ns run ahead ([10, 30)): 2 + 10 ns
     * of it were not the parent's code, 8 ns were (the last stay alone:
     * 10 ns, span 21). Work 31 ns: parent 16 + 5, child 10. */
    start(1);
    ev(0, FJA_EV_OFFCPU_START, 0, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(5, FJA_EV_FORK, 0, 2, 1);
    ev(8, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(12, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(14, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(24, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(30, FJA_EV_EXEC_JOINED, 0, 2, 20);
    ev(40, FJA_EV_EXECUTED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 1);
    p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 31, "exec_joined, two stays ahead: work 31 ns on the CPU");
    ok_eq_i64(p->trees[0].span_ns, 23,
              "exec_joined, two stays ahead: span 23 ns: both stays are none of the ahead");
    done();

    /* A damaged ahead (a flipped high bit) claims more than the parent's
     * whole strand: the join is ignored, the child starts as an exec's. */
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(30, FJA_EV_EXEC_JOINED, 0, 2, (UINT64_C(1) << 63) + 5);
    ev(40, FJA_EV_EXECUTED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 1);
    p = analyze();
    ok_eq_i64(p->trees[0].span_ns, 35,
              "exec_joined with an ahead longer than the parent's strand: span 35 ns as an exec");
    done();
}

/* A child stolen by worker 1 while its parent, on worker 0, went on to its
 * join (join_stolen): the parent's 20 ns from the fork to the join, less
 * the 5 ns of its own code ahead, were the fork's and the join's cost. */
static void stolen_child(uint64_t child_end, uint64_t joined)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(12, FJA_EV_STEAL, 1, 2, 0);
    ev(14, FJA_EV_EXEC, 1, 2, 0);
    if (child_end < 30) ev(child_end, FJA_EV_EXECUTED, 1, 2, 0);
    ev(30, FJA_EV_JOIN_STOLEN, 0, 2, 5);
    if (child_end > 30) ev(child_end, FJA_EV_EXECUTED, 1, 2, 0);
    ev(joined, FJA_EV_JOINED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 2);
}

static void test_join_stolen(void)
{
    stolen_child(40, 42);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 59, "join_stolen: work 59 ns (parent 30 + 3, child 26)");
    ok_eq_i64(p->trees[0].span_ns, 54,
              "join_stolen: span 54 ns = work less the 5 ns run ahead (a join: 39)");
    done();

    /* Done between the runtime's look and its event: its path, moved by
     * the same cost, reaches the parent at the join. */
    stolen_child(28, 31);
    p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 58, "join_stolen, child done first: work 58 ns");
    ok_eq_i64(p->trees[0].span_ns, 53,
              "join_stolen, child done first: span 53 ns = work less the 5 ns ahead (a join: 44)");
    done();

    /* The child forked a grandchild before its parent's event: the path
     * through the grandchild, begun from the child's unmoved span, is the
     * one that reaches the parent, moved. */
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(12, FJA_EV_STEAL, 1, 2, 0);
    ev(14, FJA_EV_EXEC, 1, 2, 0);
    ev(16, FJA_EV_FORK, 1, 3, 2);
    ev(18, FJA_EV_EXEC_JOINED, 1, 3, 0);
    ev(30, FJA_EV_JOIN_STOLEN, 0, 2, 5);
    ev(38, FJA_EV_EXECUTED, 1, 3, 0);
    ev(40, FJA_EV_EXECUTED, 1, 2, 0);
    ev(42, FJA_EV_JOINED, 0, 2, 0);
    ev(45, FJA_EV_EXECUTED, 0, 1, 0);
    stop(50, 2);
    p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 59, "join_stolen, grandchild: work 59 ns (33 + 6 + 20)");
    ok_eq_i64(p->trees[0].span_ns, 54,
              "join_stolen, grandchild forked before the event: span 54 ns = work less the "
              "5 ns ahead (moving the child's start only: 39)");
    done();
}

static void test_offcpu(void)
{
    start_offcpu(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(60, FJA_EV_OFFCPU_OUT, 1, 0, FJA_OFFCPU_BLOCKED);
    ev(70, FJA_EV_OFFCPU_IN, 1, 0, 0);
    ev(90, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(95, FJA_EV_EXECUTED, 0, 1, 0); /* self on the CPU: 10 + 5 */
    ev(96, FJA_EV_RESULT, -1, 1, 0);
    stop(100, 2);
    const fja_pool_report *p = analyze();
    const fja_worker *w0 = &fja_report_pool(&M, p)->workers[0],
                     *w1 = &fja_report_pool(&M, p)->workers[1];
    ok_eq_i64(p->offcpu, FJA_OFFCPU_RECORDED, "off-CPU: recorded on every worker");
    ok(p->oncpu, "off-CPU: the figures are on-CPU time");
    ok_eq_i64(p->trees[0].work_ns, 15,
              "off-CPU: work is the root's 15 ns on the CPU, not its 95 ns of wall time");
    ok_eq_i64(p->trees[0].span_ns, 15, "off-CPU: span is 15 ns on the CPU");
    ok_eq_i64(w0->state_ns[FJA_WS_RUN], 15, "off-CPU: worker 0 was busy 15 ns");
    ok_eq_i64(w0->off_ns[FJA_OFFCPU_PREEMPTED], 80, "off-CPU: worker 0 was preempted 80 ns");
    ok_eq_i64(w0->state_ns[FJA_WS_SEARCH], 5, "off-CPU: worker 0 searched 5 ns");
    ok_eq_i64(w1->state_ns[FJA_WS_SEARCH], 90,
              "off-CPU: worker 1 searched 90 ns on the CPU (100 less 10 blocked)");
    ok_eq_i64(w1->off_ns[FJA_OFFCPU_BLOCKED], 10, "off-CPU: worker 1 was blocked 10 ns");
    /* w1's gap: 90 ns on the CPU, 80 of 100 wall with worker 0 off the CPU
     * holding the root (72 of the 90 on the CPU): held up by it. */
    ok_eq_i64(w1->gaps[FJA_GAP_HOLDER_OFFCPU], 1,
              "off-CPU: worker 1's gap is classed holder_offcpu");
    ok_eq_i64(w1->gap_ns[FJA_GAP_HOLDER_OFFCPU], 90, "off-CPU: that gap lasted 90 ns on the CPU");
    ok_eq_i64(p->offcpu_ns[FJA_OFFCPU_PREEMPTED], 80, "off-CPU: the pool was preempted 80 ns");
    ok_eq_i64(p->offcpu_ns[FJA_OFFCPU_BLOCKED], 10, "off-CPU: the pool was blocked 10 ns");
    ok(has_advice(p, "preempted", "preempted 40% of their time"),
       "off-CPU: the advice says the workers were preempted 40%% of their time (80 of 200 ns)");
    char *text = report_text();
    /* busy 15, searching 95, preempted 80, blocked 10 of 200 ns */
    ok(text && strstr(text, "worker time: busy 7.5%, join wait 0.0%, searching 47.5%, parked "
                            "0.0%, lock wait 0.0%, preempted 40.0%, blocked 5.0%\n"),
       "off-CPU: the pool's worker time line sums to 100%% of the lifetime (preempted and "
       "blocked included)");
    free(text);
    done();

    /* An empty pool whose workers were preempted: no task, no span: no
     * advice comparing spans that do not exist. */
    start_offcpu(2);
    ev(10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(90, FJA_EV_OFFCPU_IN, 0, 0, 0);
    stop(100, 2);
    p = analyze();
    ok(!has_advice(p, "preempted", ""),
       "off-CPU, empty pool: no preemption advice (no span to compare)");
    text = report_text();
    ok(text && !strstr(text, "0.00 ms vs 0.00 ms"), "off-CPU, empty pool: no '0.00 ms vs 0.00 ms'");
    free(text);
    done();

    /* Refused on one worker: unknown, and the figures are not on-CPU. */
    start(2);
    ev(0, FJA_EV_OFFCPU_START, 0, 0, 0);
    ev(0, FJA_EV_OFFCPU_UNAVAILABLE, 1, 0, 13);
    stop(10, 2);
    p = analyze();
    ok_eq_i64(p->offcpu, FJA_OFFCPU_UNKNOWN, "off-CPU refused on one worker: unknown");
    ok_eq_i64(p->offcpu_error, 13, "off-CPU refused: the errno (13) is kept");
    ok(!p->oncpu, "off-CPU refused: the figures are wall-clock time");
    done();

    /* A contended fj_mutex sleeps: that is lock wait, not off-CPU time. */
    start(1);
    ev(0, FJA_EV_OFFCPU_START, 0, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(20, FJA_EV_LOCK_WAIT, 0, 0, 7);
    ev(25, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_BLOCKED);
    ev(45, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(50, FJA_EV_LOCK_ACQUIRED, 0, 0, 7);
    ev(60, FJA_EV_EXECUTED, 0, 1, 0);
    stop(60, 1);
    p = analyze();
    ok_eq_i64(fja_report_pool(&M, p)->workers[0].state_ns[FJA_WS_LOCK], 30,
              "off-CPU: sleeping in a contended lock is lock-wait time (30 ns)");
    ok_eq_i64(fja_report_pool(&M, p)->workers[0].off_ns[FJA_OFFCPU_BLOCKED], 0,
              "off-CPU: ... and not blocked off-CPU time");
    ok_eq_i64(p->trees[0].work_ns, 30, "off-CPU: the lock-waiting task's work is 30 ns");
    done();
}

/* The wall-clock twins (fja_model_keep_wall): one model fed the off-CPU
 * boundaries also gives the work and span of a model fed none. */
typedef struct {
    uint64_t ts;
    fja_kind k;
    int32_t w;
    uint64_t task, arg;
} step;

static void replay(fja_model *m, const step *s, size_t n, bool edges)
{
    fja_tracker t;
    fja_tracker_init(&t, m);
    for (size_t i = 0; i < n; i++) {
        if (!edges && (s[i].k == FJA_EV_OFFCPU_OUT || s[i].k == FJA_EV_OFFCPU_IN)) continue;
        fja_event e = {
            .ts = s[i].ts, .kind = s[i].k, .worker = s[i].w, .task = s[i].task, .pool = 1};
        fja_event_set_arg(&e, s[i].arg);
        fja_tracker_feed(&t, &e);
    }
    fja_tracker_finish(&t);
    fja_tracker_free(&t);
}

/* The same values in two arrays of bounds (doubles: compared as values). */
static bool bounds_equal(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* Known answers: wall-clock work and span, and on the CPU. */
static void wall_twins(const char *what, const step *s, size_t n, bool recycle, uint64_t work,
                       uint64_t span, uint64_t cpu_work, uint64_t cpu_span)
{
    static fja_model one, plain;
    fja_model_init(&one);
    fja_model_init(&plain);
    fja_model_keep_wall(&one);
    if (recycle) {
        fja_model_recycle(&one);
        fja_model_recycle(&plain);
    }
    replay(&one, s, n, true);
    replay(&plain, s, n, false);
    fja_filter f = {0};
    fja_report r1, r2;
    if (fja_analysis_run(&one, &f, &r1) || fja_analysis_run(&plain, &f, &r2))
        bail_out("fja_analysis_run failed");
    const fja_pool_report *a = &r1.pools[0], *b = &r2.pools[0];
    const char *how = recycle ? "records recycled" : "records kept";
    ok(a->work_wall_ns == work && a->span_wall_ns == span && b->work_ns == work &&
           b->span_ns == span,
       "wall twins, %s (%s): work %llu span %llu ns as a model fed no boundary (%llu %llu; it: "
       "%llu %llu)",
       what, how, (unsigned long long)work, (unsigned long long)span,
       (unsigned long long)a->work_wall_ns, (unsigned long long)a->span_wall_ns,
       (unsigned long long)b->work_ns, (unsigned long long)b->span_ns);
    ok(a->parallelism_wall == b->parallelism &&
           bounds_equal(a->speedup_bound_wall, b->speedup_bound,
                        sizeof b->speedup_bound / sizeof *b->speedup_bound) &&
           a->trees[0].work_wall_ns == b->trees[0].work_ns &&
           a->trees[0].span_wall_ns == b->trees[0].span_ns,
       "wall twins, %s (%s): parallelism, bounds and the tree's figures are that model's", what,
       how);
    ok(a->work_ns == cpu_work && a->span_ns == cpu_span,
       "wall twins, %s (%s): on the CPU, work %llu span %llu ns (%llu %llu)", what, how,
       (unsigned long long)cpu_work, (unsigned long long)cpu_span, (unsigned long long)a->work_ns,
       (unsigned long long)a->span_ns);
    fja_analysis_free(&r1);
    fja_analysis_free(&r2);
    fja_model_free(&one);
    fja_model_free(&plain);
}

static void test_wall_twins(void)
{
    /* test_offcpu's: the root preempted 10-90 of its 95 ns. */
    static const step preempted[] = {
        {0, FJA_EV_POOL_BEGIN, -1, 0, 2},
        {0, FJA_EV_WORKER_BEGIN, 0, 0, 0},
        {0, FJA_EV_WORKER_BEGIN, 1, 0, 0},
        {0, FJA_EV_SUBMIT, -1, 1, 0},
        {0, FJA_EV_EXEC, 0, 1, 0},
        {10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED},
        {60, FJA_EV_OFFCPU_OUT, 1, 0, FJA_OFFCPU_BLOCKED},
        {70, FJA_EV_OFFCPU_IN, 1, 0, 0},
        {90, FJA_EV_OFFCPU_IN, 0, 0, 0},
        {95, FJA_EV_EXECUTED, 0, 1, 0},
        {96, FJA_EV_RESULT, -1, 1, 0},
        {100, FJA_EV_WORKER_END, 0, 0, 0},
        {100, FJA_EV_WORKER_END, 1, 0, 0},
        {101, FJA_EV_POOL_END, -1, 0, 0},
    };
    /* A stolen child preempted 20-50 while its parent waits in a join from
     * 30: on the CPU the child (18 ns) is done at span 28, before the
     * parent's 30 ns; wall-clock (48 ns) at 58, which the parent's 9 ns
     * after the join extend to 67. Work 39 + 18 = 57, wall 39 + 48 = 87. */
    static const step stolen[] = {
        {0, FJA_EV_POOL_BEGIN, -1, 0, 2},
        {0, FJA_EV_WORKER_BEGIN, 0, 0, 0},
        {0, FJA_EV_WORKER_BEGIN, 1, 0, 0},
        {0, FJA_EV_SUBMIT, -1, 1, 0},
        {0, FJA_EV_EXEC, 0, 1, 0},
        {10, FJA_EV_FORK, 0, 2, 1},
        {11, FJA_EV_STEAL, 1, 2, 0},
        {12, FJA_EV_EXEC, 1, 2, 0},
        {20, FJA_EV_OFFCPU_OUT, 1, 0, FJA_OFFCPU_PREEMPTED},
        {30, FJA_EV_JOIN, 0, 2, 0},
        {50, FJA_EV_OFFCPU_IN, 1, 0, 0},
        {60, FJA_EV_EXECUTED, 1, 2, 0},
        {61, FJA_EV_JOINED, 0, 2, 0},
        {70, FJA_EV_EXECUTED, 0, 1, 0},
        {71, FJA_EV_RESULT, -1, 1, 0},
        {80, FJA_EV_WORKER_END, 0, 0, 0},
        {80, FJA_EV_WORKER_END, 1, 0, 0},
        {81, FJA_EV_POOL_END, -1, 0, 0},
    };
    /* test_exec_joined's: the parent off the CPU 12-27 of the 20 ns it ran
     * ahead of its join; a model fed no boundary takes all 20 as its code:
     * the child starts at span 30 - 20 = 10, the root ends at 35. */
    static const step joined[] = {
        {0, FJA_EV_POOL_BEGIN, -1, 0, 1}, {0, FJA_EV_WORKER_BEGIN, 0, 0, 0},
        {0, FJA_EV_SUBMIT, -1, 1, 0},     {0, FJA_EV_EXEC, 0, 1, 0},
        {5, FJA_EV_FORK, 0, 2, 1},        {12, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED},
        {27, FJA_EV_OFFCPU_IN, 0, 0, 0},  {30, FJA_EV_EXEC_JOINED, 0, 2, 20},
        {40, FJA_EV_EXECUTED, 0, 2, 0},   {45, FJA_EV_EXECUTED, 0, 1, 0},
        {50, FJA_EV_WORKER_END, 0, 0, 0}, {51, FJA_EV_POOL_END, -1, 0, 0},
    };
    /* test_join_stolen's, the parent preempted 20-25 between its fork and
     * its join_stolen (5 ns ahead): a model fed no boundary moves the
     * child by 30 - 10 - 5 = 15 ns (span 54, work 59); on the CPU by 10
     * (the parent's strand 15 ns): work 54, span 49. */
    static const step join_stolen[] = {
        {0, FJA_EV_POOL_BEGIN, -1, 0, 2},
        {0, FJA_EV_WORKER_BEGIN, 0, 0, 0},
        {0, FJA_EV_WORKER_BEGIN, 1, 0, 0},
        {0, FJA_EV_SUBMIT, -1, 1, 0},
        {0, FJA_EV_EXEC, 0, 1, 0},
        {10, FJA_EV_FORK, 0, 2, 1},
        {12, FJA_EV_STEAL, 1, 2, 0},
        {14, FJA_EV_EXEC, 1, 2, 0},
        {20, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED},
        {25, FJA_EV_OFFCPU_IN, 0, 0, 0},
        {30, FJA_EV_JOIN_STOLEN, 0, 2, 5},
        {40, FJA_EV_EXECUTED, 1, 2, 0},
        {42, FJA_EV_JOINED, 0, 2, 0},
        {45, FJA_EV_EXECUTED, 0, 1, 0},
        {50, FJA_EV_WORKER_END, 0, 0, 0},
        {50, FJA_EV_WORKER_END, 1, 0, 0},
        {51, FJA_EV_POOL_END, -1, 0, 0},
    };
    /* The same with a grandchild (16-22 on the thief, done before the
     * join_stolen): the child's whole path moves, 34 + 15 = 49 reaching
     * the root (wall-clock: root span 19 + 33 = 52, work 59), 34 + 10 on
     * the CPU (19 + 28 = 47, work 54). */
    static const step grandchild[] = {
        {0, FJA_EV_POOL_BEGIN, -1, 0, 2},
        {0, FJA_EV_WORKER_BEGIN, 0, 0, 0},
        {0, FJA_EV_WORKER_BEGIN, 1, 0, 0},
        {0, FJA_EV_SUBMIT, -1, 1, 0},
        {0, FJA_EV_EXEC, 0, 1, 0},
        {10, FJA_EV_FORK, 0, 2, 1},
        {12, FJA_EV_STEAL, 1, 2, 0},
        {14, FJA_EV_EXEC, 1, 2, 0},
        {16, FJA_EV_FORK, 1, 3, 2},
        {18, FJA_EV_EXEC, 1, 3, 0},
        {20, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED},
        {22, FJA_EV_EXECUTED, 1, 3, 0},
        {25, FJA_EV_OFFCPU_IN, 0, 0, 0},
        {30, FJA_EV_JOIN_STOLEN, 0, 2, 5},
        {40, FJA_EV_EXECUTED, 1, 2, 0},
        {42, FJA_EV_JOINED, 0, 2, 0},
        {45, FJA_EV_EXECUTED, 0, 1, 0},
        {50, FJA_EV_WORKER_END, 0, 0, 0},
        {50, FJA_EV_WORKER_END, 1, 0, 0},
        {51, FJA_EV_POOL_END, -1, 0, 0},
    };
    for (int recycle = 0; recycle < 2; recycle++) {
        wall_twins("preempted root", preempted, sizeof preempted / sizeof *preempted, recycle, 95,
                   95, 15, 15);
        wall_twins("preempted stolen child", stolen, sizeof stolen / sizeof *stolen, recycle, 87,
                   67, 57, 39);
        wall_twins("exec_joined", joined, sizeof joined / sizeof *joined, recycle, 45, 35, 30, 25);
        wall_twins("join_stolen", join_stolen, sizeof join_stolen / sizeof *join_stolen, recycle,
                   59, 54, 54, 49);
        wall_twins("join_stolen with a grandchild", grandchild,
                   sizeof grandchild / sizeof *grandchild, recycle, 59, 52, 54, 47);
    }
}

/* Tasks pile up (deep queues, tiny tasks) and no-work gaps at once: the
 * queue measure cannot say both "pile up" and "run dry". */
static void test_advice_not_contradictory(void)
{
    static fja_report r;
    fja_pool_report pr = {.workers = 2,
                          .mean_queue_depth = 2.0,
                          .granularity = {.n = 10, .p50 = 10},
                          .fork_cost_ns = 100,
                          .cutoff_size = UINT32_MAX,
                          .lifetime_ns = 100,
                          .parallelism = 1.5};
    pr.gap_ns[FJA_GAP_NO_WORK] = 30;
    fja_advice_make(&r, &pr);
    ok(has_advice(&pr, "tasks_pile_up", "tasks pile up"), "advice: tasks pile up (queue depth 2)");
    ok(!has_advice(&pr, "queues_run_dry", ""),
       "advice: queues do not also run dry in the same pool");
}

/* One worker, no steals: the gap between a body's end and its popping the
 * next task of its own deque is not "work queued elsewhere" (a counted
 * completer's children wait on the deque of the worker that forked them). */
static void test_own_deque_not_elsewhere(void)
{
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(5, FJA_EV_FORK, 0, 2, 1);
    ev(6, FJA_EV_FORK, 0, 3, 1);
    ev(10, FJA_EV_EXECUTED, 0, 1, 0); /* search 10-20, two tasks on its own deque */
    ev(20, FJA_EV_EXEC, 0, 3, 0);
    ev(25, FJA_EV_EXECUTED, 0, 3, 0);
    ev(25, FJA_EV_EXEC, 0, 2, 0);
    ev(30, FJA_EV_EXECUTED, 0, 2, 0);
    stop(40, 1);
    const fja_pool_report *p = analyze();
    const fja_worker *w0 = &fja_report_pool(&M, p)->workers[0];
    ok_eq_i64(w0->gaps[FJA_GAP_WORK_QUEUED], 0,
              "own deque: no work-queued gap for a lone worker with its own deque full");
    ok_eq_i64(w0->gap_ns[FJA_GAP_NO_WORK], 10 + 10,
              "own deque: its gaps (10-20, 30-40) are no-work");
    ok(!has_advice(p, "steals_late", ""), "own deque: no 'stealing is late' advice");
    done();
}

/* One event with a creation site (fork, submit) of pool 1. */
static void ev_site(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t parent,
                    uint64_t site)
{
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1, .site = site};
    fja_event_set_arg(&e, parent);
    fja_tracker_feed(&T, &e);
}

/* A resolver for the test: 0x2001 and 0x2101 are one line (two inlined
 * copies of a call), 0x3001 another; anything else is unknown. */
static int test_resolver(void *ctx, int64_t pid, uint64_t site, fja_site_where *out)
{
    (void)ctx;
    (void)pid;
    *out = (fja_site_where){.binary = "/bin/prog", .status = "line"};
    if (site == 0x2001 || site == 0x2101) {
        out->file = "src/a.c";
        out->line = 5;
        out->function = "f";
    } else if (site == 0x3001) {
        out->file = "src/b.c";
        out->line = 9;
        out->function = "g";
    } else {
        *out = (fja_site_where){0};
    }
    return 0;
}

static const fja_site_report *site_named(const fja_pool_report *pr, const char *file)
{
    for (uint32_t i = 0; i < pr->nsites; i++)
        if (pr->sites[i].where.file && !strcmp(pr->sites[i].where.file, file)) return &pr->sites[i];
    return NULL;
}

/* Root 1 (submitted at 0x1000) forks 11, 12 at 0x2001, 13 at 0x2101 and
 * 14 at 0x3001; 14 is stolen by worker 1 and runs 100 ns; worker 0 runs
 * 13, 12, 11 inline for 10, 20, 30 ns. Root self: 180 - 60 = 120 ns. */
static void test_sites(void)
{
    start(2);
    ev_site(10, FJA_EV_SUBMIT, -1, 1, 0, 0x1000);
    ev(20, FJA_EV_EXEC, 0, 1, 0);
    ev_site(30, FJA_EV_FORK, 0, 11, 1, 0x2001);
    ev_site(40, FJA_EV_FORK, 0, 12, 1, 0x2001);
    ev_site(50, FJA_EV_FORK, 0, 13, 1, 0x2101);
    ev_site(60, FJA_EV_FORK, 0, 14, 1, 0x3001);
    ev(70, FJA_EV_STEAL, 1, 14, 0);
    ev(80, FJA_EV_EXEC, 1, 14, 0);
    ev(90, FJA_EV_EXEC, 0, 13, 0);
    ev(100, FJA_EV_EXECUTED, 0, 13, 0);
    ev(110, FJA_EV_EXEC, 0, 12, 0);
    ev(130, FJA_EV_EXECUTED, 0, 12, 0);
    ev(140, FJA_EV_EXEC, 0, 11, 0);
    ev(170, FJA_EV_EXECUTED, 0, 11, 0);
    ev(180, FJA_EV_EXECUTED, 1, 14, 0);
    ev(200, FJA_EV_EXECUTED, 0, 1, 0);
    ev(210, FJA_EV_RESULT, -1, 1, 0);
    stop(300, 2);
    const fja_pool_report *pr = analyze();
    ok(pr->sites_known, "sites: a trace with sites has them");
    ok_eq_u64(pr->nsites, 4, "sites: four recorded addresses before resolution");
    fja_analysis_free(&R);
    require(!fja_analysis_run_sites(&M, &(fja_filter){0}, test_resolver, NULL, &R));
    pr = &R.pools[0];
    ok_eq_u64(pr->nsites, 3, "sites: the two addresses of a.c:5 are merged into one site");
    const fja_site_report *a = site_named(pr, "src/a.c"), *b = site_named(pr, "src/b.c");
    require(a && b);
    ok(a->forks == 3 && a->addresses == 2 && a->steals == 0, "sites: a.c:5 forked 3 tasks");
    ok_eq_u64(a->work_ns, 60, "sites: a.c:5 work = 10 + 20 + 30");
    ok(a->self.p50 == 20 && a->self.max == 30 && a->self.min == 10,
       "sites: a.c:5 self time p50 20, min 10, max 30 (merged histograms)");
    ok(b->forks == 1 && b->steals == 1 && b->work_ns == 100, "sites: b.c:9 one task, stolen");
    ok(a->depth_min == 1 && a->depth_max == 1, "sites: a.c:5 tasks at depth 1");
    ok_eq_u64(pr->sites[0].work_ns, 120, "sites: most work first (the root's submit site)");
    ok(pr->sites[0].submits == 1 && !pr->sites[0].where.file,
       "sites: the submit site, unresolved, keeps its address");
    ok_near(a->work_share, 60.0 / 280.0, 1e-9, "sites: a.c:5 share of the work");
    char buf[64];
    ok(!strcmp(fja_site_label(buf, sizeof buf, a), "a.c:5 (f)"), "sites: label %s", buf);
    ok(!strcmp(fja_site_label(buf, sizeof buf, &pr->sites[0]), "0x1000"),
       "sites: an unresolved site is labelled by its address (%s)", buf);
    done();

    /* A trace without sites (recorded before they existed). */
    start(1);
    ev(10, FJA_EV_SUBMIT, -1, 1, 0);
    ev(20, FJA_EV_EXEC, 0, 1, 0);
    ev(30, FJA_EV_EXECUTED, 0, 1, 0);
    stop(40, 1);
    ok(!analyze()->sites_known, "sites: unknown (null) when no event carries one");
    done();
}

/* Two roots submitted together run at the same time: the pool's span is
 * the longer one (12), not the sum (22). */
static void test_concurrent_trees_span(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(1, FJA_EV_SUBMIT, -1, 2, 0);
    ev(1, FJA_EV_EXEC, 0, 1, 0);
    ev(2, FJA_EV_EXEC, 1, 2, 0);
    ev(11, FJA_EV_EXECUTED, 0, 1, 0); /* span 10 */
    ev(14, FJA_EV_EXECUTED, 1, 2, 0); /* span 12 */
    ev(15, FJA_EV_RESULT, -1, 1, 0);
    ev(15, FJA_EV_RESULT, -1, 2, 0);
    ev(20, FJA_EV_SUBMIT, -1, 3, 0); /* later, alone: adds its own span */
    ev(20, FJA_EV_EXEC, 0, 3, 0);
    ev(25, FJA_EV_EXECUTED, 0, 3, 0); /* span 5 */
    ev(26, FJA_EV_RESULT, -1, 3, 0);
    stop(30, 2);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->work_ns, 10 + 12 + 5, "concurrent trees: the work adds up (27 ns)");
    ok_eq_i64(p->span_ns, 12 + 5, "concurrent trees: overlapping spans do not add (12 + 5 ns)");
    ok_near(p->parallelism, 27.0 / 17.0, 1e-9, "concurrent trees: parallelism 27 / 17");
    ok_near(p->speedup_burdened[0], 1.0, 1e-12, "P=1 never steals: burdened speedup 1");
    done();
}

/* A producer loop: the root forks children that finish before it joins
 * them; a child done early is not on the path of its later forks. Two
 * workers: child 2 is stolen (100 ns), child 3 runs at once inside its
 * fork (a full deque, 200 ns), child 4 is stolen (100 ns) and waited for;
 * then join_done for 3 and 2. The root runs 0-20, 220-240, 333-340: self
 * 47. True paths: child 3 from the root's 20 ns, joined at the root's
 * 41st ns: 220, then the root's last 6 ns: span 226. Taking each child as
 * joined when it finished puts child 4 after child 3 (230 + 100) and the
 * root's end after that: 337. */
static void producer_events(bool joins_told)
{
    start(2);
    if (joins_told) ev(0, FJA_EV_JOINS_TOLD, -1, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(11, FJA_EV_STEAL, 1, 2, 0);
    ev(12, FJA_EV_EXEC, 1, 2, 0);
    ev(20, FJA_EV_FORK, 0, 3, 1);
    ev(20, FJA_EV_EXEC, 0, 3, 0);
    ev(112, FJA_EV_EXECUTED, 1, 2, 0); /* done-span 10 + 100 */
    ev(220, FJA_EV_EXECUTED, 0, 3, 0); /* done-span 20 + 200 */
    ev(230, FJA_EV_FORK, 0, 4, 1);     /* root self 30 */
    ev(231, FJA_EV_STEAL, 1, 4, 0);
    ev(232, FJA_EV_EXEC, 1, 4, 0);
    ev(240, FJA_EV_JOIN, 0, 4, 0);     /* root self 40 */
    ev(332, FJA_EV_EXECUTED, 1, 4, 0); /* done-span 30 + 100 */
    ev(333, FJA_EV_JOINED, 0, 4, 0);
    if (joins_told) {
        ev(334, FJA_EV_JOIN_DONE, 0, 3, 0); /* root self 41: path 220 */
        ev(335, FJA_EV_JOIN_DONE, 0, 2, 0);
    }
    ev(340, FJA_EV_EXECUTED, 0, 1, 0);
    ev(341, FJA_EV_RESULT, -1, 1, 0);
    stop(350, 2);
}

static void test_producer_span(void)
{
    producer_events(true);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->work_ns, 447, "producer: work 47 + 100 + 200 + 100 ns");
    ok_eq_i64(p->span_ns, 226,
              "producer: span 226 ns (child 3 joined at the root's join_done, not when done)");
    ok_eq_i64(M.anomalies[FJA_AN_JOIN_MISMATCH], 0, "producer: join_done is no join mismatch");
    done();
    /* A trace without joins_told (older libfj): each child is taken as
     * joined when it finished, as before, never less than the truth. */
    producer_events(false);
    p = analyze();
    ok_eq_i64(p->span_ns, 337, "producer without joins_told: span 337 ns, as before");
    done();
    /* join_done naming a task that is not the running task's done child */
    producer_events(true);
    ev(400, FJA_EV_JOIN_DONE, 0, 3, 0);
    ok_eq_i64(M.anomalies[FJA_AN_JOIN_MISMATCH], 1,
              "producer: a join_done on a worker running no parent of it is a join mismatch");
    done();
}

/* The OpenMP shape: a task runs its first child at once (nested, 100 ns,
 * as libomp does when its queue is full), creates a second that the other
 * thread runs (100 ns), and waits in a taskwait (join, task 0) at its own
 * 30th ns; it ends 7 ns after. By hand: child 2 ends at 10 + 100, child 3
 * at 20 + 100, the taskwait at max(30, 110, 120) = 120, span 127 (as
 * joined when finished: child 3 after child 2, 227). With a taskwait that
 * waited for nothing (join_done 0) between the two children, they are
 * sequential: 110, then child 3 from 115 to 215, span 222. */
static void omp_taskwait_events(bool fast_taskwait)
{
    start(2);
    ev(0, FJA_EV_JOINS_TOLD, -1, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(10, FJA_EV_EXEC, 0, 2, 0);
    ev(110, FJA_EV_EXECUTED, 0, 2, 0);
    if (fast_taskwait) ev(115, FJA_EV_JOIN_DONE, 0, 0, 0); /* root self 15 */
    ev(120, FJA_EV_FORK, 0, 3, 1);                         /* root self 20 */
    ev(121, FJA_EV_STEAL, 1, 3, 0);
    ev(122, FJA_EV_EXEC, 1, 3, 0);
    ev(130, FJA_EV_JOIN, 0, 0, 0); /* root self 30 */
    ev(222, FJA_EV_EXECUTED, 1, 3, 0);
    ev(223, FJA_EV_JOINED, 0, 0, 0);
    ev(230, FJA_EV_EXECUTED, 0, 1, 0); /* root self 37 */
    ev(231, FJA_EV_RESULT, -1, 1, 0);
    stop(240, 2);
}

static void test_taskwait_span(void)
{
    omp_taskwait_events(false);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->work_ns, 237, "taskwait: work 37 + 100 + 100 ns");
    ok_eq_i64(p->span_ns, 127, "taskwait: span 127 ns (the children joined at the taskwait)");
    done();
    omp_taskwait_events(true);
    p = analyze();
    ok_eq_i64(p->span_ns, 222,
              "taskwait that waited for nothing (join_done 0): the next child comes after it, "
              "span 222 ns");
    ok_eq_i64(M.anomalies[FJA_AN_JOIN_MISMATCH], 0, "taskwait: join_done 0 is no join mismatch");
    done();
}

/* The burdened bound in one clock: with off-CPU time recorded, work and
 * span are on-CPU time, and so are the steal and join costs it charges
 * along the span: the thief's and the waiter's stays off the CPU are no
 * cost of the runtime. Worker 1 steals at 11, is preempted 12..30, runs
 * the child from 32 (steal-to-exec 21 ns of wall, 3 on the CPU) to 50;
 * worker 0 waits in its join from 40, is preempted 55..95 and sees the
 * child done at 100 (latency 50 ns of wall, 10 on the CPU). Root self
 * 40 + 5, child 18: work 63; span max(40, 10 + 18) + 5 = 45; depth 1:
 * burdened span 45 + 3 + 10 = 58, at P=2 63 / (31.5 + 58) = 0.7039 (with
 * the wall-clock costs, 45 + 21 + 50: 0.4271). */
static void test_burdened_one_clock(void)
{
    start_offcpu(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_FORK, 0, 2, 1);
    ev(11, FJA_EV_STEAL, 1, 2, 0);
    ev(12, FJA_EV_OFFCPU_OUT, 1, 0, FJA_OFFCPU_PREEMPTED);
    ev(30, FJA_EV_OFFCPU_IN, 1, 0, 0);
    ev(32, FJA_EV_EXEC, 1, 2, 0);
    ev(40, FJA_EV_JOIN, 0, 2, 0);
    ev(50, FJA_EV_EXECUTED, 1, 2, 0);
    ev(55, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(95, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(100, FJA_EV_JOINED, 0, 2, 0);
    ev(105, FJA_EV_EXECUTED, 0, 1, 0);
    ev(106, FJA_EV_RESULT, -1, 1, 0);
    stop(110, 2);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->steal_cost_ns, 3, "one clock: steal-to-exec 3 ns on the thief's CPU, not 21");
    ok_eq_i64(p->join_cost_ns, 10, "one clock: join latency 10 ns on the waiter's CPU, not 50");
    ok_eq_i64(p->work_ns, 63, "one clock: work 45 + 18 ns");
    ok_eq_i64(p->span_ns, 45, "one clock: span 40 + 5 ns");
    ok(p->speedup_burdened[1] > 0.7039 && p->speedup_burdened[1] < 0.7040,
       "one clock: burdened speedup at P=2 is 63 / (31.5 + 45 + 3 + 10) = 0.7039, not 0.4271");
    done();
}

/* The workers' CPU clocks (offcpu_clock) against perf's intervals: worker
 * 0 reads 1000 at 0; off 10-30; reads 1025 at 50: perf's records put 30 ns
 * on the CPU, the clock 25: +5 unattributed; off 60-70; reads 1063 at 100:
 * 40 on the CPU by perf, 38 by the clock: +2. Worker 1 reads 0 at 0 and 52
 * at 50 (no stay off the CPU): -2, the clock counted more. Net +5, the
 * sizes 5 + 2 + 2 = 9. */
static void test_offcpu_clock(void)
{
    start_offcpu(2);
    ev(0, FJA_EV_OFFCPU_CLOCK, 0, 0, 1000);
    ev(0, FJA_EV_OFFCPU_CLOCK, 1, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(30, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(50, FJA_EV_OFFCPU_CLOCK, 0, 0, 1025);
    ev(50, FJA_EV_OFFCPU_CLOCK, 1, 0, 52);
    ev(60, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(70, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(95, FJA_EV_EXECUTED, 0, 1, 0);
    ev(96, FJA_EV_RESULT, -1, 1, 0);
    ev(100, FJA_EV_OFFCPU_CLOCK, 0, 0, 1063);
    stop(101, 2);
    const fja_pool_report *p = analyze();
    ok_eq_i64(p->unattributed_ns, 5,
              "CPU clocks: 5 ns unattributed (worker 0: +5 and +2, worker 1: -2)");
    ok_eq_i64(p->clock_disagree_ns, 9, "CPU clocks: 9 ns of disagreement span by span");
    ok_eq_i64(p->trees[0].work_ns, 65,
              "CPU clocks: the work stays perf's on-CPU time (95 less 30 off), not moved");
    char *text = report_text();
    ok(text && strstr(text, "  unattributed +5 ns: the on-CPU time below less the threads' own "
                            "CPU clocks (9 ns either way between their readings), in no known "
                            "task\n"),
       "CPU clocks: the text report's unattributed line");
    free(text);
    done();

    /* Worker 1 never read its clock (a trace of an older recorder): unknown. */
    start_offcpu(2);
    ev(0, FJA_EV_OFFCPU_CLOCK, 0, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(40, FJA_EV_EXECUTED, 0, 1, 0);
    ev(41, FJA_EV_RESULT, -1, 1, 0);
    ev(50, FJA_EV_OFFCPU_CLOCK, 0, 0, 50);
    stop(60, 2);
    p = analyze();
    ok_eq_i64(p->unattributed_ns, FJA_NULL_NS, "CPU clocks of some workers only: unknown");
    text = report_text();
    ok(text && strstr(text, "  unattributed n/a (the threads' CPU clocks are not in the trace, "
                            "or records were lost)\n"),
       "CPU clocks unknown: the text says n/a");
    free(text);
    done();

    /* No off-CPU recording: the figures are wall-clock time; null. */
    start(1);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(40, FJA_EV_EXECUTED, 0, 1, 0);
    ev(41, FJA_EV_RESULT, -1, 1, 0);
    stop(60, 1);
    p = analyze();
    ok_eq_i64(p->unattributed_ns, FJA_NULL_NS, "off-CPU time not recorded: unattributed unknown");
    done();
}

/* The fit of perf's intervals to the task clocks (offcpu.h), through
 * collect, seal and replay as the CLI does. Worker 0 reads its clock
 * (offcpu_task_clock) at 0 (1000), 100 (1060) and 200 (1105). Task 1 runs
 * 0..100 with stays off the CPU 10-30 and 50-60: perf's records leave 70
 * on the CPU, the clock counted 60, so each stay is lengthened by 5
 * (10-35, 50-65): self 60. Task 2 runs 100..200, off 120-180: 40 on the
 * CPU by perf, 45 by the clock: the stay shortened by 5 (120-175), self
 * 45. Work 105 (perf's records alone: 110), unattributed 0, the figures
 * from the threads' clocks. */
static fja_offcpu fit_o;
static bool fit_sealed;

static int feed_model(void *ctx, const fja_event *e)
{
    (void)ctx;
    fja_tracker_feed(&T, e);
    return 0;
}

/* An event of worker 0 after the boundaries replayed before it; collected
 * when it is an interval or a reading, as the reading ahead does. */
static void ev_fit(uint64_t ts, fja_kind k, uint64_t task, uint64_t arg, uint64_t b, uint64_t e)
{
    fja_event x = {.ts = ts, .kind = k, .worker = 0, .task = task, .pool = 1, .begin = b, .end = e};
    fja_event_set_arg(&x, arg);
    if (fit_sealed) fja_offcpu_replay(&fit_o, ts, feed_model, NULL);
    fja_tracker_feed(&T, &x);
}

static void task_clock_stream(void)
{
    ev_fit(0, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1000, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev_fit(0, FJA_EV_EXEC, 1, 0, 0, 0);
    ev_fit(100, FJA_EV_OFFCPU, 0, FJA_OFFCPU_PREEMPTED, 10, 30);
    ev_fit(100, FJA_EV_OFFCPU, 0, FJA_OFFCPU_PREEMPTED, 50, 60);
    ev_fit(100, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1060, 0, 0);
    ev_fit(100, FJA_EV_EXECUTED, 1, 0, 0, 0);
    ev(100, FJA_EV_RESULT, -1, 1, 0);
    ev(100, FJA_EV_SUBMIT, -1, 2, 0);
    ev_fit(100, FJA_EV_EXEC, 2, 0, 0, 0);
    ev_fit(200, FJA_EV_OFFCPU, 0, FJA_OFFCPU_PREEMPTED, 120, 180);
    ev_fit(200, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1105, 0, 0);
    ev_fit(200, FJA_EV_EXECUTED, 2, 0, 0, 0);
    ev(200, FJA_EV_RESULT, -1, 2, 0);
}

static void test_task_clock_fit(void)
{
    /* the reading ahead: a model that only collects */
    fja_offcpu_init(&fit_o);
    const fja_event evs[] = {
        {.ts = 0, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1000},
        {.ts = 100, .kind = FJA_EV_OFFCPU, .pool = 1, .begin = 10, .end = 30},
        {.ts = 100, .kind = FJA_EV_OFFCPU, .pool = 1, .begin = 50, .end = 60},
        {.ts = 100, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1060},
        {.ts = 200, .kind = FJA_EV_OFFCPU, .pool = 1, .begin = 120, .end = 180},
        {.ts = 200, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1105},
    };
    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
        ok(fja_offcpu_collect(&fit_o, &evs[i]) == 0, "task clock fit: event %zu collected", i);
    fja_offcpu_seal(&fit_o);
    fit_sealed = true;
    ok_eq_i64((int64_t)fit_o.n, 6, "task clock fit: 3 intervals replayed, the readings dropped");
    ok_eq_i64((int64_t)fit_o.fit_added_ns, 10, "task clock fit: 10 ns added to task 1's stays");
    ok_eq_i64((int64_t)fit_o.fit_taken_ns, 5, "task clock fit: 5 ns taken from task 2's stay");
    start_offcpu(1);
    task_clock_stream();
    fja_offcpu_replay(&fit_o, UINT64_MAX, feed_model, NULL);
    stop(201, 1);
    const fja_pool_report *p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 60, "task clock fit: task 1's on-CPU time is its clock's 60");
    ok_eq_i64(p->trees[1].work_ns, 45, "task clock fit: task 2's on-CPU time is its clock's 45");
    ok_eq_i64(p->unattributed_ns, 0, "task clock fit: nothing unattributed");
    ok(p->oncpu_clock == FJA_ONCPU_THREAD_CLOCK, "task clock fit: the figures say which clock");
    char *text = report_text();
    ok(text && strstr(text, "on-CPU time of each task: the threads' own CPU clocks (the kernel's "
                            "count: interrupts on them included unless it accounts them apart), "
                            "read after each switch, at pieces of 20 us or more and every 200 "
                            "us\n"),
       "task clock fit: the text report names the clock");
    free(text);
    done();
    fja_offcpu_free(&fit_o);

    /* the same intervals with plain offcpu_clock readings (libfj's, at
     * drains): not fitted, perf's records stand (an upper bound) */
    start_offcpu(1);
    ev(0, FJA_EV_OFFCPU_CLOCK, 0, 0, 1000);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(10, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(30, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(50, FJA_EV_OFFCPU_OUT, 0, 0, FJA_OFFCPU_PREEMPTED);
    ev(60, FJA_EV_OFFCPU_IN, 0, 0, 0);
    ev(100, FJA_EV_OFFCPU_CLOCK, 0, 0, 1060);
    ev(100, FJA_EV_EXECUTED, 0, 1, 0);
    ev(100, FJA_EV_RESULT, -1, 1, 0);
    stop(101, 1);
    p = analyze();
    ok_eq_i64(p->trees[0].work_ns, 70, "drain clocks: perf's on-CPU time, 70");
    ok_eq_i64(p->unattributed_ns, 10, "drain clocks: the 10 ns perf put on the CPU unattributed");
    ok(p->oncpu_clock == FJA_ONCPU_SWITCHES, "drain clocks: perf's switch records (upper bound)");
    done();
}

/* Time lost without a switch (the hypervisor took the vCPU: the thread's
 * clock stops, no switch record): worker 0 reads its clock at 0 (1 ms),
 * 100 us (1.08 ms) and 200 us (1.179 ms), no stay recorded. Task 1 runs
 * 0..100 us and lost 20 us: a stay of its own, 80..100 us, is added (self
 * 80 us, 20 us preempted). Task 2 runs 100..200 us and lost 1 us: the
 * readings' jitter (below offcpu.c's STALL_MIN_NS), left in the task and
 * unattributed. */
static void test_task_clock_stall(void)
{
    fja_offcpu_init(&fit_o);
    const fja_event evs[] = {
        {.ts = 0, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1000000},
        {.ts = 100000, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1080000},
        {.ts = 200000, .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1, .arg.cpu = 1179000},
    };
    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
        ok(fja_offcpu_collect(&fit_o, &evs[i]) == 0, "task clock stall: event %zu collected", i);
    fja_offcpu_seal(&fit_o);
    fit_sealed = true;
    ok_eq_i64((int64_t)fit_o.stalls, 1, "task clock stall: one stay added");
    ok_eq_i64((int64_t)fit_o.stall_ns, 20000, "task clock stall: of the 20 us the clock lost");
    ok_eq_i64((int64_t)fit_o.n, 2, "task clock stall: its two boundaries replayed");
    start_offcpu(1);
    ev_fit(0, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1000000, 0, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev_fit(0, FJA_EV_EXEC, 1, 0, 0, 0);
    ev_fit(100000, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1080000, 0, 0);
    ev_fit(100000, FJA_EV_EXECUTED, 1, 0, 0, 0);
    ev(100000, FJA_EV_RESULT, -1, 1, 0);
    ev(100000, FJA_EV_SUBMIT, -1, 2, 0);
    ev_fit(100000, FJA_EV_EXEC, 2, 0, 0, 0);
    ev_fit(200000, FJA_EV_OFFCPU_TASK_CLOCK, 0, 1179000, 0, 0);
    ev_fit(200000, FJA_EV_EXECUTED, 2, 0, 0, 0);
    ev(200000, FJA_EV_RESULT, -1, 2, 0);
    fja_offcpu_replay(&fit_o, UINT64_MAX, feed_model, NULL);
    stop(200001, 1);
    const fja_pool_report *p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 80000, "task clock stall: task 1's on-CPU time is its clock's");
    ok_eq_i64(p->trees[1].work_ns, 100000, "task clock stall: task 2 keeps the readings' jitter");
    ok_eq_i64((int64_t)p->offcpu_ns[FJA_OFFCPU_PREEMPTED], 20000,
              "task clock stall: the lost time is preempted time (the vCPU was)");
    ok_eq_i64(p->unattributed_ns, 1000, "task clock stall: the jitter is unattributed");
    done();
    fja_offcpu_free(&fit_o);
    fit_sealed = false;
}

/* A worker's clock readings around two tasks, as the OMPT tool tells them:
 * reading i at at[i] (the clock counts the trace's time), the tool's time
 * so far told[i] (with told_any; a trace of an older tool tells none);
 * task 1 runs from 0 to end1, task 2 from end1 to end2; follows: the
 * readings before a switch say the switch follows (switch_follows). */
typedef struct {
    const uint64_t *at, *told;
    uint64_t end1, end2;
    bool told_any, follows;
    uint64_t off_begin, off_end; /* a stay off the CPU, drained at reading 2 (0, 0: none) */
} tool_script;

/* The thread's CPU clock at reading i: the trace's time less the stay. */
static uint64_t tool_clock(const tool_script *s, size_t i)
{
    uint64_t off = i >= 2 ? s->off_end - s->off_begin : 0;
    return 1000000 + s->at[i] - off;
}

/* The OMPT tool's own time (offcpu_task_clock's tool) is booked apart
 * from the tasks' work. Worker 0 reads its clock at 0, 100, 200 and 250 us
 * (no time lost: the clock counts the trace's time), the tool's time so
 * far 0.5, 3.5, 5.5 and 6.5 us. Task 1 runs 0..100 us: the 3 us told at
 * its end are taken out of it (work and span 97 us); task 2 runs 100..200
 * us: 2 us (98 us). The last 1 us comes at a reading where no task runs
 * (the worker waited): in no task. Without the field (a trace of an older
 * tool) the figures are unknown, not 0, and the work keeps the tool's. */
static const uint64_t tool_at[] = {0, 100000, 200000, 250000},
                      tool_so_far[] = {500, 3500, 5500, 6500};
/* 102 us told by the reading at 200 us, where the thread's clock counted
 * 100 us since the last */
static const uint64_t tool_beyond[] = {500, 3500, 105500, 106500};

/* Reading i of the script after the boundaries before it. */
static void tool_reading(const tool_script *s, size_t i)
{
    if (i == 2 && s->off_end)
        ev_fit(s->at[2], FJA_EV_OFFCPU, 0, FJA_OFFCPU_PREEMPTED, s->off_begin, s->off_end);
    fja_event r = {.ts = s->at[i], .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1};
    fja_event_set_arg(&r, tool_clock(s, i));
    r.tool = s->told[i];
    r.tool_told = s->told_any;
    r.switch_follows = s->follows && i < 3; /* the last: no switch follows */
    fja_offcpu_replay(&fit_o, r.ts, feed_model, NULL);
    fja_tracker_feed(&T, &r);
}

static void tool_stream(const tool_script *s)
{
    fja_offcpu_init(&fit_o);
    for (size_t i = 0; i < 4; i++) {
        fja_event stay = {.ts = s->at[2], .kind = FJA_EV_OFFCPU, .pool = 1};
        stay.begin = s->off_begin;
        stay.end = s->off_end;
        if (i == 2 && s->off_end)
            ok(fja_offcpu_collect(&fit_o, &stay) == 0, "tool time: the stay collected");
        fja_event r = {.ts = s->at[i], .kind = FJA_EV_OFFCPU_TASK_CLOCK, .pool = 1};
        fja_event_set_arg(&r, tool_clock(s, i));
        ok(fja_offcpu_collect(&fit_o, &r) == 0, "tool time: reading %zu collected", i);
    }
    fja_offcpu_seal(&fit_o);
    fit_sealed = true;
    start_offcpu(1);
    tool_reading(s, 0);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev_fit(0, FJA_EV_EXEC, 1, 0, 0, 0);
    tool_reading(s, 1);
    ev_fit(s->end1, FJA_EV_EXECUTED, 1, 0, 0, 0);
    ev(s->end1, FJA_EV_RESULT, -1, 1, 0);
    ev(s->end1, FJA_EV_SUBMIT, -1, 2, 0);
    ev_fit(s->end1, FJA_EV_EXEC, 2, 0, 0, 0);
    tool_reading(s, 2);
    ev_fit(s->end2, FJA_EV_EXECUTED, 2, 0, 0, 0);
    ev(s->end2, FJA_EV_RESULT, -1, 2, 0);
    tool_reading(s, 3);
    fja_offcpu_replay(&fit_o, UINT64_MAX, feed_model, NULL);
    stop(s->at[3] + 1, 1);
}

/* The OMPT tool's time between a reading and the switch it was made for
 * (offcpu_task_clock's switch_follows: the same callback emits the switch
 * next). Worker 0 reads its clock at 0, 100, 250 and 300 us, the tool's
 * time so far 0.5, 3.5, 55.5 and 56.5 us; the clock counts the trace's
 * time. Task 1 runs 0..150 us, but its piece ends at the reading at 100
 * us: the 50 us to its executed are the tool's (its callback stalled
 * there), told by the next reading with 2 us of task 2's (150..250 us).
 * Task 1: 100 - 3 us; task 2: 100 - 2 us. A trace whose readings do not
 * say so keeps the 50 us in task 1 and takes them from task 2 instead. */
static const uint64_t tail_at[] = {0, 100000, 250000, 300000},
                      tail_told[] = {500, 3500, 55500, 56500};

static void test_task_clock_tool_tail(void)
{
    tool_script tail = {tail_at, tail_told, 150000, 250000, true, true, 0, 0};
    tool_stream(&tail);
    const fja_pool_report *p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 97000,
              "tool tail: task 1's piece ends at its reading, less 3 us");
    ok_eq_i64(p->trees[0].span_ns, 97000, "tool tail: so does its span");
    ok_eq_i64(p->trees[1].work_ns, 98000, "tool tail: task 2 loses only its own 2 us");
    ok_eq_i64(p->tool_in_tasks_ns, 55000, "tool tail: 3 + 50 + 2 us kept out of the tasks");
    ok_eq_i64(p->tool_ns, 56000, "tool tail: 56 us told in all");
    done();
    fja_offcpu_free(&fit_o);

    tail.follows = false;
    tool_stream(&tail);
    p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 147000, "no tail told: task 1 keeps the 50 us");
    ok_eq_i64(p->trees[1].work_ns, 48000, "no tail told: task 2 loses them instead");
    done();
    fja_offcpu_free(&fit_o);

    /* The word said, but task 1's worker is preempted from 110 to 130 us,
     * after the reading and before the switch (the tracker's TOOL_TAIL, not
     * counted): the tool's time to the switch is not known, and the piece
     * runs on to the switch as without the word: 3..110 and 130..150 us */
    tail.follows = true;
    tail.off_begin = 110000;
    tail.off_end = 130000;
    tool_stream(&tail);
    p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 127000,
              "tail cut by a stay: task 1 runs on to its switch, less 3 us and the stay");
    ok_eq_i64(p->trees[1].work_ns, 48000, "tail cut by a stay: task 2 loses the 52 us told");
    ok_eq_i64(p->tool_in_tasks_ns, 55000, "tail cut by a stay: 3 + 52 us taken out of tasks");
    done();
    fja_offcpu_free(&fit_o);
    fit_sealed = false;
}

static void test_task_clock_tool(void)
{
    tool_script told = {tool_at, tool_so_far, 100000, 200000, true, false, 0, 0};
    tool_stream(&told);
    const fja_pool_report *p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 97000, "tool time: task 1's work is its clock's less 3 us");
    ok_eq_i64(p->trees[0].span_ns, 97000, "tool time: so is its span");
    ok_eq_i64(p->trees[1].work_ns, 98000, "tool time: task 2's work is its clock's less 2 us");
    ok_eq_i64(p->tool_in_tasks_ns, 5000, "tool time: 5 us of it inside tasks");
    ok_eq_i64(p->tool_ns, 6000, "tool time: 6 us told in all");
    ok_eq_i64(p->unattributed_ns, 0, "tool time: on the CPU, not unattributed");
    char *text = report_text(), *json = report_json();
    ok(text && strstr(text, "tracing overhead inside tasks 5.0 us (2.6% of the work): the OMPT "
                            "tool's own time in its callbacks, measured by the tool"),
       "tool time: the text report shows it");
    ok(json && strstr(json, "\"tool_in_tasks_ns\": 5000") && strstr(json, "\"tool_ns\": 6000"),
       "tool time: the JSON report has both figures");
    ok(fabs(p->tool_in_tasks_pct - 100.0 * 5000 / 195000) < 1e-9,
       "tool time: 5 us of 195 us of work is its share, in the report value");
    ok(json && strstr(json, "\"tool_in_tasks_pct\": 2.56"),
       "tool time: the JSON report has the share the text shows");
    ok_eq_i64(p->tool_beyond_clock_ns, 0, "tool time: none told beyond the thread's clock");
    ok_eq_i64(p->tool_beyond_readings, 0, "tool time: in no reading's interval");
    ok(json && strstr(json, "\"tool_beyond_readings\": 0"),
       "tool time: the JSON report says in how many readings' intervals: none");
    free(text);
    free(json);
    done();
    fja_offcpu_free(&fit_o);

    /* Told beyond the thread's clock (a tool that timed itself wrong: its
     * ratio of ticks to ns once x5): the tool's CPU time between two
     * readings is at most the thread's; the rest is told apart */
    tool_script beyond = told;
    beyond.told = tool_beyond;
    tool_stream(&beyond);
    p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 97000, "tool time beyond the clock: task 1 as before");
    ok_eq_i64(p->trees[1].work_ns, 0, "tool time beyond the clock: task 2's piece all the tool's");
    ok_eq_i64(p->tool_beyond_clock_ns, 2000, "tool time beyond the clock: the 2 us beyond");
    ok_eq_i64(p->tool_ns, 104000, "tool time beyond the clock: not in the tool's time");
    ok_eq_i64(p->tool_in_tasks_ns, 103000, "tool time beyond the clock: nor in the tasks'");
    text = report_text();
    json = report_json();
    ok(text && strstr(text, "the OMPT tool told 2.0 us of its own time beyond its threads' CPU "
                            "clocks"),
       "tool time beyond the clock: the text report says so");
    ok(json && strstr(json, "\"tool_beyond_clock_ns\": 2000"),
       "tool time beyond the clock: so does the JSON report");
    ok_eq_i64(p->tool_beyond_readings, 1, "tool time beyond the clock: in one reading's interval");
    ok(json && strstr(json, "\"tool_beyond_readings\": 1") && text &&
           strstr(text, "between two readings, in 1 of their intervals"),
       "tool time beyond the clock: both reports say in how many intervals");
    free(text);
    free(json);
    done();
    fja_offcpu_free(&fit_o);

    told.told_any = false;
    tool_stream(&told);
    p = analyze();
    require(p->ntrees == 2);
    ok_eq_i64(p->trees[0].work_ns, 100000, "no tool time told: task 1's work is its clock's");
    ok_eq_i64(p->tool_in_tasks_ns, FJA_NULL_NS, "no tool time told: unknown, not 0");
    text = report_text();
    json = report_json();
    ok(text && strstr(text, "tracing overhead inside tasks n/a"), "no tool time told: n/a");
    ok(json && strstr(json, "\"tool_in_tasks_ns\": null"), "no tool time told: null in JSON");
    ok(json && strstr(json, "\"tool_in_tasks_pct\": null"), "no tool time told: no share, null");
    free(text);
    free(json);
    done();
    fja_offcpu_free(&fit_o);
    fit_sealed = false;
}

/* A pool where no task ran: no span, no parallelism, no bounds, no
 * milestones: null in JSON, never 0. */
static void test_empty_pool_nulls(void)
{
    start(2);
    stop(10, 2);
    analyze();
    ok(R.pools[0].span_state == FJA_SPAN_NO_TASK_RAN,
       "empty pool: its span is unknown, no task ran");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fja_run_info info = {.version = "test"};
    ok(f && fja_report_json(f, &R, &info) == 0, "empty pool: the JSON report is written");
    if (f) fclose(f);
    ok(buf && strstr(buf, "\"parallelism\": null") && strstr(buf, "\"span_ns\": null") &&
           strstr(buf, "\"bound\": null") && strstr(buf, "\"p50_ns\": null") &&
           !strstr(buf, "\"parallelism\": 0"),
       "empty pool: parallelism, span, bounds and milestones are null, not 0");
    free(buf);
    done();
}

/* The report is a value: written again after its model is freed (its
 * blocks refilled: meson runs the tests with MALLOC_PERTURB_, ASan's build
 * catches any read), the text and JSON reports are the same, so no writer
 * reads the model. A lock, a client's wait and an anomaly put names and
 * examples in the report. */
static void test_report_outlives_model(void)
{
    start(2);
    ev(0, FJA_EV_SUBMIT, -1, 1, 0);
    ev(0, FJA_EV_EXEC, 0, 1, 0);
    ev(20, FJA_EV_LOCK_WAIT, 0, 0, 7);
    ev(50, FJA_EV_LOCK_ACQUIRED, 0, 0, 7);
    ev(60, FJA_EV_EXECUTED, 1, 9, 0); /* no such task: an anomaly */
    ev(100, FJA_EV_EXECUTED, 0, 1, 0);
    ev(101, FJA_EV_RESULT, -1, 1, 0);
    fja_event init = {
        .ts = 101, .kind = FJA_EV_LOCK_INIT, .worker = -1, .arg = {.lock = 7}, .name = "db"};
    fja_tracker_feed(&T, &init);
    stop(110, 2);
    analyze();
    char *text = report_text(), *json = report_json();
    fja_tracker_free(&T);
    fja_model_free(&M);
    char *text2 = report_text(), *json2 = report_json();
    ok(text && text2 && strcmp(text, text2) == 0,
       "the text report is the same written after its model is freed");
    ok(json && json2 && strcmp(json, json2) == 0,
       "the JSON report is the same written after its model is freed");
    ok(text && strstr(text, "lock \"db\"") && strstr(text, "anomalies:"),
       "the report written then names the lock and the anomaly");
    free(text);
    free(text2);
    free(json);
    free(json2);
    done();
}

/* The report takes the task records (fja_report_take_tasks): the model
 * keeps none, and after it is freed (its blocks refilled: MALLOC_PERTURB_,
 * ASan) the report lists every task, finds a tree's root and a task, and
 * writes the same CSV. Root 1 (submitted at 0x1000) forks 11 at 0x2001 and
 * 12 at 0x3001; 11 forks 21. */
static void test_report_takes_tasks(void)
{
    start(1);
    ev_site(0, FJA_EV_SUBMIT, -1, 1, 0, 0x1000);
    ev(1, FJA_EV_EXEC, 0, 1, 0);
    ev_site(2, FJA_EV_FORK, 0, 11, 1, 0x2001);
    ev_site(3, FJA_EV_FORK, 0, 12, 1, 0x3001);
    ev(4, FJA_EV_EXEC, 0, 12, 0);
    ev(10, FJA_EV_EXECUTED, 0, 12, 0);
    ev(11, FJA_EV_EXEC, 0, 11, 0);
    ev_site(12, FJA_EV_FORK, 0, 21, 11, 0x2001);
    ev(13, FJA_EV_EXEC, 0, 21, 0);
    ev(20, FJA_EV_EXECUTED, 0, 21, 0);
    ev(30, FJA_EV_EXECUTED, 0, 11, 0);
    ev(40, FJA_EV_EXECUTED, 0, 1, 0);
    ev(41, FJA_EV_RESULT, -1, 1, 0);
    stop(50, 1);
    const fja_pool_report *p = analyze();
    const fja_pool *pool = fja_report_pool(&M, p);
    ok_eq_u64(pool->tasks.count, 4, "take: the model holds the 4 task records before");
    fja_task_iter before = fja_task_iter_begin(p);
    fja_task_row row;
    ok(!fja_task_iter_next(&before, &row), "take: before it, the report lists no task");
    require(fja_report_take_tasks(&R, &M) == 0);
    ok_eq_u64(pool->tasks.count, 0, "take: the model holds no task record after");
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    ok(f && fja_report_tasks_csv(f, &R) == 0, "take: the task CSV is written");
    if (f) fclose(f);
    fja_tracker_free(&T);
    fja_model_free(&M);
    uint64_t ids = 0, parents = 0, sites = 0;
    uint32_t rows = 0;
    fja_task_iter it = fja_task_iter_begin(p);
    while (fja_task_iter_next(&it, &row)) {
        rows++;
        ids += row.id;
        parents += row.parent;
        sites += row.site;
        if (row.id == 21)
            ok(row.root == 1 && row.parent == 11 && row.depth == 2 && row.self_ns == 7,
               "take: task 21's row after the model is freed: root 1, parent 11, depth 2, 7 ns");
    }
    ok_eq_u64(rows, 4, "take: the report lists the 4 tasks after the model is freed");
    ok_eq_u64(ids, 1 + 11 + 12 + 21, "take: their ids");
    ok_eq_u64(parents, 0 + 1 + 1 + 11, "take: their parents");
    ok_eq_u64(sites, 0x1000 + 0x2001 + 0x3001 + 0x2001, "take: their creation sites");
    ok(fja_report_has_root(&R, 1, false) && !fja_report_has_root(&R, 11, false) &&
           fja_report_has_root(&R, 11, true) && !fja_report_has_root(&R, 99, true),
       "take: root 1 is a tree's, 11 a task's only, 99 none");
    uint32_t rec = FJA_TASK_NONE;
    ok(fja_report_find_task(&R, 21, &rec) == p && fja_report_task(p, rec, &row) && row.id == 21,
       "take: task 21 is found by its id, and its row by its record");
    char *csv2 = NULL;
    f = open_memstream(&csv2, &len);
    if (f) {
        fja_report_tasks_csv(f, &R);
        fclose(f);
    }
    ok(csv && csv2 && strcmp(csv, csv2) == 0 && strstr(csv, ",1,21,11,2,"),
       "take: the CSV is the same written after the model is freed");
    free(csv);
    free(csv2);
    fja_analysis_free(&R);
    fja_model_init(&M); /* done() frees it again */
    fja_tracker_init(&T, &M);
    done();
}

/* The idle-gap classes come from one table (FJA_GAP_CLASSES): each has a
 * distinct JSON key of [a-z_] and words for the text, and both reports name
 * every class (off-CPU time recorded: none is left out as unknown). */
static void test_gap_class_names(void)
{
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        const fja_gap_info *g = &fja_gap_classes[c];
        bool word = g->key && *g->key && g->text && *g->text;
        for (const char *k = g->key; word && *k; k++)
            word = (*k >= 'a' && *k <= 'z') || *k == '_';
        for (int d = 0; word && d < c; d++)
            word = strcmp(fja_gap_classes[d].key, g->key) != 0;
        ok(word, "gap class %d: key \"%s\" is a distinct [a-z_] word, with text", c,
           g->key ? g->key : "(null)");
    }
    start_offcpu(2);
    stop(10, 2);
    analyze();
    char *text = report_text(), *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    fja_run_info info = {.version = "test"};
    ok(f && fja_report_json(f, &R, &info) == 0, "gap classes: the JSON report is written");
    if (f) fclose(f);
    require(text && json);
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        char key[64];
        snprintf(key, sizeof key, "\"%s\": {", fja_gap_classes[c].key);
        ok(strstr(json, key) && strstr(text, fja_gap_classes[c].text),
           "gap classes: the JSON has %s and the text says \"%s\"", key, fja_gap_classes[c].text);
    }
    free(text);
    free(json);
    done();
}

/* The cases: every "static void test_NAME(void)" of this file, found by
 * analyzer/core/meson.build (it reads this file) and passed in as
 * FJA_TEST_CASES = CASE(NAME) ...; each is its own meson test,
 * analyzer-core-NAME, that runs this program with NAME. A case meson did not
 * find is an unused static function: a build error, not a test left out.
 * Without an argument every case runs, in the order of the file. */
#define CASE(name) {#name, test_##name},
static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {FJA_TEST_CASES};

int main(int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (argc < 2 || !strcmp(argv[1], cases[i].name)) {
            cases[i].run();
            ran++;
        }
    if (!ran) bail_out("no case named '%s' (see the test_NAME functions)", argv[1]);
    return done_testing();
}
