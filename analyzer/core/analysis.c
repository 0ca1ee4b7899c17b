#include "analysis.h"
#include <errno.h>
#include <inttypes.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fja_analysis_pcts(uint64_t *v, uint64_t n, fja_pcts *p)
{
    *p = (fja_pcts){.n = n};
    if (!n) return;
    p->p50 = fja_percentile_exact(v, n, 50);
    p->p90 = fja_percentile_exact(v, n, 90);
    p->p99 = fja_percentile_exact(v, n, 99);
    p->min = v[0];
    p->max = v[n - 1];
}

static void hist_pcts(const fja_hist *h, fja_pcts *p)
{
    *p = (fja_pcts){.n = h->count};
    if (!h->count) return;
    p->min = h->min;
    p->max = h->max;
    p->p50 = fja_hist_percentile(h, 50);
    p->p90 = fja_hist_percentile(h, 90);
    p->p99 = fja_hist_percentile(h, 99);
}

static int64_t since(uint64_t from, uint64_t to, bool ok)
{
    return ok && to >= from ? (int64_t)(to - from) : FJA_NULL_NS;
}

/* The client's off-CPU time in the round trip and in the hand-off, when
 * a client thread of the pool recorded its switches (and none was refused). */
static void client_offcpu(const fja_pool *p, const fja_tree *t, fja_tree_report *r)
{
    bool known =
        p->client_offcpu_started && !p->client_offcpu_error && t->has_submit && t->has_result;
    for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
        r->client_offcpu_ns[k] = known ? (int64_t)t->client_off_ns[k] : FJA_NULL_NS;
    r->final_handoff_offcpu_ns =
        known && r->final_handoff_ns != FJA_NULL_NS ? (int64_t)t->client_wake_ns : FJA_NULL_NS;
}

/* 100 * a / b, 0 without b: a share of a lifetime, in percent. */
static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0;
}

static void tree_report(const fja_tree *t, fja_tree_report *r)
{
    r->root_id = t->root_id;
    r->root_rec = t->root;
    r->tasks = t->tasks;
    r->forks = t->forks;
    r->steals = t->steals;
    r->joins_waited = t->joins_waited;
    r->unfinished = t->unfinished;
    r->work_ns = t->work_ns;
    r->span_ns = t->span_ns;
    r->max_depth = t->max_depth;
    r->max_arity = t->max_arity;
    r->workers_used = (uint32_t)__builtin_popcountll(t->workers_mask);
    r->complete = t->has_submit && t->has_result && t->done && !t->lossy && !t->unfinished;
    r->partial = !t->has_submit;
    r->span_known = t->span_ns && !r->partial;
    r->parallelism = r->span_known ? (double)t->work_ns / (double)t->span_ns : 0;
    r->first_task_ns = since(t->submit_ts, t->first_exec_ts, t->has_submit && t->started);
    r->full_parallelism_ns = since(t->submit_ts, t->full_par_ts, t->has_submit && t->full_par);
    /* From the moment the tree was done: its root's `executed`, or for a
     * counted completer its `completed`. Not the last task event: a
     * completer root's body emits `executed` after its completion has
     * already released the client, i.e. after `result`. */
    r->final_handoff_ns = since(t->done_ts, t->result_ts, t->has_result && t->done);
    r->latency_ns = since(t->submit_ts, t->result_ts, t->has_submit && t->has_result);
}

static bool tree_selected(const fja_model *m, const fja_tree *t, const fja_filter *f)
{
    if (f->root_set && t->root_id != f->root) return false;
    if (f->window_set) {
        uint64_t start = t->has_submit ? t->submit_ts : t->first_exec_ts;
        uint64_t rel = start - m->first_ts;
        if (rel < f->window_from || rel > f->window_to) return false;
    }
    return true;
}

static void milestone_pcts(fja_pool_report *pr, uint64_t *buf, size_t field, fja_pcts *out)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < pr->ntrees; i++) {
        int64_t v = *(const int64_t *)((const char *)&pr->trees[i] + field);
        if (v != FJA_NULL_NS) buf[n++] = (uint64_t)v;
    }
    fja_analysis_pcts(buf, n, out);
}

/* Trees that overlap in time run concurrently (nothing in libfj orders
 * them): their spans do not add up, the longest one bounds the group. The
 * pool's span is the sum, over groups of overlapping trees, of the largest
 * span in each (docs/analyses.md). Trees come in creation (time) order. */
typedef struct {
    uint64_t end, max_span, max_span_wall; /* and its wall-clock twin */
    bool open;
} span_group;

static void span_group_close(fja_pool_report *pr, span_group *g)
{
    if (g->open) {
        pr->span_ns += g->max_span;
        pr->span_wall_ns += g->max_span_wall;
    }
    g->open = false;
}

