"""Events LTTng discarded while recording a trace, read from the trace
itself (not from the analyzer under test): each stream's packets carry a
running total of the stream's discarded events (LTTng-UST packet context,
events_discarded at byte 72, packet_size in bits at byte 56: damage.py), so
the last packet holds the stream's. A whole trace (0) must be analysed with
exit 0, one with losses with exit 1, even one recorded --blocking: a loaded
machine has made such a recording lose events (1633 of a fib(20) at load 18).
"""
import os
import struct

OFF_SIZE, OFF_DISCARDED = 56, 72
HEADER = 84  # the packet header and context, bytes


def discarded(trace):
    """The events LTTng discarded in TRACE (a folder holding metadata)."""
    total = 0
    for name in os.listdir(trace):
        path = os.path.join(trace, name)
        if name == "metadata" or not os.path.isfile(path):
            continue
        data = open(path, "rb").read()
        off, last = 0, None
        while off + HEADER <= len(data):
            last = off
            size = struct.unpack_from("<Q", data, off + OFF_SIZE)[0]
            if size < 8 * HEADER:
                break
            off += size // 8
        if last is not None:
            total += struct.unpack_from("<Q", data, last + OFF_DISCARDED)[0]
    return total


def exit_expected(trace):
    """The exit status of a trace not damaged: 0 when whole, 1 (incomplete)
    when LTTng discarded events."""
    return 1 if discarded(trace) else 0
