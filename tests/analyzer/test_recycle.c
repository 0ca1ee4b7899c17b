/* Recycled task records (recycle.h) change nothing but memory: one
 * hand-built stream (a fork-join tree run by two workers with a steal and
 * a waited join, a tree of counted completers, a tree cut short by the end
 * of the trace) is analysed with every record kept and with records
 * recycled, and both JSON reports must be the same bytes, while the
 * recycling model held a few records where the other held every task. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "analysis.h"
#include "model.h"
#include "report.h"
#include "tracker.h"

typedef struct {
    fja_event e;
    uint32_t seq; /* the order it was made in: ties keep it */
} item;

static item *items;
static uint32_t nitems, cap_items;

static void add(uint64_t ts, fja_kind k, int32_t worker, uint64_t task, uint64_t arg)
{
    if (nitems == cap_items) {
        cap_items = cap_items ? cap_items * 2 : 1024;
        items = realloc(items, cap_items * sizeof *items);
        if (!items) bail_out("out of memory");
    }
    fja_event e = {.ts = ts, .kind = k, .worker = worker, .task = task, .pool = 1};
    fja_event_set_arg(&e, arg);
    if (k == FJA_EV_FORK) e.size_hint = arg & 0xff;
    items[nitems] = (item){.e = e, .seq = nitems};
    nitems++;
}

static uint64_t next_seq[2];

static uint64_t new_id(int32_t w)
{
    return ((uint64_t)(w + 1) << 40) | ++next_seq[w];
}

/* Naive fib(n) as task id on worker w, whose clock is *ts: two children
 * forked, the second popped and run first, then the first. */
static void fib(int32_t w, uint64_t *ts, uint64_t id, int n)
{
    add(*ts, FJA_EV_EXEC, w, id, 0);
    *ts += 3 + (uint64_t)n % 4;
    if (n >= 2) {
        uint64_t a = new_id(w), b = new_id(w);
        add((*ts)++, FJA_EV_FORK, w, a, id);
        add((*ts)++, FJA_EV_FORK, w, b, id);
        fib(w, ts, b, n - 2);
        fib(w, ts, a, n - 1);
        *ts += 2;
    }
    add((*ts)++, FJA_EV_EXECUTED, w, id, 0);
}

/* Root 1 (fib(n)): worker 1 steals its first child and runs it while
 * worker 0 runs the second, then worker 0 waits for the stolen one. */
static uint64_t fork_join_tree(int n, uint64_t t0)
{
    uint64_t t = t0, t1;
    add(t++, FJA_EV_SUBMIT, -1, 1, 0);
    add(t++, FJA_EV_EXEC, 0, 1, 0);
    uint64_t a = new_id(0), b = new_id(0);
    add(t++, FJA_EV_FORK, 0, a, 1);
    add(t++, FJA_EV_FORK, 0, b, 1);
    t1 = t + 1;
    add(t1++, FJA_EV_STEAL, 1, a, 0);
    fib(1, &t1, a, n - 1);
    fib(0, &t, b, n - 2);
    if (t < t1) {
        add(t, FJA_EV_JOIN, 0, a, 0);
        t = t1 + 1;
        add(t++, FJA_EV_JOINED, 0, a, 0);
    }
    add(t++, FJA_EV_EXECUTED, 0, 1, 0);
    add(t++, FJA_EV_RESULT, -1, 1, 0);
    return t;
}

/* Root 2, a counted completer with two completer children: its body ends
 * first, the last child to finish completes it (docs/events.md). */
static uint64_t completer_tree(uint64_t t)
{
    add(t++, FJA_EV_SUBMIT, -1, 2, 0);
    add(t++, FJA_EV_EXEC, 0, 2, 0);
    add(t++, FJA_EV_FORK, 0, 21, 2);
    add(t++, FJA_EV_FORK, 0, 22, 2);
    add(t++, FJA_EV_EXECUTED, 0, 2, 0);
    const uint64_t kids[2] = {22, 21};
    for (int i = 0; i < 2; i++) {
        uint64_t k = kids[i];
        add(t++, FJA_EV_EXEC, 0, k, 0);
        add(t++, FJA_EV_COMPLETING, 0, k, 0);
        add(t++, FJA_EV_COMPLETED, 0, k, 0);
        if (i == 1) {
            add(t++, FJA_EV_COMPLETING, 0, 2, 0);
            add(t++, FJA_EV_COMPLETED, 0, 2, 0);
        }
        add(t++, FJA_EV_EXECUTED, 0, k, 0);
    }
    add(t++, FJA_EV_RESULT, -1, 2, 0);
    return t;
}

