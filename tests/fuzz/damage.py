#!/usr/bin/env python3
"""Damaged copies of a recorded LTTng trace, run through fjtrace-analyze
and, side by side, through babeltrace2 (TAP).

    damage.py ANALYZE SESSION WORKDIR [--campaign N] [--seed S] [--keep] [--only K]

SESSION is an fjtrace-record output folder (one trace: ust/uid/U/64-bit).
Without --campaign: the targeted mutation kinds of issue 18, each a few
times (huge packet_size/content_size fields, extreme timestamps, an LTTng
index pointing past the end of its stream file, symbolic-link loops and
duplicates, metadata cut only in its trailing padding, every stream cut or
empty), about 60 inputs. With --campaign N: N inputs drawn at random (seed
S) from those kinds and from bit flips, truncations, swapped, duplicated and
dropped packets, foreign bytes and index damage, stacked 1 to 3 at a time.

A damaged header the index knows is rebuilt from it (the whole trace is
read); without an index, the analyzer exits 3 naming the file and packet,
with the report of what it could read. The last resort (a library abort
in a decoding process, pread.h) is
checked too: each input that makes babeltrace2 abort is run again with the
packet check off (FJTRACE_ANALYZE_NO_PACKET_CHECK=1) and must still end in
exit 3 naming the trace.

Every input must end with a documented exit code (0, 1, 3 or 4, never a
signal, a 60 s timeout or 5), exit 3 with a message naming a file, no
sanitizer report, valid JSON, and the analyzer must never be less robust
than babeltrace2: when `babeltrace2 TRACE` exits 0, fjtrace-analyze reads
the trace (exit 0 or 1) and counts the same fjtrace events.
The last lines give the counts: inputs, exit codes of both, and
"fjtrace worse than babeltrace2: N". Each input that exits 0 with figures
other than the undamaged trace's is named ("# exit 0 with other figures"),
as a changed payload value (babeltrace2 reads the same events, at the same
times, but for some field values: caught only when the value contradicts
the trace, never when it is plausible) or as other damage (which should
have been caught), with the events babeltrace2 reads differently.
"""
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import stat
import struct
import subprocess
import sys

from asan_env import asan_options
from discarded import discarded

ANALYZE, SESSION, WORK = sys.argv[1:4]
ARGS = sys.argv[4:]
CAMPAIGN = int(ARGS[ARGS.index("--campaign") + 1]) if "--campaign" in ARGS else 0
SEED = int(ARGS[ARGS.index("--seed") + 1]) if "--seed" in ARGS else 1
KEEP = "--keep" in ARGS
# --only K: make the inputs up to K as the campaign does (same seed, same
# draws) but judge, and keep, input K only: to look again at one failure.
ONLY = int(ARGS[ARGS.index("--only") + 1]) if "--only" in ARGS else None
TIMEOUT = 60
U64 = (1 << 64) - 1

PKT_MAGIC = 0xC1FC1FC1
# LTTng-UST 2.x stream packet: header {magic, uuid[16], stream_id,
# stream_instance_id} then context {timestamp_begin, timestamp_end,
# content_size, packet_size, packet_seq_num, events_discarded, cpu_id},
# little-endian on this machine (checked against the trace's metadata).
OFF = {"ts_begin": 32, "ts_end": 40, "content": 48, "size": 56, "seq": 64, "discarded": 72}


def trace_dir(session):
    for root, _, files in os.walk(session):
        if "metadata" in files:
            return root
    raise SystemExit(f"Bail out! no trace in {session}")


TRACE = trace_dir(SESSION)
REL = os.path.relpath(TRACE, SESSION)
STREAMS = sorted(f for f in os.listdir(TRACE) if f not in ("metadata", "index"))


