/* Analyses: the figures derived from a finished model (percentiles,
 * speedup bounds, milestones, idle classes, advice), ready for a report
 * writer. Definitions: docs/analyses.md. */
#ifndef FJA_ANALYSIS_H
#define FJA_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define FJA_NULL_NS INT64_MIN /* a milestone that never happened */
#define FJA_SPEEDUP_PS 7      /* P = 1, 2, 4 ... 64 */
#define FJA_MAX_ADVICE 8

typedef struct {
    uint64_t n, min, p50, p90, p99, max;
} fja_pcts;

/* Whether a pool's span is known: not when no task ran (nothing to
 * measure) or when every tree began before the trace (none is whole). */
typedef enum { FJA_SPAN_KNOWN, FJA_SPAN_NO_TASK_RAN, FJA_SPAN_ALL_PARTIAL } fja_span_state;

/* One tree of a pool, as the report shows it (a copy of the model's
 * figures: the report holds no pointer into the model). */
typedef struct {
    uint64_t root_id;
    uint32_t root_rec; /* the root's record number, for the task records (fja_report_pool) */
    uint64_t tasks, forks, steals, joins_waited, unfinished;
    uint64_t work_ns, span_ns;
    uint32_t max_depth, max_arity;
    uint32_t workers_used; /* workers that ran one of its tasks */
    bool complete;
    /* Begun before the trace (no submission seen: a trace that starts
     * mid-run, a snapshot, a live view attached late): its work is what the
     * trace holds of it, its span and parallelism are unknown, and it is
     * left out of the pool's work, span, parallelism and speedup. */
    bool partial;
    /* Its span and parallelism mean something: whole (not partial) and
     * some task of it ran. Every writer shows n/a where this is false. */
    bool span_known;
    double parallelism;
    uint64_t work_wall_ns, span_wall_ns; /* wall-clock twins (fja_model_keep_wall) */
    int64_t first_task_ns, full_parallelism_ns, final_handoff_ns, latency_ns;
    /* its client thread off the CPU within latency_ns, by kind, and within
     * final_handoff_ns (waking up): FJA_NULL_NS when the client's off-CPU
     * time was not recorded */
    int64_t client_offcpu_ns[FJA_OFFCPU_KINDS], final_handoff_offcpu_ns;
} fja_tree_report;

typedef struct {
    char kind[32];
    char message[480];
} fja_advice;

/* The report's name of where an unfinished task was (model.h). */
const char *fja_ustate_name(fja_ustate s);

/* One task the trace ended without: ids are 0 when there is none (a root's
 * parent, an orphan's root) or it is unknown (the task a join awaits). */
typedef struct {
    uint64_t task, root, parent, awaited; /* awaited: FJA_UT_WAITING only */
    int64_t since_ns; /* since the trace's first event; FJA_NULL_NS when unknown */
    int64_t for_ns;   /* from then to pool_end, or the trace's last event */
    int32_t worker;   /* -1: none (a submitted root) or a client thread */
    uint32_t depth;
    uint32_t rec; /* record number, to find it again while collecting */
    fja_ustate state;
} fja_unfinished;

/* One worker's figures (docs/analyses.md, "Per worker"): every writer and
 * picture shows these, none recomputes them. */
typedef struct {
    int32_t worker;
    uint64_t tasks, forks, steals, joins_waited, parks, lock_waits;
    uint64_t lifetime_ns;            /* worker_begin to worker_end (or its pool's end) */
    uint64_t state_ns[FJA_WS_COUNT]; /* RUN is busy; JOIN, SEARCH, PARK, LOCK are idle */
    double state_pct[FJA_WS_COUNT];  /* 100 * state_ns / lifetime_ns (0 without a lifetime) */
    uint64_t idle_ns;                /* JOIN + SEARCH + PARK + LOCK */
    uint64_t idle_queued_ns;
    uint64_t gap_ns[FJA_GAP_COUNT], gaps[FJA_GAP_COUNT];
    int64_t max_queue_depth;
    double mean_queue_depth; /* time-weighted: queue area / lifetime_ns */
    /* off the CPU, by kind (analyses.md, "Off-CPU time"): known only when
     * this worker recorded its context switches */
    bool offcpu_known;
    uint64_t offcpu_ns[FJA_OFFCPU_KINDS];
    double offcpu_pct[FJA_OFFCPU_KINDS];
} fja_worker_report;

