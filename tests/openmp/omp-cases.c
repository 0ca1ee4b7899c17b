/*
 * omp-cases: small OpenMP programs with a known trace, one per argument, for
 * the openmp suite (tests/openmp/check_omp.py states what each must show).
 * Built with clang (libomp) and gcc (libgomp, run on libomp).
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    usleep((useconds_t)ms * 1000);
}

/* Set by a task run on another thread than the one that made it.
 * Seq_cst: a flag between threads. */
static atomic_int other_ran;

/* 20 tasks made by one thread: the first one its maker runs waits (up to
 * 10 s) until the other thread has run one, which it can only have taken
 * from the maker's queue: a steal, however the threads are scheduled. */
static void steal(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        int maker = omp_get_thread_num();
        for (int i = 0; i < 20; i++) {
#pragma omp task firstprivate(maker)
            {
                if (omp_get_thread_num() != maker)
                    atomic_store(&other_ran, 1);
                else
                    for (int k = 0; k < 100000 && !atomic_load(&other_ran); k++)
                        usleep(100);
                sleep_ms(1);
            }
        }
    }
}

/* A taskwait with unfinished children (a join), then 50 with none. */
static void taskwait(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < 4; i++) {
#pragma omp task
            sleep_ms(5);
        }
#pragma omp taskwait
        for (int i = 0; i < 50; i++) {
#pragma omp taskwait
        }
    }
}

/* A taskgroup waits for a grandchild too. */
static void taskgroup(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskgroup
    {
#pragma omp task
        {
#pragma omp task
            sleep_ms(5);
        }
    }
}

/* Set once the single thread has made every task: a task waits for it, so
 * every predecessor is still pending when its successor is created (the
 * runtime reports only those edges), however the threads are scheduled.
 * Seq_cst: a flag between threads, no hurry. */
static atomic_int all_created;

static void wait_all_created(void)
{
    while (!atomic_load(&all_created))
        usleep(100);
}

/* A chain of 5 tasks on one variable: 4 dependence edges. */
static void depend(void)
{
    int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < 5; i++) {
#pragma omp task depend(inout : x) shared(x)
            {
                wait_all_created();
                x++;
            }
        }
        atomic_store(&all_created, 1);
    }
    if (x != 5) exit(1);
}

/* 10 undeferred tasks (if(0)), then a final task with 3 children
 * (included). */
static void undeferred(void)
{
    int n = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < 10; i++) {
#pragma omp task if (0) shared(n)
            n++;
        }
#pragma omp task final(1) shared(n)
        {
            for (int i = 0; i < 3; i++) {
#pragma omp task shared(n)
#pragma omp atomic
                n++;
            }
        }
    }
    if (n != 13) exit(1);
}

/* Untied tasks that yield: they may move between the 2 threads. */
static void untied(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < 8; i++) {
#pragma omp task untied
        for (int k = 0; k < 4; k++) {
            sleep_ms(1);
#pragma omp taskyield
        }
    }
}

/* Contention for certain, however the threads are scheduled: thread 0
 * holds the lock until thread 1 is about to take it, and 20 ms more.
 * Seq_cst flags: a handshake between two threads. */
static atomic_int held, coming;

static void hold_until_other_comes(void)
{
    atomic_store(&held, 1);
    while (!atomic_load(&coming))
        usleep(100);
    sleep_ms(20);
}

static void come(void)
{
    while (!atomic_load(&held))
        usleep(100);
    atomic_store(&coming, 1);
}

/* The handshake, then each of 2 threads holds the lock 2 ms at a time, 10
 * times. */
static void lock(void)
{
    omp_lock_t l;
    omp_init_lock(&l);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&l);
            hold_until_other_comes();
            omp_unset_lock(&l);
        } else {
            come();
            omp_set_lock(&l);
            omp_unset_lock(&l);
        }
        for (int i = 0; i < 10; i++) {
            omp_set_lock(&l);
            sleep_ms(2);
            omp_unset_lock(&l);
        }
    }
    omp_destroy_lock(&l);
}

static void critical(void)
{
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp critical(shared_counter)
            hold_until_other_comes();
        } else {
            come();
#pragma omp critical(shared_counter)
            sleep_ms(0);
        }
        for (int i = 0; i < 10; i++) {
#pragma omp critical(shared_counter)
            sleep_ms(2);
        }
    }
}

/* 2 threads, each opening a region of 2 that makes one task. */
static void nested(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
#pragma omp task
        sleep_ms(1);
    }
}

/* The program ends inside a parallel region, tasks still queued. */
static void exit_inside(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < 4; i++) {
#pragma omp task
            sleep_ms(50);
        }
        fflush(stdout);
        exit(0);
    }
}

/* Burns us of this thread's CPU time. */
static void burn_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* No explicit task: a statically scheduled loop of 16 iterations of which
 * the last 8 burn 3 ms each: thread 0 runs 0..7 (nothing), thread 1 8..15
 * (24 ms), and thread 0 waits at the loop's barrier meanwhile. */
static void worksharing(void)
{
#pragma omp parallel for schedule(static) num_threads(2)
    for (int i = 0; i < 16; i++)
        burn_us(i < 8 ? 0 : 3000);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"steal", steal},      {"taskwait", taskwait},      {"taskgroup", taskgroup},
                 {"depend", depend},    {"undeferred", undeferred},  {"untied", untied},
                 {"lock", lock},        {"critical", critical},      {"nested", nested},
                 {"exit", exit_inside}, {"worksharing", worksharing}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return 0;
        }
    fprintf(stderr, "usage: omp-cases steal|taskwait|taskgroup|depend|undeferred|untied|lock|"
                    "critical|nested|exit|worksharing\n");
    return 2;
}
