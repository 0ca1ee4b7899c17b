#include "offcpu.h"

#include <stdlib.h>

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

void fja_offcpu_seal(fja_offcpu *o)
{
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
        int rc = feed(ctx, &ev);
        if (rc) return rc;
    }
    return 0;
}
