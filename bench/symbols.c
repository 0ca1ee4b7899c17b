/*
 * bench-symbols: what resolving creation sites costs (analyzer/symbols).
 * This process's own load map is fed to a symbols table (as LTTng-UST's
 * statedump records it), then N distinct return addresses spread over
 * libc's code (DWARF from /usr/lib/debug when installed) are resolved once
 * each (cold: libdw looks each one up) and then R more times (cached: one
 * hash lookup each). Prints addresses per second for both, and how the
 * addresses resolved.
 *   bench-symbols [N [R]]     default N = 20000, R = 50
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "selfmap.h"
#include "symbols.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
    long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 50;
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "usage: %s [N [R]]\n", argv[0]);
        return 2;
    }
    fjs_table *t = fjs_new();
    if (!t) return 3;
    int64_t pid = getpid();
    selfmap(t, pid);
    /* 16-byte steps from fputs: a spread of distinct addresses in libc */
    uint64_t base = (uint64_t)(uintptr_t)&fputs;
    unsigned long by[FJS_STATUS_COUNT] = {0};
    fjs_site s;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        fjs_resolve(t, pid, base + 16 * (uint64_t)i + 1, &s);
        by[s.status]++;
    }
    double cold = now() - t0;
    t0 = now();
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            fjs_resolve(t, pid, base + 16 * (uint64_t)i + 1, &s);
    double warm = now() - t0;
    printf("addresses %ld: cold %.0f addr/s (%.1f us each), cached %.2fM addr/s (%.0f ns each)\n",
           n, n / cold, 1e6 * cold / n, reps * n / warm / 1e6, 1e9 * warm / (reps * n));
    printf("resolved:");
    for (int k = 0; k < FJS_STATUS_COUNT; k++)
        if (by[k]) printf(" %s %lu", fjs_status_name((fjs_status)k), by[k]);
    printf("\n");
    fjs_free(t);
    return 0;
}
