/* Report writers: the analyses as a text report for a terminal and as JSON
 * (docs/report-schema.md). Both read the report value only (analysis.h),
 * never the model. */
#ifndef FJA_REPORT_H
#define FJA_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"

#define FJA_REPORT_SCHEMA_VERSION 1

/* What the report says about the run itself. */
typedef struct {
    const char *const *paths;
    int npaths;
    const char *version;
    double wall_s;
    uint64_t peak_rss_bytes;
} fja_run_info;

/* Both return 0, or -1 when writing failed (errno set). */
int fja_report_text(FILE *out, const fja_report *r, const fja_run_info *info);
/* A duration in the unit a person reads best ("180 ns", "2.5 us", "3.10 ms",
 * "1.234 s"), written to buf; returns buf. Shared with the pictures. */
const char *fja_report_duration(char *buf, size_t n, double ns);
/* A pool as the text and HTML reports name it: "1 of process fj-fib pid 1234"
 * (pool id, process name, pid), " (trace 2)" added when with_trace or when
 * the process is unknown (older traces) and the trace is not the first;
 * written to buf (96 bytes hold any), returns buf. */
const char *fja_pool_label(const fja_pool_totals *p, bool with_trace, char *buf, size_t n);
/* Whether the report's pools come from more than one trace. */
bool fja_report_several_traces(const fja_report *r);
/* The number (1, 2, ...) of the tree of root task `root` in the pool's
 * listing (the text report's "root #N", the JSON trees[N-1]); 0 when the
 * report lists no such tree. */
uint32_t fja_root_number(const fja_pool_report *pr, uint64_t root);
int fja_report_json(FILE *out, const fja_report *r, const fja_run_info *info);
/* Every task record of the selected pools as CSV (docs/report-schema.md):
 * the records are the model's (m, which r was made from), read through
 * the task iterator. */
int fja_report_tasks_csv(FILE *out, const fja_model *m, const fja_report *r);

#endif
