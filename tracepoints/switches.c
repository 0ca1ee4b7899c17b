/* Off-CPU intervals of a thread from its own perf context-switch records
 * (see switches.h). Built only with tracing enabled. */
#include "switches.h"

#include <errno.h>
#include <stdatomic.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fjtrace_tp.h"

#define FJ_TRACE(event, ...) lttng_ust_tracepoint(fjtrace, event, __VA_ARGS__)

/* Data pages of the ring (a power of two): 32 KiB hold ~680 switches, many
 * seconds of a thread preempted ~100 times a second between two drains.
 * The fallback size keeps a working event when the locked-memory budget
 * (perf_event_mlock_kb, shared by all of the user's processes) is short. */
enum { RING_PAGES = 8, RING_PAGES_FALLBACK = 1 };
enum { OFFCPU_PREEMPTED = 0, OFFCPU_BLOCKED = 1 };

/* The calling thread's perf event; thread-local because the event
 * follows the thread (inherit=0). */
typedef struct {
    bool open;    /* fd, meta and data are valid */
    bool refused; /* perf_event_open or mmap failed once: never retried */
    int fd;
    struct perf_event_mmap_page *meta;
    const unsigned char *data;
    uint64_t data_size;
    size_t map_bytes;
    uint64_t out_ts; /* the pending switch-out (0: none) */
    bool out_preempted;
    /* Ticks (fj_switches_ticks) at the last task point and at the last
     * offcpu_task_clock: the readings without a switch (switches.h) */
    uint64_t point_at, read_at;
    /* The two periods in ticks: first as if a tick were a nanosecond (more
     * readings than asked for, never fewer, from any tick of 1 GHz or
     * faster), then measured (calibrate). */
    uint64_t piece_ticks, span_ticks;
    /* CLOCK_MONOTONIC and ticks read together (clocks_pair) at or after
     * the open (based: they were), until the periods are measured
     * (calibrated) */
    bool based, calibrated;
    uint64_t open_ns, open_ticks;
    /* The caller's own time (fj_switches_tool): the ns per tick it is told
     * with (calibrate; 1 until then), and the ticks and ns told so far.
     * Each reading converts only what came since the last one, at the
     * ratio known then: a ratio measured later never rewrites time told. */
    double ns_per_tick;
    uint64_t tool_ticks, tool_ns;
} offcpu_state;

static _Thread_local offcpu_state st;

static int perf_open(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_DUMMY;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    a.sample_id_all = 1;
    a.context_switch = 1;
    a.exclude_kernel = 1; /* what perf_event_paranoid=2 allows */
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC; /* LTTng-UST's clock */
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int ring_map(int fd)
{
    const long page = sysconf(_SC_PAGESIZE);
    const int tries[] = {RING_PAGES, RING_PAGES_FALLBACK};
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
        size_t bytes = (size_t)page * (size_t)(1 + tries[i]);
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) continue;
        st.meta = m;
        st.data = (const unsigned char *)m + page;
        st.data_size = (uint64_t)page * (uint64_t)tries[i];
        st.map_bytes = bytes;
        return 0;
    }
    return -1;
}

/* A provisional ratio of ns to ticks for the caller's own time from this
 * long after the open: each pair of clocks is read within ~50 ns, 0.5% of
 * it. */
#define CALIBRATE_EARLY_NS 10000u
/* Two tick reads around a CLOCK_MONOTONIC read further apart than this:
 * the thread was interrupted between them (a preemption, the hypervisor
 * taking its vCPU). The vDSO's read takes ~100 ticks in the test VM. */
#define PAIR_MAX_TICKS 4000u

/* Reads CLOCK_MONOTONIC and the ticks at one moment; false when the
 * thread was interrupted between the reads: a ratio measured with such a
 * pair is off by the interruption (a worker preempted between its tick and
 * its CLOCK_MONOTONIC reads once had its tool time told x5, 40 us of it
 * in 3 us, for its whole life: work 126.7 ms for leaves of 128). */
static bool clocks_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t before = fj_switches_ticks();
    uint64_t mono = fj_switches_monotonic_ns();
    uint64_t after = fj_switches_ticks();
    if (!mono || after < before || after - before > PAIR_MAX_TICKS) return false;
    *ticks = before + (after - before) / 2;
    *ns = mono;
    return true;
}

/* Measures the ticks of the two periods once 1 ms has passed since the
 * base pair (the ratio of two differences, good to 0.1% there), at a
 * reading (a system call already); the ratio for the caller's own time is
 * measured the same way from CALIBRATE_EARLY_NS on, until then. An
 * interrupted pair is not used: the next reading tries again. */
