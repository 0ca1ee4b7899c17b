#include "pread.h"

#include "abortguard.h"
#include "weights.h"
#include "lengthguard.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING_BYTES (8u << 20) /* all rings together */
#define RING_MIN 64u
#define RING_MAX 16384u
#define PUSH_BUDGET 256u /* records pushed to one ring before the next is served */

/* One stream: a ring its thread fills and the merge empties. */
typedef struct {
    /* written by the decoding thread, read by the merge */
    alignas(64) _Atomic uint64_t tail; /* records published */
    _Atomic int state;                 /* PORT_*: set after its last record */
    /* written by the merge, read by the decoding thread */
    alignas(64) _Atomic uint64_t head; /* records taken */
    /* the decoding thread's own */
    alignas(64) bt_message_iterator *it;
    bt_message_array_const msgs;
    uint64_t count, pos;
    uint64_t packets;   /* packet beginnings seen, for an abort message */
    uint64_t seen_head; /* head as last loaded */
    /* the merge's own */
    uint64_t taken, known_tail, since_wake;
    /* fixed before the threads start */
    reader_rec *recs;
    uint64_t mask;
    uint32_t thread, index_in_thread;
    size_t source;
    char *name;
    char refused[300]; /* PORT_REFUSED: what (lengthguard.h) */
} port;

typedef struct {
    struct preader *p;
    uint32_t index;
    bt_graph *g;
    uint32_t *ports, nports;
    convert_ctx conv;
    pthread_t tid;
    bool started;
    volatile int64_t reading; /* the port being decoded, for an abort */
    /* it sleeps until the merge takes records (all its rings full) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic int waiting;
    /* packets decoded whole: the progress line's measure */
    _Atomic uint64_t packets_done;
    char err[2048];
} decoder;

struct preader {
    unsigned jobs;
    port *ports;
    uint32_t nports;
    decoder *dec;
    uint32_t ndec;
    size_t ndirs;
    bt_component_class_sink *sink_class;
    /* the merge sleeps until its stream gets a record */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic int merge_waiting;
    _Atomic int quit; /* the merge is done: decoding threads stop */
    /* progress */
    uint64_t total_bytes, total_packets;
    uint64_t guard_bits; /* lengthguard.h's bound, for every thread */
    bool progress, progress_shown;
    uint64_t next_progress;
    struct timespec t0;
};

preader *pread_create(unsigned jobs)
{
    preader *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (!jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (unsigned)n : 1;
    }
    p->jobs = jobs;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    return p;
}

/* ------------------------------------------------------------ decoding */

/* Wakes the merge if it sleeps. Called after publishing a record or an
 * end: the seq_cst load pairs with the merge's seq_cst store of
 * merge_waiting and its re-check of tail and state (a Dekker handshake:
 * one of the two sees the other's store, so no wake-up is lost). */
static void wake_merge(preader *p)
{
    if (!atomic_load_explicit(&p->merge_waiting, memory_order_seq_cst)) return;
    pthread_mutex_lock(&p->mu);
    atomic_store_explicit(&p->merge_waiting, 0, memory_order_relaxed); /* under the mutex */
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void port_finish(preader *p, port *pt, int state)
{
    /* release: the records before it are visible to whoever sees the state;
     * seq_cst for the handshake of wake_merge */
    atomic_store_explicit(&pt->state, state, memory_order_seq_cst);
    wake_merge(p);
}

/* Whether the port's error is an array length lengthguard.h refused (what,
 * in pt->refused): then this stream ends there, the others are read on. */
static bool refused(port *pt)
{
    if (!lengthguard_take(pt->refused, sizeof pt->refused)) return false;
    bt_current_thread_clear_error();
    return true;
}

/* Next batch of a port's messages: PORT_RUNNING with some, else how the
 * port ends. */
static int port_refill(decoder *d, port *pt)
{
    for (;;) {
        bt_message_iterator_next_status st =
            bt_message_iterator_next(pt->it, &pt->msgs, &pt->count);
        /* The ctf plugin may succeed and still leave an error on the thread
         * (an event cut by the end of a packet's content: a load-map packet
         * whose unset content_size is the packet size): the next call of
         * the library in this thread, for another stream, would abort. */
        if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_OK || st == BT_MESSAGE_ITERATOR_NEXT_STATUS_END)
            bt_current_thread_clear_error();
        switch (st) {
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
            pt->pos = 0;
            return PORT_RUNNING;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
            pt->count = pt->pos = 0;
            return PORT_END;
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
            continue; /* files never block */
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
            pt->count = pt->pos = 0;
            if (refused(pt)) return PORT_REFUSED;
            return PORT_NO_MEMORY;
        default:
            pt->count = pt->pos = 0;
            if (refused(pt)) return PORT_REFUSED;
            take_error(d->err, sizeof d->err, "cannot decode the trace");
            return PORT_ERROR;
        }
    }
}

