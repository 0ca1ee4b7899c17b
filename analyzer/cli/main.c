/* fjtrace-analyze: reads fjtrace CTF traces and reports what the
 * work-stealing scheduler did. Pipeline (docs/architecture.md): find
 * (trace folders) -> reader (babeltrace2 -> fja_event) -> model and
 * pictures -> analyses -> report writers and pictures. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "find.h"
#include "fja.h"
#include "interrupt.h"
#include "pictures.h"
#include "preread.h"
#include "reader.h"
#include "resolve.h"

/* The load maps of the recorded processes, to name creation sites. */
static fjs_table *symbols;

/* Every event goes through the one tracker, which tells its listeners
 * (the model, and the pictures when asked for) what changed; how a
 * reading's events reach it, the on-CPU tracker and the off-CPU intervals
 * is the core's reading policy (reading.h), shared with fjtrace-top. */
typedef struct {
    fja_reading r;
    /* The off-CPU streams could not be read ahead: the trace without them
     * (dir "" when it could not be made: the trace as it is). */
    fja_tmptrace rest;
} readings;

/* A reading of the whole trace into rd, events to `event`, with the
 * command line's reading options (each reading has its progress line). */
static fja_reader_sink reading_sink(const cli_options *o, fja_reading *rd,
                                    int (*event)(void *ctx, const fja_event *ev))
{
    return (fja_reader_sink){.event = event,
                             .discarded = fja_reading_discarded,
                             .offcpu_lost = fja_reading_offcpu_lost,
                             .invalid = fja_reading_invalid,
                             .trace_seen = fja_reading_trace_seen,
                             .ctx = rd,
                             .progress = o->progress,
                             .use_muxer = o->muxer,
                             .jobs = o->jobs};
}

static int traces_find(char *const *paths, int npaths, find_list *dirs)
{
    char err[4096];
    for (int i = 0; i < npaths; i++) {
        find_status st = find_ctf_dirs(paths[i], dirs, err, sizeof err);
        if (st != FIND_OK) {
            fprintf(stderr, "fjtrace-analyze: %s\n", err);
            return st == FIND_NO_MEMORY ? EXIT_INTERNAL : EXIT_UNREADABLE;
        }
    }
    return -1;
}

/* Returns -1 to go on (*damaged: the report must end with exit 3), or the
 * exit status. */