static void calibrate(void)
{
    uint64_t ticks, now_ns;
    if (!clocks_pair(&ticks, &now_ns)) return;
    if (!st.based) {
        st.open_ticks = ticks;
        st.open_ns = now_ns;
        st.based = true;
        return;
    }
    if (now_ns < st.open_ns + CALIBRATE_EARLY_NS || ticks <= st.open_ticks) return;
    uint64_t ns = now_ns - st.open_ns;
    st.ns_per_tick = (double)ns / (double)(ticks - st.open_ticks);
    if (ns < 1000000u) return;
    double per_ns = (double)(ticks - st.open_ticks) / (double)ns;
    st.piece_ticks = (uint64_t)(per_ns * FJ_SWITCHES_PIECE_READ_NS);
    st.span_ticks = (uint64_t)(per_ns * FJ_SWITCHES_SPAN_READ_NS);
    st.calibrated = true;
}

/* The calling worker's CPU clock in *ns; false for a client thread (which
 * tells none) or a clock that cannot be read. */
static bool worker_cpu_ns(fj_switches_for to, uint64_t *ns)
{
    struct timespec ts;
    if (to.worker < 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return false;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
}

/* The calling thread's CPU clock, told with the worker's intervals
 * (offcpu_clock). */
static void tell_clock(fj_switches_for to)
{
    uint64_t cpu;
    if (worker_cpu_ns(to, &cpu)) FJ_TRACE(offcpu_clock, to.pool, to.worker, cpu);
}

/* The same at a task's boundary (offcpu_task_clock: at `now`, ticks), with
 * the caller's own time up to the reading: its clock read included (a
 * system call, 1.4 us measured on the test VM), which the clock
 * counts partly before the reading and partly after: told here whole;
 * and whether the caller's next event is the switch it reads for. */
static void tell_task_clock(fj_switches_for to, fj_switches_tool tool, uint64_t now,
                            bool switch_follows)
{
    uint64_t cpu;
    if (!worker_cpu_ns(to, &cpu)) return;
    st.read_at = now;
    if (!st.calibrated) calibrate();
    uint64_t back = fj_switches_ticks();
    /* The code under way: none told if the thread left the CPU since its
     * entry, nor for a clock gone backwards after a migration. */
    uint64_t ticks = tool.done + fj_switches_stayed_ticks(fj_switches_ring_head(), tool.entry_head,
                                                          tool.entry, back);
    if (ticks > st.tool_ticks) {
        st.tool_ns += (uint64_t)((double)(ticks - st.tool_ticks) * st.ns_per_tick);
        st.tool_ticks = ticks;
    }
    FJ_TRACE(offcpu_task_clock, to.pool, to.worker, cpu, st.tool_ns, (uint8_t)switch_follows);
}

void fj_switches_prepare(void)
{
    /* Relaxed: only that one caller opens it matters; nothing is published. */
    static atomic_bool prepared;
    if (!fj_switches_recorded() || atomic_exchange_explicit(&prepared, true, memory_order_relaxed))
        return;
    /* Never closed (close-on-exec): it must outlive every worker's own
     * event, for the process's life. Refused, the workers' opens say so. */
    (void)perf_open();
}

void fj_switches_open(fj_switches_for to)
{
    int fd = perf_open();
    if (fd >= 0 && ring_map(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    if (fd < 0) {
        st.refused = true;
        FJ_TRACE(offcpu_unavailable, to.pool, to.worker, errno);
        return;
    }
    st.fd = fd;
    st.open = true;
    st.out_ts = 0;
    st.point_at = st.read_at = fj_switches_ticks();
    st.calibrated = false;
    st.based = clocks_pair(&st.open_ticks, &st.open_ns);
    st.ns_per_tick = 1;
    st.tool_ticks = st.tool_ns = 0;
    st.piece_ticks = FJ_SWITCHES_PIECE_READ_NS;
    st.span_ticks = FJ_SWITCHES_SPAN_READ_NS;
    FJ_TRACE(offcpu_start, to.pool, to.worker);
    tell_clock(to);
}

bool fj_switches_recorded(void)
{
    return lttng_ust_tracepoint_enabled(fjtrace, offcpu);
}

bool fj_switches_is_open(void)
{
    return st.open;
}

const unsigned long long *fj_switches_ring_head(void)
{
    return st.open ? &st.meta->data_head : NULL; /* (__u64: unsigned long long) */
}

bool fj_switches_refused(void)
{
    return st.refused;
}

void fj_switches_reset(void)
{
    memset(&st, 0, sizeof(st));
}

/* One PERF_RECORD_SWITCH: a switch-out opens an interval, the next
 * switch-in closes it. A switch-in without a switch-out (the first record,
 * or after lost records) closes nothing. */
static void on_switch(fj_switches_for to, uint16_t misc, uint64_t ts)
{
    if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
        st.out_ts = ts;
        st.out_preempted = (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        return;
    }
    if (st.out_ts == 0) return;
    uint8_t kind = st.out_preempted ? OFFCPU_PREEMPTED : OFFCPU_BLOCKED;
    if (ts >= st.out_ts && to.worker >= 0)
        FJ_TRACE(offcpu, to.pool, to.worker, st.out_ts, ts, kind);
    else if (ts >= st.out_ts)
        FJ_TRACE(offcpu_client, to.pool, to.worker, to.task, st.out_ts, ts, kind);
    st.out_ts = 0;
}

/* Copies the record at ring offset `at` (it may wrap) into buf. */
static void ring_copy(uint64_t at, void *buf, size_t len)
{
    uint64_t off = at & (st.data_size - 1);
    size_t first = (size_t)(st.data_size - off) < len ? (size_t)(st.data_size - off) : len;
    memcpy(buf, st.data + off, first);
    memcpy((unsigned char *)buf + first, st.data, len - first);
}

/* Record layouts with sample_type TID|TIME and sample_id_all: a switch is
 * header + {pid, tid, time}; a loss is header + {id, lost} + the same. */
static void on_record(fj_switches_for to, const unsigned char *r, size_t len)
{
    struct perf_event_header h;
    memcpy(&h, r, sizeof(h));
    uint64_t v[3];
    if (h.type == PERF_RECORD_SWITCH && len >= sizeof(h) + 16) {
        memcpy(v, r + sizeof(h), 16);
        on_switch(to, h.misc, v[1]);
    } else if (h.type == PERF_RECORD_LOST && len >= sizeof(h) + 16) {
        memcpy(v, r + sizeof(h), 16);
        /* A lost switch-in would pair a later switch-out wrongly: forget. */
        st.out_ts = 0;
        FJ_TRACE(offcpu_lost, to.pool, to.worker, v[1]);
    }
}

/* Returns whether there was anything to drain. */
static bool drain(fj_switches_for to)
{
    /* Acquire: the kernel writes the records, then data_head; we must see
     * the records behind the head we read (perf_event_open(2)). */
    const uint64_t head = __atomic_load_n(&st.meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = st.meta->data_tail; /* only we write it */
    if (tail == head) return false;     /* nothing new: the common case at a task's boundary */
    unsigned char rec[64];
    while (tail < head) {
        struct perf_event_header h;
        ring_copy(tail, &h, sizeof(h));
        if (h.size < sizeof(h)) break; /* cannot happen; never loop forever */
        if (h.size <= sizeof(rec)) {
            ring_copy(tail, rec, h.size);
            on_record(to, rec, h.size);
        }
        tail += h.size;
    }
    /* Release: our reads of the records happen before the kernel may
     * overwrite them (it acquires data_tail). */
    __atomic_store_n(&st.meta->data_tail, head, __ATOMIC_RELEASE);
    return true;
}

void fj_switches_drain_task(fj_switches_for to, fj_switches_tool tool, bool switch_follows)
{
    /* The thread's CPU clock is a system call (~0.2 us, and its event):
     * read at a switch drained, at the end of a long piece, and after a
     * long span without a reading (switches.h). */
    uint64_t now = fj_switches_ticks();
    bool long_piece = now - st.point_at >= st.piece_ticks;
    st.point_at = now;
    if (drain(to) || long_piece || now - st.read_at >= st.span_ticks)
        tell_task_clock(to, tool, now, switch_follows);
}

void fj_switches_drain(fj_switches_for to)
{
    uint64_t now = fj_switches_ticks();
    if (drain(to) || now - st.read_at >= st.span_ticks) {
        st.read_at = now;
        tell_clock(to);
    }
}

void fj_switches_drain_last(fj_switches_for to)
{
    drain(to);
    tell_clock(to);
}

void fj_switches_task_clock(fj_switches_for to, fj_switches_tool tool)
{
    tell_task_clock(to, tool, fj_switches_ticks(), false);
}

void fj_switches_close(void)
{
    munmap(st.meta, st.map_bytes);
    close(st.fd);
    st.open = false;
}
