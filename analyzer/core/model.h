/* The model: pools, workers, task records and decomposition trees. The
 * tracker (tracker.h) replays the time-ordered events into it (frame
 * stacks, states, queue depths, task records) and the model's accounting,
 * its first listener (model.c), accumulates every measure that needs the
 * event order (self time, span, idle gaps, queue area, milestones) as the
 * changes arrive, in accumulators of its own (the bodies under way:
 * fja_body), so nothing but compact per-task records is kept. */
#ifndef FJA_MODEL_H
#define FJA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "depend.h"
#include "event.h"
#include "hist.h"
#include "sites.h"
#include "taskmap.h"

/* The clocks a model keeps task and tree figures on (self time, span,
 * work): its own, on-CPU time in a model fed the off-CPU boundaries, else
 * wall-clock time; and the wall-clock twins of a model fed them that keeps
 * them too (fja_model_keep_wall): the figures a model fed no boundary
 * would have, from the same replay. One set of span rules (model.c, "span")
 * runs on each clock the pool keeps. */
typedef enum { FJA_CLOCK_OWN, FJA_CLOCK_WALL, FJA_CLOCKS } fja_clock;

/* A tree's work and span on one clock (fja_tree's own, or a twin:
 * fja_pool.tree_walls). */
typedef struct {
    uint64_t work_ns, span_ns;
} fja_tree_clock;

/* What a worker is doing; the per-worker time split. */
typedef enum {
    FJA_WS_OFF,    /* before worker_begin / after worker_end */
    FJA_WS_RUN,    /* running a task body */
    FJA_WS_JOIN,   /* waiting in a join, not running a helped task */
    FJA_WS_SEARCH, /* awake with no task: looking for work */
    FJA_WS_PARK,   /* parked on its futex */
    FJA_WS_LOCK,   /* its running task waits for an fj_mutex (lock_wait..lock_acquired) */
    FJA_WS_COUNT
} fja_wstate;

/* How an idle gap is classified (docs/analyses.md): the one list of the
 * classes, in report order. A row: the enum's name, the JSON report's key,
 * the text report's words, and whether the class exists only with off-CPU
 * time recorded (then null in the JSON and a line of its own in the text
 * when it was not). The enum and fja_gap_classes are made from this list,
 * and the writers loop over fja_gap_classes: a class added here is named
 * in every report, none can be forgotten. HOLDER_OFFCPU: a worker running
 * a task was off the CPU meanwhile. */
#define FJA_GAP_CLASSES(X)                                                                         \
    X(NO_WORK, "no_work", "no work anywhere", false)                                               \
    X(WORK_QUEUED, "work_queued", "work queued elsewhere", false)                                  \
    X(JOIN, "join", "waiting at a join", false)                                                    \
    X(LOCK, "lock", "waiting for a lock", false)                                                   \
    X(HOLDER_OFFCPU, "holder_offcpu", "idle while a worker holding a task was off the CPU", true)

typedef enum {
#define FJA_GAP_ENUM(name, key, text, offcpu_only) FJA_GAP_##name,
    FJA_GAP_CLASSES(FJA_GAP_ENUM)
#undef FJA_GAP_ENUM
        FJA_GAP_COUNT
} fja_gap_class;

typedef struct {
    const char *key;  /* the JSON report's */
    const char *text; /* the text report's */
    bool offcpu_only; /* known only when off-CPU time was recorded */
} fja_gap_info;

/* By class (FJA_GAP_CLASSES). */
extern const fja_gap_info fja_gap_classes[FJA_GAP_COUNT];