def packets(path):
    """[(offset, packet bytes, content bits)] of a stream file, from its headers."""
    data = open(path, "rb").read()
    out, off = [], 0
    while off + 84 <= len(data):
        magic = struct.unpack_from("<I", data, off)[0]
        content, size = struct.unpack_from("<QQ", data, off + OFF["content"])
        if magic != PKT_MAGIC or size < 8 * 84 or size % 8 or off + size // 8 > len(data):
            break
        out.append((off, size // 8, content))
        off += size // 8
    return out


# Events LTTng discarded while recording: the undamaged trace is whole
# (exit 0) unless this is not 0 (discarded.py).
ORIGINAL_DISCARDED = discarded(TRACE)


def patch(path, off, fmt, *vals):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack(fmt, *vals))


# --------------------------------------------------------------- mutations
# Each takes (trace folder of the copy, rng) and returns a short label; it
# may return extra command-line paths with "+" (duplicates).

def m_packet_field(field, values):
    def m(t, rng):
        s = rng.choice(STREAMS)
        pk = packets(os.path.join(t, s))
        k = rng.randrange(len(pk))
        v = rng.choice(values)
        patch(os.path.join(t, s), pk[k][0] + OFF[field], "<Q", v)
        return f"{field}={v:#x}@{s}#{k}"
    return m


def m_ts_swap(t, rng):
    s = rng.choice(STREAMS)
    pk = packets(os.path.join(t, s))
    k = rng.randrange(len(pk))
    patch(os.path.join(t, s), pk[k][0] + OFF["ts_begin"], "<QQ", U64 - 5, 3)
    return f"ts_begin>ts_end@{s}#{k}"


def index_entries(t, s):
    p = os.path.join(t, "index", s + ".idx")
    d = open(p, "rb").read()
    length = struct.unpack(">I", d[12:16])[0]
    return p, length, (len(d) - 16) // length


def m_index(t, rng):
    s = rng.choice(STREAMS)
    p, length, n = index_entries(t, s)
    size = os.path.getsize(os.path.join(t, s))
    k = rng.randrange(n)
    how = rng.choice(["offset", "size", "append", "offset-huge"])
    if how == "offset":
        patch(p, 16 + k * length, ">Q", size + rng.choice([0, 8, 4096, 1 << 20]))
    elif how == "offset-huge":
        patch(p, 16 + k * length, ">Q", rng.choice([1 << 63, U64, U64 - 4095]))
    elif how == "size":
        patch(p, 16 + k * length + 8, ">QQ", *rng.choice([(1 << 63, 1 << 63), (U64, 8), (1 << 40, 1 << 40)]))
    else:
        last = open(p, "rb").read()[16 + (n - 1) * length:16 + n * length]
        entry = struct.pack(">Q", size + 65536) + last[8:]
        with open(p, "ab") as f:
            f.write(entry)
        k = n
    return f"index-{how}@{s}#{k}"


def m_metadata_padding(t, rng):
    p = os.path.join(t, "metadata")
    d = open(p, "rb").read()
    off, last = 0, None
    while off + 37 <= len(d) and struct.unpack_from("<I", d, off)[0] == 0x75D11D57:
        content, size = struct.unpack_from("<II", d, off + 24)
        last = (off, (content + 7) // 8, size // 8)
        off += size // 8
    if not last or last[1] >= last[2]:
        return "metadata-padding(none)"
    keep = rng.choice([last[0] + last[1], last[0] + last[2] - 1,
                       rng.randrange(last[0] + last[1], last[0] + last[2])])
    os.truncate(p, keep)
    return f"metadata-cut-in-padding@{keep}"


def m_streams_cut(t, rng):
    how = rng.choice(["empty", "header", "mid-first", "deleted"])
    for s in STREAMS:
        p = os.path.join(t, s)
        if how == "empty":
            os.truncate(p, 0)
        elif how == "header":
            os.truncate(p, rng.randrange(1, 84))
        elif how == "mid-first":
            os.truncate(p, packets(p)[0][1] // 2)
        else:
            os.unlink(p)
    return f"all-streams-{how}"


def m_symlinks(t, rng):
    session = t[:-len(REL)].rstrip("/")
    how = rng.choice(["self", "three", "parent", "twice", "through-link"])
    if how == "self":
        os.symlink(".", os.path.join(session, "self"))
    elif how == "three":
        for n in "abc":
            os.symlink(".", os.path.join(session, n))
    elif how == "parent":
        os.symlink("..", os.path.join(t, "up"))
    elif how == "twice":
        return "symlink-twice", [session, session]
    else:
        link = session + "-link"
        os.symlink(t, link)
        return "symlink-through-link", [session, link, os.path.join(t, "metadata")]
    return f"symlink-{how}"


def m_flip(t, rng):
    s = rng.choice(STREAMS + ["metadata"])
    p = os.path.join(t, s)
    d = bytearray(open(p, "rb").read())
    if not d:
        return f"flip@{s}(empty)"
    n = rng.choice([1, 2, 8, 64])
    headers = rng.random() < 0.5 and s != "metadata"
    pk = packets(p) if headers else []
    for _ in range(n):
        i = (rng.choice(pk)[0] + rng.randrange(84)) if pk else rng.randrange(len(d))
        d[i] ^= 1 << rng.randrange(8)
    open(p, "wb").write(d)
    return f"flip{n}{'-headers' if pk else ''}@{s}"


def m_truncate(t, rng):
    s = rng.choice(STREAMS + ["metadata"])
    p = os.path.join(t, s)
    size = os.path.getsize(p)
    os.truncate(p, rng.randrange(size + 1) if size else 0)
    return f"trunc@{s}"


def m_packets(t, rng):
    s = rng.choice(STREAMS)
    p = os.path.join(t, s)
    d = open(p, "rb").read()
    pk = packets(p)
    if len(pk) < 2:
        return f"packets@{s}(too few)"
    blobs = [d[o:o + n] for o, n, _ in pk]
    how = rng.choice(["swap", "dup", "drop"])
    i, j = rng.sample(range(len(blobs)), 2)
    if how == "swap":
        blobs[i], blobs[j] = blobs[j], blobs[i]
    elif how == "dup":
        blobs.insert(j, blobs[i])
    else:
        del blobs[i]
    open(p, "wb").write(b"".join(blobs))
    return f"packets-{how}@{s}"


def m_foreign(t, rng):
    s = rng.choice(STREAMS)
    p = os.path.join(t, s)
    with open(p, "ab" if rng.random() < 0.5 else "r+b") as f:
        f.write(rng.randbytes(rng.choice([1, 84, 4096])))
    return f"foreign-bytes@{s}"


def build_id_lengths(path):
    """Offsets of the build-id lengths in a load-map stream file: the
    dynamic array's length (u64, 1 to 64) right after the object's
    page-aligned base address (lttng_ust_statedump:build_id and
    lttng_ust_dl:build_id: baddr, _build_id_length, build_id[]; fields
    byte-aligned)."""
    d = open(path, "rb").read()
    out = []
    for o, n, content in packets(path):
        for i in range(o + 92, o + min(content // 8, n) - 8):
            length, baddr = struct.unpack_from("<QQ", d, i)[0], struct.unpack_from("<Q", d, i - 8)[0]
            if 1 <= length <= 64 and baddr % 4096 == 0 and 0x1000 <= baddr < 1 << 47:
                out.append(i)
    return out


def m_array_length(t, rng):
    """A huge length in a build id's dynamic array: libbabeltrace2 makes
    that many element fields before reading one (2^30: 16 GB of pointers,
    minutes of work or the kernel's OOM killer)."""
    found = [(s, i) for s in STREAMS if s.startswith("fjtrace_maps")
             for i in build_id_lengths(os.path.join(t, s))]
    s, i = rng.choice(found)  # IndexError when there is none: "nothing to damage"
    p = os.path.join(t, s)
    old = struct.unpack_from("<Q", open(p, "rb").read(), i)[0]
    v = old | rng.choice([1 << 20, 1 << 30, 1 << 31, 1 << 40, U64])
    patch(p, i, "<Q", v)
    return f"array-length={v:#x}@{s}+{i}"


def m_maps_content_unset(t, rng):
    """content_size all ones ("not set": the whole packet) in a load-map
    packet holding events: the ctf plugin decodes the padding as events,
    stops at the packet's end and leaves an error on the thread though it
    succeeds (a later call of the library in that thread aborted)."""
    full = [(s, k) for s in STREAMS if s.startswith("fjtrace_maps")
            for k, (o, n, content) in enumerate(packets(os.path.join(t, s))) if content > 8 * 84]
    s, k = rng.choice(full)
    patch(os.path.join(t, s), packets(os.path.join(t, s))[k][0] + OFF["content"], "<Q", U64)
    return f"content=0xffffffffffffffff@{s}#{k}"


def m_stale_index(t, rng):
    """A packet dropped from a stream (its index now describes, at each
    later offset, the packet before), then an impossible events_discarded
    in a later packet: the index must not rebuild that header (its
    content_size belongs to another packet)."""
    s = max(STREAMS, key=lambda x: len(packets(os.path.join(t, x))))
    p = os.path.join(t, s)
    d, pk = open(p, "rb").read(), packets(p)
    i = rng.randrange(len(pk) - 2)
    blobs = [d[o:o + n] for o, n, _ in pk]
    del blobs[i]
    open(p, "wb").write(b"".join(blobs))
    j = rng.randrange(i + 1, len(blobs))
    patch(p, sum(map(len, blobs[:j])) + OFF["discarded"], "<Q", 1 << 63)
    return f"packet-drop#{i}+discarded=0x8000000000000000@{s}#{j}"


def m_size_flip(t, rng):
    """One flipped bit in a packet_size that still fits the file (512 bytes
    more or less): the header looks sound but leads to no packet; the
    index, which gives another size, is right."""
    s = max(STREAMS, key=lambda x: len(packets(os.path.join(t, x))))
    pk = packets(os.path.join(t, s))
    k = rng.randrange(len(pk) - 2)
    patch(os.path.join(t, s), pk[k][0] + OFF["size"], "<Q", (pk[k][1] * 8) ^ (1 << 12))
    return f"size-bit12@{s}#{k}"


def m_trailing_discarded_zero(t, rng):
    """LTTng 2.13's own quirk, not damage: events were lost (a running
    events_discarded count in every packet, stream and index alike), and
    the stream's trailing packet says 0 in both (lttng-tools later fixed
    "the trailing packet ... contains the appropriate events discarded").
    babeltrace2 reads every event (and counts 2^64 - K lost); fjtrace must
    read every event too, taking the 0 as unchanged."""
    s = max(STREAMS, key=lambda x: len(packets(os.path.join(t, x))))
    pk = packets(os.path.join(t, s))
    ip, length, n = index_entries(t, s)
    for k, (o, _, _) in enumerate(pk):
        total = 0 if k == len(pk) - 1 else 10 * k
        patch(os.path.join(t, s), o + OFF["discarded"], "<Q", total)
        if k < n:
            patch(ip, 16 + k * length + 40, ">Q", total)
    return f"discarded-running+trailing-0@{s}#{len(pk) - 1}"


# ------------------------------------------------- issue 24's kinds

def task_streams():
    return [s for s in STREAMS if s.startswith("fjtrace_") and s[8:].isdigit()]


def offcpu_streams():
    return [s for s in STREAMS if s.startswith("fjtrace_offcpu_")]


def packet_with_events(t, rng, streams_of):
    """A stream of streams_of() (any, if none) and one of its packets with
    an event in it, drawn at random: (name, path, index among those packets,
    (offset, bytes, content bits)), the packet None when it has none."""
    s = rng.choice(streams_of() or STREAMS)
    p = os.path.join(t, s)
    pk = [x for x in packets(p) if x[2] // 8 > 84 + 8]
    if not pk:
        return s, p, None, None
    k = rng.randrange(len(pk))
    return s, p, k, pk[k]


def m_event_bytes(streams_of):
    """Two changed bytes somewhere in the events of a packet (an event
    header's timestamp or id, or a payload): what babeltrace2 decodes
    cleanly but wrong. Such an event (and what follows it in its packet)
    may be believed only if it keeps inside its packet's bounds."""
    def m(t, rng):
        s, p, k, pkt = packet_with_events(t, rng, streams_of)
        if not pkt:
            return f"event-bytes@{s}(no events)"
        off, _, content = pkt
        i = off + 84 + rng.randrange(content // 8 - 84 - 1)
        d = bytearray(open(p, "rb").read())
        d[i] = rng.randrange(256)
        d[i + 1] = rng.randrange(256)
        open(p, "wb").write(d)
        return f"event-bytes@{s}#{k}+{i - off}"
    return m


def m_event_time_wrap(t, rng):
    """The first event of a task packet given a time 2^32 clock cycles past
    its packet's end: its compact (32-bit) timestamp set one below the
    packet's beginning, so the decoder takes it for a wrap (the campaign's
    two bytes of an event header that gave exit 0 with a duration of 4.98 s
    instead of 684 ms, issue 24 item 4). babeltrace2 reads it cleanly; it
    must be an invalid event (outside its packet), exit 1, never figures."""
    s, p, k, pkt = packet_with_events(t, rng, task_streams)
    if not pkt:
        return f"event-time-wrap@{s}(no events)"
    off = pkt[0]
    d = open(p, "rb").read()
    begin, end = struct.unpack_from("<QQ", d, off + OFF["ts_begin"])
    if struct.unpack_from("<H", d, off + 84)[0] == 0xFFFF:  # extended: id, 64-bit time
        patch(p, off + 84 + 2 + 4, "<Q", end + (1 << 32))
    else:  # compact: the low 32 bits of the time
        patch(p, off + 84 + 2, "<I", (begin - 1) & 0xFFFFFFFF)
    return f"event-time-wrap@{s}#{k}"


BT_EVENT_RE = re.compile(rb"^\[(\d+)\] .* fjtrace:(\w+): \{[^}]*\}, \{ pool = (\d+), "
                         rb"worker = (\d+)(.*)\}$")
BT_INTERVAL_RE = re.compile(rb", begin = (\d+), end = (\d+), kind = (\d+) $")


def worker_times(t):
    """What babeltrace2 reads of each worker of the trace (raw clock
    values, ns): {(pool, worker): (task-event times, off-CPU stream record
    times, off-CPU intervals (begin, end, kind))}."""
    rc, out, _ = run(["babeltrace2", "--clock-cycles", t])
    workers = {}
    for m in map(BT_EVENT_RE.match, out.splitlines() if rc != "timeout" else []):
        if not m:
            continue
        tasks, records, intervals = workers.setdefault((int(m[3]), int(m[4])), ([], [], []))
        if not m[2].startswith(b"offcpu"):
            tasks.append(int(m[1]))
            continue
        records.append(int(m[1]))
        i = BT_INTERVAL_RE.search(m[5]) if m[2] == b"offcpu" else None
        if i:
            intervals.append(tuple(int(x) for x in i.groups()))
    return workers


def m_offcpu_cut(t, rng):
    """An off-CPU interval of a worker ending 200 us or more after the
    worker's previous task event (a blocked one of 1 ms or more, or a
    preemption), with its begin moved
    earlier, to before the worker's previous task event but after anything
    else of that worker (its previous interval's end, its off-CPU records):
    babeltrace2 reads it cleanly, and it claims the worker off the CPU at
    an event it emitted. A thread emits events only on the CPU: the event
    cuts the stay there, far before its recorded end, which must be an
    invalid event (exit 1), not a silent loss of the rest of the stay
    (fuzz24's campaign input 348: a begin moved 13.8 us earlier cut a
    100 ms stay, exit 0; tracker.c's check_cut, ab46d64). The recording of
    damage-test.sh (--blocking, 128 KiB of buffer per CPU) holds such
    intervals: LTTng-UST's writer sleeps 100 ms when its buffer is full,
    and the other worker parks meanwhile."""
    found = []
    for (pool, worker), (tasks, records, intervals) in worker_times(t).items():
        intervals.sort()
        for i, (begin, end, kind) in enumerate(intervals):
            before = [x for x in tasks if x < begin]
            # its recorded end far past the event it will hold (the check
            # passes a cut within 50 us of the end): any kind, as a quiet
            # machine's recording may hold no long blocked stay
            # (not the worker's first event: a begin before it is outside
            # the worker's life, refused by another check)
            if len(before) < 2 or end - max(before) < 200000:
                continue
            cut = max(before)  # the event the moved begin will hold
            # anything else of the worker before it: no new overlap
            lo = max([x for x in before + records if x < cut]
                     + [e for _, e, _ in intervals[:i]], default=0)
            if lo < cut - 1 and not any(cut <= e for _, e, _ in intervals[:i]):
                found.append((pool, worker, begin, end, cut - max(1, min(1000, (cut - lo) // 2))))
    pool, worker, begin, end, new = rng.choice(found)  # IndexError: "nothing to damage"
    old = struct.pack("<QQ", begin, end)
    (s,) = [s for s in offcpu_streams() if old in open(os.path.join(t, s), "rb").read()]
    p = os.path.join(t, s)
    d = open(p, "rb").read()
    if d.count(old) != 1:
        raise ValueError("the interval's bytes are not unique")
    patch(p, d.index(old), "<Q", new)
    return f"offcpu-cut:pool{pool}-worker{worker}-begin-{(begin - new) / 1e3:.1f}us@{s}"


def m_discarded_counter(t, rng):
    """events_discarded as LTTng writes it after losing events (a running
    total from some packet on, in the stream file and its index alike):
    a loss, never a damaged header nor a lost trace."""
    s = rng.choice(STREAMS)
    p = os.path.join(t, s)
    pk = packets(p)
    if not pk:
        return f"discarded-counter@{s}(no packet)"
    first = rng.choice([0, 0, rng.randrange(len(pk))])
    lost = rng.choice([1, 1, 7, 1000])
    only_first = rng.random() < 0.3  # 1 then 0: item 2
    ip = os.path.join(t, "index", s + ".idx")
    length = struct.unpack(">I", open(ip, "rb").read(16)[12:16])[0] if os.path.exists(ip) else 0
    for k, (o, _, _) in enumerate(pk):
        v = 0 if k < first or (only_first and k > first) else lost
        patch(p, o + OFF["discarded"], "<Q", v)
        if length and 16 + (k + 1) * length <= os.path.getsize(ip):
            patch(ip, 16 + k * length + 40, ">Q", v)
    return f"discarded={lost}{'-then-0' if only_first else ''}@{s}#{first}"


def metadata_text(t):
    """The metadata's TSDL text (packetized or not)."""
    d = open(os.path.join(t, "metadata"), "rb").read()
    if d[:4] != struct.pack("<I", 0x75D11D57):
        return d.decode("utf-8", "replace")
    out, off = [], 0
    while off + 37 <= len(d) and struct.unpack_from("<I", d, off)[0] == 0x75D11D57:
        content, size = struct.unpack_from("<II", d, off + 24)
        out.append(d[off + 37:off + content // 8])
        off += size // 8
    return b"".join(out).decode("utf-8", "replace")


def events_of(t, name):
    """How many fjtrace:NAME events babeltrace2 reads in trace folder t."""
    rc, out, _ = run(["babeltrace2", t])
    return 0 if rc == "timeout" else out.count(f" fjtrace:{name}: ".encode())


def m_metadata_rename(t, rng, pair=None):
    """An fjtrace event class renamed in the metadata (made plain-text
    metadata, which babeltrace2 reads as well), keeping its fields:
    fjtrace:joined named fjtrace:pool_begin (issue 24, item 6), or another
    pair. What fails the provider's layout must not be believed."""
    text = metadata_text(t)
    names = sorted(set(re.findall(r'name = "fjtrace:(\w+)";', text)))
    if len(names) < 2:
        return "metadata-rename(no events)"
    a, b = pair or (("joined", "pool_begin") if rng.random() < 0.5 and "joined" in names
                    else tuple(rng.sample(names, 2)))
    # a class the recording has no event of renames nothing it holds (a
    # quiet run of fj-fib may steal nothing, so join nothing): said in the
    # label, which the judge's checks of renamed events then pass by
    held = events_of(t, a)
    text = text.replace(f'name = "fjtrace:{a}";', f'name = "fjtrace:{b}";')
    if not text.startswith("/* CTF"):
        text = "/* CTF 1.8 */\n" + text
    open(os.path.join(t, "metadata"), "w").write(text)
    return f"metadata-rename:{a}->{b}" + ("" if held else f"(no {a} events)")


def m_special_file(t, rng):
    """An index file, a stream file or the metadata replaced by a FIFO, a
    folder or a link to /dev/null: never a hang; named."""
    what = rng.choice(["index", "index", "stream", "metadata"])
    if what == "index" and os.path.isdir(os.path.join(t, "index")):
        name = os.path.join("index", rng.choice(os.listdir(os.path.join(t, "index"))))
    elif what == "metadata":
        name = "metadata"
    else:
        name = rng.choice(STREAMS)
    p = os.path.join(t, name)
    if os.path.isdir(p):
        return f"special@{name}(a folder already)"
    os.unlink(p)
    how = rng.choice(["fifo", "fifo", "folder", "devnull"])
    if how == "fifo":
        os.mkfifo(p)
    elif how == "folder":
        os.mkdir(p)
    else:
        os.symlink("/dev/null", p)
    return f"special-{how}@{name}"


def without_index(m):
    """The same damage with the index gone: nothing to rebuild the header from."""
    def n(t, rng):
        label = m(t, rng)
        shutil.rmtree(os.path.join(t, "index"), ignore_errors=True)
        return label + "+no-index"
    return n


def make_full(path, k):
    """Packet k of a stream file without its padding (packet_size = its
    content, the bytes after the content cut): a full packet, as LTTng
    writes when the events fill one exactly, which a recording need not
    hold (the targeted kind below found none in about one run of ten)."""
    data = open(path, "rb").read()
    off, n, content = packets(path)[k]
    with open(path, "wb") as f:
        f.write(data[:off + content // 8] + data[off + n:])
    patch(path, off + OFF["size"], "<Q", content)


def m_size_unset_full(t, rng):
    """packet_size all ones ("not set": the content alone) in a full task
    packet (its content the whole packet) that is not the stream's last:
    babeltrace2 takes the content size for it and reads every event, the
    next packet right after it. Without a full packet, one is made (make_full:
    for the index-less kind only, as the index would point past it)."""
    pk = {s: packets(os.path.join(t, s))[:-1] for s in task_streams()}
    full = [(s, k) for s, p in pk.items() for k, (o, n, content) in enumerate(p)
            if content == 8 * n]
    made = ""
    if not full:
        s, k = rng.choice([(s, k) for s, p in pk.items() for k, (o, n, content) in enumerate(p)
                           if content % 8 == 0])
        make_full(os.path.join(t, s), k)
        made = ", made full"
    else:
        s, k = rng.choice(full)
    patch(os.path.join(t, s), packets(os.path.join(t, s))[k][0] + OFF["size"], "<Q", U64)
    return f"size=0xffffffffffffffff@{s}#{k}(full{made})"


HUGE = [1 << 63, U64, (1 << 63) + 8, U64 - 7]
TARGETED = {
    "packet-size-huge": m_packet_field("size", HUGE),
    "content-size-huge": m_packet_field("content", HUGE),
    "timestamp-begin-max": m_packet_field("ts_begin", [U64, U64 - 1, 1 << 63]),
    "timestamp-end-max": m_packet_field("ts_end", [U64, 1 << 63]),
    "timestamp-swapped": m_ts_swap,
    "discarded-huge": m_packet_field("discarded", [1 << 45, 1 << 63, U64]),
    "discarded-huge-no-index": without_index(m_packet_field("discarded", [1 << 45, U64])),
    "packet-size-huge-no-index": without_index(m_packet_field("size", HUGE)),
    "content-size-huge-no-index": without_index(m_packet_field("content", HUGE)),
    "timestamp-end-max-no-index": without_index(m_packet_field("ts_end", [U64, 1 << 63])),
    "timestamp-swapped-no-index": without_index(m_ts_swap),
    "index-past-eof": m_index,
    "symlinks": m_symlinks,
    "metadata-padding-cut": m_metadata_padding,
    "all-streams-cut": m_streams_cut,
    "maps-content-unset-no-index": without_index(m_maps_content_unset),
    "packet-size-unset-full-no-index": without_index(m_size_unset_full),
    "stale-index-discarded-huge": m_stale_index,
    "packet-size-flip": m_size_flip,
    "array-length-huge": m_array_length,
    "array-length-huge-no-index": without_index(m_array_length),
    "trailing-discarded-zero": m_trailing_discarded_zero,
    # issue 24
    "event-bytes-tasks": m_event_bytes(task_streams),
    "offcpu-payload": m_event_bytes(offcpu_streams),
    "event-time-wrap": m_event_time_wrap,
    "offcpu-cut": m_offcpu_cut,
    "discarded-counter": m_discarded_counter,
    "metadata-rename": m_metadata_rename,
    "metadata-rename-joined": lambda t, rng: m_metadata_rename(t, rng, ("joined", "pool_begin")),
    # site_name is read as a load-map event: a renamed one must not vanish
    "metadata-rename-site-name": lambda t, rng: m_metadata_rename(t, rng, ("executed",
                                                                         "site_name")),
    "special-file": m_special_file,
}
# Kinds that cannot change the figures: the trace reads whole (possibly
# repaired, or without its index), so an exit 0 must give the undamaged
# trace's figures.
SAME_FIGURES = {"metadata-padding-cut", "symlinks", "maps-content-unset-no-index",
                "packet-size-unset-full-no-index",
                "packet-size-flip", "trailing-discarded-zero", "discarded-counter",
                "packet-size-huge", "content-size-huge", "timestamp-begin-max",
                "timestamp-end-max", "timestamp-swapped", "discarded-huge"}
RANDOM = dict(TARGETED, flip=m_flip, truncate=m_truncate, packets=m_packets,
              foreign=m_foreign)


# --------------------------------------------------------------- running
PRIVATE_TMP = os.path.join(os.path.abspath(WORK), "tmpdir")  # salvage copies go here
# Each run may use 4 GiB: a damaged array length makes libbabeltrace2
# (babeltrace2 itself; the analyzer without its guard) allocate until the
# kernel's OOM killer picks some process of the machine. Over the limit,
# glib's allocation fails (SIGTRAP). An analyzer built with ASan maps
# terabytes of shadow memory: ASan's own limits instead, and the library's
# faults kill its decoding process as in the product (asan_env.py). The
# limit is set by prlimit(1) (util-linux), not a preexec_fn, which is not
# safe in a process with threads (main() runs inputs in threads).
MEMORY = 4 << 30
ASAN = b"__asan_init" in open(ANALYZE, "rb").read()
ENV = dict(os.environ, TMPDIR=PRIVATE_TMP,
           ASAN_OPTIONS=asan_options(f"hard_rss_limit_mb={MEMORY >> 20}",
                                     f"max_allocation_size_mb={MEMORY >> 20}"))


def run(cmd, env=None):
    if not (ASAN and cmd[0] == ANALYZE):
        cmd = ["prlimit", f"--as={MEMORY}", "--", *cmd]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, env=env or ENV)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""


# The fjtrace events babeltrace2 printed in its last run (judge), one line
# each: what a damage changed, seen as babeltrace2 decodes it.
BT_LINES = []


def execute(paths, bt_path, tmpdir):
    """The runs of one input, made apart from every other input's (each
    reads its own copy, writes in its own $TMPDIR): the analyzer's,
    babeltrace2's (its exit code, its fjtrace events) and, when babeltrace2
    aborts, the analyzer's without the packet check. judge() reads them."""
    env = dict(ENV, TMPDIR=tmpdir)
    analysis = run([ANALYZE, "--no-progress", "--json", *paths], env)
    # babeltrace2 on the trace folder itself: it would count a trace given
    # twice twice, and may follow the links inside a session. It blocks on
    # a FIFO for ever: not run there (the analyzer must not).
    if has_fifo(bt_path):
        bt = ("not run (a FIFO)", [], "")
    else:
        brc, out, berr = run(["babeltrace2", bt_path])
        bt = (brc, [x for x in out.splitlines() if b" fjtrace:" in x], berr)
    unguarded = None
    if bt[0] == -6 and not CAMPAIGN:
        unguarded = run([ANALYZE, "--no-progress", "--json", *paths],
                        dict(env, FJTRACE_ANALYZE_NO_PACKET_CHECK="1"))
    return analysis, bt, unguarded


def payload_only(orig, damaged):
    """Whether babeltrace2 reads the damaged trace as the undamaged one but
    for the values of some events' payload fields: the same events, at the
    same times, of the same names and contexts. Such a value can be caught
    only when it contradicts the rest of the trace (a pool no event began,
    a worker that never began, an interval outside its worker's life); a
    plausible one (an interval's end a little later, a worker index of
    another worker that began) cannot. The lines that differ are returned
    (empty: not that case)."""
    if len(orig) != len(damaged):
        return []
    changed = [(a, b) for a, b in zip(orig, damaged) if a != b]
    # "[ts] (+delta) host provider:event: { context }, { payload }"
    head = lambda x: x.rsplit(b"}, {", 1)[0]  # noqa: E731
    if not changed or any(head(a) != head(b) for a, b in changed):
        return []
    return changed


def figures(report):
    """What a report says of the pools: tasks, work, span, parallelism."""
    return [(p["totals"]["tasks"], p.get("work_ns"), p.get("span_ns"), p.get("parallelism"))
            for p in report.get("pools", [])]


def has_fifo(path):
    for root, dirs, files in os.walk(path):
        for x in dirs + files:
            if stat.S_ISFIFO(os.lstat(os.path.join(root, x)).st_mode):
                return True
    return False


def judge(runs, stats):
    """The verdict on one input's runs (execute)."""
    (rc, out, err), (brc, BT_LINES[:], berr), unguarded_run = runs
    bcount = len(BT_LINES)
    stats["fjtrace"][str(rc)] = stats["fjtrace"].get(str(rc), 0) + 1
    stats["babeltrace2"][str(brc)] = stats["babeltrace2"].get(str(brc), 0) + 1
    why = []
    if rc not in (0, 1, 3, 4):
        why.append(f"exit {rc}")
    # (ASan's warning that an allocation returned NULL, as
    # asan_env.py asks, is what glib then aborts on: no report)
    reported = re.sub(r"==\d+==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]+ bytes\n",
                      "", err)
    if re.search(r"AddressSanitizer|LeakSanitizer|runtime error:", reported):
        why.append("sanitizer report")
    if rc == 3 and not re.search(r"/|metadata|fjtrace_", err):
        why.append("exit 3 without naming a file")
    events = None
    stats["figures"] = None
    stats["invalid_first"] = ""
    if rc in (0, 1) or (rc == 3 and out):  # exit 3 may still report what was read
        try:
            report = json.loads(out)
            events = report["trace"]["events"]
            stats["figures"] = figures(report)
            stats["invalid"] = report.get("anomalies", {}).get("by_kind", {}).get(
                "invalid_event", 0)
            stats["invalid_first"] = report.get("anomalies", {}).get("invalid_first", "")
        except (ValueError, KeyError):
            why.append("invalid JSON")
    # Worse: babeltrace2 reads events (exit 0) and fjtrace reports none, or
    # fewer than babeltrace2 does. What babeltrace2 reads beyond the
    # undamaged trace's count is garbage decoded from a damaged packet (it
    # trusts the index over a header), so it is not held against fjtrace.
    # babeltrace2 reading no event at all (every stream empty) is no report
    # either: exit 3 is right there.
    want = min(bcount, stats.get("original_events") or bcount)
    worse = brc == 0 and bcount > 0 and (events is None or events < want)
    if brc == 0 and events is not None and events != bcount:
        stats["differ"] += 1
    if worse:
        stats["worse"] += 1
        why.append(f"worse than babeltrace2 (it exits 0 with {bcount} events; fjtrace "
                   f"exit {rc}, {events} events)")
    if brc == 0 and rc == 3:
        pass  # counted in worse
    elif brc != 0 and events is not None:
        stats["better"] += 1
    if brc not in (0, 1, 2, "not run (a FIFO)"):
        stats["bt_crash"] += 1
    if brc == -6 and not CAMPAIGN:
        # The last resort (the decoding processes, pread.h): without the
        # packet check the library aborts as babeltrace2 does, in a child
        # process; fjtrace must still exit 3, name the trace and report
        # what it had read.
        arc, aout, aerr = unguarded_run
        caught = arc == 3 and REL in aerr and "libbabeltrace2 aborted" in aerr
        unguarded = None
        if arc in (0, 1, 3) and aout:
            try:
                unguarded = json.loads(aout)["trace"]["events"]
            except (ValueError, KeyError):
                caught = False
        # babeltrace2's abort may come from its muxer, which the parallel
        # reader does not use: then the library does not abort in fjtrace
        # (it may end the stream early, which the reader reports as damage),
        # nothing is there to catch, and the reading must have lost nothing
        # against the guarded one (an abort swallowed would show there).
        ended = arc == 3 and REL in aerr and "ended the stream inside it" in aerr
        # An off-CPU stream so ended fails the pre-read, and the report goes
        # on without the whole off-CPU channel (docs/analyses.md, "Off-CPU time"): its
        # events, at most the undamaged trace's, are not held against it.
        floor = events
        if ended and events is not None and "the off-CPU streams" in aerr \
                and "without those streams" in aerr:
            floor = events - sum(b" fjtrace:offcpu" in x for x in stats.get("original_bt", []))
        no_abort = ((arc in (0, 1) or ended) and unguarded is not None and events is not None
                    and unguarded >= floor)
        stats["guarded"] += caught
        stats["no_abort"] = stats.get("no_abort", 0) + no_abort
        if not caught and not no_abort:
            why.append(f"without the packet check, the abort is not caught: exit {arc}, "
                       f"{first_line(aerr)}")
    return why, rc, brc, err, events


def first_line(s):
    return s.strip().splitlines()[0][:110] if s.strip() else ""


def main():
    rng = random.Random(SEED)
    os.makedirs(PRIVATE_TMP, exist_ok=True)
    plan = []
    if CAMPAIGN:
        kinds = sorted(RANDOM)
        for i in range(CAMPAIGN):
            plan.append(rng.sample(kinds, rng.choice([1, 1, 1, 2, 3])))
    else:
        for kind in TARGETED:
            for _ in range(3 if kind == "symlinks" else 2):
                plan.append([kind])
        plan.append(["symlinks"] * 2)
    stats = {"fjtrace": {}, "babeltrace2": {}, "worse": 0, "better": 0, "bt_crash": 0,
             "failed": 0, "differ": 0, "guarded": 0, "same_kinds": 0, "exit0_differ": 0,
             "exit0_differ_any": 0, "invalid_inputs": 0, "exit0_payload": 0, "exit0_other": 0}
    # The trace itself first: it must read as babeltrace2 reads it.
    orig = [[]] + plan
    # The inputs are made in order (one random generator) and judged in
    # order (against the first); the runs of two inputs at a time, while the
    # next inputs are made.
    pool = concurrent.futures.ThreadPoolExecutor(2)
    made = collections.deque()
    for i, kinds in enumerate(orig):
        session = os.path.join(WORK, f"case-{i}")
        shutil.rmtree(session, ignore_errors=True)
        shutil.copytree(SESSION, session, symlinks=True)
        t = os.path.join(session, REL)
        labels, paths = [], [session]
        # a FIFO would block the other mutations' own reads: made last
        for k in sorted(kinds, key=lambda k: k == "special-file"):
            try:
                got = RANDOM[k](t, rng)
            except (ValueError, IndexError, OSError, struct.error):
                got = f"{k}(nothing to damage)"  # an earlier mutation took it away
            if isinstance(got, tuple):
                got, paths = got
            labels.append(got)
        label = "+".join(labels) or "original"
        if ONLY is not None and i not in (0, ONLY):
            shutil.rmtree(session, ignore_errors=True)
            if os.path.islink(session + "-link"):
                os.unlink(session + "-link")
            continue
        tmpdir = os.path.join(PRIVATE_TMP, str(i))
        os.makedirs(tmpdir, exist_ok=True)
        made.append((i, kinds, label, session, tmpdir, pool.submit(execute, paths, t, tmpdir)))
        # at most 3 copies ahead of the verdicts (disk space)
        while len(made) > 3 or (made and made[0][-1].done()):
            verdict(*made.popleft(), stats)
    while made:
        verdict(*made.popleft(), stats)
    pool.shutdown()
    report(orig, stats)


def verdict(i, kinds, label, session, tmpdir, runs, stats):
    """Judges input i (its runs: execute) and prints its TAP line."""
    why, rc, brc, err, events = judge(runs.result(), stats)
    if i == 0:
        stats["original_events"], stats["original_rc"] = events, rc
        stats["original_figures"] = stats["figures"]
        stats["original_bt"] = list(BT_LINES)
    same = rc == 0 and stats["figures"] == stats["original_figures"]
    if kinds and rc == 0 and not same:
        stats["exit0_differ_any"] += 1
        # named, each (the file, the kind and the offset are in the
        # label), and told apart: a plausible changed payload value
        # (babeltrace2 reads the same events but for some field values)
        # cannot be caught; anything else should have been
        changed = payload_only(stats["original_bt"], BT_LINES) if brc == 0 else []
        stats["exit0_payload" if changed else "exit0_other"] += 1
        what = "a changed payload value" if changed else "other damage"
        print(f"# exit 0 with other figures ({what}): input {i + 1}: {label}: "
              f"{stats['figures']} vs {stats['original_figures']}")
        for a, b in changed[:3]:
            print(f"#   babeltrace2: {a.decode(errors='replace')[:200]}\n"
                  f"#             -> {b.decode(errors='replace')[:200]}")
    if stats.get("invalid"):
        stats["invalid_inputs"] += 1
    if kinds and all(k in SAME_FIGURES for k in kinds):
        stats["same_kinds"] += 1
        if rc == 0 and not same:
            stats["exit0_differ"] += 1
            why.append("exit 0 with figures different from the undamaged trace's, on a "
                       f"damage that cannot change them: {stats['figures']} vs "
                       f"{stats['original_figures']}")
    if kinds and all(k.startswith("metadata-rename") for k in kinds) \
            and ("joined->pool_begin" in label or "executed->site_name" in label) \
            and "(no " not in label and (rc == 0 or not stats.get("invalid")):
        why.append("an event renamed with another's layout: its events are invalid "
                   f"(anomaly invalid_event) and the exit is not 0, not exit {rc}")
    if kinds and all(k == "event-time-wrap" for k in kinds) and "no events" not in label \
            and (rc != 1 or not stats.get("invalid")):
        why.append("an event 2^32 cycles past its packet's end: an invalid event "
                   f"(anomaly invalid_event) and exit 1 expected, not exit {rc}")
    if kinds and all(k == "offcpu-cut" for k in kinds):
        # babeltrace2 reads it cleanly; the analyzer names the cut
        cut = re.search(r"pool(\d+)-worker(\d+)", label)
        named = cut and (f"an off-CPU interval of worker {cut[2]} of pool {cut[1]} holding "
                         "an event of that worker") in stats.get("invalid_first", "")
        if not cut:
            why.append("no blocked interval of 1 ms or more with a task event of its "
                       "worker before it to move its begin to")
        elif brc != 0 or rc != 1 or not stats.get("invalid") or not named:
            why.append("an off-CPU begin moved before its worker's previous event: "
                       "babeltrace2 exit 0, and an invalid event (anomaly invalid_event, "
                       "naming the worker's interval holding its event) with exit 1 "
                       f"expected, not babeltrace2 exit {brc}, exit {rc} with "
                       f"{stats.get('invalid', 0)} invalid: "
                       f"{stats.get('invalid_first', '')!r}")
    if kinds and all(k == "special-file" for k in kinds) and rc == "timeout":
        why.append("a special file: the analyzer hangs")
    if kinds and all(k == "discarded-counter" for k in kinds) and \
            (rc != 1 or events != stats["original_events"]):
        why.append(f"LTTng's discard counters: every event ({stats['original_events']}) "
                   f"and exit 1 expected, not exit {rc} with {events}")
    left = os.listdir(tmpdir)
    if left:
        why.append(f"temporaries left in $TMPDIR: {left[:3]}")
    shutil.rmtree(tmpdir, ignore_errors=True)
    if i == 0 and (rc != (1 if ORIGINAL_DISCARDED else 0) or not events):
        why.append("the undamaged trace must analyse with exit 0 (1 only if LTTng "
                   f"discarded events: {ORIGINAL_DISCARDED} discarded), not exit {rc}")
    if kinds and all(k == "all-streams-cut" for k in kinds) and rc != 3:
        why.append("every stream cut or empty: exit 3 (cannot be decoded) expected")
    whole = (stats["original_rc"], stats["original_events"])
    header_kinds = ("packet-size-huge", "packet-size-flip", "content-size-huge",
                    "timestamp-begin-max",
                    "timestamp-end-max", "timestamp-swapped", "discarded-huge",
                    "discarded-huge-no-index")
    # babeltrace2 (and so fjtrace) takes a content_size of all ones for
    # "not set": the whole packet, padding included, and a packet_size
    # of all ones for the content alone (a full packet then reads
    # whole) (judged against babeltrace2 only).
    unset = "content=0xffffffffffffffff" in label or "size=0xffffffffffffffff" in label
    if (kinds and all(k.endswith("-no-index") and k not in header_kinds for k in kinds)
            and not unset and (rc != 3 or (not events and "#0" not in label))):
        # (a first packet damaged may leave no fjtrace event before it)
        why.append("a damaged header without an index: exit 3 with a report of the "
                   f"packets before it expected, not exit {rc} with {events} events")
    if kinds and all(k.startswith("array-length-huge") for k in kinds):
        # the library fails, crashes or aborts on it in its decoding
        # process: that load-map stream ends at the array, every fjtrace
        # event is read, exit 3 naming the file and the packet
        if "nothing to damage" in label:
            why.append("no build id's length found to damage in the load-map streams")
        elif (rc != 3 or events != whole[1]
              or not re.search(r"fjtrace_maps_\d+: packet \d+ ", err)):
            why.append(f"a huge array length: exit 3 naming the load-map stream file and "
                       f"packet, with all {whole[1]} events, expected; not exit {rc} with "
                       f"{events} events")
    if kinds and all(k == "trailing-discarded-zero" for k in kinds) and (
            rc != 1 or events != whole[1]):
        why.append(f"a trailing packet's events_discarded of 0 (LTTng's): every event "
                   f"({whole[1]}) and exit 1 (events were lost) expected, not exit {rc} "
                   f"with {events}")
    for kind in ("metadata-padding-cut", "symlinks", "maps-content-unset-no-index",
                 "packet-size-unset-full-no-index") + header_kinds:
        if kinds and all(k == kind for k in kinds) and (rc, events) != whole:
            why.append(f"{kind}: the trace must read whole, as undamaged: exit {whole[0]} "
                       f"with {whole[1]} events, not exit {rc} with {events}")
    if why:
        stats["failed"] += 1
        print(f"not ok {i + 1} - {label}: {'; '.join(why)}")
        print("# " + err.strip()[:1500].replace("\n", "\n# "))
    else:
        print(f"ok {i + 1} - {label}: fjtrace exit {rc}, babeltrace2 exit {brc}  "
              f"# {first_line(err)}")
    sys.stdout.flush()
    if (not KEEP and ONLY is None) or not why:
        shutil.rmtree(session, ignore_errors=True)
        if os.path.islink(session + "-link"):
            os.unlink(session + "-link")


def report(orig, stats):
    """The last lines: the counts, and the exit status."""
    n = len(orig)
    print(f"1..{n}")
    fj = ", ".join(f"{k}: {v}" for k, v in sorted(stats["fjtrace"].items()))
    bt = ", ".join(f"{k}: {v}" for k, v in sorted(stats["babeltrace2"].items()))
    print(f"# inputs: {n} (seed {SEED}); fjtrace-analyze exits {{{fj}}}; "
          f"babeltrace2 exits {{{bt}}}")
    print(f"# babeltrace2 crashed (signal): {stats['bt_crash']}; read by fjtrace but not by "
          f"babeltrace2: {stats['better']}; both read, event counts differ: {stats['differ']}")
    if not CAMPAIGN:
        print(f"# babeltrace2 aborts caught by the last resort when the packet check is off: "
              f"{stats['guarded']} of {stats['bt_crash']} (no abort in fjtrace's own graphs, "
              f"every event read: {stats.get('no_abort', 0)})")
    print(f"# inputs with events failing validation (anomaly invalid_event): "
          f"{stats['invalid_inputs']}; exit 0 with figures different from the undamaged "
          f"trace, any damage: {stats['exit0_differ_any']} (a changed payload value "
          f"babeltrace2 reads as valid, plausible to the trace: {stats['exit0_payload']}; "
          f"other damage: {stats['exit0_other']})")
    print(f"# exit 0 with figures different from the undamaged trace: {stats['exit0_differ']} "
          f"(of {stats['same_kinds']} inputs whose damage cannot change them)")
    print(f"# fjtrace worse than babeltrace2: {stats['worse']}; failures: {stats['failed']}")
    sys.exit(1 if stats["failed"] else 0)


main()
