/* A guard on the lengths of dynamic arrays (CTF sequences) that
 * libbabeltrace2 decodes. Its ctf plugin trusts the length field it has
 * just read: bt_field_array_dynamic_set_length(field, n) makes n element
 * fields at once, before a single element is read. A flipped bit in the
 * length of a load map's build id (lttng_ust_statedump:build_id) asked for
 * 2^30 elements: 16 GB of pointers and a billion fields, minutes of work
 * until the kernel killed the analyzer (or babeltrace2) for memory.
 *
 * No array can hold more elements than fit in its packet: length times
 * the fewest bits an element takes is at most the packet's size. This
 * file defines bt_field_array_dynamic_set_length itself (the executables
 * export it, so the ctf plugin, loaded later, binds to it: meson.build);
 * it refuses a length no packet of the traces being read can hold, which
 * the plugin turns into a decode error, and passes every other call on to
 * libbabeltrace2's. The bound is per thread: each thread decoding traces
 * sets it for the traces it reads. */
#ifndef FJA_LENGTHGUARD_H
#define FJA_LENGTHGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* From now on, on this thread: refuse a dynamic array that takes more than
 * max_bits bits (the largest packet of the traces this thread decodes); 0
 * lifts the guard. Clears what was refused before. */
void lengthguard_begin(uint64_t max_bits);

/* Whether a length was refused on this thread since lengthguard_begin or
 * the last call; if so, what (a line for the user) in note. */
bool lengthguard_take(char *note, size_t n);

#endif
