/* fjtrace-analyze's options and help text. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pictures.h"

/* The help lines of the table's rows of kinds from..to. */
static void usage_rows(FILE *o, cli_output_kind from, cli_output_kind to, const char *header)
{
    size_t n;
    const cli_output *rows = cli_outputs(&n);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind < from || rows[i].kind > to) continue;
        if (header) fputs(header, o);
        header = NULL;
        fputs(rows[i].help, o);
    }
}

static void usage(FILE *o)
{
    fputs("Usage: fjtrace-analyze [OPTIONS] TRACE...\n"
          "\n"
          "Rebuild what the fjtrace work-stealing runtime did from one or more LTTng\n"
          "traces (a session folder from fjtrace-record, a trace folder holding\n"
          "'metadata', or a parent of several) and report it.\n"
          "\n"
          "Options:\n",
          o);
    usage_rows(o, CLI_OUT_REPORT, CLI_OUT_FILE, NULL);
    fputs("  -o, --output FILE  write the report to FILE instead of standard output\n"
          "  --pool ID          report only pool ID\n"
          "  --root ID          report only the tree of root task ID\n"
          "  --window FROM:TO   report only trees submitted in [FROM, TO] after the first\n"
          "                     event; times in ns or with a unit: 10ms, 2.5s, 300us; the\n"
          "                     Chrome and Perfetto traces keep what begins in that time\n"
          "  --no-progress      no progress line on stderr (default when not a terminal)\n"
          "  --baseline BASE    compare with BASE, a trace of the same program (usually at\n"
          "                     P=1): work inflation per creation site (self time per task\n"
          "                     here / in BASE), flagged where it grows\n"
          "  --recording TOKEN  only the pools of the recording whose token is TOKEN\n"
          "                     (fjtrace-record prints it: CMD and its descendants);\n"
          "                     the pools of other programs are left out and counted\n"
          "  -j, --jobs N       decode the trace's streams in N processes (default: one per\n"
          "                     online core); the report is the same whatever N\n"
          "  --muxer            order events with babeltrace2's filter.utils.muxer in one\n"
          "                     thread instead of the analyzer's own (faster) merge\n",
          o);
    usage_rows(o, CLI_OUT_PICTURE, CLI_OUT_SETTING, "Pictures:\n");
    fputs("  -h, --help         show this help\n"
          "  --version          show the version\n"
          "\n"
          "Exit status:\n"
          "  0  analysed; the trace is complete and consistent\n"
          "  1  analysed, but the trace is incomplete: discarded events (task events, or\n"
          "     off-CPU records: offcpu.state lost), unfinished tasks\n"
          "     (recording or program killed) or inconsistent events (see the report)\n"
          "  2  bad usage\n"
          "  3  a TRACE is missing, holds no CTF trace, or cannot be decoded (every stream\n"
          "     cut or empty; a damaged packet, or a stream file that is not a readable\n"
          "     regular file: the report covers what could be read;\n"
          "     damaged off-CPU streams: the report gives wall-clock figures)\n"
          "  4  the traces hold no fjtrace event\n"
          "  5  internal error (out of memory)\n"
          "  6  an output could not be written (disk full, folder missing or not\n"
          "     writable): the error names it; no partial file is left behind\n"
          "  7  --pool ID, --root ID or --recording TOKEN names nothing in the traces\n"
          "     (no such pool, no tree with that root nor, with --subtrees, task, no pool\n"
          "     of that recording): the report, written all the same, holds no pool or\n"
          "     tree\n",
          o);
}

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

/* The command's own long options (ending with a zeroed entry), then those
 * of the outputs' table (value base + row), then a zeroed entry. */
static void options_merge(const struct option *own, struct option *out, int base)
{
    size_t n = 0, nrows;
    while (own[n].name) {
        out[n] = own[n];
        n++;
    }
    const cli_output *rows = cli_outputs(&nrows);
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].option)
            out[n++] =
                (struct option){rows[i].option, rows[i].has_arg ? required_argument : no_argument,
                                NULL, base + (int)i};
    out[n] = (struct option){0, 0, 0, 0};
}

int cli_parse(int argc, char **argv, cli_options *o)
{
    enum {
        OPT_POOL = 256,
        OPT_ROOT,
        OPT_WINDOW,
        OPT_NOPROG,
        OPT_VERSION,
        OPT_MUXER,
        OPT_JOBS,
        OPT_BASELINE,
        OPT_RECORDING,
        OPT_OUTPUT, /* + the row of cli_outputs */
    };
    static const struct option own[] = {{"output", required_argument, NULL, 'o'},
                                        {"pool", required_argument, NULL, OPT_POOL},
                                        {"root", required_argument, NULL, OPT_ROOT},
                                        {"window", required_argument, NULL, OPT_WINDOW},
                                        {"no-progress", no_argument, NULL, OPT_NOPROG},
                                        {"help", no_argument, NULL, 'h'},
                                        {"version", no_argument, NULL, OPT_VERSION},
                                        {"muxer", no_argument, NULL, OPT_MUXER},
                                        {"jobs", required_argument, NULL, 'j'},
                                        {"baseline", required_argument, NULL, OPT_BASELINE},
                                        {"recording", required_argument, NULL, OPT_RECORDING},
                                        {0, 0, 0, 0}};
    struct option longs[sizeof own / sizeof *own + CLI_MAX_OUTPUTS];
    options_merge(own, longs, OPT_OUTPUT);
    size_t nrows;
    const cli_output *rows = cli_outputs(&nrows);
    *o = (cli_options){.progress = isatty(2), .report = cli_default_report()};
    opterr = 0;
    int c, li = 0;
    uint64_t v;
    while ((c = getopt_long(argc, argv, ":ho:j:", longs, &li)) != -1) {
        switch (c) {
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
        case 'j':
            if (parse_u64(optarg, &v) || v < 1 || v > 1024)
                return usage_error("bad job count '%s' (want 1 to 1024)", optarg);
            o->jobs = (unsigned)v;
            break;
        case OPT_BASELINE:
            o->baseline = optarg;
            break;
        case OPT_RECORDING:
            if (parse_u64(optarg, &o->recording) || !o->recording)
                return usage_error("bad recording token '%s' (want the number "
                                   "fjtrace-record printed, 1 to 2^64-1)",
                                   optarg);
            o->recording_set = true;
            break;
        case 'h':
            usage(stdout);
            return EXIT_COMPLETE;
        case OPT_VERSION:
            puts(CLI_VERSION);
            return EXIT_COMPLETE;
        case ':':
            /* always the last of its group: optind has moved past it */
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            if (c >= OPT_OUTPUT && (size_t)(c - OPT_OUTPUT) < nrows) { /* a row of the table */
                const cli_output *out = &rows[c - OPT_OUTPUT];
                if (out->kind == CLI_OUT_REPORT) {
                    o->report = out;
                } else if (out->kind == CLI_OUT_FILE) {
                    o->files[c - OPT_OUTPUT] = optarg;
                } else if (pictures_option(out->picture, optarg)) {
                    char what[96]; /* option names hold no '%' */
                    snprintf(what, sizeof what, "bad value '%%s' for --%s (see --help)",
                             longs[li].name);
                    return usage_error(what, optarg);
                }
                break;
            }
            return usage_error("unknown option '%s'", option_name(argv, optind));
        }
    }
    if (optind >= argc) return usage_error("%s", "no TRACE given");
    pictures_options_check();
    o->paths = argv + optind;
    o->npaths = argc - optind;
    return -1;
}
