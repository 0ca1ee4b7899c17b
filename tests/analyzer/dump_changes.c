/* fja-dump-changes TRACE...: every change the tracker tells its listeners
 * while it replays the traces, one line each, for golden comparisons
 * (tests/analyzer/test_changes.py, tests/data/NAME.changes): a change in
 * the replay shows as a diff of lines, the first of them where the replay
 * went another way, before any figure of the report moves.
 *
 * A line: the time (ns since the first change), kind, pool index, worker
 * index (- when none), the task's id in hex (- when none), then only the
 * fields that are set, as name=value (since: ns since the first change). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "find.h"
#include "fja.h"
#include "reader.h"

static const char *const kinds[] = {
    [FJA_CHANGE_STATE] = "state",
    [FJA_CHANGE_TASK_NEW] = "task_new",
    [FJA_CHANGE_TASK_BEGIN] = "task_begin",
    [FJA_CHANGE_TASK_END] = "task_end",
    [FJA_CHANGE_TASK_LOST] = "task_lost",
    [FJA_CHANGE_TASK_DONE] = "task_done",
    [FJA_CHANGE_QUEUE] = "queue",
    [FJA_CHANGE_STEAL] = "steal",
    [FJA_CHANGE_JOIN_BEGIN] = "join_begin",
    [FJA_CHANGE_JOIN_END] = "join_end",
    [FJA_CHANGE_LOCK_BEGIN] = "lock_begin",
    [FJA_CHANGE_LOCK_END] = "lock_end",
    [FJA_CHANGE_LOCK_NAME] = "lock_name",
    [FJA_CHANGE_PARK] = "park",
    [FJA_CHANGE_UNPARK] = "unpark",
    [FJA_CHANGE_WAKE] = "wake",
    [FJA_CHANGE_COMPLETING] = "completing",
    [FJA_CHANGE_RESULT] = "result",
    [FJA_CHANGE_SETTLED] = "settled",
    [FJA_CHANGE_POOL_END] = "pool_end",
    [FJA_CHANGE_TASK_SUSPEND] = "task_suspend",
    [FJA_CHANGE_TASK_RESUME] = "task_resume",
    [FJA_CHANGE_OFFCPU_OUT] = "offcpu_out",
    [FJA_CHANGE_OFFCPU_IN] = "offcpu_in",
    [FJA_CHANGE_OFFCPU_REPORTED] = "offcpu_reported",
    [FJA_CHANGE_UNFINISHED] = "unfinished",
    [FJA_CHANGE_WORKER_END] = "worker_end",
    [FJA_CHANGE_CLOCK_READ] = "clock_read",
    [FJA_CHANGE_OFFCPU_RECORDING] = "offcpu_recording",
    [FJA_CHANGE_CLIENT_OFFCPU] = "client_offcpu",
};

static const char *const states[] = {
    [FJA_WS_OFF] = "off",       [FJA_WS_RUN] = "run",   [FJA_WS_JOIN] = "join",
    [FJA_WS_SEARCH] = "search", [FJA_WS_PARK] = "park", [FJA_WS_LOCK] = "lock"};

static const char *kind_name(fja_change_kind k)
{
    return (size_t)k < sizeof kinds / sizeof *kinds && kinds[k] ? kinds[k] : "unknown";
}

static const char *state_name(fja_wstate s)
{
    return (size_t)s < sizeof states / sizeof *states && states[s] ? states[s] : "unknown";
}

/* name=value when value is set */
static void field(const char *name, uint64_t v)
{
    if (v) printf(" %s=%" PRIu64, name, v);
}

static void field_signed(const char *name, int64_t v)
{
    if (v) printf(" %s=%" PRId64, name, v);
}

/* the first change's time: the origin of the times printed */
static uint64_t origin;
static bool origin_set;

static int64_t rel(uint64_t ts)
{
    return (int64_t)(ts - origin);
}

static void dump(void *ctx, fja_model *m, const fja_change *c)
{
    (void)ctx;
    (void)m;
    if (!origin_set) {
        origin = c->ts;
        origin_set = true;
    }
    printf("%" PRId64 " %s %" PRIu32, rel(c->ts), kind_name(c->kind), c->pool_index);
    if (c->worker)
        printf(" w%" PRId32, c->worker->index);
    else
        printf(" -");
    if (c->pool && c->task != FJA_TASK_NONE)
        printf(" t%" PRIx64, fja_taskmap_get(&c->pool->tasks, c->task)->id);
    else
        printf(" -");
    if (c->kind == FJA_CHANGE_STATE) printf(" %s>%s", state_name(c->from), state_name(c->to));
    if (c->kind == FJA_CHANGE_UNFINISHED) printf(" %s", fja_ustate_name((fja_ustate)c->left));
    if (c->since) printf(" since=%" PRId64, rel(c->since));
    field_signed("delta", c->delta);
    if (c->kind == FJA_CHANGE_TOOL_TIME)
        field("beyond", c->beyond);
    else
        field_signed("depth", c->depth);
    field("parent", c->parent_id);
    field("ahead", c->ahead);
    if (c->other != -1 && (c->kind == FJA_CHANGE_STEAL || c->kind == FJA_CHANGE_TASK_BEGIN))
        printf(" other=%" PRId32, c->other);
    field("lock", c->lock);
    field("source", c->source);
    field("stolen", c->stolen);
    field("counted", c->counted);
    field("offcpu", c->offcpu);
    field("joined", c->joined);
    if (c->name) printf(" name=%s", c->name);
    putchar('\n');
}

static int feed(void *ctx, const fja_event *ev)
{
    return fja_tracker_feed(ctx, ev) ? 1 : 0;
}

static void discarded(void *ctx, uint64_t count, uint64_t ts, uint32_t source)
{
    fja_tracker *t = ctx;
    printf("%" PRId64 " discarded %" PRIu64 " source=%" PRIu32 "\n", origin_set ? rel(ts) : 0,
           count, source);
    fja_model_discarded(t->model, count, ts, source);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fja-dump-changes TRACE_DIR...\n");
        return 2;
    }
    static fja_model m;
    static fja_tracker t;
    fja_model_init(&m);
    fja_tracker_init(&t, &m);
    /* a second listener: the tracker then builds every change (with the
     * model alone it skips building the commonest ones) */
    if (fja_tracker_listen(&t, (fja_listener){.change = dump})) return 5;
    find_list dirs = {0};
    char err[4096] = "";
    for (int i = 1; i < argc; i++)
        if (find_ctf_dirs(argv[i], &dirs, err, sizeof err) != FIND_OK) {
            fprintf(stderr, "fja-dump-changes: %s\n", err);
            find_list_free(&dirs);
            fja_model_free(&m);
            return 3;
        }
    fja_reader_sink sink = {.event = feed, .discarded = discarded, .ctx = &t, .jobs = 1};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs.dirs, dirs.n, &sink, &stats, err, sizeof err);
    find_list_free(&dirs);
    if (st != READER_OK) {
        fprintf(stderr, "fja-dump-changes: %s\n", *err ? err : "the trace cannot be read");
        fja_model_free(&m);
        return 3;
    }
    fja_tracker_finish(&t);
    fja_tracker_free(&t);
    fja_model_free(&m);
    return 0;
}