static int traces_read(const cli_options *o, const find_list *dirs, readings *rd, fjs_table *maps,
                       bool *damaged)
{
    char err[4096] = "";
    fja_model *m = rd->r.tracker->model;
    char *rest[] = {rd->rest.dir};
    bool without = *rd->rest.dir;
    fja_reader_sink sink = reading_sink(o, &rd->r, fja_reading_event);
    sink.map = fja_resolve_map_event;
    sink.map_ctx = maps;
    sink.label = without ? rd->rest.trace : NULL;
    fja_reader_stats stats;
    reader_status st = reader_run(without ? rest : dirs->dirs, without ? 1 : dirs->n, &sink, &stats,
                                  err, sizeof err);
    if (st == READER_UNREADABLE) {
        fprintf(stderr, "fjtrace-analyze: %s\n", err);
        if (!stats.fjtrace_events) return EXIT_UNREADABLE;
        /* A recording cut short still tells what happened before the cut. */
        fprintf(stderr,
                "fjtrace-analyze: WARNING: decoding stopped after %llu fjtrace event(s); the "
                "report covers the trace up to there and is marked incomplete\n",
                (unsigned long long)stats.fjtrace_events);
        fja_model_decode_stopped(m, err);
    } else if (st != READER_OK || fja_tracker_oom(rd->r.tracker)) {
        fprintf(stderr, "fjtrace-analyze: out of memory after %llu events\n",
                (unsigned long long)m->events);
        return EXIT_INTERNAL;
    }
    *damaged = stats.damaged || *stats.left_out_note || *m->offcpu_unread;
    if (*stats.left_out_note) {
        fprintf(stderr,
                "fjtrace-analyze: WARNING: %s; their events are missing, the report is marked "
                "incomplete (exit 3)\n",
                stats.left_out_note);
        if (!*m->decode_error) fja_model_decode_stopped(m, stats.left_out_note);
    }
    if (stats.damaged && st != READER_UNREADABLE) {
        fprintf(stderr,
                "fjtrace-analyze: %s; that stream is read up to there, the report covers what "
                "could be read and is marked incomplete (exit 3)\n",
                stats.damage_note);
        if (!*m->decode_error) fja_model_decode_stopped(m, stats.damage_note);
    }
    if (*stats.index_note) fprintf(stderr, "fjtrace-analyze: note: %s\n", stats.index_note);
    if (stats.cut_bytes) {
        fprintf(stderr,
                "fjtrace-analyze: WARNING: %s; %llu byte(s) could not be read, the report is "
                "marked incomplete\n",
                stats.cut_note, (unsigned long long)stats.cut_bytes);
        if (!*m->decode_error) fja_model_decode_stopped(m, stats.cut_note);
    }
    if (!stats.fjtrace_events && (stats.damaged || *stats.left_out_note || stats.cut_bytes)) {
        fprintf(stderr,
                "fjtrace-analyze: no fjtrace event could be decoded: the trace is damaged or "
                "cut short\n");
        return EXIT_UNREADABLE;
    }
    if (!stats.fjtrace_events) {
        fprintf(stderr,
                "fjtrace-analyze: the trace holds %llu event(s) but none from the fjtrace "
                "provider.\n  Record the program with 'fjtrace-record CMD' (it enables "
                "'fjtrace:*'), and check that it uses libfj built with -Dtracing=enabled.\n",
                (unsigned long long)stats.other_events);
        return EXIT_NO_EVENTS;
    }
    if (stats.window_events || stats.window_start) {
        fja_model_window(m, stats.window_events);
        fprintf(stderr,
                "fjtrace-analyze: note: the trace begins mid-run (a snapshot): %llu event(s) "
                "before the point where every CPU's events begin were left out; trees begun "
                "before are reported as partial\n",
                (unsigned long long)stats.window_events);
    }
    if (m->discarded_events)
        fprintf(stderr,
                "fjtrace-analyze: WARNING: %llu event(s) were discarded while recording; "
                "affected trees are marked incomplete. Record with larger buffers or "
                "--blocking.\n",
                (unsigned long long)m->discarded_events);
    else if (stats.discarded_unknown) /* LTTng did not count them: never say 0 */
        fprintf(stderr,
                "fjtrace-analyze: WARNING: events were discarded while recording (LTTng did "
                "not count them); affected trees are marked incomplete. Record with larger "
                "buffers or --blocking.\n");
    char lost[32] = "uncounted";
    if (m->offcpu_lost_events)
        snprintf(lost, sizeof lost, "%llu", (unsigned long long)m->offcpu_lost_events);
    if (m->offcpu_lost_notices)
        fprintf(stderr,
                "fjtrace-analyze: WARNING: LTTng discarded %s off-CPU record(s) of %s; every "
                "task event is read, but some off-CPU intervals are missing: the figures are "
                "wall-clock time (offcpu.state \"lost\") and the report is marked incomplete\n",
                lost, m->offcpu_lost_streams);
    return -1;
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss * 1024;
}

/* One output of the outputs' table to a file (whole or not at all) or to
 * standard output. */
static int output_write(const char *path, int (*fn)(FILE *f, const cli_report_ctx *c),
                        const cli_report_ctx *r)
{
    char err[4200];
    fja_outfile of;
    FILE *f = path ? fja_outfile_open(&of, path, err, sizeof err) : stdout;
    if (!f) {
        fprintf(stderr, "fjtrace-analyze: %s\n", err);
        return -1;
    }
    if (!path) {
        if (!fn(f, r) && !fflush(f) && !ferror(f)) return 0;
        fprintf(stderr, "fjtrace-analyze: cannot write the report: %s\n", strerror(errno));
        return -1;
    }
    errno = 0;
    if (fn(f, r))
        fja_outfile_fail(&of, errno, err, sizeof err);
    else if (!fja_outfile_commit(&of, err, sizeof err))
        return 0;
    fprintf(stderr, "fjtrace-analyze: %s\n", err);
    return -1;
}

