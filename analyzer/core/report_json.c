#include <inttypes.h>
#include <math.h>

#include "report.h"

/* A tiny JSON emitter: tracks whether a comma is due at each level. */
typedef struct {
    FILE *f;
    int depth;
    bool first[32];
} jw;

static void j_sep(jw *w)
{
    if (!w->first[w->depth]) fputc(',', w->f);
    w->first[w->depth] = false;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

static void j_key(jw *w, const char *k)
{
    j_sep(w);
    if (k) fprintf(w->f, "\"%s\": ", k);
}

static void j_open(jw *w, const char *k, char c)
{
    j_key(w, k);
    fputc(c, w->f);
    w->first[++w->depth] = true;
}

static void j_close(jw *w, char c)
{
    bool empty = w->first[w->depth];
    w->depth--;
    if (!empty) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(c, w->f);
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] < 0x80                   ? 1
            : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
            : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
            : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
                                          : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    /* overlong 3/4-byte forms, surrogates and code points past U+10FFFF */
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

/* Names come from the trace (process names, lock names) and paths from the
 * user: quotes, control characters and invalid UTF-8 (as U+FFFD) are
 * escaped so the output stays valid JSON whatever they hold; '<' is
 * escaped too, so the JSON can be pasted into an HTML <script> safely. */
static void j_str(jw *w, const char *k, const char *s)
{
    j_key(w, k);
    fputc('"', w->f);
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        int n = utf8_len(c);
        if (*c == '"' || *c == '\\')
            fprintf(w->f, "\\%c", *c);
        else if (*c < 0x20 || *c == '<')
            fprintf(w->f, "\\u%04x", *c);
        else if (n)
            fwrite(c, 1, (size_t)n, w->f);
        else
            fputs("\\ufffd", w->f);
        c += n ? n : 1;
    }
    fputc('"', w->f);
}

static void j_null(jw *w, const char *k)
{
    j_key(w, k);
    fputs("null", w->f);
}

static void j_u64(jw *w, const char *k, uint64_t v)
{
    j_key(w, k);
    fprintf(w->f, "%" PRIu64, v);
}

static void j_i64(jw *w, const char *k, int64_t v)
{
    j_key(w, k);
    fprintf(w->f, "%" PRId64, v);
}

/* A milestone: null when it never happened. */
static void j_ns(jw *w, const char *k, int64_t v)
{
    j_key(w, k);
    if (v == FJA_NULL_NS)
        fputs("null", w->f);
    else
        fprintf(w->f, "%" PRId64, v);
}

static void j_dbl(jw *w, const char *k, double v)
{
    j_key(w, k);
    if (isfinite(v))
        fprintf(w->f, "%.6g", v);
    else
        fputs("null", w->f);
}

static void j_bool(jw *w, const char *k, bool v)
{
    j_key(w, k);
    fputs(v ? "true" : "false", w->f);
}

/* Percentiles of nothing do not exist: null, with count 0. */
static void j_pcts(jw *w, const char *k, const fja_pcts *p)
{
    static const char *const keys[] = {"min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"};
    const uint64_t v[] = {p->min, p->p50, p->p90, p->p99, p->max};
    j_open(w, k, '{');
    j_u64(w, "count", p->n);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (p->n)
            j_u64(w, keys[i], v[i]);
        else
            j_null(w, keys[i]);
    j_close(w, '}');
}

