/* omp_set_lock / omp_set_nest_lock / critical / ordered: lock_wait and
 * lock_acquired only when the acquisition is contended. OMPT says that only
 * afterwards (mutex_acquired), so the tool keeps its own table of which
 * locks are held (and being acquired): an acquire that finds its lock held,
 * or on its way to another thread, emits lock_wait.
 * (A lock released between that look and the runtime's own attempt gives a
 * wait of ~0 ns; one taken in that window gives a missed wait.) Each lock
 * gets a process-unique id, named by lock_init on first use. */
#include <dlfcn.h>
#include <stdio.h>

#include "emit.h"
#include "tool.h"

#define LOCK_SLOTS 4096 /* power of two; locks beyond it are not traced */

/* Open addressing on the runtime's wait id; key 0: a free slot. A key, once
 * set, never changes and is the only data of its slot, so relaxed loads and
 * a relaxed CAS (atomicity alone decides who claims a slot) suffice. */
static _Atomic uint64_t keys[LOCK_SLOTS];
/* Holder worker + 1, 0 when free. Release on set/clear, acquire on reading:
 * the look at acquire time is a hint, ordering only keeps it fresh. */
static _Atomic int32_t holder[LOCK_SLOTS];
/* Threads between mutex_acquire and mutex_acquired. libomp hands a lock to
 * its next waiter at the unlock, before that waiter says so: a thread that
 * finds the lock free while another one is acquiring it waits too. Relaxed:
 * a counter read as a hint. */
static _Atomic int32_t acquiring[LOCK_SLOTS];

static const char *kind_name(ompt_mutex_t kind)
{
    switch (kind) {
    case ompt_mutex_critical:
        return "critical";
    case ompt_mutex_nest_lock:
        return "omp_set_nest_lock";
    case ompt_mutex_ordered:
        return "ordered";
    default:
        return "omp_set_lock";
    }
}

static void name_lock(uint32_t id, ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    char name[160];
    Dl_info info;
    if (codeptr && dladdr(codeptr, &info) && info.dli_sname)
        snprintf(name, sizeof name, "%s %#llx in %s+%#lx", kind_name(kind),
                 (unsigned long long)wait_id, info.dli_sname,
                 (unsigned long)((const char *)codeptr - (const char *)info.dli_saddr));
    else
        snprintf(name, sizeof name, "%s %#llx at %p", kind_name(kind), (unsigned long long)wait_id,
                 codeptr);
    FJOMP_EMIT(lock_init, FJOMP_POOL, fjomp_worker(fjomp_self()), id, name);
}

/* The slot of wait_id (claimed and named on first use), or -1 (table full). */
static int32_t slot_of(ompt_wait_id_t wait_id, ompt_mutex_t kind, const void *codeptr)
{
    uint64_t key = (uint64_t)wait_id;
    if (key == 0) return -1;
    uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (LOCK_SLOTS - 1);
    for (uint32_t i = 0; i < LOCK_SLOTS; i++) {
        uint32_t s = (h + i) & (LOCK_SLOTS - 1);
        uint64_t k = atomic_load_explicit(&keys[s], memory_order_relaxed);
        if (k == key) return (int32_t)s;
        if (k != 0) continue;
        uint64_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&keys[s], &expected, key, memory_order_relaxed,
                                                    memory_order_relaxed)) {
            name_lock(s + 1, kind, wait_id, codeptr);
            return (int32_t)s;
        }
        if (expected == key) return (int32_t)s;
    }
    return -1;
}

static bool traced(ompt_mutex_t kind)
{
    return kind == ompt_mutex_lock || kind == ompt_mutex_nest_lock || kind == ompt_mutex_critical ||
           kind == ompt_mutex_ordered;
}

static void mutex_acquire(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    if (!traced(kind) || !fjomp_pool_open()) return;
    int32_t s = slot_of(wait_id, kind, codeptr_ra);
    if (s < 0) return;
    fjomp_thread *th = fjomp_self();
    int32_t h = atomic_load_explicit(&holder[s], memory_order_acquire);
    int32_t others = atomic_fetch_add_explicit(&acquiring[s], 1, memory_order_relaxed);
    /* Held by another thread, or being handed to one: a wait. (A nest lock
     * held by this thread is re-entered without waiting.) */
    if ((h != 0 && h != th->worker + 1) || (h == 0 && others > 0)) {
        th->lock_waiting = (uint32_t)s + 1;
        fjomp_offcpu_drain(th, true); /* the task's self time ends: its clock */
        FJOMP_EMIT(lock_wait, FJOMP_POOL, fjomp_worker(th), (uint32_t)s + 1);
    }
}

static void mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    if (!traced(kind) || !fjomp_pool_open()) return;
    int32_t s = slot_of(wait_id, kind, codeptr_ra);
    if (s < 0) return;
    fjomp_thread *th = fjomp_self();
    atomic_store_explicit(&holder[s], th->worker + 1, memory_order_release);
    atomic_fetch_sub_explicit(&acquiring[s], 1, memory_order_relaxed);
    if (th->lock_waiting == (uint32_t)s + 1) {
        th->lock_waiting = 0;
        fjomp_offcpu_drain(th, true);
        FJOMP_EMIT(lock_acquired, FJOMP_POOL, fjomp_worker(th), (uint32_t)s + 1);
    }
}

static void mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    if (!traced(kind) || !fjomp_pool_open()) return;
    int32_t s = slot_of(wait_id, kind, codeptr_ra);
    if (s < 0) return;
    /* The runtime calls this after the unlock: another thread may hold the
     * lock already and have said so. Clear only our own mark. Release: as
     * in on_mutex_acquired. */
    int32_t mine = fjomp_self()->worker + 1;
    atomic_compare_exchange_strong_explicit(&holder[s], &mine, 0, memory_order_release,
                                            memory_order_relaxed);
}

/* The callbacks: each times itself (tool.h, fjomp_enter). */
static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)hint;
    (void)impl;
    fjomp_thread *th = fjomp_enter();
    mutex_acquire(kind, wait_id, codeptr_ra);
    fjomp_leave(th);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_enter();
    mutex_acquired(kind, wait_id, codeptr_ra);
    fjomp_leave(th);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    fjomp_thread *th = fjomp_enter();
    mutex_released(kind, wait_id, codeptr_ra);
    fjomp_leave(th);
}

bool fjomp_register_mutex(fjomp_set_cb set)
{
    return set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire) == ompt_set_always &&
           set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired) ==
               ompt_set_always &&
           set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released) == ompt_set_always;
}