static void span_group_add(fja_pool_report *pr, span_group *g, const fja_tree *t,
                           uint64_t span_wall)
{
    uint64_t start = t->has_submit ? t->submit_ts : t->first_exec_ts;
    uint64_t end = t->done ? t->done_ts : UINT64_MAX; /* unfinished: overlaps what follows */
    if (g->open && start < g->end) {
        if (t->span_ns > g->max_span) g->max_span = t->span_ns;
        if (span_wall > g->max_span_wall) g->max_span_wall = span_wall;
        if (end > g->end) g->end = end;
        return;
    }
    span_group_close(pr, g);
    *g = (span_group){.end = end, .max_span = t->span_ns, .max_span_wall = span_wall, .open = true};
}

/* A tree's wall-clock work and span: the twins a model fed the off-CPU
 * boundaries keeps (fja_model_keep_wall), else its own figures (a
 * wall-clock model's). */
static void tree_wall(const fja_model *m, const fja_pool *p, uint32_t i, fja_tree_report *r)
{
    r->work_wall_ns = m->wall ? p->tree_walls[i].work_ns : p->trees[i].work_ns;
    r->span_wall_ns = m->wall ? p->tree_walls[i].span_ns : p->trees[i].span_ns;
}

/* Partial trees stay out of the pool's span: with every tree partial the
 * span is 0 although tasks ran, so that reason is told first. */
static fja_span_state span_state(const fja_pool_report *pr)
{
    if (pr->ntrees && pr->partial_trees == pr->ntrees) return FJA_SPAN_ALL_PARTIAL;
    if (!pr->ntrees || !pr->span_ns) return FJA_SPAN_NO_TASK_RAN;
    return FJA_SPAN_KNOWN;
}

static int trees_analyze(const fja_model *m, const fja_pool *p, const fja_filter *f,
                         fja_pool_report *pr)
{
    span_group g = {0};
    pr->trees = calloc(p->ntrees ? p->ntrees : 1, sizeof *pr->trees);
    uint64_t *buf = malloc((p->ntrees ? p->ntrees : 1) * sizeof *buf);
    if (!pr->trees || !buf) {
        free(buf);
        return -1;
    }
    for (uint32_t i = 0; i < p->ntrees; i++) {
        if (!tree_selected(m, &p->trees[i], f)) continue;
        fja_tree_report *r = &pr->trees[pr->ntrees++];
        tree_report(&p->trees[i], r);
        tree_wall(m, p, i, r);
        client_offcpu(p, &p->trees[i], r);
        if (!r->complete) pr->incomplete_trees++;
        if (r->partial) {
            pr->partial_trees++;
            continue;
        }
        pr->work_ns += p->trees[i].work_ns;
        pr->work_wall_ns += r->work_wall_ns;
        span_group_add(pr, &g, &p->trees[i], r->span_wall_ns);
    }
    span_group_close(pr, &g);
    pr->span_state = span_state(pr);
    milestone_pcts(pr, buf, offsetof(fja_tree_report, latency_ns), &pr->latency);
    milestone_pcts(pr, buf, offsetof(fja_tree_report, first_task_ns), &pr->first_task);
    milestone_pcts(pr, buf, offsetof(fja_tree_report, final_handoff_ns), &pr->handoff);
    free(buf);
    return 0;
}

static void worker_report(const fja_worker *w, fja_worker_report *wr)
{
    *wr = (fja_worker_report){.worker = w->index,
                              .tasks = w->tasks,
                              .forks = w->forks,
                              .steals = w->steals,
                              .joins_waited = w->joins_waited,
                              .parks = w->parks,
                              .lock_waits = w->lock_waits,
                              .lifetime_ns = w->end_ts - w->begin_ts,
                              .idle_queued_ns = w->idle_queued_ns,
                              .max_queue_depth = w->qmax};
    for (int s = 0; s < FJA_WS_COUNT; s++) {
        wr->state_ns[s] = w->state_ns[s];
        wr->state_pct[s] =
            wr->lifetime_ns ? 100.0 * (double)w->state_ns[s] / (double)wr->lifetime_ns : 0;
        if (s != FJA_WS_OFF && s != FJA_WS_RUN) wr->idle_ns += w->state_ns[s];
    }
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        wr->gap_ns[c] = w->gap_ns[c];
        wr->gaps[c] = w->gaps[c];
    }
    wr->mean_queue_depth = wr->lifetime_ns ? w->q_area / (double)wr->lifetime_ns : 0;
    wr->offcpu_known = w->offcpu_started && !w->offcpu_error;
    for (int k = 0; k < FJA_OFFCPU_KINDS; k++) {
        wr->offcpu_ns[k] = w->off_ns[k];
        wr->offcpu_pct[k] =
            wr->lifetime_ns ? 100.0 * (double)w->off_ns[k] / (double)wr->lifetime_ns : 0;
    }
}