static void j_trace(jw *w, const fja_report *r, const fja_run_info *info)
{
    const fja_trace_summary *m = &r->trace;
    j_open(w, "trace", '{');
    j_open(w, "paths", '[');
    for (int i = 0; i < info->npaths; i++)
        j_str(w, NULL, info->paths[i]);
    j_close(w, ']');
    j_u64(w, "events", m->events);
    j_u64(w, "discarded_events", m->discarded_events);
    j_bool(w, "complete", r->complete);
    if (*m->decode_error)
        j_str(w, "decode_error", m->decode_error);
    else
        j_null(w, "decode_error");
    j_u64(w, "unknown_events", m->unknown_events);
    j_bool(w, "began_mid_run", m->window_clipped);
    j_u64(w, "events_before_window", m->window_events);
    j_u64(w, "out_of_order_events", m->out_of_order);
    if (m->recording_set) { /* only with --recording */
        j_open(w, "recording", '{');
        j_u64(w, "token", m->recording);
        j_u64(w, "left_out_pools", m->left_out_pools);
        j_u64(w, "left_out_events", m->left_out_events);
        j_close(w, '}');
    }
    j_u64(w, "duration_ns", m->duration_ns);
    j_open(w, "traces", '[');
    for (uint32_t k = 0; k < r->ntraces; k++) {
        j_open(w, NULL, '{');
        j_u64(w, "source", r->traces[k].source);
        j_u64(w, "duration_ns", r->traces[k].last_ts - r->traces[k].first_ts);
        j_close(w, '}');
    }
    j_close(w, ']');
    j_close(w, '}');
}

static void j_anomalies(jw *w, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    j_open(w, "anomalies", '{');
    j_u64(w, "total", r->anomalies);
    j_open(w, "by_kind", '{');
    for (int k = 0; k < FJA_AN_COUNT; k++)
        if (m->anomalies[k]) j_u64(w, fja_anomaly_kind_name((fja_anomaly_kind)k), m->anomalies[k]);
    j_close(w, '}');
    j_open(w, "examples", '[');
    for (uint32_t i = 0; i < m->nexamples; i++) {
        const fja_anomaly *a = &m->examples[i];
        j_open(w, NULL, '{');
        j_str(w, "kind", fja_anomaly_kind_name(a->kind));
        j_u64(w, "time_ns", a->ts - m->first_ts);
        j_u64(w, "pool", a->pool);
        j_i64(w, "worker", a->worker);
        j_u64(w, "task", a->task);
        j_close(w, '}');
    }
    j_close(w, ']');
    j_close(w, '}');
}

static void j_totals(jw *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    j_open(w, "totals", '{');
    j_u64(w, "tasks", pr->tasks);
    j_u64(w, "executed", p->execs);
    j_u64(w, "forks", p->forks);
    j_u64(w, "steals", p->steals);
    j_u64(w, "joins_waited", p->joins_waited);
    if (p->openmp) { /* OMPT has no idle callback: unknown, not 0 */
        j_null(w, "parks");
        j_null(w, "wakes");
    } else {
        j_u64(w, "parks", p->parks);
        j_u64(w, "wakes", p->wakes);
    }
    j_u64(w, "lock_waits", p->lock_waits);
    j_u64(w, "submits", p->submits);
    j_u64(w, "results", p->results);
    j_u64(w, "exec_to_executed_ns", p->exec_to_executed_ns);
    j_u64(w, "outermost_bodies_ns", p->outermost_bodies_ns);
    j_u64(w, "completing_to_completed_ns", p->completing_to_completed_ns);
    j_u64(w, "completions", p->completions);
    j_u64(w, "unfinished_tasks", p->unfinished);
    j_u64(w, "orphan_tasks", p->orphans);
    j_close(w, '}');
}

/* Every class of FJA_GAP_CLASSES by its key; a class known only with
 * off-CPU time is null when that was not recorded (unknown); pct (the
 * pool's: shares of its worker time) NULL for a worker. */
static void j_gaps(jw *w, const uint64_t gaps[FJA_GAP_COUNT], const uint64_t ns[FJA_GAP_COUNT],
                   const double *pct, bool offcpu_known)
{
    j_open(w, "gaps", '{');
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        const char *key = fja_gap_classes[c].key;
        if (fja_gap_classes[c].offcpu_only && !offcpu_known) {
            j_null(w, key);
            continue;
        }
        j_open(w, key, '{');
        j_u64(w, "count", gaps[c]);
        j_u64(w, "ns", ns[c]);
        if (pct) j_dbl(w, "pct", pct[c]);
        j_close(w, '}');
    }
    j_close(w, '}');
}

