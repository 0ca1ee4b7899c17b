/*
 * omp-known: OpenMP task programs whose work and span are known, for the
 * openmp suite's known-answer checks (tests/openmp/check_known.py). Every
 * leaf burns a fixed amount of its thread's CPU time (tests/tracing/
 * cpuburn.h), so preemption stretches the wall time but not the answer.
 * Built with clang (libomp) and gcc (libgomp, run on libomp). Cases,
 * several in one run separated by "+", each in its own parallel region:
 *   untied-wait [tied]  one untied task makes one child (20 ms) and waits
 *   fib N LEAF_US [tied] fib(N) with untied tasks and taskwait, each leaf
 *                       (n < 2) burns LEAF_US: work F(N+1) x LEAF_US.
 *                       Prints its span on the threads' CPU clocks as
 *                       tree does ("fib span on the CPU NS ns"; "n/a"
 *                       where an untied task's parts changed threads)
 *   chain N US          N tasks of US in one depend(inout: x) chain:
 *                       work = span = N x US
 *   grid N US           an N x N wavefront made by one task: (i,j) depends
 *                       on (i-1,j) and (i,j-1); work N^2 x US, span
 *                       (2N-1) x US
 *   producer N US       one task makes N children, each waits for one
 *                       grandchild of US; then one taskwait. Prints its
 *                       span and its work on the threads' CPU clocks
 *                       ("producer span on the CPU NS ns", "producer
 *                       work on the CPU NS ns": the tasks' own code, its
 *                       clock readings included: at least N x US)
 *   tree DEPTH US       a binary tree of 2^DEPTH leaves of US each:
 *                       work 2^DEPTH x US, span US. Prints its span on
 *                       the threads' CPU clocks, the tasks' own code
 *                       included ("tree span on the CPU NS ns")
 * The team is OMP_NUM_THREADS threads (the tests set 2). A warm-up region
 * comes first (8 empty tasks made by one: a flat graph, which leaves the
 * depths the advice looks at as the case makes them): the first use of
 * the runtime's code (lazy binding, first allocations) is then not on the
 * measured tree's path; the checks take the case's tree (most work).
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tracing/cpuburn.h"

static uint64_t leaf_ns;

static void untied_wait(int untied)
{
#pragma omp parallel
#pragma omp single
    {
        if (untied) {
#pragma omp task untied
            {
#pragma omp task
                cpuburn(leaf_ns);
#pragma omp taskwait
            }
        } else {
#pragma omp task
            {
#pragma omp task
                cpuburn(leaf_ns);
#pragma omp taskwait
            }
        }
    }
}

/* fib's value and the CPU time of its longest path on its threads' clocks
 * (as tree's: a node's code up to a child's fork, that child's path, its
 * code after its taskwait), or SPAN_UNKNOWN when a task's parts ran on
 * different threads: libomp's own ABI (clang) may resume an untied task
 * on another thread, whose clock says nothing of this one's; gcc's ABI
 * runs an untied task in one part. */
typedef struct {
    long value;
    uint64_t span_ns;
} fib_result;
#define SPAN_UNKNOWN UINT64_MAX

/* The readings of one node: at its start, after each child's creation,
 * after its taskwait; moved when any was on another thread than the first. */
typedef struct {
    uint64_t at[4];
    int thread;
    bool moved;
} fib_clock;

static void fib_read(fib_clock *c, int i)
{
    c->at[i] = cpuburn_thread_ns();
    if (i == 0) c->thread = omp_get_thread_num();
    c->moved = c->moved || omp_get_thread_num() != c->thread;
}

static fib_result fib_leaf(int n, fib_clock *c)
{
    cpuburn(leaf_ns);
    fib_read(c, 1);
    fib_result r = {n, c->moved ? SPAN_UNKNOWN : c->at[1] - c->at[0]};
    return r;
}

static fib_result fib_node(fib_clock *c, fib_result a, fib_result b)
{
    fib_result r = {a.value + b.value, SPAN_UNKNOWN};
    /* The node's code after its taskwait (this reading included) is on its
     * path; no scheduling point since reading 3, so no move either. */
    const uint64_t after_wait = cpuburn_thread_ns();
    if (c->moved || a.span_ns == SPAN_UNKNOWN || b.span_ns == SPAN_UNKNOWN) return r;
    const uint64_t through_a = c->at[1] - c->at[0] + a.span_ns;
    const uint64_t through_b = c->at[2] - c->at[0] + b.span_ns;
    r.span_ns = (through_a > through_b ? through_a : through_b) + after_wait - c->at[3];
    return r;
}

static fib_result fib_untied(int n)
{
    fib_clock c = {.moved = false};
    fib_read(&c, 0);
    if (n < 2) return fib_leaf(n, &c);
    fib_result a, b;
#pragma omp task untied shared(a)
    a = fib_untied(n - 1);
    fib_read(&c, 1);
#pragma omp task untied shared(b)
    b = fib_untied(n - 2);
    fib_read(&c, 2);
#pragma omp taskwait
    fib_read(&c, 3);
    return fib_node(&c, a, b);
}

