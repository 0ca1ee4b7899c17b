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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tap  # noqa: E402
from tap import ok  # noqa: E402

ANALYZER, DATA = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv
def run(*args):
    p = subprocess.run([ANALYZER, "--no-progress", *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def analyze(name, *extra):
    rc, out, err = run("--json", os.path.join(DATA, name), *extra)
    try:
        return rc, json.loads(out), err
    except json.JSONDecodeError as e:
        ok(False, f"{name}: the JSON report parses", str(e))
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
    ok(stable(report) == expected, f"{name}: the report equals the golden {os.path.basename(path)}")


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_usage():
    rc, _, err = run()
    ok(rc == 2 and "no TRACE" in err, "no TRACE argument: exit 2, says no TRACE", f"rc {rc} {err!r}")
    rc, _, err = run("--bogus", "x")
    ok(rc == 2 and "unknown option" in err, "an unknown option: exit 2, says unknown option",
       f"rc {rc} {err!r}")
    rc, _, err = run("--window", "5", "x")
    ok(rc == 2 and "bad window" in err, "--window 5: exit 2, says bad window", f"rc {rc} {err!r}")
    rc, _, err = run("--pool", "-1", "x")
    ok(rc == 2, "--pool -1: exit 2", f"rc {rc}")
    rc, out, _ = run("--help")
    ok(rc == 0 and "Exit status" in out, "--help exits 0 and documents the exit codes")


def test_bad_paths():
    rc, _, err = run("/nonexistent/trace")
    ok(rc == 3 and "No such file" in err, "a missing path: exit 3, says No such file",
       f"rc {rc} {err!r}")
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = run(d)
        ok(rc == 3 and "no CTF trace" in err, "an empty folder: exit 3, says no CTF trace",
           f"rc {rc} {err!r}")
        # a trace whose metadata is cut: babeltrace2 cannot decode it
        bad = os.path.join(d, "bad")
        shutil.copytree(os.path.join(DATA, "fib-p1"), bad)
        for root, _, files in os.walk(bad):
            if "metadata" in files:
                with open(os.path.join(root, "metadata"), "r+b") as f:
                    f.truncate(100)
        rc, _, err = run(bad)
        ok(rc == 3 and "fjtrace-analyze:" in err, "a trace with cut metadata: exit 3 with a message",
           f"rc {rc} {err!r}")


def test_no_fjtrace():
    rc, out, err = run(os.path.join(DATA, "no-fjtrace"))
    ok(rc == 4, "a trace without fjtrace events: exit 4", f"rc {rc}")
    ok("none from the fjtrace provider" in err and "fjtrace-record" in err,
       "a trace without fjtrace events: says so and points to fjtrace-record", repr(err))


def test_fib_p1():
    rc, r, _ = analyze("fib-p1")
    ok(rc == 0, "fib-p1: exit 0", f"rc {rc}")
    ok(r["trace"]["complete"] and r["trace"]["discarded_events"] == 0,
       "fib-p1: the trace is complete, no event discarded")
    p = r["pools"][0]
    # naive fib(10): every internal call forks once: F(11) - 1
    tap.is_eq(p["totals"]["forks"], fib(11) - 1, "fib-p1: naive fib(10) forks F(11)-1 times")
    t = p["trees"][0]
    tap.is_eq(t["tasks"], fib(11), "fib-p1: the tree has F(11) tasks")
    # the deepest chain forks n-2 each time: fib(10) -> 8 -> 6 -> 4 -> 2 -> 0
    tap.is_eq(t["depth"], 5, "fib-p1: the tree is 5 forks deep")
    w = p["per_worker"][0]
    ok(abs(w["busy_ns"] - t["work_ns"]) <= 0.01 * t["work_ns"],
       "fib-p1: the one worker's busy time is the work, within 1%")
    ok(t["latency_ns"] >= t["work_ns"], "fib-p1: at P=1 the latency is at least the work")
    ok(t["span_ns"] <= t["work_ns"], "fib-p1: the span is at most the work")
    tap.is_eq(p["totals"]["steals"], 0, "fib-p1: one worker steals nothing")
    golden("fib-p1", r)


def test_fib_p2():
    rc, r, _ = analyze("fib-p2")
    ok(rc == 0, "fib-p2: exit 0", f"rc {rc}")
    p = r["pools"][0]
    tap.is_eq(p["totals"]["forks"], fib(13) - 1, "fib-p2: naive fib(12) forks F(13)-1 times")
    t = p["trees"][0]
    ok(t["tasks"] == fib(13) and t["span_ns"] <= t["work_ns"],
       "fib-p2: the tree has F(13) tasks and its span is at most its work")
    busy = sum(w["busy_ns"] for w in p["per_worker"])
    tap.is_eq(busy, p["work_ns"], "fib-p2: the workers' busy times add up to the work")
    golden("fib-p2", r)


def test_fib_parallelism_grows():
    # at P=1 (the DAG's own parallelism, least disturbed): n = 10 -> 13
    _, r10, _ = analyze("fib-p1")
    _, r13, _ = analyze("fib13-p1")
    t10, t13 = r10["pools"][0]["trees"][0], r13["pools"][0]["trees"][0]
    ok(t13["tasks"] == fib(14) and t13["depth"] == 6,  # 13, 11, .. 1
       "fib13-p1: the tree has F(14) tasks and is 6 forks deep")
    ok(t13["span_ns"] <= t13["work_ns"], "fib13-p1: the span is at most the work")
    ok(t13["parallelism"] > t10["parallelism"], "fib's parallelism grows from n = 10 to 13",
       f"{t10['parallelism']} -> {t13['parallelism']}")
    golden("fib13-p1", r13)


def test_quicksort():
    rc, r, _ = analyze("quicksort-p2")
    ok(rc == 0, "quicksort-p2: exit 0", f"rc {rc}")
    p = r["pools"][0]
    t = p["trees"][0]
    ok(t["tasks"] == p["totals"]["forks"] + 1, "quicksort-p2: one task per fork plus the root")
    ok(t["span_ns"] <= t["work_ns"], "quicksort-p2: the span is at most the work")
    golden("quicksort-p2", r)


def sizes_of(name):
    """The (task, parent, size_hint) of every task of trace `name` (--tasks)."""
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "tasks.csv")
        rc, _, err = run(os.path.join(DATA, name), "--tasks", csv, "-o", os.devnull)
        ok(rc == 0, f"{name}: exit 0 with --tasks", f"rc {rc} {err[-300:]!r}")
        with open(csv) as f:
            rows = [line.rstrip("\n").split(",") for line in f][1:]
    return sorted((int(r[3]), int(r[4]), int(r[6])) for r in rows)


def test_fork_layouts():
    """The same fib(12), P=2, recorded by libfj before and after fork's
    site and size_hint went into one field (fib12-sized-p2: fork with
    size_hint and site; fib12-packed-p2: fork with site_size): the same
    tasks, parents and sizes, and both forks' sites."""
    old, new = sizes_of("fib12-sized-p2"), sizes_of("fib12-packed-p2")
    tap.is_eq(len(old), fib(13), "fib12-sized-p2 (fork with size_hint, site): F(13) tasks")
    ok(old == new, "the tasks, parents and sizes of both layouts are the same",
       f"{old[:4]} vs {new[:4]}")
    # fib_naive spawns fib(n-2) with size n-2: sizes 0..10 under the root's 12
    ok({s for _, p, s in old if p} == set(range(11)),
       "both layouts: the forked tasks' sizes are fib's n, 0 to 10")
    for name in ["fib12-sized-p2", "fib12-packed-p2"]:
        rc, r, _ = analyze(name)
        sites = r["pools"][0]["sites"] or []
        ok(rc == 0 and sorted(s["forks"] for s in sites) == [0, fib(13) - 1],
           f"{name}: two sites, the root's and the {fib(13) - 1} forks' of one FJ_SPAWN",
           str(sites)[:300])
        golden(name, r)


def test_breakeven():
    rc, r, _ = analyze("breakeven-p2")
    ok(rc == 0, "breakeven-p2: exit 0", f"rc {rc}")
    p = r["pools"][0]
    ok(len(p["trees"]) == 5 and p["milestones"]["latency"]["count"] == 5,
       "breakeven-p2: 5 submissions, 5 trees and 5 latencies")
    ok(p["totals"]["completions"] > 0 and p["totals"]["completing_to_completed_ns"] > 0,
       "breakeven-p2: the counted completers' completions are measured")
    for t in p["trees"]:
        ok(t["final_handoff_ns"] is not None and t["final_handoff_ns"] >= 0,
           f"breakeven-p2: root {t['root']} has a measured hand-off")
        ok(t["first_task_ns"] <= t["latency_ns"],
           f"breakeven-p2: root {t['root']}'s first task starts before its result")
    golden("breakeven-p2", r)


def test_openmp():
    """Traces of the OMPT tool (libfjtrace-omp): naive task fib(10) on 2
    threads, and untied tasks that yield."""
    rc, r, _ = analyze("omp-fib-p2")
    ok(rc == 0, "omp-fib-p2: exit 0 (complete, no anomaly)", f"rc {rc}")
    p = r["pools"][0]
    omp = p.get("openmp") or {}
    tap.is_eq(omp.get("explicit_tasks"), 2 * fib(11) - 2, "omp-fib-p2: 2F(11)-2 explicit tasks")
    tap.is_eq(omp.get("implicit_tasks"), 2, "omp-fib-p2: 2 implicit tasks (2 threads)")
    ok(omp.get("steals_inferred") is True, "omp-fib-p2: steals are marked inferred")
    ok(p["totals"]["parks"] is None and p["totals"]["wakes"] is None,
       "omp-fib-p2: parks and wakes unknown (null), not 0")
    tap.is_eq(omp.get("taskwait_waits"), fib(11) - 1,
              "omp-fib-p2: a taskwait wait in each of the F(11)-1 inner calls")
    ok(all(t["span_ns"] <= t["work_ns"] for t in p["trees"]),
       "omp-fib-p2: each tree's span is at most its work")
    golden("omp-fib-p2", r)
    rc, r, _ = analyze("omp-untied")
    ok(rc == 0 and r["anomalies"]["total"] == 0, "omp-untied: exit 0, no anomaly",
       f"rc {rc} {r.get('anomalies')}")
    ok(r["pools"][0]["openmp"]["untied_suspensions"] > 0,
       "omp-untied: the untied tasks' suspensions are counted")


def test_contention():
    rc, r, _ = analyze("contention-p2")
    ok(rc == 0, "contention-p2: exit 0", f"rc {rc}")
    p = r["pools"][0]
    ok(p["totals"]["lock_waits"] > 0 and p["time"]["lock_wait_ns"] > 0,
       "contention-p2: lock waits are counted and timed")
    ok(p["time"]["gaps"]["lock"]["count"] == p["totals"]["lock_waits"],
       "contention-p2: one lock gap per lock wait")
    busy = sum(w["busy_ns"] for w in p["per_worker"])
    tap.is_eq(busy, p["work_ns"], "contention-p2: lock waits are not work (busy adds up to work)")
    tap.is_eq(r["trace"]["unknown_events"], 0, "contention-p2: the lock events are known events")
    golden("contention-p2", r)
    # --tasks: the per-task records agree with the summaries
    import csv
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tasks.csv")
        run("--tasks", path, os.path.join(DATA, "contention-p2"))
        with open(path) as f:
            rows = list(csv.DictReader(f))
    tap.is_eq(len(rows), p["totals"]["tasks"], "--tasks: one row per task")
    ok(sum(int(x["stolen"]) for x in rows) == p["totals"]["steals"] > 0,
       "--tasks: the stolen rows count the steals, and there are some")
    tap.is_eq(sum(int(x["self_ns"]) for x in rows), p["work_ns"],
              "--tasks: the self times add up to the work")
    roots = [x for x in rows if x["parent"] == "0"]
    ok(len(roots) == 1 and int(roots[0]["subtree_ns"]) == p["work_ns"],
       "--tasks: one root, whose subtree work is the tree's work")
    thieves = {x["worker"] for x in rows if x["stolen"] == "1"}
    ok(thieves <= {"0", "1"}, "--tasks: every thief is one of the 2 workers", str(thieves))


def test_discarded():
    rc, r, err = analyze("discarded")
    ok(rc == 1, "discarded: exit 1 (incomplete)", f"rc {rc}")
    n = r["trace"]["discarded_events"]
    ok(n > 0 and not r["trace"]["complete"], "discarded: the lost events are counted, the trace incomplete")
    ok(f"{n} event(s) were discarded" in err, "discarded: a warning gives the count", repr(err))
    trees = r["pools"][0]["trees"]
    ok(trees and not any(t["complete"] for t in trees), "discarded: no tree is complete")
    ok(any(a["kind"] == "incomplete_trace" for a in r["pools"][0]["advice"]),
       "discarded: the advice says the trace is incomplete")


def test_killed():
    rc, r, _ = analyze("killed")
    ok(rc == 1, "killed: exit 1 (incomplete)", f"rc {rc}")
    p = r["pools"][0]
    tap.is_eq(p["totals"]["unfinished_tasks"], 2, "killed: 2 tasks unfinished")
    t = p["trees"][0]
    ok(not t["complete"] and t["latency_ns"] is None, "killed: the tree is unfinished, latency unknown")
    ok(not r["trace"]["complete"], "killed: the trace is incomplete")
    # gen/scenario.c: the root runs on worker 0 (again, after its child 2
    # returned), its second child 3 is still queued there
    u = p["unfinished_tasks"]
    got = [(x["task"], x["state"], x["worker"], x["root"], x["depth"], x["parent"]) for x in u]
    tap.is_eq(got, [(1, "running", 0, 1, 0, None), (3, "queued", 0, 1, 1, 1)],
              "killed: root 1 running on worker 0, its child 3 queued there")
    dur = r["trace"]["duration_ns"]
    ok(all(0 <= x["since_ns"] <= dur and x["since_ns"] + x["for_ns"] == dur for x in u),
       "killed: each unfinished task's since + for is the trace's duration",
       f"duration {dur} ns: {u}")
    ok(u[0]["since_ns"] < u[1]["since_ns"] and u[1]["for_ns"] == 0,
       "killed: the root resumed before the last fork, the trace's last event")
    rc, out, _ = run(os.path.join(DATA, "killed"))
    ok("never finished" in out and "INCOMPLETE" in out, "killed: the text report flags it INCOMPLETE")
    ok("unfinished tasks: 2 (1 running, 1 queued)" in out, "killed: the text report counts the unfinished tasks")
    ok(any(line.split()[:5] == ["running", "task", "1", "on", "worker"] for line in out.splitlines()),
       "killed: the text report names the running root")
    ok(any(line.split()[:3] == ["queued", "task", "3"] for line in out.splitlines()),
       "killed: the text report names the queued task")


def test_anomalies():
    rc, r, _ = analyze("anomalies")
    ok(rc == 1, "anomalies: exit 1", f"rc {rc}")
    k = r["anomalies"]["by_kind"]
    ok(k.get("executed_without_exec") == 1 and k.get("duplicate_task_id") == 1
       and k.get("unknown_parent") == 1, "anomalies: one of each of the 3 planted kinds", str(k))
    ok(r["anomalies"]["total"] == 3 and len(r["anomalies"]["examples"]) == 3,
       "anomalies: 3 in total, each with an example")


def test_several_traces_and_filters():
    rc, out, _ = run("--json", os.path.join(DATA, "fib-p1"), os.path.join(DATA, "fib-p2"))
    r = json.loads(out)
    ok(rc == 0 and len(r["pools"]) == 2, "two traces: exit 0, two pools")
    ok(sorted(p["source"] for p in r["pools"]) == [0, 1], "two traces: one pool from each")
    alone = sorted(analyze(n)[1]["trace"]["duration_ns"] for n in ("fib-p1", "fib-p2"))
    each = sorted(t["duration_ns"] for t in r["trace"].get("traces", []))
    ok(each == alone, "two traces: trace.traces gives each trace's own duration, as it has "
       "analysed alone", f"{each} vs {alone}")
    ok(r["trace"]["duration_ns"] > sum(alone),
       "two traces recorded apart: trace.duration_ns spans the recordings (more than both)")
    _, out, _ = run(os.path.join(DATA, "fib-p1"), os.path.join(DATA, "fib-p2"))
    head = out.splitlines()[1] if out.count("\n") > 1 else ""
    ok(head.startswith("  events 978 in 2 traces lasting ") and "(recorded within " in head,
       "two traces: the header gives each trace's duration and labels the span of the "
       "recordings", head)
    rc, r, err = analyze("breakeven-p2", "--pool", "7")
    ok(r["pools"] == [] and "no pool 7" in err, "--pool 7 keeps no pool and says no pool 7")
    tap.is_eq(rc, 7, "--pool 7 (no such pool): exit 7, the selection names nothing")
    rc, r, err = analyze("breakeven-p2", "--root", "999")
    ok(all(p["trees"] == [] for p in r["pools"]) and "no tree with root 999" in err,
       "--root 999 (no such root) keeps no tree and says so, like --pool", err)
    tap.is_eq(rc, 7, "--root 999 (no such tree): exit 7, not 0")
    rc, r, _ = analyze("breakeven-p2", "--root", "3")
    t = r["pools"][0]["trees"]
    ok(len(t) == 1 and t[0]["root"] == 3, "--root 3 keeps only the tree of root 3")
    tap.is_eq(rc, 0, "--root 3 (a tree of the trace): exit 0")
    _, r, _ = analyze("breakeven-p2", "--window", "0:1ns")
    tap.is_eq(len(r["pools"][0]["trees"]), 0, "--window 0:1ns keeps no tree")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        rc, _, _ = run("--json", "-o", out, os.path.join(DATA, "fib-p1"))
        with open(out) as f:
            ok(rc == 0 and json.load(f)["schema_version"] == 1,
               "-o FILE writes the JSON report (schema 1) to FILE")


def test_unopenable_folder_left_out():
    """A trace folder babeltrace2 cannot open (its metadata cut short: LTTng
    leaves such a folder for a process that ends as an --all-processes
    session begins) is left out and named, the others are read: exit 3, not
    a lost report. One such folder alone stays unreadable (exit 3)."""
    with tempfile.TemporaryDirectory() as d:
        whole, cut = os.path.join(d, "whole"), os.path.join(d, "cut")
        shutil.copytree(os.path.join(DATA, "fib-p1"), whole)
        shutil.copytree(os.path.join(DATA, "fib-p2"), cut)
        os.truncate(os.path.join(cut, "ust", "uid", "0", "64-bit", "metadata"), 4096)
        _, alone, _ = analyze("fib-p1")
        rc, out, err = run("--json", whole, cut)
        r = json.loads(out) if out else {}
        tap.is_eq(rc, 3, "a folder that cannot be opened beside a whole one: exit 3 (damaged)")
        ok(len(r.get("pools", [])) == 1 and r["pools"][0]["totals"] == alone["pools"][0]["totals"],
           "its other folder is read: the whole trace's pool, as analysed alone", err)
        ok("cannot be opened and are left out, the other 1 read" in err and cut in err,
           "stderr says the folder is left out and names it", err)
        ok(r.get("trace", {}).get("complete") is False and "left out" in r["trace"]["decode_error"],
           "the report is marked incomplete and says why")
        rc, out, err = run("--json", cut)
        tap.is_eq(rc, 3, "that folder alone: exit 3, unreadable")
        ok(not out and "cannot open this CTF trace" in err, "that folder alone: no report, the cause said",
           err)


def test_merge_equals_muxer():
    # the reader's own stream merge must order events as the muxer does
    for name in ["fib-p2", "quicksort-p2", "breakeven-p2", "discarded", "killed"]:
        _, a, _ = analyze(name)
        _, b, _ = analyze(name, "--muxer")
        ok(stable(a) == stable(b), f"{name}: the reader's own merge and --muxer give the same report")


for test in [test_merge_equals_muxer, test_usage, test_bad_paths, test_no_fjtrace, test_fib_p1, test_fib_p2, test_fib_parallelism_grows,
             test_quicksort, test_fork_layouts, test_breakeven, test_openmp, test_contention, test_discarded, test_killed, test_anomalies,
             test_several_traces_and_filters, test_unopenable_folder_left_out]:
    test()
tap.done_testing()
