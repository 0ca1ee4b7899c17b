/* The figures of one refresh. Shares and rates cover the trace time since
 * the previous frame (the time of the last event read), so they move with
 * the program; counts are totals so far. A worker's current state counts up
 * to that time. Off-CPU time comes from the runtime's offcpu events, told
 * by the tracker once believed (FJA_CHANGE_OFFCPU_REPORTED), which carry
 * an interval and arrive late (a worker reports them when it drains its
 * switch record): a frame counts the part of the intervals known by then
 * that falls in its time span, so an interval reported after its frame is
 * missed and the share is a lower bound (shown as such); n/a for a worker
 * that does not record its switches. */
#include "top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint64_t state_ns[FJA_WS_COUNT];
    uint64_t tasks, steals;
} worker_prev;

/* The off-CPU intervals of one worker of one pool not yet wholly shown. */
typedef struct {
    uint32_t source, pool;
    int32_t worker;
    uint64_t (*iv)[2];
    uint32_t n, cap;
} off_sum;

typedef struct {
    worker_prev *w;
    uint32_t nw;
    uint64_t execs, steals;
} pool_prev;

struct top_view {
    pool_prev *p;
    uint32_t np;
    uint64_t prev_ts, prev_events;
    off_sum *off;
    uint32_t noff, cap_off;
    unsigned frame;
    bool oom; /* an interval could not be kept */
    char *text;
    size_t len;
};

top_view *top_view_new(void)
{
    return calloc(1, sizeof(top_view));
}

void top_view_free(top_view *v)
{
    if (!v) return;
    for (uint32_t i = 0; i < v->np; i++)
        free(v->p[i].w);
    free(v->p);
    for (uint32_t i = 0; i < v->noff; i++)
        free(v->off[i].iv);
    free(v->off);
    free(v->text);
    free(v);
}

static off_sum *off_find(const top_view *v, uint32_t source, uint32_t pool, int32_t worker)
{
    for (uint32_t i = 0; i < v->noff; i++)
        if (v->off[i].source == source && v->off[i].pool == pool && v->off[i].worker == worker)
            return &v->off[i];
    return NULL;
}

static int off_keep(top_view *v, const fja_model *m, const fja_change *c)
{
    const fja_pool *p = &m->pools[c->pool_index];
    uint32_t source = p->source, pool = p->id;
    int32_t worker = c->worker;
    off_sum *o = off_find(v, source, pool, worker);
    if (!o) {
        if (v->noff == v->cap_off) {
            uint32_t cap = v->cap_off ? 2 * v->cap_off : 16;
            off_sum *a = realloc(v->off, cap * sizeof *a);
            if (!a) return -1;
            v->off = a;
            v->cap_off = cap;
        }
        o = &v->off[v->noff++];
        *o = (off_sum){.source = source, .pool = pool, .worker = worker};
    }
    if (c->ts <= v->prev_ts) return 0; /* its frames are gone */
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? 2 * o->cap : 8;
        uint64_t(*a)[2] = realloc(o->iv, cap * sizeof *a);
        if (!a) return -1;
        o->iv = a;
        o->cap = cap;
    }
    o->iv[o->n][0] = c->since;
    o->iv[o->n][1] = c->ts;
    o->n++;
    return 0;
}

static void view_change(void *ctx, fja_model *m, const fja_change *c)
{
    (void)m;
    top_view *v = ctx;
    if (c->kind == FJA_CHANGE_OFFCPU_REPORTED && off_keep(v, m, c)) v->oom = true;
}

fja_listener top_view_listener(top_view *v)
{
    return (fja_listener){.ctx = v, .change = view_change};
}

/* Off-CPU time of o within [from, to); drops the intervals over by then. */
static uint64_t off_within(off_sum *o, uint64_t from, uint64_t to)
{
    uint64_t ns = 0;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < o->n; i++) {
        uint64_t b = o->iv[i][0] > from ? o->iv[i][0] : from;
        uint64_t e = o->iv[i][1] < to ? o->iv[i][1] : to;
        if (e > b) ns += e - b;
        if (o->iv[i][1] > to) memcpy(o->iv[keep++], o->iv[i], sizeof o->iv[i]);
    }
    o->n = keep;
    return ns;
}

const char *top_view_text(const top_view *v)
{
    return v->text ? v->text : "";
}

/* Grows the saved figures to the model's pools and workers (new ones start
 * from zero: their first frame covers their whole life so far). */