/* Off-CPU time of a worker: null when it was not recorded for it. */
static void j_worker_offcpu(jw *w, const fja_worker_report *wk)
{
    static const char *const keys[FJA_OFFCPU_KINDS] = {"offcpu_preempted_ns", "offcpu_blocked_ns"};
    static const char *const pcts[FJA_OFFCPU_KINDS] = {"offcpu_preempted_pct",
                                                       "offcpu_blocked_pct"};
    for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
        if (wk->offcpu_known) {
            j_u64(w, keys[k], wk->offcpu_ns[k]);
            j_dbl(w, pcts[k], wk->offcpu_pct[k]);
        } else {
            j_null(w, keys[k]);
            j_null(w, pcts[k]);
        }
}

/* The time split by state as shares of the lifetime, in percent. */
static void j_state_pcts(jw *w, const double pct[FJA_WS_COUNT])
{
    j_dbl(w, "busy_pct", pct[FJA_WS_RUN]);
    j_dbl(w, "join_wait_pct", pct[FJA_WS_JOIN]);
    j_dbl(w, "searching_pct", pct[FJA_WS_SEARCH]);
    j_dbl(w, "parked_pct", pct[FJA_WS_PARK]);
    j_dbl(w, "lock_wait_pct", pct[FJA_WS_LOCK]);
}

static void j_worker(jw *w, const fja_worker_report *wk, bool openmp)
{
    j_open(w, NULL, '{');
    j_i64(w, "worker", wk->worker);
    j_u64(w, "tasks", wk->tasks);
    j_u64(w, "forks", wk->forks);
    j_u64(w, "steals", wk->steals);
    j_u64(w, "joins_waited", wk->joins_waited);
    if (openmp)
        j_null(w, "parks");
    else
        j_u64(w, "parks", wk->parks);
    j_u64(w, "lifetime_ns", wk->lifetime_ns);
    j_u64(w, "busy_ns", wk->state_ns[FJA_WS_RUN]);
    j_u64(w, "idle_ns", wk->idle_ns);
    j_u64(w, "join_wait_ns", wk->state_ns[FJA_WS_JOIN]);
    j_u64(w, "searching_ns", wk->state_ns[FJA_WS_SEARCH]);
    j_u64(w, "parked_ns", wk->state_ns[FJA_WS_PARK]);
    j_u64(w, "lock_wait_ns", wk->state_ns[FJA_WS_LOCK]);
    j_state_pcts(w, wk->state_pct);
    j_u64(w, "lock_waits", wk->lock_waits);
    j_u64(w, "idle_work_queued_ns", wk->idle_queued_ns);
    j_i64(w, "max_queue_depth", wk->max_queue_depth);
    j_dbl(w, "mean_queue_depth", wk->mean_queue_depth);
    j_worker_offcpu(w, wk);
    j_gaps(w, wk->gaps, wk->gap_ns, NULL, wk->offcpu_known);
    j_close(w, '}');
}

static void j_idle(jw *w, const fja_pool_report *pr)
{
    j_open(w, "time", '{');
    j_u64(w, "lifetime_ns", pr->lifetime_ns);
    j_u64(w, "busy_ns", pr->busy_ns);
    j_u64(w, "join_wait_ns", pr->join_ns);
    j_u64(w, "searching_ns", pr->search_ns);
    j_u64(w, "parked_ns", pr->parked_ns);
    j_u64(w, "lock_wait_ns", pr->lock_ns);
    j_u64(w, "idle_work_queued_ns", pr->idle_queued_ns);
    j_state_pcts(w, pr->state_pct);
    j_gaps(w, pr->gaps, pr->gap_ns, pr->gap_pct, pr->offcpu == FJA_OFFCPU_RECORDED);
    const uint64_t *lg = pr->gap_log2;
    int top = 63;
    while (top > 0 && !lg[top])
        top--;
    j_open(w, "gap_length_log2_histogram", '[');
    for (int k = 0; k <= top; k++)
        j_u64(w, NULL, lg[k]);
    j_close(w, ']');
    j_close(w, '}');
}