/* Free places in a port's ring (loading head again when it looks full). */
static uint64_t ring_free(port *pt, uint64_t tail)
{
    uint64_t cap = pt->mask + 1;
    if (tail - pt->seen_head == cap) /* acquire: the merge is done with the records before head */
        pt->seen_head = atomic_load_explicit(&pt->head, memory_order_acquire);
    return cap - (tail - pt->seen_head);
}

/* Converts one message into the ring at tail; returns the new tail, or
 * UINT64_MAX when out of memory. */
static uint64_t push_message(decoder *d, port *pt, const bt_message *m, uint64_t tail)
{
    bt_message_type t = bt_message_get_type(m);
    pt->packets += t == BT_MESSAGE_TYPE_PACKET_BEGINNING;
    if (t == BT_MESSAGE_TYPE_PACKET_END)
        /* relaxed: a figure for the progress line, ordering nothing */
        atomic_fetch_add_explicit(&d->packets_done, 1, memory_order_relaxed);
    reader_rec *rec = &pt->recs[tail & pt->mask];
    int rc = convert_message(&d->conv, m, rec);
    if (rc < 0) return UINT64_MAX;
    if (!rc) return tail;
    return tail + 1;
}

/* Serves one port: up to PUSH_BUDGET records while its ring has room.
 * Returns whether it pushed or finished anything. */
static bool port_serve(decoder *d, port *pt)
{
    uint64_t tail = atomic_load_explicit(&pt->tail, memory_order_relaxed); /* its own */
    uint64_t start = tail;
    int end = PORT_RUNNING;
    d->reading = (int64_t)(pt - d->p->ports);
    while (tail - start < PUSH_BUDGET && ring_free(pt, tail)) {
        if (pt->pos == pt->count && (end = port_refill(d, pt)) != PORT_RUNNING) break;
        const bt_message *m = pt->msgs[pt->pos++];
        uint64_t next = push_message(d, pt, m, tail);
        bt_message_put_ref(m);
        if (next == UINT64_MAX) {
            end = PORT_NO_MEMORY;
            break;
        }
        tail = next;
    }
    if (tail != start) {
        /* release: the records are written before the merge sees them;
         * seq_cst for the handshake of wake_merge */
        atomic_store_explicit(&pt->tail, tail, memory_order_seq_cst);
        wake_merge(d->p);
    }
    if (end != PORT_RUNNING) port_finish(d->p, pt, end); /* after its last record */
    return end != PORT_RUNNING || tail != start;
}

static bool port_running(const port *pt)
{
    /* relaxed: the decoding thread reads a state only it writes */
    return atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_RUNNING;
}