/* One fj_mutex of the pool's trace (docs/analyses.md, "Locks"). */
typedef struct {
    uint32_t id;
    char name[FJA_LOCK_NAME_MAX];
    uint64_t waits, wait_ns;
    double wait_pct; /* 100 * wait_ns / the pool's summed worker lifetime */
} fja_lock_report;

/* What the model counted for a pool, copied (the writers read these, never
 * the model): who made it, its runtime, its event counts. */
typedef struct {
    uint32_t source, id;
    char procname[32]; /* "" if unknown */
    int64_t pid;       /* -1 if unknown */
    char runtime_version[64];
    bool openmp, jvm;
    uint32_t nworkers_declared, nworkers;
    uint64_t execs, forks, steals, joins_waited, parks, wakes, lock_waits, submits, results;
    uint64_t exec_to_executed_ns, outermost_bodies_ns, completing_to_completed_ns, completions;
    uint64_t unfinished, orphans;
    uint64_t barrier_waits, taskwait_waits, dependences, suspends; /* OpenMP */
    uint64_t steal_depth[FJA_DEPTH_SLOTS];
    uint64_t depth_tasks[FJA_DEPTH_SLOTS]; /* tasks executed at each depth (saturated) */
    uint64_t self_log2[64];                /* task self times in [2^k, 2^(k+1)) ns */
} fja_pool_totals;

typedef struct {
    /* narrowing, from the command line */
    bool pool_set, root_set, window_set;
    uint32_t pool;
    uint64_t root;
    uint64_t window_from, window_to; /* ns since the first event */
} fja_filter;

/* One creation site of a pool, summed up (sites_report.c). */
typedef struct {
    uint64_t site;        /* the recorded return address, 0: none */
    fja_site_where where; /* names, once resolved (fja_analysis_run_sites) */
    uint64_t tasks, forks, submits, steals, executed;
    fja_pcts self;                 /* self time of its executed tasks */
    uint64_t work_ns;              /* summed self time */
    double work_share;             /* of the pool's work */
    uint64_t overhead_ns;          /* estimated: forks x fork cost + steals x steal cost */
    double overhead_share;         /* of the pool's estimated overhead; < 0: unknown */
    uint32_t depth_min, depth_max; /* of its executed tasks */
    uint32_t addresses;            /* recorded addresses merged here (inlined copies of one call) */
    uint32_t stats;                /* its counts in the model's fja_sites (self-time histogram,
                                    * merged by fja_analysis_run_sites); UINT32_MAX once merged */
    /* --baseline: median self time per task here and at the same place in
     * the baseline run; inflation = mean_ns / base_mean_ns (< 0: no match) */
    uint64_t mean_ns, base_mean_ns;
    double inflation;
    bool inflated; /* flagged: grew by FJA_INFLATION_FLAG or more */
} fja_site_report;
/* Was the workers' off-CPU time recorded (docs/analyses.md)? */
typedef enum {
    FJA_OFFCPU_NOT_RECORDED, /* no worker recorded it (older libfj, or excluded) */
    FJA_OFFCPU_RECORDED,     /* every worker: the figures are on-CPU time */
    FJA_OFFCPU_UNKNOWN,      /* refused (perf_event_open) or missing on some worker */
    FJA_OFFCPU_LOST,         /* recorded, but LTTng discarded some off-CPU records */
} fja_offcpu_state;

#define FJA_INFLATION_FLAG 1.25 /* self time per task x1.25 or more: flagged */

/* A pool's task records, moved out of the model into its report
 * (fja_report_take_tasks): what --tasks lists and the subtree diagrams
 * draw, read row by row (fja_task_iter, fja_report_task). */
typedef struct {
    fja_taskmap tasks;    /* the records, by number */
    fja_sites sites;      /* their creation sites */
    uint64_t *tree_roots; /* each tree's root task id, by the records' tree number */
    uint32_t ntrees;
    /* moved in (fja_report_take_tasks moves once); until then the table is
     * all zeros, an empty one: the report lists no task */
    bool taken;
} fja_task_table;