static void j_tree(jw *w, const fja_tree_report *t)
{
    const fja_tree_report *tr = t;
    j_open(w, NULL, '{');
    j_u64(w, "root", tr->root_id);
    j_bool(w, "complete", t->complete);
    j_bool(w, "partial", t->partial);
    j_u64(w, "tasks", tr->tasks);
    j_u64(w, "depth", tr->max_depth);
    j_u64(w, "max_arity", tr->max_arity);
    j_u64(w, "forks", tr->forks);
    j_u64(w, "steals", tr->steals);
    j_u64(w, "joins_waited", tr->joins_waited);
    j_u64(w, "workers_used", tr->workers_used);
    j_u64(w, "unfinished_tasks", tr->unfinished);
    j_u64(w, "work_ns", tr->work_ns);
    if (t->partial || !tr->span_ns) { /* began before the trace, or never ran: unknown */
        j_null(w, "span_ns");
        j_null(w, "parallelism");
    } else {
        j_u64(w, "span_ns", tr->span_ns);
        j_dbl(w, "parallelism", t->parallelism);
    }
    j_u64(w, "work_wall_ns", t->work_wall_ns);
    if (t->partial)
        j_null(w, "span_wall_ns");
    else
        j_u64(w, "span_wall_ns", t->span_wall_ns);
    j_ns(w, "first_task_ns", t->first_task_ns);
    j_ns(w, "full_parallelism_ns", t->full_parallelism_ns);
    j_ns(w, "final_handoff_ns", t->final_handoff_ns);
    j_ns(w, "latency_ns", t->latency_ns);
    j_ns(w, "client_preempted_ns", t->client_offcpu_ns[FJA_OFFCPU_PREEMPTED]);
    j_ns(w, "client_blocked_ns", t->client_offcpu_ns[FJA_OFFCPU_BLOCKED]);
    j_ns(w, "final_handoff_offcpu_ns", t->final_handoff_offcpu_ns);
    j_close(w, '}');
}

/* A task id, null for "none or unknown" (0 is never a task). */
static void j_task(jw *w, const char *k, uint64_t id)
{
    if (id)
        j_u64(w, k, id);
    else
        j_null(w, k);
}

static void j_unfinished(jw *w, const fja_pool_report *pr)
{
    j_open(w, "unfinished_tasks", '[');
    for (uint32_t i = 0; i < pr->nunfinished; i++) {
        const fja_unfinished *u = &pr->unfinished[i];
        j_open(w, NULL, '{');
        j_u64(w, "task", u->task);
        j_str(w, "state", fja_ustate_name(u->state));
        j_i64(w, "worker", u->worker);
        j_task(w, "root", u->root);
        j_u64(w, "depth", u->depth);
        j_task(w, "parent", u->parent);
        j_task(w, "awaited", u->awaited);
        j_ns(w, "since_ns", u->since_ns);
        j_ns(w, "for_ns", u->for_ns);
        j_close(w, '}');
    }
    j_close(w, ']');
}

static void j_granularity(jw *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    j_open(w, "granularity", '{');
    j_u64(w, "count", pr->granularity.n);
    j_u64(w, "min_ns", pr->granularity.min);
    j_u64(w, "p50_ns", pr->granularity.p50);
    j_u64(w, "p90_ns", pr->granularity.p90);
    j_u64(w, "p99_ns", pr->granularity.p99);
    j_u64(w, "max_ns", pr->granularity.max);
    j_open(w, "by_depth", '[');
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++) {
        if (!p->depth_tasks[d]) continue;
        j_open(w, NULL, '{');
        j_u64(w, "depth", (uint64_t)d);
        j_u64(w, "tasks", p->depth_tasks[d]);
        j_u64(w, "p50_ns", pr->depth_p50[d]);
        j_close(w, '}');
    }
    j_close(w, ']');
    j_open(w, "steal_depth", '[');
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++) {
        if (!p->steal_depth[d]) continue;
        j_open(w, NULL, '{');
        j_u64(w, "depth", (uint64_t)d);
        j_u64(w, "steals", p->steal_depth[d]);
        j_close(w, '}');
    }
    j_close(w, ']');
    j_close(w, '}');
}