/* All rings of d full: sleeps until the merge takes some or quits. */
static void decoder_wait(decoder *d)
{
    preader *p = d->p;
    /* seq_cst: pairs with the merge's fence before it reads waiting */
    atomic_store_explicit(&d->waiting, 1, memory_order_seq_cst);
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        uint64_t tail = atomic_load_explicit(&pt->tail, memory_order_relaxed); /* its own */
        /* seq_cst: after the store of waiting (the handshake of wake_decoder) */
        if (port_running(pt) &&
            tail - atomic_load_explicit(&pt->head, memory_order_seq_cst) <= pt->mask) {
            atomic_store_explicit(&d->waiting, 0, memory_order_relaxed); /* own flag */
            return;
        }
    }
    pthread_mutex_lock(&d->mu);
    /* relaxed: the mutex orders these with the merge's clearing */
    while (atomic_load_explicit(&d->waiting, memory_order_relaxed) &&
           !atomic_load_explicit(&p->quit, memory_order_relaxed))
        pthread_cond_wait(&d->cv, &d->mu);
    atomic_store_explicit(&d->waiting, 0, memory_order_relaxed); /* under the mutex */
    pthread_mutex_unlock(&d->mu);
}

static bt_component_class_sink_consume_method_status decoder_consume(bt_self_component_sink *self)
{
    decoder *d = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    preader *p = d->p;
    /* acquire: pairs with the merge's release when it is done; a thread
     * that sees it stops (nothing it reads depends on it, so a late sight
     * only costs a batch) */
    if (atomic_load_explicit(&p->quit, memory_order_acquire))
        return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
    bool moved = false, running = false;
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        if (!port_running(pt)) continue;
        moved |= port_serve(d, pt);
        running |= port_running(pt);
    }
    if (!running) return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
    if (!moved) decoder_wait(d);
    return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
