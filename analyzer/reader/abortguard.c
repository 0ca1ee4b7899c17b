#include "abortguard.h"

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

static sigjmp_buf back;

static void on_abort(int sig)
{
    (void)sig;
    siglongjmp(back, 1);
}

int abortguard_run(int (*fn)(void *), void *arg, int *aborted)
{
    struct sigaction sa = {.sa_handler = on_abort}, old;
    sigemptyset(&sa.sa_mask);
    *aborted = 0;
    sigaction(SIGABRT, &sa, &old);
    /* savemask 1: SIGABRT is blocked inside the handler; the jump must
     * restore the mask, or the next abort() could not be caught */
    if (sigsetjmp(back, 1)) {
        sigaction(SIGABRT, &old, NULL);
        *aborted = 1;
        return -1;
    }
    int rc = fn(arg);
    sigaction(SIGABRT, &old, NULL);
    return rc;
}
