/* fjtrace-top: a live view of a running fjtrace-instrumented program. It
 * follows an LTTng live session (lttng-relayd, babeltrace2's
 * src.ctf.lttng-live) through the analyzer's reader, feeds the model as the
 * events arrive, and every --interval seconds shows per pool and worker
 * where the time went since the previous refresh. docs/remote-and-live.md. */
#ifndef FJT_TOP_H
#define FJT_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fja.h"

#define TOP_PROG "fjtrace-top"

/* Exit codes of fjtrace-top itself; with -- CMD, once CMD has started, the
 * status is CMD's (as fjtrace-record's). */
enum {
    TOP_EXIT_OK = 0,
    TOP_EXIT_USAGE = 2,
    TOP_EXIT_LIVE = 3,     /* the live session cannot be reached or read */
    TOP_EXIT_INTERNAL = 5, /* out of memory, output (--cmd-output too) not writable */
    TOP_EXIT_LAUNCH = 7,   /* lttng-relayd or fjtrace-record could not be started */
    /* fjtrace-record's own: CMD exited 0 but the recording was lost (its
     * relay or session daemon went away), passed on as it is */
    TOP_EXIT_REC_LOST = 115,
};

typedef struct {
    double interval_s;
    bool batch;
    bool openmp;            /* -- CMD is an OpenMP program: fjtrace-record --openmp */
    const char *url;        /* attach: net://HOST[:PORT]/host/HOSTNAME/SESSION */
    const char *relayd;     /* -- CMD: an existing relay, net://HOST[:CTRL:DATA] */
    int live_port;          /* its live port (with relayd) */
    bool live_port_given;   /* --live-port: refused without --relayd */
    const char *cmd_output; /* where CMD's (and the recorder's) output goes */
    char **cmd;             /* -- CMD ARGS..., NULL-terminated; NULL when attaching */
} top_options;

/* Parses argv. Returns -1 to go on, or an exit status (--help, --version,
 * a usage error, each already printed). */
int top_parse(int argc, char **argv, top_options *o);

/* ---- launch.c: the relay daemon and the recorder of -- CMD */
typedef struct {
    pid_t relayd, recorder;
    char relay_dir[256]; /* the relay's output folder (ours), "" with --relayd */
    char live_url[640];  /* what the view reads: room for two host names of 255 bytes */
    char trace_dir[768]; /* where the relay stores the trace, "" when remote */
    char log[256];       /* CMD's and the recorder's output */
    int recorder_status; /* -1 while it runs */
} top_launch;

/* Where a companion program is: $env, else name beside fjtrace-top, else
 * in the build tree's subdir, else name (PATH). */
void top_tool_path(const char *name, const char *env, const char *subdir, char *buf, size_t n);
/* Runs `prog --no-progress arg` on our stdout/stderr and waits: its exit
 * status, -1 when it could not be started. */
int top_run_wait(const char *prog, const char *arg);
/* Starts a private lttng-relayd on 127.0.0.1 (unless o->relayd names one)
 * and fjtrace-record --live on CMD. Returns 0, or an exit status after
 * printing why. */
int top_launch_start(top_launch *l, const top_options *o);
/* Whether the recorder has exited (its status is then in recorder_status). */
bool top_launch_recorder_done(top_launch *l);
/* Sends sig to the recorder (it forwards it to CMD). */
void top_launch_signal(top_launch *l, int sig);
/* Waits for the recorder, then stops our relay daemon. */
void top_launch_stop(top_launch *l);

/* ---- frame.c: the figures of one refresh, as text lines */
typedef struct top_view top_view;
top_view *top_view_new(void);
void top_view_free(top_view *v);
/* Writes the frame of this refresh into v's text (NUL-terminated lines):
 * shares and rates cover the trace time since the previous frame. status
 * is a line about the session (may be NULL). Returns 0, -1 out of memory. */
int top_view_frame(top_view *v, const fja_model *m, const char *status);
/* The view as a listener of the tracker: it keeps the off-CPU intervals
 * the workers report (FJA_CHANGE_OFFCPU_REPORTED; the model replays them
 * only in a second reading, which a live view does not have). Out of
 * memory there makes the next top_view_frame fail. */
fja_listener top_view_listener(top_view *v);
const char *top_view_text(const top_view *v);

/* ---- screen.c: the interactive view (ncurses) */
/* Sets the terminal up (-1 when stdin/stdout are not a usable terminal);
 * the screen is taken at the first draw. */
int top_screen_open(void);
/* Draws the text; returns 'q' when the user asked to quit, else 0. */
int top_screen_draw(const char *text, const char *footer);
/* 'q' when pressed since the last call (non-blocking), else 0. */
int top_screen_key(void);
void top_screen_close(void);

#endif
