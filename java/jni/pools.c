/* Pools and the threads' roles in them: pool_begin/pool_runtime/pool_end,
 * worker_begin/worker_end, guest slots of non-worker threads, the JVM's
 * exit (docs/java.md). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fjjni.h"

typedef struct {
    /* Every field is published before the pool's pointer (release) and read
     * after it (acquire). */
    uint32_t parallelism;
    _Atomic int32_t nworkers; /* slots handed out (relaxed: uniqueness only) */
    _Atomic uint64_t roots;   /* root sequence (relaxed: uniqueness only) */
    /* Set once at the end; read relaxed on every event: an event racing
     * with the end may still be written, which the trace shows as after. */
    _Atomic bool ended;
    /* The common pool is made whenever ForkJoinPool is initialised, used
     * or not: its pool_begin waits for its first worker or root. */
    _Atomic int announced; /* enum announce_state */
    bool common;
    _Atomic uint8_t live[FJJ_MAX_WORKERS]; /* 1 from worker_begin to worker_end */
} fjj_pool;

static _Atomic(fjj_pool *) pools[FJJ_MAX_POOLS];
/* Pool ids in creation order, from 1 (relaxed: uniqueness only). */
static _Atomic uint32_t next_pool = 1;
static char runtime[256];

/* Dynamic TLS (__tls_get_addr): the library is loaded by System.load, i.e.
 * dlopen, and this struct (about 8 KiB) is too big for glibc's static TLS
 * surplus. */
static _Thread_local fjj_thread self;

fjj_thread *fjj_self(void)
{
    return &self;
}

static fjj_pool *pool_get(uint32_t pool)
{
    if (pool == 0 || pool >= FJJ_MAX_POOLS) return NULL;
    return atomic_load_explicit(&pools[pool], memory_order_acquire);
}

bool fjj_pool_open(uint32_t pool)
{
    fjj_pool *p = pool_get(pool);
    return p && !atomic_load_explicit(&p->ended, memory_order_relaxed);
}

enum announce_state { UNANNOUNCED, ANNOUNCING, ANNOUNCED };

/* pool_begin and pool_runtime, once, before any other event of the pool:
 * the thread that takes the announcement emits them; a thread using the
 * pool at the same moment (the common pool's first use by two threads)
 * waits until they are written, so that its own first event is stamped
 * after them. Acquire/release: the waiter's events happen after the
 * announcer's. */
static void announce(fjj_pool *p, uint32_t pool)
{
    int state = atomic_load_explicit(&p->announced, memory_order_acquire);
    if (state == ANNOUNCED) return;
    int expected = UNANNOUNCED;
    if (state == UNANNOUNCED &&
        atomic_compare_exchange_strong_explicit(&p->announced, &expected, ANNOUNCING,
                                                memory_order_acquire, memory_order_acquire)) {
        fj_switches_prepare();
        FJJ_EMIT(pool_begin, pool, -1, p->parallelism);
        if (lttng_ust_tracepoint_enabled(fjtrace, pool_runtime)) {
            char name[sizeof runtime + 16];
            snprintf(name, sizeof name, "%s%s", runtime, p->common ? "; common pool" : "");
            FJJ_EMIT(pool_runtime, pool, -1, "jvm", name);
        }
        atomic_store_explicit(&p->announced, ANNOUNCED, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&p->announced, memory_order_acquire) != ANNOUNCED)
        sched_yield();
}

/* Off-CPU time: the thread's own context switches (tracepoints/switches.h),
 * as libfj's workers and the OMPT tool's threads record them, told for the
 * first role the thread takes. Opened with that role while a session
 * records fjtrace:offcpu, else at the first drain after one starts; with
 * a first reading of the thread's CPU clock (offcpu_task_clock), as the
 * OMPT tool's threads: the drains at its task boundaries read it only
 * when a switch happened or a piece was long (switches.h), the first span
 * begins here. It tells none of the agent's time (below): no code under
 * way, an entry no reading comes after (switches.h counts the ticks since
 * `entry` while the ring's head is still `entry_head`). */
static void offcpu_open(fjj_thread *t)
{
    fj_switches_open(t->offcpu);
    t->tool_ticks = 0;
    if (fj_switches_is_open())
        fj_switches_task_clock(t->offcpu, (fj_switches_tool){.entry = UINT64_MAX});
}

