#include <inttypes.h>

#include "json.h"
#include "report.h"

/* A milestone: null when it never happened. */
static void j_ns(fja_json *w, const char *k, int64_t v)
{
    if (v == FJA_NULL_NS)
        fja_json_null(w, k);
    else
        fja_json_i64(w, k, v);
}

/* Percentiles of nothing do not exist: null, with count 0. */
static void j_pcts(fja_json *w, const char *k, const fja_pcts *p)
{
    static const char *const keys[] = {"min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"};
    const uint64_t v[] = {p->min, p->p50, p->p90, p->p99, p->max};
    fja_json_open(w, k, '{');
    fja_json_u64(w, "count", p->n);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (p->n)
            fja_json_u64(w, keys[i], v[i]);
        else
            fja_json_null(w, keys[i]);
    fja_json_close(w, '}');
}

/* A fact that may not be known: true, false or null. */
static void j_known_bool(fja_json *w, const char *k, fja_host_fact v)
{
    if (v == FJA_HOST_NOT_KNOWN)
        fja_json_null(w, k);
    else
        fja_json_bool(w, k, v == FJA_HOST_YES);
}

static void j_host(fja_json *w, const fja_host_facts *h)
{
    fja_json_open(w, "host", '{');
    if (*h->kernel)
        fja_json_str(w, "kernel", h->kernel);
    else
        fja_json_null(w, "kernel");
    j_known_bool(w, "irq_time_accounting", h->irq_time_accounting);
    j_known_bool(w, "steal_time_accounting", h->steal_time_accounting);
    fja_json_close(w, '}');
}

static void j_trace(fja_json *w, const fja_report *r, const fja_run_info *info)
{
    const fja_trace_summary *m = &r->trace;
    fja_json_open(w, "trace", '{');
    fja_json_open(w, "paths", '[');
    for (int i = 0; i < info->npaths; i++)
        fja_json_str(w, NULL, info->paths[i]);
    fja_json_close(w, ']');
    j_host(w, &info->host);
    fja_json_u64(w, "events", m->events);
    fja_json_u64(w, "discarded_events", m->discarded_events);
    fja_json_bool(w, "complete", r->complete);
    if (*m->decode_error)
        fja_json_str(w, "decode_error", m->decode_error);
    else
        fja_json_null(w, "decode_error");
    fja_json_u64(w, "unknown_events", m->unknown_events);
    fja_json_bool(w, "began_mid_run", m->window_clipped);
    fja_json_u64(w, "events_before_window", m->window_events);
    fja_json_u64(w, "out_of_order_events", m->out_of_order);
    if (m->recording_set) { /* only with --recording */
        fja_json_open(w, "recording", '{');
        fja_json_u64(w, "token", m->recording);
        fja_json_u64(w, "left_out_pools", m->left_out_pools);
        fja_json_u64(w, "left_out_events", m->left_out_events);
        fja_json_close(w, '}');
    }
    fja_json_u64(w, "duration_ns", m->duration_ns);
    fja_json_open(w, "traces", '[');
    for (uint32_t k = 0; k < r->ntraces; k++) {
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "source", r->traces[k].source);
        fja_json_u64(w, "duration_ns", r->traces[k].last_ts - r->traces[k].first_ts);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_close(w, '}');
}