/* The policy's second reading (fja_rereader): the trace folders again,
 * with the command line's reading options and a progress line of its
 * own (this reading takes as long as the first). */
typedef struct {
    const cli_options *o;
    const find_list *dirs;
} rereading;

static int read_again(void *ctx, fja_reading *rd, int (*event)(void *rd, const fja_event *ev))
{
    const rereading *c = ctx;
    char err[4096] = "";
    fja_reader_sink sink = reading_sink(c->o, rd, event);
    fja_reader_stats stats;
    reader_status st = reader_run(c->dirs->dirs, c->dirs->n, &sink, &stats, err, sizeof err);
    return st == READER_OK || st == READER_UNREADABLE ? 0 : -1;
}

/* recording: its trackers are told the command line's --recording. */
static fja_rereader rereader(const rereading *c, bool recording)
{
    return (fja_rereader){.read = read_again,
                          .ctx = (void *)c,
                          .recording_set = recording && c->o->recording_set,
                          .recording = c->o->recording};
}

/* --pool ID / --root ID naming nothing in the traces: said on stderr, and
 * exit 7 (the report is written all the same). Returns whether it did. */
static bool selection_missing(const cli_options *o, const fja_report *r)
{
    if (o->recording_set && !r->npools) {
        fprintf(stderr, "fjtrace-analyze: error: no pool of recording %" PRIu64 " in the trace\n",
                o->recording);
        return true;
    }
    if (o->filter.pool_set && !r->npools) {
        fprintf(stderr, "fjtrace-analyze: error: no pool %u in the trace\n", o->filter.pool);
        return true;
    }
    if (o->filter.root_set && !fja_report_has_root(r, o->filter.root, pictures_need_tasks())) {
        fprintf(stderr, "fjtrace-analyze: error: no tree with root %" PRIu64 " in the trace%s\n",
                o->filter.root, o->filter.pool_set ? "'s selected pool" : "");
        return true;
    }
    return false;
}

/* The off-CPU streams could not be read ahead (why): the off-CPU time is
 * unknown, and the report goes on from the main reading, without them
 * (damaged streams), or of the trace as it is (as_it_is: a stream file
 * that is not a regular file, which that reading refuses by itself). */
static void preread_failed(const find_list *dirs, const char *why, readings *rd, bool as_it_is)
{
    fprintf(stderr,
            "fjtrace-analyze: %s; the on-CPU figures are not available: the off-CPU time is "
            "unknown, the figures are wall-clock time and the rest of the trace is read %s "
            "(exit 3)\n",
            why, as_it_is ? "without that file" : "without those streams");
    fja_model_offcpu_unread(rd->r.tracker->model, why);
    fja_model_decode_stopped(rd->r.tracker->model, why);
    /* no folder of links, or a task stream left out of it (the reading of
     * the trace as it is names that file): the trace as it is */
    if (as_it_is || fja_tmptrace_make(&rd->rest, dirs->dirs[0], FJA_PREREAD_PREFIX, false) <= 0 ||
        *rd->rest.left_out) {
        fja_tmptrace_remove(&rd->rest);
        rd->rest.dir[0] = 0;
    }
}

/* Before the reading: a trace whose off-CPU intervals can be read ahead
 * from their own channel gets its on-CPU model made in the same reading,
 * the only replay (fja_reading_ahead): returns whether it does. So do
 * several traces (one folder per process), when the reading names each
 * trace's folder (not --muxer): their intervals are read ahead in one
 * reading and each folder's are replayed under the number the reading
 * gives its trace. When the channel of one of several cannot be read,
 * they are read twice, as traces recorded in one channel. */
