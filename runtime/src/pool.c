/* Pool lifetime: configuration, creating and stopping the workers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fast.h"
#include "offcpu.h"
#include "fence.h"
#include "stamp.h"

/* Pool ids for traces; relaxed: only uniqueness matters. */
static _Atomic uint32_t next_pool_id = 1;

static int default_workers(void)
{
    const char *env = getenv("FJ_WORKERS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n > 0 && n <= FJ_MAX_WORKERS) return (int)n;
        fprintf(stderr, "libfj: ignoring FJ_WORKERS=\"%s\" (want 1..%d)\n", env, FJ_MAX_WORKERS);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)(cpus < FJ_MAX_WORKERS ? cpus : FJ_MAX_WORKERS) : 1;
}

static int default_count_tasks(void)
{
    const char *env = getenv("FJ_COUNT_TASKS");
    if (!env || !*env) return 0;
    if (strcmp(env, "0") == 0 || strcmp(env, "1") == 0) return env[0] == '1';
    fprintf(stderr, "libfj: ignoring FJ_COUNT_TASKS=\"%s\" (want 0 or 1)\n", env);
    return 0;
}

void fj_pool_config_init(fj_pool_config *cfg)
{
    cfg->workers = 0;
    cfg->spin_rounds = FJ_SPIN_ROUNDS;
    cfg->yield_rounds = FJ_YIELD_ROUNDS;
    cfg->deque_initial = FJ_DEQUE_INITIAL;
    cfg->count_tasks = default_count_tasks();
}

static int config_check(const fj_pool_config *cfg)
{
    if (cfg->workers < 0 || cfg->workers > FJ_MAX_WORKERS || cfg->spin_rounds < 0 ||
        cfg->yield_rounds < 0 || cfg->yield_rounds > cfg->spin_rounds || cfg->deque_initial == 0 ||
        cfg->deque_initial > FJ_DEQUE_MAX_CAPACITY)
        return FJ_EINVAL;
    return FJ_OK;
}

static void pool_free(fj_pool *p, int deques_ready)
{
    for (int i = 0; i < deques_ready; i++)
        fj_deque_destroy(&p->workers[i].fast.dq);
    fj_submit_queue_destroy(&p->submissions);
    free(p->workers);
    free(p);
}

static int workers_init(fj_pool *p, size_t deque_initial)
{
    for (int i = 0; i < p->nworkers; i++) {
        fj_worker *w = &p->workers[i];
        memset(w, 0, sizeof(*w));
        if (fj_deque_init(&w->fast.dq, deque_initial) != FJ_OK) return i;
        fj_deque_set_trace_gate(&w->fast.dq, FJ_TRACE_GATE);
        fj_deque_set_counting(&w->fast.dq, p->count_tasks);
        w->pool = p;
        w->index = i;
        w->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ ((uint64_t)p->id << 32);
        atomic_init(&w->sleep_state, FJ_AWAKE);
    }
    return p->nworkers;
}

static void workers_stop(fj_pool *p, int started)
{
    /* Release: workers that acquire the flag see a quiescent pool. */
    atomic_store_explicit(&p->shutdown, 1, memory_order_release);
    fj_sleep_wake_all(p);
    for (int i = 0; i < started; i++)
        pthread_join(p->workers[i].thread, NULL);
}

static int workers_start(fj_pool *p)
{
    for (int i = 0; i < p->nworkers; i++) {
        fj_worker *w = &p->workers[i];
        if (pthread_create(&w->thread, NULL, fj_worker_main, w) != 0) {
            workers_stop(p, i);
            return FJ_EAGAIN;
        }
        /* The kernel keeps 15 bytes of a thread's name (and refuses a
         * longer one): a long pool id and index are cut there. */
        char name[32];
        snprintf(name, sizeof(name), "fj-%u-%d", p->id, i);
        name[15] = '\0';
        pthread_setname_np(w->thread, name);
    }
    return FJ_OK;
}

int fj_pool_create(fj_pool **out, const fj_pool_config *cfg)
{
    fj_pool_config defaults;
    if (!out) return FJ_EINVAL;
    if (!cfg) {
        fj_pool_config_init(&defaults);
        cfg = &defaults;
    }
    if (config_check(cfg) != FJ_OK) return FJ_EINVAL;
    fj_fence_init();
    fj_pool *p = calloc(1, sizeof(*p));
    if (!p) return FJ_ENOMEM;
    p->id = atomic_fetch_add_explicit(&next_pool_id, 1, memory_order_relaxed);
    p->nworkers = cfg->workers ? cfg->workers : default_workers();
    p->spin_rounds = cfg->spin_rounds;
    p->yield_rounds = cfg->yield_rounds;
    p->count_tasks = cfg->count_tasks != 0;
    fj_submit_queue_init(&p->submissions);
    p->workers = aligned_alloc(64, sizeof(fj_worker) * (size_t)p->nworkers);
    if (!p->workers) {
        pool_free(p, 0);
        return FJ_ENOMEM;
    }
    int ready = workers_init(p, cfg->deque_initial);
    if (ready < p->nworkers) {
        pool_free(p, ready);
        return FJ_ENOMEM;
    }
    fj_offcpu_prepare();
    fj_stamp_origin(); /* the first pool's: where exec_joined's clock rate is taken from */
    FJ_TRACE(pool_begin, p->id, -1, (uint32_t)p->nworkers);
    FJ_TRACE(joins_told, p->id, -1); /* sched.c: fj__join_slow's join_done */
    int rc = workers_start(p);
    if (rc != FJ_OK) {
        FJ_TRACE(pool_end, p->id, -1);
        pool_free(p, p->nworkers);
        return rc;
    }
    *out = p;
    return FJ_OK;
}

int fj_pool_destroy(fj_pool *p)
{
    if (!p) return FJ_EINVAL;
    if (fj_self && fj_self->pool == p) return FJ_EBUSY; /* a worker cannot join itself */
    /* Acquire: pairs with the release decrement in fj_task_mark_done. */
    if (atomic_load_explicit(&p->roots_in_flight, memory_order_acquire) != 0) return FJ_EBUSY;
    workers_stop(p, p->nworkers);
    FJ_TRACE(pool_end, p->id, -1);
    pool_free(p, p->nworkers);
    return FJ_OK;
}

int fj_pool_workers(const fj_pool *p)
{
    return p->nworkers;
}

uint32_t fj_pool_id(const fj_pool *p)
{
    return p->id;
}

const char *fj_strerror(int status)
{
    switch (status) {
    case FJ_OK:
        return "success";
    case FJ_EINVAL:
        return "invalid argument";
    case FJ_ENOMEM:
        return "out of memory";
    case FJ_EAGAIN:
        return "could not start a worker thread";
    case FJ_EBUSY:
        return "pool still has root tasks in flight";
    case FJ_ENOTASK:
        return "not called from a task of a pool";
    default:
        return "unknown libfj status";
    }
}
