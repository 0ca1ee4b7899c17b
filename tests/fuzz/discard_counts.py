#!/usr/bin/env python3
"""Discard counters that LTTng writes, never a reason to lose the trace
(issue 24, items 1 and 2; TAP).

Records fj-fib N -p 2 (--cmd-only, small sub-buffers: many packets) and
sets events_discarded in copies of it, in the stream file and its index
alike (what LTTng writes after losing events):

- off-CPU: 1 in the first packet of an fjtrace_offcpu_* stream (one lost
  off-CPU record). Every task event is still read (the undamaged count, the
  pools and tasks), the task loss is the undamaged one, and the off-CPU loss
  is a state of the off-CPU figures: offcpu.state `lost`, its reason
  naming the stream file, wall-clock figures, every worker's off-CPU
  shares n/a (null: which worker lost records is unknown), the text report
  and stderr saying so, exit 1 (the report is not whole);
- tasks: 1 in the first packet of the largest task stream, 0 in the
  later ones (item 2), and 1 in every packet (a running total: one event
  lost in the first packet). Neither is a damaged header nor a lost
  beginning (the first packet is packet 0): every event is read, as
  babeltrace2 reads them, the trace does not begin mid-run, exit 1.

    discard_counts.py ANALYZE RECORD FIB   (a TAP skip when it cannot record here)
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from discarded import discarded, exit_expected  # noqa: E402
from recording import SMALL_PACKETS, packet_offsets, record_fib  # noqa: E402

ANALYZE, RECORD, FIB = sys.argv[1:4]
N = 20
OFF_DISCARDED = 72  # in the LTTng-UST packet context (damage.py)
IDX_DISCARDED = 40  # in an index entry (big-endian)


def set_discarded(trace, stream, values):
    """events_discarded of packet k = values(k), in the file and its index."""
    path = os.path.join(trace, stream)
    idx = os.path.join(trace, "index", stream + ".idx")
    head = open(idx, "rb").read(16) if os.path.exists(idx) else b""
    length = struct.unpack(">I", head[12:16])[0] if len(head) == 16 else 0
    with open(path, "r+b") as f, open(idx, "r+b") if length else open(os.devnull, "rb") as i:
        for k, off in enumerate(packet_offsets(path)):
            f.seek(off + OFF_DISCARDED)
            f.write(struct.pack("<Q", values(k)))
            if length:
                i.seek(16 + k * length + IDX_DISCARDED)
                i.write(struct.pack(">Q", values(k)))


def analyze(session, json_out=True):
    cmd = [ANALYZE, "--no-progress", *(["--json"] if json_out else []), session]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def bt_events(trace):
    p = subprocess.run(["babeltrace2", trace], capture_output=True, timeout=300)
    return p.returncode, p.stdout.count(b" fjtrace:")


def report(out):
    try:
        return json.loads(out)
    except ValueError:
        return None


def offcpu_case(session, rel, stream, whole, work):
    copy = os.path.join(work, "offcpu")
    shutil.copytree(session, copy)
    set_discarded(os.path.join(copy, rel), stream, lambda k: 1)
    rc, out, err = analyze(copy)
    r = report(out)
    tap.is_eq(rc, 1, "one lost off-CPU record: exit 1 (the report is not whole)", err[-800:])
    if not r:
        tap.ok(False, "one lost off-CPU record: the JSON report is written", err[-800:])
        return
    tap.is_eq(r["trace"]["events"], whole["trace"]["events"],
              "one lost off-CPU record: every event is read")
    tap.is_eq([p["totals"]["tasks"] for p in r["pools"]],
              [p["totals"]["tasks"] for p in whole["pools"]],
              "one lost off-CPU record: the pools and tasks of the undamaged trace")
    tap.is_eq(r["trace"]["discarded_events"], whole["trace"]["discarded_events"],
              "one lost off-CPU record: no task event counted as lost for it")
    off = [p["offcpu"] for p in r["pools"]]
    tap.ok(all(o["state"] == "lost" and stream in o.get("reason", "")
               and o["preempted_ns"] is None for o in off)
           and all(p["figures"] == "wall_clock" for p in r["pools"]),
           "one lost off-CPU record: offcpu.state lost, its reason naming the stream file, "
           "wall-clock figures", json.dumps(off))
    # which worker lost records is unknown (the streams are per CPU): no
    # worker's share is known, a partial one is no figure
    keys = ("offcpu_preempted_ns", "offcpu_preempted_pct", "offcpu_blocked_ns",
            "offcpu_blocked_pct")
    shares = [{k: w.get(k, "absent") for k in keys} for p in r["pools"] for w in p["per_worker"]]
    tap.ok(shares and all(v is None for w in shares for v in w.values()),
           "one lost off-CPU record: every worker's off-CPU shares are null", json.dumps(shares))
    tap.ok("off-CPU" in err and stream in err and "lost" in err,
           "one lost off-CPU record: stderr says so, naming the stream", err[-800:])
    rc, text, _ = analyze(copy, json_out=False)
    tap.ok("off-CPU time lost" in text and stream in text,
           "one lost off-CPU record: the text report says the off-CPU time is lost, and where",
           text[:1200])
    # the per-worker table: prmpt% and block% columns (11th, 12th) n/a
    rows = [line.split() for line in text.splitlines()
            if re.match(r"^\s+\d+\s+\d+\s+\d+\s", line) and "%" in line]
    tap.ok(rows and all(row[10:12] == ["n/a", "n/a"] for row in rows),
           "one lost off-CPU record: the text report's per-worker prmpt% and block% are n/a",
           "\n".join(" ".join(row) for row in rows))


def task_case(name, values, session, rel, stream, whole, work):
    copy = os.path.join(work, name)
    shutil.copytree(session, copy)
    trace = os.path.join(copy, rel)
    set_discarded(trace, stream, values)
    brc, bcount = bt_events(trace)
    rc, out, err = analyze(copy)
    r = report(out)
    tap.is_eq(rc, 1, f"{name}: exit 1 (events were lost)", err[-800:])
    if not r:
        tap.ok(False, f"{name}: the JSON report is written", err[-800:])
        return
    tap.is_eq(r["trace"]["events"], whole["trace"]["events"],
              f"{name}: every event is read, the whole stream", err[-800:])
    tap.ok(brc == 0 and bcount == r["trace"]["events"],
           f"{name}: as many fjtrace events as babeltrace2 reads",
           f"babeltrace2 exit {brc}, {bcount} events")
    tap.ok(not r["trace"].get("began_mid_run"), f"{name}: not taken for a lost beginning",
           json.dumps(r["trace"])[:600])
    tap.ok("damaged" not in err and "cannot be decoded" not in err,
           f"{name}: not taken for a damaged header", err[-800:])


def main():
    work = tempfile.mkdtemp()
    try:
        session = os.path.join(work, "orig")
        trace = record_fib(RECORD, FIB, N, session, SMALL_PACKETS)
        rel = os.path.relpath(trace, session)
        names = os.listdir(trace)
        offcpu = sorted(f for f in names if f.startswith("fjtrace_offcpu_")
                        and os.path.getsize(os.path.join(trace, f)))
        tasks = sorted((f for f in names if f.startswith("fjtrace_") and f[8:].isdigit()),
                       key=lambda f: -os.path.getsize(os.path.join(trace, f)))
        if not offcpu or not tasks:
            tap.bail_out("the recording lacks an off-CPU or a task stream: " + str(names))
        # the copies must have events lost only where the damage says so
        set_before = [struct.unpack_from("<Q", open(os.path.join(trace, s), "rb").read(),
                                         OFF_DISCARDED)[0] for s in offcpu + tasks[:1]]
        if any(set_before):
            tap.plan_skip_all(f"the recording lost events itself (load?): {set_before}")
        rc, out, err = analyze(session)
        whole = report(out)
        tap.is_eq(rc, exit_expected(trace), "undamaged: analysed with exit 0, or 1 exactly "
                  f"when LTTng discarded events ({discarded(trace)} discarded)", err[-800:])
        if not whole:
            tap.bail_out(f"the undamaged trace does not analyse: exit {rc}, {err[-300:]}")
        offcpu_case(session, rel, offcpu[0], whole, work)
        task_case("task stream, 1 then 0", lambda k: 1 if k == 0 else 0, session, rel,
                  tasks[0], whole, work)
        task_case("task stream, 1 in every packet", lambda k: 1, session, rel, tasks[0],
                  whole, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done_testing()


main()