static fib_result fib_tied(int n)
{
    fib_clock c = {.moved = false};
    fib_read(&c, 0);
    if (n < 2) return fib_leaf(n, &c);
    fib_result a, b;
#pragma omp task shared(a)
    a = fib_tied(n - 1);
    fib_read(&c, 1);
#pragma omp task shared(b)
    b = fib_tied(n - 2);
    fib_read(&c, 2);
#pragma omp taskwait
    fib_read(&c, 3);
    return fib_node(&c, a, b);
}

/* Prints the span ("fib span on the CPU NS ns", or "n/a" when a task's
 * parts moved between threads) and returns fib(n). */
static long fib(int n, int untied)
{
    fib_result r = {0, SPAN_UNKNOWN};
#pragma omp parallel shared(r)
#pragma omp single
    r = untied ? fib_untied(n) : fib_tied(n);
    if (r.span_ns == SPAN_UNKNOWN)
        printf("fib span on the CPU n/a (a task's parts ran on different threads)\n");
    else
        printf("fib span on the CPU %llu ns\n", (unsigned long long)r.span_ns);
    return r.value;
}

static void chain(int n)
{
    int x = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++) {
#pragma omp task depend(inout : x) shared(x)
        {
            cpuburn(leaf_ns);
            x++;
        }
    }
    if (x != n) exit(1);
}

/* Cells are the dependence objects: cell (i,j) is written by its task after
 * reading its upper and left neighbours. */
static void grid(int n)
{
    static char none; /* the edge of the grid: read only, so no edge */
    char *cell = calloc((size_t)n * (size_t)n, 1);
    if (!cell) exit(1);
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            char *up = i > 0 ? &cell[(i - 1) * n + j] : &none;
            char *left = j > 0 ? &cell[i * n + j - 1] : &none;
            char *me = &cell[i * n + j];
#pragma omp task depend(in : *up, *left) depend(inout : *me)
            {
                cpuburn(leaf_ns);
                me[0] = 1;
            }
        }
    free(cell);
}

/* A taskloop of n iterations of leaf_ns each, one task an iteration
 * (grainsize 1): independent tasks, made by the runtime inside the
 * construct (libgomp in a loop, libomp by splitting the range into tasks
 * that make the others), joined by its implicit taskgroup. */
static void taskloop(int n)
{
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(1)
    for (unsigned long i = 0; i < (unsigned long)n; i++)
        cpuburn(leaf_ns);
}

/* The producer's span on its threads' CPU clocks, measured by the program
 * itself: the path through child i is the producer's strand up to the
 * child's creation, then the child's code before its taskwait, its
 * grandchild's and the child's code after it. The producer's strand is its
 * thread's CPU time less the children it ran itself during its loop (libomp
 * runs a task at once when its creator's deque is full). Not measured: the
 * runtime's and the tool's code between the bodies (task starts and ends),
 * which the analyzer sees: its span is at or above this one. */
typedef struct {
    uint64_t made;   /* the producer's strand when child i was made */
    uint64_t before; /* the child's code before its taskwait */
    uint64_t leaf;   /* its grandchild's body */
    uint64_t after;  /* the child's code after the taskwait */
} producer_path;

static _Thread_local int producer_nesting; /* children in the producer's loop */

static void producer(int n)
{
    producer_path *path = calloc((size_t)n, sizeof *path);
    if (!path) exit(1);
    /* Relaxed atomics: in_loop and root_thread are only compared by a child
     * to know whether it runs nested in the producer's loop on the
     * producer's own thread; nested_ns is written by such children only,
     * which run on that thread, and read by it: no ordering is needed. */
    _Atomic bool in_loop = false;
    _Atomic int root_thread = -1;
    _Atomic uint64_t nested_ns = 0;
    uint64_t strand = 0, tail = 0;
#pragma omp parallel
#pragma omp single
    {
        atomic_store_explicit(&root_thread, omp_get_thread_num(), memory_order_relaxed);
        atomic_store_explicit(&in_loop, true, memory_order_relaxed);
        const uint64_t start = cpuburn_thread_ns();
        for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i)
            {
                const uint64_t c0 = cpuburn_thread_ns();
                /* Run at once by the producer's own thread in its loop, and
                 * not inside another such child (whose time holds it). */
                const bool nested = atomic_load_explicit(&in_loop, memory_order_relaxed) &&
                                    omp_get_thread_num() ==
                                        atomic_load_explicit(&root_thread, memory_order_relaxed) &&
                                    producer_nesting++ == 0;
                uint64_t leaf = 0;
                /* The thread that ran the grandchild, once done; relaxed:
                 * it only matters when it is this thread (the grandchild
                 * run at once when the deque is full: nested in `before`,
                 * which then leaves it out), and leaf is read after the
                 * taskwait. */
                _Atomic int leaf_on = -1;
#pragma omp task shared(leaf, leaf_on)
                {
                    const uint64_t g0 = cpuburn_thread_ns();
                    cpuburn(leaf_ns);
                    leaf = cpuburn_thread_ns() - g0;
                    atomic_store_explicit(&leaf_on, omp_get_thread_num(), memory_order_relaxed);
                }
                uint64_t c1 = cpuburn_thread_ns();
                const bool ran_nested =
                    atomic_load_explicit(&leaf_on, memory_order_relaxed) == omp_get_thread_num();
#pragma omp taskwait
                const uint64_t c2 = cpuburn_thread_ns();
                if (ran_nested) c1 -= leaf;
                path[i].leaf = leaf;
                path[i].before = c1 - c0;
                const uint64_t c3 = cpuburn_thread_ns();
                path[i].after = c3 - c2;
                if (nested) {
                    atomic_fetch_add_explicit(&nested_ns, c3 - c0, memory_order_relaxed);
                    producer_nesting = 0;
                }
            }
            path[i].made = cpuburn_thread_ns() - start -
                           atomic_load_explicit(&nested_ns, memory_order_relaxed);
        }
        atomic_store_explicit(&in_loop, false, memory_order_relaxed);
        strand =
            cpuburn_thread_ns() - start - atomic_load_explicit(&nested_ns, memory_order_relaxed);
