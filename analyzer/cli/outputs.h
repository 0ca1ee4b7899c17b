/* The report writers of fjtrace-analyze as one table: each row names an
 * output, its option, its kind and its writer. The command line makes its
 * options and their help lines from the table (cli.c), and main.c writes
 * every output asked for by walking it: a new report format is one row
 * here and its writer (docs/architecture.md). The pictures and the
 * Chrome/Perfetto traces are viz/'s table (viz.h, fjv_outputs), merged
 * beside it through pictures.h. */
#ifndef FJA_CLI_OUTPUTS_H
#define FJA_CLI_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include "fja.h"

typedef enum {
    CLI_OUT_REPORT, /* the report itself, to -o FILE or standard output: one of them */
    CLI_OUT_FILE,   /* a file of its own (the option's FILE), beside the report */
} cli_output_kind;

/* What a writer is given: the report value, the model it was made from
 * (the task records, through fja_task_iter, for what lists every task) and
 * the run's own facts. */
typedef struct {
    const fja_report *r;
    const fja_model *m;
    const fja_run_info *info;
} cli_report_ctx;

typedef struct {
    const char *name;   /* "text", "json", "tasks" */
    const char *option; /* its long option; NULL: the report written without one */
    bool has_arg;       /* the option takes the output's FILE */
    cli_output_kind kind;
    bool needs_tasks; /* lists every task record: the model must keep them all */
    const char *help; /* its lines of --help ("" for the default) */
    /* 0, or -1 when writing failed (errno set); opening the file (whole or
     * not at all, outfile.h) and closing it are main.c's, alike for all */
    int (*write)(FILE *f, const cli_report_ctx *c);
} cli_output;

enum { CLI_NOUTPUTS = 3 };
extern const cli_output cli_outputs[CLI_NOUTPUTS];
/* The report written when no CLI_OUT_REPORT option is given (text). */
extern const cli_output *const cli_default_report;

#endif