/* Kinds of inconsistent events, counted and listed. */
typedef enum {
    FJA_AN_EXECUTED_WITHOUT_EXEC,
    FJA_AN_EXEC_UNKNOWN_TASK,
    FJA_AN_DUPLICATE_ID,
    FJA_AN_UNKNOWN_PARENT,
    FJA_AN_SELF_PARENT,
    FJA_AN_DUPLICATE_EXEC,
    FJA_AN_UNBALANCED_NESTING,
    FJA_AN_STEAL_UNKNOWN_TASK,
    FJA_AN_JOIN_MISMATCH,
    FJA_AN_COMPLETED_WITHOUT_COMPLETING,
    FJA_AN_UNKNOWN_TASK_EVENT,
    FJA_AN_NOT_ON_WORKER,
    FJA_AN_EXEC_ELSEWHERE_WITHOUT_STEAL,
    FJA_AN_RESULT_WITHOUT_SUBMIT,
    FJA_AN_OUT_OF_MEMORY,
    FJA_AN_INVALID_EVENT, /* its claims failed validation (validate.h, tracker.c): not believed */
    FJA_AN_COUNT
} fja_anomaly_kind;

const char *fja_anomaly_kind_name(fja_anomaly_kind k);

#define FJA_ANOMALY_EXAMPLES 16
/* stays off the CPU a worker remembers for the ahead of its joins */
#define FJA_OFF_RECENT 8

typedef struct {
    fja_anomaly_kind kind;
    uint64_t ts, task;
    uint32_t pool;
    int32_t worker;
} fja_anomaly;

/* Where an unfinished task was when the trace ended (a killed or crashed
 * program): the states the model tells apart, in report order. */
typedef enum {
    FJA_UT_RUNNING,    /* its body, on top of a worker's stack */
    FJA_UT_LOCK_WAIT,  /* its body waits for an fj_mutex */
    FJA_UT_COMPLETING, /* a counted completer in its completing..completed phase */
    FJA_UT_WAITING,    /* its body waits at a join (helped tasks may run above it) */
    FJA_UT_SUSPENDED,  /* its body is under a task it runs inline (not a waiting join) */
    FJA_UT_STOLEN,     /* taken by a thief that has not started it */
    FJA_UT_QUEUED,     /* forked or submitted, never taken */
    FJA_UT_UNKNOWN,    /* an inconsistent event lost its frame (see the anomalies) */
    FJA_UT_COUNT
} fja_ustate;

/* A task the replay left under way at the end of the trace, as the
 * tracker told it (FJA_CHANGE_UNFINISHED): the frames of its workers'
 * stacks and the completions under way, kept for the report of a killed
 * program in the order told (a later one says more: a completer's
 * completion after its frame). */
typedef struct {
    uint64_t since;   /* when it came to be so */
    uint64_t awaited; /* FJA_UT_WAITING: the task id it waits for (0: none named) */
    uint32_t task;    /* record number */
    int32_t worker;   /* -1: a client thread */
    fja_ustate state;
} fja_left;

/* A task body under way on a worker as the model books it (model.c): a
 * stack of its own per worker, pushed by the tracker's TASK_BEGIN and
 * TASK_RESUME and popped by TASK_END, TASK_LOST and TASK_SUSPEND, so that
 * its levels are those of the tracker's frames; whether the top one runs
 * comes with SETTLED and OFFCPU_OUT/IN. */
typedef struct {
    uint32_t task; /* record number */
    bool running;  /* accruing self time: its body runs, its worker on the CPU */
    bool off_cpu;  /* its body runs, but its worker is off the CPU (not self time) */
    /* it waits in a join (JOIN_BEGIN to JOIN_END) for record awaited
     * (FJA_TASK_NONE: every child, a taskwait; itself: a barrier), which
     * its child's end asks (model.c join_body, joined_now) */
    bool in_join;
    uint32_t awaited;
    uint64_t seg_start; /* start of the current running segment */
    /* start of the current segment as a model fed no off-CPU boundary has
     * it (the wall-clock twins, fja_model_keep_wall): running or off_cpu */
    uint64_t wall_seg_start;
    /* in a join_stolen: how much later the awaited task's path reaches us
     * (the fork's and the join's own cost, model.c stolen_join_shift) */
    uint64_t join_shift[FJA_CLOCKS]; /* per clock (fja_clock) */
} fja_body;

