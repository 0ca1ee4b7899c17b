/* Workloads with known answers, shared by test_runtime and test_soak. */
#ifndef FJ_TEST_WORKLOADS_H
#define FJ_TEST_WORKLOADS_H

#include <stdatomic.h>
#include <stdint.h>

#include "fj.h"

/* Naive fib: forks fib(n-2) at every call. fib_table[n] = F(n), n <= 24. */
struct fib {
    long n, r;
};
extern const long fib_table[25];
void fib_task(void *arg);

/* A random-shaped tree (0..4 children per node) whose sum of node hashes
 * tree_seq computes sequentially; joins sometimes in fork order. */
struct node {
    uint64_t seed;
    int depth;
    uint64_t sum;
};
uint64_t mix(uint64_t x);
uint64_t tree_seq(uint64_t seed, int depth);
void tree_task(void *arg);

/* Counted completers summing [lo, hi) by halving; range_check_free checks
 * that every node completed exactly once, frees the nodes and returns the
 * number of completers. */
struct range {
    fj_completer cc;
    long lo, hi;
    long sum;
    struct range *kids;
    _Atomic int completions;
};
void range_compute(fj_completer *c);
void range_done(fj_completer *c, fj_completer *caller);
long range_check_free(struct range *r, int *bad);

#endif
