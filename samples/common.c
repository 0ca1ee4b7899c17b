#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

void sample_print_version(const char *prog)
{
    printf("%s %s\n", prog, FJ_VERSION);
}

int sample_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static fj_pool *pool_create(int p, int count_tasks)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = p;
    if (count_tasks) cfg.count_tasks = 1;
    fj_pool *pool;
    int rc = fj_pool_create(&pool, &cfg);
    if (rc != FJ_OK) {
        fprintf(stderr, "error: cannot create a pool of %d workers: %s\n", p, fj_strerror(rc));
        exit(SAMPLE_RUNTIME);
    }
    return pool;
}

fj_pool *sample_pool_create(int p)
{
    return pool_create(p, 0);
}

fj_pool *sample_pool_create_counting(int p)
{
    return pool_create(p, 1);
}

void sample_pool_destroy(fj_pool *pool)
{
    int rc = fj_pool_destroy(pool);
    if (rc != FJ_OK) {
        fprintf(stderr, "error: cannot destroy the pool: %s\n", fj_strerror(rc));
        exit(SAMPLE_RUNTIME);
    }
}

const char *sample_stat(char buf[SAMPLE_STAT_LEN], uint64_t v)
{
    if (v == FJ_STAT_UNKNOWN) return "n/a";
    snprintf(buf, SAMPLE_STAT_LEN, "%llu", (unsigned long long)v);
    return buf;
}

static void print_stats_row(FILE *out, const char *name, const fj_worker_stats *s)
{
    char f[SAMPLE_STAT_LEN], j[SAMPLE_STAT_LEN], x[SAMPLE_STAT_LEN];
    fprintf(out, "%6s %12s %12s %10llu %10llu %12llu %8llu %12s\n", name, sample_stat(f, s->forks),
            sample_stat(j, s->joins), (unsigned long long)s->joins_waited,
            (unsigned long long)s->steals, (unsigned long long)s->failed_steals,
            (unsigned long long)s->parks, sample_stat(x, s->tasks_executed));
}

void sample_print_stats(FILE *out, const fj_pool *pool)
{
    int nw = fj_pool_workers(pool);
    fj_worker_stats *s = calloc((size_t)nw, sizeof(*s));
    if (!s) return;
    int n = fj_pool_stats(pool, s, nw);
    fprintf(out, "%6s %12s %12s %10s %10s %12s %8s %12s\n", "worker", "forks", "joins", "waited",
            "steals", "failed", "parks", "executed");
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        print_stats_row(out, name, &s[i]);
    }
    free(s);
    fj_worker_stats t;
    fj_pool_stats_total(pool, &t);
    print_stats_row(out, "total", &t);
    if (t.forks == FJ_STAT_UNKNOWN)
        fprintf(out, "(forks, joins, executed: n/a, not counted; FJ_COUNT_TASKS=1 counts them)\n");
}

void sample_print_summary(FILE *out, const char *variant, const fj_pool *pool, double elapsed)
{
    fj_worker_stats t;
    fj_pool_stats_total(pool, &t);
    /* cpu_s: the process's CPU time so far, all threads (start-up
     * included): differences of it between runs are what a loaded machine
     * disturbs least (bench/omp.sh). */
    struct timespec cpu = {0, 0};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    char forks[SAMPLE_STAT_LEN];
    fprintf(out, "summary variant=%s P=%d elapsed_s=%.6f forks=%s steals=%llu cpu_s=%.6f\n",
            variant, fj_pool_workers(pool), elapsed, sample_stat(forks, t.forks),
            (unsigned long long)t.steals, (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9);
}
