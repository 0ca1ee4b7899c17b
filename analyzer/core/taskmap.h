/* Per-pool task records, keyed by the 64-bit task id. Records live in
 * fixed-size chunks (never moved, so growing never copies or doubles the
 * peak), and an open-addressing index of 32-bit record numbers finds them:
 * about 64 bytes per record plus 6-12 bytes of index per record.
 *
 * By default every task keeps its record. A map that recycles (recycle.h)
 * takes records back once their tasks can no longer be named by an event
 * and their figures are folded into their parents: record numbers are then
 * reused (no longer in creation order), and only the tasks still under way
 * (and the roots) hold records, with 12 more bytes each for the links that
 * tell when. */
#ifndef FJA_TASKMAP_H
#define FJA_TASKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FJA_TASK_NONE UINT32_MAX

enum {
    FJA_TF_FORKED = 1 << 0,    /* a fork event created it */
    FJA_TF_SUBMITTED = 1 << 1, /* a submit event created it (a root) */
    FJA_TF_EXEC = 1 << 2,
    FJA_TF_EXECUTED = 1 << 3,
    FJA_TF_STOLEN = 1 << 4,
    FJA_TF_COMPLETER = 1 << 5, /* a completing event was seen for it */
    FJA_TF_COMPLETED = 1 << 6,
    FJA_TF_PROPAGATED = 1 << 7,       /* its subtree work was added to its parent */
    FJA_TF_SUSPENDED = 1 << 8,        /* an untied task between suspend and resume */
    FJA_TF_LISTED = 1 << 9,           /* recycling: in its parent's list of done children */
    FJA_TF_FREE = 1 << 10,            /* recycling: a free record, no task's */
    FJA_TF_JOIN_SHIFT = 1 << 11,      /* its parent's join_stolen moved its path (fja_body) */
    FJA_TF_JOIN_SHIFT_WALL = 1 << 12, /* likewise for its wall-clock twin (fja_taskmap_wall) */
    FJA_TF_RUN_BY_JOIN = 1 << 13,     /* run by its parent's own join (exec_joined) */
};

/* A task's self time and path on one clock (the model's span rules take
 * one of these: model.c, "span"): the record's own figures (the model's
 * clock: on-CPU time in a model fed the off-CPU boundaries, else wall-clock
 * time), or its wall-clock twin beside it (fja_taskmap_clock). */
typedef struct {
    int64_t sp_base;    /* span so far = sp_base + self_ns while it runs */
    uint64_t self_ns;   /* body time minus nested tasks and join waits */
    uint64_t child_max; /* largest done-span of children done after its body, or
                           before their join (fja_pool.joins_told) */
} fja_task_clock;

typedef struct {
    uint64_t id;
    union { /* the model's own clock's figures, by name or as one */
        fja_task_clock clock;
        struct {
            int64_t sp_base;
            uint64_t self_ns;
            uint64_t child_max;
        };
    };
    uint64_t subtree_ns; /* self_ns of itself and its descendants */
    uint32_t parent;     /* record number, FJA_TASK_NONE for a root or orphan */
    uint32_t tree;       /* tree number, FJA_TASK_NONE for an orphan */
    uint32_t size_hint;  /* saturated at UINT32_MAX */
    uint16_t nchildren;  /* saturated */
    uint16_t depth;      /* saturated */
    int16_t worker;      /* the forker until exec, then the executor */
    uint16_t flags;
} fja_task;

/* The analyzer's memory budget is 64 bytes per task (bench/analyzer.sh):
 * a new field must find room in the 4 bytes of padding left. */
_Static_assert(sizeof(fja_task) <= 64, "a task record outgrew its 64 bytes");
_Static_assert(offsetof(fja_task, self_ns) == offsetof(fja_task, clock.self_ns) &&
                   offsetof(fja_task, child_max) == offsetof(fja_task, clock.child_max),
               "a record's named figures are its clock's");

/* Done: its body ran (executed) and, for a counted completer, its
 * completion too. What the trace ended without is "unfinished". */
static inline bool fja_task_finished(const fja_task *t)
{
    return (t->flags & FJA_TF_EXECUTED) &&
           (!(t->flags & FJA_TF_COMPLETER) || (t->flags & FJA_TF_COMPLETED));
}

