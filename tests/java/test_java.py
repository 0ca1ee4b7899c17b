#!/usr/bin/env python3
"""Java's ForkJoinPool traced unmodified, through the real stack: each case
of JavaCases.java runs under `fjtrace-record --java --blocking` (a real
LTTng session), its trace is decoded by babeltrace2 and analysed by
fjtrace-analyze (docs/java.md). TAP on stdout.

usage: test_java.py FJTRACE_RECORD AGENT_JAR CASES_JAR FJTRACE_ANALYZE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

sys.path.insert(0, sys.path[0] + "/..")
import tap  # noqa: E402

RECORD, AGENT, CASES, ANALYZE = sys.argv[1:5]
LINE = re.compile(r"fjtrace:(\w+): .*?\}, \{ (.*) \}$")
FIELD = re.compile(r'(\w+) = ("[^"]*"|0x[0-9A-Fa-f]+|-?\d+)')
TMP = tempfile.mkdtemp(prefix="fjtrace-java-test.")


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def value(v):
    if v.startswith('"'):
        return v[1:-1]
    return int(v, 16) if v.startswith("0x") else int(v)


# The JVM verifies the JDK's own classes too: the agent's bytecode in
# ForkJoinPool, ForkJoinTask and CountedCompleter must pass the verifier.
VERIFY = ("-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal")


# The agent's cache of rewritten classes (docs/java.md, "Cost"): the test's own
CACHE = os.path.join(TMP, "class-cache")


def record(name, args, jvm_args=(), cache=CACHE):
    """Records `java VERIFY JVM_ARGS -cp CASES JavaCases ARGS`; returns (rc,
    stdout, stderr, events as (name, fields) in trace order, trace dir)."""
    out = os.path.join(TMP, name)
    env = dict(os.environ, FJTRACE_JAVA_AGENT=AGENT, FJTRACE_JAVA_CACHE=cache)
    p = subprocess.run([RECORD, "--java", "--blocking", "-o", out, "--", "java", *VERIFY, *jvm_args,
                        "-cp", CASES, "JavaCases", *args], env=env, capture_output=True, text=True,
                       timeout=300)
    bt = subprocess.run(["babeltrace2", out], capture_output=True, text=True, timeout=300)
    events = []
    for line in bt.stdout.splitlines():
        m = LINE.search(line)
        if m:
            events.append((m.group(1), {k: value(v) for k, v in FIELD.findall(m.group(2))}))
    if p.returncode != 0:
        tap.diag(p.stderr)
    return p.returncode, p.stdout, p.stderr, events, out


def analyze(trace):
    p = subprocess.run([ANALYZE, "--json", trace], capture_output=True, text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        tap.diag(p.stderr)
        return p.returncode, None


def pool_report(rep, pool):
    for p in rep["pools"] if rep else []:
        if p["pool"] == pool:
            return p
    return None


def check_whole(case, events):
    """What every trace must hold: each pool begun (runtime jvm) and ended;
    each forked or submitted task run once; exec/executed, join/joined and
    completing/completed nest per worker slot; a steal names the forking
    worker as victim, another than the thief, and comes before the exec."""
    kinds = Counter(e[0] for e in events)
    begun = {f["pool"] for n, f in events if n == "pool_begin"}
    runtimes = {f["pool"]: f for n, f in events if n == "pool_runtime"}
    tap.ok(begun and all(runtimes.get(p, {}).get("model") == "jvm" for p in begun),
           f"{case}: every pool has pool_begin and pool_runtime model jvm", runtimes)
    tap.ok(kinds["pool_end"] == len(begun), f"{case}: every pool ends (pool_end)", kinds)
    creator, made, ran = {}, Counter(), Counter()
    stack, bad = defaultdict(list), []
    stolen = {}
    pairs = {"exec": "executed", "join": "joined", "completing": "completed"}
    closers = {v: k for k, v in pairs.items()}
    for n, f in events:
        key = (f.get("pool"), f.get("worker"))
        if n in ("fork", "submit"):
            made[(f["pool"], f["task"])] += 1
            creator[(f["pool"], f["task"])] = f["worker"] if n == "fork" else None
        elif n == "steal":
            stolen[(f["pool"], f["task"])] = f
            c = creator.get((f["pool"], f["task"]))
            if c is None or c != f["victim"] or f["victim"] == f["worker"]:
                bad.append(("steal", f, c))
        elif n in pairs:
            if n == "exec":
                ran[(f["pool"], f["task"])] += 1
                s = stolen.get((f["pool"], f["task"]))
                if creator.get((f["pool"], f["task"])) not in (None, f["worker"]) and not s:
                    bad.append(("exec by another worker without a steal", f))
            stack[key].append((n, f["task"]))
        elif n in closers:
            # executed ends the innermost open exec, which it does not name
            task = f["task"] if "task" in f or n != "executed" else \
                (stack[key][-1][1] if stack[key] and stack[key][-1][0] == "exec" else None)
            if not stack[key] or stack[key][-1] != (closers[n], task):
                bad.append(("unpaired", n, f, stack[key][-3:]))
            else:
                stack[key].pop()
    tap.ok(not bad, f"{case}: exec/executed, join/joined, completing/completed nest per worker; "
           "steals name the forking worker", bad[:5])
    return kinds, made, ran, stack


def case_fib():
    n, p = 20, 2
    rc, out, err, ev, trace = record("fib", ["fib", str(n), str(p)])
    tap.ok(rc == 0 and f"fib = {fib(n)}" in out, f"fib({n}) on a pool of {p} runs under --java",
           rc, out, err)
    kinds, made, ran, _ = check_whole("fib", ev)
    tap.is_eq(kinds["fork"], fib(n + 1) - 1, f"fib({n}) forks exactly F({n + 1})-1 tasks")
    tap.ok(all(ran[t] == 1 for t in made) and len(ran) == len(made),
           "fib: every forked or submitted task is executed exactly once",
           len(made), len(ran))
    tap.ok(kinds["steal"] >= 1, f"fib: steals at {p} workers (a task run by another worker "
           "than the one whose queue it was pushed to)", kinds)
    arc, rep = analyze(trace)
    pr = pool_report(rep, next(f["pool"] for n, f in ev if n == "pool_begin"))
    tap.ok(arc == 0 and pr, "fib: fjtrace-analyze reads the trace, exit 0", arc)
    if pr:
        tap.is_eq(pr["totals"]["forks"], fib(n + 1) - 1, "fib: the report's forks are F(N+1)-1")
        tap.is_eq(pr["totals"]["steals"], kinds["steal"], "fib: the report counts every steal")
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "JavaCases.java")) as src:
            line = next(i for i, text in enumerate(src, 1) if text.strip() == "f1.fork();")
        sites = [s for s in pr["sites"] if s.get("function") == "JavaCases$Fib.compute"]
        tap.ok(sites and sites[0].get("line") == line and sites[0].get("file") == "JavaCases.java",
               f"fib: the forks' creation site is JavaCases.java:{line} (JavaCases$Fib.compute), "
               "the line of f1.fork()", pr["sites"][:3])
        tap.ok(pr.get("java", {}).get("runtime", "").startswith("JDK 17"),
               "fib: the report names the JVM (java.runtime)", pr.get("java"))


def leaves(lo, hi, leaf):
    """Tasks of the Sum completer over [lo, hi): the loop forks right halves."""
    n = 1
    while hi - lo > leaf:
        mid = (lo + hi) // 2
        n += leaves(mid, hi, leaf)
        hi = mid
    return n


def case_completer():
    n, leaf = 256, 8
    tasks = leaves(0, n, leaf)
    rc, out, err, ev, trace = record("completer", ["completer", str(n), str(leaf), "2"])
    tap.ok(rc == 0 and f"sum of lengths = {n}" in out, "completer: runs under --java", rc, out)
    kinds, made, ran, _ = check_whole("completer", ev)
    tap.is_eq(kinds["fork"] + kinds["submit"], tasks, f"completer: {tasks} tasks made")
    tap.ok(kinds["completing"] == tasks and kinds["completed"] == tasks,
           "completer: every counted completer has one completing and one completed",
           kinds["completing"], kinds["completed"], tasks)
    done = Counter(f["task"] for n_, f in ev if n_ == "completed")
    tap.ok(set(done) == {t for _, t in made} and max(done.values()) == 1,
           "completer: the completed tasks are exactly the tasks made, once each")
    arc, rep = analyze(trace)
    pr = rep["pools"][0] if rep and rep["pools"] else None
    # each task burns 1 ms of thread CPU time: its wall-clock work is at least that
    tap.ok(pr and pr["work_ns"] >= tasks * 1_000_000,
           f"completer: work >= the {tasks} ms of CPU the tasks burn (a known answer)",
           pr and pr["work_ns"])
    # the workers' and the helping client's context switches (docs/java.md, "Off-CPU time")
    tap.ok(pr and pr["offcpu"]["state"] == "recorded" and kinds["offcpu_start"] >= 2
           and pr["work_ns"] <= pr["work_wall_ns"],
           "completer: the Java threads' off-CPU time is recorded (every worker slot): work is "
           "on-CPU time, at most the wall-clock work", pr and pr["offcpu"], kinds["offcpu_start"],
           pr and (pr["work_ns"], pr["work_wall_ns"]))
    tap.ok(pr and pr["totals"]["completions"] == tasks
           and pr["totals"]["completing_to_completed_ns"] > 0,
           "completer: the report counts every completion and their COMPLETING->COMPLETED time",
           pr and pr["totals"])


def case_pools():
    n = 12
    rc, out, err, ev, trace = record("pools", ["pools", str(n)])
    tap.ok(rc == 0 and out.count(f"fib = {fib(n)}") == 2, "pools: both fibs run", out)
    kinds, made, ran, _ = check_whole("pools", ev)
    rt = {f["pool"]: f["runtime"] for n_, f in ev if n_ == "pool_runtime"}
    common = [p for p, r in rt.items() if r.endswith("; common pool")]
    tap.ok(len(rt) == 2 and len(common) == 1, "pools: a private pool and the common pool, "
           "the common one named so", rt)
    forks = Counter(f["pool"] for n_, f in ev if n_ == "fork")
    tap.ok(sorted(forks.values()) == [fib(n + 1) - 1] * 2,
           f"pools: each pool forks F({n + 1})-1 tasks", forks)
    arc, rep = analyze(trace)
    tap.ok(rep and len(rep["pools"]) == 2, "pools: the report has two pools", arc)


def case_throws():
    rc, out, err, ev, trace = record("throws", ["throws", "10"])
    tap.ok(rc == 0 and "caught: java.lang.IllegalStateException" in out,
           "throws: the client catches the task's exception", out, err)
    kinds, made, ran, stack = check_whole("throws", ev)
    tap.ok(all(not s for s in stack.values()), "throws: no exec is left open by the exception",
           {k: v for k, v in stack.items() if v})
    tap.is_eq(kinds["result"], 1, "throws: the client's result comes (with the exception)")
    arc, rep = analyze(trace)
    tap.is_eq(arc, 0, "throws: the analyzer finds the trace whole (exit 0)")


def case_queued():
    m = 5
    rc, out, err, ev, trace = record("queued", ["queued", str(m)])
    tap.ok(rc == 0 and "exiting with tasks queued" in out, "queued: the program exits at once",
           out, err)
    kinds = Counter(e[0] for e in ev)
    tap.is_eq(kinds["submit"], m, f"queued: {m} submissions")
    tap.ok(kinds["exec"] < m and kinds["executed"] == 0,
           "queued: at exit one task runs and the others are still queued", kinds)
    tap.ok(kinds["worker_end"] == kinds["worker_begin"] and kinds["pool_end"] == 1,
           "queued: at the JVM's exit the agent ends the workers and the pool", kinds)
    arc, rep = analyze(trace)
    pr = rep["pools"][0] if rep and rep["pools"] else None
    unf = pr and pr["totals"]["unfinished_tasks"]
    tap.ok(arc == 1 and unf == m,
           f"queued: the report lists the {m} unfinished tasks (exit 1: incomplete)", arc, unf)


def case_jit():
    n, rounds = 14, 300
    # C2 only (no tiers): what is compiled is C2's, whatever the load
    rc, out, err, ev, trace = record("jit", ["jit", str(n), str(rounds), "2"],
                                     ["-XX:-TieredCompilation", "-XX:+PrintCompilation"])
    tap.ok(rc == 0 and f"sum = {rounds * fib(n)}" in out, "jit: runs", rc, err[-500:])
    compiled = [re.search(r"^\s*\d+\s+\d+\s+[sbn! ]*" + re.escape(m) + r" \(", out, re.M)
                for m in ("JavaCases$Fib::compute", "java.util.concurrent.ForkJoinTask::doExec")]
    tap.ok(all(compiled), "jit: C2 compiled Fib.compute (fork() inlined) and the instrumented "
           "ForkJoinTask.doExec", [line for line in out.splitlines() if "::" in line][-5:])
    kinds = Counter(e[0] for e in ev)
    tap.is_eq(kinds["fork"], rounds * (fib(n + 1) - 1),
              f"jit: {rounds} rounds of fib({n}) fork exactly {rounds} x (F({n + 1})-1), "
              "compiled code included")
    tap.is_eq(kinds["exec"], kinds["executed"], "jit: every exec has its executed")


def case_stream():
    n = 100000
    rc, out, err, ev, trace = record("stream", ["stream", str(n)])
    expected = n * (n + 1) * (2 * n + 1) // 6
    tap.ok(rc == 0 and f"stream sum = {expected}" in out,
           "stream: a parallel stream runs (its caller helps on the common pool)", rc, out, err)
    kinds, made, ran, _ = check_whole("stream", ev)
    tap.ok(kinds["submit"] == 1 and kinds["result"] == 1 and kinds["completing"] >= 1,
           "stream: one root (its invoke) with its result, counted-completer phases", kinds)
    tap.ok(all(ran[t] == 1 for t in made) and len(ran) == len(made),
           "stream: every task made is executed once, though a stream task forks its own "
           "object again", len(made), len(ran))
    arc, rep = analyze(trace)
    tap.ok(arc == 0 and rep and rep["anomalies"]["total"] == 0,
           "stream: the analyzer finds the trace whole and consistent (exit 0, no anomaly)",
           arc, rep and rep["anomalies"])


def case_race():
    threads, n = 4, 10
    rc, out, err, ev, trace = record("race", ["race", str(threads), str(n)])
    tap.ok(rc == 0 and f"race sum = {threads * fib(n)}" in out,
           f"race: {threads} threads use the common pool first at once", rc, out, err)
    check_whole("race", ev)
    first = {}
    for i, (name, f) in enumerate(ev):
        if "pool" in f and f["pool"]:
            first.setdefault(f["pool"], name)
    tap.ok(first and all(name == "pool_begin" for name in first.values()),
           "race: each pool's first event in the trace is its pool_begin", first)
    roots = Counter(n_ for n_, f in ev if n_ in ("submit", "result"))
    tap.ok(roots["submit"] == threads and roots["result"] == threads,
           f"race: {threads} roots, each with its result", roots)


def case_cache():
    """The rewritten classes kept between runs: a miss writes them, a hit
    traces as exactly (the verifier checks the kept bytes), a damaged entry
    is rewritten; "off" rewrites every time."""
    n, p = 16, 2
    cache = os.path.join(TMP, "cache-case")
    forks = fib(n + 1) - 1
    for run in ("miss", "hit", "damaged", "off"):
        if run == "damaged":
            for e in os.listdir(cache):
                with open(os.path.join(cache, e), "r+b") as f:
                    f.seek(100)
                    f.write(b"damaged")
        rc, out, err, ev, trace = record("cache-" + run, ["fib", str(n), str(p)],
                                         ["-Xlog:class+load=info"] if run == "off" else [],
                                         cache="off" if run == "off" else cache)
        kinds = Counter(e[0] for e in ev)
        tap.ok(rc == 0 and kinds["fork"] == forks and "fjtrace-agent" not in err,
               f"cache ({run}): fib({n}) forks exactly F({n + 1})-1 = {forks}, no warning",
               rc, kinds["fork"], err[-300:])
        if run == "miss":
            entries = sorted(os.listdir(cache))
            mode = os.stat(cache).st_mode & 0o777
            tap.ok(len(entries) == 3 and all(e.startswith("java.util.concurrent.") for e in entries)
                   and mode == 0o700,
                   "cache: the three rewritten classes are kept, in a folder only its owner may "
                   "use", entries, oct(mode))
            kept = {e: os.path.getmtime(os.path.join(cache, e)) for e in entries}
        elif run == "hit":
            tap.ok({e: os.path.getmtime(os.path.join(cache, e)) for e in os.listdir(cache)} == kept,
                   "cache: a hit rewrites nothing (the entries are as the miss wrote them)")
        elif run == "damaged":
            good = True
            for e in os.listdir(cache):
                with open(os.path.join(cache, e), "rb") as f:
                    good = good and b"damaged" not in f.read()
            tap.ok(good and len(os.listdir(cache)) == 3,
                   "cache: damaged entries are not used, and are written again")
        else:
            loaded = [line.split()[1] for line in out.splitlines()
                      if "][class,load]" in line and len(line.split()) > 1]
            runtime = ("java.util.concurrent.ForkJoinTask", "java.util.concurrent.ForkJoinPool",
                       "java.util.concurrent.CountedCompleter")
            tap.ok("JavaCases" in loaded and all(c in loaded for c in runtime)
                   and loaded.index("JavaCases") > max(loaded.index(c) for c in runtime),
                   "the agent rewrites ForkJoinTask, ForkJoinPool and CountedCompleter in premain, "
                   "before the program's main class is loaded",
                   [c for c in loaded if c in runtime or c == "JavaCases"])


def case_errors():
    env = dict(os.environ, FJTRACE_JAVA_AGENT=AGENT)
    p = subprocess.run([RECORD, "--java", "-o", os.path.join(TMP, "e1"), "--", "true"], env=env,
                       capture_output=True, text=True)
    tap.ok(p.returncode == 118 and "not a JVM" in p.stderr,
           "--java with a command that is not java: exit 118, said", p.returncode, p.stderr)
    env["FJTRACE_JAVA_AGENT"] = os.path.join(TMP, "missing.jar")
    p = subprocess.run([RECORD, "--java", "-o", os.path.join(TMP, "e2"), "--", "java", "-version"],
                       env=env, capture_output=True, text=True)
    tap.ok(p.returncode == 117 and "fjtrace-agent.jar" in p.stderr,
           "--java without the agent: exit 117, said", p.returncode, p.stderr)


try:
    case_errors()
    case_fib()
    case_completer()
    case_pools()
    case_throws()
    case_queued()
    case_jit()
    case_stream()
    case_race()
    case_cache()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
tap.done_testing()
