#!/usr/bin/env python3
"""An off-CPU interval the tracker refuses never weighs on the on-CPU
figures (issue 24: validate what the events claim before the model
believes it; TAP).

Records fj-fib N -p 2 (--cmd-only) and, in copies of it, changes the
payload of one fjtrace:offcpu record of a worker (its begin and end are
found by value in the fjtrace_offcpu_* stream file):

- "without": end = begin, an interval of no length: the trace without that
  interval (the record is believed, it holds no time);
- "refused": end 10 s after the record's own time, an interval that claims
  to end after it was reported (outside the worker's life as the trace
  knows it), so the tracker refuses it.

The refused copy must give exactly the on-CPU figures of the "without"
copy (work, span, parallelism, per-worker times, off-CPU time), whether
the on-CPU model is fed alone or beside the pictures' tracker, name the refusal
(anomaly invalid_event, its reason in the JSON and text reports) and exit
1 (the report is not whole).

    offcpu_refused.py ANALYZE RECORD FIB   (a TAP skip when it cannot record
                                           here or no interval was recorded)
"""
import glob
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
from recording import analyze_json, record_fib  # noqa: E402

ANALYZE, RECORD, FIB = sys.argv[1:4]
N = 22
RECORD_RE = re.compile(r"^\[(\d+)\].* fjtrace:offcpu: .*\{ pool = (\d+), worker = (\d+), "
                       r"begin = (\d+), end = (\d+), kind = \d+ \}")


def intervals(trace):
    """(record time, begin, end) of each fjtrace:offcpu record of a worker,
    in raw clock values (the trace clock counts ns)."""
    out = subprocess.run(["babeltrace2", "--clock-cycles", trace], capture_output=True,
                         text=True).stdout
    return [tuple(int(x) for x in (m[1], m[4], m[5]))
            for m in map(RECORD_RE.match, out.splitlines()) if m and int(m[5]) > int(m[4])]


def set_end(trace, begin, end, new_end):
    """The record's end, found by its (begin, end) pair in an off-CPU stream."""
    old = struct.pack("<QQ", begin, end)
    found = 0
    for s in glob.glob(os.path.join(trace, "fjtrace_offcpu_*")):
        d = open(s, "rb").read()
        found += d.count(old)
        if old in d:
            open(s, "wb").write(d.replace(old, struct.pack("<QQ", begin, new_end)))
    return found


def figures(report):
    """The on-CPU figures of every pool."""
    keep = ("figures", "work_ns", "span_ns", "parallelism", "time", "per_worker",
            "duration_ns", "totals")
    return [dict({k: p.get(k) for k in keep},
                 offcpu={k: p["offcpu"].get(k) for k in ("state", "preempted_ns",
                                                        "blocked_ns")})
            for p in report.get("pools", [])]


def analyze(path, opts):
    rc, report, err = analyze_json(ANALYZE, path, opts)
    return rc, report or {}, err


def main():
    work = tempfile.mkdtemp()
    try:
        session = os.path.join(work, "orig")
        trace = record_fib(RECORD, FIB, N, session)
        rel = os.path.relpath(trace, session)
        found = intervals(trace)
        if not found:
            tap.plan_skip_all("no off-CPU interval was recorded (perf switch records refused?)")
        ts, begin, end = found[0]
        copies = {}
        for name, new_end in (("without", begin), ("refused", ts + 10 ** 10)):
            copies[name] = os.path.join(work, name)
            shutil.copytree(session, copies[name], symlinks=True)
            tap.is_eq(set_end(os.path.join(copies[name], rel), begin, end, new_end), 1,
                      f"{name}: the record [{begin}, {end}) is found once and changed")
        # the on-CPU model fed alone (its tracker judges the records), and
        # beside the wall-clock one (a picture asked for: that one judges)
        for how, opts in (("read ahead", []), ("pictures on", ["--chrome-trace",
                                                               os.path.join(work, "c.json")])):
            rc0, without, err0 = analyze(copies["without"], opts)
            rc1, refused, err1 = analyze(copies["refused"], opts)
            tap.ok(rc0 == exit_expected(trace) and without.get("pools"), f"{how}: the trace "
                   "without the interval is read, exit 0 (1 exactly when LTTng discarded "
                   "events)", f"rc {rc0}, {discarded(trace)} discarded", err0[-600:])
            tap.is_eq(figures(refused), figures(without), f"{how}: the refused interval leaves "
                      "the on-CPU figures those of the trace without it")
            invalid = refused.get("anomalies", {}).get("by_kind", {}).get("invalid_event", 0)
            text = subprocess.run([ANALYZE, "--no-progress", *opts, copies["refused"]],
                                  capture_output=True, text=True, timeout=300).stdout
            tap.ok(invalid >= 1 and "off-CPU interval of worker" in refused["anomalies"].get(
                "invalid_first", "") and "first invalid event: an off-CPU interval" in text,
                f"{how}: the refusal is named (anomaly invalid_event, its reason in the JSON "
                "and text reports)", json.dumps(refused.get("anomalies"))[:800], text[-800:])
            tap.is_eq(rc1, 1, f"{how}: exit 1 (the report is not whole)", err1[-600:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.done_testing()


main()