#pragma omp taskwait
        const uint64_t waited = cpuburn_thread_ns();
        tail = cpuburn_thread_ns() - waited; /* the producer's code after its wait */
    }
    uint64_t span = strand, work = strand + tail;
    for (int i = 0; i < n; i++) {
        uint64_t through = path[i].made + path[i].before + path[i].leaf + path[i].after;
        if (through > span) span = through;
        work += path[i].before + path[i].leaf + path[i].after;
    }
    printf("producer span on the CPU %llu ns\n", (unsigned long long)(span + tail));
    printf("producer work on the CPU %llu ns\n", (unsigned long long)work);
    free(path);
}

/* A node of the tree; returns the CPU time (its threads' clocks) of the
 * longest path through it: its own code up to the fork of a child, that
 * child's path, its code after its taskwait. The time inside the taskwait
 * (children run there) is not its own. A child is never run inside its
 * fork here: a thread queues at most DEPTH + 1 tasks, far below libomp's
 * deque size. Tied tasks: each node's readings are on one thread. */
static uint64_t tree(int depth)
{
    const uint64_t t0 = cpuburn_thread_ns();
    if (depth == 0) {
        cpuburn(leaf_ns);
        return cpuburn_thread_ns() - t0;
    }
    uint64_t a = 0, b = 0;
#pragma omp task shared(a)
    a = tree(depth - 1);
    const uint64_t t1 = cpuburn_thread_ns();
#pragma omp task shared(b)
    b = tree(depth - 1);
    const uint64_t t2 = cpuburn_thread_ns();
#pragma omp taskwait
    const uint64_t t3 = cpuburn_thread_ns();
    const uint64_t through = t1 - t0 + a > t2 - t0 + b ? t1 - t0 + a : t2 - t0 + b;
    return through + cpuburn_thread_ns() - t3;
}

static void tree_region(int depth)
{
    uint64_t span = 0;
#pragma omp parallel shared(span)
#pragma omp single
    span = tree(depth);
    printf("tree span on the CPU %llu ns\n", (unsigned long long)span);
}

static void warm_up(void)
{
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 8; i++) {
#pragma omp task
            cpuburn(0);
        }
#pragma omp taskwait
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: omp-known CASE [+ CASE]...\n"
                    "  CASE: untied-wait [tied] | fib N LEAF_US [tied] | chain N US |"
                    " grid N US | producer N US | tree DEPTH US | taskloop N US\n");
    return 2;
}

/* Runs the case in argv[0..argc-1] (its own parallel region); false: no
 * such case. */
static bool run_case(int argc, char **argv)
{
    const char *c = argv[0];
    int n = argc > 1 ? atoi(argv[1]) : 0;
    leaf_ns = argc > 2 ? (uint64_t)atol(argv[2]) * 1000u : 0;
    bool tied = argc > 3 && strcmp(argv[3], "tied") == 0;
    if (strcmp(c, "untied-wait") == 0 && argc <= 2) {
        leaf_ns = 20000000u;
        untied_wait(!(argc == 2 && strcmp(argv[1], "tied") == 0));
    } else if (strcmp(c, "fib") == 0 && (argc == 3 || argc == 4)) {
        printf("fib(%d) = %ld\n", n, fib(n, !tied));
    } else if (strcmp(c, "chain") == 0 && argc == 3) {
        chain(n);
    } else if (strcmp(c, "grid") == 0 && argc == 3) {
        grid(n);
    } else if (strcmp(c, "producer") == 0 && argc == 3) {
        producer(n);
    } else if (strcmp(c, "tree") == 0 && argc == 3) {
        tree_region(n);
    } else if (strcmp(c, "taskloop") == 0 && argc == 3) {
        taskloop(n);
    } else {
        return false;
    }
    return true;
}

/* Several cases in one run (one recording), separated by "+": each is a
 * tree of its own, in order. */
int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    warm_up();
    for (int first = 1; first < argc;) {
        int end = first;
        while (end < argc && strcmp(argv[end], "+") != 0)
            end++;
        if (end == first || !run_case(end - first, argv + first)) return usage();
        first = end + 1;
    }
    return 0;
}
