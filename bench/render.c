/* bench-render: how long the default pictures take for big traces.
 * Synthesises the events of one decomposition tree of N tasks (fib-like
 * binary forks on worker 0, every 50th fork stolen by worker 1) through
 * the real model, then times the default subtree diagram (PNG, --max-nodes
 * 400); and streams 20M events through the tracker (model and collector
 * listening) and times the timeline PNG.   bench-render [OUTDIR]  (default
 * /tmp/fjtrace-bench-render) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fja.h"
#include "viz.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
    fja_tracker *t; /* the model, and the collector when it listens */
    uint64_t ts, next_id, events;
} gen;

static void emit(gen *g, fja_kind k, int32_t w, uint64_t task, uint64_t arg, uint64_t size)
{
    fja_event ev = {
        .ts = g->ts += 40, .task = task, .size_hint = size, .pool = 1, .worker = w, .kind = k};
    fja_event_set_arg(&ev, arg);
    fja_tracker_feed(g->t, &ev);
    g->events++;
}

/* Task id runs a subtree of n tasks on worker 0: fork the right part
 * (stolen now and then, run by worker 1), run the left part inline. */
static void task_run(gen *g, uint64_t id, uint64_t n, int32_t w)
{
    emit(g, FJA_EV_EXEC, w, id, 0, 0);
    uint64_t rest = n - 1;
    while (rest) {
        uint64_t right = rest / 2, left = rest - right;
        if (!right) { /* one task left: a leaf child */
            right = left;
            left = 0;
        }
        uint64_t child = g->next_id++;
        emit(g, FJA_EV_FORK, w, child, id, right);
        bool stolen = child % 50 == 0 && w == 0;
        if (stolen) emit(g, FJA_EV_STEAL, 1, child, 0, 0);
        task_run(g, child, right, stolen ? 1 : w);
        rest = left;
    }
    emit(g, FJA_EV_EXECUTED, w, id, 0, 0);
}

static void tree(gen *g, uint64_t n)
{
    emit(g, FJA_EV_POOL_BEGIN, -1, 0, 2, 0);
    emit(g, FJA_EV_WORKER_BEGIN, 0, 0, 0, 0);
    emit(g, FJA_EV_WORKER_BEGIN, 1, 0, 0, 0);
    uint64_t root = g->next_id++;
    emit(g, FJA_EV_SUBMIT, -1, root, 0, 0);
    task_run(g, root, n, 0);
    emit(g, FJA_EV_RESULT, -1, root, 0, 0);
    emit(g, FJA_EV_WORKER_END, 0, 0, 0, 0);
    emit(g, FJA_EV_WORKER_END, 1, 0, 0, 0);
    emit(g, FJA_EV_POOL_END, -1, 0, 0, 0);
}

static void bench_tree(const char *dir, uint64_t n)
{
    fja_model m;
    fja_model_init(&m);
    fja_tracker t;
    fja_tracker_init(&t, &m);
    gen g = {.t = &t, .next_id = 1};
    tree(&g, n);
    fja_tracker_finish(&t);
    fja_report r;
    fja_filter f = {0};
    if (fja_analysis_run(&m, &f, &r) || fja_report_take_tasks(&r, &m)) {
        fprintf(stderr, "bench-render: out of memory\n");
        exit(1);
    }
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/tree-%llu", dir, (unsigned long long)n);
    fjv_options o = {.subtrees_dir = sub, .formats = FJV_PNG};
    double t0 = now();
    int rc = fjv_render(&o, NULL, &r, stderr);
    if (!r.npools || !r.pools[0].ntrees) rc = -1;
    double t1 = now();
    printf("| subtree diagram, tree of %llu tasks (PNG, default --max-nodes) | %.2f s |%s\n",
           (unsigned long long)n, t1 - t0, rc ? " (failed)" : "");
    fja_analysis_free(&r);
    fja_model_free(&m);
}

static void bench_timeline(const char *dir, uint64_t events)
{
    fja_model m;
    fja_model_init(&m);
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/timeline-20M.png", dir);
    fjv_options o = {.timeline = path};
    fjv_collector *c = fjv_collector_new(&o, err, sizeof err);
    fja_tracker t;
    fja_tracker_init(&t, &m);
    fja_tracker_listen(&t, fjv_collector_listener(c));
    gen g = {.t = &t, .next_id = 1};
    double t0 = now();
    while (g.events < events)
        tree(&g, 100000);
    double t1 = now();
    fja_tracker_finish(&t);
    fjv_collect_finish(c);
    fja_report r = {.trace = {.events = m.events, .duration_ns = m.last_ts - m.first_ts},
                    .npools = 1};
    double t2 = now();
    int rc = fjv_render(&o, c, &r, stderr);
    double t3 = now();
    printf("| timeline PNG of %llu events: collecting (streamed, not a render cost) | %.2f s |\n",
           (unsigned long long)g.events, t1 - t0);
    printf("| timeline PNG of %llu events: drawing | %.2f s |%s\n", (unsigned long long)g.events,
           t3 - t2, rc ? " (failed)" : "");
    fjv_collector_free(c);
    fja_model_free(&m);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp/fjtrace-bench-render";
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd)) return 1;
    printf("| picture | time |\n|---|---|\n");
    bench_tree(dir, 1000);
    bench_tree(dir, 100000);
    bench_tree(dir, 1000000);
    bench_timeline(dir, 20000000);
    return 0;
}