static bool oncpu_ahead(const cli_options *o, const find_list *dirs, fja_offcpu *ahead,
                        readings *rd)
{
    fja_reader_sink like = {.use_muxer = o->muxer, .jobs = o->jobs};
    char why[1024];
    fja_preread_status st = FJA_PREREAD_NONE;
    if (dirs->n == 1 || !o->muxer)
        st = fja_offcpu_preread(dirs->dirs, dirs->n, &like, ahead, why, sizeof why);
    if (dirs->n > 1 && st != FJA_PREREAD_OK) st = FJA_PREREAD_NONE;
    if (st == FJA_PREREAD_FAILED || st == FJA_PREREAD_LEFT_OUT)
        preread_failed(dirs, why, rd, st == FJA_PREREAD_LEFT_OUT);
    if (st != FJA_PREREAD_OK || !ahead->intervals) {
        fja_offcpu_free(ahead);
        return false;
    }
    return true;
}

/* One trace's reading into its models, as the core's reading policy
 * (reading.h) wants it: the off-CPU streams read ahead when they can be,
 * one reading, then fja_reading_finish (a second reading when it asks).
 * The report and --baseline each make one. */
typedef struct {
    const cli_options *o;
    bool recording; /* its trackers are told --recording */
    find_list dirs;
    fja_model m, oncpu;      /* the reading's (wall-clock), and the on-CPU one */
    fja_tracker tracker;     /* the reading's */
    fja_tracker oncpu_track; /* oncpu_ahead's, if it starts one */
    fja_offcpu offcpu, ahead;
    readings rd;
    rereading again;
    bool damaged; /* the report must end with exit 3 */
    fja_reading_end end;
} trace_reading;

/* A tracker of t's replaying into m. */
static void trace_tracker_start(const trace_reading *t, fja_tracker *tracker, fja_model *m)
{
    fja_tracker_init(tracker, m);
    if (t->recording && t->o->recording_set) fja_tracker_recording(tracker, t->o->recording);
}

/* every_task: keep every task's record (recycle.h). */
static void trace_reading_init(trace_reading *t, const cli_options *o, bool recording,
                               bool every_task)
{
    *t = (trace_reading){.o = o, .recording = recording};
    fja_model_init(&t->m);
    fja_model_init(&t->oncpu);
    if (!every_task) {
        fja_model_recycle(&t->m);
        fja_model_recycle(&t->oncpu);
    }
    fja_offcpu_init(&t->offcpu);
    fja_offcpu_init(&t->ahead);
    trace_tracker_start(t, &t->tracker, &t->m);
    t->rd = (readings){.r = {.tracker = &t->tracker, .offcpu = &t->offcpu}};
    t->again = (rereading){o, &t->dirs};
}

/* Finds and reads the trace of paths with maps' load maps; before (may be
 * NULL) is told the tracker the pictures follow (the on-CPU one when the
 * off-CPU streams were read ahead: the only replay) before the reading,
 * and returns -1 to go on or the exit status. Returns the same. */
static int trace_reading_run(trace_reading *t, char *const *paths, int npaths, fjs_table *maps,
                             int (*before)(fja_tracker *shown, bool oncpu))
{
    int rc = traces_find(paths, npaths, &t->dirs);
    if (rc >= 0) return rc;
    const cli_options *o = t->o;
    bool ahead = oncpu_ahead(o, &t->dirs, &t->ahead, &t->rd);
    if (ahead) trace_tracker_start(t, &t->oncpu_track, &t->oncpu);
    if (ahead && fja_reading_ahead(&t->rd.r, &t->ahead, &t->oncpu_track, t->dirs.dirs, t->dirs.n)) {
        fprintf(stderr, "fjtrace-analyze: out of memory\n");
        return EXIT_INTERNAL;
    }
    if (before && (rc = before(ahead ? &t->oncpu_track : &t->tracker, ahead)) >= 0) return rc;
    if ((rc = traces_read(o, &t->dirs, &t->rd, maps, &t->damaged)) >= 0) return rc;
    fja_rereader again = rereader(&t->again, t->recording);
    t->end = fja_reading_finish(&t->rd.r, &t->oncpu, &again);
    if (!t->end.oom) return -1;
    fprintf(stderr, "fjtrace-analyze: out of memory after %llu events\n",
            (unsigned long long)t->m.events);
    return EXIT_INTERNAL;
}

