/* How much each stream has to decode, to deal the streams to the decoding
 * threads (pread.h) evenly: the size of its file, found through the LTTng
 * index, which names each file's stream class and instance (as the ports
 * of source.ctf.fs do: "TRACE | CLASS | INSTANCE"). */
#ifndef FJA_WEIGHTS_H
#define FJA_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

/* Fills weight[i] for the stream of port name[i] in folder dirs[source[i]]:
 * its file's bytes, or 0 when not known (no index, another naming). */
void stream_weights(char *const *dirs, char *const *name, const size_t *source, uint32_t n,
                    uint64_t *weight);

#endif
