/* libFuzzer harness on the analysis core (analyzer/core): arbitrary bytes
 * become a sequence of fja_event, fed to the model, analysed and written
 * as text and JSON reports to /dev/null. It must never crash, leak or hang.
 *
 * Encoding, 8 bytes an event (a shorter tail is ignored):
 *   b0  kind (mod FJA_EV_COUNT)
 *   b1  bits 0-2: worker 0..5, 6 = -1 (not a worker), 7 = a large index
 *       (63 or 64, or with b4's top bits set 32767 or 32768)
 *       bits 3-4: pool 0..3; bit 5: source 0..1; bits 6-7: the pool id is
 *       huge (UINT32_MAX - pool) when both are set
 *   b2  task id: bits 0-4 a small id (0..31, so pairs match often); bit 7
 *       makes it huge (UINT64_MAX - id); bit 6 makes it 1ull << (id % 64)
 *   b3  arg (parent, victim, target, workers, lock id), same scheme as b2
 *   b4  size hint: the byte, or huge when >= 0xf0
 *   b5  name for lock_init and procname for pool_begin (one of a few,
 *       hostile ones included; pool_begin's pid is b3 as a signed byte)
 *   b0 0xff also reports discarded events, 0xfe a decode error
 *   b6..b7  signed 16-bit time delta in ns, scaled: -0x8000 jumps to a huge
 *       timestamp, so time can go backwards and far forwards.
 *   For offcpu (an interval record) b4 and b5 are how far back its begin
 *   and end lie (x256 ns, x128 ns: either may come after the other, or
 *   after the event); for offcpu_task_clock b4 is the tool's time so far
 *   (x1024 ns) and b5's bits 0 and 1 say whether it is told and whether
 *   a switch follows.
 *
 * An input whose length is 2 or 3 modulo 4 is replayed on the CPU, as
 * fjtrace-analyze reads a trace with off-CPU records: its offcpu and
 * offcpu_task_clock events collected first (fitted and sealed), their
 * boundaries replayed among the events, the model keeping the wall-clock
 * twins (fja_model_keep_wall). Odd lengths recycle task records. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "event.h"
#include "model.h"
#include "offcpu.h"
#include "reading.h"
#include "report.h"
#include "tracker.h"

#define MAX_EVENTS 4096

static uint64_t id_of(uint8_t b)
{
    uint64_t small = b & 31;
    if (b & 0x80) return UINT64_MAX - small;
    if (b & 0x40) return 1ull << ((b & 63) % 64);
    return small;
}

static const char *const names[] = {
    "",
    "lock",
    "\"><script>alert(1)</script>",
    "a name far longer than the sixty-four bytes the model keeps for one lock name",
    "tab\tnewline\nquote\"backslash\\",
    "\xff\xfe invalid utf-8 \xc3",
    NULL,
};

/* Event i of the input (8 bytes at b), its time ts after the delta. */
static fja_event decode(const uint8_t *b, uint64_t *ts)
{
    fja_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (fja_kind)(b[0] % FJA_EV_COUNT);
    int w = b[1] & 7;
    ev.worker = w < 6                   ? w
                : w == 6                ? -1
                : (b[4] & 0xc0) == 0xc0 ? 32767 + (b[4] & 1)
                                        : 63 + (b[4] & 1);
    ev.pool = (b[1] >> 3) & 3;
    if ((b[1] >> 6) == 3) ev.pool = UINT32_MAX - ev.pool;
    ev.source = (b[1] >> 5) & 1;
    ev.task = id_of(b[2]);
    fja_event_set_arg(&ev, id_of(b[3]));
    ev.size_hint = b[4] >= 0xf0 ? UINT64_MAX - (b[4] & 15) : b[4];
    ev.name = names[b[5] % (sizeof names / sizeof names[0])];
    ev.procname = ev.name; /* read on pool_begin only */
    ev.pid = (int8_t)b[3];
    int16_t d = (int16_t)(b[6] | (uint16_t)b[7] << 8);
    if (d == INT16_MIN)
        *ts = UINT64_MAX - 1000;
    else
        *ts += (uint64_t)(int64_t)d * 64; /* wraps; backwards when d < 0 */
    ev.ts = *ts;
    if (ev.kind == FJA_EV_OFFCPU) {
        ev.begin = ev.ts - (uint64_t)b[4] * 256; /* wraps near 0: hostile too */
        ev.end = ev.ts - (uint64_t)b[5] * 128;
    } else if (ev.kind == FJA_EV_OFFCPU_TASK_CLOCK) {
        ev.tool = (uint64_t)b[4] * 1024;
        ev.tool_told = b[5] & 1;
        ev.switch_follows = b[5] & 2;
    }
    return ev;
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fja_model m;
    fja_model_init(&m);
    fja_tracker t; /* one per replay: it keeps the replay's state */
    fja_tracker_init(&t, &m);
    /* inputs of odd length give finished tasks' records back (recycle.h) */
    if (size & 1) fja_model_recycle(&m);
    bool oncpu = size & 2;
    if (oncpu) fja_model_keep_wall(&m);
    size_t n = size / 8;
    if (n > MAX_EVENTS) n = MAX_EVENTS;
    fja_offcpu ahead;
    fja_offcpu_init(&ahead);
    uint64_t ts = 1000;
    for (size_t i = 0; oncpu && i < n; i++) { /* the reading ahead */
        fja_event ev = decode(data + i * 8, &ts);
        fja_offcpu_collect(&ahead, &ev);
    }
    fja_offcpu_seal(&ahead);
    /* the events through the reading policy's replay (reading.h) */
    fja_reading rd = {.tracker = &t, .offcpu = &ahead};
    ts = 1000;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = data + i * 8;
        fja_event ev = decode(b, &ts);
        fja_reading_event_replayed(&rd, &ev); /* no interval unless oncpu */
        if (b[0] == 0xff) fja_model_discarded(&m, id_of(b[3]), ts, ev.source);
        if (b[0] == 0xfe) fja_model_decode_stopped(&m, ev.name);
    }
    fja_offcpu_replay(&ahead, UINT64_MAX, fja_reading_feed, &t);
    fja_offcpu_free(&ahead);
    fja_tracker_finish(&t);
    fja_tracker_free(&t);

    static const char *const paths[] = {"fuzz\"><script>"};
    fja_run_info info = {.paths = paths, .npaths = 1, .version = "fuzz", .wall_s = 0.5};
    fja_filter filters[2];
    memset(filters, 0, sizeof filters);
    /* the second pass narrows, from the input's last bytes */
    if (size >= 3) {
        filters[1].pool_set = data[size - 1] & 1;
        filters[1].pool = data[size - 1] >> 4;
        filters[1].root_set = data[size - 1] & 2;
        filters[1].root = id_of(data[size - 2]);
        filters[1].window_set = data[size - 1] & 4;
        filters[1].window_from = (uint64_t)data[size - 3] * 1000;
        filters[1].window_to = filters[1].window_from + (uint64_t)data[size - 2] * 100000;
    }
    FILE *out = devnull();
    int passes = size >= 3 ? 2 : 1;
    for (int k = 0; k < passes; k++) {
        fja_report r;
        if (fja_analysis_run(&m, &filters[k], &r) == 0 && out) {
            fja_report_text(out, &r, &info);
            fja_report_json(out, &r, &info);
            /* the last pass's report takes the task records (the model
             * keeps none after it) */
            if (k == passes - 1 && fja_report_take_tasks(&r, &m) == 0)
                fja_report_tasks_csv(out, &r);
        }
        fja_analysis_free(&r);
    }
    fja_model_free(&m);
    return 0;
}