static int prev_fit(top_view *v, const fja_model *m)
{
    if (m->npools > v->np) {
        pool_prev *p = realloc(v->p, m->npools * sizeof *p);
        if (!p) return -1;
        memset(p + v->np, 0, (m->npools - v->np) * sizeof *p);
        v->p = p;
        v->np = m->npools;
    }
    for (uint32_t i = 0; i < m->npools; i++) {
        pool_prev *pp = &v->p[i];
        uint32_t n = m->pools[i].nworkers;
        if (n <= pp->nw) continue;
        worker_prev *w = realloc(pp->w, n * sizeof *w);
        if (!w) return -1;
        memset(w + pp->nw, 0, (n - pp->nw) * sizeof *w);
        pp->w = w;
        pp->nw = n;
    }
    return 0;
}

/* A worker's time per state up to now, its current state included. */
static void states_now(const fja_worker *w, uint64_t now, uint64_t out[FJA_WS_COUNT])
{
    memcpy(out, w->state_ns, sizeof w->state_ns);
    if (w->state != FJA_WS_OFF && now > w->state_ts) out[w->state] += now - w->state_ts;
}

static double per_s(uint64_t delta, uint64_t dt_ns)
{
    return dt_ns ? (double)delta * 1e9 / (double)dt_ns : -1;
}

/* "N/s", or "n/a" when no trace time passed since the last frame. */
static void put_per_s(FILE *f, double r)
{
    if (r < 0)
        fputs("n/a", f);
    else
        fprintf(f, "%.0f/s", r);
}

static void put_rate(FILE *f, double r)
{
    if (r < 0)
        fprintf(f, " %9s", "n/a");
    else
        fprintf(f, " %9.0f", r);
}

/* The off-CPU share of the frame's span, at least (">"): n/a when the
 * worker does not record its switches (an older libfj, perf_event_open
 * refused). */
static void put_offcpu(FILE *f, const top_view *v, const fja_pool *p, const fja_worker *w,
                       uint64_t now, uint64_t total)
{
    off_sum *o = off_find(v, p->source, p->id, w->index);
    uint64_t ns = o ? off_within(o, v->prev_ts, now) : 0;
    if (!w->offcpu_started || w->offcpu_error || !total) {
        fprintf(f, " %7s", "n/a");
        return;
    }
    double share = 100.0 * (double)ns / (double)total;
    fprintf(f, " >%5.1f%%", share > 100 ? 100 : share);
}

static void worker_row(FILE *f, const top_view *v, const fja_pool *p, const fja_worker *w,
                       worker_prev *prev, uint64_t now, uint64_t dt)
{
    static const fja_wstate shown[] = {FJA_WS_RUN, FJA_WS_JOIN, FJA_WS_SEARCH, FJA_WS_PARK,
                                       FJA_WS_LOCK};
    uint64_t cur[FJA_WS_COUNT], delta[FJA_WS_COUNT], total = 0;
    states_now(w, now, cur);
    for (int s = 0; s < FJA_WS_COUNT; s++) {
        delta[s] = cur[s] >= prev->state_ns[s] ? cur[s] - prev->state_ns[s] : 0;
        if (s != FJA_WS_OFF) total += delta[s];
    }
    fprintf(f, "  %6d", w->index);
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) {
        if (total)
            fprintf(f, " %6.1f%%", 100.0 * (double)delta[shown[i]] / (double)total);
        else
            fprintf(f, " %7s", "n/a");
    }
    put_offcpu(f, v, p, w, now, total);
    put_rate(f, per_s(w->tasks - prev->tasks, dt));
    put_rate(f, per_s(w->steals - prev->steals, dt));
    fprintf(f, " %6lld %6lld%s\n", (long long)w->qdepth, (long long)w->qmax,
            w->ended ? "  (ended)" : "");
    memcpy(prev->state_ns, cur, sizeof cur);
    prev->tasks = w->tasks;
    prev->steals = w->steals;
}

/* The tree being run: the latest one not done yet. */
static void trees_line(FILE *f, const fja_pool *p)
{
    uint32_t open = 0;
    const fja_tree *run = NULL;
    for (uint32_t i = p->ntrees; i-- > 0;) {
        if (p->trees[i].done) continue;
        open++;
        if (!run) run = &p->trees[i];
    }
    fprintf(f, "  trees: %u done, %u open", p->ntrees - open, open);
    if (run)
        fprintf(f, "; running tree %llu: %llu tasks so far, depth %u",
                (unsigned long long)run->root_id, (unsigned long long)run->tasks, run->max_depth);
    fputc('\n', f);
}

