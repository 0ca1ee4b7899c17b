/* Salvaging a trace whose recording was cut short. LTTng writes each stream
 * file as a sequence of packets (one sub-buffer's content each) and lists
 * them in index/STREAM.idx; a disk that filled up or a consumer that died
 * leaves the last packet cut, and babeltrace2 2.0's source.ctf.fs then
 * refuses the whole trace when it indexes the packets. A salvage copy keeps
 * the whole packets: a temporary folder with the metadata and each stream
 * file cut after the last packet of its index that is all there (files
 * already whole are symbolic links; the index folder is left out, so that
 * babeltrace2 indexes the copies itself). The original is never modified.
 * A stream without an index file cannot be salvaged. */
#ifndef FJA_SALVAGE_H
#define FJA_SALVAGE_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

typedef struct {
    fja_tmptrace t;   /* the copy: t.dir, a trace folder holding `metadata` */
    uint64_t dropped; /* bytes left out, over all stream files */
} fja_salvage;

enum {
    SALVAGE_HEADERS = 1,  /* also cut each stream before its first damaged packet */
    SALVAGE_NO_INDEX = 2, /* the index is wrong: cut by the packet headers only */
    SALVAGE_ALWAYS = 4,   /* make the copy (without the index) even if nothing is cut */
};

/* Makes the salvage copy of trace folder `dir` (how: SALVAGE_* flags).
 * Returns 1 when some stream file was cut or SALVAGE_ALWAYS (the copy is
 * made), 0 when every indexed packet is whole (no copy: nothing to
 * salvage), -1 on error. */
int salvage_make(const char *dir, fja_salvage *s, unsigned how);
/* Bytes of the stream files of trace folder dir that cannot be read: what
 * its index lists beyond the end of a file, and the cut packet at its end.
 * first gets the name of the first such file. 0 for a whole trace (or one
 * without an index). */
uint64_t salvage_missing(const char *dir, char *first, size_t n);
/* Removes the copy. */
void salvage_remove(fja_salvage *s);

#endif