static void j_anomalies(fja_json *w, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    fja_json_open(w, "anomalies", '{');
    fja_json_u64(w, "total", r->anomalies);
    fja_json_open(w, "by_kind", '{');
    for (int k = 0; k < FJA_AN_COUNT; k++)
        if (m->anomalies[k])
            fja_json_u64(w, fja_anomaly_kind_name((fja_anomaly_kind)k), m->anomalies[k]);
    fja_json_close(w, '}');
    if (*m->invalid_first) fja_json_str(w, "invalid_first", m->invalid_first);
    fja_json_open(w, "examples", '[');
    for (uint32_t i = 0; i < m->nexamples; i++) {
        const fja_anomaly *a = &m->examples[i];
        fja_json_open(w, NULL, '{');
        fja_json_str(w, "kind", fja_anomaly_kind_name(a->kind));
        fja_json_u64(w, "time_ns", a->ts - m->first_ts);
        fja_json_u64(w, "pool", a->pool);
        fja_json_i64(w, "worker", a->worker);
        fja_json_u64(w, "task", a->task);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_close(w, '}');
}

static void j_totals(fja_json *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fja_json_open(w, "totals", '{');
    fja_json_u64(w, "tasks", pr->tasks);
    fja_json_u64(w, "executed", p->execs);
    fja_json_u64(w, "forks", p->forks);
    fja_json_u64(w, "steals", p->steals);
    fja_json_u64(w, "joins_waited", p->joins_waited);
    if (p->openmp) { /* OMPT has no idle callback: unknown, not 0 */
        fja_json_null(w, "parks");
        fja_json_null(w, "wakes");
    } else {
        fja_json_u64(w, "parks", p->parks);
        fja_json_u64(w, "wakes", p->wakes);
    }
    fja_json_u64(w, "lock_waits", p->lock_waits);
    fja_json_u64(w, "submits", p->submits);
    fja_json_u64(w, "results", p->results);
    fja_json_u64(w, "exec_to_executed_ns", p->exec_to_executed_ns);
    fja_json_u64(w, "outermost_bodies_ns", p->outermost_bodies_ns);
    fja_json_u64(w, "completing_to_completed_ns", p->completing_to_completed_ns);
    fja_json_u64(w, "completions", p->completions);
    fja_json_u64(w, "unfinished_tasks", p->unfinished);
    fja_json_u64(w, "orphan_tasks", p->orphans);
    fja_json_close(w, '}');
}

/* Every class of FJA_GAP_CLASSES by its key; a class known only with
 * off-CPU time is null when that was not recorded (unknown); pct (the
 * pool's: shares of its worker time) NULL for a worker. */
static void j_gaps(fja_json *w, const uint64_t gaps[FJA_GAP_COUNT],
                   const uint64_t ns[FJA_GAP_COUNT], const double *pct, bool offcpu_known)
{
    fja_json_open(w, "gaps", '{');
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        const char *key = fja_gap_classes[c].key;
        if (fja_gap_classes[c].offcpu_only && !offcpu_known) {
            fja_json_null(w, key);
            continue;
        }
        fja_json_open(w, key, '{');
        fja_json_u64(w, "count", gaps[c]);
        fja_json_u64(w, "ns", ns[c]);
        if (pct) fja_json_dbl(w, "pct", pct[c]);
        fja_json_close(w, '}');
    }
    fja_json_close(w, '}');
}

/* Off-CPU time of a worker: null when it was not recorded for it. */
static void j_worker_offcpu(fja_json *w, const fja_worker_report *wk)
{
    static const char *const keys[FJA_OFFCPU_KINDS] = {"offcpu_preempted_ns", "offcpu_blocked_ns"};
    static const char *const pcts[FJA_OFFCPU_KINDS] = {"offcpu_preempted_pct",
                                                       "offcpu_blocked_pct"};
    for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
        if (wk->offcpu_known) {
            fja_json_u64(w, keys[k], wk->offcpu_ns[k]);
            fja_json_dbl(w, pcts[k], wk->offcpu_pct[k]);
        } else {
            fja_json_null(w, keys[k]);
            fja_json_null(w, pcts[k]);
        }
}

/* The time split by state as shares of the lifetime, in percent. */
static void j_state_pcts(fja_json *w, const double pct[FJA_WS_COUNT])
{
    fja_json_dbl(w, "busy_pct", pct[FJA_WS_RUN]);
    fja_json_dbl(w, "join_wait_pct", pct[FJA_WS_JOIN]);
    fja_json_dbl(w, "searching_pct", pct[FJA_WS_SEARCH]);
    fja_json_dbl(w, "parked_pct", pct[FJA_WS_PARK]);
    fja_json_dbl(w, "lock_wait_pct", pct[FJA_WS_LOCK]);
}

