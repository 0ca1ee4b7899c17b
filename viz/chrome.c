/* The Chrome trace (Trace Event Format JSON, --chrome-trace): one of the
 * exporter's formats (export.c), written through the report's JSON emitter
 * (json.h) as the slices come. */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "viz_int.h"

typedef struct {
    const fjv_options *o;
    const uint64_t *t0; /* the exporter's origin (its first event) */
    FILE *f;            /* out.f while the trace is written */
    fja_outfile out;
    fja_json j;
    uint64_t flow_id;
    uint64_t events; /* written: the size warning looks every 2^16 */
    bool warned;
} chrome;

/* Browsers (and the Perfetto UI's JSON import) give up on JSON traces of a
 * few GB: said once, while there is time to stop and choose otherwise. */
#define CHROME_WARN_BYTES (1ull << 30)

/* Opens one event of traceEvents (one line: json.h's flat depth). */
static fja_json *chrome_event(chrome *c, const char *ph)
{
    fja_json *j = &c->j;
    fja_json_open(j, NULL, '{');
    fja_json_str(j, "ph", ph);
    if (++c->events % 65536 || c->warned) return j;
    off_t at = ftello(c->f);
    if (at < 0 || (uint64_t)at < CHROME_WARN_BYTES) return j;
    c->warned = true;
    fprintf(stderr,
            "fjtrace-analyze: warning: the Chrome trace %s passed 1 GiB (%llu events so far, "
            "~%llu bytes each): too large for a browser; --perfetto FILE.pftrace writes the "
            "compact protobuf trace, --window FROM:TO keeps a time range\n",
            c->o->chrome_trace, (unsigned long long)c->events,
            (unsigned long long)((uint64_t)at / c->events));
    return j;
}

/* pid and tid of an event on lane tid (0: the pool itself) of pool p */
static void chrome_ids(fja_json *j, const fjv_xpool *p, int64_t tid)
{
    fja_json_u64(j, "pid", (uint64_t)p->source * 1000 + p->id);
    if (tid >= 0) fja_json_i64(j, "tid", tid);
}

static void chrome_ts(fja_json *j, const chrome *c, const char *k, uint64_t ts)
{
    uint64_t t0 = *c->t0;
    fja_json_fixed(j, k, ts > t0 ? (double)(ts - t0) / 1e3 : 0, 3);
}

/* A metadata event: name, and args {key: value} */
static void chrome_meta(chrome *c, const fjv_xpool *p, int64_t tid, const char *name,
                        const char *key, const char *str, int64_t num)
{
    fja_json *j = chrome_event(c, "M");
    fja_json_str(j, "name", name);
    chrome_ids(j, p, tid);
    fja_json_open(j, "args", '{');
    if (str)
        fja_json_str(j, key, str);
    else
        fja_json_i64(j, key, num);
    fja_json_close(j, '}');
    fja_json_close(j, '}');
}

static void chrome_lane(void *ctx, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    chrome *c = ctx;
    if (!p->named) {
        p->named = true;
        char name[64];
        snprintf(name, sizeof name, "fjtrace pool %u (trace %u)", p->id, p->source);
        chrome_meta(c, p, 0, "process_name", "name", name, 0);
    }
    if (l->named) return;
    l->named = true;
    char name[48];
    if (worker < 0)
        snprintf(name, sizeof name, "client threads");
    else
        snprintf(name, sizeof name, "worker %d", worker);
    chrome_meta(c, p, worker + 1, "thread_name", "name", name, 0);
    chrome_meta(c, p, worker + 1, "thread_sort_index", "sort_index", NULL, worker + 1);
}

/* A flow arrow fork -> exec: both ends are written together, at exec, so
 * every flow has two ends even when the trace stops in between. */
static void chrome_flow(chrome *c, const fjv_xpool *p, int32_t from, uint64_t from_ts, int32_t to,
                        uint64_t to_ts, bool stolen)
{
    uint64_t id = ++c->flow_id;
    const char *name = stolen ? "steal" : "fork";
    for (int end = 0; end < 2; end++) {
        fja_json *j = chrome_event(c, end ? "f" : "s");
        if (end) fja_json_str(j, "bp", "e");
        fja_json_u64(j, "id", id);
        fja_json_str(j, "name", name);
        fja_json_str(j, "cat", "flow");
        chrome_ids(j, p, end ? to + 1 : from + 1);
        chrome_ts(j, c, "ts", end ? to_ts : from_ts);
        fja_json_close(j, '}');
    }
}

