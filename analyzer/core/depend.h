/* Dependence edges not yet released (OpenMP `depend`): a task cannot start
 * before its predecessors complete, so the path through a task begins no
 * earlier than the end of the longest path through any of them. The model
 * keeps, per predecessor still running or queued, the tasks that wait for
 * it, and lets them go when it is done (model.c, "Dependences"). Keyed by
 * task record number; a pool with no dependence holds nothing. */
#ifndef FJA_DEPEND_H
#define FJA_DEPEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t *head; /* per record number: its first waiting edge, FJA_TASK_NONE */
    uint32_t nhead;
    struct fja_depend_edge {
        uint32_t sink, next;
    } * edges;
    uint32_t nedges, cap_edges, free; /* free: first reusable edge */
} fja_depend;

void fja_depend_init(fja_depend *d);
void fja_depend_free(fja_depend *d);
/* sink waits for pred (both record numbers). -1 when memory ran out. */
int fja_depend_add(fja_depend *d, uint32_t pred, uint32_t sink);
/* pred is done: calls let_go(ctx, sink) for each task that waited for it,
 * and forgets them. */
void fja_depend_release(fja_depend *d, uint32_t pred, void (*let_go)(void *ctx, uint32_t sink),
                        void *ctx);
size_t fja_depend_bytes(const fja_depend *d);

#endif
