/* The Fibonacci workloads; see fib.h. */
#include "fib.h"

long fib_cutoff_limit = 20;

__attribute__((noinline)) long fib_seq(long n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

FJ_TASK_1(long, fib_naive, long, n)
{
    if (n < 2) return n;
    FJ_SPAWN_SIZED(fib_naive, n - 2, n - 2);
    long x = FJ_CALL(fib_naive, n - 1);
    return x + FJ_SYNC(fib_naive);
}

FJ_TASK_1(long, fib_cutoff, long, n)
{
    if (n <= fib_cutoff_limit) return fib_seq(n);
    FJ_SPAWN_SIZED(fib_cutoff, n - 2, n - 2);
    long x = FJ_CALL(fib_cutoff, n - 1);
    return x + FJ_SYNC(fib_cutoff);
}

long fib_typed_naive(fj_ctx *w, long n)
{
    return fib_naive(w, fj_head(w), n);
}

long fib_typed_cutoff(fj_ctx *w, long n)
{
    return fib_cutoff(w, fj_head(w), n);
}

void fib_body(void *arg)
{
    struct fib_frame *f = arg;
    f->result = f->fn(f->n);
}

long fib_split(fib_fn fn, long n)
{
    struct fib_frame child = {fn, n - 2, 0};
    fj_task t;
    fj_task_init(&t, fib_body, &child);
    fj_task_set_size_hint(&t, (uint64_t)(n - 2));
    fj_fork(&t);
    long x = fn(n - 1);
    fj_join(&t);
    return x + child.result;
}

long fib_fork_naive(long n)
{
    return n < 2 ? n : fib_split(fib_fork_naive, n);
}

long fib_fork_cutoff(long n)
{
    return n <= fib_cutoff_limit ? fib_seq(n) : fib_split(fib_fork_cutoff, n);
}

long fib_iter(long n)
{
    long a = 0, b = 1;
    for (long i = 0; i < n; i++) {
        long c = a + b;
        a = b;
        b = c;
    }
    return a;
}
