/* tests/sites/sites_lib.c: forks a binary tree of 2^(depth+1)-1 calls. */
#ifndef SITES_LIB_H
#define SITES_LIB_H

/* Returns the number of calls, 2^(depth+1) - 1; forks 2^depth - 1 tasks. */
long sites_lib_tree(int depth);

#endif