static int workers_sum(const fja_pool *p, fja_pool_report *pr)
{
    double qsum = 0;
    uint32_t qn = 0;
    pr->per_worker = calloc(p->nworkers ? p->nworkers : 1, sizeof *pr->per_worker);
    if (!pr->per_worker) return -1;
    for (uint32_t i = 0; i < p->nworkers; i++) {
        const fja_worker *w = &p->workers[i];
        if (!w->seen) continue;
        worker_report(w, &pr->per_worker[pr->nper_worker++]);
        pr->busy_ns += w->state_ns[FJA_WS_RUN];
        pr->join_ns += w->state_ns[FJA_WS_JOIN];
        pr->search_ns += w->state_ns[FJA_WS_SEARCH];
        pr->parked_ns += w->state_ns[FJA_WS_PARK];
        pr->lock_ns += w->state_ns[FJA_WS_LOCK];
        pr->lifetime_ns += w->end_ts - w->begin_ts;
        for (int c = 0; c < FJA_GAP_COUNT; c++) {
            pr->gap_ns[c] += w->gap_ns[c];
            pr->gaps[c] += w->gaps[c];
        }
        pr->idle_queued_ns += w->idle_queued_ns;
        if (w->qmax > pr->max_queue_depth) pr->max_queue_depth = w->qmax;
        if (w->end_ts > w->begin_ts) {
            qsum += w->q_area / (double)(w->end_ts - w->begin_ts);
            qn++;
        }
    }
    pr->mean_queue_depth = qn ? qsum / qn : 0;
    fja_hist_log2(&p->gap_hist, pr->gap_log2);
    return 0;
}

/* The locks of the pool's trace (lock ids are per process, so per trace). */
static int locks_report(const fja_model *m, const fja_pool *p, fja_pool_report *pr)
{
    pr->locks = calloc(m->nlocks ? m->nlocks : 1, sizeof *pr->locks);
    if (!pr->locks) return -1;
    for (uint32_t i = 0; i < m->nlocks; i++) {
        const fja_lock *l = &m->locks[i];
        if (l->source != p->source) continue;
        fja_lock_report *lr = &pr->locks[pr->nlocks++];
        *lr = (fja_lock_report){.id = l->id, .waits = l->waits, .wait_ns = l->wait_ns};
        snprintf(lr->name, sizeof lr->name, "%s", l->name);
        lr->wait_pct = pr->lifetime_ns ? 100.0 * (double)l->wait_ns / (double)pr->lifetime_ns : 0;
    }
    return 0;
}

/* Parallelism work / span and the bound on the speedup with 2^k workers,
 * work / max(work / P, span) (for the figures and their wall-clock twins
 * alike). */
static void bounds(uint64_t work_ns, uint64_t span_ns, double *parallelism,
                   double bound[FJA_SPEEDUP_PS])
{
    double work = (double)work_ns, span = (double)span_ns;
    *parallelism = span > 0 ? work / span : 0;
    for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
        double t = fmax(work / (double)(1u << k), span);
        bound[k] = t > 0 ? work / t : 0;
    }
}

/* Upper bound on speedup from work and span, and a burdened estimate that
 * charges the measured steal and join costs along the span (Cilkview-like):
 * each level of the tree may add one steal and one waited join to a path. */

static void speedup(const fja_pool *p, fja_pool_report *pr)
{
    pr->steal_cost_ns = p->steal_latency.count ? p->steal_latency.sum / p->steal_latency.count : 0;
    pr->join_cost_ns = p->join_latency.count ? p->join_latency.sum / p->join_latency.count : 0;
    pr->fork_cost_ns = fja_hist_percentile(&p->fork_interval, 50);
    hist_pcts(&p->join_latency, &pr->join_latency);
    uint32_t depth = 0;
    for (uint32_t i = 0; i < pr->ntrees; i++)
        if (pr->trees[i].max_depth > depth) depth = pr->trees[i].max_depth;
    double work = (double)pr->work_ns, span = (double)pr->span_ns;
    double burden = span + (double)depth * (double)(pr->steal_cost_ns + pr->join_cost_ns);
    bounds(pr->work_ns, pr->span_ns, &pr->parallelism, pr->speedup_bound);
    bounds(pr->work_wall_ns, pr->span_wall_ns, &pr->parallelism_wall, pr->speedup_bound_wall);
    for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
        double P = (double)(1u << k);
        pr->speedup_burdened[k] = work > 0 ? work / (work / P + burden) : 0;
    }
    /* One worker never steals nor waits at a join for a thief. */
    pr->speedup_burdened[0] = work > 0 ? 1.0 : 0;
}

static void granularity(const fja_pool *p, fja_pool_report *pr)
{
    hist_pcts(&p->self_hist, &pr->granularity);
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++)
        pr->depth_p50[d] = fja_hist_percentile(&p->depth_hist[d], 50);
}

/* The smallest size hint whose forks carry at least 50x the fork cost of
 * work; forking below it costs more than it can gain. */
static void cutoff(const fja_pool *p, fja_pool_report *pr)
{
    pr->cutoff_size = UINT32_MAX;
    if (!p->any_size_hint || !pr->fork_cost_ns || !p->forks) return;
    uint64_t below = 0;
    for (uint32_t s = 0; s < FJA_SIZE_SLOTS; s++) {
        if (!p->size_tasks[s]) continue;
        uint64_t mean = p->size_subtree_ns[s] / p->size_tasks[s];
        if (mean >= 50 * pr->fork_cost_ns) {
            pr->cutoff_size = s;
            pr->cutoff_saving = (double)below / (double)p->forks;
            return;
        }
        below += p->size_tasks[s];
    }
}

