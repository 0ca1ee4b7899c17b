/* What the stream files of a trace claim, checked before libbabeltrace2
 * decodes them. libbabeltrace2 2.0.4 trusts the packet headers and LTTng's
 * index: a packet_size or content_size of 2^63 bits or more, a
 * timestamp_begin after timestamp_end, or a timestamp that overflows the
 * clock's nanoseconds from the origin make a BT_ASSERT (or a precondition
 * check) abort the whole process, and so does an index entry pointing past
 * the end of its stream file. So each stream file's packets are walked
 * from their headers (the LTTng-UST layout, when the metadata declares it)
 * and checked against each other and against the index; a trace with a
 * damaged packet is read from a salvage copy (salvage.h) where that header
 * is rebuilt from the index when the index knows it, else cut before it. */
#ifndef FJA_PACKETS_H
#define FJA_PACKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    /* The first damaged packet: a line for the user naming its file, its
     * number and offset and what is wrong; "" when none. */
    char note[600];
    bool damaged;       /* some packet header cannot be decoded safely */
    bool index_damaged; /* the LTTng index disagrees with the files */
    /* An index file that cannot be read (not a regular file): names it;
     * "" when the index merely disagrees. */
    char index_note[600];
    bool layout_known; /* the metadata declares LTTng-UST packets */
    uint64_t repaired; /* damaged headers the index can rebuild */
    char repair_note[600];
    uint64_t streams; /* stream files */
    uint64_t whole;   /* packets that can be decoded, over all files */
    uint64_t dropped; /* bytes of the damaged packets and after them */
    /* A last packet running past the end of its file (a recording cut
     * short): its bytes there, over the files that have no index file
     * (cut_unindexed) and over all (cut_all), and a line naming the first
     * such file. LTTng's index counts what is missing when it is there and
     * sound (salvage_missing); without it, the headers are all there is. */
    uint64_t cut_unindexed, cut_all;
    char cut_note[600];
    /* Bits of the largest packet that can be decoded (of the largest stream
     * file when the layout is not known): no field is longer. */
    uint64_t longest;
} fja_packets;

/* Checks the stream files of trace folder dir. Returns 0 (p filled), or -1
 * when the folder cannot be read. late (when not NULL) is called with the
 * class and instance ids of each stream whose first packet is not its
 * first (packet_seq_num above 0: its beginning was overwritten, as in a
 * snapshot of overwrite-mode buffers); p->layout_known says whether the
 * streams could be walked at all. */
int packets_check(const char *dir, fja_packets *p,
                  void (*late)(void *ctx, uint64_t cls, uint64_t inst), void *ctx);

#define PACKETS_HEADER 84 /* bytes of an LTTng-UST packet header and context */

/* A packet header rebuilt from the index, to write at off in a copy. */
typedef struct {
    uint64_t off;
    unsigned char header[PACKETS_HEADER];
} packets_fix;

/* How many bytes at the start of stream file dir/name are packets that
 * libbabeltrace2 can decode, once the headers in fix (*nfix of them, at
 * most maxfix) are written over theirs. The file's size when the layout
 * is not known. */
uint64_t packets_plan(const char *dir, const char *name, packets_fix *fix, size_t maxfix,
                      size_t *nfix);

/* The byte offset of packet number packet (1-based) in dir's stream file
 * name, walking the packet sizes (UINT64_MAX when the walk does not reach
 * it, or the layout is not known). */
uint64_t packets_offset(const char *dir, const char *name, uint64_t packet);

/* The stream file of dir whose packets carry stream class id cls and
 * stream instance id inst (the ids libbabeltrace2 names a stream by),
 * into name, and the byte offset of its packet number packet (1-based) in
 * it, walking the packet sizes (UINT64_MAX when the walk does not reach
 * it). Returns 0, or -1 when no stream file carries these ids. */
int packets_locate(const char *dir, uint64_t cls, uint64_t inst, uint64_t packet, char *name,
                   size_t n, uint64_t *offset);

/* The stream file of dir behind the port source.ctf.fs names port_name
 * ("TRACE | CLASS | INSTANCE", or "TRACE | CLASS | PATH" for a stream
 * without an instance id), into name, and the byte offset of its packet
 * number packet (1-based) in it (UINT64_MAX when the walk does not reach
 * it). Returns 0, or -1 when the file is not known (then *ids points at
 * the name's ids, or is NULL). */
int packets_of_port(const char *dir, const char *port_name, uint64_t packet, char *name, size_t n,
                    uint64_t *offset, const char **ids);

/* Whether the packet at byte offset off of dir's stream file name claims
 * content up to its very end (content_size equal to packet_size: a full
 * sub-buffer, or an unset content_size taken as the packet size, where
 * the decoding runs into the padding). */
bool packets_content_full(const char *dir, const char *name, uint64_t off);

#endif