decoder_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
             const bt_value *params, void *data)
{
    (void)config;
    (void)params;
    decoder *d = data;
    bt_self_component_set_data(bt_self_component_sink_as_self_component(self), d);
    for (uint32_t i = 0; i < d->nports; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%u", i);
        if (bt_self_component_sink_add_input_port(self, name, NULL, NULL))
            return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
    }
    return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
decoder_configured(bt_self_component_sink *self)
{
    decoder *d = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    for (uint32_t i = 0; i < d->nports; i++)
        if (bt_message_iterator_create_from_sink_component(
                self, bt_self_component_sink_borrow_input_port_by_index(self, i),
                &d->p->ports[d->ports[i]].it))
            return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
    return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void decoder_finalize(bt_self_component_sink *self)
{
    decoder *d = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &d->p->ports[d->ports[i]];
        /* messages of a batch not converted (stopped early) */
        for (uint64_t k = pt->pos; pt->it && k < pt->count; k++)
            bt_message_put_ref(pt->msgs[k]);
        pt->count = pt->pos = 0;
        bt_message_iterator_put_ref(pt->it);
        pt->it = NULL;
    }
}

static bt_component_class_sink *decoder_class(void)
{
    bt_component_class_sink *c = bt_component_class_sink_create("fjtrace-decode", decoder_consume);
    if (c && (bt_component_class_sink_set_initialize_method(c, decoder_init) ||
              bt_component_class_sink_set_graph_is_configured_method(c, decoder_configured) ||
              bt_component_class_sink_set_finalize_method(c, decoder_finalize))) {
        bt_component_class_sink_put_ref(c);
        c = NULL;
    }
    return c;
}

static int run_graph(void *arg)
{
    decoder *d = arg;
    bt_graph_run_status rs;
    while ((rs = bt_graph_run(d->g)) == BT_GRAPH_RUN_STATUS_AGAIN)
        ;
    if (rs != BT_GRAPH_RUN_STATUS_OK) {
        /* not from our sink (it ends its ports itself): the graph failed */
        take_error(d->err, sizeof d->err, "cannot decode the trace");
        for (uint32_t i = 0; i < d->nports; i++)
            if (port_running(&d->p->ports[d->ports[i]]))
                port_finish(d->p, &d->p->ports[d->ports[i]], PORT_ERROR);
    }
    return 0;
}

static void *decoder_main(void *arg)
{
    decoder *d = arg;
    int aborted = 0;
    lengthguard_begin(d->p->guard_bits);
    abortguard_run(run_graph, d, &aborted);
    if (aborted) /* the port being read is the culprit; the others are lost */
        for (uint32_t i = 0; i < d->nports; i++) {
            uint32_t k = d->ports[i];
            if (port_running(&d->p->ports[k]))
                port_finish(d->p, &d->p->ports[k],
                            (int64_t)k == d->reading ? PORT_ABORTED : PORT_LOST);
        }
    return NULL;
}

/* ------------------------------------------------------------ building */

static int ring_alloc(preader *p)
{
    uint64_t per = RING_BYTES / sizeof(reader_rec) / (p->nports ? p->nports : 1);
    uint64_t cap = RING_MIN;
    while (cap * 2 <= per && cap < RING_MAX)
        cap *= 2;
    /* For the tests (analyzer-jobs): tiny rings, so that the threads wait
     * for each other all the time. */
    const char *tiny = getenv("FJTRACE_ANALYZE_TINY_RINGS");
    if (tiny && *tiny == '1') cap = 4;
    for (uint32_t i = 0; i < p->nports; i++) {
        p->ports[i].recs = malloc(cap * sizeof(reader_rec));
        if (!p->ports[i].recs) return -1;
        p->ports[i].mask = cap - 1;
    }
    return 0;
}

/* Each port's share of the decoding: its file's bytes when every one is
 * known, else 1 each. NULL when out of memory. */
static uint64_t *port_weights(const preader *p, char *const *dirs)
{
    uint64_t *w = calloc(p->nports ? p->nports : 1, sizeof *w);
    char **names = calloc(p->nports ? p->nports : 1, sizeof *names);
    size_t *src = calloc(p->nports ? p->nports : 1, sizeof *src);
    if (w && names && src) {
        for (uint32_t i = 0; i < p->nports; i++)
            names[i] = p->ports[i].name, src[i] = p->ports[i].source;
        stream_weights(dirs, names, src, p->nports, w);
        bool all = true;
        for (uint32_t i = 0; i < p->nports; i++)
            all &= w[i] > 0;
        for (uint32_t i = 0; i < p->nports && !all; i++)
            w[i] = 1;
    }
    free(names);
    free(src);
    if (!names || !src) {
        free(w);
        w = NULL;
    }
    return w;
}

/* Deals the ports to the threads: the largest first, each to the thread
 * with the least to decode so far (ties: the lower numbers), so that
 * streams of unequal sizes (a CPU that ran more) still spread evenly. */
static void ports_deal(preader *p, const uint64_t *w)
{
    uint64_t *load = calloc(p->ndec, sizeof *load);
    bool *dealt = calloc(p->nports ? p->nports : 1, sizeof *dealt);
    for (uint32_t n = 0; load && dealt && n < p->nports; n++) {
        uint32_t best = UINT32_MAX, t = 0;
        for (uint32_t i = 0; i < p->nports; i++)
            if (!dealt[i] && (best == UINT32_MAX || w[i] > w[best])) best = i;
        for (uint32_t k = 1; k < p->ndec; k++)
            if (load[k] < load[t]) t = k;
        dealt[best] = true;
        load[t] += w[best];
        p->ports[best].thread = t;
    }
    for (uint32_t i = 0; i < p->nports; i++) {
        /* without memory for the dealing: round-robin */
        decoder *d = &p->dec[load && dealt ? p->ports[i].thread : i % p->ndec];
        p->ports[i].thread = d->index;
        p->ports[i].index_in_thread = d->nports;
        d->ports[d->nports++] = i;
    }
    free(load);
    free(dealt);
}

static int decoders_alloc(preader *p, char *const *dirs)
{
    p->ndec = p->jobs < p->nports ? p->jobs : p->nports;
    if (!p->ndec) p->ndec = 1;
    p->dec = calloc(p->ndec, sizeof *p->dec);
    if (!p->dec) return -1;
    for (uint32_t t = 0; t < p->ndec; t++) {
        decoder *d = &p->dec[t];
        d->p = p;
        d->index = t;
        d->reading = -1;
        pthread_mutex_init(&d->mu, NULL);
        pthread_cond_init(&d->cv, NULL);
        d->ports = calloc(p->nports ? p->nports : 1, sizeof *d->ports);
        if (!d->ports) return -1;
    }
    uint64_t *w = port_weights(p, dirs);
    if (!w) return -1;
    ports_deal(p, w);
    free(w);
    return 0;
}

/* Connects the ports of srcs that belong to d to a new sink of d. */
static int sink_add(preader *p, decoder *d, bt_graph *g, const bt_component_source **srcs,
                    char *err, size_t errlen)
{
    const bt_component_sink *sink = NULL;
    char name[32];
    snprintf(name, sizeof name, "fjtrace-decode%u", d->index);
    if (bt_graph_add_sink_component_with_initialize_method_data(g, p->sink_class, name, NULL, d,
                                                                BT_LOGGING_LEVEL_NONE, &sink)) {
        take_error(err, errlen, "cannot create the sink");
        return -1;
    }
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        uint64_t k = d->ports[i];
        for (size_t s = 0; s < pt->source; s++)
            k -= bt_component_source_get_output_port_count(srcs[s]);
        const bt_port_output *out =
            bt_component_source_borrow_output_port_by_index_const(srcs[pt->source], k);
        if (!out || strcmp(bt_port_get_name(bt_port_output_as_port_const(out)), pt->name) != 0) {
            snprintf(err, errlen, "%s: babeltrace2 numbered the streams differently", pt->name);
            return -1;
        }
        if (bt_graph_connect_ports(
                g, out, bt_component_sink_borrow_input_port_by_index_const(sink, i), NULL)) {
            take_error(err, errlen, "cannot connect the sink");
            return -1;
        }
    }
    d->g = g;
    return 0;
}

