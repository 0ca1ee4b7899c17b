#include "depend.h"

#include <stdlib.h>

#include "taskmap.h"

void fja_depend_init(fja_depend *d)
{
    *d = (fja_depend){.free = FJA_TASK_NONE};
}

void fja_depend_free(fja_depend *d)
{
    free(d->head);
    free(d->edges);
    fja_depend_init(d);
}

static int grow_heads(fja_depend *d, uint32_t n)
{
    if (n < d->nhead) return 0;
    uint32_t cap = d->nhead ? d->nhead : 1024;
    while (cap <= n)
        cap *= 2;
    uint32_t *h = realloc(d->head, cap * sizeof *h);
    if (!h) return -1;
    for (uint32_t i = d->nhead; i < cap; i++)
        h[i] = FJA_TASK_NONE;
    d->head = h;
    d->nhead = cap;
    return 0;
}

static uint32_t new_edge(fja_depend *d)
{
    if (d->free != FJA_TASK_NONE) {
        uint32_t e = d->free;
        d->free = d->edges[e].next;
        return e;
    }
    if (d->nedges == d->cap_edges) {
        uint32_t cap = d->cap_edges ? d->cap_edges * 2 : 256;
        struct fja_depend_edge *grown = realloc(d->edges, cap * sizeof *grown);
        if (!grown) return FJA_TASK_NONE;
        d->edges = grown;
        d->cap_edges = cap;
    }
    return d->nedges++;
}

int fja_depend_add(fja_depend *d, uint32_t pred, uint32_t sink)
{
    if (grow_heads(d, pred) != 0) return -1;
    uint32_t e = new_edge(d);
    if (e == FJA_TASK_NONE) return -1;
    d->edges[e] = (struct fja_depend_edge){.sink = sink, .next = d->head[pred]};
    d->head[pred] = e;
    return 0;
}

void fja_depend_release(fja_depend *d, uint32_t pred, void (*let_go)(void *ctx, uint32_t sink),
                        void *ctx)
{
    if (pred >= d->nhead) return;
    uint32_t e = d->head[pred];
    d->head[pred] = FJA_TASK_NONE;
    while (e != FJA_TASK_NONE) {
        uint32_t next = d->edges[e].next;
        let_go(ctx, d->edges[e].sink);
        d->edges[e].next = d->free;
        d->free = e;
        e = next;
    }
}

size_t fja_depend_bytes(const fja_depend *d)
{
    return d->nhead * sizeof *d->head + d->cap_edges * sizeof *d->edges;
}