static void pool_block(FILE *f, const top_view *v, const fja_pool *p, pool_prev *prev,
                       const fja_pool_report *pr, uint64_t now, uint64_t dt)
{
    uint64_t tasks = p->execs, steals = p->steals;
    fprintf(f, "pool %u", p->id);
    if (*p->procname) fprintf(f, " %s", p->procname);
    if (p->pid >= 0) fprintf(f, "[%lld]", (long long)p->pid);
    fprintf(f, ": %u workers%s, tasks %llu (",
            p->nworkers_declared ? p->nworkers_declared : p->nworkers,
            p->has_end ? " (pool ended)" : "", (unsigned long long)tasks);
    put_per_s(f, per_s(tasks - prev->execs, dt));
    fprintf(f, "), steals %llu (", (unsigned long long)steals);
    put_per_s(f, per_s(steals - prev->steals, dt));
    fputs(")\n", f);
    prev->execs = tasks;
    prev->steals = steals;
    fprintf(f, "  %6s %7s %7s %7s %7s %7s %7s %9s %9s %6s %6s\n", "worker", "run", "join", "search",
            "park", "lock", "offcpu", "tasks/s", "steals/s", "queue", "maxq");
    for (uint32_t i = 0; i < p->nworkers; i++)
        if (p->workers[i].seen) worker_row(f, v, p, &p->workers[i], &prev->w[i], now, dt);
    /* Said on screen: the column is a lower bound, and why (the file's
     * opening comment). */
    fputs("  offcpu >N%: a lower bound: a worker reports off-CPU time once it runs again "
          "(still preempted: not yet)\n",
          f);
    trees_line(f, p);
    if (!pr || !pr->nadvice) {
        fputs("  advice: none so far\n", f);
        return;
    }
    for (uint32_t i = 0; i < pr->nadvice; i++)
        fprintf(f, "  advice: [%s] %s\n", pr->advice[i].kind, pr->advice[i].message);
}

/* The report's pool made from the model's pool i (the report is made with
 * every pool). */
static const fja_pool_report *report_of(const fja_report *r, uint32_t i)
{
    for (uint32_t k = 0; k < r->npools; k++)
        if (r->pools[k].pool_index == i) return &r->pools[k];
    return NULL;
}

static void header(FILE *f, top_view *v, const fja_model *m, uint64_t dt, const char *status)
{
    time_t t = time(NULL);
    struct tm tm;
    char when[32] = "?";
    if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%H:%M:%S", &tm);
    fprintf(f, "fjtrace-top %s  frame %u", when, ++v->frame);
    if (m->events) fprintf(f, "  trace time +%.3f s", (double)(m->last_ts - m->first_ts) / 1e9);
    fputc('\n', f);
    fprintf(f, "events %llu (", (unsigned long long)m->events);
    put_per_s(f, per_s(m->events - v->prev_events, dt));
    fprintf(f, "), pools %u", m->npools);
    if (m->discarded_events || m->discard_messages)
        fprintf(f, ", LOST events: %llu", (unsigned long long)m->discarded_events);
    if (status && *status) fprintf(f, "  | %s", status);
    fputc('\n', f);
}

int top_view_frame(top_view *v, const fja_model *m, const char *status)
{
    if (v->oom || prev_fit(v, m)) return -1;
    uint64_t now = m->events ? m->last_ts : 0;
    uint64_t since = v->prev_ts ? v->prev_ts : m->first_ts;
    uint64_t dt = now > since ? now - since : 0;
    fja_report r;
    fja_filter all = {0};
    bool have_report = fja_analysis_run(m, &all, &r) == 0;
    free(v->text);
    v->text = NULL;
    FILE *f = open_memstream(&v->text, &v->len);
    if (!f) {
        fja_analysis_free(&r);
        return -1;
    }
    header(f, v, m, dt, status);
    for (uint32_t i = 0; i < m->npools; i++) {
        fputc('\n', f);
        pool_block(f, v, &m->pools[i], &v->p[i], have_report ? report_of(&r, i) : NULL, now, dt);
    }
    if (!m->npools) fputs("\n(no fjtrace pool seen yet)\n", f);
    fja_analysis_free(&r);
    v->prev_ts = now;
    v->prev_events = m->events;
    return fclose(f) ? -1 : 0;
}