static void j_worker(fja_json *w, const fja_worker_report *wk, bool openmp)
{
    fja_json_open(w, NULL, '{');
    fja_json_i64(w, "worker", wk->worker);
    fja_json_u64(w, "tasks", wk->tasks);
    fja_json_u64(w, "forks", wk->forks);
    fja_json_u64(w, "steals", wk->steals);
    fja_json_u64(w, "joins_waited", wk->joins_waited);
    if (openmp)
        fja_json_null(w, "parks");
    else
        fja_json_u64(w, "parks", wk->parks);
    fja_json_u64(w, "lifetime_ns", wk->lifetime_ns);
    fja_json_u64(w, "busy_ns", wk->state_ns[FJA_WS_RUN]);
    fja_json_u64(w, "idle_ns", wk->idle_ns);
    fja_json_u64(w, "join_wait_ns", wk->state_ns[FJA_WS_JOIN]);
    fja_json_u64(w, "searching_ns", wk->state_ns[FJA_WS_SEARCH]);
    fja_json_u64(w, "parked_ns", wk->state_ns[FJA_WS_PARK]);
    fja_json_u64(w, "lock_wait_ns", wk->state_ns[FJA_WS_LOCK]);
    j_state_pcts(w, wk->state_pct);
    fja_json_u64(w, "lock_waits", wk->lock_waits);
    fja_json_u64(w, "idle_work_queued_ns", wk->idle_queued_ns);
    fja_json_i64(w, "max_queue_depth", wk->max_queue_depth);
    fja_json_dbl(w, "mean_queue_depth", wk->mean_queue_depth);
    j_worker_offcpu(w, wk);
    j_gaps(w, wk->gaps, wk->gap_ns, NULL, wk->offcpu_known);
    fja_json_close(w, '}');
}

static void j_idle(fja_json *w, const fja_pool_report *pr)
{
    fja_json_open(w, "time", '{');
    fja_json_u64(w, "lifetime_ns", pr->lifetime_ns);
    fja_json_u64(w, "busy_ns", pr->busy_ns);
    fja_json_u64(w, "join_wait_ns", pr->join_ns);
    fja_json_u64(w, "searching_ns", pr->search_ns);
    fja_json_u64(w, "parked_ns", pr->parked_ns);
    fja_json_u64(w, "lock_wait_ns", pr->lock_ns);
    fja_json_u64(w, "idle_work_queued_ns", pr->idle_queued_ns);
    j_state_pcts(w, pr->state_pct);
    j_gaps(w, pr->gaps, pr->gap_ns, pr->gap_pct, pr->offcpu == FJA_OFFCPU_RECORDED);
    const uint64_t *lg = pr->gap_log2;
    int top = 63;
    while (top > 0 && !lg[top])
        top--;
    fja_json_open(w, "gap_length_log2_histogram", '[');
    for (int k = 0; k <= top; k++)
        fja_json_u64(w, NULL, lg[k]);
    fja_json_close(w, ']');
    fja_json_close(w, '}');
}

static void j_tree(fja_json *w, const fja_tree_report *t)
{
    const fja_tree_report *tr = t;
    fja_json_open(w, NULL, '{');
    fja_json_u64(w, "root", tr->root_id);
    fja_json_bool(w, "complete", t->complete);
    fja_json_bool(w, "partial", t->partial);
    fja_json_u64(w, "tasks", tr->tasks);
    fja_json_u64(w, "depth", tr->max_depth);
    fja_json_u64(w, "max_arity", tr->max_arity);
    fja_json_u64(w, "forks", tr->forks);
    fja_json_u64(w, "steals", tr->steals);
    fja_json_u64(w, "joins_waited", tr->joins_waited);
    fja_json_u64(w, "workers_used", tr->workers_used);
    fja_json_u64(w, "unfinished_tasks", tr->unfinished);
    fja_json_u64(w, "work_ns", tr->work_ns);
    if (!t->span_known) {
        fja_json_null(w, "span_ns");
        fja_json_null(w, "parallelism");
    } else {
        fja_json_u64(w, "span_ns", tr->span_ns);
        fja_json_dbl(w, "parallelism", t->parallelism);
    }
    fja_json_u64(w, "work_wall_ns", t->work_wall_ns);
    if (t->partial)
        fja_json_null(w, "span_wall_ns");
    else
        fja_json_u64(w, "span_wall_ns", t->span_wall_ns);
    j_ns(w, "first_task_ns", t->first_task_ns);
    j_ns(w, "full_parallelism_ns", t->full_parallelism_ns);
    j_ns(w, "final_handoff_ns", t->final_handoff_ns);
    j_ns(w, "latency_ns", t->latency_ns);
    j_ns(w, "client_preempted_ns", t->client_offcpu_ns[FJA_OFFCPU_PREEMPTED]);
    j_ns(w, "client_blocked_ns", t->client_offcpu_ns[FJA_OFFCPU_BLOCKED]);
    j_ns(w, "final_handoff_offcpu_ns", t->final_handoff_offcpu_ns);
    fja_json_close(w, '}');
}

