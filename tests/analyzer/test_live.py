#!/usr/bin/env python3
"""Records fj-fib through the real stack (fjtrace-record, LTTng) and checks
the analyzer's invariants on it. Skipped (TAP) without a usable lttng.

    test_live.py ANALYZER FJTRACE_RECORD FJ_FIB
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

ANALYZER, RECORD, FIB = sys.argv[1:4]


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
        tap.plan_skip_all(f"no usable lttng: {rec.stderr.strip()}")
    ok(rec.returncode == 0, f"fjtrace-record records fib({n}) at P={p}", rec.stderr)
    a = subprocess.run([ANALYZER, "--json", "--no-progress", out], capture_output=True,
                       text=True, timeout=120)
    ok(a.returncode == 0, f"fjtrace-analyze reads fib({n}) at P={p}, exit 0",
       f"rc {a.returncode} {a.stderr}")
    return json.loads(a.stdout)


def kernel_config(name):
    """y or n as the running kernel was built with CONFIG_name, read here
    independently of the recorder (None: no configuration to read)."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            text = f.read()
    except OSError:
        try:
            with open(f"/boot/config-{os.uname().release}") as f:
                text = f.read()
        except OSError:
            return None
    return f"CONFIG_{name}=y" in text.splitlines()


def check_host(r, what):
    """The report says of the recording host what its kernel says of
    itself (docs/report-schema.md, trace.host)."""
    host = r["trace"]["host"]
    tap.is_eq(host["kernel"], os.uname().release, f"{what}: the report names the recording kernel")
    tap.is_eq(host["irq_time_accounting"], kernel_config("IRQ_TIME_ACCOUNTING"),
              f"{what}: whether interrupt time is accounted apart, as the kernel's configuration says")
    tap.is_eq(host["steal_time_accounting"], kernel_config("PARAVIRT_TIME_ACCOUNTING"),
              f"{what}: whether steal time is accounted apart, as the kernel's configuration says")


if not shutil.which("lttng"):
    tap.plan_skip_all("no lttng on PATH")
with tempfile.TemporaryDirectory() as tmp:
    for n, p in [(16, 1), (16, 2)]:
        r = record_and_analyze(tmp, n, p)
        pool = r["pools"][0]
        t = pool["trees"][0]
        what = f"fib({n}) P={p}"
        check_host(r, what)
        tap.is_eq(pool["totals"]["forks"], fib(n + 1) - 1, f"{what}: F(n+1)-1 forks")
        ok(t["tasks"] == fib(n + 1) and t["depth"] == n // 2,
           f"{what}: the tree has F(n+1) tasks and is n/2 forks deep")
        ok(t["complete"] and r["trace"]["complete"], f"{what}: the tree and the trace are complete")
        ok(0 < t["span_ns"] <= t["work_ns"], f"{what}: the span is positive and at most the work")
        busy = sum(w["busy_ns"] for w in pool["per_worker"])
        tap.is_eq(busy, pool["work_ns"], f"{what}: the workers' busy times add up to the work")
        if p == 1:
            ok(abs(pool["per_worker"][0]["busy_ns"] - t["work_ns"]) <= 0.01 * t["work_ns"],
               f"{what}: the one worker's busy time is the work, within 1%")
            ok(t["latency_ns"] >= t["work_ns"], f"{what}: the latency is at least the work")
tap.done_testing()
