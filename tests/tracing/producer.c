/* producer: a producer loop of known work and span. The root forks N
 * independent children one after the other, then joins them all; each
 * child forks one grandchild that burns L us of its thread's CPU time and
 * joins it. The deque holds only a few tasks, so most forks find it full
 * and run their child at once, on the root's thread (as libomp runs a
 * task at once when its queue is full), while the other worker steals
 * and finishes children meanwhile.
 *
 * The true figures, by hand: work = N x L plus the forks' and joins' own
 * cost; the longest path is the root's own code up to its last fork, one
 * child, its grandchild (L) and the root's joins: span = L plus the root's
 * and one child's own code, a few percent of L for the sizes the tests
 * use, whatever the schedule. A child done before its parent's join is not
 * on the path of the root's later forks.
 *
 * usage: producer N L_US */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpuburn.h"
#include "fj.h"

#define PRODUCER_DEQUE 4 /* small: most forks run their child at once */

static void leaf(void *arg)
{
    cpuburn((uint64_t)(uintptr_t)arg);
}

static void child(void *arg)
{
    fj_task g;
    fj_task_init(&g, leaf, arg);
    fj_fork(&g);
    fj_join(&g);
}

typedef struct {
    long n;
    uint64_t leaf_ns;
    fj_task *children;
} producer_args;

static void producer(void *arg)
{
    producer_args *a = arg;
    for (long i = 0; i < a->n; i++) {
        fj_task_init(&a->children[i], child, (void *)(uintptr_t)a->leaf_ns);
        fj_fork(&a->children[i]);
    }
    for (long i = a->n; i-- > 0;)
        fj_join(&a->children[i]);
}

int main(int argc, char **argv)
{
    long n = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
    long us = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (n < 1 || n > 100000 || us < 1 || us > 1000000) {
        fprintf(stderr, "usage: producer N L_US (N 1..100000, L 1..1000000)\n");
        return 2;
    }
    producer_args a = {.n = n, .leaf_ns = (uint64_t)us * 1000u};
    a.children = calloc((size_t)n, sizeof *a.children);
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 2;
    cfg.deque_initial = PRODUCER_DEQUE;
    fj_pool *pool;
    if (!a.children || fj_pool_create(&pool, &cfg) != FJ_OK) {
        fprintf(stderr, "producer: cannot create the pool\n");
        return 3;
    }
    fj_task root;
    fj_task_init(&root, producer, &a);
    int rc = fj_invoke(pool, &root);
    free(a.children);
    return rc == FJ_OK && fj_pool_destroy(pool) == FJ_OK ? 0 : 3;
}
