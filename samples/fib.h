/* The brief's Fibonacci workloads on libfj, shared by fj-fib and bench/ so
 * that the samples and the benchmarks measure the very same code. Every
 * forked task carries n as its size hint. */
#ifndef FJ_SAMPLE_FIB_H
#define FJ_SAMPLE_FIB_H

#include "fj.h"

typedef long (*fib_fn)(long);

/* A fib call as a task: computes result = fn(n). */
struct fib_frame {
    fib_fn fn;
    long n, result;
};
void fib_body(void *arg);

/* Plain recursion, noinline: the honest sequential baseline. */
long fib_seq(long n);
/* Forks fn(n-2), computes fn(n-1) here, joins: one fork per call. */
long fib_split(fib_fn fn, long n);
/* Naive: fib_split at every call, exactly F(n+1)-1 forks. */
long fib_naive(long n);
/* Forks only while n > fib_cutoff_limit, below that fib_seq. */
extern long fib_cutoff_limit;
long fib_cutoff(long n);
/* F(n) by iteration, to check results. */
long fib_iter(long n);

#endif