int pread_build_first(preader *p, bt_graph *g, char *const *dirs, const bt_component_source **srcs,
                      size_t ndirs, char *err, size_t errlen)
{
    p->ndirs = ndirs;
    for (size_t s = 0; s < ndirs; s++)
        p->nports += (uint32_t)bt_component_source_get_output_port_count(srcs[s]);
    p->ports = calloc(p->nports ? p->nports : 1, sizeof *p->ports);
    if (!p->ports || !(p->sink_class = decoder_class())) goto oom;
    uint32_t in = 0;
    for (size_t s = 0; s < ndirs; s++)
        for (uint64_t i = 0; i < bt_component_source_get_output_port_count(srcs[s]); i++, in++) {
            const bt_port_output *out =
                bt_component_source_borrow_output_port_by_index_const(srcs[s], i);
            p->ports[in].source = s;
            if (!(p->ports[in].name = strdup(bt_port_get_name(bt_port_output_as_port_const(out)))))
                goto oom;
        }
    if (ring_alloc(p) || decoders_alloc(p, dirs)) goto oom;
    return sink_add(p, &p->dec[0], g, srcs, err, errlen);
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int pread_build_rest(preader *p, const plugins *pl, char *const *dirs, size_t ndirs, char *err,
                     size_t errlen)
{
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
    const bt_component_source **srcs = calloc(ndirs ? ndirs : 1, sizeof *srcs);
    int rc = srcs ? 0 : -1;
    if (!srcs) snprintf(err, errlen, "out of memory");
    for (uint32_t t = 1; !rc && t < p->ndec; t++) {
        bt_graph *g = bt_graph_create(0);
        if (!g) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else if (add_sources(g, pl, dirs, ndirs, srcs, err, errlen) ||
                   sink_add(p, &p->dec[t], g, srcs, err, errlen)) {
            rc = -1;
        }
        p->dec[t].g = g; /* released with p */
    }
    free(srcs);
    return rc;
}

void pread_set_guard(preader *p, uint64_t max_bits)
{
    p->guard_bits = max_bits;
}

void pread_set_progress(preader *p, bool progress, uint64_t bytes, uint64_t packets)
{
    p->progress = progress;
    p->total_bytes = bytes;
    p->total_packets = packets;
}

/* ------------------------------------------------------------ merging */

/* Wakes d if it sleeps: after the merge took records of its rings. The
 * seq_cst fence orders the stores of head before the load of waiting
 * (with decoder_wait's seq_cst store and loads: a Dekker handshake). */
static void wake_decoder(decoder *d)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&d->waiting, memory_order_relaxed)) return;
    pthread_mutex_lock(&d->mu);
    atomic_store_explicit(&d->waiting, 0, memory_order_relaxed); /* under the mutex */
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

