#include "outputs.h"

#include "pictures.h"

static int text(FILE *f, const cli_report_ctx *c)
{
    return fja_report_text(f, c->r, c->info);
}

static int json(FILE *f, const cli_report_ctx *c)
{
    return fja_report_json(f, c->r, c->info);
}

static int tasks_csv(FILE *f, const cli_report_ctx *c)
{
    return fja_report_tasks_csv(f, c->r);
}

/* The report writers first (the default one first of all); the pictures'
 * rows are added on first use. */
static cli_output rows[CLI_MAX_OUTPUTS] = {
    {.name = "text", .kind = CLI_OUT_REPORT, .help = "", .write = text},
    {.name = "json",
     .option = "json",
     .kind = CLI_OUT_REPORT,
     .help = "  --json             write the JSON report (docs/report-schema.md) instead of text\n",
     .write = json},
    {.name = "tasks",
     .option = "tasks",
     .has_arg = true,
     .kind = CLI_OUT_FILE,
     .needs_tasks = true,
     .help = "  --tasks FILE       also write every task record as CSV to FILE (root, parent,\n"
             "                     depth, size hint, worker, stolen, self and subtree time)\n",
     .write = tasks_csv},
};

const cli_output *cli_outputs(size_t *n)
{
    static size_t nrows;
    if (!nrows) {
        while (nrows < CLI_MAX_OUTPUTS && rows[nrows].name) /* the report writers above */
            nrows++;
        nrows += pictures_outputs(rows + nrows, CLI_MAX_OUTPUTS - nrows);
    }
    *n = nrows;
    return rows;
}

const cli_output *cli_default_report(void)
{
    return &rows[0];
}