/* The model the report is made from: the on-CPU one when it was made (it
 * keeps the wall-clock twins itself), else the reading's. */
static const fja_model *trace_reading_model(const trace_reading *t)
{
    return t->end.oncpu ? &t->oncpu : &t->m;
}

static void trace_reading_free(trace_reading *t)
{
    fja_tmptrace_remove(&t->rd.rest);
    fja_reading_free(&t->rd.r);
    fja_tracker_free(&t->tracker);
    fja_tracker_free(&t->oncpu_track);
    fja_model_free(&t->m);
    fja_model_free(&t->oncpu);
    fja_offcpu_free(&t->offcpu);
    fja_offcpu_free(&t->ahead);
    find_list_free(&t->dirs);
}

/* --baseline BASE: read, analysed and its sites named on its own (its own
 * reading, without pictures or --recording, and symbols table), on the
 * same clock as the report: on-CPU when BASE recorded off-CPU time. */
typedef struct {
    trace_reading t;
    fjs_table *maps;
    fja_report r;
    bool started, analysed;
} baseline;

static int baseline_load(const cli_options *o, baseline *b)
{
    /* only its sites are compared: no task record is kept */
    trace_reading_init(&b->t, o, false, false);
    b->started = true;
    if (!(b->maps = fjs_new())) return EXIT_INTERNAL;
    char *paths[] = {(char *)o->baseline};
    fprintf(stderr, "fjtrace-analyze: baseline %s\n", o->baseline);
    /* a damaged baseline is still compared with, as a report is */
    int rc = trace_reading_run(&b->t, paths, 1, b->maps, NULL);
    if (rc >= 0) return rc;
    fja_filter all = {0};
    const fja_model *m = trace_reading_model(&b->t);
    b->analysed = true; /* what it holds is freed, made or not */
    if (fja_analysis_run_sites(m, &all, fja_resolve_site, b->maps, &b->r)) return EXIT_INTERNAL;
    fja_resolve_warnings(b->maps, stderr);
    return -1;
}

static void baseline_free(baseline *b)
{
    if (!b->started) return;
    if (b->analysed) fja_analysis_free(&b->r);
    trace_reading_free(&b->t);
    fjs_free(b->maps);
}

/* One fact of two traces' hosts: known only when both say the same. */
static fja_host_fact host_agree(fja_host_fact a, fja_host_fact b)
{
    return a == b ? a : FJA_HOST_NOT_KNOWN;
}

/* The recording host's facts (reader_host_facts) for every path given: a
 * fact the traces disagree on, or one of them lacks, is not known. A host
 * file that cannot be read is named on stderr: the figures stand, the
 * report then does not say what the threads' clocks count. */
static fja_host_facts host_facts(const cli_options *o)
{
    fja_host_facts all = {0};
    for (int i = 0; i < o->npaths; i++) {
        fja_host_facts f;
        char why[4400];
        if (reader_host_facts(o->paths[i], &f, why, sizeof why) && *why)
            fprintf(stderr, "fjtrace-analyze: warning: %s: the recording host's facts not known\n",
                    why);
        if (!i) {
            all = f;
            continue;
        }
        if (strcmp(all.kernel, f.kernel) != 0) *all.kernel = '\0';
        all.irq_time_accounting = host_agree(all.irq_time_accounting, f.irq_time_accounting);
        all.steal_time_accounting = host_agree(all.steal_time_accounting, f.steal_time_accounting);
    }
    return all;
}