typedef struct {
    int32_t index;
    /* its life as the changes tell it: seen (an event of its was
     * replayed: SETTLED), ended (WORKER_END), from the first STATE out of
     * FJA_WS_OFF (its since) to the last WORKER_END */
    bool seen, ended;
    uint64_t begin_ts, end_ts;
    fja_body *bodies; /* the model's */
    uint32_t nbodies, cap_bodies;
    uint32_t in_joins; /* bodies of its stack in a join: none, no join to look for */
    fja_wstate state;  /* the last STATE's to, since state_ts */
    uint64_t state_ts;
    uint64_t state_ns[FJA_WS_COUNT];
    /* current idle gap */
    bool in_gap;
    fja_gap_class gap_class;
    uint64_t gap_start, gap_queued_at_start;
    uint64_t gap_ns[FJA_GAP_COUNT], gaps[FJA_GAP_COUNT];
    uint64_t idle_queued_ns;                  /* search/park time while work was queued */
    uint64_t gap_off_ns, gap_holder_at_start; /* the current gap's off-CPU time */
    /* the current no-work gap's time with work queued somewhere else than
     * on this worker's own deque (up to gap_else_ts) */
    uint64_t gap_else_ns, gap_else_ts;
    /* Off-CPU time (OFFCPU_IN): time off the CPU outside parks by kind (a
     * parked worker sleeps by design: that is park time). */
    uint64_t off_ns[FJA_OFFCPU_KINDS];
    uint64_t state_off_ns; /* off-CPU time booked apart within the current state */
    /* the worker's last FJA_OFF_RECENT stays off the CPU, a ring: an
     * exec_joined's or join_stolen's ahead is wall-clock time, and a
     * stretch of it may hold several (two preemptions seen in 84 us) */
    struct {
        uint64_t out, in;
    } off_recent[FJA_OFF_RECENT];
    uint32_t off_recent_next;
    /* its off-CPU recording: started, refused (errno, 0 if not), records lost */
    bool offcpu_started;
    int32_t offcpu_error;
    uint64_t offcpu_lost, offcpu_intervals;
    /* Its CPU clock (offcpu_clock): read at all; over the spans between
     * readings, the time perf's records put on the CPU less what the clock
     * counted (unattributed: either sign, a switch record falls late or
     * early), and the sum of its sizes span by span */
    bool clock_read;
    bool task_clock; /* read at each task boundary (offcpu_task_clock) */
    int64_t unattributed_ns;
    uint64_t clock_disagree_ns;
    /* The OMPT tool's own time its readings told (tool_told: they tell
     * it), and the part of it taken out of the tasks' self time (model.c,
     * on_tool_time); beyond: told beyond the thread's CPU clock between two
     * readings, left out of tool_ns (TOOL_TIME's beyond) */
    bool tool_told;
    uint64_t tool_ns, tool_taken_ns, tool_beyond_ns;
    /* readings whose interval told some beyond: one stall inside a
     * callback tells it in one, a tool that times itself wrong in many */
    uint32_t tool_beyond_readings;
    /* A reading whose callback goes on to the switch it was made for
     * (CLOCK_READ's switch_follows), at tail_from, until its TOOL_TAIL
     * (tail_open); the time from it to the switch, kept out of the pieces
     * as the tool's (model.c, piece_end) until the next reading tells it
     * (tool_ahead_ns) */
    bool tail_open;
    uint64_t tail_from, tool_ahead_ns;
    /* queue (deque) depth, as the QUEUE changes tell it */
    int64_t qdepth, qmax;
    uint64_t q_ts;
    double q_area;     /* integral of depth over time, ns */
    uint32_t cur_tree; /* tree of the running top frame */
    /* counts */
    uint64_t tasks, forks, steals, joins_waited, parks, wakes, lock_waits;
    /* pending steal -> exec (STEAL, then TASK_BEGIN of that task) */
    uint32_t stolen_task;
    uint64_t steal_ts;
    /* fork-cost estimate: the worker's previous event (its SETTLED) was a
     * fork (fork_last), this one is (forking); the last fork's time and
     * parent */
    bool fork_last, forking;
    uint64_t last_fork_ts, last_fork_parent;
    /* the task this worker forked last, and its parent's self time then
     * (a join_stolen for it: the parent's strand from the fork) */
    uint32_t last_fork_task;
    uint64_t last_fork_self[FJA_CLOCKS]; /* per clock (fja_clock) */
    /* the untied task whose part ended here last, and the tasks this
     * worker had begun then: a suspension counts once it ran another task
     * or another worker resumed it */
    uint32_t parted_task;
    uint64_t parted_execs;
} fja_worker;