static const char *const offcpu_states[] = {
    [FJA_OFFCPU_NOT_RECORDED] = "not_recorded",
    [FJA_OFFCPU_RECORDED] = "recorded",
    [FJA_OFFCPU_UNKNOWN] = "unknown",
    [FJA_OFFCPU_LOST] = "lost",
};

static void j_offcpu(jw *w, const fja_pool_report *pr)
{
    j_open(w, "offcpu", '{');
    j_str(w, "state", offcpu_states[pr->offcpu]);
    if (pr->offcpu_error)
        j_i64(w, "error", pr->offcpu_error);
    else
        j_null(w, "error");
    j_u64(w, "lost_records", pr->offcpu_lost);
    if (pr->offcpu == FJA_OFFCPU_UNKNOWN || pr->offcpu == FJA_OFFCPU_LOST)
        j_str(w, "reason", pr->offcpu_reason);
    if (pr->offcpu == FJA_OFFCPU_RECORDED) {
        j_u64(w, "preempted_ns", pr->offcpu_ns[FJA_OFFCPU_PREEMPTED]);
        j_u64(w, "blocked_ns", pr->offcpu_ns[FJA_OFFCPU_BLOCKED]);
        j_dbl(w, "preempted_pct", pr->offcpu_pct[FJA_OFFCPU_PREEMPTED]);
        j_dbl(w, "blocked_pct", pr->offcpu_pct[FJA_OFFCPU_BLOCKED]);
    } else {
        j_null(w, "preempted_ns");
        j_null(w, "blocked_ns");
        j_null(w, "preempted_pct");
        j_null(w, "blocked_pct");
    }
    j_close(w, '}');
}

static void j_speedup(jw *w, const fja_pool_report *pr)
{
    j_str(w, "figures", pr->oncpu ? "on_cpu" : "wall_clock");
    j_offcpu(w, pr);
    /* every tree began before the trace: nothing whole to measure */
    bool unknown = pr->partial_trees == pr->ntrees || !pr->span_ns; /* no whole tree, or no work */
    if (unknown) {
        j_null(w, "work_ns");
        j_null(w, "span_ns");
        j_null(w, "parallelism");
        j_null(w, "work_wall_ns");
        j_null(w, "span_wall_ns");
        j_null(w, "parallelism_wall");
    } else {
        j_u64(w, "work_ns", pr->work_ns);
        j_u64(w, "span_ns", pr->span_ns);
        j_dbl(w, "parallelism", pr->parallelism);
        j_u64(w, "work_wall_ns", pr->work_wall_ns);
        j_u64(w, "span_wall_ns", pr->span_wall_ns);
        j_dbl(w, "parallelism_wall", pr->parallelism_wall);
    }
    j_open(w, "speedup", '[');
    for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
        j_open(w, NULL, '{');
        j_u64(w, "workers", 1u << k);
        if (unknown) {
            j_null(w, "bound");
            j_null(w, "burdened");
            j_null(w, "bound_wall");
        } else {
            j_dbl(w, "bound", pr->speedup_bound[k]);
            j_dbl(w, "burdened", pr->speedup_burdened[k]);
            j_dbl(w, "bound_wall", pr->speedup_bound_wall[k]);
        }
        j_close(w, '}');
    }
    j_close(w, ']');
    j_open(w, "costs", '{');
    j_u64(w, "steal_to_exec_ns", pr->steal_cost_ns);
    j_u64(w, "join_latency_ns", pr->join_cost_ns);
    j_u64(w, "fork_interval_ns", pr->fork_cost_ns);
    j_close(w, '}');
}