static int report_write(const cli_options *o, fja_model *m, fja_model *oncpu, const baseline *base,
                        double t0, unsigned nreadings)
{
    fja_report r;
    /* the report is of the on-CPU model when there is one (it keeps the
     * wall-clock twins itself), else of the wall-clock one; it takes the
     * task records, and what writes and draws it reads the report alone */
    fja_model *from = oncpu ? oncpu : m;
    if (fja_analysis_run_sites(from, &o->filter, fja_resolve_site, symbols, &r) ||
        fja_report_take_tasks(&r, from)) {
        fja_analysis_free(&r);
        fprintf(stderr, "fjtrace-analyze: out of memory in the analyses\n");
        return EXIT_INTERNAL;
    }
    fja_resolve_warnings(symbols, stderr);
    if (base) fja_sites_baseline(&r, &base->r);
    bool missing = selection_missing(o, &r);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fja_run_info info = {.paths = (const char *const *)o->paths,
                         .npaths = o->npaths,
                         .version = CLI_VERSION,
                         .peak_rss_bytes = peak_rss(),
                         .wall_s = (double)ts.tv_sec + ts.tv_nsec / 1e9 - t0,
                         .readings = nreadings,
                         .host = host_facts(o)};
    int rc = r.complete ? EXIT_COMPLETE : EXIT_INCOMPLETE;
    if (missing) rc = EXIT_NO_MATCH;
    if (pictures_render(&r)) rc = EXIT_OUTPUT;
    cli_report_ctx c = {.r = &r, .info = &info};
    if (output_write(o->output, o->report->write, &c)) rc = EXIT_OUTPUT;
    size_t n;
    const cli_output *rows = cli_outputs(&n);
    for (size_t i = 0; i < n; i++)
        if (o->files[i] && output_write(o->files[i], rows[i].write, &c)) rc = EXIT_OUTPUT;
    fja_analysis_free(&r);
    return rc;
}

/* The pictures follow the replay they are given (pictures_start), before
 * the reading: the on-CPU one when the off-CPU streams were read ahead
 * (the workers' stays off the CPU on their lanes). */
static const cli_options *pictures_options;

static int pictures_before(fja_tracker *shown, bool oncpu)
{
    const cli_options *o = pictures_options;
    if (pictures_start(&o->filter, o->paths, o->npaths, shown, oncpu))
        return EXIT_OUTPUT; /* the Chrome trace file cannot be created */
    return -1;
}

int main(int argc, char **argv)
{
    fja_interrupt_install(); /* Ctrl-C removes the temporaries (interrupt.h) */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    cli_options o;
    int rc = cli_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!(symbols = fjs_new())) {
        fprintf(stderr, "fjtrace-analyze: out of memory\n");
        return EXIT_INTERNAL;
    }
    /* Memory follows the tasks under way, not the tasks made, unless an
     * output shows every task (recycle.h). */
    bool every_task = pictures_need_tasks();
    size_t nrows;
    const cli_output *rows = cli_outputs(&nrows);
    for (size_t i = 0; i < nrows; i++)
        every_task |= o.files[i] && rows[i].needs_tasks;
    trace_reading t;
    trace_reading_init(&t, &o, true, every_task);
    pictures_sites(fja_resolve_site, symbols);
    pictures_options = &o;
    baseline base = {0};
    rc = trace_reading_run(&t, o.paths, o.npaths, symbols, pictures_before);
    if (rc < 0 && o.baseline) rc = baseline_load(&o, &base);
    if (rc < 0) {
        /* a failed Chrome trace still lets the other outputs be written */
        bool chrome_failed = pictures_finish() != 0;
        rc = report_write(&o, &t.m, t.end.oncpu ? &t.oncpu : NULL, o.baseline ? &base : NULL, t0,
                          t.end.readings);
        if (chrome_failed && rc != EXIT_INTERNAL) rc = EXIT_OUTPUT;
        if (t.damaged && rc <= EXIT_INCOMPLETE) rc = EXIT_UNREADABLE; /* reported, still damaged */
    }
    trace_reading_free(&t);
    pictures_free();
    fjs_free(symbols);
    if (o.baseline) baseline_free(&base);
    return rc;
}
