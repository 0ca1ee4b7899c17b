/*
 * fjtrace-emit: a tiny stand-in for an fjtrace-instrumented program, used by
 * the fjtrace-record tests until the runtime's samples exist.
 *
 *   fjtrace-emit N [EXIT [SLEEP]]
 *
 * emits N fjtrace events as fast as it can: first pool_begin (pool 1, one
 * worker), as libfj and the OMPT tool begin (it says which recording the
 * process belongs to: fjtrace-record keeps CMD's descendants by it), then
 * N-1 fjtrace:fork (task = 1..N-1, size_hint = i mod 65536, site 0: the
 * packed fork's site_size = size_hint << 48) on worker 0
 * of pool 1; prints N on stdout, sleeps SLEEP seconds (default 0) and exits
 * with status EXIT (default 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <errno.h>
#include <unistd.h>

#include "fjtrace_tp.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s N [EXIT [SLEEP]]\n", argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(argv[1], &end, 10);
    if (errno || *end || end == argv[1]) {
        fprintf(stderr, "%s: bad count '%s'\n", argv[0], argv[1]);
        return 2;
    }
    int status = argc >= 3 ? atoi(argv[2]) : 0;
    unsigned pause_s = argc >= 4 ? (unsigned)atoi(argv[3]) : 0;

    if (n) lttng_ust_tracepoint(fjtrace, pool_begin, 1, -1, 1);
    for (uint64_t i = 1; i < n; i++)
        lttng_ust_tracepoint(fjtrace, fork, 1, 0, i, i & 0xffff, 0);

    printf("%llu\n", n);
    fflush(stdout);
    if (pause_s) sleep(pause_s);
    return status;
}
