/* fjtrace-analyze's command line: options, help text and exit codes
 * (docs/fjtrace-analyze.1). */
#ifndef FJA_CLI_H
#define FJA_CLI_H

#include <stdbool.h>

#include "fj_version.h"
#include "fja.h"
#include "outputs.h"

#define CLI_VERSION "fjtrace-analyze " FJ_VERSION

enum {
    EXIT_COMPLETE = 0,   /* analysed, trace whole and consistent */
    EXIT_INCOMPLETE = 1, /* analysed, but events lost, tasks unfinished or anomalies */
    EXIT_USAGE = 2,
    EXIT_UNREADABLE = 3, /* path missing, no CTF trace, or babeltrace2 failed */
    EXIT_NO_EVENTS = 4,  /* CTF trace(s) without any fjtrace event */
    EXIT_INTERNAL = 5,   /* out of memory */
    EXIT_OUTPUT = 6,     /* a report or picture could not be written (none left partial) */
    EXIT_NO_MATCH = 7,   /* --pool or --root names nothing in the traces */
};

typedef struct {
    bool progress, muxer;
    unsigned jobs;            /* decoding threads; 0: one per online core */
    const cli_output *report; /* the report's writer (a CLI_OUT_REPORT row of cli_outputs) */
    const char *output;       /* -o FILE: where it goes (NULL: standard output) */
    /* the FILE of each CLI_OUT_FILE row of cli_outputs asked for */
    const char *files[CLI_MAX_OUTPUTS];
    const char *baseline; /* --baseline BASE: a trace to compare the sites with */
    bool recording_set;   /* --recording TOKEN: only that recording's pools */
    uint64_t recording;
    fja_filter filter;
    char **paths;
    int npaths;
} cli_options;

/* Parses argv (the picture options go to pictures_option). Returns -1 to
 * go on, or the exit status (--help, --version, a usage error). */
int cli_parse(int argc, char **argv, cli_options *o);

#endif
