#include "abortguard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Per thread: each decoding thread (pread.h) has its own way back. */
static _Thread_local sigjmp_buf back;
static _Thread_local volatile sig_atomic_t armed;

/* abort() (its BT_ASSERTs), and the faults of a write through a pointer
 * computed from damaged data: a flipped byte in an lttng_ust_statedump
 * stream made the ctf plugin crash in bt_field_integer_unsigned_set_value.
 * SIGTRAP: glib's g_error (an allocation that failed: a damaged length
 * under a memory limit) stops at a breakpoint instruction. */
static const int guarded[] = {SIGABRT, SIGSEGV, SIGBUS, SIGTRAP};
#define NGUARDED (sizeof guarded / sizeof *guarded)

/* The handlers are the process's: installed by the first guarded thread,
 * restored by the last one. */
static pthread_mutex_t users_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned users;
static struct sigaction saved[NGUARDED];

static void on_signal(int sig)
{
    if (armed) siglongjmp(back, sig);
    /* a thread outside the guard: die of the signal as without one */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    pthread_mutex_lock(&users_lock);
    if (users++ == 0) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < NGUARDED; i++)
            sigaction(guarded[i], &sa, &saved[i]);
    }
    pthread_mutex_unlock(&users_lock);
}

static void uninstall(void)
{
    pthread_mutex_lock(&users_lock);
    if (--users == 0)
        for (size_t i = 0; i < NGUARDED; i++)
            sigaction(guarded[i], &saved[i], NULL);
    pthread_mutex_unlock(&users_lock);
}

void abortguard_forget(void)
{
    armed = 0;
    for (size_t i = 0; i < NGUARDED; i++)
        signal(guarded[i], SIG_DFL);
}

int abortguard_run(int (*fn)(void *), void *arg, int *aborted)
{
    *aborted = 0;
    install();
    /* savemask 1: the signal is blocked inside the handler; the jump must
     * restore the mask, or the next one could not be caught */
    int sig = sigsetjmp(back, 1);
    if (sig) {
        armed = 0;
        uninstall();
        *aborted = sig;
        return -1;
    }
    armed = 1;
    int rc = fn(arg);
    armed = 0;
    uninstall();
    return rc;
}