static void wake_all_decoders(preader *p)
{
    for (uint32_t t = 0; t < p->ndec; t++)
        wake_decoder(&p->dec[t]);
}

/* Whether port pt has a record for the merge, or its state says it has
 * none left (then *state is that). */
static bool port_ready(port *pt, int *state)
{
    if (pt->taken != pt->known_tail) return true;
    /* acquire: the records up to tail are written */
    pt->known_tail = atomic_load_explicit(&pt->tail, memory_order_acquire);
    if (pt->taken != pt->known_tail) return true;
    /* acquire: whatever was pushed before the state is visible now */
    *state = atomic_load_explicit(&pt->state, memory_order_acquire);
    if (*state == PORT_RUNNING) return false;
    /* acquire: the records pushed before the state (none, or the last) */
    pt->known_tail = atomic_load_explicit(&pt->tail, memory_order_acquire);
    return true;
}

/* The next record of pt, waiting for it; NULL at its end (*state). */
static reader_rec *port_next(preader *p, port *pt, int *state)
{
    *state = PORT_RUNNING;
    while (!port_ready(pt, state)) {
        wake_all_decoders(p); /* they may sleep on rings the merge has emptied */
        pthread_mutex_lock(&p->mu);
        /* seq_cst: pairs with wake_merge's load after publishing */
        atomic_store_explicit(&p->merge_waiting, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&pt->tail, memory_order_seq_cst) == pt->taken &&
            atomic_load_explicit(&pt->state, memory_order_seq_cst) == PORT_RUNNING)
            /* relaxed: merge_waiting is cleared under the mutex */
            while (atomic_load_explicit(&p->merge_waiting, memory_order_relaxed))
                pthread_cond_wait(&p->cv, &p->mu);
        atomic_store_explicit(&p->merge_waiting, 0, memory_order_relaxed); /* under the mutex */
        pthread_mutex_unlock(&p->mu);
    }
    if (pt->taken == pt->known_tail) return NULL;
    return &pt->recs[pt->taken & pt->mask];
}

/* Done with pt's current record. */
static void port_take(preader *p, port *pt)
{
    rec_free(&pt->recs[pt->taken & pt->mask]);
    pt->taken++;
    /* the records were written on another core: ask for a later one's
     * cache line now, not when the merge needs it */
    __builtin_prefetch(&pt->recs[(pt->taken + 2) & pt->mask]);
    /* release: the decoding thread may reuse the place once it sees head */
    atomic_store_explicit(&pt->head, pt->taken, memory_order_release);
    /* a quarter of the ring between wake-up checks: a thread woken has
     * room for a batch, not for one record (no ping-pong) */
    if (++pt->since_wake > pt->mask / 4) {
        pt->since_wake = 0;
        wake_decoder(&p->dec[pt->thread]);
    }
}

typedef struct {
    preader *p;
    uint32_t *heap, n;
    int64_t *key; /* per port: head of its next record */
} merge_heap;

static bool heap_less(const merge_heap *h, uint32_t a, uint32_t b)
{
    int64_t x = h->key[a], y = h->key[b];
    return x < y || (x == y && a < b); /* ties: stream order, reproducibly */
}