/* Root 3: cut short by the end of the trace, tasks left at every stage
 * (queued, running, under a task it runs inline). */
static uint64_t cut_tree(uint64_t t)
{
    add(t++, FJA_EV_SUBMIT, -1, 3, 0);
    add(t++, FJA_EV_EXEC, 1, 3, 0);
    add(t++, FJA_EV_FORK, 1, 31, 3);
    add(t++, FJA_EV_FORK, 1, 32, 3);
    add(t++, FJA_EV_EXEC, 1, 32, 0);
    add(t++, FJA_EV_FORK, 1, 321, 32);
    add(t++, FJA_EV_EXEC, 1, 321, 0);
    add(t++, FJA_EV_EXECUTED, 1, 321, 0);
    add(t++, FJA_EV_FORK, 1, 322, 32);
    return t;
}

static int by_time(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->e.ts != y->e.ts) return x->e.ts < y->e.ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void stream_make(int n)
{
    add(0, FJA_EV_POOL_BEGIN, -1, 0, 2);
    add(0, FJA_EV_WORKER_BEGIN, 0, 0, 0);
    add(0, FJA_EV_WORKER_BEGIN, 1, 0, 0);
    uint64_t t = fork_join_tree(n, 10);
    t = completer_tree(t + 5);
    cut_tree(t + 5);
    qsort(items, nitems, sizeof *items, by_time);
}

/* The JSON report of the stream, and the most records the model held. */
static char *report_of(bool recycle, size_t *len, uint32_t *records, uint64_t *tasks)
{
    fja_model m;
    fja_model_init(&m);
    if (recycle) fja_model_recycle(&m);
    fja_tracker t;
    fja_tracker_init(&t, &m);
    for (uint32_t i = 0; i < nitems; i++)
        if (fja_tracker_feed(&t, &items[i].e)) bail_out("fja_tracker_feed ran out of memory");
    fja_tracker_finish(&t);
    fja_tracker_free(&t);
    *records = m.pools[0].tasks.count;
    fja_report r;
    fja_filter all = {0};
    if (fja_analysis_run(&m, &all, &r)) bail_out("fja_analysis_run failed");
    *tasks = r.pools[0].tasks;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    const char *paths[] = {"synthetic"};
    fja_run_info info = {.paths = paths, .npaths = 1, .version = "test"};
    if (!f || fja_report_json(f, &r, &info) || fclose(f)) bail_out("the report was not written");
    /* The memory held is the one figure meant to differ: the run section
     * ends with it. */
    char *mb = strstr(buf, "\"model_bytes\"");
    if (!mb) bail_out("the report has no model_bytes");
    *len = (size_t)(mb - buf);
    fja_analysis_free(&r);
    fja_model_free(&m);
    return buf;
}

int main(void)
{
    plan_tests(7);
    const int n = 18; /* fib(18) below the root's two children */
    stream_make(n);
    size_t klen, rlen;
    uint32_t krec, rrec;
    uint64_t ktasks, rtasks;
    char *kept = report_of(false, &klen, &krec, &ktasks);
    char *recycled = report_of(true, &rlen, &rrec, &rtasks);
    bool same = klen == rlen && memcmp(kept, recycled, klen) == 0;
    ok(same,
       "the JSON report is the same with records kept and recycled (%zu and %zu bytes before "
       "model_bytes)",
       klen, rlen);
    if (!same) {
        size_t i = 0;
        while (i < klen && i < rlen && kept[i] == recycled[i])
            i++;
        diag("first difference at byte %zu: kept '%.60s' recycled '%.60s'", i, kept + i,
             recycled + i);
    }
    ok(strstr(kept, "\"state\": \"queued\"") && strstr(kept, "\"state\": \"running\""),
       "the report lists the cut tree's unfinished tasks");
    ok_eq_u64(ktasks, rtasks, "both count the same tasks");
    ok(ktasks > 4000, "the stream made %llu tasks", (unsigned long long)ktasks);
    ok_eq_u64(krec, ktasks, "kept: one record per task");
    ok(rrec <= 64, "recycled: at most 64 records held at once (%u)", rrec);
    ok(rrec >= 2 * (uint32_t)n, "recycled: yet records for every task under way (%u)", rrec);
    free(kept);
    free(recycled);
    free(items);
    return exit_status();
}
