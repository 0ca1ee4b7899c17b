/* fja-dump-changes TRACE...: every change the tracker tells its listeners
 * while it replays the traces, one line each, for golden comparisons
 * (tests/analyzer/test_changes.py, tests/data/NAME.changes): a change in
 * the replay shows as a diff of lines, the first of them where the replay
 * went another way, before any figure of the report moves.
 *
 * A line: the time (ns since the first change that is not a pool's
 * fact), kind, pool index, worker index (- when none), the task's id in
 * hex (- when none), then only the fields that are set, as name=value
 * (since: ns since that change).
 *
 * --on-cpu: the on-CPU replay, as fjtrace-analyze makes it from a trace
 * with off-CPU records when it reads it twice, through the core's reading
 * policy (reading.h): a first reading collects the intervals (and the
 * clock readings they are fitted to) that a replay believed, the second
 * replays their boundaries among the events (OFFCPU_OUT, OFFCPU_IN).
 * Without it, the events alone (the same second reading, no interval). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "find.h"
#include "fja.h"
#include "reader.h"
#include "reading.h"

static const char *const kinds[FJA_CHANGE_KINDS] = {
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
    [FJA_CHANGE_POOL_SPAN] = "pool_span",
    [FJA_CHANGE_TRACE_END] = "trace_end",
    [FJA_CHANGE_TASK_SUSPEND] = "task_suspend",
    [FJA_CHANGE_TASK_RESUME] = "task_resume",
    [FJA_CHANGE_OFFCPU_OUT] = "offcpu_out",
    [FJA_CHANGE_OFFCPU_IN] = "offcpu_in",
    [FJA_CHANGE_OFFCPU_REPORTED] = "offcpu_reported",
    [FJA_CHANGE_UNFINISHED] = "unfinished",
    [FJA_CHANGE_WORKER_END] = "worker_end",
    [FJA_CHANGE_JOIN_DONE] = "join_done",
    [FJA_CHANGE_DEPENDENCE] = "dependence",
    [FJA_CHANGE_TOOL_TIME] = "tool_time",
    [FJA_CHANGE_CLOCK_READ] = "clock_read",
    [FJA_CHANGE_TOOL_TAIL] = "tool_tail",
    [FJA_CHANGE_OFFCPU_RECORDING] = "offcpu_recording",
    [FJA_CHANGE_CLIENT_OFFCPU] = "client_offcpu",
    [FJA_CHANGE_POOL_FACT] = "pool_fact",
    [FJA_CHANGE_ANOMALY] = "anomaly",
};

static const char *const states[] = {
    [FJA_WS_OFF] = "off",       [FJA_WS_RUN] = "run",   [FJA_WS_JOIN] = "join",
    [FJA_WS_SEARCH] = "search", [FJA_WS_PARK] = "park", [FJA_WS_LOCK] = "lock"};

static const char *const facts[] = {[FJA_FACT_BEGIN] = "begin",
                                    [FJA_FACT_RUNTIME] = "runtime",
                                    [FJA_FACT_END] = "end",
                                    [FJA_FACT_JOINS_TOLD] = "joins_told"};

static const char *fact_name(uint8_t f)
{
    return f < sizeof facts / sizeof *facts && facts[f] ? facts[f] : "unknown";
}

static const char *kind_name(fja_change_kind k)
{
    return (size_t)k < sizeof kinds / sizeof *kinds && kinds[k] ? kinds[k] : "unknown";
}

static const char *state_name(fja_wstate s)
{
    return (size_t)s < sizeof states / sizeof *states && states[s] ? states[s] : "unknown";
}

/* The rest of a line after its time, built before it is printed: a
 * pool's facts told before the origin is known wait for it. */
static char line[1024];
static size_t line_len;

static void put(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + line_len, sizeof line - line_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        line_len += (size_t)n < sizeof line - line_len ? (size_t)n : sizeof line - line_len - 1;
}

