/* The sequential fib below a cutoff, for bench-runtime's cutoff rows and
 * for the Lace programs it compares them with (bench/lace/fibs.c): one
 * object, compiled without LTO and aligned, linked into both, so that the
 * cutoff rows compare the runtimes above the leaves and not where a
 * linker put two copies of the same loop (the same source compiled into
 * each program took 83 ms in Lace's and 93.8 ms in bench-runtime's:
 * bench/RESULTS.md, 2026-12-06 22:33). */
#include "fib_leaf.h"

__attribute__((noinline)) long fjb_fib_leaf(long n)
{
    return n < 2 ? n : fjb_fib_leaf(n - 1) + fjb_fib_leaf(n - 2);
}
