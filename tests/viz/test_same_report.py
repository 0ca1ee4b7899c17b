#!/usr/bin/env python3
"""Pictures never change the report: the text and the JSON report, the exit
status and the warnings are the same byte for byte without any picture
option, with each one alone (--html, --subtrees, --timeline, --charts,
--chrome-trace, --perfetto, --tasks) and with all of them at once, on every
trace in tests/data and on traces recorded here through the real stack
(fj-fib and fj-contention at P=2, off-CPU records on). Only the analyzer's
own costs may differ: its run time, peak memory and model size (--tasks and
the subtree diagrams keep every task record: docs/analyses.md, "Memory").

    test_same_report.py ANALYZER DATA_DIR FJTRACE_RECORD FJ_FIB FJ_CONTENTION

With SAME_REPORT_SANITIZED=1 (the ASan build, tests/viz/meson.build) each
trace is analysed without pictures and with every picture option at once
only: that run takes every picture writer through the trace under the
sanitizers; each option alone is compared in the normal build (the same
code). 4 analyses a trace instead of 18: this was the ASan build's slowest
test (81 s in CI, 579 s here at load ~10).
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

ANALYZER, DATA, RECORD, FIB, CONTENTION = sys.argv[1:6]
SANITIZED = os.environ.get("SAME_REPORT_SANITIZED") == "1"

# the analyzer's own costs: time, peak memory, the model's bytes
VARYING = re.compile(r'^ *"(wall_s|peak_rss_bytes|model_bytes)": .*$', re.M)


def picture_options(out):
    """Each picture option with a fresh target under OUT."""
    return [["--html", os.path.join(out, "r.html")],
            ["--subtrees", os.path.join(out, "sub"), "--format", "svg"],
            ["--timeline", os.path.join(out, "t.svg")],
            ["--charts", os.path.join(out, "charts")],
            ["--chrome-trace", os.path.join(out, "c.json")],
            ["--perfetto", os.path.join(out, "p.pftrace")],
            ["--tasks", os.path.join(out, "tasks.csv")]]


# options that draw with Graphviz or cairo's text: their runs keep
# LeakSanitizer's full unwinding (meson.build, lsan_full_stacks)
DRAWING = {"--html", "--subtrees", "--timeline", "--charts"}


def run(args):
    fast = os.environ.get("FJTRACE_TEST_LSAN_FAST")
    env = dict(os.environ, LSAN_OPTIONS=fast) if fast and not DRAWING & set(args) else None
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=300, env=env)
    return p.returncode, VARYING.sub("", p.stdout), p.stderr


def written(opt):
    """The picture option's file, or a folder with something in it."""
    path = opt[1]
    if os.path.isdir(path):
        return bool(os.listdir(path))
    return os.path.isfile(path) and os.path.getsize(path) > 0


def same_reports(name, trace, tmp):
    """Text and JSON report of TRACE alone and beside each picture option."""
    # The 18 analyses of a trace are independent (each writes its own
    # files): two at a time, one a core (the report never depends on the
    # load, only the costs VARYING removes do).
    runs = {}
    for fmt in ([], ["--json"]):
        kind = "JSON" if fmt else "text"
        runs[kind, None] = [*fmt, trace]
        every = []
        for sub in ("", "-all"):
            for opt in picture_options(os.path.join(tmp, f"{name}-{kind}{sub}")):
                os.makedirs(os.path.dirname(opt[1]), exist_ok=True)
                if opt[0] in ("--subtrees", "--charts"):
                    os.makedirs(opt[1], exist_ok=True)
                if sub:
                    every += opt
                elif not SANITIZED:
                    runs[kind, opt[0]] = [*fmt, *opt, trace]
        runs[kind, "all"] = [*fmt, *every, trace]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(runs, pool.map(run, runs.values())))
    for fmt in ([], ["--json"]):
        kind = "JSON" if fmt else "text"
        ref = done[kind, None]
        if SANITIZED:
            tap.skip(2, f"{name} ({kind}): each picture option alone is compared in the "
                     "normal build (here: all at once, under the sanitizers)")
        else:
            diffs, missing = [], []
            for opt in picture_options(os.path.join(tmp, f"{name}-{kind}")):
                got = done[kind, opt[0]]
                if got != ref:
                    diffs.append(f"{opt[0]}: rc {got[0]} (alone {ref[0]}), stderr {got[2]!r}"
                                 f"{' (report differs)' if got[1] != ref[1] else ''}")
                elif ref[0] <= 1 and not written(opt):
                    missing.append(opt[0])
            ok(not diffs and (ref[1] or ref[0] >= 3),
               f"{name}: {kind} report, exit status and warnings the same without pictures and "
               "with each of --html, --subtrees, --timeline, --charts, --chrome-trace, "
               "--perfetto, --tasks", *diffs)
            ok(not missing,
               f"{name} ({kind}): each picture option wrote its output beside the report",
               f"nothing written by {missing}")
        # every picture option in one run: the listeners share one replay
        got = done[kind, "all"]
        missing = [o[0] for o in picture_options(os.path.join(tmp, f"{name}-{kind}-all"))
                   if ref[0] <= 1 and not written(o)]
        ok(got == ref and not missing,
           f"{name}: {kind} report, exit status and warnings the same with every picture option "
           "at once, each output written",
           f"rc {got[0]} (alone {ref[0]}), stderr {got[2]!r}"
           f"{' (report differs)' if got[1] != ref[1] else ''}, nothing written by {missing}")
    return ref[0]


def run_stamp():
    """"PID START" of meson test, this process's parent or the parent of
    tests/private-sessiond.sh running it (as shared.sh)."""
    ppid = int(os.environ.get("FJTRACE_TEST_PPID", os.getppid()))
    try:
        stat = open(f"/proc/{ppid}/stat").read()
    except OSError:
        return None
    return f"{ppid} {stat.rsplit(') ', 1)[1].split()[19]}"


def record(tmp, name, cmd):
    out = os.path.join(tmp, name)
    shared = os.path.join(os.environ.get("VIZ_SHARED", ""), name)
    try:
        stamp = open(shared + ".run").read().strip()
    except OSError:
        stamp = None
    if os.environ.get("VIZ_SHARED") and stamp and stamp == run_stamp():
        ok(os.path.isdir(shared), f"the suite's recording of {name} is there (viz-record)")
        return shared
    rec = subprocess.run([RECORD, "-o", out, "--cmd-only", "--blocking", "--no-count", "--", *cmd],
                         capture_output=True, text=True, timeout=300)
    if rec.returncode in (120, 121):  # no lttng / no session daemon
        return None
    ok(rec.returncode == 0, f"fjtrace-record records {' '.join(os.path.basename(c) for c in cmd)}",
       rec.stderr)
    return out


with tempfile.TemporaryDirectory() as tmp:
    for name in sorted(os.listdir(DATA)):
        if os.path.isdir(os.path.join(DATA, name)):
            same_reports(name, os.path.join(DATA, name), tmp)
    if not shutil.which("lttng"):
        tap.skip(16, "no lttng: no trace recorded here")
    else:
        for name, cmd in (("fib18-p2", [FIB, "18", "-p", "2"]),
                          ("contention-p2", [CONTENTION, "-p", "2"])):
            trace = record(tmp, name, cmd)
            if trace is None:
                tap.skip(8, "no usable lttng session daemon")
                continue
            rc = same_reports("recorded " + name, trace, tmp)
            tap.is_eq(rc, 0, f"recorded {name}: the whole trace is analysed with exit 0")
tap.done_testing()
