#!/usr/bin/env python3
"""Checks the off-CPU events of a recorded trace through babeltrace2.

usage: check_offcpu.py TRACE preempted       workers recorded their switches
       check_offcpu.py TRACE blocked D S     2^D leaves each slept >= S us
       check_offcpu.py TRACE unavailable E   perf refused with errno E

Raw clock values (--clock-cycles, ns of CLOCK_MONOTONIC) are compared with
the begin/end payloads, which perf timed on the same clock. Prints TAP.
"""
import re
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"^\[(\d+)\].*fjtrace:(\w+): .*\{ vtid = (\d+)[^}]*\}, \{ (.*) \}$")
FIELD = re.compile(r"(\w+) = (-?\d+)")
checks = []


def ok(cond, what):
    checks.append((bool(cond), what))


def read(trace):
    out = subprocess.run(["babeltrace2", "--clock-cycles", trace], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"babeltrace2 failed: {out.stderr.strip()}")
    for line in out.stdout.splitlines():
        m = LINE.search(line)
        if m:
            f = {k: int(v) for k, v in FIELD.findall(m.group(4))}
            yield int(m.group(1)), m.group(2), int(m.group(3)), f


def main():
    trace, mode = sys.argv[1], sys.argv[2]
    workers, starts, refused, lost = {}, defaultdict(list), defaultdict(list), 0
    offcpu = defaultdict(list)  # vtid -> (begin, end, kind, emitted at)
    bodies = defaultdict(list)  # vtid -> [(exec ts, executed ts)]
    open_exec = defaultdict(list)
    for ts, name, vtid, f in read(trace):
        if name == "worker_begin":
            workers[vtid] = ts
        elif name == "offcpu_start":
            starts[vtid].append(ts)
        elif name == "offcpu_unavailable":
            refused[vtid].append(f["error"])
        elif name == "offcpu_lost":
            lost += f["lost"]
        elif name == "offcpu":
            offcpu[vtid].append((f["begin"], f["end"], f["kind"], ts))
        elif name == "exec":
            open_exec[vtid].append(ts)
        elif name == "executed" and open_exec[vtid]:
            bodies[vtid].append((open_exec[vtid].pop(), ts))
    ok(len(workers) >= 1, f"{len(workers)} workers began")
    if mode == "unavailable":
        err = int(sys.argv[3])
        ok(all(refused[v] == [err] for v in workers),
           f"each worker says once that perf was refused with errno {err}")
        ok(not starts and not offcpu, "no off-CPU recording started, no interval")
    else:
        ok(all(len(starts[v]) == 1 and starts[v][0] >= workers[v] for v in workers),
           "each worker starts recording once, after its worker_begin")
        ok(set(offcpu) <= set(workers), "intervals only on worker threads")
        bad = []
        for v, ivs in offcpu.items():
            prev_end = 0
            for b, e, k, at in ivs:
                # The perf event opens just before offcpu_start is written: a
                # switch in between begins before it, never before worker_begin.
                if not (workers[v] <= b < e <= at and k in (0, 1) and b >= prev_end):
                    bad.append((v, workers[v], starts[v], prev_end, b, e, k, at))
                prev_end = e
        ok(not bad, "intervals: after worker_begin, begin < end <= emission, in order, "
           f"disjoint {bad[:3]}")
        ok(lost == 0, f"no switch record lost ({lost})")
        if mode == "preempted":
            n = sum(1 for ivs in offcpu.values() for iv in ivs if iv[2] == 0)
            ok(n >= 1, f"{n} preemptions recorded while busy loops compete")
        elif mode == "blocked":
            leaves, sleep_ns = 1 << int(sys.argv[3]), int(sys.argv[4]) * 1000
            inside = [(b, e) for v, ivs in offcpu.items() for b, e, k, _ in ivs if k == 1
                      and any(x <= b and e <= y for x, y in bodies[v])]
            ok(len(inside) == leaves, f"{len(inside)} blocked intervals inside task bodies, "
               f"one per leaf ({leaves})")
            ok(all(e - b >= sleep_ns for b, e in inside), f"each lasts >= the {sleep_ns} ns slept")
    print(f"1..{len(checks)}")
    for i, (good, what) in enumerate(checks, 1):
        print(f"{'ok' if good else 'not ok'} {i} - {mode}: {what}")
    return 0 if all(g for g, _ in checks) else 1


sys.exit(main())
