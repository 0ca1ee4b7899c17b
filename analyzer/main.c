/* fjtrace-analyze: reads fjtrace CTF traces and reports what the
 * work-stealing scheduler did. Pipeline: find (trace folders) -> reader
 * (babeltrace2 -> fja_event) -> model -> analysis -> report. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "find.h"
#include "interrupt.h"
#include "model.h"
#include "outfile.h"
#include "reader.h"
#include "report.h"
#include "resolve.h"
#ifdef FJA_HAVE_VIZ
#include "viz.h"                     /* pictures: viz/ */
static fjv_collector *viz_collector; /* sees each event after the model */
#endif

#define VERSION "fjtrace-analyze " FJ_VERSION

/* The load maps of the recorded processes, to name creation sites. */
static fjs_table *symbols;

enum {
    EXIT_COMPLETE = 0,   /* analysed, trace whole and consistent */
    EXIT_INCOMPLETE = 1, /* analysed, but events lost, tasks unfinished or anomalies */
    EXIT_USAGE = 2,
    EXIT_UNREADABLE = 3, /* path missing, no CTF trace, or babeltrace2 failed */
    EXIT_NO_EVENTS = 4,  /* CTF trace(s) without any fjtrace event */
    EXIT_INTERNAL = 5,   /* out of memory */
    EXIT_OUTPUT = 6,     /* a report or picture could not be written (none left partial) */
};

static void usage(FILE *o)
{
    fputs("Usage: fjtrace-analyze [OPTIONS] TRACE...\n"
          "\n"
          "Rebuild what the fjtrace work-stealing runtime did from one or more LTTng\n"
          "traces (a session folder from fjtrace-record, a trace folder holding\n"
          "'metadata', or a parent of several) and report it.\n"
          "\n"
          "Options:\n"
          "  --json             write the JSON report (docs/report-schema.md) instead of text\n"
          "  -o, --output FILE  write the report to FILE instead of standard output\n"
          "  --pool ID          report only pool ID\n"
          "  --root ID          report only the tree of root task ID\n"
          "  --window FROM:TO   report only trees submitted in [FROM, TO] after the first\n"
          "                     event; times in ns or with a unit: 10ms, 2.5s, 300us\n"
          "  --no-progress      no progress line on stderr (default when not a terminal)\n"
          "  --tasks FILE       also write every task record as CSV to FILE (root, parent,\n"
          "                     depth, size hint, worker, stolen, self and subtree time)\n"
          "  --muxer            order events with babeltrace2's filter.utils.muxer instead\n"
          "                     of the analyzer's own (faster) merge of the streams\n"
#ifdef FJA_HAVE_VIZ
          FJV_USAGE
#endif
          "  -h, --help         show this help\n"
          "  --version          show the version\n"
          "\n"
          "Exit status:\n"
          "  0  analysed; the trace is complete and consistent\n"
          "  1  analysed, but the trace is incomplete: discarded events, unfinished tasks\n"
          "     (recording or program killed) or inconsistent events (see the report)\n"
          "  2  bad usage\n"
          "  3  a TRACE is missing, holds no CTF trace, or cannot be decoded\n"
          "  4  the traces hold no fjtrace event\n"
          "  5  internal error (out of memory)\n"
          "  6  an output could not be written (disk full, folder missing or not\n"
          "     writable): the error names it; no partial file is left behind\n",
          o);
}

typedef struct {
    bool json, progress, muxer;
    const char *output, *tasks;
    fja_filter filter;
#ifdef FJA_HAVE_VIZ
    fjv_options viz;
#endif
    char **paths;
    int npaths;
} options;

/* "10ms" -> 10000000. Returns -1 on a malformed time, and on one that is
 * not finite or does not fit in 64 bits of nanoseconds (converting such a
 * double to an integer is undefined behaviour). */
static int parse_time(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s) && *s != '.') return -1; /* no sign, space, nan, inf */
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0)) return -1;
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            double ns = v * units[i].ns;
            if (!(ns < 18446744073709551616.0)) return -1; /* 2^64 */
            *out = (uint64_t)ns;
            return 0;
        }
    return -1;
}

