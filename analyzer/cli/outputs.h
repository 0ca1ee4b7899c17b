/* Every output of fjtrace-analyze as one table: each row names an output,
 * its option, its kind and how it is made (a report writer, or the
 * pictures' setter). The command line makes its options and their help
 * lines from the table (cli.c), and main.c writes every report output
 * asked for by walking it: a new report format is one row here and its
 * writer, a new picture or trace one row of viz/'s table, which this one
 * takes in (pictures.h; none in a build without Graphviz and cairo)
 * (docs/architecture.md). */
#ifndef FJA_CLI_OUTPUTS_H
#define FJA_CLI_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fja.h"

typedef enum {
    CLI_OUT_REPORT,  /* the report itself, to -o FILE or standard output: one of them */
    CLI_OUT_FILE,    /* a file of its own (the option's FILE), beside the report */
    CLI_OUT_PICTURE, /* drawn from the report once it is made (viz/, pictures.h) */
    CLI_OUT_TRACE,   /* streamed while the trace is replayed (viz/'s exporter) */
    CLI_OUT_SETTING, /* no output of its own: how the pictures are drawn */
} cli_output_kind;

/* What a writer is given: the report value (its task records with it,
 * fja_report_take_tasks) and the run's own facts. */
typedef struct {
    const fja_report *r;
    const fja_run_info *info;
} cli_report_ctx;

typedef struct {
    const char *name;   /* "text", "json", "tasks", "timeline" ... */
    const char *option; /* its long option; NULL: the report written without one */
    bool has_arg;       /* the option takes the output's FILE (or setting) */
    cli_output_kind kind;
    bool needs_tasks; /* lists every task record: the model must keep them all */
    const char *help; /* its lines of --help ("" for the default) */
    /* CLI_OUT_REPORT, _FILE: 0, or -1 when writing failed (errno set);
     * opening the file (whole or not at all, outfile.h) and closing it are
     * main.c's, alike for all */
    int (*write)(FILE *f, const cli_report_ctx *c);
    /* the others: the row's number for pictures_option */
    int picture;
} cli_output;

/* At most this many rows. */
enum { CLI_MAX_OUTPUTS = 48 };
/* The table, n rows: the report writers, then the pictures and traces. */
const cli_output *cli_outputs(size_t *n);
/* The report written when no CLI_OUT_REPORT option is given (text). */
const cli_output *cli_default_report(void);

#endif
