/* late: a recording that begins while a task runs untraced. The root task
 * forks untraced (naive fib with typed tasks, and one fj_fork) for a few
 * rounds, creates READY and waits, without forking, for the file GO, which
 * the test creates once its session records the fjtrace events; then it
 * forks for ROUNDS more rounds: its first traced fork must give it an id
 * and an exec (fork_trace in runtime/src/sched.c), so that every recorded
 * fork lies inside an exec and the root's executed closes that exec. It
 * does not fork while the events are being enabled: LTTng-UST turns them
 * on one by one, and a late exec emitted while fork was on and exec not
 * yet would be lost. One worker: no steal of a task forked untraced.
 *
 * usage: late READY GO ROUNDS
 * Prints "rounds=R result=X" (X: the sum of the rounds, checked here). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fj.h"

#define LATE_N 10 /* fib(10) = 55, 88 forks a round */

FJ_TASK_1(long, late_fib, long, n)
{
    if (n < 2) return n;
    FJ_SPAWN(late_fib, n - 2);
    long x = FJ_CALL(late_fib, n - 1);
    return x + FJ_SYNC(late_fib);
}

static void one(void *arg)
{
    *(long *)arg = 1;
}

struct late {
    const char *ready, *go;
    long rounds, done, result;
};

/* A round: a typed fib and an fj_fork, both forking from the root. */
static long round_of(fj_ctx *w)
{
    long one_result = 0;
    fj_task t;
    fj_task_init(&t, one, &one_result);
    fj_fork(&t);
    long r = late_fib(w, fj_head(w), LATE_N);
    fj_join(&t);
    return r + one_result;
}

static void pause_ms(void)
{
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void root(void *arg)
{
    struct late *l = arg;
    fj_ctx *w = fj_ctx_self();
    for (int i = 0; i < 10; i++)
        if (round_of(w) != 56) exit(4);
    FILE *f = fopen(l->ready, "w");
    if (!f || fclose(f) != 0) {
        perror(l->ready);
        exit(3);
    }
    /* Until the test's session records (60 s at most). */
    for (int i = 0; i < 60000 && access(l->go, F_OK) != 0; i++)
        pause_ms();
    for (l->done = 0; l->done < l->rounds; l->done++) {
        l->result += round_of(w);
        pause_ms();
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: late READY GO ROUNDS\n");
        return 2;
    }
    struct late l = {argv[1], argv[2], atol(argv[3]), 0, 0};
    fj_pool_config cfg;
    fj_pool_config_init(&cfg);
    cfg.workers = 1;
    fj_pool *pool;
    if (fj_pool_create(&pool, &cfg) != FJ_OK) return 3;
    fj_task t;
    fj_task_init(&t, root, &l);
    int rc = fj_invoke(pool, &t);
    fj_pool_destroy(pool);
    printf("rounds=%ld result=%ld\n", l.done, l.result);
    return rc == FJ_OK && l.result == 56 * l.rounds ? 0 : 1;
}