/* "FROM:TO", of any length. */
static int parse_window(const char *s, fja_filter *f)
{
    char *buf = strdup(s);
    char *colon = buf ? strchr(buf, ':') : NULL;
    int rc = -1;
    if (colon) {
        *colon = '\0';
        if (!parse_time(buf, &f->window_from) && !parse_time(colon + 1, &f->window_to) &&
            f->window_to >= f->window_from) {
            f->window_set = true;
            rc = 0;
        }
    }
    free(buf);
    return rc;
}

/* Digits only (decimal, or 0x hex): strtoull itself would skip leading
 * blanks and negate "-1" into 2^64-1. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "fjtrace-analyze: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'fjtrace-analyze --help' for more information.\n");
    return EXIT_USAGE;
}

/* The unknown option getopt_long just refused: a short one (optopt; 0 for
 * a long one) may be grouped with others ("-xq") and optind not yet past
 * it, so argv[optind - 1] is not always it. */
static const char *option_name(char **argv, int ind)
{
    static char shortopt[3] = "-";
    if (optopt > 0 && optopt < 128 && isgraph(optopt)) {
        shortopt[1] = (char)optopt;
        return shortopt;
    }
    return argv[ind - 1];
}

/* Returns -1 to go on, or the exit status. */
static int options_parse(int argc, char **argv, options *o)
{
    enum {
        OPT_JSON = 256,
        OPT_POOL,
        OPT_ROOT,
        OPT_WINDOW,
        OPT_NOPROG,
        OPT_VERSION,
        OPT_MUXER,
        OPT_TASKS,
        OPT_VIZ
    };
    static const struct option longs[] = {{"json", no_argument, NULL, OPT_JSON},
                                          {"output", required_argument, NULL, 'o'},
                                          {"pool", required_argument, NULL, OPT_POOL},
                                          {"root", required_argument, NULL, OPT_ROOT},
                                          {"window", required_argument, NULL, OPT_WINDOW},
                                          {"no-progress", no_argument, NULL, OPT_NOPROG},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, OPT_VERSION},
                                          {"muxer", no_argument, NULL, OPT_MUXER},
                                          {"tasks", required_argument, NULL, OPT_TASKS},
#ifdef FJA_HAVE_VIZ
                                          FJV_LONG_OPTIONS(OPT_VIZ)
#endif
                                              {0, 0, 0, 0}};
    *o = (options){.progress = isatty(2)};
    opterr = 0;
    int c, li = 0;
    uint64_t v;
    while ((c = getopt_long(argc, argv, ":ho:", longs, &li)) != -1) {
        switch (c) {
        case OPT_JSON:
            o->json = true;
            break;
        case 'o':
            o->output = optarg;
            break;
        case OPT_POOL:
            if (parse_u64(optarg, &v) || v > UINT32_MAX)
                return usage_error("bad pool id '%s'", optarg);
            o->filter.pool_set = true;
            o->filter.pool = (uint32_t)v;
            break;
        case OPT_ROOT:
            if (parse_u64(optarg, &o->filter.root))
                return usage_error("bad root task id '%s'", optarg);
            o->filter.root_set = true;
            break;
        case OPT_WINDOW:
            if (parse_window(optarg, &o->filter))
                return usage_error(
                    "bad window '%s' (want FROM:TO, 0 <= FROM <= TO < 2^64 ns, e.g. 0:10ms)",
                    optarg);
            break;
        case OPT_NOPROG:
            o->progress = false;
            break;
        case OPT_MUXER:
            o->muxer = true;
            break;
        case OPT_TASKS:
            o->tasks = optarg;
            break;
        case 'h':
            usage(stdout);
            return EXIT_COMPLETE;
        case OPT_VERSION:
            puts(VERSION);
            return EXIT_COMPLETE;
        case ':':
            /* always the last of its group: optind has moved past it */
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
#ifdef FJA_HAVE_VIZ
            if (c >= OPT_VIZ && c < OPT_VIZ + FJV_NOPTIONS) {
                if (fjv_option(&o->viz, c - OPT_VIZ, optarg)) {
                    char what[96]; /* option names hold no '%' */
                    snprintf(what, sizeof what, "bad value '%%s' for --%s (see --help)",
                             longs[li].name);
                    return usage_error(what, optarg);
                }
                break;
            }
#endif
            return usage_error("unknown option '%s'", option_name(argv, optind));
        }
    }
    if (optind >= argc) return usage_error("%s", "no TRACE given");