/* The same by depth, for tasks that carry no size (OpenMP): the first depth
 * whose tasks carry, on average, less than 50x the fork cost of work; the
 * program should stop making tasks there (if(depth < K), final, a cutoff).
 * Depth 1 is never the answer: its tasks are made by the implicit tasks
 * (a loop, a dependence graph, the top of a recursion), and stopping there
 * would make no task at all. */
static void cutoff_by_depth(const fja_pool *p, fja_pool_report *pr)
{
    pr->cutoff_depth = UINT32_MAX;
    pr->flat = true;
    for (uint32_t d = 2; d < FJA_DEPTH_SLOTS; d++)
        if (p->depth_tasks[d]) pr->flat = false;
    if (p->any_size_hint || !pr->fork_cost_ns || !p->forks) return;
    uint64_t deeper = 0; /* tasks at depth >= d: what a cutoff at d saves */
    for (uint32_t d = 2; d < FJA_DEPTH_SLOTS; d++)
        deeper += p->depth_tasks[d];
    for (uint32_t d = 2; d < FJA_DEPTH_SLOTS; d++) {
        if (!p->depth_tasks[d]) continue;
        if (p->depth_subtree_ns[d] / p->depth_tasks[d] < 50 * pr->fork_cost_ns) {
            pr->cutoff_depth = d;
            pr->cutoff_depth_saving = (double)deeper / (double)p->forks;
            return;
        }
        deeper -= p->depth_tasks[d];
    }
}

/* ------------------------------------------------------------ unfinished tasks */

static const char *const ustate_names[FJA_UT_COUNT] = {
    [FJA_UT_RUNNING] = "running",       [FJA_UT_LOCK_WAIT] = "lock_wait",
    [FJA_UT_COMPLETING] = "completing", [FJA_UT_WAITING] = "waiting",
    [FJA_UT_SUSPENDED] = "suspended",   [FJA_UT_STOLEN] = "stolen",
    [FJA_UT_QUEUED] = "queued",         [FJA_UT_UNKNOWN] = "unknown",
};

const char *fja_ustate_name(fja_ustate s)
{
    return s < FJA_UT_COUNT ? ustate_names[s] : "invalid";
}

#define TS_UNKNOWN UINT64_MAX

typedef struct {
    const fja_pool *p;
    uint64_t first, end; /* the trace's first event; the end of the pool */
    fja_pool_report *pr;
} ucollect;

static uint64_t record_id(const fja_pool *p, uint32_t n)
{
    return n == FJA_TASK_NONE ? 0 : fja_taskmap_get(&p->tasks, n)->id;
}

static void u_set(const ucollect *c, fja_unfinished *u, fja_ustate s, int32_t worker, uint64_t ts)
{
    u->state = s;
    u->worker = worker;
    bool known = ts != TS_UNKNOWN && ts >= c->first;
    u->since_ns = known ? (int64_t)(ts - c->first) : FJA_NULL_NS;
    u->for_ns = known ? (c->end > ts ? (int64_t)(c->end - ts) : 0) : FJA_NULL_NS;
}

/* What a task's record alone tells: queued or stolen (never started), or
 * started, to be placed on a worker's stack by u_left. */
static void u_record(const ucollect *c, uint32_t n, fja_unfinished *u)
{
    const fja_pool *p = c->p;
    const fja_task *t = fja_taskmap_get(&p->tasks, n);
    *u = (fja_unfinished){.task = t->id,
                          .root = t->tree != FJA_TASK_NONE ? p->trees[t->tree].root_id : 0,
                          .parent = record_id(p, t->parent),
                          .depth = t->depth,
                          .rec = n};
    if (t->flags & FJA_TF_SUSPENDED) {
        /* an untied OpenMP task between its parts: on no thread */
        u_set(c, u, FJA_UT_SUSPENDED, -1, TS_UNKNOWN);
    } else if (t->flags & FJA_TF_EXEC) {
        u_set(c, u, FJA_UT_UNKNOWN, t->worker, TS_UNKNOWN);
    } else if (t->flags & FJA_TF_STOLEN) {
        const fja_worker *thief = (uint32_t)t->worker < p->nworkers ? &p->workers[t->worker] : NULL;
        bool pending = thief && thief->stolen_task == n;
        u_set(c, u, FJA_UT_STOLEN, t->worker, pending ? thief->steal_ts : TS_UNKNOWN);
    } else {
        /* A submitted root is on no worker's deque (its record says 0);
         * when it was queued the replay told, if it knew (u_left). */
        u_set(c, u, FJA_UT_QUEUED, t->flags & FJA_TF_FORKED ? t->worker : -1, TS_UNKNOWN);
    }
}

