/* The Chrome and Perfetto traces (--chrome-trace, --perfetto): a listener
 * of the tracker's changes of their own, next to the model and the
 * pictures' collector (collect.c). Each lane's slices (task bodies, join
 * and lock waits, parks) nest as the changes open and close them; both
 * formats are written from the same slices as they come, the Chrome trace
 * through the report's JSON emitter (json.h), the Perfetto trace by
 * perfetto.c. Memory is constant in the trace length. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "perfetto.h"
#include "viz_int.h"

struct fjv_exporter {
    const fjv_options *o; /* the files, the window, site names */
    fjv_xpool *pools;     /* index = the model's pool index */
    uint32_t npools;
    uint64_t t0; /* the trace's first event: origin of the Chrome trace and --window */
    bool started;
    FILE *chrome; /* chrome_out.f while the Chrome trace is written */
    fja_outfile chrome_out;
    fja_json cj; /* its JSON, through the report's emitter (json.h) */
    uint64_t flow_id;
    uint64_t chrome_events; /* written: the size warning looks every 2^16 */
    bool chrome_warned;
    struct fjv_pf *pf; /* the Perfetto protobuf trace while it is written */
};

/* The exporter's pool for the model's pool `index`, from ts on. */
static fjv_xpool *pool_get(fjv_exporter *c, const fja_pool *mp, uint32_t index, uint64_t ts)
{
    if (index >= c->npools) {
        fjv_xpool *np = realloc(c->pools, (index + 1) * sizeof *np);
        if (!np) return NULL;
        memset(np + c->npools, 0, (index + 1 - c->npools) * sizeof *np);
        c->pools = np;
        c->npools = index + 1;
    }
    fjv_xpool *p = &c->pools[index];
    if (!p->started)
        *p = (fjv_xpool){.source = mp->source, .id = mp->id, .t0 = ts, .started = true};
    return p;
}

static fjv_xlane *lane_get(fjv_xpool *p, int32_t worker)
{
    if (worker > 32767) return NULL;
    uint32_t i = worker < 0 ? 0 : (uint32_t)worker + 1;
    if (i >= p->nlanes) {
        fjv_xlane *nl = realloc(p->lanes, (i + 1) * sizeof *nl);
        if (!nl) return NULL;
        memset(nl + p->nlanes, 0, (i + 1 - p->nlanes) * sizeof *nl);
        p->lanes = nl;
        p->nlanes = i + 1;
    }
    return &p->lanes[i];
}

/* ------------------------------------------------------------ Chrome trace */

/* Browsers (and the Perfetto UI's JSON import) give up on JSON traces of a
 * few GB: said once, while there is time to stop and choose otherwise. */
#define CHROME_WARN_BYTES (1ull << 30)

/* Opens one event of traceEvents (one line: json.h's flat depth). */
static fja_json *chrome_event(fjv_exporter *c, const char *ph)
{
    fja_json *j = &c->cj;
    fja_json_open(j, NULL, '{');
    fja_json_str(j, "ph", ph);
    if (++c->chrome_events % 65536 || c->chrome_warned) return j;
    off_t at = ftello(c->chrome);
    if (at < 0 || (uint64_t)at < CHROME_WARN_BYTES) return j;
    c->chrome_warned = true;
    fprintf(stderr,
            "fjtrace-analyze: warning: the Chrome trace %s passed 1 GiB (%llu events so far, "
            "~%llu bytes each): too large for a browser; --perfetto FILE.pftrace writes the "
            "compact protobuf trace, --window FROM:TO keeps a time range\n",
            c->o->chrome_trace, (unsigned long long)c->chrome_events,
            (unsigned long long)((uint64_t)at / c->chrome_events));
    return j;
}

/* pid and tid of an event on lane tid (0: the pool itself) of pool p */
static void chrome_ids(fja_json *j, const fjv_xpool *p, int64_t tid)
{
    fja_json_u64(j, "pid", (uint64_t)p->source * 1000 + p->id);
    if (tid >= 0) fja_json_i64(j, "tid", tid);
}

