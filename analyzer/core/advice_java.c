/* Advice for a pool of java.util.concurrent.ForkJoinPool (the JVM agent,
 * docs/java.md), in the terms a Java programmer tunes: the fork decision
 * in compute(), a sequential threshold, the pool's parallelism. */
#include <math.h>

#include "analysis.h"

/* Tasks pile up: fewer forks. Java tasks carry no size, so the cutoff is
 * by recursion depth (cutoff_by_depth), or the pool's own throttle. */
void fja_advise_pile_up_java(fja_pool_report *pr, uint64_t median_ns, uint64_t fork_ns)
{
    if (pr->cutoff_depth != UINT32_MAX)
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "fork(); fork only while getSurplusQueuedTaskCount() < 3 (else compute() "
                   "directly), or add a sequential threshold: from recursion depth %u on (its "
                   "subtrees carry less than 50x a fork) call the sequential code - %.0f%% fewer "
                   "tasks",
                   pr->mean_queue_depth, (unsigned long long)median_ns, (unsigned long long)fork_ns,
                   pr->cutoff_depth, 100 * pr->cutoff_depth_saving);
    else
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "fork(); fork only while getSurplusQueuedTaskCount() < 3, or add a "
                   "sequential threshold (below some size compute() calls the sequential code)",
                   pr->mean_queue_depth, (unsigned long long)median_ns,
                   (unsigned long long)fork_ns);
}

/* Queues run dry: fewer workers (the parallelism argument). */
void fja_advise_dry_java(fja_pool_report *pr, double idle, double join)
{
    fja_advise(pr, "queues_run_dry",
               "queues run dry: workers idle %.0f%% with no work anywhere and %.0f%% waiting in "
               "join() (mean queue depth %.2f); parallelism %.1f < %u workers - lower the "
               "pool's parallelism to about %.0f: new ForkJoinPool(%.0f), or for the common "
               "pool -Djava.util.concurrent.ForkJoinPool.common.parallelism=%.0f",
               100 * idle, 100 * join, pr->mean_queue_depth, pr->parallelism, pr->workers,
               ceil(pr->parallelism), ceil(pr->parallelism), ceil(pr->parallelism));
}