static void heap_down(merge_heap *h, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < h->n && heap_less(h, h->heap[l], h->heap[m])) m = l;
        if (l + 1 < h->n && heap_less(h, h->heap[l + 1], h->heap[m])) m = l + 1;
        if (m == i) return;
        uint32_t t = h->heap[i];
        h->heap[i] = h->heap[m];
        h->heap[m] = t;
        i = m;
    }
}

/* Port k's next record into the heap's key; 0 when it has none left
 * (then res says why, unless it ended well). */
static int heap_refresh(merge_heap *h, uint32_t k, pread_result *res)
{
    int state;
    reader_rec *rec = port_next(h->p, &h->p->ports[k], &state);
    if (rec) {
        h->key[k] = rec->head;
        return 1;
    }
    if (state == PORT_REFUSED) { /* that stream ends there, the others go on */
        /* its thread wrote refused and packets before the state, which
         * port_ready loaded with acquire */
        if (!res->refused) {
            port *pt = &h->p->ports[k];
            res->refused = pt->refused;
            res->refused_port_name = pt->name;
            res->refused_packets = pt->packets;
            res->refused_source = pt->source;
        }
        return 0;
    }
    if (state != PORT_END && res->status == PORT_END) {
        res->status = state;
        res->port = k;
    }
    return 0;
}

static void progress_line(preader *p, const deliver_ctx *d);

static void merge(preader *p, deliver_ctx *d, merge_heap *h, pread_result *res)
{
    for (uint32_t k = 0; k < p->nports && res->status == PORT_END; k++)
        if (heap_refresh(h, k, res)) h->heap[h->n++] = k;
    for (uint32_t i = h->n / 2; i-- > 0;)
        heap_down(h, i);
    uint64_t n = 0;
    while (h->n && res->status == PORT_END && !d->stopped) {
        uint32_t k = h->heap[0];
        port *pt = &p->ports[k];
        /* each graph has its own bt_stream and bt_trace objects: the
         * merge knows a stream by its port, a trace by its folder */
        deliver(d, &pt->recs[pt->taken & pt->mask], k + 1, pt->source + 1);
        port_take(p, pt);
        if (!heap_refresh(h, k, res)) h->heap[0] = h->heap[--h->n];
        heap_down(h, 0);
        if ((++n & 0xffff) == 0) progress_line(p, d);
    }
}

/* Frees what the rings still hold (the merge stopped early). */
static void rings_drain(preader *p)
{
    for (uint32_t k = 0; k < p->nports; k++) {
        port *pt = &p->ports[k];
        /* acquire, though the join already orders it: the threads ended */
        uint64_t tail = atomic_load_explicit(&pt->tail, memory_order_acquire);
        for (uint64_t i = pt->taken; i < tail; i++)
            rec_free(&pt->recs[i & pt->mask]);
        pt->taken = tail;
    }
}

void pread_run(preader *p, deliver_ctx *d, pread_result *res)
{
    *res = (pread_result){.status = PORT_END};
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    for (uint32_t t = 0; t < p->ndec; t++)
        p->dec[t].started = !pthread_create(&p->dec[t].tid, NULL, decoder_main, &p->dec[t]);
    for (uint32_t t = 0; t < p->ndec; t++)
        if (!p->dec[t].started) {
            /* no thread: its ports end as if out of memory */
            for (uint32_t i = 0; i < p->dec[t].nports; i++)
                atomic_store_explicit(&p->ports[p->dec[t].ports[i]].state, PORT_NO_MEMORY,
                                      memory_order_release); /* read by the merge */
        }
    merge_heap h = {.p = p,
                    .heap = calloc(p->nports ? p->nports : 1, sizeof *h.heap),
                    .key = calloc(p->nports ? p->nports : 1, sizeof *h.key)};
    if (h.heap && h.key)
        merge(p, d, &h, res);
    else
        res->status = PORT_NO_MEMORY;
    free(h.heap);
    free(h.key);
    /* release: a decoding thread that sees quit stops pushing */
    atomic_store_explicit(&p->quit, 1, memory_order_release);
    for (uint32_t t = 0; t < p->ndec; t++) {
        pthread_mutex_lock(&p->dec[t].mu);
        pthread_cond_signal(&p->dec[t].cv);
        pthread_mutex_unlock(&p->dec[t].mu);
    }
    for (uint32_t t = 0; t < p->ndec; t++)
        if (p->dec[t].started) pthread_join(p->dec[t].tid, NULL);
    rings_drain(p);
    for (uint32_t k = 0; k < p->nports; k++)
        /* relaxed: the threads are joined */
        res->aborted |=
            atomic_load_explicit(&p->ports[k].state, memory_order_relaxed) == PORT_ABORTED;
    if (res->status != PORT_END) {
        port *pt = &p->ports[res->port];
        res->packets = pt->packets;
        res->source = pt->source;
        res->port_name = pt->name;
        res->error = p->dec[pt->thread].err;
    }
    if (p->progress_shown) fputc('\n', stderr);
}

