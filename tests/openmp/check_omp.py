#!/usr/bin/env python3
"""Checks an OpenMP trace recorded with fjtrace-record --openmp, decoded by
babeltrace2 (TAP on stdout).

usage: [FJTRACE_ANALYZE=fjtrace-analyze] check_omp.py TRACE_DIR CASE [ARG]
  fib N        omp-fib N --variant naive: exactly 2*F(N+1)-2 forks
  steal, taskwait, taskgroup, depend, undeferred, untied [gomp], lock,
  critical, nested, exit: the omp-cases programs (tests/openmp/omp-cases.c);
  untied gomp: a gcc-built program (untied tasks run tied)

Checked for every case (but exit): one pool with pool_begin, pool_runtime
(model openmp), pool_end; every forked task runs exactly once (exec,
executed) and names a parent that exists; exec/executed, join/joined,
lock_wait/lock_acquired pair and nest per thread, suspend/resume alternate
per task; a steal names the task's creator as victim and precedes its exec.
With FJTRACE_ANALYZE, also the analyzer's report on the trace: no anomaly,
the OpenMP figures (explicit tasks, inferred steals, parks null), and the
advice in OpenMP terms where the case calls for it.
"""
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

sys.path.insert(0, sys.path[0] + "/..")
import tap  # noqa: E402

LINE = re.compile(r"fjtrace:(\w+): .*\{ vtid = (\d+)[^}]*\}, \{ (.*) \}$")
FIELD = re.compile(r'(\w+) = ("[^"]*"|0x[0-9A-Fa-f]+|-?\d+)')


def value(v):
    if v.startswith('"'):
        return v[1:-1]
    return int(v, 16) if v.startswith("0x") else int(v)


def read(trace):
    out = subprocess.run(["babeltrace2", trace], capture_output=True, text=True)
    tap.ok(out.returncode == 0, "babeltrace2 decodes the trace", out.stderr[-500:])
    tap.ok("discarded" not in out.stderr.lower(), "LTTng discarded no event", out.stderr[-500:])
    events = []
    for line in out.stdout.splitlines():
        m = LINE.search(line)
        if m:
            f = {k: value(v) for k, v in FIELD.findall(m.group(3))}
            if "site_size" in f:  # fork: site in the low 48 bits (docs/events.md)
                f["site"], f["size_hint"] = f["site_size"] & (1 << 48) - 1, f["site_size"] >> 48
            events.append((m.group(1), int(m.group(2)), f))
    return events


class Trace:
    def __init__(self, events):
        self.events = events
        self.count = Counter(e[0] for e in events)
        self.forks = {f["task"]: f for n, _, f in events if n == "fork"}
        self.roots = {f["task"]: f for n, _, f in events if n == "submit"}
        self.problems = []
        self.execs = Counter()
        self.exec_worker = {}
        self.steals = []
        self.fork_worker = {t: f["worker"] for t, f in self.forks.items()}
        self.walk()

    def walk(self):
        stacks = defaultdict(list)  # vtid -> open (kind, id)
        suspended = set()
        stolen = set()
        opens = {"exec": "executed", "join": "joined", "lock_wait": "lock_acquired"}
        closes = {v: k for k, v in opens.items()}
        for name, vtid, f in self.events:
            key = f.get("task", f.get("lock"))
            execs = [k for kind, k in stacks[vtid] if kind == "exec"]
            if name == "fork":
                # its parent: the task of the thread's innermost open exec
                # (derived by the analyzer, docs/events.md)
                f.setdefault("parent", execs[-1] if execs else 0)
            if name == "executed" and "task" not in f:
                # it ends the innermost open exec, which it does not name
                key = stacks[vtid][-1][1] if stacks[vtid] and stacks[vtid][-1][0] == "exec" else None
            if name == "steal":
                if self.fork_worker.get(key) != f["victim"]:
                    self.problems.append(f"steal of {key}: victim {f['victim']} is not its creator")
                if self.execs[key]:
                    self.problems.append(f"steal of {key} after its exec")
                stolen.add(key)
                self.steals.append(f)
            if name == "exec":
                self.execs[key] += 1
                self.exec_worker[key] = f["worker"]
                if key in self.forks and f["worker"] != self.forks[key]["worker"] \
                        and key not in stolen:
                    self.problems.append(f"task {key} ran on another worker with no steal")
            if name in opens:
                stacks[vtid].append((name, key))
            elif name in closes:
                st = stacks[vtid]
                if not st or st[-1] != (closes[name], key):
                    self.problems.append(f"{name} {key} does not close the innermost "
                                         f"{st[-1] if st else 'nothing'} on thread {vtid}")
                else:
                    st.pop()
            elif name == "suspend":
                st = stacks[vtid]
                if not st or st[-1] != ("exec", key):
                    self.problems.append(f"suspend {key} is not the running task")
                else:
                    st.pop()
                suspended.add(key)
            elif name == "resume":
                if key not in suspended:
                    self.problems.append(f"resume {key} without suspend")
                suspended.discard(key)
                stacks[vtid].append(("exec", key))
        self.open_at_end = {v: s for v, s in stacks.items() if s}
        self.suspended_at_end = suspended


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def common(t, complete=True):
    tap.is_eq(t.count["pool_begin"], 1, "one pool begins")
    tap.is_eq(t.count["pool_runtime"], 1, "the pool says which runtime made it")
    runtime = [f for n, _, f in t.events if n == "pool_runtime"]
    tap.ok(runtime and runtime[0]["model"] == "openmp" and "LLVM" in runtime[0]["runtime"],
           "pool_runtime: model openmp, runtime LLVM's libomp", str(runtime))
    known = set(t.forks) | set(t.roots)
    orphans = [k for k, f in t.forks.items() if f["parent"] not in known]
    tap.ok(not orphans, "every fork names a parent task of the trace (implicit or explicit)",
           f"orphans {orphans[:5]}")
    tap.ok(all(f["site"] != 0 for f in t.forks.values()),
           "every fork has a creation site (codeptr_ra)")
    if not complete:
        return
    tap.is_eq(t.count["pool_end"], 1, "the pool ends")
    twice = [k for k in known if t.execs[k] != 1]
    tap.ok(not twice, "every task (explicit and implicit) runs exactly once", str(twice[:5]))
    tap.is_eq(t.count["executed"], t.count["exec"], "as many executed as exec")
    tap.ok(not t.problems, "pairs nest per thread; steals name the creator, before the exec",
           "\n".join(t.problems[:10]))
    tap.ok(not t.open_at_end and not t.suspended_at_end, "nothing left open or suspended",
           f"{t.open_at_end} {t.suspended_at_end}")


