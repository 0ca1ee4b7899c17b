/* fjviz internals shared by its files: the collector's data, formatting,
 * escaping and the worker palette. */
#ifndef FJV_VIZ_INT_H
#define FJV_VIZ_INT_H

#include <stddef.h>

#include "fja.h"
#include "viz.h"

/* ------------------------------------------------------------ collector */

/* Lane states (the tracker's worker states, and the worker's thread off
 * the CPU, preempted or blocked, as the on-CPU replay tells it), drawn in
 * this order of precedence in the legend. */
typedef enum {
    LS_RUN,
    LS_JOIN,
    LS_SEARCH,
    LS_PARK,
    LS_LOCK,
    LS_PREEMPTED,
    LS_BLOCKED,
    LS_COUNT
} fjv_lstate;

/* Per-lane time buckets. A fixed number of buckets covers [t0, t0 +
 * NBUCKETS * res) of each pool, from its own first event; when time runs
 * past the end, every lane of the pool merges bucket pairs and res doubles,
 * so memory stays constant for any trace length. */
#define NBUCKETS 4096

typedef struct {
    uint64_t ns[LS_COUNT];
    uint64_t run_tree_ns; /* running time of run_tree in this bucket */
    uint32_t run_tree;    /* the tree that ran longest here */
    uint32_t qmax;        /* deepest queue seen in the bucket */
    uint32_t lock;        /* the lock waited for longest here (lock_ns of it) */
    uint64_t lock_ns;
} fjv_bucket;

/* A lane: a worker, or the client threads of a pool. What it is doing is
 * the tracker's; the lane only remembers it since its last change, to book
 * that time into the buckets. */
typedef struct {
    fjv_bucket *b; /* NBUCKETS */
    int state;     /* fjv_lstate, -1: off */
    uint32_t tree; /* the running task's tree */
    uint32_t lock; /* LS_LOCK: the lock id */
    /* the lock its worker's last lock wait waits for (LOCK_BEGIN of a
     * task), taken as lock when the event is applied (SETTLED) */
    uint32_t lock_told;
    uint64_t state_ts;
    /* the worker's thread is off the CPU (LS_PREEMPTED or LS_BLOCKED,
     * booked instead of a running or searching state); 0: on it */
    int off;
} fjv_lane;

typedef struct {
    uint64_t ts;
    uint32_t pool; /* collector pool index */
    int32_t thief, victim;
} fjv_steal;

typedef struct {
    uint32_t source, id;
    fjv_lane *lanes; /* lanes[0] = clients, lanes[1 + w] = worker w */
    uint32_t nlanes;
    uint32_t outstanding; /* client requests submitted, no result yet */
    uint64_t t0, res;     /* the pool's own time axis: its first event, ns per bucket */
    uint64_t last_ts;
    bool started;
    /* who made it, as its pool_begin said (its label): "" and -1 unknown */
    char procname[32];
    int64_t pid;
} fjv_pool;

/* A lock's name, as its trace's lock_init said (the timeline's hover). */
typedef struct {
    uint32_t source, id;
    char name[FJA_LOCK_NAME_MAX];
} fjv_lock_name;

/* A stolen task's fork -> exec delay, for the subtree diagrams. */
typedef struct {
    uint64_t task, ns;
    uint32_t pool; /* collector pool index */
} fjv_delay;

/* A dependence edge (OpenMP depend): record sink waited for record pred. */
typedef struct {
    uint32_t pool; /* collector pool index */
    uint32_t sink, pred;
} fjv_dep;

