/* Workloads with known answers; see workloads.h. */
#include "workloads.h"

#include <stdlib.h>

#include "../tap.h"

/* ---- fib: known answers, known fork count ---- */
static long fib(long n)
{
    if (n < 2) return n;
    struct fib c = {n - 2, 0};
    fj_task t;
    fj_task_init(&t, fib_task, &c);
    fj_fork(&t);
    long x = fib(n - 1);
    fj_join(&t);
    return x + c.r;
}
void fib_task(void *arg)
{
    struct fib *f = arg;
    f->r = fib(f->n);
}
const long fib_table[25] = {0,    1,    1,    2,     3,     5,     8,    13,  21,
                            34,   55,   89,   144,   233,   377,   610,  987, 1597,
                            2584, 4181, 6765, 10946, 17711, 28657, 46368};

/* ---- random-shaped trees with checksums ---- */
uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}
uint64_t tree_seq(uint64_t seed, int depth)
{
    uint64_t h = mix(seed), sum = h;
    int kids = depth > 0 ? (int)(h % 5) : 0;
    for (int i = 0; i < kids; i++)
        sum += tree_seq(h + (uint64_t)i + 1, depth - 1);
    return sum;
}
void tree_task(void *arg)
{
    struct node *nd = arg;
    uint64_t h = mix(nd->seed);
    int kids = nd->depth > 0 ? (int)(h % 5) : 0;
    struct node child[4];
    fj_task t[4];
    for (int i = 0; i < kids; i++) {
        child[i] = (struct node){h + (uint64_t)i + 1, nd->depth - 1, 0};
        fj_task_init(&t[i], tree_task, &child[i]);
        fj_fork(&t[i]);
    }
    nd->sum = h;
    /* Join in fork order (not LIFO) on odd hashes: joins need not nest. */
    for (int k = 0; k < kids; k++) {
        int i = (h & 1) ? k : kids - 1 - k;
        fj_join(&t[i]);
        nd->sum += child[i].sum;
    }
}
/* ---- counted completers: sum of [lo, hi) split in halves ---- */
void range_done(fj_completer *c, fj_completer *caller)
{
    (void)caller;
    struct range *r = c->user;
    if (r->kids) r->sum = r->kids[0].sum + r->kids[1].sum;
    atomic_fetch_add_explicit(&r->completions, 1, memory_order_relaxed);
}
void range_compute(fj_completer *c)
{
    struct range *r = c->user;
    if (r->hi - r->lo <= 64) {
        r->kids = NULL;
        for (long i = r->lo; i < r->hi; i++)
            r->sum += i;
        fj_completer_try_complete(c);
        return;
    }
    r->kids = calloc(2, sizeof(struct range));
    require(r->kids);
    long mid = r->lo + (r->hi - r->lo) / 2;
    r->kids[0].lo = r->lo, r->kids[0].hi = mid;
    r->kids[1].lo = mid, r->kids[1].hi = r->hi;
    fj_completer_add_pending(c, 2);
    for (int i = 0; i < 2; i++) {
        fj_completer_init(&r->kids[i].cc, c, range_compute, range_done, &r->kids[i]);
        fj_completer_fork(&r->kids[i].cc);
    }
    /* Leaves decrement our pending count; the last one completes us. */
    fj_completer_try_complete(c);
}
long range_check_free(struct range *r, int *bad)
{
    long tasks = 1;
    if (atomic_load(&r->completions) != 1) (*bad)++;
    if (r->kids) {
        tasks += range_check_free(&r->kids[0], bad) + range_check_free(&r->kids[1], bad);
        free(r->kids);
    }
    return tasks;
}
