#include "pread.h"

#include "graph.h"
#include "packets.h"
#include "weights.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RING_BYTES (8u << 20) /* all rings together */
#define RING_MIN 64u
#define RING_MAX 16384u
#define PUSH_BUDGET 256u /* records pushed to one ring before the next is served */
/* What a decoding process may allocate beyond what it has at its start: a
 * damaged length asking for gigabytes makes its allocation fail, the
 * process dies of it and its stream is named as damaged. */
#define DECODER_DATA_BUDGET (1024ull << 20)
#define WATCH_NS 20000000 /* how often a waiting merge looks for dead decoding processes */
/* A live session's streams (and traces) numbered apart; any past it share
 * the last number. The table of their traces is shared memory touched
 * only as far as used. */
#define LIVE_STREAMS (1u << 20)
#define LIVE_NAP_NS 10000000 /* a live decoding process's pause while the relay has nothing new */
#define LIVE_TICK_RECORDS 4096u /* records delivered between two ticks while the data flows */

/* port_refill's, never a port's state: a live relay has nothing new yet. */
#define PORT_AGAIN (-1)

/* One stream: a ring its thread fills and the merge empties. */
typedef struct {
    /* written by the decoding thread, read by the merge */
    alignas(64) _Atomic uint64_t tail; /* records published */
    _Atomic int state;                 /* PORT_*: set after its last record */
    /* written by the merge, read by the decoding thread */
    alignas(64) _Atomic uint64_t head; /* records taken */
    _Atomic uint64_t xhead;            /* bytes of extras released */
    /* the decoding thread's own */
    alignas(64) bt_message_iterator *it;
    uint64_t xtail; /* bytes of extras allocated */
    bt_message_array_const msgs;
    uint64_t count, pos;
    uint64_t packets;   /* packet beginnings seen, for an abort message */
    bool in_packet;     /* the last packet begun has not ended */
    bool stream_ended;  /* its stream's end message was seen */
    bool died;          /* PORT_DAMAGED: its process died decoding it */
    uint64_t seen_head; /* head as last loaded */
    uint64_t skip;      /* records a process that died published already */
    /* the merge's own */
    uint64_t taken, known_tail, since_wake;
    /* fixed before the threads start */
    reader_rec *recs;
    uint64_t mask;
    char *xbuf; /* the extras of its records (extra_in_ring), xcap bytes */
    uint64_t xcap;
    uint32_t thread, index_in_thread;
    size_t source;
    char *name;
    char why[1024]; /* PORT_DAMAGED: what ended it */
} port;

typedef struct {
    struct preader *p;
    uint32_t index;
    uint32_t *ports, nports;
    pid_t pid; /* its process (0: none) */
    bool reaped;
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
    char *const *dirs; /* the trace folders, opened by each decoding process */
    size_t ndirs;
    /* --muxer: one port, whose records name their stream (reader_rec's
     * stream: 1, 2, ... in order of first sight); stream_trace[s] is the
     * trace of stream s (1, 2, ... in order of first sight), nstreams + 1
     * entries, shared */
    bool muxer;
    /* a live session (pread_setup_live): one process follows url through
     * src.ctf.lttng-live into one port, numbered as the muxer's; tick is
     * called as reader.h's fja_live_hooks say; a death ends the reading */
    const char *live_url;
    bool wait_for_session;
    int (*tick)(void *ctx, bool idle);
    void *tick_ctx;
    uint64_t since_tick;
    bool stopped; /* tick asked to stop */
    uint32_t nstreams;
    uint32_t *stream_trace;
    /* the merge sleeps until its stream gets a record */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic int merge_waiting;
    _Atomic int quit; /* the merge is done: decoding threads stop */
    /* progress */
    uint64_t total_bytes, total_packets;
    uint64_t packet_bits; /* of the largest packet: bounds an extra */
    uint64_t xmax;        /* the most bytes an extra can take in its ring */
    bool progress, progress_shown;
    uint64_t next_progress;
    struct timespec t0;
};

/* Memory that the replaying process and its decoding processes share, at
 * the same address in each (mapped before the fork): the rings, the
 * extras their records point to, the ports' and decoders' states. Zeroed;
 * NULL when out of memory. */
