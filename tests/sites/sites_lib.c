/* A shared library that forks tasks itself: their creation site is in
 * this library (tests/sites/test_sites.py finds the line by its marker). */
#include "sites_lib.h"

#include <fj.h>

struct tree_frame {
    int depth;
    long count;
};

static void tree_body(void *arg)
{
    struct tree_frame *f = arg;
    f->count = sites_lib_tree(f->depth);
}

long sites_lib_tree(int depth)
{
    if (depth <= 0) return 1;
    struct tree_frame child = {depth - 1, 0};
    fj_task t;
    fj_task_init(&t, tree_body, &child);
    fj_fork(&t); /* SITE:lib */
    long mine = sites_lib_tree(depth - 1);
    fj_join(&t);
    return 1 + mine + child.count;
}