#ifdef FJA_HAVE_VIZ
    fjv_options_check(&o->viz, stderr);
#endif
    o->paths = argv + optind;
    o->npaths = argc - optind;
    return -1;
}

static int sink_event(void *ctx, const fja_event *ev)
{
    int rc = fja_model_feed(ctx, ev) ? 1 : 0;
#ifdef FJA_HAVE_VIZ
    fjv_collect_event(viz_collector, ctx, ev);
#endif
    return rc;
}

static void sink_discarded(void *ctx, uint64_t count, uint64_t ts, uint32_t source)
{
    fja_model_discarded(ctx, count, ts, source);
}

static int traces_find(const options *o, find_list *dirs)
{
    char err[4096];
    for (int i = 0; i < o->npaths; i++) {
        find_status st = find_ctf_dirs(o->paths[i], dirs, err, sizeof err);
        if (st != FIND_OK) {
            fprintf(stderr, "fjtrace-analyze: %s\n", err);
            return st == FIND_NO_MEMORY ? EXIT_INTERNAL : EXIT_UNREADABLE;
        }
    }
    return -1;
}

static int traces_read(const options *o, const find_list *dirs, fja_model *m)
{
    char err[4096] = "";
    fja_reader_sink sink = {.map = fja_resolve_map_event,
                            .map_ctx = symbols,
                            .event = sink_event,
                            .discarded = sink_discarded,
                            .ctx = m,
                            .progress = o->progress,
                            .use_muxer = o->muxer};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs->dirs, dirs->n, &sink, &stats, err, sizeof err);
    if (st == READER_UNREADABLE) {
        fprintf(stderr, "fjtrace-analyze: %s\n", err);
        if (!stats.fjtrace_events) return EXIT_UNREADABLE;
        /* A recording cut short still tells what happened before the cut. */
        fprintf(stderr,
                "fjtrace-analyze: WARNING: decoding stopped after %llu fjtrace event(s); the "
                "report covers the trace up to there and is marked incomplete\n",
                (unsigned long long)stats.fjtrace_events);
        fja_model_decode_stopped(m, err);
    } else if (st != READER_OK || m->oom) {
        fprintf(stderr, "fjtrace-analyze: out of memory after %llu events\n",
                (unsigned long long)m->events);
        return EXIT_INTERNAL;
    }
    if (stats.cut_bytes) {
        fprintf(stderr,
                "fjtrace-analyze: WARNING: %s; %llu byte(s) could not be read, the report is "
                "marked incomplete\n",
                stats.cut_note, (unsigned long long)stats.cut_bytes);
        if (!*m->decode_error) fja_model_decode_stopped(m, stats.cut_note);
    }
    if (!stats.fjtrace_events) {
        fprintf(stderr,
                "fjtrace-analyze: the trace holds %llu event(s) but none from the fjtrace "
                "provider.\n  Record the program with 'fjtrace-record CMD' (it enables "
                "'fjtrace:*'), and check that it uses libfj built with -Dtracing=enabled.\n",
                (unsigned long long)stats.other_events);
        return EXIT_NO_EVENTS;
    }
    if (m->discarded_events || stats.discarded_unknown)
        fprintf(stderr,
                "fjtrace-analyze: WARNING: %llu event(s) were discarded while recording; "
                "affected trees are marked incomplete. Record with larger buffers or "
                "--blocking.\n",
                (unsigned long long)m->discarded_events);
    return -1;
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss * 1024;
}

typedef int (*report_fn)(FILE *f, const fja_report *r, const fja_run_info *info);

