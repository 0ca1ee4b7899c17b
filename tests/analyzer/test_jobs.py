#!/usr/bin/env python3
"""The parallel reader (analyzer/reader/pread.h) gives the same report
whatever the number of decoding threads: text and JSON with --jobs 1, 2, 3,
the default (one per online core) and --jobs 2 with 4-record rings (the
threads wait on each other all the time) are compared byte for byte, with the
exit status and the warnings, on every trace in tests/data, on several
traces at once, and on traces recorded here through the real stack
(fjtrace-record, LTTng; that part is skipped without lttng).

    test_jobs.py ANALYZER DATA_DIR [FJTRACE_RECORD FJ_FIB]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

ANALYZER, DATA = sys.argv[1:3]
RECORD, FIB = (sys.argv[3:5] + [None, None])[:2]
# [] is the default; "tiny": 4-record rings, the threads wait on each other
JOBS = [["--jobs", "1"], ["--jobs", "2"], ["-j", "3"], [], ["tiny", "-j", "2"]]
TINY = dict(os.environ, FJTRACE_ANALYZE_TINY_RINGS="1")


# what differs from run to run: the analyzer's own time and peak memory
VARYING = re.compile(r'^ *"(wall_s|peak_rss_bytes)": .*$', re.M)


def run(args, tiny=False):
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=300, env=TINY if tiny else None)
    return p.returncode, VARYING.sub("", p.stdout), p.stderr


def same_reports(what, paths, extra=()):
    """Text and JSON reports of paths under every JOBS setting, compared
    with --jobs 1's."""
    # The 10 analyses are independent: two at a time, one a core (the
    # reports never depend on the load; under TSan this test otherwise ran
    # alone on one core for 30 of its 56 s in CI 49).
    todo = [([*fmt, *extra, *(j[1:] if j[:1] == ["tiny"] else j), *paths], j[:1] == ["tiny"])
            for fmt in ([], ["--json"]) for j in JOBS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda a: run(*a), todo))
    for i, fmt in enumerate(([], ["--json"])):
        kind = "JSON" if fmt else "text"
        runs = done[i * len(JOBS):(i + 1) * len(JOBS)]
        ref = runs[0]
        same = all(r == ref for r in runs[1:])
        diff = next((f"{' '.join(j) or 'default'}: rc {r[0]}, {r[2]!r}"
                     for j, r in zip(JOBS, runs) if r != ref), "")
        ok(same and (ref[1] or ref[0] >= 3), f"{what}: {kind} report, exit status and warnings the same with "
           "--jobs 1, 2, 3, the default and tiny rings", diff)


def data_traces():
    return sorted(n for n in os.listdir(DATA) if os.path.isdir(os.path.join(DATA, n)))


def recorded(tmp):
    """fj-fib recorded at P=2 (off-CPU on: its intervals read ahead) and with the
    default per-CPU channels; None without lttng."""
    out = os.path.join(tmp, "fib")
    rec = subprocess.run([RECORD, "-o", out, "--cmd-only", "--blocking", "--", FIB, "18",
                          "-p", "2"], capture_output=True, text=True, timeout=120)
    if rec.returncode in (120, 121):  # no lttng / no session daemon
        return None
    ok(rec.returncode == 0, "fjtrace-record records fib(18) at P=2", rec.stderr)
    return out


for name in data_traces():
    same_reports(name, [os.path.join(DATA, name)])
same_reports("fib-p1 and fib-p2 together",
             [os.path.join(DATA, "fib-p1"), os.path.join(DATA, "fib-p2")])
same_reports("breakeven-p2 --window", [os.path.join(DATA, "breakeven-p2")],
             ["--window", "0:100us"])
if RECORD and FIB and shutil.which("lttng"):
    with tempfile.TemporaryDirectory() as tmp:
        trace = recorded(tmp)
        if trace:
            same_reports("recorded fib(18) P=2", [trace])
        else:
            tap.skip(1, "no usable lttng: nothing recorded")
else:
    tap.skip(1, "no lttng: nothing recorded")
tap.done_testing()
