#include "offcpu.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void fja_offcpu_init(fja_offcpu *o)
{
    *o = (fja_offcpu){0};
}

void fja_offcpu_free(fja_offcpu *o)
{
    free(o->edges);
    *o = (fja_offcpu){0};
}

static int edge_add(fja_offcpu *o, const fja_event *ev, uint64_t ts, uint8_t out)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 256;
        fja_offcpu_edge *e = realloc(o->edges, cap * sizeof *e);
        if (!e) {
            o->oom = 1;
            return -1;
        }
        o->edges = e;
        o->cap = cap;
    }
    o->edges[o->n++] = (fja_offcpu_edge){
        .ts = ts,
        .pid = ev->pid,
        .source = ev->source,
        .pool = ev->pool,
        .worker = ev->worker,
        .out = out,
        .kind = ev->arg.offcpu == FJA_OFFCPU_BLOCKED ? FJA_OFFCPU_BLOCKED : FJA_OFFCPU_PREEMPTED};
    return 0;
}

int fja_offcpu_collect(fja_offcpu *o, const fja_event *ev)
{
    if (ev->kind == FJA_EV_OFFCPU_TASK_CLOCK && ev->worker >= 0) {
        if (edge_add(o, ev, ev->ts, FJA_OFFCPU_READING)) return -1;
        o->edges[o->n - 1].cpu = ev->arg.cpu;
        return 0;
    }
    /* An interval that cannot be placed (clock not convertible, reversed,
     * not on a worker) is left out rather than guessed. */
    if (ev->kind != FJA_EV_OFFCPU || ev->worker < 0 || !ev->begin || ev->end <= ev->begin) return 0;
    if (edge_add(o, ev, ev->begin, 1) || edge_add(o, ev, ev->end, 0)) return -1;
    o->intervals++;
    return 0;
}

/* By time; at a tie a return comes before a departure (back-to-back
 * intervals of one worker), and the order is total so that qsort's
 * instability does not matter. */
static int edge_cmp(const void *a, const void *b)
{
    const fja_offcpu_edge *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->out != y->out) return x->out - y->out;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->pool != y->pool) return x->pool < y->pool ? -1 : 1;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

/* An interval (its departure at edges[at], its return at at + 1, as
 * collected) or a task clock reading (edges[at]), by worker, then time;
 * at a tie the reading first (an interval beginning at a reading is
 * after it). */
typedef struct {
    uint64_t ts;
    int64_t pid;
    uint32_t source, pool;
    int32_t worker;
    uint8_t reading;
    size_t at;
} fit_item;

static int fit_cmp(const void *a, const void *b)
{
    const fit_item *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->pool != y->pool) return x->pool < y->pool ? -1 : 1;
    if (x->worker != y->worker) return x->worker < y->worker ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->reading != y->reading) return y->reading - x->reading;
    return (x->at > y->at) - (x->at < y->at);
}

/* The intervals it[from..to) of one worker, between readings r0 and r1:
 * lengthened (or shortened) together so that the time they leave on the
 * CPU is what the thread's clock counted. Each return moves, by an equal
 * share of what is left to place, never past the next departure (or r1)
 * nor before its own departure (an interval keeps 1 ns: a return at its
 * departure's time would be replayed first). What cannot be placed stays
 * unattributed (the tracker's offcpu_task_clock readings count it). */
static void fit_span(fja_offcpu *o, const fit_item *it, size_t from, size_t to,
                     const fja_offcpu_edge *r0, const fja_offcpu_edge *r1)
{
    uint64_t off = 0;
    for (size_t j = from; j < to; j++) {
        const fja_offcpu_edge *e = &o->edges[it[j].at];
        if (e[1].ts > r1->ts) return; /* back after the reading: not this span's */
        off += e[1].ts - e->ts;
    }
    uint64_t wall = r1->ts - r0->ts, clock = r1->cpu - r0->cpu;
    uint64_t on = wall > off ? wall - off : 0;
    bool add = on > clock;
    uint64_t left = add ? on - clock : clock - on;
    for (size_t j = from; j < to && left; j++) {
        fja_offcpu_edge *e = &o->edges[it[j].at];
        uint64_t share = left / (to - j) + (left % (to - j) != 0);
        if (add) {
            uint64_t limit = j + 1 < to ? o->edges[it[j + 1].at].ts : r1->ts;
            uint64_t room = limit > e[1].ts ? limit - e[1].ts : 0;
            uint64_t d = share < room ? share : room;
            e[1].ts += d;
            e[1].inferred |= d != 0;
            left -= d;
            o->fit_added_ns += d;
        } else {
            uint64_t room = e[1].ts - e->ts > 1 ? e[1].ts - e->ts - 1 : 0;
            uint64_t d = share < room ? share : room;
            e[1].ts -= d;
            e[1].inferred |= d != 0;
            left -= d;
            o->fit_taken_ns += d;
        }
    }
}

/* A span between two readings with no stay, whose trace time exceeds what
 * the clock counted by this much or more: the thread lost that time
 * without a switch (the hypervisor took its vCPU). Below it, the readings'
 * own jitter (the trace's timestamp comes a little after the clock's:
 * -0.7..+2.1 us measured over 77 such spans). */
#define STALL_MIN_NS 5000u