struct fjv_collector {
    fjv_pool *pools; /* index = the model's pool index */
    uint32_t npools;
    bool started; /* a change of a pool came */
    /* stolen tasks, appended at their exec, sorted by (pool, task) when
     * the trace ends (fjv_collect_finish) */
    fjv_delay *delays;
    size_t ndelays, cap_delays;
    bool delays_sorted;
    /* dependence edges, sorted by (pool, sink) with the delays */
    fjv_dep *deps;
    size_t ndeps, cap_deps;
    fjv_steal *steals;
    uint32_t nsteals, steal_stride, steal_seen;
    fjv_lock_name *lock_names;
    uint32_t nlock_names, cap_lock_names;
    const fjv_options *o; /* the options it was made with (site names) */
    /* the on-CPU replay tells it when workers leave the CPU
     * (pictures_start on the on-CPU tracker): the lanes show it */
    bool offcpu_shown;
};

/* The name of lock id of trace source (NULL: none told). */
const char *fjv_lock_name_of(const fjv_collector *c, uint32_t source, uint32_t id);
/* Pool p's label, "1 of process NAME pid N" (fja_pool_label). */
const char *fjv_pool_label(const fjv_pool *p, char *buf, size_t n);

/* Is the change about a pool's client threads (a submission, a result)? */
bool fjv_change_is_client(const fja_pool *mp, const fja_change *ch);

/* ------------------------------------------------------------ exporter */

/* A lane of the Chrome and Perfetto traces (export.c): a worker, or the
 * client threads of a pool, and the slices open on it. */
typedef struct {
    uint32_t open; /* slices open on it */
    bool named;    /* Chrome trace thread name written */
    bool in_lock;  /* a lock wait's slice is open */
    /* of the open slices, those begun before the export window (the
     * bottom of the nest) and after it (the top): not written */
    uint32_t skip_below, skip_above;
    uint32_t pf_seq; /* its Perfetto packet sequence, 0: none yet */
    /* the Chrome trace's off-CPU track of the worker: named, and a stay
     * off the CPU open on it */
    bool off_named, off_open;
} fjv_xlane;

typedef struct {
    uint32_t source, id;
    fjv_xlane *lanes; /* lanes[0] = clients, lanes[1 + w] = worker w */
    uint32_t nlanes;
    uint32_t outstanding; /* client requests submitted, no result yet */
    uint64_t t0;          /* its first event */
    uint64_t last_ts;
    uint64_t pf_uuid; /* its Perfetto process track, 0: none yet */
    bool started, named;
} fjv_xpool;

/* A slice the exporter opens on a lane. */
typedef struct {
    const char *name;           /* its label: the task's creation site, "join wait" ... */
    const fja_task_facts *task; /* NULL: not a task's body */
    int64_t lock;               /* a lock wait's lock id, -1: none */
    /* a task's body begun after its fork, both in the window: a flow from
     * worker `from` (-1: none) at from_ts, a steal or not; from_lane: the
     * forker's lane when another worker stole it (else NULL) */
    int32_t from;
    uint64_t from_ts;
    bool stolen;
    fjv_xlane *from_lane;
} fjv_xslice;

/* A trace format of the exporter (export.c): its file is the fjv_options
 * field at offset `path`; open makes it (t0: the exporter's origin, its
 * first event; NULL and err when it cannot), the others write what the
 * exporter's slices do as they come (offcpu and oncpu may be NULL: not
 * shown), close finishes and frees it (0, or -1 said on stderr), abort
 * removes the unfinished file and frees it. */
typedef struct {
    size_t path;
    void *(*open)(const fjv_options *o, const uint64_t *t0, char *err, size_t errlen);
    void (*lane)(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker);
    void (*begin)(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                  const fjv_xslice *s);
    void (*end)(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts);
    void (*counter)(void *f, fjv_xpool *p, fjv_xlane *l, const char *name, int32_t worker,
                    uint64_t v, uint64_t ts);
    void (*offcpu)(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                   const char *why);
    void (*oncpu)(void *f, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts);
    int (*close)(void *f);
    void (*abort)(void *f);
} fjv_format;

/* The Chrome trace (chrome.c). */
extern const fjv_format fjv_chrome_format;

