#!/usr/bin/env python3
"""fjtrace-analyze through the real stack: the committed traces in
tests/data/ (see gen/make-traces.sh), bad input, exit codes, golden JSON.

    test_cli.py ANALYZER DATA_DIR [--update]

--update rewrites the golden tests/data/*.expected.json from the current
analyzer (review the diff before committing it).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ANALYZER, DATA = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def analyze(name, *extra):
    rc, out, err = run("--json", os.path.join(DATA, name), *extra)
    try:
        return rc, json.loads(out), err
    except json.JSONDecodeError as e:
        check(False, f"{name}: JSON does not parse: {e}")
        return rc, {}, err


def stable(report):
    """The report without what varies from run to run or machine to machine."""
    r = json.loads(json.dumps(report))
    r.pop("analyzer", None)
    r.get("trace", {}).pop("paths", None)
    return r


def golden(name, report):
    path = os.path.join(DATA, name + ".expected.json")
    if UPDATE:
        with open(path, "w") as f:
            json.dump(stable(report), f, indent=1, sort_keys=True)
            f.write("\n")
        return
    with open(path) as f:
        expected = json.load(f)
    check(stable(report) == expected, f"{name}: report differs from {path}")


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_usage():
    rc, _, err = run()
    check(rc == 2 and "no TRACE" in err, f"no argument: rc {rc}")
    rc, _, err = run("--bogus", "x")
    check(rc == 2 and "unknown option" in err, f"unknown option: rc {rc}")
    rc, _, err = run("--window", "5", "x")
    check(rc == 2 and "bad window" in err, f"bad window: rc {rc}")
    rc, _, err = run("--pool", "-1", "x")
    check(rc == 2, f"bad pool: rc {rc}")
    rc, out, _ = run("--help")
    check(rc == 0 and "Exit status" in out, "--help documents exit codes")


def test_bad_paths():
    rc, _, err = run("/nonexistent/trace")
    check(rc == 3 and "No such file" in err, f"missing path: rc {rc} {err!r}")
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = run(d)
        check(rc == 3 and "no CTF trace" in err, f"empty folder: rc {rc} {err!r}")
        # a trace whose metadata is cut: babeltrace2 cannot decode it
        bad = os.path.join(d, "bad")
        shutil.copytree(os.path.join(DATA, "fib-p1"), bad)
        for root, _, files in os.walk(bad):
            if "metadata" in files:
                with open(os.path.join(root, "metadata"), "r+b") as f:
                    f.truncate(100)
        rc, _, err = run(bad)
        check(rc == 3 and "fjtrace-analyze:" in err, f"corrupt trace: rc {rc} {err!r}")


def test_no_fjtrace():
    rc, out, err = run(os.path.join(DATA, "no-fjtrace"))
    check(rc == 4, f"no fjtrace events: rc {rc}")
    check("none from the fjtrace provider" in err and "fjtrace-record" in err,
          f"no fjtrace events: says what to do: {err!r}")


def test_fib_p1():
    rc, r, _ = analyze("fib-p1")
    check(rc == 0, f"fib-p1: rc {rc}")
    check(r["trace"]["complete"] and r["trace"]["discarded_events"] == 0, "fib-p1 complete")
    p = r["pools"][0]
    # naive fib(10): every internal call forks once: F(11) - 1
    check(p["totals"]["forks"] == fib(11) - 1, f"fib-p1 forks {p['totals']['forks']}")
    t = p["trees"][0]
    check(t["tasks"] == fib(11), f"fib-p1 tree tasks {t['tasks']}")
    # the deepest chain forks n-2 each time: fib(10) -> 8 -> 6 -> 4 -> 2 -> 0
    check(t["depth"] == 5, f"fib-p1 depth {t['depth']}")
    w = p["per_worker"][0]
    check(abs(w["busy_ns"] - t["work_ns"]) <= 0.01 * t["work_ns"], "P=1: busy == work within 1%")
    check(t["latency_ns"] >= t["work_ns"], "latency >= work")
    check(t["span_ns"] <= t["work_ns"], "span <= work")
    check(p["totals"]["steals"] == 0, "P=1: no steals")
    golden("fib-p1", r)


def test_fib_p2():
    rc, r, _ = analyze("fib-p2")
    check(rc == 0, f"fib-p2: rc {rc}")
    p = r["pools"][0]
    check(p["totals"]["forks"] == fib(13) - 1, f"fib-p2 forks {p['totals']['forks']}")
    t = p["trees"][0]
    check(t["tasks"] == fib(13) and t["span_ns"] <= t["work_ns"], "fib-p2 tree")
    busy = sum(w["busy_ns"] for w in p["per_worker"])
    check(busy == p["work_ns"], f"fib-p2: summed busy {busy} == work {p['work_ns']}")
    golden("fib-p2", r)


def test_fib_parallelism_grows():
    # at P=1 (the DAG's own parallelism, least disturbed): n = 10 -> 13
    _, r10, _ = analyze("fib-p1")
    _, r13, _ = analyze("fib13-p1")
    t10, t13 = r10["pools"][0]["trees"][0], r13["pools"][0]["trees"][0]
    check(t13["tasks"] == fib(14) and t13["depth"] == 6, "fib13 tree")  # 13, 11, .. 1
    check(t13["span_ns"] <= t13["work_ns"], "fib13 span <= work")
    check(t13["parallelism"] > t10["parallelism"], "fib parallelism grows with n")
    golden("fib13-p1", r13)


def test_quicksort():
    rc, r, _ = analyze("quicksort-p2")
    check(rc == 0, f"quicksort: rc {rc}")
    p = r["pools"][0]
    t = p["trees"][0]
    check(t["tasks"] == p["totals"]["forks"] + 1, "quicksort: one task per fork plus the root")
    check(t["span_ns"] <= t["work_ns"], "quicksort span <= work")
    golden("quicksort-p2", r)


def test_breakeven():
    rc, r, _ = analyze("breakeven-p2")
    check(rc == 0, f"breakeven: rc {rc}")
    p = r["pools"][0]
    check(len(p["trees"]) == 5 and p["milestones"]["latency"]["count"] == 5, "5 submissions")
    check(p["totals"]["completions"] > 0 and p["totals"]["completing_to_completed_ns"] > 0,
          "counted completers measured")
    for t in p["trees"]:
        check(t["final_handoff_ns"] is not None and t["final_handoff_ns"] >= 0, "hand-off")
        check(t["first_task_ns"] <= t["latency_ns"], "first task before the result")
    golden("breakeven-p2", r)


def test_contention():
    rc, r, _ = analyze("contention-p2")
    check(rc == 0, f"contention: rc {rc}")
    p = r["pools"][0]
    check(p["totals"]["lock_waits"] > 0 and p["time"]["lock_wait_ns"] > 0, "lock waits seen")
    check(p["time"]["gaps"]["lock"]["count"] == p["totals"]["lock_waits"], "one gap per wait")
    busy = sum(w["busy_ns"] for w in p["per_worker"])
    check(busy == p["work_ns"], "lock waits are not work")
    check(r["trace"]["unknown_events"] == 0, "lock events are known")
    golden("contention-p2", r)
    # --tasks: the per-task records agree with the summaries
    import csv
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tasks.csv")
        run("--tasks", path, os.path.join(DATA, "contention-p2"))
        with open(path) as f:
            rows = list(csv.DictReader(f))
    check(len(rows) == p["totals"]["tasks"], "--tasks: one row per task")
    check(sum(int(x["stolen"]) for x in rows) == p["totals"]["steals"] > 0, "--tasks: stolen")
    check(sum(int(x["self_ns"]) for x in rows) == p["work_ns"], "--tasks: self times sum to work")
    roots = [x for x in rows if x["parent"] == "0"]
    check(len(roots) == 1 and int(roots[0]["subtree_ns"]) == p["work_ns"],
          "--tasks: the root's subtree work is the tree's work")
    thieves = {x["worker"] for x in rows if x["stolen"] == "1"}
    check(thieves <= {"0", "1"}, "--tasks: the thief is a worker")


def test_discarded():
    rc, r, err = analyze("discarded")
    check(rc == 1, f"discarded: rc {rc}")
    n = r["trace"]["discarded_events"]
    check(n > 0 and not r["trace"]["complete"], "discarded: counted, trace incomplete")
    check(f"{n} event(s) were discarded" in err, f"discarded: warns with the count {err!r}")
    trees = r["pools"][0]["trees"]
    check(trees and not any(t["complete"] for t in trees), "discarded: trees incomplete")
    check(any(a["kind"] == "incomplete_trace" for a in r["pools"][0]["advice"]),
          "discarded: advice says so")


def test_killed():
    rc, r, _ = analyze("killed")
    check(rc == 1, f"killed: rc {rc}")
    p = r["pools"][0]
    check(p["totals"]["unfinished_tasks"] == 2, f"killed: {p['totals']['unfinished_tasks']}")
    t = p["trees"][0]
    check(not t["complete"] and t["latency_ns"] is None, "killed: tree unfinished")
    check(not r["trace"]["complete"], "killed: trace incomplete")
    # gen/scenario.c: the root runs on worker 0 (again, after its child 2
    # returned), its second child 3 is still queued there
    u = p["unfinished_tasks"]
    got = [(x["task"], x["state"], x["worker"], x["root"], x["depth"], x["parent"]) for x in u]
    check(got == [(1, "running", 0, 1, 0, None), (3, "queued", 0, 1, 1, 1)],
          f"killed: unfinished tasks {got}")
    dur = r["trace"]["duration_ns"]
    check(all(0 <= x["since_ns"] <= dur and x["since_ns"] + x["for_ns"] == dur for x in u),
          f"killed: since/for within the trace ({dur} ns): {u}")
    check(u[0]["since_ns"] < u[1]["since_ns"] and u[1]["for_ns"] == 0,
          "killed: the root resumed before the last fork, the trace's last event")
    rc, out, _ = run(os.path.join(DATA, "killed"))
    check("never finished" in out and "INCOMPLETE" in out, "killed: text report flags it")
    check("unfinished tasks: 2 (1 running, 1 queued)" in out, "killed: text lists them")
    check(any(line.split()[:5] == ["running", "task", "1", "on", "worker"] for line in out.splitlines()),
          "killed: text names the running root")
    check(any(line.split()[:3] == ["queued", "task", "3"] for line in out.splitlines()),
          "killed: text names the queued task")


def test_anomalies():
    rc, r, _ = analyze("anomalies")
    check(rc == 1, f"anomalies: rc {rc}")
    k = r["anomalies"]["by_kind"]
    check(k.get("executed_without_exec") == 1 and k.get("duplicate_task_id") == 1
          and k.get("unknown_parent") == 1, f"anomalies: {k}")
    check(r["anomalies"]["total"] == 3 and len(r["anomalies"]["examples"]) == 3, "examples")


def test_several_traces_and_filters():
    rc, out, _ = run("--json", os.path.join(DATA, "fib-p1"), os.path.join(DATA, "fib-p2"))
    r = json.loads(out)
    check(rc == 0 and len(r["pools"]) == 2, "two traces: two pools")
    check(sorted(p["source"] for p in r["pools"]) == [0, 1], "pools per trace")
    _, r, err = analyze("breakeven-p2", "--pool", "7")
    check(r["pools"] == [] and "no pool 7" in err, "--pool narrows")
    _, r, _ = analyze("breakeven-p2", "--root", "3")
    t = r["pools"][0]["trees"]
    check(len(t) == 1 and t[0]["root"] == 3, "--root narrows")
    _, r, _ = analyze("breakeven-p2", "--window", "0:1ns")
    check(len(r["pools"][0]["trees"]) == 0, "--window narrows")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        rc, _, _ = run("--json", "-o", out, os.path.join(DATA, "fib-p1"))
        with open(out) as f:
            check(rc == 0 and json.load(f)["schema_version"] == 1, "-o FILE")


def test_merge_equals_muxer():
    # the reader's own stream merge must order events as the muxer does
    for name in ["fib-p2", "quicksort-p2", "breakeven-p2", "discarded", "killed"]:
        _, a, _ = analyze(name)
        _, b, _ = analyze(name, "--muxer")
        check(stable(a) == stable(b), f"{name}: own merge and --muxer differ")


for test in [test_merge_equals_muxer, test_usage, test_bad_paths, test_no_fjtrace, test_fib_p1, test_fib_p2, test_fib_parallelism_grows,
             test_quicksort, test_breakeven, test_contention, test_discarded, test_killed, test_anomalies,
             test_several_traces_and_filters]:
    test()
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