/* Such a span's lost time, as a stay of its own (kind preempted: the
 * vCPU was) ending at r1: in its last piece, where all but the tool's
 * reading period of it lies (switches.h, FJ_SWITCHES_TASK_READ_NS). 0:
 * none; -1: out of memory. */
static int stall_add(fja_offcpu_edge **stalls, size_t *n, size_t *cap, const fja_offcpu_edge *r0,
                     const fja_offcpu_edge *r1)
{
    uint64_t wall = r1->ts - r0->ts, clock = r1->cpu - r0->cpu;
    if (wall < clock || wall - clock < STALL_MIN_NS) return 0;
    if (*n + 2 > *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        fja_offcpu_edge *e = realloc(*stalls, c * sizeof *e);
        if (!e) return -1;
        *stalls = e;
        *cap = c;
    }
    fja_offcpu_edge out = *r1;
    out.ts = r1->ts - (wall - clock);
    out.out = 1;
    out.kind = FJA_OFFCPU_PREEMPTED;
    out.inferred = 1;
    out.cpu = 0;
    fja_offcpu_edge in = out;
    in.ts = r1->ts;
    in.out = 0;
    (*stalls)[(*n)++] = out;
    (*stalls)[(*n)++] = in;
    return 0;
}

/* The fit to the task clocks (offcpu.h), then the readings are dropped:
 * only intervals are replayed. Out of memory: no fit (perf's intervals as
 * they are). */
static void fit(fja_offcpu *o)
{
    size_t m = 0, readings = 0;
    for (size_t i = 0; i < o->n; i++) {
        m += o->edges[i].out != 0;
        readings += o->edges[i].out == FJA_OFFCPU_READING;
    }
    if (!readings) return;
    fit_item *it = m ? malloc(m * sizeof *it) : NULL;
    size_t k = 0;
    for (size_t i = 0; it && i < o->n; i++) {
        const fja_offcpu_edge *e = &o->edges[i];
        if (e->out == 1 && i + 1 < o->n && o->edges[i + 1].out == 0)
            it[k++] = (fit_item){e->ts, e->pid, e->source, e->pool, e->worker, 0, i};
        else if (e->out == FJA_OFFCPU_READING)
            it[k++] = (fit_item){e->ts, e->pid, e->source, e->pool, e->worker, 1, i};
    }
    if (it && k) qsort(it, k, sizeof *it, fit_cmp);
    fja_offcpu_edge *stalls = NULL;
    size_t nstalls = 0, cap = 0;
    bool stalls_oom = false;
    for (size_t j = 0, last = SIZE_MAX; it && j < k; j++) {
        if (!it[j].reading) continue;
        const fja_offcpu_edge *r1 = &o->edges[it[j].at];
        const fja_offcpu_edge *r0 = last != SIZE_MAX ? &o->edges[it[last].at] : NULL;
        if (r0 && r0->source == r1->source && r0->pid == r1->pid && r0->pool == r1->pool &&
            r0->worker == r1->worker && r1->ts > r0->ts && r1->cpu >= r0->cpu) {
            if (j > last + 1)
                fit_span(o, it, last + 1, j, r0, r1);
            else if (!stalls_oom && stall_add(&stalls, &nstalls, &cap, r0, r1))
                stalls_oom = true;
        }
        last = j;
    }
    free(it);
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++)
        if (o->edges[i].out != FJA_OFFCPU_READING) o->edges[n++] = o->edges[i];
    o->n = n;
    /* Out of memory: the stalls are left out, their time stays in the
     * tasks (and unattributed, as the tracker counts it). */
    if (nstalls && !stalls_oom && n + nstalls > o->cap) {
        fja_offcpu_edge *e = realloc(o->edges, (n + nstalls) * sizeof *e);
        if (e) {
            o->edges = e;
            o->cap = n + nstalls;
        }
    }
    if (nstalls && !stalls_oom && n + nstalls <= o->cap) {
        for (size_t i = 0; i < nstalls; i += 2) {
            o->stall_ns += stalls[i + 1].ts - stalls[i].ts;
            o->stalls++;
        }
        memcpy(o->edges + n, stalls, nstalls * sizeof *stalls);
        o->n += nstalls;
    }
    free(stalls);
}

void fja_offcpu_seal(fja_offcpu *o)
{
    fit(o);
    if (o->n) qsort(o->edges, o->n, sizeof *o->edges, edge_cmp);
    o->next = 0;
}

int fja_offcpu_replay(fja_offcpu *o, uint64_t ts, int (*feed)(void *ctx, const fja_event *ev),
                      void *ctx)
{
    while (o->next < o->n && o->edges[o->next].ts < ts) {
        const fja_offcpu_edge *e = &o->edges[o->next++];
        fja_event ev = {.ts = e->ts,
                        .pid = e->pid,
                        .source = e->source,
                        .pool = e->pool,
                        .worker = e->worker,
                        .kind = e->out ? FJA_EV_OFFCPU_OUT : FJA_EV_OFFCPU_IN};
        ev.arg.offcpu = e->kind;
        /* A return where the trace put it: its interval's end as recorded
         * (0 for one the seal made or moved, the tracker's checks then
         * pass it by) */
        if (!e->out && !e->inferred) ev.end = e->ts;
        int rc = feed(ctx, &ev);
        if (rc) return rc;
    }
    return 0;
}