static void j_locks(jw *w, const fja_pool_report *pr)
{
    j_open(w, "locks", '[');
    for (uint32_t i = 0; i < pr->nlocks; i++) {
        const fja_lock_report *l = &pr->locks[i];
        j_open(w, NULL, '{');
        j_u64(w, "id", l->id);
        j_str(w, "name", l->name);
        j_u64(w, "waits", l->waits);
        j_u64(w, "wait_ns", l->wait_ns);
        j_dbl(w, "wait_pct", l->wait_pct);
        j_close(w, '}');
    }
    j_close(w, ']');
}

static void j_str_or_null(jw *w, const char *k, const char *s)
{
    if (s)
        j_str(w, k, s);
    else
        j_null(w, k);
}

static void j_site(jw *w, const fja_site_report *s)
{
    const fja_site_where *wh = &s->where;
    char hex[24];
    j_open(w, NULL, '{');
    snprintf(hex, sizeof hex, "0x%" PRIx64, s->site);
    j_str(w, "address", hex);
    j_str_or_null(w, "binary", wh->binary);
    if (wh->binary) {
        snprintf(hex, sizeof hex, "0x%" PRIx64, wh->offset);
        j_str(w, "offset", hex);
    } else {
        j_null(w, "offset");
    }
    j_str_or_null(w, "function", wh->function);
    j_str_or_null(w, "file", wh->file);
    if (wh->file)
        j_u64(w, "line", wh->line);
    else
        j_null(w, "line");
    j_str_or_null(w, "resolution", wh->status);
    j_u64(w, "addresses", s->addresses);
    j_u64(w, "tasks", s->tasks);
    j_u64(w, "forks", s->forks);
    j_u64(w, "submits", s->submits);
    j_u64(w, "steals", s->steals);
    j_u64(w, "executed", s->executed);
    j_pcts(w, "self_time", &s->self);
    j_u64(w, "work_ns", s->work_ns);
    j_dbl(w, "work_share", s->work_share);
    j_u64(w, "overhead_ns_estimated", s->overhead_ns);
    if (s->overhead_share >= 0)
        j_dbl(w, "overhead_share_estimated", s->overhead_share);
    else
        j_null(w, "overhead_share_estimated");
    if (s->inflation >= 0) {
        j_open(w, "work_inflation", '{');
        j_u64(w, "median_self_ns", s->mean_ns);
        j_u64(w, "baseline_median_self_ns", s->base_mean_ns);
        j_dbl(w, "ratio", s->inflation);
        j_bool(w, "flagged", s->inflated);
        j_close(w, '}');
    } else {
        j_null(w, "work_inflation");
    }
    if (s->executed) {
        j_u64(w, "depth_min", s->depth_min);
        j_u64(w, "depth_max", s->depth_max);
    } else {
        j_null(w, "depth_min");
        j_null(w, "depth_max");
    }
    j_close(w, '}');
}

/* null when the trace records no creation site. */
static void j_sites(jw *w, const fja_pool_report *pr)
{
    if (!pr->sites_known) {
        j_null(w, "sites");
        return;
    }
    j_open(w, "sites", '[');
    for (uint32_t i = 0; i < pr->nsites; i++)
        j_site(w, &pr->sites[i]);
    j_close(w, ']');
}

/* Only with --baseline: what the sites' work_inflation compares with. */
static void j_baseline(jw *w, const fja_pool_report *pr)
{
    j_open(w, "baseline", '{');
    j_u64(w, "workers", pr->baseline_workers);
    j_str(w, "figures", pr->baseline_oncpu ? "on_cpu" : "wall_clock");
    j_bool(w, "comparable", pr->baseline_oncpu == pr->oncpu);
    j_close(w, '}');
}

/* Only for a pool an OpenMP runtime made (docs/report-schema.md). */
static void j_openmp(jw *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    j_open(w, "openmp", '{');
    j_str(w, "runtime", p->runtime_version);
    j_u64(w, "implicit_tasks", p->submits);
    j_u64(w, "explicit_tasks", p->forks);
    j_bool(w, "steals_inferred", true);
    j_u64(w, "barrier_waits", p->barrier_waits);
    j_u64(w, "taskwait_waits", p->taskwait_waits);
    j_u64(w, "dependences", p->dependences);
    j_u64(w, "untied_suspensions", p->suspends);
    if (pr->cutoff_depth != UINT32_MAX)
        j_u64(w, "cutoff_depth", pr->cutoff_depth);
    else
        j_null(w, "cutoff_depth");
    j_close(w, '}');
}

