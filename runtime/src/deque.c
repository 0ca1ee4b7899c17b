/* The split deque; see deque.h for the layout and fj_fast.h for the owner's
 * inline push and pop. Every atomic below says why its order suffices. */
#include "deque.h"

#include <sys/mman.h>

#include "config.h"
#include "trace.h"

/* Here, not with the pool, so that the deque links alone (test_deque). */
const int fj_trace_gate_off = 0;
/* What fj_deque_ask puts in `gate`: "take the slow branch". */
static const int gate_request = 1;

#define TS_TAIL(ts) ((uint32_t)((ts)&0xffffu))
#define TS_SPLIT(ts) ((uint32_t)(((ts) >> 16) & 0xffffu))
#define TS_GEN(ts) ((uint32_t)((ts) >> 32))
#define TS_PACK(tail, split, gen)                                                                  \
    ((uint64_t)(tail) | ((uint64_t)(split) << 16) | ((uint64_t)(gen) << 32))

int fj_deque_init(fj_deque *dq, size_t capacity)
{
    if (capacity == 0 || capacity > FJ_DEQUE_MAX_CAPACITY) return FJ_EINVAL;
    /* Reserved, not committed: the overflow frames cost address space
     * only until a spawn nests that deep. */
    size_t bytes = (capacity + FJ_DEQUE_OVERFLOW) * sizeof(fj_frame);
    void *frames = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (frames == MAP_FAILED) return FJ_ENOMEM;
    dq->base = dq->head = dq->split = frames;
    dq->end = dq->base + capacity;
    /* The guard frame is never pushed: a spawn writes its arguments into
     * the frame at head before it checks head against limit. */
    dq->guard = dq->base + capacity + FJ_DEQUE_OVERFLOW - 1;
    dq->limit = dq->guard;
    /* Relaxed: the deque reaches other threads through pthread_create (or,
     * in tests, a thread started after this), which synchronises. */
    atomic_init(&dq->ts, 0);
    atomic_init(&dq->need, 0);
    dq->trace_gate = &fj_trace_gate_off;
    dq->rest_gate = dq->trace_gate;
    dq->count_state = FJ__TASK_PENDING;
    atomic_init(&dq->gate, dq->rest_gate);
    atomic_init(&dq->stolen, 0);
    atomic_init(&dq->inline_syncs, 0);
    return FJ_OK;
}

void fj_deque_destroy(fj_deque *dq)
{
    munmap(dq->base, (size_t)(dq->guard + 1 - dq->base) * sizeof(fj_frame));
    dq->base = dq->head = dq->split = dq->end = dq->limit = dq->guard = NULL;
}

/* Owner only, private part empty: take back the newer half of the shared
 * part (Lace's shrink). Returns 0 if every shared frame was stolen. */
static int take_back_shared(fj_deque *dq)
{
    /* Relaxed: the owner needs only the indices; no thief writes data the
     * owner reads, and the CAS below orders us against the thieves' CAS on
     * the same word (one modification order). */
    uint64_t ts = atomic_load_explicit(&dq->ts, memory_order_relaxed);
    for (;;) {
        uint32_t tail = TS_TAIL(ts), split = TS_SPLIT(ts), gen = TS_GEN(ts);
        if (tail >= split) return 0;
        uint32_t newsplit = tail + (split - tail) / 2; /* the older half stays shared */
        /* Relaxed on both paths, as for the load above: the CAS only has to
         * win or lose against the thieves' CAS; the new generation makes a
         * thief that read the old state fail. */
        if (atomic_compare_exchange_weak_explicit(&dq->ts, &ts, TS_PACK(tail, newsplit, gen + 1),
                                                  memory_order_relaxed, memory_order_relaxed)) {
            dq->split = dq->base + newsplit;
            return 1;
        }
    }
}

fj_top fj_deque_top(fj_deque *dq)
{
    if (dq->head == dq->base) return FJ_TOP_NONE;
    /* split <= head always; head == split: the top frame was shared. */
    if (dq->head > dq->split || take_back_shared(dq)) return FJ_TOP_OWN;
    /* Every shared frame was stolen, the top one included: tail == split
     * == head. */
    return FJ_TOP_STOLEN;
}

void fj_deque_drop_stolen(fj_deque *dq)
{
    uint64_t ts = atomic_load_explicit(&dq->ts, memory_order_relaxed);
    dq->head--;
    dq->split = dq->head;
    uint32_t top = (uint32_t)(dq->head - dq->base);
    /* The shared part is empty (tail == split), and thieves never CAS an
     * empty `ts`, so a plain store cannot lose a steal; the new generation
     * makes any CAS prepared on an older state fail. Relaxed: nothing is
     * published here (fj_deque_publish's release does that). */
    atomic_store_explicit(&dq->ts, TS_PACK(top, top, TS_GEN(ts) + 1), memory_order_relaxed);
    /* Thieves took all we shared: they are hungry, so share the next push
     * at once (Lace's "all stolen"). */
    fj_deque_ask(dq);
}

