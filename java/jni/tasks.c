/* Task events: fork, submit, exec (with its steal), executed, join/joined,
 * result, completing/completed (docs/java.md, "Mapping"). */
#include "fjjni.h"

#define UNUSED_JNI                                                                                 \
    (void)env;                                                                                     \
    (void)cls

static fjj_frame *top(fjj_thread *t)
{
    return t->depth ? &t->stack[t->depth - 1] : NULL;
}

/* fork() on this thread: a worker's push onto its own queue, or (a thread
 * outside the pools running a task it took as a guest) a push the JDK
 * sends to the common pool's submission queue, which is the running task's
 * child all the same. A plain client's fork() is a submission: 0 here,
 * externalPush's hook gives the root id. */
JNIEXPORT jlong JNICALL Java_fjtrace_boot_Hooks_fork0(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    fjj_frame *f = top(t);
    /* The fork's parent is the task whose exec is the innermost open one on
     * its worker (the analyzer derives it, docs/events.md): a fork outside
     * any task (a worker's own code around its tasks) would have none, and
     * stays untraced. */
    if (!f) return 0;
    uint32_t pool = f->pool;
    int32_t w = f->worker;
    if (pool == 0 || w < 0 || !fjj_pool_open(pool)) return 0;
    uint64_t id = fjj_id(pool, w, ++t->seq);
    FJJ_EMIT(fork, pool, w, id, 0, t->site);
    return (jlong)id;
}

/* A task entering pool from outside (invoke, submit, execute, a client's
 * fork into the common pool): a root, unless this thread is a worker of
 * that pool (its externalSubmit pushes onto its own queue: a fork). */
JNIEXPORT jlong JNICALL Java_fjtrace_boot_Hooks_submit0(JNIEnv *env, jclass cls, jint pool_arg)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    uint32_t pool = (uint32_t)pool_arg;
    if (!fjj_pool_open(pool)) return 0;
    if (t->own.pool == pool) return Java_fjtrace_boot_Hooks_fork0(env, cls);
    uint64_t id = fjj_root_id(pool);
    FJJ_EMIT(submit, pool, -1, id, t->site);
    return (jlong)id;
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_exec0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    uint64_t id = (uint64_t)jid;
    uint32_t pool = fjj_id_pool(id);
    if (t->depth >= FJJ_DEPTH || !fjj_pool_open(pool)) {
        t->depth++; /* counted, so that executed stays paired */
        return;
    }
    int32_t w = fjj_role_in(t, pool);
    t->stack[t->depth++] = (fjj_frame){.id = id, .pool = pool, .worker = w, .saved_site = t->site};
    t->site = 0;
    if (w < 0) return;
    fjj_offcpu_drain(t); /* the piece before ends: the clock */
    /* A task forked by one worker and run by another was taken from the
     * forker's queue: JDK tasks never move between queues (docs/java.md). */
    int32_t creator = fjj_id_creator(id);
    if (creator >= 0 && creator != w) FJJ_EMIT(steal, pool, w, id, creator);
    FJJ_EMIT(exec, pool, w, id);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_executed0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    if (t->depth == 0) return;
    t->depth--;
    if (t->depth >= FJJ_DEPTH) return;
    fjj_frame f = t->stack[t->depth];
    t->site = f.saved_site;
    /* joins left open by an exception inside this task are closed with it */
    while (t->njoins && t->joins[t->njoins - 1].depth > t->depth)
        t->njoins--;
    /* executed closes the worker's innermost open exec, which is f's: the
     * frame's own exec was emitted when its worker was known and its pool
     * open, whatever id this call names. */
    (void)jid;
    if (f.worker >= 0 && fjj_pool_open(f.pool)) {
        fjj_offcpu_drain(t); /* the task's last clock */
        FJJ_EMIT(executed, f.pool, f.worker);
    }
}

/* awaitDone is about to help or park: the join waits. Once per wait (a
 * wait that helps, then parks, is one join); only inside a running task
 * (a client's wait is its result). */
JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_joinWait0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    fjj_frame *f = top(t);
    if (!f || t->depth > FJJ_DEPTH || f->worker < 0 || t->njoins >= FJJ_JOIN_DEPTH) return;
    fjj_join *j = t->njoins ? &t->joins[t->njoins - 1] : NULL;
    if (j && j->task == (uint64_t)jid && j->depth == t->depth) return;
    if (!fjj_pool_open(f->pool)) return;
    t->joins[t->njoins++] = (fjj_join){.task = (uint64_t)jid, .depth = t->depth};
    fjj_offcpu_drain(t);
    FJJ_EMIT(join, f->pool, f->worker, (uint64_t)jid);
}

JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_joinDone0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    fjj_join *j = t->njoins ? &t->joins[t->njoins - 1] : NULL;
    if (!j || j->task != (uint64_t)jid || j->depth != t->depth) return;
    t->njoins--;
    fjj_offcpu_drain(t);
    fjj_frame *f = top(t);
    if (f && fjj_pool_open(f->pool)) FJJ_EMIT(joined, f->pool, f->worker, (uint64_t)jid);
}

/* The end of a join/get/invoke of a done root by a thread that is not one
 * of its pool's workers: the client has its result. */
JNIEXPORT jboolean JNICALL Java_fjtrace_boot_Hooks_result0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    uint64_t id = (uint64_t)jid;
    uint32_t pool = fjj_id_pool(id);
    if (fjj_id_creator(id) >= 0 || t->own.pool == pool || !fjj_pool_open(pool)) return JNI_FALSE;
    FJJ_EMIT(result, pool, -1, id);
    return JNI_TRUE;
}

/* A counted completer's count reached zero on this thread: its
 * onCompletion is about to run (completed after it). */
JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_completing0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    uint64_t id = (uint64_t)jid;
    uint32_t pool = fjj_id_pool(id);
    if (t->ncompleting >= FJJ_COMPLETING_DEPTH) {
        t->ncompleting++;
        return;
    }
    t->completing[t->ncompleting++] = id;
    if (!fjj_pool_open(pool)) return;
    int32_t w = fjj_role_in(t, pool);
    FJJ_EMIT(completing, pool, w, id);
}

/* onCompletion returned (or threw: then the next completing of this
 * thread closes the pairs left open above it). */
JNIEXPORT void JNICALL Java_fjtrace_boot_Hooks_completed0(JNIEnv *env, jclass cls, jlong jid)
{
    UNUSED_JNI;
    fjj_thread *t = fjj_self();
    uint64_t id = (uint64_t)jid;
    if (t->ncompleting == 0) return;
    if (t->ncompleting > FJJ_COMPLETING_DEPTH) {
        t->ncompleting--;
        return;
    }
    if (t->completing[t->ncompleting - 1] != id) return;
    t->ncompleting--;
    uint32_t pool = fjj_id_pool(id);
    if (!fjj_pool_open(pool)) return;
    FJJ_EMIT(completed, pool, fjj_role_in(t, pool), id);
}

/* ForkJoinTask.invoke(): inside a running task a child run inline (a fork
 * its own thread executes at once); outside, a root of the common pool
 * that its client runs. */
JNIEXPORT jlong JNICALL Java_fjtrace_boot_Hooks_invoke0(JNIEnv *env, jclass cls, jint common)
{
    fjj_thread *t = fjj_self();
    if (t->depth || t->own.pool) return Java_fjtrace_boot_Hooks_fork0(env, cls);
    uint32_t pool = (uint32_t)common;
    if (!fjj_pool_open(pool)) return 0;
    uint64_t id = fjj_root_id(pool);
    FJJ_EMIT(submit, pool, -1, id, t->site);
    return (jlong)id;
}