/* The entry of record n (entries are in record order), or NULL. */
static fja_unfinished *u_find(const ucollect *c, uint32_t n)
{
    uint32_t lo = 0, hi = c->pr->nunfinished;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        fja_unfinished *u = &c->pr->unfinished[mid];
        if (u->rec == n) return u;
        if (u->rec < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The started tasks and the completions under way, as the replay left
 * them (fja_pool.left: the top of a stack ran or waited for a lock, the
 * frames below waited at a join or were under a task they ran inline; a
 * completion, told after the frames, says more). */
static void u_left(const ucollect *c)
{
    for (uint32_t i = 0; i < c->p->nleft; i++) {
        const fja_left *l = &c->p->left[i];
        fja_unfinished *u = u_find(c, l->task);
        if (!u) continue;
        u_set(c, u, l->state, l->worker, l->since);
        if (l->state == FJA_UT_WAITING) u->awaited = l->awaited;
    }
}

static int u_cmp(const void *a, const void *b)
{
    const fja_unfinished *x = a, *y = b;
    if (x->state != y->state) return x->state < y->state ? -1 : 1;
    uint32_t wx = (uint32_t)x->worker, wy = (uint32_t)y->worker; /* -1 (none) last */
    if (wx != wy) return wx < wy ? -1 : 1;
    if (x->depth != y->depth) return x->depth > y->depth ? -1 : 1; /* innermost first */
    return x->task < y->task ? -1 : x->task > y->task;
}

/* Every task the trace ended without, with where it was: a killed or
 * crashed program's last moment. */
static int unfinished_collect(const fja_model *m, const fja_pool *p, fja_pool_report *pr)
{
    if (!p->unfinished) return 0;
    pr->unfinished = malloc(p->unfinished * sizeof *pr->unfinished);
    if (!pr->unfinished) return -1;
    ucollect c = {
        .p = p, .first = m->first_ts, .end = p->has_end ? p->end_ts : m->last_ts, .pr = pr};
    for (uint32_t n = 0; n < p->tasks.count && pr->nunfinished < p->unfinished; n++)
        if (!fja_task_finished(fja_taskmap_get(&p->tasks, n)) && !fja_taskmap_is_free(&p->tasks, n))
            u_record(&c, n, &pr->unfinished[pr->nunfinished++]);
    u_left(&c);
    qsort(pr->unfinished, pr->nunfinished, sizeof *pr->unfinished, u_cmp);
    for (uint32_t i = 0; i < pr->nunfinished; i++)
        pr->unfinished_by_state[pr->unfinished[i].state]++;
    return 0;
}

/* Why a pool's off-CPU time is unknown. */
static void offcpu_reason(const fja_model *m, fja_pool_report *pr)
{
    if (*m->offcpu_unread)
        snprintf(pr->offcpu_reason, sizeof pr->offcpu_reason, "%s", m->offcpu_unread);
    else if (pr->offcpu_error)
        snprintf(pr->offcpu_reason, sizeof pr->offcpu_reason, "perf_event_open refused: %s",
                 strerror(pr->offcpu_error > 0 ? pr->offcpu_error : EPERM));
    else
        snprintf(pr->offcpu_reason, sizeof pr->offcpu_reason, "not recorded on every worker");
}

/* Where and since when LTTng discarded off-CPU records. */
static void offcpu_lost_reason(const fja_model *m, fja_pool_report *pr)
{
    char n[48] = "uncounted ";
    if (m->offcpu_lost_events) snprintf(n, sizeof n, "%" PRIu64 " ", m->offcpu_lost_events);
    uint64_t from = m->offcpu_lost_from > m->first_ts ? m->offcpu_lost_from - m->first_ts : 0;
    snprintf(pr->offcpu_reason, sizeof pr->offcpu_reason,
             "LTTng discarded %soff-CPU record(s) of %s from +%.3f ms on (from the trace's first "
             "event): some off-CPU intervals are missing",
             n, m->offcpu_lost_streams, (double)from / 1e6);
}

/* Whether off-CPU time was recorded for every worker, and how much there
 * was: unknown, whatever the workers say, when the off-CPU streams could
 * not be read. */
static void offcpu_sum(const fja_model *m, const fja_pool *p, fja_pool_report *pr)
{
    uint32_t seen = 0, started = 0, refused = 0, clocked = 0, task_clocked = 0, tool_told = 0;
    int64_t unattributed = 0;
    uint64_t disagree = 0, tool = 0, tool_taken = 0, tool_beyond = 0, beyond_readings = 0;
    for (uint32_t i = 0; i < p->nworkers; i++) {
        const fja_worker *w = &p->workers[i];
        if (!w->seen) continue;
        seen++;
        clocked += w->clock_read;
        task_clocked += w->task_clock;
        tool_told += w->tool_told;
        tool += w->tool_ns;
        tool_taken += w->tool_taken_ns;
        tool_beyond += w->tool_beyond_ns;
        beyond_readings += w->tool_beyond_readings;
        unattributed += w->unattributed_ns;
        disagree += w->clock_disagree_ns;
        started += w->offcpu_started;
        if (w->offcpu_error) {
            refused++;
            pr->offcpu_error = w->offcpu_error;
        }
        pr->offcpu_lost += w->offcpu_lost;
        for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
            pr->offcpu_ns[k] += w->off_ns[k];
    }
    pr->offcpu = refused || (started && started < seen) || *m->offcpu_unread ? FJA_OFFCPU_UNKNOWN
                 : m->offcpu_lost_notices                                    ? FJA_OFFCPU_LOST
                 : started                                                   ? FJA_OFFCPU_RECORDED
                           : FJA_OFFCPU_NOT_RECORDED;
    pr->oncpu = pr->offcpu == FJA_OFFCPU_RECORDED;
    if (pr->offcpu == FJA_OFFCPU_UNKNOWN) offcpu_reason(m, pr);
    if (pr->offcpu == FJA_OFFCPU_LOST) offcpu_lost_reason(m, pr);
    /* Records lost (LTTng's streams are per CPU: on any worker) or the
     * streams unread: no worker's off-CPU time is known, a partial sum
     * is no figure (n/a) */
    if (pr->offcpu == FJA_OFFCPU_LOST || *m->offcpu_unread)
        for (uint32_t i = 0; i < pr->nper_worker; i++)
            pr->per_worker[i].offcpu_known = false;
    bool clocks = pr->oncpu && !pr->offcpu_lost && clocked == seen;
    pr->unattributed_ns = clocks ? unattributed : FJA_NULL_NS;
    pr->clock_disagree_ns = clocks ? (int64_t)disagree : FJA_NULL_NS;
    pr->oncpu_clock = !pr->oncpu                       ? FJA_ONCPU_NONE
                      : clocks && task_clocked == seen ? FJA_ONCPU_THREAD_CLOCK
                                                       : FJA_ONCPU_SWITCHES;
    bool tool_known = pr->oncpu_clock == FJA_ONCPU_THREAD_CLOCK && tool_told == seen;
    pr->tool_ns = tool_known ? (int64_t)tool : FJA_NULL_NS;
    pr->tool_in_tasks_ns = tool_known ? (int64_t)tool_taken : FJA_NULL_NS;
    pr->tool_beyond_clock_ns = tool_known ? (int64_t)tool_beyond : FJA_NULL_NS;
    pr->tool_beyond_readings = tool_known ? (int64_t)beyond_readings : -1;
}

/* The model's counts of the pool, copied into the report. */
static void totals_copy(const fja_pool *p, fja_pool_totals *t)
{
    *t = (fja_pool_totals){.source = p->source,
                           .id = p->id,
                           .pid = p->pid,
                           .openmp = p->openmp,
                           .jvm = p->jvm,
                           .nworkers_declared = p->nworkers_declared,
                           .nworkers = p->nworkers,
                           .execs = p->execs,
                           .forks = p->forks,
                           .steals = p->steals,
                           .joins_waited = p->joins_waited,
                           .parks = p->parks,
                           .wakes = p->wakes,
                           .lock_waits = p->lock_waits,
                           .submits = p->submits,
                           .results = p->results,
                           .exec_to_executed_ns = p->exec_to_executed_ns,
                           .outermost_bodies_ns = p->outermost_bodies_ns,
                           .completing_to_completed_ns = p->completing_to_completed_ns,
                           .completions = p->completions,
                           .unfinished = p->unfinished,
                           .orphans = p->orphans,
                           .barrier_waits = p->barrier_waits,
                           .taskwait_waits = p->taskwait_waits,
                           .dependences = p->dependences,
                           .suspends = p->suspends};
    snprintf(t->procname, sizeof t->procname, "%s", p->procname);
    snprintf(t->runtime_version, sizeof t->runtime_version, "%s", p->runtime_version);
    for (int d = 0; d < FJA_DEPTH_SLOTS; d++) {
        t->steal_depth[d] = p->steal_depth[d];
        t->depth_tasks[d] = p->depth_hist[d].count;
    }
    fja_hist_log2(&p->self_hist, t->self_log2);
}

/* The pool's time split, idle gaps and off-CPU time as shares of the
 * workers' summed lifetime. */
static void shares(fja_pool_report *pr)
{
    const uint64_t state[FJA_WS_COUNT] = {
        [FJA_WS_RUN] = pr->busy_ns,    [FJA_WS_JOIN] = pr->join_ns, [FJA_WS_SEARCH] = pr->search_ns,
        [FJA_WS_PARK] = pr->parked_ns, [FJA_WS_LOCK] = pr->lock_ns,
    };
    for (int k = 0; k < FJA_WS_COUNT; k++)
        pr->state_pct[k] = pct(state[k], pr->lifetime_ns);
    for (int c = 0; c < FJA_GAP_COUNT; c++)
        pr->gap_pct[c] = pct(pr->gap_ns[c], pr->lifetime_ns);
    for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
        pr->offcpu_pct[k] = pct(pr->offcpu_ns[k], pr->lifetime_ns);
    pr->tool_in_tasks_pct = -1;
    if (pr->tool_in_tasks_ns != FJA_NULL_NS && pr->work_ns)
        pr->tool_in_tasks_pct = pct((uint64_t)pr->tool_in_tasks_ns, pr->work_ns);
}

static int pool_analyze(const fja_model *m, const fja_pool *p, const fja_filter *f,
                        fja_pool_report *pr)
{
    totals_copy(p, &pr->totals);
    pr->pool_index = (uint32_t)(p - m->pools);
    pr->workers = p->nworkers_declared ? p->nworkers_declared : p->nworkers;
    /* OpenMP: nested regions bring threads beyond the first team's size;
     * JVM: callers that run tasks and compensation threads beyond the
     * parallelism */
    if ((p->openmp || p->jvm) && p->nworkers > pr->workers) pr->workers = p->nworkers;
    uint64_t from = p->has_begin ? p->begin_ts : p->first_ts;
    uint64_t to = p->has_end ? p->end_ts : p->last_ts;
    pr->duration_ns = to > from ? to - from : 0;
    pr->tasks = p->tasks.made;
    if (trees_analyze(m, p, f, pr) || unfinished_collect(m, p, pr) || workers_sum(p, pr) ||
        locks_report(m, p, pr))
        return -1;
    speedup(p, pr);
    offcpu_sum(m, p, pr);
    shares(pr);
    granularity(p, pr);
    cutoff(p, pr);
    cutoff_by_depth(p, pr);
    return fja_sites_analyze(p, pr);
}

/* T(P=1) / T(P) against the first pool of the report run with one worker;
 * without one, work / duration (how many workers were kept busy). */
static void measured_speedups(fja_report *r)
{
    const fja_pool_report *base = NULL;
    for (uint32_t i = 0; i < r->npools && !base; i++)
        if (r->pools[i].workers == 1 && r->pools[i].duration_ns) base = &r->pools[i];
    for (uint32_t i = 0; i < r->npools; i++) {
        fja_pool_report *pr = &r->pools[i];
        if (!pr->duration_ns) continue;
        pr->measured_relative = base != NULL;
        pr->measured_speedup = base ? (double)base->duration_ns / (double)pr->duration_ns
                                    : (double)pr->work_ns / (double)pr->duration_ns;
    }
}

/* Each trace's first to last pool event, in source order. */
static int trace_spans(const fja_model *m, fja_report *r)
{
    r->traces = calloc(m->npools ? m->npools : 1, sizeof *r->traces);
    if (!r->traces) return -1;
    for (uint32_t i = 0; i < m->npools; i++) {
        const fja_pool *p = &m->pools[i];
        uint32_t k = 0;
        while (k < r->ntraces && r->traces[k].source != p->source)
            k++;
        if (k == r->ntraces)
            r->traces[r->ntraces++] = (fja_trace_span){p->source, p->first_ts, p->last_ts};
        fja_trace_span *t = &r->traces[k];
        if (p->first_ts < t->first_ts) t->first_ts = p->first_ts;
        if (p->last_ts > t->last_ts) t->last_ts = p->last_ts;
    }
    for (uint32_t a = 1; a < r->ntraces; a++) /* few: insertion sort by source */
        for (uint32_t b = a; b > 0 && r->traces[b - 1].source > r->traces[b].source; b--) {
            fja_trace_span x = r->traces[b];
            r->traces[b] = r->traces[b - 1];
            r->traces[b - 1] = x;
        }
    return 0;
}

/* What the model says of the trace as a whole. */
static void summary_copy(const fja_model *m, fja_trace_summary *t)
{
    *t = (fja_trace_summary){.events = m->events,
                             .discarded_events = m->discarded_events,
                             .discard_messages = m->discard_messages,
                             .unknown_events = m->unknown_events,
                             .out_of_order = m->out_of_order,
                             .first_ts = m->first_ts,
                             .last_ts = m->last_ts,
                             .duration_ns = m->last_ts - m->first_ts,
                             .window_clipped = m->window_clipped,
                             .window_events = m->window_events,
                             .nexamples = m->nexamples,
                             .model_bytes = fja_model_bytes(m),
                             .recording_set = m->recording_set,
                             .recording = m->recording,
                             .left_out_pools = m->left_out_pools,
                             .left_out_events = m->left_out_events};
    snprintf(t->decode_error, sizeof t->decode_error, "%s", m->decode_error);
    snprintf(t->invalid_first, sizeof t->invalid_first, "%s", m->invalid_first);
    memcpy(t->anomalies, m->anomalies, sizeof t->anomalies);
    memcpy(t->examples, m->examples, sizeof t->examples);
}

int fja_analysis_run(const fja_model *m, const fja_filter *f, fja_report *r)
{
    *r = (fja_report){0};
    summary_copy(m, &r->trace);
    r->pools = calloc(m->npools ? m->npools : 1, sizeof *r->pools);
    if (!r->pools || trace_spans(m, r)) return -1;
    for (int k = 0; k < FJA_AN_COUNT; k++)
        r->anomalies += m->anomalies[k];
    /* a notice whose count LTTng did not give is a loss all the same */
    r->complete = !m->discarded_events && !m->discard_messages && !r->anomalies &&
                  !m->out_of_order && !*m->decode_error && !m->offcpu_lost_notices;
    for (uint32_t i = 0; i < m->npools; i++) {
        const fja_pool *p = &m->pools[i];
        if (f->pool_set && p->id != f->pool) continue;
        fja_pool_report *pr = &r->pools[r->npools++];
        if (pool_analyze(m, p, f, pr)) return -1;
        fja_advice_make(r, pr);
        if (p->unfinished || pr->incomplete_trees) r->complete = false;
    }
    measured_speedups(r);
    return 0;
}

/* (a table not taken is all zeros: an empty map and sites, no roots) */
static void task_table_free(fja_task_table *tt)
{
    fja_taskmap_free(&tt->tasks);
    fja_sites_free(&tt->sites);
    free(tt->tree_roots);
}

void fja_analysis_free(fja_report *r)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        free(r->pools[i].trees);
        free(r->pools[i].unfinished);
        free(r->pools[i].per_worker);
        free(r->pools[i].locks);
        free(r->pools[i].sites);
        task_table_free(&r->pools[i].records);
    }
    free(r->pools);
    free(r->traces);
    *r = (fja_report){0};
}