typedef struct {
    uint64_t root_id;
    uint32_t root; /* record number */
    uint64_t submit_ts, first_exec_ts, full_par_ts, last_done_ts, done_ts, result_ts;
    uint64_t tasks, executed, forks, steals, joins_waited, unfinished;
    union { /* on the model's own clock, by name or as one */
        fja_tree_clock clock;
        struct {
            uint64_t work_ns, span_ns;
        };
    };
    uint32_t max_depth, max_arity;
    uint64_t workers_mask; /* workers 0..63 that ran one of its tasks */
    uint32_t busy_now;     /* workers running one of its tasks now */
    bool has_submit, has_result, done, lossy, full_par, started;
    /* its client thread off the CPU (offcpu_client) within submit..result,
     * by kind, and the part of that after the tree was done (the wake-up
     * in the final hand-off) */
    uint64_t client_off_ns[FJA_OFFCPU_KINDS], client_wake_ns;
} fja_tree;

#define FJA_DEPTH_SLOTS 64
#define FJA_SIZE_SLOTS 256

typedef struct {
    uint32_t source, id;
    uint32_t nworkers_declared; /* pool_begin's workers, 0 if not seen */
    char procname[32];          /* the process, from pool_begin ("" if unknown) */
    /* pool_runtime: the model ("openmp"; "" for libfj) and the runtime's
     * version string. OpenMP pools have inferred steals and no parking. */
    char runtime_model[16], runtime_version[64];
    /* a client thread's off-CPU recording began (offcpu_start, worker -1),
     * or was refused (offcpu_unavailable: its errno) */
    bool client_offcpu_started;
    int32_t client_offcpu_error;
    bool openmp;
    bool jvm; /* made by java.util.concurrent.ForkJoinPool (the JVM agent, docs/java.md) */
    uint64_t dependences;                   /* dependence edges (OpenMP depend) */
    fja_depend deps;                        /* the edges whose predecessor is not done */
    uint64_t barrier_waits, taskwait_waits; /* OpenMP joins: a barrier, a taskwait/taskgroup */
    /* untied parts ended whose task really left its thread (another task
     * ran there, or another worker resumed it) */
    uint64_t suspends;
    /* per depth (saturated): tasks executed and their summed subtree work,
     * for a depth cutoff when tasks carry no size hint (OpenMP) */
    uint64_t depth_tasks[FJA_DEPTH_SLOTS], depth_subtree_ns[FJA_DEPTH_SLOTS];
    int64_t pid; /* -1 if unknown */
    /* first_ts, last_ts: its first and last event (POOL_SPAN, at the end) */
    uint64_t begin_ts, end_ts, first_ts, last_ts;
    bool has_begin, has_end;
    /* joins_told: every join is in the trace (join_done too), so a child's
     * path joins its parent's at the join, not when the child is done */
    bool joins_told;
    bool any_size_hint; /* a task carried a size hint (size_tasks below) */
    fja_worker *workers;
    uint32_t nworkers; /* allocated (max index seen + 1 or declared) */
    fja_taskmap tasks;
    fja_worker client; /* what the changes name of threads that are not workers */
    fja_tree *trees;
    uint32_t ntrees, cap_trees;
    /* tasks queued anywhere: deques plus submitted roots not started */
    int64_t pending_roots, queued;
    uint32_t nowork_gaps;           /* workers in a searching/parked gap now */
    uint64_t queued_cum, queued_ts; /* time with queued > 0, up to queued_ts */
    /* workers off the CPU in the middle of a task body, and the time with
     * at least one of them, up to holder_off_ts */
    int64_t holders_off;
    uint64_t holder_off_cum, holder_off_ts;
    /* totals */
    uint64_t forks, steals, joins_waited, parks, wakes, submits, results, execs;
    uint64_t lock_waits, lock_waits_outside; /* outside: no running task to charge */
    /* exec..executed summed over every body, nested ones inside their
     * parents' too (the brief's EXEC->EXECUTED: not a time, it grows with
     * nesting depth); the time inside outermost bodies (a time) */
    uint64_t exec_to_executed_ns, outermost_bodies_ns;
    uint64_t completing_to_completed_ns, completions;
    uint64_t orphans, unfinished;
    fja_hist self_hist, depth_hist[FJA_DEPTH_SLOTS], join_latency, steal_latency, gap_hist;
    uint64_t steal_depth[FJA_DEPTH_SLOTS];
    /* per size hint (saturated at FJA_SIZE_SLOTS-1): tasks and summed subtree work */
    uint64_t size_tasks[FJA_SIZE_SLOTS], size_subtree_ns[FJA_SIZE_SLOTS];
    /* beside trees, cap_trees of them (fja_model_keep_wall); where
     * any_size_hint's padding was, so that the pool's size (model_bytes)
     * stays */
    fja_tree_clock *tree_walls;
    /* consecutive forks by one parent on one worker: a fork-cost estimate */
    fja_hist fork_interval;
    fja_sites sites; /* per creation site */
    fja_left *left;  /* the tasks left under way at the end (FJA_CHANGE_UNFINISHED) */
    uint32_t nleft, cap_left;
} fja_pool;