typedef struct {
    fja_pool_totals totals;
    uint32_t pool_index;    /* the model's pool it was made from (fja_report_pool) */
    fja_task_table records; /* its task records, once taken (fja_report_take_tasks) */
    uint32_t workers;
    uint64_t duration_ns;
    uint64_t tasks; /* task records: forked + submitted */
    uint64_t busy_ns, join_ns, search_ns, parked_ns, lock_ns, lifetime_ns;
    uint64_t gap_ns[FJA_GAP_COUNT], gaps[FJA_GAP_COUNT], idle_queued_ns;
    /* shares of lifetime_ns, in percent (0 without a lifetime): the time
     * split by state (FJA_WS_RUN is busy_ns ...), the idle gaps by class */
    double state_pct[FJA_WS_COUNT], gap_pct[FJA_GAP_COUNT];
    double mean_queue_depth; /* time-weighted, averaged over workers */
    int64_t max_queue_depth;
    fja_worker_report *per_worker; /* the workers seen, by index */
    uint32_t nper_worker;
    uint64_t gap_log2[64];  /* idle gaps of length in [2^k, 2^(k+1)) ns */
    fja_lock_report *locks; /* the locks of the pool's trace, as first seen */
    uint32_t nlocks;
    fja_tree_report *trees;
    uint32_t ntrees; /* after --root / --window */
    uint32_t incomplete_trees;
    uint32_t partial_trees; /* begun before the trace; not in work_ns .. speedup */
    /* Whether the pool's span (and so its parallelism and speedup bounds)
     * is known, and if not why: decided once here, read by every writer. */
    fja_span_state span_state;
    uint64_t work_ns, span_ns; /* summed over the selected trees */
    double parallelism;
    double speedup_bound[FJA_SPEEDUP_PS], speedup_burdened[FJA_SPEEDUP_PS];
    /* Off-CPU time: recorded or not; with it, work, span, parallelism, the
     * bounds, self times, the time split and the idle gaps are on-CPU time
     * (oncpu), and the wall-clock twins below are those of a replay without
     * the off-CPU intervals, kept by the same model (fja_model_keep_wall:
     * every reading path that makes an on-CPU model asks for them); equal
     * to them when there were none. */
    fja_offcpu_state offcpu;
    bool oncpu;
    int32_t offcpu_error;                 /* errno of a refusal, 0 if none */
    char offcpu_reason[1024];             /* why it is unknown ("" unless unknown) */
    uint64_t offcpu_lost;                 /* switch records perf dropped */
    uint64_t offcpu_ns[FJA_OFFCPU_KINDS]; /* summed over workers, parks excluded */
    double offcpu_pct[FJA_OFFCPU_KINDS];  /* of lifetime_ns, in percent */
    /* Unattributed: time counted on the CPU (in self times, work, span,
     * busy) that the threads' own CPU clocks did not count (negative: they
     * counted more), summed over workers and the spans between the
     * readings of their clocks; disagree: the sizes of those differences
     * summed (how much on-CPU time may sit elsewhere than where it was
     * counted). FJA_NULL_NS when unknown: off-CPU time not recorded whole,
     * records lost, a worker's clock never read (traces of older recorders) */
    int64_t unattributed_ns, clock_disagree_ns;
    /* The OMPT tool's own time in its callbacks, as it measured it and told
     * it with its CPU clock readings (offcpu_task_clock's tool), summed over
     * workers: tool_ns all of it between their first and last readings,
     * tool_in_tasks_ns the part taken out of the tasks' self time (work,
     * span): tracing overhead inside tasks. FJA_NULL_NS unless every
     * worker's clock was read at its task boundaries with the tool's time
     * told (libfj; traces of older tools). tool_beyond_clock_ns: what the
     * tool told beyond its thread's CPU clock between two readings (not
     * CPU time: a stall inside a callback, a tool that timed itself
     * wrong), in neither; tool_beyond_readings: in how many of the
     * readings' intervals (-1 when the tool's time is unknown) */
    int64_t tool_ns, tool_in_tasks_ns, tool_beyond_clock_ns;
    int64_t tool_beyond_readings;
    /* tool_in_tasks_ns in percent of work_ns (the work it was taken out
     * of); negative when unknown (tool time unknown, or no work) */
    double tool_in_tasks_pct;
    /* Where the on-CPU time of the tasks comes from: each worker's CPU
     * clock read at the task boundaries where time may have been lost
     * (after a switch, at long pieces, now and then: offcpu_task_clock),
     * perf's intervals fitted to it
     * (offcpu.h: exact), or perf's intervals alone (an upper bound: a
     * switch record falls some way into the switch); none: wall-clock */
    enum { FJA_ONCPU_NONE, FJA_ONCPU_SWITCHES, FJA_ONCPU_THREAD_CLOCK } oncpu_clock;
    uint64_t work_wall_ns, span_wall_ns;
    double parallelism_wall, speedup_bound_wall[FJA_SPEEDUP_PS];
    uint64_t steal_cost_ns, join_cost_ns, fork_cost_ns;
    fja_pcts granularity, latency, first_task, handoff, join_latency;
    /* Measured speedup: T(P=1) / T(this pool) when the report holds a pool
     * run with one worker, else (relative false: inferred) the pool's work
     * over its duration; 0 without a duration. */
    double measured_speedup;
    bool measured_relative;
    uint64_t depth_p50[FJA_DEPTH_SLOTS];
    uint32_t cutoff_size; /* UINT32_MAX: no cutoff advice */
    double cutoff_saving;
    /* without size hints (OpenMP): make tasks only above this depth, where
     * a task's subtree carries >= 50x the fork cost (UINT32_MAX: none) */
    uint32_t cutoff_depth;
    double cutoff_depth_saving;
    /* every explicit task was made by an implicit one (depth 1): a flat
     * graph (a loop of tasks, a dependence grid), where no depth cutoff
     * applies: cutting at depth 1 would serialise the program */
    bool flat;
    fja_advice advice[FJA_MAX_ADVICE];
    uint32_t nadvice;
    /* every unfinished task of the pool (not narrowed by --root/--window),
     * active ones first: where each worker was when the program died */
    fja_unfinished *unfinished;
    uint32_t nunfinished;
    uint32_t unfinished_by_state[FJA_UT_COUNT];
    /* creation sites, most work first; sites_known false when the trace
     * carries no site (recorded before sites existed, or by another tool) */
    fja_site_report *sites;
    uint32_t nsites;
    bool sites_known;
    /* --baseline: compared with a baseline run of baseline_workers workers;
     * baseline_oncpu: its self times are on-CPU time. Self times on two
     * clocks are not compared (every inflation n/a): a wall-clock baseline
     * counts the preemptions an on-CPU run leaves out. */
    bool has_baseline;
    uint32_t baseline_workers;
    bool baseline_oncpu;
} fja_pool_report;