/* One report to a file (whole or not at all) or to standard output. */
static int output_write(const char *path, report_fn fn, const fja_report *r,
                        const fja_run_info *info)
{
    char err[4200];
    fja_outfile of;
    FILE *f = path ? fja_outfile_open(&of, path, err, sizeof err) : stdout;
    if (!f) {
        fprintf(stderr, "fjtrace-analyze: %s\n", err);
        return -1;
    }
    if (!path) {
        if (!fn(f, r, info) && !fflush(f) && !ferror(f)) return 0;
        fprintf(stderr, "fjtrace-analyze: cannot write the report: %s\n", strerror(errno));
        return -1;
    }
    errno = 0;
    if (fn(f, r, info))
        fja_outfile_fail(&of, errno, err, sizeof err);
    else if (!fja_outfile_commit(&of, err, sizeof err))
        return 0;
    fprintf(stderr, "fjtrace-analyze: %s\n", err);
    return -1;
}

static int tasks_csv(FILE *f, const fja_report *r, const fja_run_info *info)
{
    (void)info;
    return fja_report_tasks_csv(f, r);
}

static int report_write(const options *o, const fja_model *m, double t0)
{
    fja_report r;
    if (fja_analysis_run(m, &o->filter, &r)) {
        fja_analysis_free(&r);
        fprintf(stderr, "fjtrace-analyze: out of memory in the analyses\n");
        return EXIT_INTERNAL;
    }
    fja_sites_resolve(&r, fja_resolve_site, symbols);
    fja_resolve_warnings(symbols, stderr);
    if (o->filter.pool_set && !r.npools)
        fprintf(stderr, "fjtrace-analyze: warning: no pool %u in the trace\n", o->filter.pool);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fja_run_info info = {.paths = (const char *const *)o->paths,
                         .npaths = o->npaths,
                         .version = VERSION,
                         .peak_rss_bytes = peak_rss(),
                         .wall_s = (double)ts.tv_sec + ts.tv_nsec / 1e9 - t0};
    int rc = r.complete ? EXIT_COMPLETE : EXIT_INCOMPLETE;
#ifdef FJA_HAVE_VIZ
    if (fjv_wanted(&o->viz) && fjv_render(&o->viz, viz_collector, &r, stderr)) rc = EXIT_OUTPUT;
#endif
    if (output_write(o->output, o->json ? fja_report_json : fja_report_text, &r, &info))
        rc = EXIT_OUTPUT;
    if (o->tasks && output_write(o->tasks, tasks_csv, &r, &info)) rc = EXIT_OUTPUT;
    fja_analysis_free(&r);
    return rc;
}

#ifdef FJA_HAVE_VIZ
/* The collector exists only when a picture is asked for. */
static int viz_start(options *o)
{
    char err[4200];
    o->viz.root_set = o->filter.root_set;
    o->viz.root = o->filter.root;
    o->viz.paths = (const char *const *)o->paths;
    o->viz.npaths = o->npaths;
    if (!fjv_wanted(&o->viz)) return 0;
    if (!(viz_collector = fjv_collector_new(&o->viz, err, sizeof err))) {
        fprintf(stderr, "fjtrace-analyze: %s\n", err);
        return -1;
    }
    return 0;
}
#endif

int main(int argc, char **argv)
{
    interrupt_install(); /* Ctrl-C removes the temporaries (interrupt.h) */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    options o;
    int rc = options_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    find_list dirs = {0};
    fja_model m;
    fja_model_init(&m);
    if (!(symbols = fjs_new())) {
        fprintf(stderr, "fjtrace-analyze: out of memory\n");
        return EXIT_INTERNAL;
    }
#ifdef FJA_HAVE_VIZ
    if (viz_start(&o)) return EXIT_OUTPUT; /* the Chrome trace file cannot be created */
#endif
    if ((rc = traces_find(&o, &dirs)) < 0 && (rc = traces_read(&o, &dirs, &m)) < 0) {
        fja_model_finish(&m);
        bool chrome_failed = false; /* the other outputs are still written */
#ifdef FJA_HAVE_VIZ
        chrome_failed = fjv_collect_finish(viz_collector, &m) != 0;
#endif
        rc = report_write(&o, &m, t0);
        if (chrome_failed && rc != EXIT_INTERNAL) rc = EXIT_OUTPUT;
    }
#ifdef FJA_HAVE_VIZ
    fjv_collector_free(viz_collector);
#endif
    fja_model_free(&m);
    fjs_free(symbols);
    find_list_free(&dirs);
    return rc;
}
