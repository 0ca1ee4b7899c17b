#include "interrupt.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A stack of paths. Changed only with the signals held back, so the
 * handler always sees a whole list; it uses only async-signal-safe calls
 * (unlink, rmdir, write, signal, raise). */
typedef struct temp {
    struct temp *next;
    char path[];
} temp;

static temp *temps;
static sigset_t held; /* SIGINT, SIGTERM */
static int defer_depth;
static sigset_t saved;
/* a reading in a child process (0: none); set with the signals held back */
static volatile pid_t child;

static void say(const char *s)
{
    ssize_t rc = write(STDERR_FILENO, s, strlen(s));
    (void)rc; /* nothing to do if stderr is gone */
}

static void on_signal(int sig)
{
    if (child > 0) { /* it removes its own temporaries, and says so, first */
        kill(child, sig);
        kill(child, SIGCONT); /* a stopped child would never end */
        waitpid(child, NULL, 0);
    }
    say(sig == SIGINT ? "\nfjtrace-analyze: interrupted (SIGINT)"
                      : "\nfjtrace-analyze: terminated (SIGTERM)");
    int n = 0;
    for (temp *t = temps; t; t = t->next)
        if (unlink(t->path) == 0 || rmdir(t->path) == 0) {
            say(n++ ? ", " : "; removed the temporary ");
            say(t->path);
        }
    say(n ? "\n" : "; no temporary file to remove\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

void fja_interrupt_install(void)
{
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    struct sigaction sa = {.sa_handler = on_signal}, old;
    sa.sa_mask = held; /* one handler at a time */
    /* A signal ignored by whoever started us (nohup, a background job of a
     * script) stays ignored. */
    if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
}

void fja_interrupt_defer(void)
{
    if (defer_depth++ == 0) sigprocmask(SIG_BLOCK, &held, &saved);
}

void fja_interrupt_resume(void)
{
    if (--defer_depth == 0) sigprocmask(SIG_SETMASK, &saved, NULL);
}

int fja_interrupt_track(const char *path)
{
    size_t n = strlen(path) + 1;
    temp *t = malloc(sizeof *t + n);
    if (!t) return -1;
    memcpy(t->path, path, n);
    fja_interrupt_defer();
    t->next = temps;
    temps = t;
    fja_interrupt_resume();
    return 0;
}

void fja_interrupt_forget(const char *path)
{
    fja_interrupt_defer();
    temp **p = &temps;
    while (*p && strcmp((*p)->path, path) != 0)
        p = &(*p)->next;
    temp *t = *p;
    if (t) *p = t->next;
    fja_interrupt_resume();
    free(t);
}

void fja_interrupt_child(pid_t pid)
{
    fja_interrupt_defer();
    child = pid;
    fja_interrupt_resume();
}

void fja_interrupt_reset(void)
{
    fja_interrupt_defer();
    while (temps) {
        temp *t = temps;
        temps = t->next;
        free(t);
    }
    child = 0;
    fja_interrupt_resume();
}
