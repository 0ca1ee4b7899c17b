/* The cheap timestamps (stamp.h): their rate and their own cost. */
#include "stamp.h"

#include <stdatomic.h>

#include "config.h"

/* The first pool's creation, in stamps and in ns. Relaxed: written once
 * (the exchange of `origin_set` elects the writer) before any worker runs
 * a traced task, read by workers that pool_create's thread started after. */
static _Atomic uint64_t origin_stamp, origin_ns;
static atomic_flag origin_set = ATOMIC_FLAG_INIT;
/* ns per stamp in 32.32 fixed point, and the cost of one stamp, + 1 (0 =
 * not measured yet). Relaxed: racing threads measure the same thing, any
 * of their stores will do. */
static _Atomic uint64_t rate_q32, cost_plus_1;

/* A reading of the clock and the stamp at that moment: the middle of the
 * stamps just before and after it. -1 when they lie too far apart: the
 * thread lost the CPU in between, and the pair would skew the rate. */
static int clock_pair(uint64_t *ns, uint64_t *stamp)
{
    uint64_t before = fj_stamp();
    *ns = fj_stamp_clock_ns();
    uint64_t after = fj_stamp();
    if (after < before || after - before > FJ_STAMP_PAIR_MAX_TICKS) return -1;
    *stamp = before + (after - before) / 2;
    return 0;
}

void fj_stamp_origin(void)
{
    /* Relaxed: see origin_stamp. */
    if (atomic_flag_test_and_set_explicit(&origin_set, memory_order_relaxed)) return;
    uint64_t ns, stamp;
    for (int i = 0; i < FJ_STAMP_PAIR_TRIES; i++) {
        if (clock_pair(&ns, &stamp)) continue;
        atomic_store_explicit(&origin_stamp, stamp, memory_order_relaxed);
        atomic_store_explicit(&origin_ns, ns, memory_order_relaxed);
        return;
    }
    /* never a clean pair: no rate, and so no ahead (never a wrong one) */
}

/* 32.32 ns per stamp: exact 1 for the clock; for the TSC measured from the
 * origin to now once FJ_STAMP_RATE_MIN_NS apart, each end a clean pair
 * (clock_pair). 0 while it cannot be measured yet. */
static uint64_t rate(void)
{
    if (!FJ_STAMP_TSC) return (uint64_t)1 << 32;
    uint64_t r = atomic_load_explicit(&rate_q32, memory_order_relaxed);
    if (r) return r;
    uint64_t s0 = atomic_load_explicit(&origin_stamp, memory_order_relaxed);
    uint64_t n0 = atomic_load_explicit(&origin_ns, memory_order_relaxed);
    uint64_t n1, s1;
    if (!n0 || clock_pair(&n1, &s1) || n1 < n0 + FJ_STAMP_RATE_MIN_NS || s1 <= s0) return 0;
    r = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (s1 - s0));
    atomic_store_explicit(&rate_q32, r, memory_order_relaxed);
    return r;
}

static uint64_t cost(void)
{
    uint64_t c = atomic_load_explicit(&cost_plus_1, memory_order_relaxed);
    if (c) return c - 1;
    c = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        uint64_t a = fj_stamp(), b = fj_stamp();
        if (b - a < c) c = b - a;
    }
    atomic_store_explicit(&cost_plus_1, c + 1, memory_order_relaxed);
    return c;
}

int fj_stamp_ns(uint64_t from, uint64_t to, uint64_t *ns)
{
    uint64_t r = rate();
    if (!r) return -1;
    uint64_t c = cost();
    *ns = to <= from || to - from <= c ? 0
                                       : (uint64_t)(((unsigned __int128)(to - from - c) * r) >> 32);
    return 0;
}