static void *shared_alloc(size_t n)
{
    void *m = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void shared_free(void *m, size_t n)
{
    if (m) munmap(m, n ? n : 1);
}

/* A mutex and a condition between processes. The mutex is robust: a
 * decoding process killed while it held it (between the two lines of a
 * wake-up) leaves a flag that is right either way. */
static void sync_init(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(mu, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

static void lock(pthread_mutex_t *mu)
{
    if (pthread_mutex_lock(mu) == EOWNERDEAD) pthread_mutex_consistent(mu);
}

static void cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu)
{
    if (pthread_cond_wait(cv, mu) == EOWNERDEAD) pthread_mutex_consistent(mu);
}

preader *pread_create(unsigned jobs)
{
    preader *p = shared_alloc(sizeof *p);
    if (!p) return NULL;
    if (!jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (unsigned)n : 1;
    }
    p->jobs = jobs;
    sync_init(&p->mu, &p->cv);
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
    lock(&p->mu);
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

/* How a port whose iterator ended ends. libbabeltrace2 2.0.4 may end a
 * stream without its end message and without an error status: an event
 * running past its packet's content (a damaged length field: the library
 * made the array, then ran out of bytes reading its elements) ends the
 * stream there, everything after it unread, with only an error left on
 * the thread. That is damage, except in a packet whose content claims the
 * whole packet (an unset content_size, taken as the packet size), where
 * the decoding runs on into the padding and stops at the packet's end as
 * it should. With --muxer, not checked here: the muxer's next call into
 * the library, for another stream, aborts on the error left on the thread
 * (exit 3, as any death of the muxer's process), unless the stream that
 * ended early was the last one to end. */
static int port_ended(const preader *p, port *pt)
{
    if (pt->stream_ended || p->muxer) return PORT_END;
    char file[256];
    const char *ids;
    uint64_t off = UINT64_MAX;
    const char *dir = p->dirs[pt->source];
    if (pt->in_packet &&
        !packets_of_port(dir, pt->name, pt->packets, file, sizeof file, &off, &ids) &&
        packets_content_full(dir, file, off))
        return PORT_END;
    snprintf(pt->why, sizeof pt->why, "%s",
             pt->in_packet ? "libbabeltrace2 ended the stream inside it without saying so: an "
                             "event runs past the packet's content (a damaged length of a "
                             "dynamic array, or a string without its end?); the rest of the "
                             "stream is not read"
                           : "libbabeltrace2 ended the stream after it without its end "
                             "message; the rest of the stream is not read");
    return PORT_DAMAGED;
}

/* Next batch of a port's messages: PORT_RUNNING with some, else how the
 * port ends. */
static int port_refill(const preader *p, port *pt)
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
            return port_ended(p, pt);
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
            if (!p->live_url) continue; /* files never block */
            pt->count = pt->pos = 0;
            return PORT_AGAIN; /* the relay has nothing new */
        case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
            pt->count = pt->pos = 0;
            return PORT_NO_MEMORY;
        default:
            /* this stream ends there, damaged (as libbabeltrace2 says); the
             * others are read on */
            pt->count = pt->pos = 0;
            take_error(pt->why, sizeof pt->why,
                       p->live_url ? "the live session cannot be read" : "libbabeltrace2");
            return PORT_DAMAGED;
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

/* The port a decoding process converts a message of: where its extras go. */
static port *serving;
/* The decoding process's converter: its own memory, not the shared decoder
 * struct, since it caches the library's objects by their addresses (event
 * classes, streams): a process started after one died would find the dead
 * one's addresses there and take another class's layout for its own. */
static convert_ctx *conv;
/* A record converted again to be skipped (port.skip): its extra goes to
 * scratch, of scratch_cap bytes, not to the ring. */
static bool skipping;
static void *scratch;
static size_t scratch_cap;

/* Room for one more record's extra in the port's extras (loading xhead). */
static bool extras_room(const preader *p, port *pt)
{
    /* acquire: the merge is done with the extras before xhead */
    uint64_t used = pt->xtail - atomic_load_explicit(&pt->xhead, memory_order_acquire);
    /* twice the largest: one fits whole even past a wrap to the start */
    return pt->xcap - used >= 2 * p->xmax;
}

/* convert.h's allocator in a decoding process: an extra in the serving
 * port's ring of extras, after a word saying where it ends (the merge
 * releases up to there when it takes the record). The ring is a byte
 * FIFO: the merge takes a port's records in order. */
static rec_extra *extra_in_ring(size_t size)
{
    if (skipping) {
        if (size > scratch_cap) {
            void *m = realloc(scratch, size);
            if (!m) return NULL;
            scratch = m;
            scratch_cap = size;
        }
        return memset(scratch, 0, size);
    }
    port *pt = serving;
    uint64_t need = (2 * sizeof(uint64_t) + size + 15) & ~(uint64_t)15;
    uint64_t pos = pt->xtail % pt->xcap, skip = pt->xcap - pos < need ? pt->xcap - pos : 0;
    /* acquire: as in extras_room */
    uint64_t used = pt->xtail - atomic_load_explicit(&pt->xhead, memory_order_acquire);
    if (skip + need > pt->xcap - used) return NULL; /* larger than any packet */
    pt->xtail += skip;
    uint64_t *at = (uint64_t *)(pt->xbuf + pt->xtail % pt->xcap);
    pt->xtail += need;
    at[0] = pt->xtail;
    memset(at + 2, 0, size);
    return (rec_extra *)(at + 2);
}

/* --muxer, in its decoding process: the streams and traces seen, by their
 * objects, in order of first sight (nstreams + 1 entries each; the last
 * one also takes any stream past nstreams, which source.ctf.fs, one port
 * per stream, never makes). */
static struct {
    uintptr_t *streams, *traces;
    uint32_t nstreams, ntraces, last;
} seen;

/* Numbers for the objects of index key among n known in keys (1, 2, ...),
 * a new one taking the next number while there is room. */
static uint32_t number_of(uintptr_t *keys, uint32_t *n, uint32_t cap, uintptr_t key)
{
    for (uint32_t i = 0; i < *n; i++)
        if (keys[i] == key) return i + 1;
    if (*n < cap) keys[(*n)++] = key;
    return *n;
}

/* The stream (and its trace, in stream_trace) of the muxer's message m. */
static uint32_t muxer_stream(const preader *p, const bt_message *m)
{
    uintptr_t stream, trace;
    convert_keys(m, &stream, &trace);
    /* the muxer's messages come in runs of a stream: the last one first */
    if (seen.last && seen.streams[seen.last - 1] == stream) return seen.last;
    uint32_t s = number_of(seen.streams, &seen.nstreams, p->nstreams + 1, stream);
    /* written before the record is published (the release of tail), read
     * by the merge after it */
    p->stream_trace[s] = number_of(seen.traces, &seen.ntraces, p->nstreams + 1, trace);
    seen.last = s;
    return s;
}

/* Converts one message into the ring at tail; returns the new tail, or
 * UINT64_MAX when out of memory. */
static uint64_t push_message(decoder *d, port *pt, const bt_message *m, uint64_t tail)
{
    bt_message_type t = bt_message_get_type(m);
    pt->packets += t == BT_MESSAGE_TYPE_PACKET_BEGINNING;
    if (t == BT_MESSAGE_TYPE_PACKET_BEGINNING || t == BT_MESSAGE_TYPE_PACKET_END)
        pt->in_packet = t == BT_MESSAGE_TYPE_PACKET_BEGINNING;
    pt->stream_ended |= t == BT_MESSAGE_TYPE_STREAM_END;
    if (t == BT_MESSAGE_TYPE_PACKET_END)
        /* relaxed: a figure for the progress line, ordering nothing */
        atomic_fetch_add_explicit(&d->packets_done, 1, memory_order_relaxed);
    if (pt->skip) {
        /* published already: converted again only for what the converter
         * keeps of the stream (validate.h) */
        reader_rec again;
        skipping = true;
        int rc = convert_message(conv, m, &again);
        skipping = false;
        if (rc < 0) return UINT64_MAX;
        pt->skip -= (uint64_t)rc;
        return tail;
    }
    reader_rec *rec = &pt->recs[tail & pt->mask];
    int rc = convert_message(conv, m, rec);
    if (rc < 0) return UINT64_MAX;
    if (!rc) return tail;
    if (d->p->muxer) rec->stream = muxer_stream(d->p, m);
    return tail + 1;
}

/* Serves one port: up to PUSH_BUDGET records while its ring has room.
 * Returns whether it pushed or finished anything; *again: a live relay
 * had nothing new. */
static bool port_serve(decoder *d, port *pt, bool *again)
{
    uint64_t tail = atomic_load_explicit(&pt->tail, memory_order_relaxed); /* its own */
    uint64_t start = tail;
    int end = PORT_RUNNING;
    d->reading = (int64_t)(pt - d->p->ports);
    serving = pt;
    while (tail - start < PUSH_BUDGET && ring_free(pt, tail) && extras_room(d->p, pt)) {
        if (pt->pos == pt->count) {
            /* before the library decodes on: should it die there, what
             * it gave is in the ring (release: the records are written
             * before the merge sees them); the merge is woken once, after
             * the batch, as waking it per refill cost 9-26% more CPU */
            atomic_store_explicit(&pt->tail, tail, memory_order_release);
            if ((end = port_refill(d->p, pt)) == PORT_AGAIN) {
                end = PORT_RUNNING;
                *again = true;
                break;
            }
            if (end != PORT_RUNNING) break;
        }
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
        /* release: as above; seq_cst for the handshake of wake_merge */
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
            tail - atomic_load_explicit(&pt->head, memory_order_seq_cst) <= pt->mask &&
            pt->xcap - (pt->xtail - atomic_load_explicit(&pt->xhead, memory_order_seq_cst)) >=
                2 * p->xmax) {
            atomic_store_explicit(&d->waiting, 0, memory_order_relaxed); /* own flag */
            return;
        }
    }
    lock(&d->mu);
    /* relaxed: the mutex orders these with the merge's clearing */
    while (atomic_load_explicit(&d->waiting, memory_order_relaxed) &&
           !atomic_load_explicit(&p->quit, memory_order_relaxed))
        cond_wait(&d->cv, &d->mu);
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
    bool moved = false, running = false, again = false;
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        if (!port_running(pt)) continue;
        moved |= port_serve(d, pt, &again);
        running |= port_running(pt);
    }
    if (!running) return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
    /* a live relay with nothing new: the graph is run again after a nap */
    if (again) return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
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
    /* not for a stream that ended (a new process after one died,
     * children_check): the source would read it again */
    for (uint32_t i = 0; i < d->nports; i++)
        if (port_running(&d->p->ports[d->ports[i]]) &&
            bt_message_iterator_create_from_sink_component(
                self, bt_self_component_sink_borrow_input_port_by_index(self, i),
                &d->p->ports[d->ports[i]].it))
            return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
    return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static bt_component_class_sink *decoder_class(void)
{
    bt_component_class_sink *c = bt_component_class_sink_create("fjtrace-decode", decoder_consume);
    if (c && (bt_component_class_sink_set_initialize_method(c, decoder_init) ||
              bt_component_class_sink_set_graph_is_configured_method(c, decoder_configured))) {
        bt_component_class_sink_put_ref(c);
        c = NULL;
    }
    return c;
}

/* Every running stream of d ends with the reason in d->err: its graph
 * could not be built, or failed (not from our sink, which ends its
 * streams itself). */
static void ports_fail(decoder *d)
{
    for (uint32_t i = 0; i < d->nports; i++)
        if (port_running(&d->p->ports[d->ports[i]]))
            port_finish(d->p, &d->p->ports[d->ports[i]], PORT_ERROR);
}

static void run_graph(decoder *d, bt_graph *g)
{
    bt_graph_run_status rs;
    while ((rs = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN) {
        /* only a live relay says AGAIN (files never block): the merge is
         * woken by what was pushed, not by this process's pause */
        struct timespec nap = {.tv_nsec = LIVE_NAP_NS};
        nanosleep(&nap, NULL);
        /* acquire: as decoder_consume's */
        if (atomic_load_explicit(&d->p->quit, memory_order_acquire)) return;
    }
    if (rs != BT_GRAPH_RUN_STATUS_OK) {
        take_error(d->err, sizeof d->err,
                   d->p->live_url ? "the live session cannot be read" : "cannot decode the trace");
        ports_fail(d);
    }
}

/* This process's data segment (VmData, bytes), 0 when not known. */
static uint64_t data_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %" SCNu64, &kb) == 1) break;
    if (f) fclose(f);
    return kb * 1024;
}

static bt_graph *decoder_graph(decoder *d);

/* A decoding process: builds d's graph, runs it and ends. A crash, an
 * abort or an allocation beyond its budget in libbabeltrace2 ends this
 * process only: the merge sees it die (children_check) and names the
 * stream it was reading (d->reading) and that stream's packets begun. */
static _Noreturn void decoder_process(decoder *d, pid_t parent)
{
    /* the replaying process gone (killed, Ctrl-C), nobody reads on */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    signal(SIGINT, SIG_IGN); /* the replaying process handles it, and ends us */
    uint64_t now = data_size();
    if (now) {
        struct rlimit lim = {.rlim_cur = now + DECODER_DATA_BUDGET,
                             .rlim_max = now + DECODER_DATA_BUDGET};
        setrlimit(RLIMIT_DATA, &lim);
    }
    convert_set_extra_alloc(extra_in_ring);
    for (uint32_t i = 0; i < d->nports; i++) {
        /* after a process of d's died (children_check): its records
         * published are skipped, its packets counted again */
        port *pt = &d->p->ports[d->ports[i]];
        if (!port_running(pt)) continue;
        pt->skip = atomic_load_explicit(&pt->tail, memory_order_relaxed); /* its own now */
        pt->packets = 0;
        pt->in_packet = pt->stream_ended = false;
    }
    if (!(conv = calloc(1, sizeof *conv)) ||
        (d->p->muxer &&
         (!(seen.streams = calloc((size_t)d->p->nstreams + 1, sizeof *seen.streams)) ||
          !(seen.traces = calloc((size_t)d->p->nstreams + 1, sizeof *seen.traces))))) {
        snprintf(d->err, sizeof d->err, "out of memory");
        ports_fail(d);
        _exit(0);
    }
    bt_graph *g = decoder_graph(d);
    if (g)
        run_graph(d, g);
    else
        ports_fail(d);
    _exit(0); /* nothing of the replaying process's to flush or remove */
}

/* ------------------------------------------------------------ building */

static int ring_alloc(preader *p)
{
    /* an extra's strings come from one packet (or a few KiB of reasons) */
    uint64_t packet = p->packet_bits ? p->packet_bits / 8 : 1u << 20;
    p->xmax = 2 * sizeof(uint64_t) + sizeof(rec_extra) + 8192 + packet + 16;
    uint64_t xcap = (4 * p->xmax + 4095) & ~(uint64_t)4095;
    uint64_t per = RING_BYTES / sizeof(reader_rec) / (p->nports ? p->nports : 1);
    uint64_t cap = RING_MIN;
    while (cap * 2 <= per && cap < RING_MAX)
        cap *= 2;
    /* For the tests (analyzer-jobs): tiny rings, so that the threads wait
     * for each other all the time. */
    const char *tiny = getenv("FJTRACE_ANALYZE_TINY_RINGS");
    if (tiny && *tiny == '1') cap = 4;
    for (uint32_t i = 0; i < p->nports; i++) {
        port *pt = &p->ports[i];
        pt->recs = shared_alloc(cap * sizeof(reader_rec));
        pt->xbuf = shared_alloc(xcap);
        if (!pt->recs || !pt->xbuf) return -1;
        pt->mask = cap - 1;
        pt->xcap = xcap;
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
    p->dec = shared_alloc(p->ndec * sizeof *p->dec);
    if (!p->dec) return -1;
    for (uint32_t t = 0; t < p->ndec; t++) {
        decoder *d = &p->dec[t];
        d->p = p;
        d->index = t;
        d->reading = -1;
        sync_init(&d->mu, &d->cv);
        d->ports = calloc(p->nports ? p->nports : 1, sizeof *d->ports);
        if (!d->ports) return -1;
    }
    if (!dirs) { /* live: its one port */
        ports_deal(p, (const uint64_t[]){1});
        return 0;
    }
    uint64_t *w = port_weights(p, dirs);
    if (!w) return -1;
    ports_deal(p, w);
    free(w);
    return 0;
}

/* Connects the ports of srcs that belong to d (--muxer: the muxer's
 * output; live: the one port out) to a new sink of d's, in graph g of d's
 * process. */
static int sink_add(preader *p, decoder *d, bt_graph *g, const plugins *pl,
                    const bt_component_source **srcs, const bt_port_output *out, char *err,
                    size_t errlen)
{
    const bt_component_sink *sink = NULL;
    bt_component_class_sink *cls = decoder_class();
    char name[32];
    snprintf(name, sizeof name, "fjtrace-decode%u", d->index);
    if (!cls || bt_graph_add_sink_component_with_initialize_method_data(
                    g, cls, name, NULL, d, BT_LOGGING_LEVEL_NONE, &sink)) {
        take_error(err, errlen, "cannot create the sink");
        return -1;
    }
    if (p->muxer) {
        if (!out) out = muxer_add(g, pl, srcs, p->ndirs, err, errlen);
        if (!out) return -1;
        if (bt_graph_connect_ports(
                g, out, bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
            take_error(err, errlen, "cannot connect the sink");
            return -1;
        }
        return 0;
    }
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        uint64_t k = d->ports[i];
        for (size_t s = 0; s < pt->source; s++)
            k -= bt_component_source_get_output_port_count(srcs[s]);
        const bt_port_output *from =
            bt_component_source_borrow_output_port_by_index_const(srcs[pt->source], k);
        /* the streams were numbered by another process's graph (reader.c) */
        if (!from || strcmp(bt_port_get_name(bt_port_output_as_port_const(from)), pt->name) != 0) {
            snprintf(err, errlen, "%s: babeltrace2 numbered the streams differently", pt->name);
            return -1;
        }
        if (bt_graph_connect_ports(
                g, from, bt_component_sink_borrow_input_port_by_index_const(sink, i), NULL)) {
            take_error(err, errlen, "cannot connect the sink");
            return -1;
        }
    }
    return 0;
}

/* In d's process: its graph, the sources of every folder and a sink
 * taking d's streams; NULL with d->err set on failure. Nothing of it is
 * released: the process ends after running it. */
static bt_graph *decoder_graph(decoder *d)
{
    preader *p = d->p;
    plugins pl;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
    const bt_component_source **srcs = calloc(p->ndirs ? p->ndirs : 1, sizeof *srcs);
    bt_graph *g = srcs ? bt_graph_create(0) : NULL;
    if (!g) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return NULL;
    }
    if (plugins_load(&pl, d->err, sizeof d->err)) return NULL;
    if (p->live_url) {
        const bt_port_output *out =
            live_source_add(g, &pl, p->live_url, p->wait_for_session, d->err, sizeof d->err);
        return out && !sink_add(p, d, g, &pl, NULL, out, d->err, sizeof d->err) ? g : NULL;
    }
    if (add_sources(g, &pl, p->dirs, p->ndirs, srcs, d->err, sizeof d->err) ||
        sink_add(p, d, g, &pl, srcs, NULL, d->err, sizeof d->err))
        return NULL;
    return g;
}

int pread_setup(preader *p, char *const *dirs, size_t ndirs, char *const *names,
                const uint32_t *sources, uint32_t nports, bool muxer)
{
    p->dirs = dirs;
    p->ndirs = ndirs;
    p->muxer = muxer;
    if (muxer) {
        /* one stream for the merge: all of them, in the muxer's order */
        p->nstreams = nports;
        p->stream_trace = shared_alloc(((size_t)nports + 1) * sizeof *p->stream_trace);
        p->jobs = 1;
        p->nports = 1;
    } else {
        p->nports = nports;
    }
    p->ports = shared_alloc(p->nports * sizeof *p->ports);
    if (!p->ports || (muxer && !p->stream_trace)) return -1;
    for (uint32_t i = 0; i < p->nports; i++) {
        p->ports[i].source = muxer ? 0 : sources[i];
        if (!(p->ports[i].name = strdup(muxer ? "(the muxer)" : names[i]))) return -1;
    }
    return decoders_alloc(p, dirs);
}

int pread_setup_live(preader *p, const char *url, bool wait_for_session,
                     int (*tick)(void *ctx, bool idle), void *ctx)
{
    p->live_url = url;
    p->wait_for_session = wait_for_session;
    p->tick = tick;
    p->tick_ctx = ctx;
    p->muxer = true; /* one port whose records name their streams */
    p->nstreams = LIVE_STREAMS;
    p->stream_trace = shared_alloc(((size_t)LIVE_STREAMS + 1) * sizeof *p->stream_trace);
    p->jobs = 1;
    p->nports = 1;
    p->ports = shared_alloc(sizeof *p->ports);
    if (!p->ports || !p->stream_trace || !(p->ports[0].name = strdup(url))) return -1;
    return decoders_alloc(p, NULL);
}

void pread_set_packet_bits(preader *p, uint64_t bits)
{
    p->packet_bits = bits;
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
    lock(&d->mu);
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

/* How a decoding process ended (ws: its wait status), as a reason. */
static void death_note(char *why, size_t n, int ws)
{
    if (WIFSIGNALED(ws))
        snprintf(why, n,
                 "libbabeltrace2 aborted or crashed while decoding it (its decoding process "
                 "died of signal %d, %s%s)",
                 WTERMSIG(ws), strsignal(WTERMSIG(ws)),
                 WTERMSIG(ws) == SIGTRAP ? ": glib's g_error, an allocation beyond the "
                                           "process's budget (a damaged length?)"
                                         : "");
    else
        snprintf(why, n,
                 "libbabeltrace2 aborted or crashed while decoding it (its decoding process "
                 "ended with status %d)",
                 WEXITSTATUS(ws));
}

/* A new process for d's streams still running after its process died
 * (each death ends the stream it was reading: at most one per stream). */
static void decoder_respawn(preader *p, decoder *d)
{
    bool any = false;
    for (uint32_t i = 0; i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        /* relaxed: d's process is gone, only this one writes the states */
        if (atomic_load_explicit(&pt->state, memory_order_relaxed) != PORT_RUNNING) continue;
        pt->it = NULL; /* the dead process's: the new one makes its own */
        pt->count = pt->pos = 0;
        any = true;
    }
    if (!any) return;
    d->reading = -1;
    pid_t self = getpid();
    fflush(NULL); /* nothing buffered twice */
    pid_t pid = fork();
    if (pid == 0) decoder_process(d, self);
    d->pid = pid > 0 ? pid : 0;
    d->reaped = pid <= 0;
    for (uint32_t i = 0; pid <= 0 && i < d->nports; i++) {
        port *pt = &p->ports[d->ports[i]];
        /* relaxed: no process writes it; seq_cst store: as port_finish's */
        if (atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_RUNNING)
            atomic_store_explicit(&pt->state, PORT_NO_MEMORY, memory_order_seq_cst);
    }
}

/* Reaps the decoding processes that ended. One that died (a signal, an
 * abort, an allocation beyond its budget: any end but exit 0 after its
 * streams ended) while decoding a stream ends that stream as damaged, and
 * a new process reads its other streams on (not with --muxer: its one
 * stream is all of them); one that died elsewhere (building its graph)
 * ends its streams as aborted. */
static void children_check(preader *p)
{
    for (uint32_t t = 0; t < p->ndec; t++) {
        decoder *d = &p->dec[t];
        int ws;
        if (!d->pid || d->reaped || waitpid(d->pid, &ws, WNOHANG) != d->pid) continue;
        d->reaped = true;
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) continue; /* its streams ended */
        int64_t k = d->reading;
        /* relaxed: the process is gone, nobody else writes the state */
        if (!p->muxer && k >= 0 &&
            atomic_load_explicit(&p->ports[k].state, memory_order_relaxed) == PORT_RUNNING) {
            death_note(p->ports[k].why, sizeof p->ports[k].why, ws);
            p->ports[k].died = true;
            /* seq_cst: as port_finish's; the merge reads it with acquire */
            atomic_store_explicit(&p->ports[k].state, PORT_DAMAGED, memory_order_seq_cst);
            decoder_respawn(p, d);
            continue;
        }
        for (uint32_t i = 0; i < d->nports; i++) {
            port *pt = &p->ports[d->ports[i]];
            /* relaxed: as above */
            if (atomic_load_explicit(&pt->state, memory_order_relaxed) != PORT_RUNNING) continue;
            /* seq_cst: as port_finish's */
            atomic_store_explicit(&pt->state, PORT_ABORTED, memory_order_seq_cst);
        }
    }
}

/* The next record of pt, waiting for it; NULL at its end (*state). */
static reader_rec *port_next(preader *p, port *pt, int *state)
{
    *state = PORT_RUNNING;
    while (!port_ready(pt, state)) {
        /* live: what was delivered is shown before waiting for more, and
         * nothing new for a while is an idle tick (which naps) */
        if (p->tick && p->since_tick) {
            p->since_tick = 0;
            if ((p->stopped = p->tick(p->tick_ctx, false))) return NULL;
            continue;
        }
        wake_all_decoders(p); /* they may sleep on rings the merge has emptied */
        lock(&p->mu);
        /* seq_cst: pairs with wake_merge's load after publishing */
        atomic_store_explicit(&p->merge_waiting, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&pt->tail, memory_order_seq_cst) == pt->taken &&
            atomic_load_explicit(&pt->state, memory_order_seq_cst) == PORT_RUNNING) {
            /* a dead process wakes nobody: look at them every WATCH_NS */
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += WATCH_NS;
            if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
            /* relaxed: merge_waiting is cleared under the mutex */
            while (atomic_load_explicit(&p->merge_waiting, memory_order_relaxed)) {
                int rc = pthread_cond_timedwait(&p->cv, &p->mu, &until);
                if (rc == EOWNERDEAD) pthread_mutex_consistent(&p->mu);
                if (rc == ETIMEDOUT) break;
            }
        }
        atomic_store_explicit(&p->merge_waiting, 0, memory_order_relaxed); /* under the mutex */
        pthread_mutex_unlock(&p->mu);
        children_check(p);
        if (p->tick && !port_ready(pt, state) && (p->stopped = p->tick(p->tick_ctx, true)))
            return NULL;
    }
    if (pt->taken == pt->known_tail) return NULL;
    return &pt->recs[pt->taken & pt->mask];
}

/* Done with pt's current record. */
static void port_take(preader *p, port *pt)
{
    const reader_rec *rec = &pt->recs[pt->taken & pt->mask];
    if (rec->extra) /* release: its bytes may be reused once the decoding process sees xhead */
        atomic_store_explicit(&pt->xhead, ((const uint64_t *)rec->extra)[-2], memory_order_release);
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
    if (h->p->stopped) return 0; /* live: the tick ended the reading */
    if (state == PORT_DAMAGED) { /* that stream ends there, the others go on */
        /* why and packets were written before the state, which port_ready
         * loaded with acquire */
        if (!res->damaged) {
            port *pt = &h->p->ports[k];
            res->damaged = pt->why;
            res->damaged_port_name = pt->name;
            res->damaged_packets = pt->packets;
            res->damaged_died = pt->died;
            res->damaged_source = pt->source;
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
    while (h->n && res->status == PORT_END && !d->stopped && !p->stopped) {
        uint32_t k = h->heap[0];
        port *pt = &p->ports[k];
        /* each graph has its own bt_stream and bt_trace objects: the
         * merge knows a stream by its port, a trace by its folder; the
         * muxer's records say their stream */
        const reader_rec *rec = &pt->recs[pt->taken & pt->mask];
        if (p->muxer)
            deliver(d, rec, rec->stream, p->stream_trace[rec->stream]);
        else
            deliver(d, rec, k + 1, pt->source + 1);
        port_take(p, pt);
        if (p->tick && ++p->since_tick >= LIVE_TICK_RECORDS) {
            p->since_tick = 0;
            if ((p->stopped = p->tick(p->tick_ctx, false))) break;
        }
        if (!heap_refresh(h, k, res)) h->heap[0] = h->heap[--h->n];
        heap_down(h, 0);
        if ((++n & 0xffff) == 0) progress_line(p, d);
    }
}

void pread_run(preader *p, deliver_ctx *d, pread_result *res)
{
    *res = (pread_result){.status = PORT_END};
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    bool rings = !ring_alloc(p);
    pid_t self = getpid();
    fflush(NULL); /* nothing buffered twice */
    for (uint32_t t = 0; rings && t < p->ndec; t++) {
        pid_t pid = fork();
        if (pid == 0) decoder_process(&p->dec[t], self);
        p->dec[t].pid = pid > 0 ? pid : 0;
    }
    for (uint32_t t = 0; t < p->ndec; t++)
        if (!p->dec[t].pid) {
            /* no process: its ports end as if out of memory */
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
    /* The merge is done: what the decoding processes still read is not
     * wanted (a stream that ended them all has been seen, or the sink
     * stopped); those still running are ended. */
    for (uint32_t t = 0; t < p->ndec; t++) {
        decoder *dc = &p->dec[t];
        if (!dc->pid || dc->reaped) continue;
        kill(dc->pid, SIGKILL);
        while (waitpid(dc->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        dc->reaped = true;
    }
    for (uint32_t k = 0; k < p->nports; k++) {
        port *pt = &p->ports[k];
        /* relaxed: the processes are reaped */
        res->aborted |= atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_ABORTED;
    }
    if (res->status != PORT_END) {
        port *pt = &p->ports[res->port];
        res->packets = pt->packets;
        res->source = pt->source;
        res->port_name = pt->name;
        res->error = p->dec[pt->thread].err;
    }
    res->stopped = p->stopped;
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

void pread_free(preader *p)
{
    if (!p) return;
    /* The mutexes and conditions are not destroyed, only unmapped: a
     * decoding process killed while it waited (pread_run ends them) is
     * still counted among a condition's waiters, and pthread_cond_destroy
     * would wait for it forever. */
    for (uint32_t t = 0; p->dec && t < p->ndec; t++)
        free(p->dec[t].ports);
    for (uint32_t k = 0; p->ports && k < p->nports; k++) {
        shared_free(p->ports[k].recs, (p->ports[k].mask + 1) * sizeof(reader_rec));
        shared_free(p->ports[k].xbuf, p->ports[k].xcap);
        free(p->ports[k].name);
    }
    shared_free(p->stream_trace, ((size_t)p->nstreams + 1) * sizeof *p->stream_trace);
    shared_free(p->dec, p->ndec * sizeof *p->dec);
    shared_free(p->ports, p->nports * sizeof *p->ports);
    shared_free(p, sizeof *p);
}