/* A task id, null for "none or unknown" (0 is never a task). */
static void j_task(fja_json *w, const char *k, uint64_t id)
{
    if (id)
        fja_json_u64(w, k, id);
    else
        fja_json_null(w, k);
}

static void j_unfinished(fja_json *w, const fja_pool_report *pr)
{
    fja_json_open(w, "unfinished_tasks", '[');
    for (uint32_t i = 0; i < pr->nunfinished; i++) {
        const fja_unfinished *u = &pr->unfinished[i];
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "task", u->task);
        fja_json_str(w, "state", fja_ustate_name(u->state));
        fja_json_i64(w, "worker", u->worker);
        j_task(w, "root", u->root);
        fja_json_u64(w, "depth", u->depth);
        j_task(w, "parent", u->parent);
        j_task(w, "awaited", u->awaited);
        j_ns(w, "since_ns", u->since_ns);
        j_ns(w, "for_ns", u->for_ns);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
}

static void j_granularity(fja_json *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fja_json_open(w, "granularity", '{');
    fja_json_u64(w, "count", pr->granularity.n);
    fja_json_u64(w, "min_ns", pr->granularity.min);
    fja_json_u64(w, "p50_ns", pr->granularity.p50);
    fja_json_u64(w, "p90_ns", pr->granularity.p90);
    fja_json_u64(w, "p99_ns", pr->granularity.p99);
    fja_json_u64(w, "max_ns", pr->granularity.max);
    fja_json_open(w, "by_depth", '[');
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++) {
        if (!p->depth_tasks[d]) continue;
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "depth", (uint64_t)d);
        fja_json_u64(w, "tasks", p->depth_tasks[d]);
        fja_json_u64(w, "p50_ns", pr->depth_p50[d]);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_open(w, "steal_depth", '[');
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++) {
        if (!p->steal_depth[d]) continue;
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "depth", (uint64_t)d);
        fja_json_u64(w, "steals", p->steal_depth[d]);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_close(w, '}');
}

static const char *const offcpu_states[] = {
    [FJA_OFFCPU_NOT_RECORDED] = "not_recorded",
    [FJA_OFFCPU_RECORDED] = "recorded",
    [FJA_OFFCPU_UNKNOWN] = "unknown",
    [FJA_OFFCPU_LOST] = "lost",
};

