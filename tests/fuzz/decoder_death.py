#!/usr/bin/env python3
"""A decoding process that dies ends its stream as damaged and nothing else
(issue 26 step 4; TAP).

Records fj-fib N -p 2 (--cmd-only, --blocking, small sub-buffers: many
packets per stream) and sets timestamp_begin to 2^64-1 in the middle packet
of the largest task stream, with the packet check off
(FJTRACE_ANALYZE_NO_PACKET_CHECK=1): libbabeltrace2 aborts on it (a
BT_ASSERT), in the decoding process. Read with --jobs 1 and tiny rings
(FJTRACE_ANALYZE_TINY_RINGS=1: every stream in that one process, the others
shipped part-way when it dies), so that a new process must take the other
streams on and skip what was shipped:

- exit 3, stderr naming the stream file and the packet, "or the next"
  (the library dies with messages of a batch not handed over: the last
  packet begun may be the one before the damaged one), and saying
  libbabeltrace2 aborted;
- the same trace figures (events, pools, tasks) as with one process per
  stream (--jobs 64: no stream read on by a second process);
- the events: no more than the copy whose damaged stream is cut before
  that packet, no fewer than the copy cut one packet earlier (read with
  exit 1, a recording cut short): the other streams whole, the damaged one
  up to its packet before the damaged one at least.

    decoder_death.py ANALYZE RECORD FIB   (a TAP skip when it cannot record here)
"""
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from recording import SMALL_PACKETS, analyze_json, figures, packet_offsets, record_fib  # noqa: E402

ANALYZE, RECORD, FIB = sys.argv[1:4]
N = 18
OFF_TS_BEGIN = 32  # in the LTTng-UST packet context (damage.py)
U64 = (1 << 64) - 1


def analyze(trace, jobs, env=None):
    return analyze_json(ANALYZE, trace, ("--jobs", str(jobs)), env)


def main():
    work = tempfile.mkdtemp()
    try:
        session = os.path.join(work, "orig")
        trace = record_fib(RECORD, FIB, N, session, SMALL_PACKETS)
        rel = os.path.relpath(trace, session)
        tasks = sorted((f for f in os.listdir(trace) if f.startswith("fjtrace_") and f[8:].isdigit()),
                       key=lambda f: -os.path.getsize(os.path.join(trace, f)))
        offs = packet_offsets(os.path.join(trace, tasks[0])) if tasks else []
        if len(tasks) < 2 or len(offs) < 3:
            tap.plan_skip_all(f"the recording has no two task streams of 3 packets: {tasks}")
        k = len(offs) // 2  # 0-based: packet k + 1
        damaged = os.path.join(work, "damaged")
        shutil.copytree(session, damaged)
        with open(os.path.join(damaged, rel, tasks[0]), "r+b") as f:
            f.seek(offs[k] + OFF_TS_BEGIN)
            f.write(struct.pack("<Q", U64))
        cuts = []
        for at in (k, k - 1):
            cut = os.path.join(work, f"cut{at}")
            shutil.copytree(session, cut)
            os.truncate(os.path.join(cut, rel, tasks[0]), offs[at])
            shutil.rmtree(os.path.join(cut, rel, "index"))
            cuts.append(cut)

        env = {"FJTRACE_ANALYZE_NO_PACKET_CHECK": "1", "FJTRACE_ANALYZE_TINY_RINGS": "1"}
        rc, one, err = analyze(damaged, 1, env)
        tap.is_eq(rc, 3, "a decoding process that died: exit 3", err[-800:])
        where = [f"{tasks[0]}: packet {k + 1} (byte {offs[k]}) or the next cannot be decoded",
                 f"{tasks[0]}: packet {k} (byte {offs[k - 1]}) or the next cannot be decoded"]
        tap.ok(any(w in err for w in where) and "libbabeltrace2 aborted" in err,
               f"stderr names the stream file and packet ({where[0]}, or the packet before) and "
               "says libbabeltrace2 aborted", err[-800:])
        rc64, many, err64 = analyze(damaged, 64, env)
        tap.is_eq(rc64, 3, "one process per stream: exit 3 too", err64[-800:])
        tap.ok(figures(one) is not None and figures(one) == figures(many),
               "the streams another process read on after the death: the same events, pools "
               "and tasks as with one process per stream", f"{figures(one)} vs {figures(many)}")
        (rc1, upto, err1), (rc2, before, err2) = analyze(cuts[0], 2), analyze(cuts[1], 2)
        tap.ok(figures(one) and figures(upto) and figures(before)
               and before["trace"]["events"] <= one["trace"]["events"] <= upto["trace"]["events"],
               "nothing else lost: no more events than the copy cut before the damaged packet, "
               "no fewer than the copy cut one packet earlier",
               f"exit {rc1}, {rc2}; {figures(one)} within {figures(before)}..{figures(upto)}",
               err1[-300:], err2[-300:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done_testing()


main()