static void chrome_ts(fja_json *j, const fjv_exporter *c, const char *k, uint64_t ts)
{
    fja_json_fixed(j, k, ts > c->t0 ? (double)(ts - c->t0) / 1e3 : 0, 3);
}

/* A metadata event: name, and args {key: value} */
static void chrome_meta(fjv_exporter *c, const fjv_xpool *p, int64_t tid, const char *name,
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

static void chrome_names(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    if (c->pf) fjv_pf_lane(c->pf, p, l, worker);
    if (!c->chrome) return;
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

/* The export window (--window): outside it the traces get no new slices,
 * counters or flows. */
static bool in_window(const fjv_exporter *c, uint64_t ts)
{
    const fjv_options *o = c->o;
    return !o->window_set ||
           (ts - c->t0 >= o->window_from && ts - c->t0 <= o->window_to && ts >= c->t0);
}

/* Opens a slice named name on the lane (rec: its task's record in pool fp,
 * or FJA_TASK_NONE; flow: the Perfetto flow ending at it; lock: the lock
 * waited for, -1: none). A task's slice is named by its creation site when
 * the sites are resolved ("fib.c:23 (fib_split) n=13"). Slices are nested
 * per lane: those opened before the window (below) and after it (above)
 * are not written, nor are their ends. */
static void chrome_begin(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker,
                         const char *name, const fja_pool *fp, uint32_t rec, uint64_t ts,
                         uint64_t flow, int64_t lock)
{
    l->open++;
    if (!in_window(c, ts)) {
        if (ts - c->t0 < c->o->window_from || ts < c->t0)
            l->skip_below++;
        else
            l->skip_above++;
        return;
    }
    if (!c->chrome && !c->pf) return;
    const fja_task *task = rec == FJA_TASK_NONE ? NULL : fja_taskmap_get(&fp->tasks, rec);
    char site[512], full[600];
    const char *where = task ? fjv_site_label(c->o, fp, rec, site, sizeof site) : NULL;
    const char *label = where ? where : task ? "task" : name;
    if (task && task->size_hint) {
        snprintf(full, sizeof full, "%s n=%u", label, task->size_hint);
        label = full;
    }
    if (c->pf)
        fjv_pf_begin(c->pf, p, l, worker, ts,
                     &(fjv_pf_slice){.name = label, .task = task, .flow = flow, .lock = lock});
    if (!c->chrome) return;
    fja_json *j = chrome_event(c, "B");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_str(j, "name", label); /* file and function names may hold anything */
    if (task || lock >= 0) {
        fja_json_str(j, "cat", task ? "task" : "lock");
        fja_json_open(j, "args", '{');
        if (task) {
            fja_json_strf(j, "task", "0x%llx", (unsigned long long)task->id);
            fja_json_i64(j, "tree", task->tree == FJA_TASK_NONE ? -1 : (int64_t)task->tree);
        } else {
            fja_json_i64(j, "lock", lock);
        }
        fja_json_close(j, '}');
    }
    fja_json_close(j, '}');
}

/* Closes the lane's innermost open slice. */
static void chrome_end(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    if (!l->open) return;
    l->open--;
    if (l->skip_above) {
        l->skip_above--;
        return;
    }
    if (l->open < l->skip_below) {
        l->skip_below--;
        return;
    }
    if (c->pf) fjv_pf_end(c->pf, p, l, worker, ts);
    if (!c->chrome) return;
    fja_json *j = chrome_event(c, "E");
    chrome_ids(j, p, worker + 1);
    chrome_ts(j, c, "ts", ts);
    fja_json_close(j, '}');
}

static void chrome_counter(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const char *name,
                           int32_t worker, uint64_t v, uint64_t ts)
{
    if (!in_window(c, ts)) return;
    if (c->pf) fjv_pf_counter(c->pf, p, l, worker, ts, (int64_t)v);
    if (!c->chrome) return;
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

/* A flow arrow fork -> exec: both ends are written together, at exec, so
 * every flow has two ends even when the trace stops in between. */
static void chrome_flow(fjv_exporter *c, const fjv_xpool *p, int32_t from, uint64_t from_ts,
                        int32_t to, uint64_t to_ts, bool stolen)
{
    if (!c->chrome || !in_window(c, from_ts) || !in_window(c, to_ts)) return;
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

/* ------------------------------------------------------------ changes */

/* The worker's event is applied: a worker that ended closes its slices. */
static void on_settled(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    const fja_worker *w = ch->worker;
    if (w->state != FJA_WS_OFF) return;
    l->in_lock = false;
    while (l->open)
        chrome_end(c, p, l, w->index, ch->ts);
}

static void on_task_begin(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    const fja_task *t = fja_taskmap_get(&ch->pool->tasks, ch->task);
    int32_t w = ch->worker->index;
    bool forked = (t->flags & FJA_TF_FORKED) && ch->since && ch->other >= 0;
    /* Perfetto: an arrow for each steal, from the fork, as in the JSON;
     * none for a worker's own forks (the nesting shows them) */
    uint64_t flow = 0;
    fjv_xlane *forker = forked && ch->stolen && c->pf && ch->other != w &&
                                in_window(c, ch->since) && in_window(c, ch->ts)
                            ? lane_get(p, ch->other)
                            : NULL;
    if (forker) flow = fjv_pf_steal(c->pf, p, forker, ch->other, ch->since);
    chrome_begin(c, p, l, w, "task", ch->pool, ch->task, ch->ts, flow, -1);
    if (!forked) return;
    chrome_flow(c, p, ch->other, ch->since, w, ch->ts, ch->stolen);
}

static void on_worker(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    int32_t w = ch->worker->index;
    switch (ch->kind) {
    case FJA_CHANGE_SETTLED:
        on_settled(c, p, l, ch);
        break;
    case FJA_CHANGE_QUEUE:
        chrome_counter(c, p, l, "queue", w, (uint64_t)ch->depth, ch->ts);
        break;
    case FJA_CHANGE_TASK_BEGIN:
        on_task_begin(c, p, l, ch);
        break;
    case FJA_CHANGE_TASK_RESUME:
        chrome_begin(c, p, l, w, "task", ch->pool, ch->task, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_JOIN_BEGIN:
        chrome_begin(c, p, l, w, "join wait", ch->pool, FJA_TASK_NONE, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_LOCK_BEGIN:
        if (l->in_lock) break;
        l->in_lock = true;
        chrome_begin(c, p, l, w, "lock wait", ch->pool, FJA_TASK_NONE, ch->ts, 0, ch->lock);
        break;
    case FJA_CHANGE_LOCK_END:
        if (!l->in_lock) break; /* the wait began before the trace */
        l->in_lock = false;
        chrome_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_OFFCPU_OUT:
        if (c->pf && in_window(c, ch->ts))
            fjv_pf_offcpu(c->pf, p, l, w, ch->ts,
                          ch->offcpu == FJA_OFFCPU_PREEMPTED ? "off-CPU: preempted"
                                                             : "off-CPU: blocked");
        break;
    case FJA_CHANGE_OFFCPU_IN:
        if (c->pf) fjv_pf_oncpu(c->pf, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_PARK:
        if (ch->counted) chrome_begin(c, p, l, w, "parked", ch->pool, FJA_TASK_NONE, ch->ts, 0, -1);
        break;
    case FJA_CHANGE_UNPARK:
        if (ch->counted) chrome_end(c, p, l, w, ch->ts);
        break;
    case FJA_CHANGE_TASK_END:
    case FJA_CHANGE_TASK_SUSPEND:
    case FJA_CHANGE_TASK_LOST:
    case FJA_CHANGE_JOIN_END:
        chrome_end(c, p, l, w, ch->ts);
        break;
    default:
        break;
    }
}

/* The client lane: the requests submitted and waiting for their result. */
static void on_client(fjv_exporter *c, fjv_xpool *p, fjv_xlane *l, const fja_change *ch)
{
    if (ch->kind == FJA_CHANGE_RESULT && p->outstanding)
        p->outstanding--;
    else if (ch->kind == FJA_CHANGE_TASK_NEW)
        p->outstanding++;
    chrome_counter(c, p, l, "requests outstanding", -1, p->outstanding, ch->ts);
}

/* End of the trace: slices still open when it stopped end with it. */
static void on_pool_end(fjv_exporter *c, fjv_xpool *p, uint64_t end)
{
    if (end > p->last_ts) p->last_ts = end;
    for (uint32_t li = 0; li < p->nlanes; li++) {
        fjv_xlane *l = &p->lanes[li];
        l->in_lock = false;
        while (l->open)
            chrome_end(c, p, l, (int32_t)li - 1, p->last_ts);
        if (c->pf) fjv_pf_oncpu(c->pf, p, l, (int32_t)li - 1, p->last_ts);
    }
}

static void export_change(void *ctx, fja_model *m, const fja_change *ch)
{
    fjv_exporter *c = ctx;
    if (!ch->pool) return; /* lock names: the model keeps them */
    if (!c->started) {
        /* the trace's first event, as --window counts from it */
        c->started = true;
        c->t0 = m->first_ts && m->first_ts < ch->ts ? m->first_ts : ch->ts;
    }
    fjv_xpool *p = pool_get(c, ch->pool, ch->pool_index, ch->ts);
    if (!p || ch->ts < p->t0) return; /* out of order before the pool's first event */
    if (ch->ts > p->last_ts) p->last_ts = ch->ts;
    if (ch->kind == FJA_CHANGE_POOL_END) {
        on_pool_end(c, p, ch->ts);
        return;
    }
    if (ch->kind == FJA_CHANGE_DEPENDENCE) return;
    bool client = fjv_change_is_client(ch);
    if (!client && !ch->worker) return;
    fjv_xlane *l = lane_get(p, client ? -1 : ch->worker->index);
    if (!l) return;
    chrome_names(c, p, l, client ? -1 : ch->worker->index);
    if (client)
        on_client(c, p, l, ch);
    else
        on_worker(c, p, l, ch);
}

fja_listener fjv_exporter_listener(fjv_exporter *c)
{
    return (fja_listener){.ctx = c, .change = export_change};
}

fjv_exporter *fjv_exporter_new(const fjv_options *o, char *err, size_t errlen)
{
    fjv_exporter *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->o = o;
    if (o->chrome_trace) {
        if (!(c->chrome = fja_outfile_open(&c->chrome_out, o->chrome_trace, err, errlen))) {
            fjv_exporter_free(c);
            return NULL;
        }
        setvbuf(c->chrome, NULL, _IOFBF, 1 << 20);
        /* pretty at the top, an event per line */
        fja_json_start(&c->cj, c->chrome, 3);
        fja_json_str(&c->cj, "displayTimeUnit", "ns");
        fja_json_open(&c->cj, "traceEvents", '[');
    }
    if (o->perfetto && !(c->pf = fjv_pf_open(o->perfetto, err, errlen))) {
        fjv_exporter_free(c);
        return NULL;
    }
    return c;
}

int fjv_exporter_finish(fjv_exporter *c)
{
    if (!c) return 0;
    int pf_rc = fjv_pf_close(c->pf, stderr);
    c->pf = NULL;
    if (!c->chrome) return pf_rc;
    char err[4200];
    fja_json_close(&c->cj, ']');
    fja_json_finish(&c->cj);
    c->chrome = NULL;
    int rc = fja_outfile_commit(&c->chrome_out, err, sizeof err);
    if (rc) fprintf(stderr, "fjtrace-analyze: %s\n", err);
    return rc || pf_rc ? -1 : 0;
}

void fjv_exporter_free(fjv_exporter *c)
{
    if (!c) return;
    if (c->chrome) fja_outfile_abort(&c->chrome_out); /* the run failed before the end */
    fjv_pf_abort(c->pf);
    for (uint32_t pi = 0; pi < c->npools; pi++)
        free(c->pools[pi].lanes);
    free(c->pools);
    free(c);
}
