#include "abortguard.h"

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

static sigjmp_buf back;

/* abort() (its BT_ASSERTs), and the faults of a write through a pointer
 * computed from damaged data: a flipped byte in an lttng_ust_statedump
 * stream made the ctf plugin crash in bt_field_integer_unsigned_set_value. */
static const int guarded[] = {SIGABRT, SIGSEGV, SIGBUS};
#define NGUARDED (sizeof guarded / sizeof *guarded)

static void on_signal(int sig)
{
    siglongjmp(back, sig);
}

static void restore(const struct sigaction *old)
{
    for (size_t i = 0; i < NGUARDED; i++)
        sigaction(guarded[i], &old[i], NULL);
}

int abortguard_run(int (*fn)(void *), void *arg, int *aborted)
{
    struct sigaction sa = {.sa_handler = on_signal}, old[NGUARDED];
    sigemptyset(&sa.sa_mask);
    *aborted = 0;
    for (size_t i = 0; i < NGUARDED; i++)
        sigaction(guarded[i], &sa, &old[i]);
    /* savemask 1: the signal is blocked inside the handler; the jump must
     * restore the mask, or the next one could not be caught */
    int sig = sigsetjmp(back, 1);
    if (sig) {
        restore(old);
        *aborted = sig;
        return -1;
    }
    int rc = fn(arg);
    restore(old);
    return rc;
}
