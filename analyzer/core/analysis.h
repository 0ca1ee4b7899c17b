/* Analyses: the figures derived from a finished model (percentiles,
 * speedup bounds, milestones, idle classes, advice), ready for a report
 * writer. Definitions: docs/analyses.md. */
#ifndef FJA_ANALYSIS_H
#define FJA_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define NULL_NS INT64_MIN /* a milestone that never happened */
#define SPEEDUP_PS 7      /* P = 1, 2, 4 ... 64 */
#define MAX_ADVICE 8

typedef struct {
    uint64_t n, min, p50, p90, p99, max;
} fja_pcts;

typedef struct {
    const fja_tree *tree;
    bool complete;
    double parallelism;
    int64_t first_task_ns, full_parallelism_ns, final_handoff_ns, latency_ns;
} fja_tree_report;

typedef struct {
    char kind[32];
    char message[480];
} fja_advice;

typedef struct {
    /* narrowing, from the command line */
    bool pool_set, root_set, window_set;
    uint32_t pool;
    uint64_t root;
    uint64_t window_from, window_to; /* ns since the first event */
} fja_filter;

typedef struct {
    const fja_pool *pool;
    uint32_t workers;
    uint64_t duration_ns;
    uint64_t tasks; /* task records: forked + submitted */
    uint64_t busy_ns, join_ns, search_ns, parked_ns, lock_ns, lifetime_ns;
    uint64_t gap_ns[GAP_COUNT], gaps[GAP_COUNT], idle_queued_ns;
    double mean_queue_depth; /* time-weighted, averaged over workers */
    int64_t max_queue_depth;
    fja_tree_report *trees;
    uint32_t ntrees; /* after --root / --window */
    uint32_t incomplete_trees;
    uint64_t work_ns, span_ns; /* summed over the selected trees */
    double parallelism;
    double speedup_bound[SPEEDUP_PS], speedup_burdened[SPEEDUP_PS];
    uint64_t steal_cost_ns, join_cost_ns, fork_cost_ns;
    fja_pcts granularity, latency, first_task, handoff;
    uint64_t depth_p50[DEPTH_SLOTS];
    uint32_t cutoff_size; /* UINT32_MAX: no cutoff advice */
    double cutoff_saving;
    fja_advice advice[MAX_ADVICE];
    uint32_t nadvice;
} fja_pool_report;

typedef struct {
    const fja_model *model;
    fja_pool_report *pools;
    uint32_t npools;
    bool complete; /* no discarded events, no unfinished task, no anomaly */
    uint64_t anomalies;
} fja_report;

/* Builds the report of a finished model. Returns 0, -1 when out of memory. */
int analysis_run(const fja_model *m, const fja_filter *f, fja_report *r);
void analysis_free(fja_report *r);
/* Appends the advice for one pool (advice.c). */
void advice_make(const fja_model *m, fja_pool_report *pr);
/* Fills p from the n values in v (sorted in place). */
void analysis_pcts(uint64_t *v, uint64_t n, fja_pcts *p);

#endif
