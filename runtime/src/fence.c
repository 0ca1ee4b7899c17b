/* Asymmetric fences; see fence.h. */
#include "fence.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

_Atomic int fj_fence_asymmetric;

static pthread_once_t fence_once = PTHREAD_ONCE_INIT;

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

static void fence_register(void)
{
    long supported = membarrier(MEMBARRIER_CMD_QUERY);
    if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return;
    if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) return;
    /* Relaxed: published to the workers by pthread_once / pthread_create. */
    atomic_store_explicit(&fj_fence_asymmetric, 1, memory_order_relaxed);
}

void fj_fence_init(void)
{
    pthread_once(&fence_once, fence_register);
}

void fj_fence_heavy(void)
{
    /* Our own thread's half: membarrier does not fence the caller itself. */
    atomic_thread_fence(memory_order_seq_cst);
    /* Cannot fail once registered (fence_register checked support). */
    if (atomic_load_explicit(&fj_fence_asymmetric, memory_order_relaxed))
        (void)membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}