/* name=value when value is set */
static void field(const char *name, uint64_t v)
{
    if (v) put(" %s=%" PRIu64, name, v);
}

static void field_signed(const char *name, int64_t v)
{
    if (v) put(" %s=%" PRId64, name, v);
}

/* The origin of the times printed: the first change that is not a pool's
 * fact (a pool_begin comes before its workers' first events: the times
 * stay those of the dumps made before facts were told). */
static uint64_t origin;
static bool origin_set;

static int64_t rel(uint64_t ts)
{
    return (int64_t)(ts - origin);
}

/* facts told before the origin, with their times, in the order told */
#define PENDING_MAX 64
static struct {
    uint64_t ts;
    char *rest;
} pending[PENDING_MAX];
static unsigned npending;

static void flush_pending(void)
{
    for (unsigned i = 0; i < npending; i++) {
        printf("%" PRId64 "%s", rel(pending[i].ts), pending[i].rest);
        free(pending[i].rest);
    }
    npending = 0;
}

static void dump(void *ctx, fja_model *m, const fja_change *c)
{
    (void)ctx;
    bool fact = c->kind == FJA_CHANGE_POOL_FACT;
    /* an anomaly at an event before the first replayed one (an invalid
     * one's time may be anything) waits for the origin too */
    bool anomaly = c->kind == FJA_CHANGE_ANOMALY;
    bool wait = !origin_set && (fact || anomaly) && npending < PENDING_MAX;
    if (!origin_set && !wait) {
        origin = c->ts;
        origin_set = true;
    }
    line_len = 0;
    /* a change of no pool (FJA_NO_POOL) as pool 0, as it always was */
    put(" %s %" PRIu32, kind_name(c->kind), c->pool_index == FJA_NO_POOL ? 0 : c->pool_index);
    if (c->worker != FJA_NO_WORKER)
        put(" w%" PRId32, c->worker);
    else
        put(" -");
    if (c->pool_index != FJA_NO_POOL && c->task != FJA_TASK_NONE)
        put(" t%" PRIx64, fja_taskmap_get(&m->pools[c->pool_index].tasks, c->task)->id);
    else
        put(" -");
    if (c->kind == FJA_CHANGE_STATE) put(" %s>%s", state_name(c->from), state_name(c->to));
    if (c->kind == FJA_CHANGE_UNFINISHED) put(" %s", fja_ustate_name((fja_ustate)c->left));
    if (fact) put(" %s", fact_name(c->fact));
    if (anomaly) put(" %s", fja_anomaly_kind_name((fja_anomaly_kind)c->anomaly));
    if (c->since) put(" since=%" PRId64, rel(c->since));
    field_signed("delta", c->delta);
    if (c->kind == FJA_CHANGE_TOOL_TIME)
        field("beyond", c->beyond);
    else if (fact)
        field("workers", c->workers);
    else if (c->kind == FJA_CHANGE_TRACE_END)
        field("pools", c->pools);
    else if (c->kind != FJA_CHANGE_TASK_NEW) /* a fork's size hint: the --tasks list has it */
        field_signed("depth", c->depth);
    field("parent", c->parent_id);
    if (fact && c->version)
        put(" version=%s", c->version);
    else if (c->kind == FJA_CHANGE_TASK_NEW)
        field("site", c->site);
    else if (c->kind == FJA_CHANGE_TRACE_END)
        field("recording", c->recording);
    else if (!fact && !anomaly)
        field("ahead", c->ahead);
    if (c->other != -1 && (c->kind == FJA_CHANGE_STEAL || c->kind == FJA_CHANGE_TASK_BEGIN))
        put(" other=%" PRId32, c->other);
    field("lock", c->lock);
    field("source", c->source);
    field("stolen", c->stolen);
    field("counted", c->counted);
    field("offcpu", c->offcpu);
    field("joined", c->joined);
    field("switch_follows", c->switch_follows);
    if (c->name) put(" name=%s", c->name);
    put("\n");
    char *rest = wait ? malloc(line_len + 1) : NULL;
    if (rest) {
        memcpy(rest, line, line_len + 1);
        pending[npending].ts = c->ts;
        pending[npending++].rest = rest;
        return;
    }
    if (!origin_set) { /* no memory to wait: its own origin */
        origin = c->ts;
        origin_set = true;
    }
    flush_pending();
    printf("%" PRId64 "%s", rel(c->ts), line);
}