static void j_offcpu(fja_json *w, const fja_pool_report *pr)
{
    fja_json_open(w, "offcpu", '{');
    fja_json_str(w, "state", offcpu_states[pr->offcpu]);
    if (pr->offcpu_error)
        fja_json_i64(w, "error", pr->offcpu_error);
    else
        fja_json_null(w, "error");
    fja_json_u64(w, "lost_records", pr->offcpu_lost);
    if (pr->offcpu == FJA_OFFCPU_UNKNOWN || pr->offcpu == FJA_OFFCPU_LOST)
        fja_json_str(w, "reason", pr->offcpu_reason);
    if (pr->offcpu == FJA_OFFCPU_RECORDED) {
        fja_json_u64(w, "preempted_ns", pr->offcpu_ns[FJA_OFFCPU_PREEMPTED]);
        fja_json_u64(w, "blocked_ns", pr->offcpu_ns[FJA_OFFCPU_BLOCKED]);
        fja_json_dbl(w, "preempted_pct", pr->offcpu_pct[FJA_OFFCPU_PREEMPTED]);
        fja_json_dbl(w, "blocked_pct", pr->offcpu_pct[FJA_OFFCPU_BLOCKED]);
    } else {
        fja_json_null(w, "preempted_ns");
        fja_json_null(w, "blocked_ns");
        fja_json_null(w, "preempted_pct");
        fja_json_null(w, "blocked_pct");
    }
    j_ns(w, "unattributed_ns", pr->unattributed_ns);
    j_ns(w, "clock_disagreement_ns", pr->clock_disagree_ns);
    j_ns(w, "tool_in_tasks_ns", pr->tool_in_tasks_ns);
    if (pr->tool_in_tasks_pct >= 0)
        fja_json_dbl(w, "tool_in_tasks_pct", pr->tool_in_tasks_pct);
    else
        fja_json_null(w, "tool_in_tasks_pct");
    j_ns(w, "tool_ns", pr->tool_ns);
    j_ns(w, "tool_beyond_clock_ns", pr->tool_beyond_clock_ns);
    if (pr->tool_beyond_readings >= 0)
        fja_json_i64(w, "tool_beyond_readings", pr->tool_beyond_readings);
    else
        fja_json_null(w, "tool_beyond_readings");
    if (pr->oncpu_clock == FJA_ONCPU_NONE)
        fja_json_null(w, "oncpu_clock");
    else
        fja_json_str(w, "oncpu_clock",
                     pr->oncpu_clock == FJA_ONCPU_THREAD_CLOCK ? "thread_cpu_clock"
                                                               : "perf_switches");
    fja_json_close(w, '}');
}

static void j_speedup(fja_json *w, const fja_pool_report *pr)
{
    fja_json_str(w, "figures", pr->oncpu ? "on_cpu" : "wall_clock");
    j_offcpu(w, pr);
    bool unknown = pr->span_state != FJA_SPAN_KNOWN;
    if (unknown) {
        fja_json_null(w, "work_ns");
        fja_json_null(w, "span_ns");
        fja_json_null(w, "parallelism");
        fja_json_null(w, "work_wall_ns");
        fja_json_null(w, "span_wall_ns");
        fja_json_null(w, "parallelism_wall");
    } else {
        fja_json_u64(w, "work_ns", pr->work_ns);
        fja_json_u64(w, "span_ns", pr->span_ns);
        fja_json_dbl(w, "parallelism", pr->parallelism);
        fja_json_u64(w, "work_wall_ns", pr->work_wall_ns);
        fja_json_u64(w, "span_wall_ns", pr->span_wall_ns);
        fja_json_dbl(w, "parallelism_wall", pr->parallelism_wall);
    }
    fja_json_open(w, "speedup", '[');
    for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "workers", 1u << k);
        if (unknown) {
            fja_json_null(w, "bound");
            fja_json_null(w, "burdened");
            fja_json_null(w, "bound_wall");
        } else {
            fja_json_dbl(w, "bound", pr->speedup_bound[k]);
            fja_json_dbl(w, "burdened", pr->speedup_burdened[k]);
            fja_json_dbl(w, "bound_wall", pr->speedup_bound_wall[k]);
        }
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_open(w, "costs", '{');
    fja_json_u64(w, "steal_to_exec_ns", pr->steal_cost_ns);
    fja_json_u64(w, "join_latency_ns", pr->join_cost_ns);
    fja_json_u64(w, "fork_interval_ns", pr->fork_cost_ns);
    fja_json_close(w, '}');
}

