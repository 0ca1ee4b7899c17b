/* fjtrace-top's command line: options, help text, exit codes. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj_version.h"
#include "top.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: %s [OPTIONS] -- CMD [ARGS...]\n"
            "       %s [OPTIONS] URL\n"
            "\n"
            "A live view of a running fjtrace-instrumented program (libfj or OpenMP): per\n"
            "pool and worker the share of time running, waiting at joins, searching,\n"
            "parked, waiting for locks and off the CPU, tasks and steals per second,\n"
            "queue depths, the running tree's size so far and the current advice,\n"
            "refreshed every --interval seconds; the final report when it ends.\n"
            "\n"
            "  -- CMD ARGS   record CMD live (fjtrace-record --relayd ... --live), through\n"
            "                a private lttng-relayd on 127.0.0.1 unless --relayd names one;\n"
            "                ends when CMD ends. q or Ctrl-C stops CMD (SIGINT).\n"
            "  URL           attach to an existing live session:\n"
            "                net://HOST[:LIVE_PORT]/host/HOSTNAME/SESSION (babeltrace2's\n"
            "                src.ctf.lttng-live); ends when the session is destroyed, or on\n"
            "                q / Ctrl-C.\n"
            "\n"
            "Options:\n"
            "  -i, --interval S     seconds between refreshes (default 1; 0.1 to 3600)\n"
            "  -b, --batch          print each refresh as plain text on stdout, each frame\n"
            "                       starting with a line 'fjtrace-top HH:MM:SS ...',\n"
            "                       instead of drawing on the terminal (ncurses)\n"
            "      --relayd URL     with -- CMD: use the relay daemon at\n"
            "                       net://HOST[:CTRL:DATA] instead of starting one\n"
            "      --live-port P    with --relayd: its live port (default 5344)\n"
            "      --openmp         CMD is an OpenMP program (fjtrace-record --openmp: the\n"
            "                       fjtrace OMPT tool is loaded into it)\n"
            "      --cmd-output F   where CMD's and fjtrace-record's output goes (default:\n"
            "                       a new file under $TMPDIR, named at the end)\n"
            "  -h, --help           show this help and exit\n"
            "      --version        print \"%s %s\" and exit\n"
            "\n"
            "The recorder is $FJTRACE_RECORD, else fjtrace-record beside %s, else on PATH.\n"
            "With a private relay the trace stays in its folder (named at the end) for\n"
            "fjtrace-analyze.\n"
            "\n"
            "Exit status:\n"
            "  with -- CMD: CMD's status once it ran (128+N if it died of signal N), or\n"
            "  fjtrace-record's own failure (120-127, see fjtrace-record --help); else:\n"
            "    0  the session ended (or q / Ctrl-C) and the final report was shown\n"
            "    2  bad usage, or no terminal for the interactive view\n"
            "    3  the live session cannot be reached or read (no such session, relay\n"
            "       down)\n"
            "    5  internal error (out of memory, output not writable)\n"
            "    7  lttng-relayd or fjtrace-record could not be started\n",
            TOP_PROG, TOP_PROG, TOP_PROG, FJ_VERSION, TOP_PROG);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\nTry '%s --help' for more information.\n", TOP_PROG, what,
            arg ? " " : "", arg ? arg : "", TOP_PROG);
    return TOP_EXIT_USAGE;
}

static bool live_url_ok(const char *u)
{
    return (strncmp(u, "net://", 6) == 0 || strncmp(u, "net6://", 7) == 0) && strstr(u, "/host/") &&
           strlen(u) < 400;
}

enum { OPT_RELAYD = 256, OPT_LIVE_PORT, OPT_CMD_OUTPUT, OPT_OPENMP, OPT_VERSION };

static int option(int c, top_options *o)
{
    char *end;
    switch (c) {
    case 'i':
        o->interval_s = strtod(optarg, &end);
        if (*end || end == optarg || !isfinite(o->interval_s) || o->interval_s < 0.1 ||
            o->interval_s > 3600)
            return usage_error("bad --interval (seconds, 0.1 to 3600):", optarg);
        return -1;
    case 'b':
        o->batch = true;
        return -1;
    case OPT_RELAYD:
        if (strncmp(optarg, "net://", 6) != 0 && strncmp(optarg, "net6://", 7) != 0)
            return usage_error("bad --relayd URL (net://HOST[:CTRL:DATA]):", optarg);
        o->relayd = optarg;
        return -1;
    case OPT_LIVE_PORT: {
        long p = strtol(optarg, &end, 10);
        if (*end || end == optarg || p < 1 || p > 65535)
            return usage_error("bad --live-port (1-65535):", optarg);
        o->live_port = (int)p;
        return -1;
    }
    case OPT_CMD_OUTPUT:
        o->cmd_output = optarg;
        return -1;
    case OPT_OPENMP:
        o->openmp = true;
        return -1;
    case 'h':
        usage(stdout);
        return TOP_EXIT_OK;
    case OPT_VERSION:
        printf("%s %s\n", TOP_PROG, FJ_VERSION);
        return TOP_EXIT_OK;
    default:
        return usage_error("unknown option", NULL);
    }
}

int top_parse(int argc, char **argv, top_options *o)
{
    static const struct option longs[] = {
        {"interval", required_argument, NULL, 'i'},
        {"batch", no_argument, NULL, 'b'},
        {"relayd", required_argument, NULL, OPT_RELAYD},
        {"live-port", required_argument, NULL, OPT_LIVE_PORT},
        {"cmd-output", required_argument, NULL, OPT_CMD_OUTPUT},
        {"openmp", no_argument, NULL, OPT_OPENMP},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    *o = (top_options){.interval_s = 1, .live_port = 5344};
    bool dashdash = false;
    for (int i = 1; i < argc && !dashdash; i++)
        dashdash = strcmp(argv[i], "--") == 0;
    opterr = 0;
    int c;
    /* '+': stop at the first operand, so that CMD's own options stay its. */
    while ((c = getopt_long(argc, argv, "+i:bh", longs, NULL)) != -1) {
        int rc = option(c, o);
        if (rc >= 0) return rc;
    }
    if (optind >= argc) return usage_error("missing -- CMD or a live session URL", NULL);
    if (dashdash) {
        o->cmd = &argv[optind];
        return -1;
    }
    if (optind + 1 < argc) return usage_error("unexpected argument", argv[optind + 1]);
    if (!live_url_ok(argv[optind]))
        return usage_error("not a live session URL (net://HOST[:PORT]/host/HOSTNAME/SESSION):",
                           argv[optind]);
    if (o->relayd) return usage_error("--relayd goes with -- CMD, not with a URL", NULL);
    if (o->openmp) return usage_error("--openmp goes with -- CMD, not with a URL", NULL);
    o->url = argv[optind];
    return -1;
}