/* The intervals replayed among the events (--on-cpu; none without it). */
static fja_offcpu intervals;

/* ctx: the dumped reading (fja_reading) */
static void discarded(void *ctx, uint64_t count, uint64_t ts, uint32_t source)
{
    printf("%" PRId64 " discarded %" PRIu64 " source=%" PRIu32 "\n", origin_set ? rel(ts) : 0,
           count, source);
    fja_reading_discarded(ctx, count, ts, source);
}

/* --on-cpu's first reading: the intervals a replay of its own believed
 * (fja_reading_event, as the analyzer's first reading collects them). 0,
 * or 3 when the trace cannot be read. */
static int read_intervals(const find_list *dirs)
{
    static fja_model wm;
    static fja_tracker wt;
    fja_model_init(&wm);
    fja_tracker_init(&wt, &wm);
    fja_reading rd = {.tracker = &wt, .offcpu = &intervals};
    char err[4096] = "";
    fja_reader_sink sink = {
        .event = fja_reading_event, .discarded = fja_reading_discarded, .ctx = &rd, .jobs = 1};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs->dirs, dirs->n, &sink, &stats, err, sizeof err);
    fja_tracker_free(&wt);
    fja_model_free(&wm);
    if (st != READER_OK) {
        fprintf(stderr, "fja-dump-changes: %s\n", *err ? err : "the trace cannot be read");
        return 3;
    }
    return 0;
}

/* Every kind has its name: a kind added to change.h without one fails here
 * (test_changes.py) rather than dumping as "unknown". */
static bool names_complete(void)
{
    for (int k = 0; k < FJA_CHANGE_KINDS; k++)
        if (!kinds[k]) {
            fprintf(stderr, "fja-dump-changes: change kind %d has no name\n", k);
            return false;
        }
    return true;
}

int main(int argc, char **argv)
{
    if (!names_complete()) return 5;
    bool oncpu = argc > 1 && strcmp(argv[1], "--on-cpu") == 0;
    if (oncpu) {
        argc--;
        argv++;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: fja-dump-changes [--on-cpu] TRACE_DIR...\n");
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
    fja_offcpu_init(&intervals);
    if (oncpu && read_intervals(&dirs)) {
        fja_offcpu_free(&intervals);
        find_list_free(&dirs);
        fja_model_free(&m);
        return 3;
    }
    fja_offcpu_seal(&intervals);
    fja_reading rd = {.tracker = &t, .offcpu = &intervals};
    fja_reader_sink sink = {
        .event = fja_reading_event_replayed, .discarded = discarded, .ctx = &rd, .jobs = 1};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs.dirs, dirs.n, &sink, &stats, err, sizeof err);
    find_list_free(&dirs);
    /* the intervals after the last event */
    if (st == READER_OK) fja_offcpu_replay(&intervals, UINT64_MAX, fja_reading_feed, &t);
    fja_offcpu_free(&intervals);
    if (st != READER_OK) {
        fprintf(stderr, "fja-dump-changes: %s\n", *err ? err : "the trace cannot be read");
        fja_model_free(&m);
        return 3;
    }
    fja_tracker_finish(&t);
    if (npending) { /* facts alone: they are their own origin */
        origin = pending[0].ts;
        flush_pending();
    }
    fja_tracker_free(&t);
    fja_model_free(&m);
    return 0;
}
