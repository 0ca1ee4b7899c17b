/* Creation sites, idle workers (park, unpark, wake) and managed blocks
 * (docs/java.md). */
#include <pthread.h>
#include <string.h>

#include "fjjni.h"

#define UNUSED_JNI                                                                                 \
    (void)env;                                                                                     \
    (void)cls

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_site0(JNIEnv *env, jclass cls, jint site)
{
    UNUSED_JNI;
    fjj_self()->site = (uint32_t)site;
}

/* A site's name, said once per recording before its first use. */
JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_siteName0(JNIEnv *env, jclass cls, jint site,
                                                         jstring function, jstring file, jint line)
{
    (void)cls;
    const char *fn = function ? (*env)->GetStringUTFChars(env, function, NULL) : NULL;
    const char *fl = file ? (*env)->GetStringUTFChars(env, file, NULL) : NULL;
    FJJ_EMIT(site_name, 0, -1, (uint64_t)site, fn ? fn : "", fl ? fl : "",
             line > 0 ? (uint32_t)line : 0);
    if (fn) (*env)->ReleaseStringUTFChars(env, function, fn);
    if (fl) (*env)->ReleaseStringUTFChars(env, file, fl);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_park0(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    fjj_offcpu_drain(t);
    if (t->own.pool && fjj_pool_open(t->own.pool)) FJJ_EMIT(park, t->own.pool, t->own.worker);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_unpark0(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    fjj_offcpu_drain(t);
    if (t->own.pool && fjj_pool_open(t->own.pool)) FJJ_EMIT(unpark, t->own.pool, t->own.worker);
}

/* signalWork unparks a worker: wake, from this thread's role in that pool
 * (-1: a client or another pool's worker). */
JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_wake0(JNIEnv *env, jclass cls, jlong java_tid)
{
    UNUSED_JNI;
    uint32_t pool = 0;
    int32_t target = fjj_worker_of(java_tid, &pool);
    if (target < 0 || !fjj_pool_open(pool)) return;
    fjj_thread *t = fjj_self();
    FJJ_EMIT(wake, pool, t->own.pool == pool ? t->own.worker : -1, target);
}

/* Managed blocks are waits on something outside the pool: shown as a lock
 * named after the blocker's class ("ManagedBlocker CLASS"), one id per
 * class, lock_wait at the block's start and lock_acquired at its end. */
enum { BLOCKERS = 256 };
static pthread_mutex_t blockers_lock = PTHREAD_MUTEX_INITIALIZER;
static char *blockers[BLOCKERS];
static uint32_t nblockers;

static uint32_t blocker_id(const char *name)
{
    uint32_t id = 0;
    pthread_mutex_lock(&blockers_lock);
    for (uint32_t i = 0; i < nblockers && !id; i++)
        if (strcmp(blockers[i], name) == 0) id = i + 1;
    if (!id && nblockers < BLOCKERS && (blockers[nblockers] = strdup(name))) {
        id = ++nblockers;
        char label[300];
        snprintf(label, sizeof label, "ManagedBlocker %s", name);
        FJJ_EMIT(lock_init, 0, -1, id, label);
    }
    pthread_mutex_unlock(&blockers_lock);
    return id;
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_blockBegin0(JNIEnv *env, jclass cls, jstring blocker)
{
    (void)cls;
    fjj_thread *t = fjj_self();
    fjj_frame *f = t->depth && t->depth <= FJJ_DEPTH ? &t->stack[t->depth - 1] : NULL;
    if (!f || f->worker < 0 || !fjj_pool_open(f->pool)) return;
    const char *name = (*env)->GetStringUTFChars(env, blocker, NULL);
    if (!name) return;
    uint32_t id = blocker_id(name);
    (*env)->ReleaseStringUTFChars(env, blocker, name);
    if (!id) return;
    t->block = (fjj_role){.pool = f->pool, .worker = f->worker};
    t->block_lock = id;
    fjj_offcpu_drain(t); /* the task's self time ends: its clock */
    FJJ_EMIT(lock_wait, f->pool, f->worker, id);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_blockEnd0(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    if (!t->block.pool) return;
    if (fjj_pool_open(t->block.pool)) {
        fjj_offcpu_drain(t);
        FJJ_EMIT(lock_acquired, t->block.pool, t->block.worker, t->block_lock);
    }
    t->block = (fjj_role){0};
}
