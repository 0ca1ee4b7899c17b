#!/usr/bin/env python3
"""Several trace folders, their off-CPU intervals read ahead: one reading.

usage: check_offcpu_folders.py ANALYZER TRACE RECORD-STATUS RECORD-STDERR
TRACE holds two per-process folders of fj-burn (tracing_offcpu_folders.sh):
A, 2^5 leaves x 2 ms of CPU (63 tasks, on-CPU work 64 ms), and B, 2^4
leaves x (3 ms of CPU, then 1 ms asleep) (31 tasks, work 48 ms, >= 16 ms
blocked). fjtrace-analyze reads both folders' off-CPU streams ahead and
replays each folder's intervals into its own process's pools in the one
reading of the events (analyzer.readings 1): the known answers hold, and
each pool's figures are those of its folder analysed alone, and those of
two readings (--muxer reads twice: its reading does not name the folders).
Prints TAP.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402

MS = 1e6
KEYS = ("work_ns", "span_ns", "parallelism", "work_wall_ns", "span_wall_ns", "parallelism_wall",
        "figures", "offcpu", "time", "trees", "speedup", "advice", "totals")


def analyze(analyzer, *args):
    p = subprocess.run([analyzer, "--no-progress", "--json", *args], capture_output=True,
                       text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        return p.returncode, {}, p.stderr


def by_tasks(report):
    """The pools by their task count (63: A, 31: B)."""
    return {p["totals"]["tasks"]: p for p in report.get("pools", [])}


def same(a, b):
    return a is not None and b is not None and all(a[k] == b[k] for k in KEYS)


def main():
    analyzer, trace, status = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(sys.argv[4]) as f:
        rec_err = f.read()
    if not tap.ok(status == "0", "two fj-burn processes are recorded at once beside 3 busy loops",
                  rec_err[-800:]):
        tap.bail_out("no recording")
    folders = sorted(glob.glob(os.path.join(trace, "ust", "pid", "*")))
    tap.ok(len(folders) == 2, "the recording has one trace folder per process (2)", *folders)
    rc, r, err = analyze(analyzer, trace)
    tap.ok(rc == 0, f"the two folders are analysed with exit 0 (got {rc})", err[-600:])
    tap.is_eq(r.get("analyzer", {}).get("readings"), 1,
              "one reading of the events: the off-CPU streams of both folders were read ahead")
    pools = by_tasks(r)
    a, b = pools.get(63), pools.get(31)
    tap.ok(a is not None and b is not None, "a pool of 63 tasks (A) and one of 31 (B)",
           str(sorted(pools)))
    if a is None or b is None:
        return
    for name, p, work in (("A", a, 64 * MS), ("B", b, 48 * MS)):
        off = p["offcpu"]
        diag = (f"on-CPU work {p['work_ns'] / MS:.3f} ms, wall {p['work_wall_ns'] / MS:.3f} ms, "
                f"preempted {off['preempted_ns']} blocked {off['blocked_ns']}")
        tap.ok(p["figures"] == "on_cpu" and off["state"] == "recorded",
               f"{name}: off-CPU recorded, its figures on the CPU", diag)
        tap.ok(0.98 * work <= p["work_ns"] <= 1.10 * work,
               f"{name}: on-CPU work within -2%..+10% of the {work / MS:.0f} ms its leaves burnt",
               diag)
        tap.ok((off["preempted_ns"] or 0) > 0 and p["work_wall_ns"] > p["work_ns"],
               f"{name}: its workers were preempted: wall-clock work above on-CPU work", diag)
    tap.ok((b["offcpu"]["blocked_ns"] or 0) >= 16 * MS,
           "B: its 16 sleeps of 1 ms are blocked time (>= 16 ms)", str(b["offcpu"]))
    alone = {}
    for f in folders:
        frc, fr, ferr = analyze(analyzer, f)
        alone.update(by_tasks(fr))
        tap.ok(frc == 0 and fr.get("analyzer", {}).get("readings") == 1,
               f"{os.path.basename(f)} alone: exit 0, one reading", ferr[-300:])
    for name, tasks, p in (("A", 63, a), ("B", 31, b)):
        tap.ok(same(p, alone.get(tasks)),
               f"{name}: the figures of both folders read at once are those of its folder alone")
    mrc, mr, merr = analyze(analyzer, "--muxer", trace)
    tap.is_eq(mr.get("analyzer", {}).get("readings"), 2,
              "--muxer (which does not name each trace's folder) reads the events twice")
    mp = by_tasks(mr)
    tap.ok(mrc == 0 and same(a, mp.get(63)) and same(b, mp.get(31)),
           "the two readings give the figures of the one", merr[-300:])


main()
tap.done_testing()