/* Only for a pool of java.util.concurrent.ForkJoinPool (docs/java.md). */
static void j_java(jw *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    j_open(w, "java", '{');
    j_str(w, "runtime", p->runtime_version);
    j_u64(w, "parallelism", p->nworkers_declared);
    j_u64(w, "worker_slots", p->nworkers);
    j_bool(w, "steal_victims_exact", true);
    j_bool(w, "steal_times_inferred", true);
    j_close(w, '}');
}

static void j_pool(jw *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    j_open(w, NULL, '{');
    j_u64(w, "source", p->source);
    j_u64(w, "pool", p->id);
    if (*p->procname || p->pid >= 0) {
        j_open(w, "process", '{');
        j_str(w, "name", p->procname);
        j_i64(w, "pid", p->pid);
        j_close(w, '}');
    } else {
        j_null(w, "process");
    }
    j_u64(w, "workers", pr->workers);
    j_u64(w, "duration_ns", pr->duration_ns);
    if (p->openmp) j_openmp(w, pr);
    if (p->jvm) j_java(w, pr);
    j_totals(w, pr);
    j_idle(w, pr);
    j_open(w, "queue", '{');
    j_i64(w, "max_depth", pr->max_queue_depth);
    j_dbl(w, "mean_depth", pr->mean_queue_depth);
    j_close(w, '}');
    j_open(w, "per_worker", '[');
    for (uint32_t i = 0; i < pr->nper_worker; i++)
        j_worker(w, &pr->per_worker[i], p->openmp);
    j_close(w, ']');
    j_locks(w, pr);
    j_speedup(w, pr);
    j_pcts(w, "join_latency", &pr->join_latency);
    j_u64(w, "incomplete_trees", pr->incomplete_trees);
    j_u64(w, "partial_trees", pr->partial_trees);
    j_open(w, "milestones", '{');
    j_pcts(w, "first_task", &pr->first_task);
    j_pcts(w, "final_handoff", &pr->handoff);
    j_pcts(w, "latency", &pr->latency);
    j_close(w, '}');
    j_open(w, "trees", '[');
    for (uint32_t i = 0; i < pr->ntrees; i++)
        j_tree(w, &pr->trees[i]);
    j_close(w, ']');
    j_unfinished(w, pr);
    j_granularity(w, pr);
    j_sites(w, pr);
    if (pr->has_baseline) j_baseline(w, pr);
    j_open(w, "advice", '[');
    for (uint32_t i = 0; i < pr->nadvice; i++) {
        j_open(w, NULL, '{');
        j_str(w, "kind", pr->advice[i].kind);
        j_str(w, "message", pr->advice[i].message);
        j_close(w, '}');
    }
    j_close(w, ']');
    j_close(w, '}');
}

int fja_report_json(FILE *out, const fja_report *r, const fja_run_info *info)
{
    jw w = {.f = out, .first = {true}};
    fputc('{', out);
    w.first[1] = true;
    w.depth = 1;
    j_u64(&w, "schema_version", FJA_REPORT_SCHEMA_VERSION);
    j_str(&w, "tool", info->version);
    j_trace(&w, r, info);
    j_anomalies(&w, r);
    j_open(&w, "pools", '[');
    for (uint32_t i = 0; i < r->npools; i++)
        j_pool(&w, &r->pools[i]);
    j_close(&w, ']');
    j_open(&w, "analyzer", '{');
    j_dbl(&w, "wall_s", info->wall_s);
    j_u64(&w, "peak_rss_bytes", info->peak_rss_bytes);
    j_u64(&w, "model_bytes", r->trace.model_bytes);
    j_close(&w, '}');
    fputs("\n}\n", out);
    return ferror(out) ? -1 : 0;
}
