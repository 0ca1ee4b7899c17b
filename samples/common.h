/* Shared bits of the fjtrace samples: timing, flag parsing, the report. */
#ifndef FJ_SAMPLE_COMMON_H
#define FJ_SAMPLE_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "fj.h"

/* Exit codes of every sample (documented in docs/runtime.md). */
enum { SAMPLE_OK = 0, SAMPLE_WRONG = 1, SAMPLE_USAGE = 2, SAMPLE_RUNTIME = 3 };

/* --version: "PROG VERSION" on standard output. */
void sample_print_version(const char *prog);
/* Parses a decimal integer in [min, max]; returns 0 on success. */
int sample_parse_long(const char *s, long min, long max, long *out);
/* Creates a pool of p workers (0 = FJ_WORKERS / CPUs) or exits; it counts
 * tasks (forks, joins, tasks executed) if $FJ_COUNT_TASKS is 1. */
fj_pool *sample_pool_create(int p);
/* The same, counting tasks whatever $FJ_COUNT_TASKS says (a sample that
 * checks its count of tasks run). */
fj_pool *sample_pool_create_counting(int p);
/* Destroys the pool or exits SAMPLE_RUNTIME. */
void sample_pool_destroy(fj_pool *pool);
/* A statistic as text: the number, or "n/a" for FJ_STAT_UNKNOWN (a pool
 * that does not count tasks); buf holds the number. */
#define SAMPLE_STAT_LEN 24
const char *sample_stat(char buf[SAMPLE_STAT_LEN], uint64_t v);
/* The per-worker statistics table (n/a: not counted). */
void sample_print_stats(FILE *out, const fj_pool *pool);
/* One line for scripts: summary variant=V P=N elapsed_s=S forks=F steals=S
 * (forks=n/a: the pool does not count tasks, see FJ_COUNT_TASKS) */
void sample_print_summary(FILE *out, const char *variant, const fj_pool *pool, double elapsed);

#endif