/* The span of the longest path that ends when a task is done, on one
 * clock (c): its own body's end on the path it started on (sp_base + self
 * time), or a child's path that finished after the body. The critical
 * path runs through the child for which this is largest (docs/analyses.md,
 * "Span"). */
static inline uint64_t fja_task_clock_done_span(const fja_task_clock *c)
{
    int64_t v = c->sp_base + (int64_t)c->self_ns;
    uint64_t body = v > 0 ? (uint64_t)v : 0;
    return body > c->child_max ? body : c->child_max;
}

/* The same on the record's own clock. */
static inline uint64_t fja_task_done_span(const fja_task *t)
{
    return fja_task_clock_done_span(&t->clock);
}

/* Beside each record of a recycling map: when its task may go (recycle.c). */
typedef struct {
    uint32_t live_kids; /* children that still hold a record */
    uint32_t done_head; /* its first done child waiting for it to finish */
    uint32_t done_next; /* the next one in its parent's list */
} fja_task_link;

/* Records per chunk: 256 KiB of them, small enough that a recycling map
 * (a few records in use) holds one barely touched chunk. */
#define FJA_TASK_CHUNK_BITS 12

typedef struct {
    fja_task **chunks;
    fja_task_link **links; /* one chunk beside each record chunk; NULL: no recycling */
    /* likewise, the wall-clock twins (NULL: none kept): beside each record of
     * a map that keeps them (a model fed the off-CPU boundaries, whose own
     * figures are on-CPU time), the task's self time and span as a model
     * fed no boundary would have them, so one replay gives both
     * (docs/analyses.md, "Off-CPU time"); off-CPU time kept in self_ns.
     * Outside the record, which has no room left. */
    fja_task_clock **walls;
    uint32_t nchunks, cap_chunks;
    uint32_t count;     /* record numbers in use, free ones included (0..count-1) */
    uint32_t live;      /* records that hold a task */
    uint32_t free_head; /* free records, chained through their parent field */
    bool recycle;
    bool wall;       /* fja_taskmap_keep_wall */
    uint64_t made;   /* records ever made: the pool's task count */
    uint32_t *slots; /* record number + 1, 0 = empty */
    uint16_t *tags;  /* hash bits of each slot's id: probes skip records */
    uint64_t mask;   /* slots length - 1 */
} fja_taskmap;

void fja_taskmap_init(fja_taskmap *m);
/* Makes an empty map recycle records (recycle.h). */
void fja_taskmap_recycle(fja_taskmap *m);
/* Makes an empty map keep a wall-clock twin beside each record. */
void fja_taskmap_keep_wall(fja_taskmap *m);
void fja_taskmap_free(fja_taskmap *m);
/* Record number of id, or FJA_TASK_NONE. */
uint32_t fja_taskmap_find(const fja_taskmap *m, uint64_t id);
/* Adds a zeroed record for id (which must be absent). FJA_TASK_NONE when out of
 * memory. */
uint32_t fja_taskmap_add(fja_taskmap *m, uint64_t id);
static inline fja_task *fja_taskmap_get(const fja_taskmap *m, uint32_t n)
{
    return &m->chunks[n >> FJA_TASK_CHUNK_BITS][n & ((1u << FJA_TASK_CHUNK_BITS) - 1)];
}
/* Its links, in a recycling map only. */
static inline fja_task_link *fja_taskmap_link(const fja_taskmap *m, uint32_t n)
{
    return &m->links[n >> FJA_TASK_CHUNK_BITS][n & ((1u << FJA_TASK_CHUNK_BITS) - 1)];
}
/* Its wall-clock twin, in a map that keeps them only. */
static inline fja_task_clock *fja_taskmap_wall(const fja_taskmap *m, uint32_t n)
{
    return &m->walls[n >> FJA_TASK_CHUNK_BITS][n & ((1u << FJA_TASK_CHUNK_BITS) - 1)];
}
/* Whether record n is free (a recycling map's; every n < count otherwise
 * holds a task). */
static inline bool fja_taskmap_is_free(const fja_taskmap *m, uint32_t n)
{
    return fja_taskmap_get(m, n)->flags & FJA_TF_FREE;
}
/* Takes record n back: its task is no longer found, and the number goes
 * to the next record added. */
void fja_taskmap_remove(fja_taskmap *m, uint32_t n);
size_t fja_taskmap_bytes(const fja_taskmap *m);

#endif
