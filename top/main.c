/* fjtrace-top: watch a running fjtrace-instrumented program like top(1).
 *   fjtrace-top [--interval S] [--batch] -- CMD ARGS   record CMD live
 *   fjtrace-top [--interval S] [--batch] URL           attach to a live session
 * One thread: the reader's live loop calls tick() between batches of
 * events, and tick() refreshes the view when the interval is over. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fj_version.h"
#include "reader.h"
#include "top.h"

/* Set by SIGINT/SIGTERM/SIGHUP: stop watching (with -- CMD: stop CMD). */
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

typedef struct {
    const top_options *o;
    top_launch *launch; /* NULL when attaching */
    fja_model model;
    fja_tracker tracker; /* the one replay of the events, into model */
    /* the core's reading policy, as fjtrace-analyze's (reading.h): no
     * off-CPU intervals read ahead, so no on-CPU model (the view keeps
     * the intervals the tracker believed itself) */
    fja_reading reading;
    top_view *view;
    double next_frame, recorder_done_at, last_data;
    bool screen, stop_sent, out_failed;
} top_run;

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void status_line(const top_run *t, char *buf, size_t n)
{
    if (!t->launch)
        snprintf(buf, n, "following %s", t->o->url);
    else if (t->launch->recorder_status < 0)
        snprintf(buf, n, "CMD running");
    else
        snprintf(buf, n, "CMD ended (status %d): reading the rest", t->launch->recorder_status);
}

/* One refresh: a frame on stdout (--batch) or on the screen. */
static int refresh(top_run *t)
{
    char status[600];
    status_line(t, status, sizeof status);
    if (top_view_frame(t->view, &t->model, status)) return -1;
    if (!t->screen) {
        if (fputs(top_view_text(t->view), stdout) < 0 || fputc('\n', stdout) < 0 ||
            fflush(stdout)) {
            t->out_failed = true;
            return -1;
        }
        return 0;
    }
    char footer[200];
    snprintf(footer, sizeof footer, " q: %s   refresh every %.1f s ",
             t->launch ? "stop CMD and show the report" : "stop watching and show the report",
             t->o->interval_s);
    if (top_screen_draw(top_view_text(t->view), footer) == 'q' && !got_signal) got_signal = SIGINT;
    return 0;
}

/* With -- CMD: a stop request (q, Ctrl-C) goes to the recorder, which stops
 * CMD and closes the session; the view reads on to the end. */
static bool stop_requested(top_run *t)
{
    if (t->screen && top_screen_key() == 'q' && !got_signal) got_signal = SIGINT;
    if (!got_signal) return false;
    if (!t->launch) return true;
    if (!t->stop_sent) {
        top_launch_signal(t->launch, got_signal == SIGINT ? SIGINT : SIGTERM);
        t->stop_sent = true;
    }
    return false;
}

