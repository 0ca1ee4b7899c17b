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

fj_pool *sample_pool_create(int p)
{
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = p;
    fj_pool *pool;
    int rc = fj_pool_create(&pool, &cfg);
    if (rc != FJ_OK) {
        fprintf(stderr, "error: cannot create a pool of %d workers: %s\n", p, fj_strerror(rc));
        exit(SAMPLE_RUNTIME);
    }
    return pool;
}

void sample_pool_destroy(fj_pool *pool)
{
    int rc = fj_pool_destroy(pool);
    if (rc != FJ_OK) {
        fprintf(stderr, "error: cannot destroy the pool: %s\n", fj_strerror(rc));
        exit(SAMPLE_RUNTIME);
    }
}

void sample_print_stats(FILE *out, const fj_pool *pool)
{
    int nw = fj_pool_workers(pool);
    fj_worker_stats *s = calloc((size_t)nw, sizeof(*s));
    if (!s) return;
    int n = fj_pool_stats(pool, s, nw);
    fprintf(out, "%6s %12s %12s %10s %10s %12s %8s %12s\n", "worker", "forks", "joins", "waited",
            "steals", "failed", "parks", "executed");
    for (int i = 0; i < n; i++)
        fprintf(out, "%6d %12llu %12llu %10llu %10llu %12llu %8llu %12llu\n", i,
                (unsigned long long)s[i].forks, (unsigned long long)s[i].joins,
                (unsigned long long)s[i].joins_waited, (unsigned long long)s[i].steals,
                (unsigned long long)s[i].failed_steals, (unsigned long long)s[i].parks,
                (unsigned long long)s[i].tasks_executed);
    free(s);
    fj_worker_stats t;
    fj_pool_stats_total(pool, &t);
    fprintf(out, "%6s %12llu %12llu %10llu %10llu %12llu %8llu %12llu\n", "total",
            (unsigned long long)t.forks, (unsigned long long)t.joins,
            (unsigned long long)t.joins_waited, (unsigned long long)t.steals,
            (unsigned long long)t.failed_steals, (unsigned long long)t.parks,
            (unsigned long long)t.tasks_executed);
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
    fprintf(out, "summary variant=%s P=%d elapsed_s=%.6f forks=%llu steals=%llu cpu_s=%.6f\n",
            variant, fj_pool_workers(pool), elapsed, (unsigned long long)t.forks,
            (unsigned long long)t.steals, (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9);
}