static void offcpu_begin(fjj_thread *t, uint32_t pool, int32_t worker)
{
    if (t->offcpu.pool) return;
    t->offcpu = (fj_switches_for){.pool = pool, .worker = worker};
    fj_switches_reset();
    if (fj_switches_recorded()) offcpu_open(t);
}

/* The agent's own time (offcpu_task_clock's `tool`, docs/events.md) is
 * its drains': each times itself (the clock's reading, a system call, and
 * the events it writes), as the OMPT tool times its callbacks, and the
 * drains the thread stayed on the CPU through (the ring's head did not
 * move) are summed; the analyzer takes that time out of the task running
 * at the next reading. The agent's other code (its hooks, their events)
 * is not timed: it stays in the tasks'. */
void fjj_offcpu_drain(fjj_thread *t)
{
    if (!t->offcpu.pool || !fjj_pool_open(t->offcpu.pool)) return;
    if (!fj_switches_is_open()) {
        if (fj_switches_refused() || !fj_switches_recorded()) return;
        offcpu_open(t);
        if (!fj_switches_is_open()) return;
    }
    const unsigned long long *ring = fj_switches_ring_head();
    const fj_switches_tool tool = {
        .done = t->tool_ticks, .entry = fj_switches_ticks(), .entry_head = fj_switches_head(ring)};
    /* (the agent does not time its events after the drain: its readings
     * say no switch follows, the time to it stays the task's) */
    fj_switches_drain_task(t->offcpu, tool, false);
    t->tool_ticks +=
        fj_switches_stayed_ticks(ring, tool.entry_head, tool.entry, fj_switches_ticks());
}

/* A new worker slot of pool, begun on this thread; -1 past the bound. */
static int32_t slot_begin(fjj_pool *p, uint32_t pool)
{
    announce(p, pool);
    int32_t w = atomic_fetch_add_explicit(&p->nworkers, 1, memory_order_relaxed);
    if (w >= FJJ_MAX_WORKERS) return -1;
    atomic_store_explicit(&p->live[w], 1, memory_order_relaxed);
    FJJ_EMIT(worker_begin, pool, w);
    return w;
}

int32_t fjj_role_in(fjj_thread *t, uint32_t pool)
{
    if (t->own.pool == pool && pool != 0) return t->own.worker;
    fjj_role *free_slot = NULL;
    for (int i = 0; i < FJJ_GUESTS; i++) {
        if (t->guests[i].pool == pool) return t->guests[i].worker;
        if (t->guests[i].pool == 0 && !free_slot) free_slot = &t->guests[i];
    }
    fjj_pool *p = pool_get(pool);
    if (!free_slot || !p || atomic_load_explicit(&p->ended, memory_order_relaxed)) return -1;
    int32_t w = slot_begin(p, pool);
    if (w >= 0) {
        *free_slot = (fjj_role){.pool = pool, .worker = w};
        offcpu_begin(t, pool, w);
    }
    return w;
}

/* ---- Java thread ids of the workers, for wake's target: an open-addressed
 * table, written at worker_begin/worker_end, read by wakers. Each entry is
 * one 64-bit word (tid << 28 | pool << 12 | worker + 1) so that a reader
 * sees a whole entry (relaxed: a stale entry only names an old target). */
enum { WORKER_TABLE = 8192 };
static _Atomic uint64_t worker_table[WORKER_TABLE];

static void table_put(int64_t tid, uint32_t pool, int32_t worker)
{
    uint64_t v = (uint64_t)tid << 28 | (uint64_t)(pool & 0xffff) << 12 | (uint64_t)(worker + 1);
    for (uint32_t i = 0; i < WORKER_TABLE; i++) {
        _Atomic uint64_t *e = &worker_table[((uint64_t)tid + i) % WORKER_TABLE];
        uint64_t old = atomic_load_explicit(e, memory_order_relaxed);
        if ((old == 0 || (int64_t)(old >> 28) == tid) &&
            atomic_compare_exchange_strong_explicit(e, &old, v, memory_order_relaxed,
                                                    memory_order_relaxed))
            return;
    }
}

int32_t fjj_worker_of(int64_t java_tid, uint32_t *pool)
{
    for (uint32_t i = 0; i < WORKER_TABLE; i++) {
        uint64_t v = atomic_load_explicit(&worker_table[((uint64_t)java_tid + i) % WORKER_TABLE],
                                          memory_order_relaxed);
        if (v == 0) return -1;
        if ((int64_t)(v >> 28) == java_tid) {
            *pool = (uint32_t)(v >> 12) & 0xffff;
            return (int32_t)(v & 0xfff) - 1;
        }
    }
    return -1;
}