const fja_pool *fja_report_pool(const fja_model *m, const fja_pool_report *pr)
{
    return &m->pools[pr->pool_index];
}

/* Moves pool p's records into tt; -1 (nothing moved) when out of memory. */
static int task_table_take(fja_task_table *tt, fja_pool *p)
{
    uint64_t *roots = p->ntrees ? malloc(p->ntrees * sizeof *roots) : NULL;
    if (p->ntrees && !roots) return -1;
    for (uint32_t t = 0; t < p->ntrees; t++)
        roots[t] = p->trees[t].root_id;
    *tt = (fja_task_table){.tasks = p->tasks,
                           .sites = p->sites,
                           .tree_roots = roots,
                           .ntrees = p->ntrees,
                           .taken = true};
    /* the model keeps empty tables (freed as such) */
    fja_taskmap_init(&p->tasks);
    fja_sites_init(&p->sites);
    return 0;
}

int fja_report_take_tasks(fja_report *r, fja_model *m)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        fja_pool_report *pr = &r->pools[i];
        if (pr->records.taken) continue;
        if (task_table_take(&pr->records, &m->pools[pr->pool_index])) return -1;
    }
    return 0;
}

bool fja_report_has_root(const fja_report *r, uint64_t root, bool tasks)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_task_table *tt = &r->pools[i].records;
        for (uint32_t t = 0; t < tt->ntrees; t++)
            if (tt->tree_roots[t] == root) return true;
        if (tasks && fja_taskmap_find(&tt->tasks, root) != FJA_TASK_NONE) return true;
    }
    return false;
}

