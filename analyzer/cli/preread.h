/* The off-CPU intervals of a trace, read ahead from their own channel.
 *
 * The runtime reports each interval late, after the events it overlaps,
 * while the on-CPU model needs them in time order among the events
 * (core/offcpu.h). fjtrace-record puts the fjtrace:offcpu* events in a
 * channel of their own (fjtrace_offcpu): a few small stream files. Reading
 * only those first gives every interval, so one reading of the big streams
 * then feeds both models, the wall-clock one and the on-CPU one, instead of
 * a second reading of the whole trace. */
#ifndef FJA_CLI_PREREAD_H
#define FJA_CLI_PREREAD_H

#include "offcpu.h"
#include "reader.h"

/* Collects into pre the intervals of trace's (one CTF trace folder)
 * fjtrace_offcpu channel, read with like's reading options. Returns 0, or
 * -1 when the trace has no such channel or it could not be read whole
 * (the caller then reads the trace twice, as for traces recorded in one
 * channel). */
int fja_offcpu_preread(const char *trace, const fja_reader_sink *like, fja_offcpu *pre);

#endif
