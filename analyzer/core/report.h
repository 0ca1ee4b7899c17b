/* Report writers: the analyses as a text report for a terminal and as JSON
 * (docs/report-schema.md). Both read the report value only (analysis.h),
 * never the model. */
#ifndef FJA_REPORT_H
#define FJA_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"

#define FJA_REPORT_SCHEMA_VERSION 1

/* The file fjtrace-record writes in a trace folder: facts of the host that
 * recorded it which the trace does not hold. */
#define FJA_HOST_FILE "fjtrace-host.txt"

/* A fact of the recording host; zero (as in a run info made without
 * one) is not known. */
typedef enum { FJA_HOST_NOT_KNOWN = 0, FJA_HOST_NO, FJA_HOST_YES } fja_host_fact;

/* What a thread's CPU clock counts on the recording host: the OpenMP
 * figures are read from those clocks (docs/analyses.md, "Limit"). */
typedef struct {
    char kernel[128]; /* its release (uname -r), "" when not known */
    /* the kernel accounts interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING);
     * if not, it is charged to the thread an interrupt came on */
    fja_host_fact irq_time_accounting;
    /* the kernel accounts a hypervisor's steal time apart
     * (CONFIG_PARAVIRT_TIME_ACCOUNTING); if not, on a virtual machine the
     * time the host ran something else counts as the thread's */
    fja_host_fact steal_time_accounting;
} fja_host_facts;

/* What the report says about the run itself. */
typedef struct {
    const char *const *paths;
    int npaths;
    const char *version;
    double wall_s;
    uint64_t peak_rss_bytes;
    /* how many times the trace's events were read: 1, or 2 when the
     * on-CPU figures needed a second reading (the off-CPU intervals could
     * not be read ahead, or were not those the first reading met); the
     * read-ahead of the off-CPU streams alone is not counted */
    unsigned readings;
    /* of the traces' host, the same for every path given (a fact they
     * disagree on is not known) */
    fja_host_facts host;
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
/* Every task record of the selected pools as CSV (docs/report-schema.md),
 * read through the task iterator (r's records: fja_report_take_tasks). */
int fja_report_tasks_csv(FILE *out, const fja_report *r);

#endif