/* An fj_mutex seen in a trace (lock ids are unique per process, so per
 * source): its name and the time workers spent waiting for it. */
#define FJA_LOCK_NAME_MAX 64
typedef struct {
    uint32_t source, id;
    char name[FJA_LOCK_NAME_MAX];
    uint64_t waits, wait_ns;
} fja_lock;

typedef struct {
    fja_pool *pools;
    uint32_t npools, cap_pools;
    fja_lock *locks;
    uint32_t nlocks, cap_locks;
    uint64_t events, unknown_events, discarded_events, discard_messages;
    uint64_t by_kind[FJA_EV_COUNT];
    uint64_t first_ts, last_ts;
    uint64_t out_of_order; /* events older than their predecessor */
    uint64_t anomalies[FJA_AN_COUNT];
    fja_anomaly examples[FJA_ANOMALY_EXAMPLES];
    uint32_t nexamples;
    char decode_error[512]; /* why decoding stopped early ("" when it did not) */
    /* why the off-CPU streams could not be read ("" when they could) */
    char offcpu_unread[1024];
    /* Off-CPU records LTTng discarded (fja_model_offcpu_lost): notices,
     * events (0 when not counted), from when (ns), and the streams. */
    uint64_t offcpu_lost_notices, offcpu_lost_events, offcpu_lost_from;
    /* The first invalid event's reason (fja_model_invalid), "" if none. */
    char invalid_first[768];
    char offcpu_lost_streams[512];
    /* The trace begins mid-run (fja_model_window): events before it left out */
    uint64_t window_events;
    bool window_clipped;
    bool oom; /* memory ran out in the model (the replay's: fja_tracker_oom) */
    /* fed the off-CPU boundaries (offcpu.h): self times, work, span, the
     * time split and idle gaps are on-CPU time (the reading that feeds
     * them says so: fja_reading_ahead, the CLI's second reading) */
    bool oncpu;
    bool recycle; /* fja_model_recycle */
    bool wall;    /* fja_model_keep_wall */
    /* --recording TOKEN (fja_tracker_recording; told at the end,
     * TRACE_END): the pools whose pool_begin carries another token were
     * left out by the tracker, their events not replayed; how many of
     * each */
    bool recording_set;
    uint64_t recording;
    uint64_t left_out_pools, left_out_events;
} fja_model;