JNIEXPORT jboolean JNICALL Java_fjtrace_boot_Hooks_enabled0(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return lttng_ust_tracepoint_enabled(fjtrace, fork) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_runtime0(JNIEnv *env, jclass cls, jstring name)
{
    (void)cls;
    const char *s = (*env)->GetStringUTFChars(env, name, NULL);
    if (!s) return;
    strncpy(runtime, s, sizeof runtime - 1);
    (*env)->ReleaseStringUTFChars(env, name, s);
}

JNIEXPORT jint JNICALL Java_fjtrace_boot_Hooks_poolBegin0(JNIEnv *env, jclass cls, jint parallelism,
                                                          jboolean common)
{
    (void)env;
    (void)cls;
    uint32_t id = atomic_fetch_add_explicit(&next_pool, 1, memory_order_relaxed);
    if (id >= FJJ_MAX_POOLS) return 0;
    fjj_pool *p = calloc(1, sizeof *p);
    if (!p) return 0;
    p->parallelism = parallelism > 0 ? (uint32_t)parallelism : 0;
    p->common = common;
    atomic_store_explicit(&p->announced, UNANNOUNCED, memory_order_relaxed);
    atomic_store_explicit(&pools[id], p, memory_order_release);
    if (!common) announce(p, id);
    return (jint)id;
}

/* The pool is over: every slot still live ends (emitted by this thread:
 * guests, and at the JVM's exit workers that never stopped), then the pool. */
static void pool_close(uint32_t pool)
{
    fjj_pool *p = pool_get(pool);
    if (!p) return;
    bool was = false;
    if (!atomic_compare_exchange_strong_explicit(&p->ended, &was, true, memory_order_relaxed,
                                                 memory_order_relaxed) ||
        atomic_load_explicit(&p->announced, memory_order_relaxed) == UNANNOUNCED)
        return; /* ended already, or never used */
    int32_t n = atomic_load_explicit(&p->nworkers, memory_order_relaxed);
    for (int32_t w = 0; w < n && w < FJJ_MAX_WORKERS; w++)
        if (atomic_exchange_explicit(&p->live[w], 0, memory_order_relaxed))
            FJJ_EMIT(worker_end, pool, w);
    FJJ_EMIT(pool_end, pool, -1);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_poolEnd0(JNIEnv *env, jclass cls, jint pool)
{
    (void)env;
    (void)cls;
    pool_close((uint32_t)pool);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_exit0(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    uint32_t n = atomic_load_explicit(&next_pool, memory_order_relaxed);
    for (uint32_t id = 1; id < n && id < FJJ_MAX_POOLS; id++)
        pool_close(id);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_workerBegin0(JNIEnv *env, jclass cls, jint pool,
                                                            jlong java_tid)
{
    (void)env;
    (void)cls;
    fjj_pool *p = pool_get((uint32_t)pool);
    if (!p || atomic_load_explicit(&p->ended, memory_order_relaxed)) return;
    int32_t w = slot_begin(p, (uint32_t)pool);
    if (w < 0) return;
    self.own = (fjj_role){.pool = (uint32_t)pool, .worker = w};
    table_put(java_tid, (uint32_t)pool, w);
    offcpu_begin(&self, (uint32_t)pool, w);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_workerEnd0(JNIEnv *env, jclass cls, jint pool)
{
    (void)env;
    (void)cls;
    fjj_pool *p = pool_get((uint32_t)pool);
    if (!p || self.own.pool != (uint32_t)pool) return;
    int32_t w = self.own.worker;
    if (fj_switches_is_open()) {
        fjj_offcpu_drain(&self);
        fj_switches_close();
    }
    self.offcpu = (fj_switches_for){0};
    if (atomic_exchange_explicit(&p->live[w], 0, memory_order_relaxed) &&
        !atomic_load_explicit(&p->ended, memory_order_relaxed))
        FJJ_EMIT(worker_end, (uint32_t)pool, w);
    self.own = (fjj_role){0};
}

/* A root's id: slot 0, the pool's own sequence. */
uint64_t fjj_root_id(uint32_t pool)
{
    fjj_pool *p = pool_get(pool);
    if (!p) return 0;
    announce(p, pool);
    return fjj_id(pool, -1, atomic_fetch_add_explicit(&p->roots, 1, memory_order_relaxed) + 1);
}