/* The gate at rest: the recording state word, or in a pool that counts
 * tasks the request's constant 1 (fj_fast.h, `rest_gate`). */
static void gate_rest(fj_deque *dq)
{
    dq->rest_gate = dq->count_state ? &gate_request : dq->trace_gate;
    /* Relaxed: before the deque reaches other threads (fj_deque_init). */
    atomic_store_explicit(&dq->gate, dq->rest_gate, memory_order_relaxed);
}

void fj_deque_set_trace_gate(fj_deque *dq, const volatile int *trace_gate)
{
    dq->trace_gate = trace_gate;
    gate_rest(dq);
}

void fj_deque_set_counting(fj_deque *dq, int count_tasks)
{
    dq->count_state = count_tasks ? FJ__FRAME_COUNTED : FJ__TASK_PENDING;
    gate_rest(dq);
}

void fj_deque_ask(fj_deque *dq)
{
    /* Writing only when `need` is clear keeps idle thieves from bouncing
     * the line (relaxed look: a request already raised is answered by a
     * publish that starts after it was raised, see fj_deque_publish).
     * Seq_cst stores: with fj_deque_publish's two (the gate put back,
     * then `need` cleared) these make the 2+2W shape, whose one outcome
     * that matters, `need` raised while the gate is put back, would leave
     * the request unanswered for good (later thieves see `need` raised
     * and ring no more). Relaxed or release stores allow that outcome;
     * seq_cst ones are in one total order that agrees with each thread's
     * program order, which excludes it. Rare: once per request. */
    if (atomic_load_explicit(&dq->need, memory_order_relaxed)) return;
    atomic_store_explicit(&dq->need, 1, memory_order_seq_cst);
    atomic_store_explicit(&dq->gate, &gate_request, memory_order_seq_cst);
}

size_t fj_deque_publish(fj_deque *dq)
{
    /* Clearing the request (the gate, then `need`: fj_deque_ask says why
     * seq_cst, in this order) before moving the split means a request
     * raised after this point is seen at a later spawn, never lost. The
     * gate goes back to its rest (fj_fast.h): in a pool that counts tasks
     * that is the request's own 1, and `need` alone says whether a request
     * is open, which every spawn's slow branch looks at. */
    atomic_store_explicit(&dq->gate, dq->rest_gate, memory_order_seq_cst);
    atomic_store_explicit(&dq->need, 0, memory_order_seq_cst);
    fj_frame *top = dq->head < dq->end ? dq->head : dq->end; /* overflow frames stay private */
    if (top <= dq->split) return 0;
    size_t n = (size_t)(top - dq->split);
    /* Release: a thief that acquires the new split sees the frames written
     * before they were pushed. fetch_add and not a store: thieves may move
     * tail concurrently; split + n <= capacity, so the addition never
     * carries into the generation. */
    atomic_fetch_add_explicit(&dq->ts, (uint64_t)n << 16, memory_order_release);
    dq->split += n;
    return n;
}

fj_steal_result fj_deque_steal(fj_deque *dq, fj_frame **out)
{
    /* Acquire: pairs with the release in fj_deque_publish (the RMWs of other
     * thieves and the owner's take-backs continue its release sequence), so
     * the frames below the split are visible. */
    uint64_t ts = atomic_load_explicit(&dq->ts, memory_order_acquire);
    uint32_t tail = TS_TAIL(ts);
    if (tail >= TS_SPLIT(ts)) {
        fj_deque_ask(dq); /* ask the owner to share more */
        return FJ_STEAL_EMPTY;
    }
    /* Relaxed on success and failure: the frame's contents were acquired
     * above; the CAS only decides which thief (or the owner) gets frame
     * tail. Only a winner reads the frame: it stays the thief's until the
     * thief marks it done, as the owner's sync waits for that. */
    if (!atomic_compare_exchange_strong_explicit(&dq->ts, &ts, ts + 1, memory_order_relaxed,
                                                 memory_order_relaxed))
        return FJ_STEAL_ABORT;
    /* Relaxed: a statistics counter, exact once the pool is quiescent. */
    atomic_fetch_add_explicit(&dq->stolen, 1, memory_order_relaxed);
    *out = &dq->base[tail];
    return FJ_STEAL_OK;
}

int64_t fj_deque_size_hint(fj_deque *dq)
{
    /* Relaxed: a hint; callers that must not miss work fence first. */
    uint64_t ts = atomic_load_explicit(&dq->ts, memory_order_relaxed);
    return TS_SPLIT(ts) > TS_TAIL(ts) ? (int64_t)(TS_SPLIT(ts) - TS_TAIL(ts)) : 0;
}
