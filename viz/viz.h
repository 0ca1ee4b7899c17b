/* fjviz: the pictures of fjtrace-analyze. Subtree diagrams through libgvc
 * (in-process Graphviz), the worker timeline and charts through cairo, a
 * self-contained HTML report and a Chrome/Perfetto trace.
 *
 * Two phases, so the trace is still read once: a collector listens to the
 * tracker's changes (analyzer/core/tracker.h) next to the model and keeps
 * only what the model does not — per-pixel timeline buckets, queue-depth
 * samples, steal delays —; an exporter per trace asked for listens beside
 * it and streams the Chrome or the Perfetto trace; fjv_render then draws
 * from the finished report plus the collector. */
#ifndef FJV_VIZ_H
#define FJV_VIZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fja.h"

enum { FJV_PNG = 1, FJV_SVG = 2, FJV_DOT = 4 };

#define FJV_MAX_NODES_DEFAULT 400
/* Above this many nodes a laid-out diagram (PNG, SVG) takes minutes:
 * Graphviz's dot layout time grows about with the square of the nodes. */
#define FJV_LAYOUT_MAX_NODES 3000

typedef struct {
    const char *subtrees_dir; /* --subtrees DIR */
    unsigned formats;         /* FJV_PNG | FJV_SVG | FJV_DOT; 0 = PNG */
    uint32_t max_nodes;       /* 0 = FJV_MAX_NODES_DEFAULT */
    uint32_t depth;           /* 0 = no depth limit */
    bool root_set;            /* --root ID: also a task inside a tree */
    uint64_t root;
    bool window_set;      /* --window FROM:TO, ns since the first event: */
    uint64_t window_from; /* the Chrome and Perfetto traces keep that time */
    uint64_t window_to;
    const char *timeline;     /* --timeline FILE.png|svg */
    const char *charts_dir;   /* --charts DIR */
    const char *html;         /* --html FILE */
    const char *chrome_trace; /* --chrome-trace FILE.json */
    const char *perfetto;     /* --perfetto FILE.pftrace: Perfetto's protobuf trace */
    const char *const *paths; /* the traces, for titles */
    int npaths;
    /* names creation sites (slices of the Chrome trace, diagram nodes);
     * NULL: sites are not shown */
    fja_site_resolver site_resolve;
    void *site_ctx;
} fjv_options;

typedef struct fjv_collector fjv_collector;

/* The pictures and traces as a table, one row per command-line option
 * (each takes an argument): the command line makes its options and their
 * help lines from it (analyzer/cli/pictures.c), and a new picture or trace
 * format is a row here, the field of fjv_options it sets and its drawing. */
typedef enum {
    FJV_OUT_PICTURE, /* drawn from the report once it is made (fjv_render) */
    FJV_OUT_TRACE,   /* streamed while the trace is replayed (the exporter, a listener) */
    FJV_OUT_SETTING, /* no output of its own: how the subtree diagrams are drawn */
} fjv_output_kind;

typedef struct {
    const char *option; /* the long option */
    fjv_output_kind kind;
    const char *help; /* its lines of --help */
    /* sets it in o from the option's argument; -1 if that is bad */
    int (*set)(fjv_options *o, const char *arg);
} fjv_output;

#define FJV_NOUTPUTS 9
extern const fjv_output fjv_outputs[FJV_NOUTPUTS];

/* After every option is parsed: caps max_nodes for laid-out formats
 * (FJV_LAYOUT_MAX_NODES) and says so on err. */
void fjv_options_check(fjv_options *o, FILE *err);

/* True when some picture is asked for. */
bool fjv_wanted(const fjv_options *o);
/* True when a picture drawn from the report is (fjv_render; the collector
 * is needed), not only a streamed trace. */
bool fjv_drawn(const fjv_options *o);
/* Parses "png", "svg", "dot" or "all" into formats. -1 if unknown. */
int fjv_parse_format(const char *s, unsigned *formats);

/* NULL when out of memory (err says so). */
fjv_collector *fjv_collector_new(const fjv_options *o, char *err, size_t errlen);
/* The collector as a listener of the tracker (fja_tracker_listen): it
 * keeps what the pictures need from the changes. */
fja_listener fjv_collector_listener(fjv_collector *c);
/* The collector listens to the on-CPU replay (the tracker fed the off-CPU
 * intervals): the workers' stays off the CPU go on their lanes, and the
 * timeline's legend says so. */
void fjv_collector_offcpu_shown(fjv_collector *c);
/* After fja_tracker_finish: sorts what the pictures look up. Returns 0. */
int fjv_collect_finish(fjv_collector *c);
void fjv_collector_free(fjv_collector *c);

/* The traces streamed while the trace is replayed, each by a listener of
 * its own: format 0 the Chrome trace (o->chrome_trace), 1 the Perfetto
 * trace (o->perfetto). NULL with err "" when that one is not asked for,
 * else NULL when out of memory or its file cannot be created (err says
 * why). */
#define FJV_TRACE_FORMATS 2
typedef struct fjv_exporter fjv_exporter;
fjv_exporter *fjv_exporter_new(const fjv_options *o, int format, char *err, size_t errlen);
fja_listener fjv_exporter_listener(fjv_exporter *x);
/* Finishes its file, after fja_tracker_finish. Returns 0 or -1 (said on
 * stderr). NULL: nothing to do. */
int fjv_exporter_finish(fjv_exporter *x);
/* Frees it; files not finished are removed (the run failed). */
void fjv_exporter_free(fjv_exporter *x);

/* Draws every picture asked for from r (its task records taken:
 * fja_report_take_tasks) and c. c may be NULL (no timeline data, no steal
 * delays). The HTML page's text, the charts and the subtree diagrams read
 * the report; the timeline draws c's pools (every pool: --pool selects the
 * report's), named as their events said. Messages go to err. Returns 0,
 * or -1 if something could not be written. */
int fjv_render(const fjv_options *o, fjv_collector *c, const fja_report *r, FILE *err);

#endif
