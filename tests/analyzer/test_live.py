#!/usr/bin/env python3
"""Records fj-fib through the real stack (fjtrace-record, LTTng) and checks
the analyzer's invariants on it. Exit 77 (skipped) without a usable lttng.

    test_live.py ANALYZER FJTRACE_RECORD FJ_FIB
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ANALYZER, RECORD, FIB = sys.argv[1:4]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def record_and_analyze(tmp, n, p):
    out = os.path.join(tmp, f"fib-{n}-{p}")
    rec = subprocess.run([RECORD, "-o", out, "--cmd-only", "--blocking", "--", FIB, str(n),
                          "-p", str(p)], capture_output=True, text=True, timeout=120)
    if rec.returncode in (120, 121):  # no lttng / no session daemon
        print(rec.stderr, file=sys.stderr)
        sys.exit(77)
    check(rec.returncode == 0, f"fjtrace-record fib {n} -p {p}: {rec.stderr}")
    a = subprocess.run([ANALYZER, "--json", "--no-progress", out], capture_output=True,
                       text=True, timeout=120)
    check(a.returncode == 0, f"analyze fib {n} -p {p}: rc {a.returncode} {a.stderr}")
    return json.loads(a.stdout)


if not shutil.which("lttng"):
    sys.exit(77)
with tempfile.TemporaryDirectory() as tmp:
    for n, p in [(16, 1), (16, 2)]:
        r = record_and_analyze(tmp, n, p)
        pool = r["pools"][0]
        t = pool["trees"][0]
        what = f"fib({n}) P={p}"
        check(pool["totals"]["forks"] == fib(n + 1) - 1, f"{what}: forks = F(n+1)-1")
        check(t["tasks"] == fib(n + 1) and t["depth"] == n // 2, f"{what}: tree shape")
        check(t["complete"] and r["trace"]["complete"], f"{what}: complete")
        check(0 < t["span_ns"] <= t["work_ns"], f"{what}: span <= work")
        busy = sum(w["busy_ns"] for w in pool["per_worker"])
        check(busy == pool["work_ns"], f"{what}: summed busy == work")
        if p == 1:
            check(abs(pool["per_worker"][0]["busy_ns"] - t["work_ns"]) <= 0.01 * t["work_ns"],
                  f"{what}: busy == work within 1%")
            check(t["latency_ns"] >= t["work_ns"], f"{what}: latency >= work")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