static void chrome_begin(void *ctx, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                         const fjv_xslice *s)
{
    (void)l;
    chrome *c = ctx;
    fja_json *j = chrome_event(c, "B");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_str(j, "name", s->name); /* file and function names may hold anything */
    if (s->task || s->lock >= 0) {
        fja_json_str(j, "cat", s->task ? "task" : "lock");
        fja_json_open(j, "args", '{');
        if (s->task) {
            fja_json_strf(j, "task", "0x%llx", (unsigned long long)s->task->id);
            fja_json_i64(j, "tree", s->task->tree == FJA_TASK_NONE ? -1 : (int64_t)s->task->tree);
        } else {
            fja_json_i64(j, "lock", s->lock);
        }
        fja_json_close(j, '}');
    }
    fja_json_close(j, '}');
    if (s->from >= 0) chrome_flow(c, p, s->from, s->from_ts, worker, ts, s->stolen);
}

static void chrome_end(void *ctx, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    (void)l;
    chrome *c = ctx;
    fja_json *j = chrome_event(c, "E");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_close(j, '}');
}

static void chrome_counter(void *ctx, fjv_xpool *p, fjv_xlane *l, const char *name, int32_t worker,
                           uint64_t v, uint64_t ts)
{
    (void)l;
    chrome *c = ctx;
    fja_json *j = chrome_event(c, "C");
    if (worker >= 0)
        fja_json_strf(j, "name", "%s w%d", name, worker);
    else
        fja_json_str(j, "name", name);
    chrome_ids(j, p, -1);
    chrome_ts(j, c, "ts", ts);
    fja_json_open(j, "args", '{');
    fja_json_u64(j, worker >= 0 ? "depth" : "count", v);
    fja_json_close(j, '}');
    fja_json_close(j, '}');
}

/* Worker K's stays off the CPU are on a thread of their own beside its
 * lane, tid CHROME_OFFCPU_TID + K (lanes are tid K + 1; no pool has a
 * million workers), sorted with the lane: the slices of a lane nest, and
 * a stay off the CPU cuts across them (a task's body, a join wait). */
#define CHROME_OFFCPU_TID 1000000

static void chrome_offcpu(void *ctx, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                          const char *why)
{
    chrome *c = ctx;
    if (l->off_open || worker < 0) return; /* a second departure while off: the first holds */
    int64_t tid = CHROME_OFFCPU_TID + (int64_t)worker;
    if (!l->off_named) {
        l->off_named = true;
        char name[48];
        snprintf(name, sizeof name, "worker %d off-CPU", worker);
        chrome_meta(c, p, tid, "thread_name", "name", name, 0);
        chrome_meta(c, p, tid, "thread_sort_index", "sort_index", NULL, worker + 1);
    }
    l->off_open = true;
    fja_json *j = chrome_event(c, "B");
    chrome_ids(j, p, tid);
    chrome_ts(j, c, "ts", ts);
    fja_json_str(j, "name", why);
    fja_json_str(j, "cat", "offcpu");
    fja_json_close(j, '}');
}

static void chrome_oncpu(void *ctx, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    chrome *c = ctx;
    if (!l->off_open) return;
    l->off_open = false;
    fja_json *j = chrome_event(c, "E");
    chrome_ids(j, p, CHROME_OFFCPU_TID + (int64_t)worker);
    chrome_ts(j, c, "ts", ts);
    fja_json_close(j, '}');
}

static int chrome_close(void *ctx)
{
    chrome *c = ctx;
    char err[4200];
    fja_json_close(&c->j, ']');
    fja_json_finish(&c->j);
    int rc = fja_outfile_commit(&c->out, err, sizeof err);
    if (rc) fprintf(stderr, "fjtrace-analyze: %s\n", err);
    free(c);
    return rc ? -1 : 0;
}

static void chrome_abort(void *ctx)
{
    chrome *c = ctx;
    fja_outfile_abort(&c->out);
    free(c);
}

static void *chrome_open(const fjv_options *o, const uint64_t *t0, char *err, size_t errlen)
{
    chrome *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *c = (chrome){.o = o, .t0 = t0};
    if (!(c->f = fja_outfile_open(&c->out, o->chrome_trace, err, errlen))) {
        free(c);
        return NULL;
    }
    setvbuf(c->f, NULL, _IOFBF, 1 << 20);
    /* pretty at the top, an event per line */
    fja_json_start(&c->j, c->f, 3);
    fja_json_str(&c->j, "displayTimeUnit", "ns");
    fja_json_open(&c->j, "traceEvents", '[');
    return c;
}

const fjv_format fjv_chrome_format = {
    .path = offsetof(fjv_options, chrome_trace),
    .open = chrome_open,
    .lane = chrome_lane,
    .begin = chrome_begin,
    .end = chrome_end,
    .counter = chrome_counter,
    .offcpu = chrome_offcpu,
    .oncpu = chrome_oncpu,
    .close = chrome_close,
    .abort = chrome_abort,
};
