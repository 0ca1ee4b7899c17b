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

#include <stddef.h>

#include "offcpu.h"
#include "reader.h"

#define FJA_PREREAD_PREFIX "fjtrace_offcpu_" /* the channel's stream files */

typedef enum {
    FJA_PREREAD_OK = 0, /* every interval of the channel is in pre */
    /* no such channel, out of memory, or a stream cut short: the caller
     * reads the trace twice, as for traces recorded in one channel */
    FJA_PREREAD_NONE,
    /* the channel's streams are damaged or libbabeltrace2 aborted or
     * failed on them (why names the file, and the packet when known): the
     * off-CPU time is unknown, and the main reading leaves them out */
    FJA_PREREAD_FAILED,
    /* one of the channel's stream files is no readable regular file (a
     * FIFO, a device, a folder; why names it): the off-CPU time is unknown,
     * and the main reading reads the trace as it is (it refuses that file
     * itself and reads the others' events, as babeltrace2 does) */
    FJA_PREREAD_LEFT_OUT,
} fja_preread_status;

/* Collects into pre the intervals of the fjtrace_offcpu channel of the n
 * CTF trace folders traces, each interval with its folder's index (in
 * traces) as source, read with like's reading options in one reading, in
 * a child process (an abort in the library leaves this process's library
 * usable). A folder without such streams adds none (NONE when no folder
 * has any). why (whylen bytes) gets the reason of a failure. */
fja_preread_status fja_offcpu_preread(char *const *traces, size_t n, const fja_reader_sink *like,
                                      fja_offcpu *pre, char *why, size_t whylen);

#endif
