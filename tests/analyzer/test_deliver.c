/* The reader's consumer side (deliver.h) numbers any number of traces:
 * 5,000 traces, keyed as the parallel reader keys them (trace number + 1,
 * past the small-key table at 4,096) and as the muxer does (object
 * addresses), each get their own source in order of first sight, and a
 * lost beginning (a snapshot's window) past the 4,096th trace leaves out
 * that trace's early events only. Until issue 26 the 4,096th and later
 * traces were folded into one source, so the window of one cut them all. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../tap.h"
#include "deliver.h"

#define NTRACES 5000

static uint32_t seen[2 * NTRACES + 8]; /* the sources of the events delivered, in order */
static uint32_t nseen;

static int on_event(void *ctx, const fja_event *ev)
{
    (void)ctx;
    if (nseen < sizeof seen / sizeof *seen) seen[nseen] = ev->source;
    nseen++;
    return 0;
}

static reader_rec event_at(int64_t ts)
{
    return (reader_rec){.head = ts, .type = REC_FJTRACE, .kind = FJA_EV_FORK, .worker = 0};
}

/* Every trace once in order, then once again backwards: the sources must be
 * 0.. in the first pass and the same ones in the second. */
static void numbering(const char *how, uintptr_t (*key)(uint32_t))
{
    fja_reader_sink sink = {.event = on_event};
    fja_reader_stats stats = {0};
    deliver_ctx *d = malloc(sizeof *d);
    require(d);
    deliver_init(d, &sink, &stats);
    nseen = 0;
    bool failed = false;
    for (uint32_t i = 0; i < NTRACES; i++) {
        reader_rec r = event_at(10 + i);
        failed |= deliver(d, &r, key(i), key(i)) != 0;
    }
    for (uint32_t i = NTRACES; i-- > 0;) {
        reader_rec r = event_at(20000 + i);
        failed |= deliver(d, &r, key(i), key(i)) != 0;
    }
    ok(!failed, "%s: every record delivered", how);
    ok_eq_u64(nseen, 2 * NTRACES, "%s: every event reaches the sink", how);
    ok_eq_u64(stats.traces, NTRACES, "%s: %u traces counted", how, NTRACES);
    uint32_t first_wrong = UINT32_MAX;
    for (uint32_t i = 0; i < NTRACES && first_wrong == UINT32_MAX; i++)
        if (seen[i] != i || seen[2 * NTRACES - 1 - i] != i) first_wrong = i;
    ok_eq_u64(first_wrong, UINT32_MAX,
              "%s: trace i is source i in both passes (none folded into another)", how);
    deliver_free(d);
    free(d);
}

static uintptr_t parallel_key(uint32_t i)
{
    return (uintptr_t)i + 1; /* pread.c: the trace folder's number + 1 */
}

static uintptr_t muxer_key(uint32_t i)
{
    return (uintptr_t)0x7f0000001000u + 0x40u * i; /* like heap addresses */
}

/* A stream whose beginning was overwritten (its discarded-events notice
 * before its first event, every stream possibly begun late) in trace 4,500:
 * its events before the notice's time are left out, those of trace 4,501
 * are not. */
static void window_per_trace(void)
{
    fja_reader_sink sink = {.event = on_event};
    fja_reader_stats stats = {0};
    deliver_ctx *d = malloc(sizeof *d);
    require(d);
    deliver_init(d, &sink, &stats);
    d->late_unknown = true;
    nseen = 0;
    for (uint32_t i = 0; i < NTRACES; i++) { /* every trace seen, by an event of stream 2i */
        reader_rec r = event_at(1);
        require(!deliver(d, &r, parallel_key(2 * i), parallel_key(i)));
    }
    rec_extra *x = calloc(1, sizeof *x);
    require(x);
    *x = (rec_extra){.count_known = true, .count = 7, .ts = 1000, .carries_fjtrace = true};
    reader_rec lost = {.head = 1000, .type = REC_DISCARDED, .extra = x};
    /* stream 2*4500+1: a second stream of trace 4,500, no event yet */
    require(!deliver(d, &lost, parallel_key(2 * 4500 + 1), parallel_key(4500)));
    uint32_t before = nseen;
    reader_rec early = event_at(500), late = event_at(1500);
    require(!deliver(d, &early, parallel_key(2 * 4500), parallel_key(4500)));
    ok_eq_u64(nseen, before, "trace 4,500: an event before its window is left out");
    ok_eq_u64(stats.window_events, 1, "... and counted as outside the window");
    require(!deliver(d, &late, parallel_key(2 * 4500), parallel_key(4500)));
    ok(nseen == before + 1 && seen[before] == 4500,
       "trace 4,500: an event after its window is delivered, as source 4,500");
    require(!deliver(d, &early, parallel_key(2 * 4501), parallel_key(4501)));
    ok(nseen == before + 2 && seen[before + 1] == 4501,
       "trace 4,501: its event at the same early time is delivered (the window is 4,500's)");
    ok_eq_u64(stats.window_lost, 7, "the 7 events lost are counted once");
    free(x);
    deliver_free(d);
    free(d);
}

int main(void)
{
    numbering("parallel reader's keys", parallel_key);
    numbering("muxer's keys", muxer_key);
    window_per_trace();
    return done_testing();
}
