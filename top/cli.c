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
            "      --live-port P    with --relayd only: its live port (default 5344)\n"
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
            "  fjtrace-record's own failure (120-127, see fjtrace-record --help), or 115\n"
            "  when CMD exited 0 but the recording was lost while it ran (the relay or\n"
            "  session daemon went away; fjtrace-record's ERROR lines follow); else:\n"
            "    0  the session ended (or q / Ctrl-C) and the final report was shown\n"
            "    2  bad usage, or no terminal for the interactive view\n"
            "    3  the live session cannot be reached or read (no such session, relay\n"
            "       down)\n"
            "    5  internal error (out of memory, output or --cmd-output not writable)\n"
            "    7  lttng-relayd or fjtrace-record could not be started\n",
            TOP_PROG, TOP_PROG, TOP_PROG, FJ_VERSION, TOP_PROG);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\nTry '%s --help' for more information.\n", TOP_PROG, what,
            arg ? " " : "", arg ? arg : "", TOP_PROG);
    return TOP_EXIT_USAGE;
}

/* The option getopt_long stopped at: its name as typed (argv[optind - 1]
 * for a long one, or -X for a short one), for a message that names it. */
static const char *bad_option(char **argv, char *buf, size_t n)
{
    if (optopt && optopt < 256 && !(optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0)) {
        snprintf(buf, n, "-%c", optopt);
        return buf;
    }
    snprintf(buf, n, "%s", optind > 0 ? argv[optind - 1] : "?");
    char *eq = strchr(buf, '=');
    if (eq) *eq = '\0';
    return buf;
}

static bool live_url_ok(const char *u)
{
    return (strncmp(u, "net://", 6) == 0 || strncmp(u, "net6://", 7) == 0) && strstr(u, "/host/") &&
           strlen(u) < 400;
}

enum { OPT_RELAYD = 256, OPT_LIVE_PORT, OPT_CMD_OUTPUT, OPT_OPENMP, OPT_VERSION };

static int option(int c, top_options *o, char **argv)
{
    char *end, name[64];
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
        o->live_port_given = true;
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
    case ':': /* the leading ':' of the option string: a value is missing */
        return usage_error("option needs a value:", bad_option(argv, name, sizeof name));
    default:
        /* '?' for a known long option given a value (--batch=1) too: then
         * optopt names it; an unknown one leaves optopt 0. */
        if (optopt && optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0 &&
            strchr(argv[optind - 1], '='))
            return usage_error("option takes no value:", bad_option(argv, name, sizeof name));
        return usage_error("unknown option", bad_option(argv, name, sizeof name));
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
    /* '+': stop at the first operand, so that CMD's own options stay its;
     * ':' first: a missing value is told apart from an unknown option. */
    while ((c = getopt_long(argc, argv, "+:i:bh", longs, NULL)) != -1) {
        int rc = option(c, o, argv);
        if (rc >= 0) return rc;
    }
    if (o->live_port_given && !o->relayd)
        return usage_error("--live-port goes with --relayd (the relay named there); a private "
                           "relay has a live port of its own",
                           NULL);
    if (optind >= argc) return usage_error("missing -- CMD or a live session URL", NULL);
    /* "--" must be what ended the options: in `-b URL -- CMD` getopt stops
     * at URL, which is not the command to run. */
    if (dashdash && strcmp(argv[optind - 1], "--") != 0)
        return usage_error("a URL or -- CMD, not both; unexpected argument before --:",
                           argv[optind]);
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