/* ------------------------------------------------------------ progress */

/* The bytes decoded: the packets ended times the mean packet size (an
 * LTTng channel's packets are its sub-buffers, all of a size). */
static double bytes_read(const preader *p)
{
    uint64_t n = 0;
    for (uint32_t t = 0; t < p->ndec; t++)
        /* relaxed: an estimate for the user */
        n += atomic_load_explicit(&p->dec[t].packets_done, memory_order_relaxed);
    if (!p->total_packets) return 0;
    return (double)p->total_bytes * (double)(n < p->total_packets ? n : p->total_packets) /
           (double)p->total_packets;
}

/* "[####.....]  42% 12 M events, 85 MB/s, 3 s left": the share of the
 * stream files' bytes decoded (the threads read ahead of the merge by at
 * most the rings), the rate since the start and the time left at it;
 * without the packet count, the events read only. */
static void progress_line(preader *p, const deliver_ctx *d)
{
    uint64_t n = d->stats->fjtrace_events + d->stats->other_events;
    if (!p->progress || n < p->next_progress) return;
    p->next_progress = n + 1000000;
    p->progress_shown = true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double secs =
        (double)(now.tv_sec - p->t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->t0.tv_nsec);
    double done = bytes_read(p), total = (double)p->total_bytes;
    double f = total > 0 ? done / total : 0;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    double rate = secs > 0 ? done / secs : 0;
    char bar[41];
    int full = (int)(f * 40);
    for (int i = 0; i < 40; i++)
        bar[i] = i < full ? '#' : '.';
    bar[40] = '\0';
    if (!p->total_packets)
        fprintf(stderr, "\rfjtrace-analyze: %llu M events", (unsigned long long)(n / 1000000));
    else if (rate > 0)
        fprintf(stderr, "\rfjtrace-analyze: [%s] %3.0f%% %llu M events, %.0f MB/s, %.0f s left ",
                bar, 100 * f, (unsigned long long)(n / 1000000), rate / 1e6,
                (total - done > 0 ? total - done : 0) / rate);
    else
        fprintf(stderr, "\rfjtrace-analyze: [%s] %3.0f%% %llu M events ", bar, 100 * f,
                (unsigned long long)(n / 1000000));
}

void pread_free(preader *p, bool aborted)
{
    if (!p || aborted) return; /* left for the leak checker to find reachable */
    for (uint32_t t = 0; p->dec && t < p->ndec; t++) {
        bt_graph_put_ref(p->dec[t].g);
        pthread_mutex_destroy(&p->dec[t].mu);
        pthread_cond_destroy(&p->dec[t].cv);
        free(p->dec[t].ports);
    }
    for (uint32_t k = 0; p->ports && k < p->nports; k++) {
        free(p->ports[k].recs);
        free(p->ports[k].name);
    }
    bt_component_class_sink_put_ref(p->sink_class);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->dec);
    free(p->ports);
    free(p);
}
