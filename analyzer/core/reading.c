/* The reading policy (reading.h). */
#include "reading.h"

#include <stdlib.h>
#include <string.h>

int fja_reading_feed(void *tracker, const fja_event *ev)
{
    return fja_tracker_feed(tracker, ev) ? 1 : 0;
}

/* Feeds an interval read ahead (ctx: the fja_reading) to the on-CPU
 * tracker, under the number the reading gave its folder's trace. The
 * intervals collected by a first reading (wall_read's second reading)
 * carry that number already (no folders). */
static int feed_ahead(void *ctx, const fja_event *ev)
{
    fja_reading *rd = ctx;
    if (!rd->folder_source) return fja_reading_feed(rd->oncpu, ev);
    uint32_t known = ev->source < rd->nfolders ? rd->folder_source[ev->source] : 0;
    if (!known) return 0; /* its trace not begun: no worker of it is known */
    fja_event in = *ev;
    in.source = known - 1;
    return fja_reading_feed(rd->oncpu, &in);
}

void fja_reading_trace_seen(void *ctx, uint32_t source, const char *folder)
{
    fja_reading *rd = ctx;
    if (!rd->folder_source) return;
    if (!folder && rd->nfolders == 1) {
        rd->folder_source[0] = source + 1;
        return;
    }
    for (size_t k = 0; folder && k < rd->nfolders; k++)
        if (!strcmp(folder, rd->folders[k])) rd->folder_source[k] = source + 1;
}

/* The intervals read ahead were replayed before their record could be
 * judged; when some were refused, fja_reading_one sees fewer intervals
 * kept than read ahead and the on-CPU model is made again from the
 * believed ones only. */
int fja_reading_event(void *ctx, const fja_event *ev)
{
    fja_reading *rd = ctx;
    const fja_model *judge = rd->alone ? rd->oncpu->model : rd->tracker->model;
    /* An interval, or a reading of the task clocks the intervals are
     * fitted to (offcpu.h). (A refused event is counted in events, not in
     * its kind's count.) */
    bool kept = ev->kind == FJA_EV_OFFCPU || ev->kind == FJA_EV_OFFCPU_TASK_CLOCK;
    uint64_t believed = kept ? judge->by_kind[ev->kind] : 0;
    if (rd->oncpu && !rd->oncpu_failed &&
        (fja_offcpu_replay(rd->ahead, ev->ts, feed_ahead, rd) || fja_tracker_feed(rd->oncpu, ev)))
        rd->oncpu_failed = true;
    int rc = rd->alone ? 0 : fja_tracker_feed(rd->tracker, ev) ? 1 : 0;
    if (!rd->offcpu) return rc;
    if (rd->alone && rd->oncpu_failed)
        rd->offcpu->oom = 1; /* no tracker judges any more: wall-clock report only */
    else if (kept && judge->by_kind[ev->kind] > believed)
        fja_offcpu_collect(rd->offcpu, ev); /* no memory: wall-clock report only */
    return rc;
}

int fja_reading_event_replayed(void *ctx, const fja_event *ev)
{
    fja_reading *rd = ctx;
    return fja_offcpu_replay(rd->offcpu, ev->ts, fja_reading_feed, rd->tracker) ||
                   fja_tracker_feed(rd->tracker, ev)
               ? 1
               : 0;
}

void fja_reading_discarded(void *ctx, uint64_t count, uint64_t ts, uint32_t source)
{
    fja_reading *rd = ctx;
    fja_model_discarded(rd->tracker->model, count, ts, source);
    if (rd->oncpu) fja_model_discarded(rd->oncpu->model, count, ts, source);
}

void fja_reading_offcpu_lost(void *ctx, uint64_t count, uint64_t begin_ts, uint64_t end_ts,
                             uint32_t source, const char *stream)
{
    fja_reading *rd = ctx;
    (void)source; /* every pool's off-CPU figures: the streams are per CPU */
    fja_model_offcpu_lost(rd->tracker->model, count, begin_ts, end_ts, stream);
    if (rd->oncpu) fja_model_offcpu_lost(rd->oncpu->model, count, begin_ts, end_ts, stream);
}

void fja_reading_invalid(void *ctx, const fja_event *ev, const char *why)
{
    fja_reading *rd = ctx;
    fja_model_invalid(rd->tracker->model, ev, why);
    if (rd->oncpu) fja_model_invalid(rd->oncpu->model, ev, why);
}

int fja_reading_ahead(fja_reading *rd, fja_offcpu *ahead, fja_tracker *t, char *const *folders,
                      size_t nfolders)
{
    uint32_t *seen = calloc(nfolders ? nfolders : 1, sizeof *seen);
    if (!seen) return -1;
    fja_offcpu_seal(ahead);
    rd->alone = true;
    fja_model_keep_wall(t->model);
    t->model->oncpu = true;
    rd->oncpu = t;
    rd->ahead = ahead;
    rd->folders = folders;
    rd->nfolders = nfolders;
    rd->folder_source = seen;
    return 0;
}

void fja_reading_free(fja_reading *rd)
{
    free(rd->folder_source);
    rd->folder_source = NULL;
}