const fja_pool_report *fja_report_find_task(const fja_report *r, uint64_t id, uint32_t *record)
{
    for (uint32_t i = 0; i < r->npools; i++) {
        uint32_t n = fja_taskmap_find(&r->pools[i].records.tasks, id);
        if (n == FJA_TASK_NONE) continue;
        *record = n;
        return &r->pools[i];
    }
    return NULL;
}

fja_task_iter fja_task_iter_begin(const fja_pool_report *pr)
{
    return (fja_task_iter){.table = &pr->records};
}

/* Record n's row (a record that holds a task). */
static void task_row(const fja_task_table *tt, uint32_t n, fja_task_row *row)
{
    const fja_task *t = fja_taskmap_get(&tt->tasks, n);
    *row = (fja_task_row){
        .id = t->id,
        .root = t->tree != FJA_TASK_NONE ? tt->tree_roots[t->tree] : 0,
        .parent = t->parent != FJA_TASK_NONE ? fja_taskmap_get(&tt->tasks, t->parent)->id : 0,
        .record = n,
        .parent_record = t->parent,
        .depth = t->depth,
        .size_hint = t->size_hint,
        .children = t->nchildren,
        .worker = t->worker,
        .ran = t->flags & FJA_TF_EXEC,
        .stolen = t->flags & FJA_TF_STOLEN,
        .completer = t->flags & FJA_TF_COMPLETER,
        .finished = fja_task_finished(t),
        .self_ns = t->self_ns,
        .subtree_ns = t->subtree_ns,
        .done_span_ns = fja_task_done_span(t),
        .site = fja_sites_address(&tt->sites, n)};
}

/* Does record n hold a task? */
static bool task_held(const fja_task_table *tt, uint32_t n)
{
    return n < tt->tasks.count && !fja_taskmap_is_free(&tt->tasks, n);
}

bool fja_task_iter_next(fja_task_iter *it, fja_task_row *row)
{
    const fja_task_table *tt = it->table;
    while (it->next < tt->tasks.count) {
        uint32_t n = it->next++;
        if (!task_held(tt, n)) continue; /* a recycling model lists what is left */
        task_row(tt, n, row);
        return true;
    }
    return false;
}

uint32_t fja_report_task_records(const fja_pool_report *pr)
{
    return pr->records.tasks.count;
}

bool fja_report_task(const fja_pool_report *pr, uint32_t record, fja_task_row *row)
{
    if (!task_held(&pr->records, record)) return false;
    task_row(&pr->records, record, row);
    return true;
}