/* One trace of the report (a source holding a pool): its first and last
 * pool event. Several traces analysed together may lie far apart in time. */
typedef struct {
    uint32_t source;
    uint64_t first_ts, last_ts;
} fja_trace_span;

/* The trace as a whole, copied from the model. */
typedef struct {
    uint64_t events, discarded_events, discard_messages, unknown_events, out_of_order;
    uint64_t first_ts, last_ts; /* the first and last event (the model's clock) */
    uint64_t duration_ns;       /* last_ts - first_ts */
    bool window_clipped;        /* begins mid-run (a snapshot) ... */
    uint64_t window_events;     /* ... with this many earlier events left out */
    char decode_error[512];     /* why decoding stopped early ("" when it did not) */
    char invalid_first[768];    /* the first invalid event's reason ("" when none) */
    uint64_t anomalies[FJA_AN_COUNT];
    fja_anomaly examples[FJA_ANOMALY_EXAMPLES];
    uint32_t nexamples;
    uint64_t model_bytes; /* what the model held (fja_model_bytes) */
    /* --recording TOKEN: the pools of other recordings left out */
    bool recording_set;
    uint64_t recording, left_out_pools, left_out_events;
} fja_trace_summary;

/* The report is a value: every figure the writers show, built once from a
 * finished model (fja_analysis_run) and holding no pointer into it; the
 * task records moved into it (fja_report_take_tasks), the model is not
 * needed to write or draw it. */
typedef struct {
    fja_trace_summary trace;
    fja_pool_report *pools;
    uint32_t npools;
    fja_trace_span *traces; /* by source, whatever --pool selects */
    uint32_t ntraces;
    bool complete; /* no discarded events, no unfinished task, no anomaly */
    uint64_t anomalies;
} fja_report;

/* Builds the report of a finished model. Returns 0, -1 when out of memory. */
int fja_analysis_run(const fja_model *m, const fja_filter *f, fja_report *r);
/* fja_analysis_run, then every site named with resolve (NULL: addresses
 * only), the addresses of one place merged into one site (their self-time
 * histograms are the model's: merged while it is there), and the advice
 * per site (too small, too few) appended (sites_report.c): the report is
 * whole when this returns. Returns 0, -1 when out of memory. */