/* When the intervals read ahead were exactly those the reading believed
 * (none lost, no memory run out), replays the rest of them, finishes both
 * trackers, and returns true: both models are made. Else the on-CPU model
 * is emptied for another reading (false). Only with rd->oncpu. */
static bool one_reading(fja_reading *rd)
{
    const fja_model *wall = rd->tracker->model;
    const fja_offcpu *all = rd->offcpu;
    bool same = !rd->oncpu_failed && !all->oom && rd->ahead->intervals == all->intervals &&
                !wall->offcpu_lost_notices;
    if (same && !fja_offcpu_replay(rd->ahead, UINT64_MAX, feed_ahead, rd)) {
        fja_tracker_finish(rd->tracker);
        fja_tracker_finish(rd->oncpu);
        fja_reading_notes_copy(rd->oncpu->model, wall);
        return true;
    }
    fja_model_restart(rd->oncpu->model); /* not the same intervals: read again */
    return false;
}

/* Whether a second reading can make the on-CPU model of `wall`'s trace
 * from the intervals collected (all): there are some, all kept, and the
 * off-CPU streams were read whole. */
static bool can_replay(const fja_offcpu *all, const fja_model *wall)
{
    return all->intervals && !all->oom && !*wall->offcpu_unread && !wall->offcpu_lost_notices;
}

/* A tracker of a second reading, replaying into m as an on-CPU model
 * that keeps the wall-clock twins. */
static void oncpu_start(fja_tracker *t, fja_model *m, const fja_rereader *again)
{
    fja_tracker_init(t, m);
    if (again->recording_set) fja_tracker_recording(t, again->recording);
    m->oncpu = true;
    fja_model_keep_wall(m);
}

/* The second reading of the on-CPU model alone, the intervals collected
 * by the first (offcpu) replayed up to where it stopped. Returns 0, or -1
 * when it could not be made: the report then gives the wall-clock
 * figures only. */
static int oncpu_again(const fja_rereader *again, const fja_model *wall, fja_offcpu *offcpu,
                       fja_model *m)
{
    fja_tracker t;
    oncpu_start(&t, m, again);
    fja_offcpu_seal(offcpu);
    fja_reading rd = {.tracker = &t, .offcpu = offcpu};
    if (again->read(again->ctx, &rd, fja_reading_event_replayed) || fja_tracker_oom(&t)) {
        fja_tracker_free(&t);
        return -1;
    }
    fja_reading_notes_copy(m, wall);
    fja_offcpu_replay(offcpu, UINT64_MAX, fja_reading_feed, &t);
    fja_tracker_finish(&t);
    fja_tracker_free(&t);
    return 0;
}

/* The reading fed the on-CPU model alone, which could not be used: a
 * second reading makes the wall-clock model (so far the reading's notes
 * only, t's) and, with the intervals the first one met (all), the on-CPU
 * one (whether it could: end->oncpu). The discarded-events notices are
 * told again, in order: a tree still open then is lossy. */
static void both_again(const fja_rereader *again, fja_tracker *t, fja_offcpu *all, fja_model *oncpu,
                       fja_reading_end *end)
{
    fja_model *m = t->model;
    m->discarded_events = 0;
    m->discard_messages = 0;
    /* off-CPU records lost: no on-CPU figures (offcpu.state "lost") */
    bool lost = m->offcpu_lost_notices;
    m->offcpu_lost_notices = m->offcpu_lost_events = 0; /* told again */
    *m->offcpu_lost_streams = '\0';
    fja_reading rd = {.tracker = t};
    fja_tracker ot = {0};
    bool with = all->intervals && !all->oom && !lost;
    if (with) {
        fja_offcpu_seal(all);
        oncpu_start(&ot, oncpu, again);
        rd.oncpu = &ot;
        rd.ahead = all;
    }
    if (again->read(again->ctx, &rd, fja_reading_event) || fja_tracker_oom(t)) {
        end->oom = true;
        fja_tracker_free(&ot);
        return;
    }
    fja_tracker_finish(t);
    end->oncpu = with && !rd.oncpu_failed;
    if (end->oncpu) {
        fja_reading_notes_copy(oncpu, m);
        fja_offcpu_replay(all, UINT64_MAX, fja_reading_feed, &ot);
        fja_tracker_finish(&ot);
    }
    fja_tracker_free(&ot);
}

fja_reading_end fja_reading_finish(fja_reading *rd, fja_model *oncpu, const fja_rereader *again)
{
    fja_reading_end end = {.readings = 1};
    if (rd->oncpu) {
        end.oncpu = one_reading(rd);
        if (!end.oncpu) {
            end.readings = 2;
            both_again(again, rd->tracker, rd->offcpu, oncpu, &end);
        }
        return end;
    }
    fja_tracker_finish(rd->tracker);
    if (can_replay(rd->offcpu, rd->tracker->model)) {
        end.readings = 2;
        end.oncpu = !oncpu_again(again, rd->tracker->model, rd->offcpu, oncpu);
    }
    return end;
}

void fja_reading_notes_copy(fja_model *oncpu, const fja_model *wall)
{
    if (*wall->decode_error) fja_model_decode_stopped(oncpu, wall->decode_error);
    if (wall->window_clipped) fja_model_window(oncpu, wall->window_events);
}