static int tick(void *ctx, bool idle)
{
    top_run *t = ctx;
    double now = mono_s();
    if (stop_requested(t)) return 1;
    if (t->launch && !t->recorder_done_at && top_launch_recorder_done(t->launch))
        t->recorder_done_at = now;
    if (!idle) t->last_data = now;
    /* The recorder exits once the relay has the whole trace (it waits for
     * 'lttng destroy'); the live source then says AGAIN for good (it waits
     * for a session of that name to come back): what follows the last
     * data is the end. */
    double quiet = t->recorder_done_at > t->last_data ? t->recorder_done_at : t->last_data;
    if (t->recorder_done_at && now - quiet > 2 + t->o->interval_s / 4) return 1;
    /* The recorder's own failure (120-127: CMD never ran): no session. */
    if (t->recorder_done_at && !t->model.events && t->launch->recorder_status >= 120 &&
        t->launch->recorder_status <= 127)
        return 1;
    if (now >= t->next_frame) {
        t->next_frame = now + t->o->interval_s;
        if (refresh(t)) return 1;
    }
    if (idle) {
        struct timespec nap = {.tv_nsec = 20 * 1000000L};
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* The live reading cannot place the off-CPU intervals (they arrive late;
 * fjtrace-analyze replays them in a second reading): rather than report 0,
 * the live report says its figures are wall-clock time. */
static void offcpu_unplaced(fja_model *m)
{
    bool any = false;
    for (uint32_t i = 0; i < m->npools; i++)
        for (uint32_t k = 0; k < m->pools[i].nworkers; k++)
            if (m->pools[i].workers[k].offcpu_intervals) any = true;
    if (!any) return;
    for (uint32_t i = 0; i < m->npools; i++)
        for (uint32_t k = 0; k < m->pools[i].nworkers; k++)
            m->pools[i].workers[k].offcpu_started = false;
    fputs("fjtrace-top: note: off-CPU intervals were recorded, but a live reading cannot place "
          "them: the figures below are wall-clock time (fjtrace-analyze the trace for on-CPU "
          "figures)\n",
          stdout);
}

/* The final report: with the trace in a folder here, fjtrace-analyze's
 * (both readings: on-CPU figures, creation sites); else the live model's. */
static void final_report(top_run *t)
{
    if (t->launch && *t->launch->trace_dir && access(t->launch->trace_dir, F_OK) == 0) {
        char analyze[600];
        top_tool_path("fjtrace-analyze", "FJTRACE_ANALYZE", "analyzer", analyze, sizeof analyze);
        fputs("fjtrace-top: final report\n", stdout);
        fflush(stdout);
        int st = top_run_wait(analyze, t->launch->trace_dir);
        if (st >= 0 && st <= 1) return; /* 1: analysed, incomplete */
        fprintf(stderr, "%s: %s could not analyse %s (status %d): the live report follows\n",
                TOP_PROG, analyze, t->launch->trace_dir, st);
    }
    fja_tracker_finish(&t->tracker);
    offcpu_unplaced(&t->model);
    fja_report r;
    fja_filter all = {0};
    if (fja_analysis_run(&t->model, &all, &r)) {
        fprintf(stderr, "%s: out of memory for the final report\n", TOP_PROG);
    } else {
        const char *paths[] = {t->launch ? t->launch->live_url : t->o->url};
        fja_run_info info = {.paths = paths, .npaths = 1, .version = FJ_VERSION};
        fputs("fjtrace-top: final report\n", stdout);
        if (fja_report_text(stdout, &r, &info) || fflush(stdout)) t->out_failed = true;
    }
    fja_analysis_free(&r);
}

static int watch(top_run *t, const char *url, bool wait_for_session)
{
    fja_reader_sink sink = {.event = fja_reading_event,
                            .discarded = fja_reading_discarded,
                            .offcpu_lost = fja_reading_offcpu_lost,
                            .invalid = fja_reading_invalid,
                            .ctx = &t->reading};
    fja_live_hooks hooks = {.tick = tick, .ctx = t, .wait_for_session = wait_for_session};
    fja_reader_stats stats;
    char err[4096] = "";
    reader_status st = reader_live_run(url, &sink, &hooks, &stats, err, sizeof err);
    /* src.ctf.lttng-live sometimes fails on a session still being set up
     * ("Error updating trace metadata"): before any event was read, a new
     * attempt loses nothing (later, it could read events twice). */
    for (int again = 0; again < 5 && st == READER_UNREADABLE && !t->model.events && !got_signal &&
                        !(t->launch && top_launch_recorder_done(t->launch));
         again++) {
        struct timespec nap = {.tv_nsec = 300 * 1000000L};
        nanosleep(&nap, NULL);
        st = reader_live_run(url, &sink, &hooks, &stats, err, sizeof err);
    }
    if (t->screen) top_screen_close();
    t->screen = false;
    if (st == READER_NO_MEMORY || fja_tracker_oom(&t->tracker)) {
        fprintf(stderr, "%s: out of memory\n", TOP_PROG);
        return TOP_EXIT_INTERNAL;
    }
    if (st == READER_UNREADABLE) {
        fprintf(stderr, "%s: %s\n", TOP_PROG, err);
        return TOP_EXIT_LIVE;
    }
    if (!t->out_failed) refresh(t); /* the last figures */
    if (!stats.fjtrace_events) fprintf(stderr, "%s: no fjtrace event was received\n", TOP_PROG);
    return 0;
}

static void show_log_tail(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        if (strstr(line, "fjtrace-record:")) fprintf(stderr, "  %s", line);
    fclose(f);
}

/* The live reading failed while CMD runs (the relay went away): the
 * recorder sees it too and says so once CMD has ended, with its own status
 * (115 when CMD exited 0). So CMD runs to its end, as it would without the
 * view; a stop request (Ctrl-C, SIGTERM) still goes to the recorder. */
static void recorder_wait(top_run *t)
{
    if (top_launch_recorder_done(t->launch)) return;
    fprintf(stderr, "%s: the live view is lost; waiting for CMD to end (Ctrl-C stops it)\n",
            TOP_PROG);
    while (!top_launch_recorder_done(t->launch)) {
        stop_requested(t);
        struct timespec nap = {.tv_nsec = 50 * 1000000L};
        nanosleep(&nap, NULL);
    }
}

static int run_cmd(top_run *t)
{
    top_launch launch;
    int rc = top_launch_start(&launch, t->o);
    if (rc) {
        top_launch_stop(&launch);
        return rc;
    }
    t->launch = &launch;
    rc = watch(t, launch.live_url, true);
    if (rc == TOP_EXIT_LIVE) recorder_wait(t);
    top_launch_stop(&launch); /* the relay has the whole trace now */
    if (!rc && t->model.events) final_report(t);
    if (*launch.trace_dir && access(launch.trace_dir, F_OK) == 0)
        fprintf(stderr, "%s: trace: %s (kept for fjtrace-analyze and its pictures)\n", TOP_PROG,
                launch.trace_dir);
    fprintf(stderr, "%s: CMD's output: %s\n", TOP_PROG, launch.log);
    if (launch.recorder_status >= 120 && launch.recorder_status <= 127 &&
        !t->model.events) { /* the recorder's own failure: CMD never ran */
        fprintf(stderr, "%s: fjtrace-record failed (status %d):\n", TOP_PROG,
                launch.recorder_status);
        show_log_tail(launch.log);
    }
    /* the recorder's "recording lost", told as it tells it: its ERROR line
     * says which daemon went away and what was written */
    if (launch.recorder_status == TOP_EXIT_REC_LOST) {
        fprintf(stderr,
                "%s: CMD exited 0, but the recording was lost while it ran (fjtrace-record "
                "status %d):\n",
                TOP_PROG, TOP_EXIT_REC_LOST);
        show_log_tail(launch.log);
        return TOP_EXIT_REC_LOST;
    }
    if (rc) return rc;
    return launch.recorder_status < 0 ? TOP_EXIT_LIVE : launch.recorder_status;
}

int main(int argc, char **argv)
{
    top_options o;
    int rc = top_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is seen as a write error */
    top_run t = {.o = &o, .view = top_view_new()};
    if (!t.view) return TOP_EXIT_INTERNAL;
    /* The terminal is checked first: CMD must not run for a view that
     * cannot be shown. The screen is taken at the first refresh. */
    if (!o.batch && top_screen_open()) {
        fprintf(stderr,
                "%s: stdin and stdout must be a terminal (TERM set) for the view: use "
                "--batch otherwise\n",
                TOP_PROG);
        top_view_free(t.view);
        return TOP_EXIT_USAGE;
    }
    t.screen = !o.batch;
    fja_model_init(&t.model);
    fja_tracker_init(&t.tracker, &t.model);
    t.reading = (fja_reading){.tracker = &t.tracker};
    fja_tracker_listen(&t.tracker, top_view_listener(t.view)); /* the second: room for it */
    if (o.cmd)
        rc = run_cmd(&t);
    else if (!(rc = watch(&t, o.url, false)) && t.model.events)
        final_report(&t);
    if (t.out_failed && !rc) {
        fprintf(stderr, "%s: cannot write the output: %s\n", TOP_PROG, strerror(errno));
        rc = TOP_EXIT_INTERNAL;
    }
    fja_tracker_free(&t.tracker);
    fja_model_free(&t.model);
    top_view_free(t.view);
    return rc;
}
