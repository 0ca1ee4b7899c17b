#!/usr/bin/env python3
"""A stream libbabeltrace2 ends early without saying so is damaged (issue 26
step 4; TAP).

libbabeltrace2 2.0.4 ends a stream where an event runs past its packet's
content (a build id's dynamic array length with bit 20 set: the library
makes the array, then runs out of bytes reading its elements) with no end
message and no error status, only an error left on the thread: the rest of
the stream silently unread. Records fj-fib N -p 2, sets that bit in the
first build-id length of a load-map stream and reads it (the analyzer puts
no guard of its own between the library and a length):

- exit 3, stderr naming the load-map stream file and packet and saying the
  library ended the stream inside it;
- every fjtrace event read (the load maps carry none), as undamaged;
- the undamaged trace, and a copy whose load-map packet has an unset
  content_size and no index (the decoding runs into the packet's padding
  and stops at its end, as it should), read with exit 0 and the same
  figures;
- the larger lengths each end that stream alone too (exit 3 naming the
  file and the packet, or the packet before it "or the next", every fjtrace
  event): 2^30 (glib's allocation beyond the decoding process's budget,
  SIGTRAP), 2^31 and 2^40 (a segmentation fault in the library), 2^64-1 (an
  error of the library). An ASan build runs with asan_env.py's
  options: the library's fault kills its decoding process as in the
  product.

    silent_end.py ANALYZE RECORD FIB   (a TAP skip when it cannot record here)
"""
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from asan_env import asan_options  # noqa: E402
from recording import analyze_json, figures, packet_offsets, record_fib  # noqa: E402

ANALYZE, RECORD, FIB = sys.argv[1:4]
N = 18
OFF_CONTENT = 48  # content_size (bits, u64) in LTTng-UST's packet context
U64 = (1 << 64) - 1


def analyze(trace):
    return analyze_json(ANALYZE, trace, env={"ASAN_OPTIONS": asan_options()})


def build_id_length(path):
    """(packet number from 1, byte offset) of the first build-id length of
    a load-map stream file, or None: a u64 of 1 to 64 right after a
    page-aligned base address (lttng_ust_statedump:build_id and
    lttng_ust_dl:build_id: baddr, _build_id_length, build_id[]), as
    damage.py finds them."""
    d = open(path, "rb").read()
    for k, o in enumerate(packet_offsets(path)):
        content = struct.unpack_from("<Q", d, o + OFF_CONTENT)[0] // 8
        for i in range(o + 92, min(o + content, len(d)) - 8):
            length, baddr = struct.unpack_from("<Q", d, i)[0], struct.unpack_from("<Q", d, i - 8)[0]
            if 1 <= length <= 64 and baddr % 4096 == 0 and 0x1000 <= baddr < 1 << 47:
                return k + 1, i
    return None


def main():
    work = tempfile.mkdtemp()
    try:
        session = os.path.join(work, "orig")
        trace = record_fib(RECORD, FIB, N, session)
        rel = os.path.relpath(trace, session)
        found = [(f, build_id_length(os.path.join(trace, f)))
                 for f in sorted(os.listdir(trace)) if f.startswith("fjtrace_maps")]
        found = [(f, at) for f, at in found if at]
        if not found:
            tap.plan_skip_all("no build id's length found in the load-map streams")
        name, (packet, at) = found[0]
        rc0, whole, err0 = analyze(session)
        tap.is_eq(rc0, 0, "the undamaged trace: exit 0", err0[-600:])

        damaged = os.path.join(work, "damaged")
        shutil.copytree(session, damaged)
        path = os.path.join(damaged, rel, name)
        old = struct.unpack_from("<Q", open(path, "rb").read(), at)[0]
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(struct.pack("<Q", old | 1 << 20))
        rc, r, err = analyze(damaged)
        tap.is_eq(rc, 3, f"a build id's length {old | 1 << 20:#x} ({name}+{at}): exit 3",
                  err[-800:])
        byte = packet_offsets(path)[packet - 1]
        tap.ok(re.search(rf"{name}: packet {packet} \(byte {byte}\) cannot be decoded: "
                         r"libbabeltrace2 ended the stream inside it", err),
               f"stderr names {name}, packet {packet} (byte {byte}), and says the library "
               "ended the stream inside it", err[-800:])
        tap.ok(figures(r) is not None and figures(r) == figures(whole),
               "every fjtrace event, as undamaged", f"{figures(r)} vs {figures(whole)}")

        unset = os.path.join(work, "unset")
        shutil.copytree(session, unset)
        path = os.path.join(unset, rel, name)
        with open(path, "r+b") as f:
            f.seek(packet_offsets(path)[packet - 1] + OFF_CONTENT)
            f.write(struct.pack("<Q", U64))
        shutil.rmtree(os.path.join(unset, rel, "index"))
        rcu, ru, erru = analyze(unset)
        tap.ok(rcu == 0 and figures(ru) == figures(whole),
               "a load-map packet with an unset content_size and no index (decoded into its "
               "padding, up to its end): exit 0, the same figures",
               f"exit {rcu}, {figures(ru)} vs {figures(whole)}", erru[-600:])

        for bits in (30, 31, 40, 64):
            what = f"a build id's length with bit {bits} set" if bits < 64 else \
                "a build id's length of 2^64-1"
            copy = os.path.join(work, f"len{bits}")
            shutil.copytree(session, copy)
            path = os.path.join(copy, rel, name)
            with open(path, "r+b") as f:
                f.seek(at)
                f.write(struct.pack("<Q", old | 1 << bits if bits < 64 else U64))
            rcb, rb, errb = analyze(copy)
            offs = packet_offsets(path)
            where = [f"{name}: packet {packet} (byte {offs[packet - 1]})"]
            if packet > 1:
                where.append(f"{name}: packet {packet - 1} (byte {offs[packet - 2]}) or the next")
            tap.ok(rcb == 3 and any(w in errb for w in where)
                   and figures(rb) is not None and figures(rb) == figures(whole),
                   f"{what}: that stream ends alone (exit 3 naming {name} and "
                   "its packet, every fjtrace event)",
                   f"exit {rcb}, {figures(rb)} vs {figures(whole)}", errb[-800:])
            shutil.rmtree(copy, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done_testing()


main()