def joins(t, task0=None):
    """join events naming task 0 (taskwait/taskgroup) or an implicit task."""
    js = [f for n, _, f in t.events if n == "join"]
    return [f for f in js if f["task"] == 0] if task0 else [f for f in js if f["task"] in t.roots]


def main():
    trace, case = sys.argv[1], sys.argv[2]
    t = Trace(read(trace))
    common(t, complete=case != "exit")
    if case == "fib":
        n = int(sys.argv[3])
        tap.is_eq(len(t.forks), 2 * fib(n + 1) - 2, f"fib({n}) creates 2F({n + 1})-2 tasks")
        tap.ok(len(joins(t, task0=True)) > 0, "taskwaits with unfinished children are joins")
    elif case == "steal":
        tap.ok(len(t.steals) > 0, "the thread that did not create the tasks steals some",
               str(t.count))
        tap.ok(all(t.exec_worker[s["task"]] == s["worker"] for s in t.steals),
               "a stolen task runs on its thief")
    elif case == "taskwait":
        tap.is_eq(len(joins(t, task0=True)), 1,
                  "1 join with task 0: the taskwait with unfinished children, not the 50 without")
    elif case == "taskgroup":
        tap.is_eq(len(joins(t, task0=True)), 1, "the taskgroup's end is 1 join with task 0")
        tap.is_eq(len(t.forks), 2, "a child and a grandchild")
    elif case == "depend":
        deps = [(f["pred"], f["task"]) for n, _, f in t.events if n == "dependence"]
        order = sorted(t.forks)
        chain = list(zip(order, order[1:]))
        tap.is_eq(sorted(deps), chain, "5 tasks on one variable: a chain of 4 dependences")
    elif case == "undeferred":
        tap.is_eq(len(t.forks), 14, "10 if(0) tasks, a final task and its 3 included children")
        # per thread: the creating thread's next task event is the task's exec
        by_thread = defaultdict(list)
        for n, vtid, f in t.events:
            if n in ("fork", "exec"):
                by_thread[vtid].append((n, f.get("task")))
        seq = [e for evs in by_thread.values() for e in evs + [None]]
        after = [seq[i + 1] == ("exec", e[1]) for i, e in enumerate(seq[:-1])
                 if e and e[0] == "fork"]
        tap.ok(sum(after) >= 13, "undeferred and included tasks run as soon as created",
               str(seq[:30]))
    elif case == "untied":
        if len(sys.argv) > 3 and sys.argv[3] == "gomp":
            # libomp's GOMP ABI makes untied tasks tied and GOMP_taskyield
            # a no-op: a gcc-built program never suspends a task.
            tap.is_eq(t.count["suspend"], 0, "GOMP ABI: untied tasks run tied, never suspended")
        else:
            tap.ok(t.count["suspend"] > 0, "untied tasks that yield are suspended", str(t.count))
        tap.is_eq(t.count["resume"], t.count["suspend"], "as many resumes as suspensions")
    elif case in ("lock", "critical"):
        names = [f["name"] for n, _, f in t.events if n == "lock_init"]
        kind = "omp_set_lock" if case == "lock" else "critical"
        tap.ok(len(names) == 1 and names[0].startswith(kind), f"one lock, named {kind} ...",
               str(names))
        tap.ok(t.count["lock_wait"] > 0 and t.count["lock_wait"] == t.count["lock_acquired"],
               "contended acquisitions: lock_wait then lock_acquired", str(t.count))
    elif case == "nested":
        workers = {f["worker"] for n, _, f in t.events if n == "worker_begin"}
        tap.ok(len(workers) >= 3, "the inner regions bring more threads than the outer 2",
               str(workers))
        tap.is_eq(len(t.roots), 6, "6 implicit tasks: 2 outer, 2x2 inner")
        tap.is_eq(len(t.forks), 4, "each of the 4 inner implicit tasks makes one task")
        inner = [f for f in t.forks.values() if f["parent"] in t.roots]
        tap.is_eq(len(inner), 4, "each task hangs below its implicit task")
    elif case == "worksharing":
        tap.is_eq(len(t.forks), 0, "a worksharing loop makes no explicit task")
        tap.is_eq(len(t.roots), 2, "2 implicit tasks, one a thread")
    elif case == "exit":
        tap.is_eq(t.count["pool_end"], 0, "no pool_end: the program exited inside the region")
        tap.is_eq(len(t.forks), 4, "the 4 tasks made before exit() are in the trace")
    if os.environ.get("FJTRACE_ANALYZE"):
        analyze(trace, case, t)
    tap.done_testing()