static void j_locks(fja_json *w, const fja_pool_report *pr)
{
    fja_json_open(w, "locks", '[');
    for (uint32_t i = 0; i < pr->nlocks; i++) {
        const fja_lock_report *l = &pr->locks[i];
        fja_json_open(w, NULL, '{');
        fja_json_u64(w, "id", l->id);
        fja_json_str(w, "name", l->name);
        fja_json_u64(w, "waits", l->waits);
        fja_json_u64(w, "wait_ns", l->wait_ns);
        fja_json_dbl(w, "wait_pct", l->wait_pct);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
}

static void j_str_or_null(fja_json *w, const char *k, const char *s)
{
    if (s)
        fja_json_str(w, k, s);
    else
        fja_json_null(w, k);
}

static void j_site(fja_json *w, const fja_site_report *s)
{
    const fja_site_where *wh = &s->where;
    char hex[24];
    fja_json_open(w, NULL, '{');
    snprintf(hex, sizeof hex, "0x%" PRIx64, s->site);
    fja_json_str(w, "address", hex);
    j_str_or_null(w, "binary", wh->binary);
    if (wh->binary) {
        snprintf(hex, sizeof hex, "0x%" PRIx64, wh->offset);
        fja_json_str(w, "offset", hex);
    } else {
        fja_json_null(w, "offset");
    }
    j_str_or_null(w, "function", wh->function);
    j_str_or_null(w, "file", wh->file);
    if (wh->file)
        fja_json_u64(w, "line", wh->line);
    else
        fja_json_null(w, "line");
    j_str_or_null(w, "resolution", wh->status);
    fja_json_u64(w, "addresses", s->addresses);
    fja_json_u64(w, "tasks", s->tasks);
    fja_json_u64(w, "forks", s->forks);
    fja_json_u64(w, "submits", s->submits);
    fja_json_u64(w, "steals", s->steals);
    fja_json_u64(w, "executed", s->executed);
    j_pcts(w, "self_time", &s->self);
    fja_json_u64(w, "work_ns", s->work_ns);
    fja_json_dbl(w, "work_share", s->work_share);
    fja_json_u64(w, "overhead_ns_estimated", s->overhead_ns);
    if (s->overhead_share >= 0)
        fja_json_dbl(w, "overhead_share_estimated", s->overhead_share);
    else
        fja_json_null(w, "overhead_share_estimated");
    if (s->inflation >= 0) {
        fja_json_open(w, "work_inflation", '{');
        fja_json_u64(w, "median_self_ns", s->mean_ns);
        fja_json_u64(w, "baseline_median_self_ns", s->base_mean_ns);
        fja_json_dbl(w, "ratio", s->inflation);
        fja_json_bool(w, "flagged", s->inflated);
        fja_json_close(w, '}');
    } else {
        fja_json_null(w, "work_inflation");
    }
    if (s->executed) {
        fja_json_u64(w, "depth_min", s->depth_min);
        fja_json_u64(w, "depth_max", s->depth_max);
    } else {
        fja_json_null(w, "depth_min");
        fja_json_null(w, "depth_max");
    }
    fja_json_close(w, '}');
}

/* null when the trace records no creation site. */
static void j_sites(fja_json *w, const fja_pool_report *pr)
{
    if (!pr->sites_known) {
        fja_json_null(w, "sites");
        return;
    }
    fja_json_open(w, "sites", '[');
    for (uint32_t i = 0; i < pr->nsites; i++)
        j_site(w, &pr->sites[i]);
    fja_json_close(w, ']');
}

/* Only with --baseline: what the sites' work_inflation compares with. */
static void j_baseline(fja_json *w, const fja_pool_report *pr)
{
    fja_json_open(w, "baseline", '{');
    fja_json_u64(w, "workers", pr->baseline_workers);
    fja_json_str(w, "figures", pr->baseline_oncpu ? "on_cpu" : "wall_clock");
    fja_json_bool(w, "comparable", pr->baseline_oncpu == pr->oncpu);
    fja_json_close(w, '}');
}

/* Only for a pool an OpenMP runtime made (docs/report-schema.md). */
static void j_openmp(fja_json *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fja_json_open(w, "openmp", '{');
    fja_json_str(w, "runtime", p->runtime_version);
    fja_json_u64(w, "implicit_tasks", p->submits);
    fja_json_u64(w, "explicit_tasks", p->forks);
    fja_json_bool(w, "steals_inferred", true);
    fja_json_u64(w, "barrier_waits", p->barrier_waits);
    fja_json_u64(w, "taskwait_waits", p->taskwait_waits);
    fja_json_u64(w, "dependences", p->dependences);
    fja_json_u64(w, "untied_suspensions", p->suspends);
    if (pr->cutoff_depth != UINT32_MAX)
        fja_json_u64(w, "cutoff_depth", pr->cutoff_depth);
    else
        fja_json_null(w, "cutoff_depth");
    fja_json_close(w, '}');
}

/* Only for a pool of java.util.concurrent.ForkJoinPool (docs/java.md). */
static void j_java(fja_json *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fja_json_open(w, "java", '{');
    fja_json_str(w, "runtime", p->runtime_version);
    fja_json_u64(w, "parallelism", p->nworkers_declared);
    fja_json_u64(w, "worker_slots", p->nworkers);
    fja_json_bool(w, "steal_victims_exact", true);
    fja_json_bool(w, "steal_times_inferred", true);
    fja_json_close(w, '}');
}

static void j_pool(fja_json *w, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fja_json_open(w, NULL, '{');
    fja_json_u64(w, "source", p->source);
    fja_json_u64(w, "pool", p->id);
    if (*p->procname || p->pid >= 0) {
        fja_json_open(w, "process", '{');
        fja_json_str(w, "name", p->procname);
        fja_json_i64(w, "pid", p->pid);
        fja_json_close(w, '}');
    } else {
        fja_json_null(w, "process");
    }
    fja_json_u64(w, "workers", pr->workers);
    fja_json_u64(w, "duration_ns", pr->duration_ns);
    if (p->openmp) j_openmp(w, pr);
    if (p->jvm) j_java(w, pr);
    j_totals(w, pr);
    j_idle(w, pr);
    fja_json_open(w, "queue", '{');
    fja_json_i64(w, "max_depth", pr->max_queue_depth);
    fja_json_dbl(w, "mean_depth", pr->mean_queue_depth);
    fja_json_close(w, '}');
    fja_json_open(w, "per_worker", '[');
    for (uint32_t i = 0; i < pr->nper_worker; i++)
        j_worker(w, &pr->per_worker[i], p->openmp);
    fja_json_close(w, ']');
    j_locks(w, pr);
    j_speedup(w, pr);
    j_pcts(w, "join_latency", &pr->join_latency);
    fja_json_u64(w, "incomplete_trees", pr->incomplete_trees);
    fja_json_u64(w, "partial_trees", pr->partial_trees);
    fja_json_open(w, "milestones", '{');
    j_pcts(w, "first_task", &pr->first_task);
    j_pcts(w, "final_handoff", &pr->handoff);
    j_pcts(w, "latency", &pr->latency);
    fja_json_close(w, '}');
    fja_json_open(w, "trees", '[');
    for (uint32_t i = 0; i < pr->ntrees; i++)
        j_tree(w, &pr->trees[i]);
    fja_json_close(w, ']');
    j_unfinished(w, pr);
    j_granularity(w, pr);
    j_sites(w, pr);
    if (pr->has_baseline) j_baseline(w, pr);
    fja_json_open(w, "advice", '[');
    for (uint32_t i = 0; i < pr->nadvice; i++) {
        fja_json_open(w, NULL, '{');
        fja_json_str(w, "kind", pr->advice[i].kind);
        fja_json_str(w, "message", pr->advice[i].message);
        fja_json_close(w, '}');
    }
    fja_json_close(w, ']');
    fja_json_close(w, '}');
}

int fja_report_json(FILE *out, const fja_report *r, const fja_run_info *info)
{
    fja_json w;
    fja_json_start(&w, out, FJA_JSON_MAX_DEPTH);
    fja_json_u64(&w, "schema_version", FJA_REPORT_SCHEMA_VERSION);
    fja_json_str(&w, "tool", info->version);
    j_trace(&w, r, info);
    j_anomalies(&w, r);
    fja_json_open(&w, "pools", '[');
    for (uint32_t i = 0; i < r->npools; i++)
        j_pool(&w, &r->pools[i]);
    fja_json_close(&w, ']');
    fja_json_open(&w, "analyzer", '{');
    fja_json_dbl(&w, "wall_s", info->wall_s);
    fja_json_u64(&w, "peak_rss_bytes", info->peak_rss_bytes);
    fja_json_u64(&w, "model_bytes", r->trace.model_bytes);
    fja_json_u64(&w, "readings", info->readings);
    fja_json_close(&w, '}');
    fja_json_finish(&w);
    return ferror(out) ? -1 : 0;
}
