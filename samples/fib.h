/* The Fibonacci workloads (docs/experiments.md §1) on libfj, shared by fj-fib and bench/ so
 * that the samples and the benchmarks measure the very same code. Every
 * spawned or forked task carries n as its size hint. */
#ifndef FJ_SAMPLE_FIB_H
#define FJ_SAMPLE_FIB_H

#include "fj.h"

/* Plain recursion, noinline: the honest sequential baseline. */
long fib_seq(long n);
/* Typed tasks (FJ_TASK_1), one spawn per call: naive spawns at every call,
 * exactly F(n+1)-1 spawns; cutoff spawns only while n > fib_cutoff_limit,
 * below that fib_seq. Called from inside a task of a pool, with its
 * worker handle (fj_ctx_self() in a task body given to fj_invoke). */
long fib_typed_naive(fj_ctx *w, long n);
long fib_typed_cutoff(fj_ctx *w, long n);
extern long fib_cutoff_limit;

/* The same two with fj_fork/fj_join: a frame on the caller's stack and the
 * body called through a pointer (the form before typed tasks). */
typedef long (*fib_fn)(long);
/* A fib call as an fj_task: computes result = fn(n). */
struct fib_frame {
    fib_fn fn;
    long n, result;
};
void fib_body(void *arg);
/* Forks fn(n-2), computes fn(n-1) here, joins: one fork per call. */
long fib_split(fib_fn fn, long n);
long fib_fork_naive(long n);
long fib_fork_cutoff(long n);

/* F(n) by iteration, to check results. */
long fib_iter(long n);

#endif
