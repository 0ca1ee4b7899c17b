/* The cutoff rows' sequential fib (fib_leaf.c). */
#ifndef FJB_FIB_LEAF_H
#define FJB_FIB_LEAF_H

long fjb_fib_leaf(long n);

#endif
