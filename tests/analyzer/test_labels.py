#!/usr/bin/env python3
"""The labels a reader sees (issue 27): pools named by process and pid (and
the trace when several), root tasks numbered per pool as the report lists
them (the raw ids kept in JSON), the HTML workers table with the text
report's columns. On the committed traces in tests/data/.

    test_labels.py ANALYZER DATA_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

ANALYZER, DATA = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def data(name):
    return os.path.join(DATA, name)


# One trace of one process: "pool 1 of process NAME pid N", no trace.
rc, text, err = run(data("omp-fib-p2"))
_, js, _ = run("--json", data("omp-fib-p2"))
r = json.loads(js)
p = r["pools"][0]
want = f"pool 1 of process {p['process']['name']} pid {p['process']['pid']}: 2 workers"
ok(re.search("^" + re.escape(want), text, re.M) is not None,
   "one trace: the pool is named by its process and pid, without the trace", want)
ok("(trace " not in text, "one trace: no trace number in the text report")
roots = re.findall(r"^  root (#\d+|\d+)", text, re.M)
tap.is_eq(roots, [f"#{i + 1}" for i in range(len(p["trees"]))],
          "the trees are listed as root #1, #2, ... in the report's order")
ok(all(str(t["root"]) not in text for t in p["trees"] if t["root"] > 1000),
   "no raw root id (like 1099511627778) in the text report")
tap.is_eq([t["root"] for t in p["trees"]], [1099511627778, 2199023255553],
          "the JSON report keeps the raw root ids")

# Several traces: the trace number too.
rc, text, err = run(data("fib-p2"), data("fib-p1"))
heads = re.findall(r"^pool .*?:", text, re.M)
tap.is_eq(heads, ["pool 1 of process fj-fib (trace 0):", "pool 1 of process fj-fib (trace 1):"],
          "two traces: each pool says its trace")

# An unfinished task names its tree by the number the report lists.
rc, text, err = run(data("killed"))
ok("running    task 1 on worker 0, depth 0, tree of root #1:" in text,
   "killed: the running task's tree is 'root #1', as listed", text)
ok(re.search(r"^  root #1 \(INCOMPLETE\)", text, re.M) is not None,
   "killed: the tree is listed as root #1 (INCOMPLETE)")

# HTML: the workers table has the text report's columns.
rc, helptext, _ = run("--help")
if "--html" in helptext:
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "r.html")
        rc, _, err = run(data("omp-fib-p2"), "-o", os.devnull, "--html", html)
        ok(rc == 0, "--html writes the report", err)
        page = open(html, encoding="utf-8").read()
        m = re.search(r'<h2 id="workers">.*?<table>(.*?)</table>', page, re.S)
        table = m.group(1) if m else ""
        heads = re.findall(r"<th>([^<]*)</th>", table)
        for col in ("tasks", "forks", "steals", "joins waited", "busy", "join wait", "searching",
                    "parked", "lock wait", "preempted", "blocked", "max queue", "mean queue"):
            ok(col in heads, f"the HTML workers table has the column '{col}'", heads)
        rows = re.findall(r"<tr><td.*?</tr>", table)
        ok(len(rows) == 2 and all(len(re.findall(r"<td", x)) == len(heads) for x in rows),
           "each worker row has a cell per column", rows)
        # The trace recorded no switches: n/a, not 0, as in the text report.
        ok(all(re.search(r"<td>n/a</td><td>n/a</td>", x) for x in rows),
           "preempted and blocked are n/a where the trace recorded no switches", rows)
        ok(f"<h3>pool 1 of process omp-fib pid {p['process']['pid']}:" in page,
           "the HTML headings name the pool by process and pid")
        ok("<td>#1</td>" in page and "<td>0x" not in page,
           "the HTML trees table numbers the roots (#1) instead of raw ids")
else:
    tap.skip(9, "built without the pictures (--html)")
tap.done_testing()
