#!/usr/bin/env python3
"""The tracker's changes, one line each (fja-dump-changes), on committed
traces, against golden files tests/data/NAME.changes: a change in the
replay shows as the first line where it went another way, before any
figure of a report moves. After a deliberate change of the replay, look
at the diff and regenerate with --update.

    test_changes.py DUMP_CHANGES DATA_DIR [--update]
"""
import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

DUMP, DATA = sys.argv[1:3]
UPDATE = "--update" in sys.argv
# locks, steals, waited joins; OpenMP untied tasks (suspend, resume);
# completers, parks and wakes; a task cut short and unbalanced nesting;
# discarded events; a killed run; and, replayed on the CPU (--on-cpu: the
# off-CPU intervals read first, their boundaries among the events), an
# OpenMP tree beside a busy loop: stays off the CPU, the OMPT tool's clock
# readings, its own time and the tail before a switch (TOOL_TIME,
# TOOL_TAIL).
TRACES = ["contention-p2", "omp-untied", "breakeven-p2", "anomalies", "discarded", "killed",
          "omp-tree-offcpu"]
ON_CPU = {"omp-tree-offcpu"}

for name in TRACES:
    opts = ["--on-cpu"] if name in ON_CPU else []
    p = subprocess.run([DUMP, *opts, os.path.join(DATA, name)], capture_output=True, text=True,
                       timeout=120)
    ok(p.returncode == 0 and p.stdout, f"{name}: fja-dump-changes replays the trace",
       f"rc {p.returncode}", p.stderr)
    golden = os.path.join(DATA, name + ".changes")
    if UPDATE:
        with open(golden, "w") as f:
            f.write(p.stdout)
    want = open(golden).read() if os.path.exists(golden) else ""
    diff = list(difflib.unified_diff(want.splitlines(), p.stdout.splitlines(), golden, "replay",
                                     lineterm="", n=2))
    ok(not diff, f"{name}: the tracker's {len(want.splitlines())} changes are the golden ones",
       *diff[:40])
tap.done_testing()