fjv_pool *fjv_pool_find(const fjv_collector *c, uint32_t source, uint32_t id);
/* Steal delay of task id in pool, or false. */
bool fjv_steal_delay(const fjv_collector *c, const fjv_pool *p, uint64_t id, uint64_t *ns);
/* The dependence edges of pool p whose sink is record `sink` (*n of them;
 * NULL when none). */
const fjv_dep *fjv_deps_of(const fjv_collector *c, const fjv_pool *p, uint32_t sink, size_t *n);

/* ------------------------------------------------------------ formatting */

/* "1.23 ms", "45.6 us", "789 ns". */
/* "1,234,567". */
const char *fjv_count(char *buf, size_t n, uint64_t v);

/* Escapers write into a growing string. */
typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} fjv_str;

void fjv_str_add(fjv_str *b, const char *s, size_t n);
void fjv_str_printf(fjv_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* & < > " ' as entities: for XML, SVG, HTML and Graphviz HTML labels. */
void fjv_str_xml(fjv_str *b, const char *s);
/* Appends s for a Graphviz escString label: backslashes doubled, so a name
 * from the trace cannot become \N, \G or a line break. Graphviz escapes
 * the rest itself when it writes DOT and SVG. */
void fjv_str_label(fjv_str *b, const char *s);
void fjv_str_free(fjv_str *b);
/* Writes a picture or page whole to path (fja_outfile_write: no partial file),
 * saying why on err when it cannot. Returns 0 or -1. */
int fjv_write_file(const char *path, const void *data, size_t len, FILE *err);

/* ------------------------------------------------------------ colours */

typedef struct {
    double r, g, b;
} fjv_rgb;

/* Fill colour of worker w (client threads: w < 0). */
fjv_rgb fjv_worker_rgb(int32_t w);
/* "#rrggbb" into buf (8 bytes). */
const char *fjv_hex(fjv_rgb c, char buf[8]);
fjv_rgb fjv_state_rgb(fjv_lstate s, uint32_t tree);
const char *fjv_state_name(fjv_lstate s);

/* A pool's name in file names: "1" for pool 1 of the first trace, "t2.1"
 * for pool 1 of the third (pool ids restart in every process). */
const char *fjv_pool_name(uint32_t source, uint32_t id, char *buf, size_t n);
/* Where a task of process pid was created, its site address ("fib.c:23
 * (fib_split)"), in buf; NULL when no resolver was given or the task has
 * no site (0). */
const char *fjv_site_label(const fjv_options *o, int64_t pid, uint64_t site, char *buf, size_t n);

/* "WARNING: 12 events discarded" suffix for titles, "" when none. */
const char *fjv_discard_note(const fja_trace_summary *t, char *buf, size_t n);
/* fja_pool_label of a model's pool (the pictures that walk the model). */

/* ------------------------------------------------------------ pictures */

/* mkdir -p; messages to err. */
int fjv_mkdir(const char *dir, FILE *err);
/* Subtree diagrams of every selected tree. */
int fjv_subtrees(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err);
/* Frees the Graphviz context shared by every diagram of the run. */
void fjv_graphviz_release(void);
/* One tree's diagram as SVG text (for the HTML report); caller frees. */
char *fjv_subtree_svg(const fjv_options *o, const fjv_collector *c, const fja_report *r,
                      const fja_pool_report *pr, const fja_tree_report *tr);
/* Timeline to a .png or .svg path, or as SVG text when path is NULL (out). */
int fjv_timeline(const fjv_options *o, const fjv_collector *c, const fja_report *r,
                 const char *path, char **out);
typedef enum { CH_GRANULARITY, CH_QUEUE, CH_SPEEDUP } fjv_chart;
/* Chart of pool report pr (CH_SPEEDUP: of all pools). */
int fjv_chart_draw(fjv_chart k, const fjv_collector *c, const fja_report *r,
                   const fja_pool_report *pr, const char *path, char **out);
int fjv_charts(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err);
int fjv_html(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err);
/* The sortable creation-sites section of the HTML report (html_sites.c). */
void fjv_html_sites(fjv_str *s, const fja_report *r);

#endif