void fja_model_init(fja_model *m);
/* Before the first event: finished tasks give their records back
 * (recycle.h), so memory follows the tasks under way. The reports are the
 * same; what needs every task's record (the --tasks list, the subtree
 * pictures) must not ask for it. */
void fja_model_recycle(fja_model *m);
/* Before the first event, for a model fed the off-CPU boundaries: it also
 * keeps the work and span of every tree as a model fed none would have
 * them (fja_pool.tree_walls: the wall-clock figures), so one replay gives
 * both. Their twins of self time and span are kept beside each task record
 * (taskmap.h), the start of the running segment in each body (fja_body). */
void fja_model_keep_wall(fja_model *m);
/* The highest worker index a pool has (fja_task.worker is 16 bits): the
 * replay takes an event of a worker beyond it for one not on a worker.
 * The model makes a worker's slot (fja_pool.workers, up to the highest
 * index named) at the first change that names it (change.h). */
#define FJA_MAX_WORKER 32767
/* Copies a name from the trace, control characters replaced by '?'. */
void fja_name_copy(char *dst, size_t n, const char *src);
void fja_model_free(fja_model *m);
/* Empties m for another reading of the trace, keeping what it was told
 * before the first event about which records to keep (fja_model_recycle);
 * not fja_model_keep_wall, which a reading path chooses for itself, nor
 * the recording, which the next tracker is told (fja_tracker_recording). */
void fja_model_restart(fja_model *m);
/* Records a babeltrace2 "discarded events" notice: count events were lost
 * from one stream of trace `source`. Every tree of that trace still open
 * now is marked lossy. */
void fja_model_discarded(fja_model *m, uint64_t count, uint64_t ts, uint32_t source);
/* Records that decoding failed part-way (a truncated or damaged stream):
 * the model holds the events before that point, and every report made
 * from it says so and is incomplete. */
void fja_model_decode_stopped(fja_model *m, const char *why);
/* Records that the trace's off-CPU streams could not be read (why names
 * the file): every pool's off-CPU time is unknown, its figures wall-clock
 * time. */
void fja_model_offcpu_unread(fja_model *m, const char *why);
/* Records that LTTng discarded count off-CPU records (0: not counted) of
 * the off-CPU stream `stream` (its file) between begin_ts and end_ts:
 * some off-CPU intervals are missing, so every pool's off-CPU time is
 * `lost`, its figures wall-clock time, and the report is not whole. The
 * task events are all there: no tree is made incomplete by it. */
/* An event read but not believed by the reader (validate.h): counted as
 * read and as an anomaly (invalid_event), never fed; the first reason
 * (naming the file and packet) is kept. The tracker's own checks tell
 * theirs as FJA_CHANGE_ANOMALY (tracker.h). */
void fja_model_invalid(fja_model *m, const fja_event *ev, const char *why);
void fja_model_offcpu_lost(fja_model *m, uint64_t count, uint64_t begin_ts, uint64_t end_ts,
                           const char *stream);
/* Records that the trace begins mid-run (its buffers' beginnings were
 * overwritten: a snapshot) and was read from the point where every stream
 * has its events; `left_out` events before that were not fed. Trees begun
 * before that point are partial (analysis.h). */
void fja_model_window(fja_model *m, uint64_t left_out);
/* Live task count, tree count and bytes held, for memory reporting. */
size_t fja_model_bytes(const fja_model *m);

/* What a listener may ask of the task a change names (record n of pool p,
 * filled in by the changes before it): facts, not the record, whose
 * layout stays the model's. */
typedef struct {
    uint64_t id;
    uint64_t site;      /* its creation site's address, 0: none recorded */
    uint32_t tree;      /* its tree's number, FJA_TASK_NONE: none (an orphan) */
    uint32_t size_hint; /* 0: none */
    bool forked;        /* a fork made it */
    bool submitted;     /* a submission made it (a root) */
} fja_task_facts;
fja_task_facts fja_model_task_facts(const fja_pool *p, uint32_t n);

#endif
