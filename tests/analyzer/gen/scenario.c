/*
 * fjtrace-scenario: emits a hand-made fjtrace event sequence through the
 * real provider, to record small CTF traces of situations the runtime does
 * not produce on purpose (see make-traces.sh, which regenerates
 * tests/data/).
 *
 *   fjtrace-scenario killed      a tree in progress, then SIGKILL
 *   fjtrace-scenario anomalies   executed without exec, duplicate id,
 *                                fork outside a task, then a normal tree
 *
 * (tests/data holds traces made with the layout before fork lost its
 * parent and executed its task, which the analyzer still reads.)
 *   fjtrace-scenario tracef      no fjtrace event, one lttng_ust_tracef
 */
#include <lttng/tracef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fjtrace_tp.h"

#define TP(ev, ...) lttng_ust_tracepoint(fjtrace, ev, __VA_ARGS__)

static void killed(void)
{
    TP(pool_begin, 1, -1, 1);
    TP(worker_begin, 1, 0);
    TP(submit, 1, -1, 1);
    TP(exec, 1, 0, 1);
    TP(fork, 1, 0, 2, 5);
    TP(exec, 1, 0, 2);
    TP(executed, 1, 0);
    TP(fork, 1, 0, 3, 4);
    /* the program dies here: the root runs, task 3 stays queued */
    raise(SIGKILL);
}

static void anomalies(void)
{
    TP(pool_begin, 1, -1, 1);
    TP(worker_begin, 1, 0);
    TP(submit, 1, -1, 1);
    TP(executed, 1, 0);      /* executed without exec */
    TP(fork, 1, 0, 4, 1, 1); /* fork outside a task */
    TP(exec, 1, 0, 1);
    TP(fork, 1, 0, 2, 1, 1);
    TP(fork, 1, 0, 2, 1, 1); /* duplicate id */
    TP(fork, 1, 0, 3, 1, 1);
    TP(exec, 1, 0, 2);
    TP(executed, 1, 0);
    TP(exec, 1, 0, 3);
    TP(executed, 1, 0);
    TP(executed, 1, 0);
    TP(result, 1, -1, 1);
    TP(worker_end, 1, 0);
    TP(pool_end, 1, -1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s killed|anomalies|tracef\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "killed"))
        killed();
    else if (!strcmp(argv[1], "anomalies"))
        anomalies();
    else if (!strcmp(argv[1], "tracef"))
        lttng_ust_tracef("not an fjtrace event: %d", 42);
    else
        return 2;
    return 0;
}
