/* Off-CPU intervals of libfj's workers and clients (see offcpu.h), through
 * the thread's own switch recorder shared with the OMPT tool
 * (tracepoints/switches.h). Built only with tracing enabled. */
#include "offcpu.h"

#include <pthread.h>
#include <stdbool.h>

#include "switches.h"
#include "trace.h"

/* Whether this thread's event is a worker's (else a client's,
 * fj_offcpu_client_*). */
static _Thread_local bool is_worker;

static fj_switches_for of_worker(const fj_worker *w)
{
    return (fj_switches_for){.pool = w->pool->id, .worker = w->index};
}

void fj_offcpu_prepare(void)
{
    fj_switches_prepare();
}

void fj_offcpu_begin(const fj_worker *w)
{
    fj_switches_reset();
    is_worker = true;
    if (fj_switches_recorded()) fj_switches_open(of_worker(w));
}

void fj_offcpu_drain(const fj_worker *w)
{
    if (!fj_switches_is_open()) {
        if (!fj_switches_refused() && fj_switches_recorded()) fj_switches_open(of_worker(w));
        if (!fj_switches_is_open()) return;
    }
    fj_switches_drain(of_worker(w));
}

void fj_offcpu_end(const fj_worker *w)
{
    if (!fj_switches_is_open()) return;
    fj_switches_drain_last(of_worker(w));
    fj_switches_close();
}

/* A client thread's event lives as long as the thread: closed by the
 * destructor of this key (set once the event is open). */
static pthread_key_t client_key;
static pthread_once_t client_once = PTHREAD_ONCE_INIT;

static void client_exit(void *unused)
{
    (void)unused;
    if (fj_switches_is_open()) fj_switches_close();
}

static void client_key_make(void)
{
    pthread_key_create(&client_key, client_exit);
}

void fj_offcpu_client_begin(const fj_pool *p)
{
    if (fj_switches_is_open() || fj_switches_refused() || is_worker || !fj_switches_recorded())
        return;
    pthread_once(&client_once, client_key_make);
    fj_switches_open((fj_switches_for){.pool = p->id, .worker = -1});
    if (fj_switches_is_open()) pthread_setspecific(client_key, &client_key);
}

void fj_offcpu_client_drain(const fj_pool *p, uint64_t task)
{
    if (fj_switches_is_open() && !is_worker)
        fj_switches_drain((fj_switches_for){.pool = p->id, .worker = -1, .task = task});
}