def pictures(exe, trace):
    """The pictures draw an OpenMP trace like a libfj one."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        outs = {"--html": "r.html", "--timeline": "tl.png", "--subtrees": "sub",
                "--chrome-trace": "t.json"}
        args = [exe, "-o", os.devnull]
        for opt, name in outs.items():
            args += [opt, os.path.join(d, name)]
        p = subprocess.run(args + [trace], capture_output=True, text=True)
        if p.returncode == 2 and "unknown option" in p.stderr:
            tap.skip(1, "fjtrace-analyze built without pictures")
            return
        made = [n for n in outs.values() if os.path.exists(os.path.join(d, n))]
        tap.ok(p.returncode == 0 and len(made) == len(outs),
               "HTML, timeline, subtree diagrams and Chrome trace are drawn",
               f"rc {p.returncode}, made {made}, {p.stderr[-300:]}")


def analyze(trace, case, t):
    exe = os.environ["FJTRACE_ANALYZE"]
    js = subprocess.run([exe, "--json", trace], capture_output=True, text=True)
    want = 1 if case == "exit" else 0
    tap.is_eq(js.returncode, want, f"fjtrace-analyze exits {want}", js.stderr[-500:])
    try:
        r = json.loads(js.stdout)
    except ValueError:
        tap.ok(False, "fjtrace-analyze --json prints JSON", js.stdout[:300])
        return
    anomalies = r.get("anomalies", {})
    total = anomalies.get("total", anomalies) if isinstance(anomalies, dict) else anomalies
    tap.ok(total in (0, {}), "the analyzer finds no anomaly (untied tasks included)",
           json.dumps(anomalies)[:400])
    pool = r["pools"][0]
    omp = pool.get("openmp") or {}
    tap.is_eq(omp.get("explicit_tasks"), len(t.forks), "report: explicit tasks = forks traced")
    tap.ok(omp.get("steals_inferred") is True and pool["totals"]["parks"] is None,
           "report: steals marked inferred, parks unknown (null)", json.dumps(omp))
    text = subprocess.run([exe, trace], capture_output=True, text=True).stdout
    advice = text[text.find("advice:"):]
    if case == "exit":
        tap.ok(pool["totals"]["unfinished_tasks"] > 0, "the tasks left at exit are unfinished")
    elif case in ("lock", "critical"):
        name = "omp_set_lock" if case == "lock" else "critical"
        tap.ok(re.search(r'hidden_serialization.*most for lock "' + name, advice) is not None,
               f"the advice names the contended {name}", advice)
    elif case == "fib":
        tap.ok("if(depth <" in advice or "make fewer, bigger tasks" in advice,
               "the advice asks for fewer tasks in OpenMP terms (if / final / cutoff)", advice)
        tap.ok("raise the cutoff" not in advice,
               "no advice in libfj's terms (a fork cutoff) for an OpenMP program", advice)
        pictures(exe, trace)
    elif case == "depend":
        tap.is_eq(omp.get("dependences"), 4, "report: 4 dependences")
    elif case == "taskwait":
        tap.is_eq(omp.get("taskwait_waits"), 1, "report: 1 taskwait wait")
    elif case == "worksharing":
        # thread 0 runs iterations 0..7 (nothing), thread 1 8..15 (24 ms of
        # CPU): the work is theirs, unequal, and fewer threads would not help
        work = pool["trees"][0]["work_ns"] + pool["trees"][1]["work_ns"]
        tap.ok(0.98 * 24e6 <= work <= 1.10 * 24e6,
               f"report: the loop's 24 ms of CPU are the implicit tasks' work ({work / 1e6:.2f} ms)")
        tap.ok("[uneven_threads] no explicit tasks, and the threads' own work was uneven" in advice
               and "schedule(dynamic)" in advice and "lower OMP_NUM_THREADS" not in advice,
               "the advice is to balance the loop (schedule), not to use fewer threads", advice)


main()