int fja_analysis_run_sites(const fja_model *m, const fja_filter *f, fja_site_resolver resolve,
                           void *ctx, fja_report *r);
void fja_analysis_free(fja_report *r);
/* Appends the advice for one pool of r (advice.c): from the report alone. */
void fja_advice_make(const fja_report *r, fja_pool_report *pr);
/* Sums up the pool's creation sites (sites_report.c). Returns 0, -1 when
 * out of memory. */
int fja_sites_analyze(const fja_pool *p, fja_pool_report *pr);

/* The model's pool of a report's pool pr (m: the one the report was made
 * from): for the analyses while they make the report, and the tests. */
const fja_pool *fja_report_pool(const fja_model *m, const fja_pool_report *pr);

/* Moves the task records of r's pools out of m (r made from it, its
 * analyses done: fja_analysis_run, the sites too) into r, which lists and
 * draws every task from then on without m; m keeps no task record (its
 * other figures stay). Once. Returns 0, -1 when out of memory (the
 * records not moved: r lists no task). */
int fja_report_take_tasks(fja_report *r, fja_model *m);

/* Does a tree with root task id `root` exist in the pools of r, in any
 * --window, or, with tasks (every task's record kept: the subtree
 * pictures), a task of that id (--subtrees --root draws its subtree)?
 * After fja_report_take_tasks. */
bool fja_report_has_root(const fja_report *r, uint64_t root, bool tasks);

/* One task record, as --tasks lists it and the subtree pictures draw it. */
typedef struct {
    uint64_t id, root, parent; /* 0: none */
    /* the record's number and its parent's (FJA_TASK_NONE: none), which
     * link the rows of one pool (a parent's row comes before its
     * children's) */
    uint32_t record, parent_record;
    uint32_t depth, size_hint, children;
    int32_t worker; /* the forker until its body began (ran), then the executor */
    bool ran, stolen, completer, finished;
    uint64_t self_ns, subtree_ns;
    uint64_t done_span_ns; /* the longest path that ends when it is done (its done-span) */
    uint64_t site;         /* its creation site's address, 0: none recorded */
} fja_task_row;

/* Every task record of one report pool, in record order:
 *   fja_task_iter it = fja_task_iter_begin(pr);
 *   for (fja_task_row t; fja_task_iter_next(&it, &t);) ... */
typedef struct {
    const fja_task_table *table;
    uint32_t next;
} fja_task_iter;
fja_task_iter fja_task_iter_begin(const fja_pool_report *pr);
bool fja_task_iter_next(fja_task_iter *it, fja_task_row *row);

/* Task records by number, for what draws them (the subtree diagrams): the
 * numbers of pool pr's records run from 0 to fja_report_task_records (a
 * parent's below its children's); fja_report_task fills the row of one,
 * false for a number that holds no task (a recycled record). */
uint32_t fja_report_task_records(const fja_pool_report *pr);
bool fja_report_task(const fja_pool_report *pr, uint32_t record, fja_task_row *row);

/* The report pool of r that holds a task of that id, and its record's
 * number; NULL if none (the subtree pictures' --root). */
const fja_pool_report *fja_report_find_task(const fja_report *r, uint64_t id, uint32_t *record);

/* Work inflation per site against base, a resolved report of the same
 * program (pool i against base's pool i, or its first): each site is
 * matched by place (binary name, file, line, function; else binary name and
 * offset) and flagged, with advice, where its self time per task grew. */
void fja_sites_baseline(fja_report *r, const fja_report *base);
/* "fib.c:20 (fib_split)", "libx.so+0x1234", or "0x55d0c2a1b662": where a
 * site is, in the fewest words the resolution allows. */
const char *fja_site_label(char *buf, size_t n, const fja_site_report *s);
/* Appends one piece of advice to the pool's (advice.c). */
/* The same advice in ForkJoinPool's terms (advice_java.c, docs/java.md). */
void fja_advise_pile_up_java(fja_pool_report *pr, uint64_t median_ns, uint64_t fork_ns);
void fja_advise_dry_java(fja_pool_report *pr, double idle, double join);
void fja_advise(fja_pool_report *pr, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fills p from the n values in v (sorted in place). */
void fja_analysis_pcts(uint64_t *v, uint64_t n, fja_pcts *p);

#endif
