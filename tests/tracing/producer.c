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
 * The program also measures both on its threads' CPU clocks and prints
 * them ("producer span on the CPU NS ns", "producer work on the CPU NS
 * ns"): each task's own code, the tasks run inside it on its thread (at a
 * full deque's fork, in a join) left out; its clock readings are part of
 * it. How much the runtime's code between the bodies costs varies with the
 * load (each reading of a thread's CPU clock is a system call here), so the
 * test compares the analyzer's figures with these, from the same run. Not
 * measured: the runtime's code around the bodies, which the analyzer sees,
 * and the root's joins (the path goes on through them; a few us): the
 * analyzer's figures are at or a little above these.
 *
 * usage: producer N L_US */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpuburn.h"
#include "fj.h"

#define PRODUCER_DEQUE 4 /* small: most forks run their child at once */

/* The CPU time of the tasks run inside the one running now, on this thread:
 * a task's own code is its time less this (see own_begin). */
static _Thread_local uint64_t nested_ns;

typedef struct {
    uint64_t start; /* the thread's CPU clock when the task began */
    uint64_t outer; /* nested_ns of the task it runs inside */
} own_clock;

static own_clock own_begin(void)
{
    own_clock c = {cpuburn_thread_ns(), nested_ns};
    nested_ns = 0;
    return c;
}

/* The task's own code so far: its thread's time since it began, less the
 * tasks run inside it there. */
static uint64_t own_now(const own_clock *c)
{
    return cpuburn_thread_ns() - c->start - nested_ns;
}

/* Ends the task: its whole time is nested in the task it ran inside. */
static uint64_t own_end(const own_clock *c)
{
    const uint64_t now = cpuburn_thread_ns();
    const uint64_t own = now - c->start - nested_ns;
    nested_ns = c->outer + (now - c->start);
    return own;
}

typedef struct {
    uint64_t made;   /* the root's own code when child i was made */
    uint64_t before; /* the child's own code up to its grandchild's fork */
    uint64_t leaf;   /* its grandchild's */
    uint64_t after;  /* the child's own code from its join on */
    uint64_t leaf_ns;
} child_path;

static void leaf(void *arg)
{
    child_path *p = arg;
    own_clock c = own_begin();
    cpuburn(p->leaf_ns);
    p->leaf = own_end(&c);
}

static void child(void *arg)
{
    child_path *p = arg;
    own_clock c = own_begin();
    fj_task g;
    fj_task_init(&g, leaf, p);
    fj_fork(&g);
    p->before = own_now(&c);
    fj_join(&g);
    const uint64_t joined = own_now(&c);
    p->after = own_end(&c) - joined;
}

typedef struct {
    long n;
    fj_task *children;
    child_path *paths;
    uint64_t own; /* the root's own code up to its joins */
} producer_args;

static void producer(void *arg)
{
    producer_args *a = arg;
    own_clock c = own_begin();
    for (long i = 0; i < a->n; i++) {
        fj_task_init(&a->children[i], child, &a->paths[i]);
        fj_fork(&a->children[i]);
        a->paths[i].made = own_now(&c);
    }
    /* Its joins are left out: waiting there for a stolen child is the
     * thread's CPU time but not work. */
    a->own = own_now(&c);
    for (long i = a->n; i-- > 0;)
        fj_join(&a->children[i]);
    own_end(&c);
}

static void print_own(const producer_args *a)
{
    uint64_t span = 0, work = a->own;
    for (long i = 0; i < a->n; i++) {
        const child_path *p = &a->paths[i];
        const uint64_t through = p->made + p->before + p->leaf + p->after;
        if (through > span) span = through;
        work += p->before + p->leaf + p->after;
    }
    printf("producer span on the CPU %llu ns\n", (unsigned long long)span);
    printf("producer work on the CPU %llu ns\n", (unsigned long long)work);
}

int main(int argc, char **argv)
{
    long n = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
    long us = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (n < 1 || n > 100000 || us < 1 || us > 1000000) {
        fprintf(stderr, "usage: producer N L_US (N 1..100000, L 1..1000000)\n");
        return 2;
    }
    producer_args a = {.n = n};
    a.children = calloc((size_t)n, sizeof *a.children);
    a.paths = calloc((size_t)n, sizeof *a.paths);
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 2;
    cfg.deque_initial = PRODUCER_DEQUE;
    fj_pool *pool;
    if (!a.children || !a.paths || fj_pool_create(&pool, &cfg) != FJ_OK) {
        fprintf(stderr, "producer: cannot create the pool\n");
        return 3;
    }
    for (long i = 0; i < n; i++)
        a.paths[i].leaf_ns = (uint64_t)us * 1000u;
    fj_task root;
    fj_task_init(&root, producer, &a);
    int rc = fj_invoke(pool, &root);
    if (rc == FJ_OK) print_own(&a);
    free(a.children);
    free(a.paths);
    return rc == FJ_OK && fj_pool_destroy(pool) == FJ_OK ? 0 : 3;
}
