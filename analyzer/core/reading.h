/* The reading policy: how the events of one reading of a trace reach the
 * replay (tracker.h) and the off-CPU intervals (offcpu.h), so the command
 * line and the live view feed the core the same way. A reading feeds one
 * tracker (its model gives the wall-clock figures), collects the off-CPU
 * intervals that tracker believed, and, when the intervals were read ahead
 * from their own channel, replays them in time order into a second
 * tracker (the on-CPU model) within the same reading. Read ahead, the
 * on-CPU model also keeps the wall-clock twins (fja_model_keep_wall) and
 * its tracker is fed alone, the pictures listening to it: one replay. Both
 * are fed in the reading that makes the models again from the intervals
 * the first one believed, when those were not the ones read ahead.
 * Readings themselves (babeltrace2) are the reader's: the functions here
 * are its sink's callbacks, with a fja_reading as their ctx. */
#ifndef FJA_READING_H
#define FJA_READING_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "model.h"
#include "offcpu.h"
#include "tracker.h"

typedef struct {
    fja_tracker *tracker; /* the replay of the trace's events */
    fja_offcpu *offcpu;   /* the intervals believed, collected; NULL: not collected */
    fja_tracker *oncpu;   /* NULL: no intervals read ahead */
    fja_offcpu *ahead;    /* the intervals read ahead, replayed into oncpu */
    bool oncpu_failed;    /* the on-CPU tracker ran out of memory */
    bool alone;           /* oncpu is fed alone: its twins stand for tracker's model */
    /* The trace folders whose intervals were read ahead (an interval's
     * source is its folder's index there) and, for each, the number the
     * reading gave its trace plus one (0: not seen yet) */
    char *const *folders;
    size_t nfolders;
    uint32_t *folder_source;
} fja_reading;

/* Feeds ev to the tracker ctx (an fja_offcpu_replay feed): 0, or 1 when
 * memory ran out. */
int fja_reading_feed(void *tracker, const fja_event *ev);
/* The sink's callbacks of a reading (ctx: its fja_reading). An event goes
 * to the on-CPU tracker after the intervals read ahead that precede it,
 * and to the tracker unless the on-CPU one is fed alone; an off-CPU
 * interval, or a reading of the task clocks, is collected when the
 * tracker that judges it (the on-CPU one when alone) believed it: an
 * interval it refused is an anomaly (invalid_event), never time off the
 * CPU. Returns 0, or 1 when the tracker ran out of memory. */
int fja_reading_event(void *ctx, const fja_event *ev);
/* A second reading for the on-CPU model: every interval collected by the
 * first (rd->offcpu, sealed) is replayed into rd->tracker before the
 * events it precedes. */
int fja_reading_event_replayed(void *ctx, const fja_event *ev);
void fja_reading_discarded(void *ctx, uint64_t count, uint64_t ts, uint32_t source);
void fja_reading_offcpu_lost(void *ctx, uint64_t count, uint64_t begin_ts, uint64_t end_ts,
                             uint32_t source, const char *stream);
void fja_reading_invalid(void *ctx, const fja_event *ev, const char *why);
/* The reading numbered the trace of folder `source` (the sink's
 * trace_seen): the intervals read ahead from that folder are replayed
 * under that number from then on; those before it are left out, as the
 * tracker leaves out a boundary of a worker it does not know yet (a
 * worker's pool begins in its own trace). With one folder, a trace whose
 * folder is not told (--muxer) is that one. */
void fja_reading_trace_seen(void *ctx, uint32_t source, const char *folder);

/* Before the reading: the intervals read ahead (not empty) from the
 * nfolders trace folders (fja_offcpu_preread's order) are replayed into t
 * (initialised, replaying into the on-CPU model) in the same reading; t
 * is fed alone, its model keeping the wall-clock twins (rd->tracker's
 * model gets only the reading's notices). Returns -1 when out of memory
 * (nothing changed). */
int fja_reading_ahead(fja_reading *rd, fja_offcpu *ahead, fja_tracker *t, char *const *folders,
                      size_t nfolders);
/* Frees what fja_reading_ahead allocated. */
void fja_reading_free(fja_reading *rd);
/* A second reading of the trace, which the policy asks for when one
 * reading could not make the on-CPU model: the reader's (the command
 * line's), quiet or with its own progress line. */
typedef struct {
    /* Reads the whole trace again, each event to `event` (ctx rd), the
     * other sink callbacks fja_reading_*'s. 0, or -1 when the reading
     * could not be made (out of memory, the trace no longer readable). */
    int (*read)(void *ctx, fja_reading *rd, int (*event)(void *rd, const fja_event *ev));
    void *ctx;
    /* the pools of one recording only (fja_tracker_recording) */
    bool recording_set;
    uint64_t recording;
} fja_rereader;

/* How the reading policy ended. */
typedef struct {
    bool oncpu;        /* the on-CPU model was made: the report is its */
    unsigned readings; /* of the trace's events: 1, or 2 */
    bool oom;          /* a second reading of the wall-clock model ran out of memory */
} fja_reading_end;

/* After the reading: finishes the wall-clock model (rd->tracker's) and
 * makes the on-CPU one (oncpu): in the same reading when the intervals
 * read ahead are exactly those it met (fja_reading_one), else by a second
 * reading through again when there are intervals to replay: of the
 * on-CPU model alone (replaying those rd->offcpu collected), or, when the
 * one reading fed the on-CPU model alone, of both (the wall-clock model
 * having only the reading's notices). The on-CPU model keeps the
 * wall-clock twins in every case (fja_model_keep_wall): the report is
 * made from one model. */
fja_reading_end fja_reading_finish(fja_reading *rd, fja_model *oncpu, const fja_rereader *again);
/* What the reading told the wall-clock model of the trace itself
 * (decoding stopped, began mid-run) holds for the on-CPU one: its report
 * says so. */
void fja_reading_notes_copy(fja_model *oncpu, const fja_model *wall);

#endif
