#!/usr/bin/env python3
"""Known answers of OpenMP task programs through the real stack (TAP):
fjtrace-record --openmp records tests/openmp/omp-known (a clang and a gcc
build, the gcc one on libomp), fjtrace-analyze reads the whole trace, and
its work, span and parallelism are compared with what the program's leaves
burnt on their threads' CPU clocks.

usage: check_known.py RECORD ANALYZE SHAPE OMP_KNOWN...
  untied   one untied task waiting for a 20 ms child; fib(8) of 8 ms
           leaves, untied vs tied
  depend   a depend(inout) chain of 100 x 200 us; an 8 x 8 wavefront of
           500 us; the advice on a flat graph of tiny tasks (40 x 40)
  preempt  a tree of 16 leaves x 8 ms, then one of 8 x 500 us, under two
           busy loops: work; the spans against those the program measures
           on its threads' CPU clocks
  producer one task making 400 children, each waiting for a 100 us
           grandchild, then 20 children of 8 ms grandchildren: the work of
           the first and the span of the second against those the program
           measures on its threads' CPU clocks
Each build records the shape's cases in one run, three times (preempt:
five); a case's figures are the median.

Bounds (docs/testing.md, "Checks that hold on a loaded machine"): on-CPU
work and span 2% below the CPU truth (the trace's clock at the tool's
readings of the threads' CPU clocks, which perf's stays off the CPU are
fitted to, comes a little after each reading) to 10% above it (the
runtime's and the tool's own cost); the producer's work to 6% above it
(the tool's own time is booked apart: the runtime's cost is left).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, sys.path[0] + "/..")
import tap  # noqa: E402

MS = 1e6


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


class Run:
    """One recording of exe running CASES (lists of arguments; one parallel
    region each, after the program's warm-up region) at 2 threads,
    analysed: the trees of the cases, in order."""

    def __init__(self, record, analyze, tmp, exe, cases, env=None):
        self.name = os.path.basename(exe)
        args = [a for c in cases for a in ["+"] + c][1:]
        trace = os.path.join(tmp, f"t{len(os.listdir(tmp))}")
        env = dict(os.environ, OMP_NUM_THREADS="2", **(env or {}))
        # meson sets MALLOC_PERTURB_: glibc then fills every block the
        # runtime allocates and frees, real CPU time in the tasks (3.5 ms
        # over fib(8)'s 67 tasks) that the known answers do not count
        env.pop("MALLOC_PERTURB_", None)
        rec = subprocess.run([record, "--openmp", "--cmd-only", "--context", "vtid", "-o", trace,
                              "--", exe, *args], capture_output=True, text=True, env=env)
        self.recorded = rec.returncode == 0
        self.out = rec.stdout  # the program's own output
        self.trace = trace
        self.pool, self.trees, self.rc, self.report = None, [], None, {}
        if not self.recorded:
            tap.diag(f"{self.name}: recording exited {rec.returncode}", rec.stderr[-800:])
            return
        out = subprocess.run([analyze, "--no-progress", "--json", trace], capture_output=True,
                             text=True)
        self.rc = out.returncode
        try:
            self.report = json.loads(out.stdout)
            self.pool = self.report["pools"][0]
        except (ValueError, KeyError, IndexError):
            tap.diag(f"{self.name}: no JSON report", out.stderr[-800:])
            return
        # each region's tree is its single thread's implicit task (the
        # other's holds itself only); the first is the warm-up's
        made = [t for t in self.pool["trees"] if t["tasks"] > 1]
        self.trees = made[1:] if len(made) == len(cases) + 1 else []
        self.analyze = analyze

    @property
    def text(self):
        """The text report, made when a check reads it (one recording's of
        a shape: depend's advice)."""
        if not hasattr(self, "_text"):
            self._text = "" if self.pool is None else subprocess.run(
                [self.analyze, "--no-progress", self.trace], capture_output=True,
                text=True).stdout
        return self._text

    def whole(self):
        """Recorded, read whole (exit 0), no anomaly, on-CPU figures, one
        tree per case: one check."""
        an = self.report.get("anomalies")
        total = an.get("total") if isinstance(an, dict) else None
        figures = self.pool["figures"] if self.pool else None
        return tap.ok(self.recorded and self.rc == 0 and total == 0 and figures == "on_cpu"
                      and self.trees,
                      f"{self.name}: recorded, analysed whole (exit 0), 0 anomalies, on-CPU "
                      f"figures, a tree per case", f"rc {self.rc}, anomalies {an}, "
                      f"figures {figures}, trees {len(self.trees)}")


class Median:
    """RUNS recordings of exe running CASES, every one whole; a case's
    figures are their median (a recording now and then has a task
    stretched by time perf's switch records do not show: docs/openmp.md)."""

    def __init__(self, record, analyze, tmp, exe, cases, runs=3, env=None):
        self.cases = cases
        self.runs = [Run(record, analyze, tmp, exe, cases, env) for _ in range(runs)]
        self.ok = all([r.whole() for r in self.runs])
        self.pool = self.runs[0].pool

    def fig(self, case, key):
        i = self.cases.index(case)
        return statistics.median(r.trees[i][key] for r in self.runs)

    def name(self, case):
        return f"{self.runs[0].name} {' '.join(case)}"

    def diag(self):
        for i, case in enumerate(self.cases):
            tap.diag(f"{self.name(case)}: " + "; ".join(
                f"work {r.trees[i]['work_ns'] / MS:.3f} ms span {r.trees[i]['span_ns'] / MS:.3f}"
                f" ms parallelism {r.trees[i]['parallelism']:.2f}" for r in self.runs))


def near(x, truth, below=0.02, above=0.10):
    return x is not None and truth * (1 - below) <= x <= truth * (1 + above)


def check_near(name, what, x, truth, above=0.10):
    tap.ok(near(x, truth, above=above), f"{name}: {what} within -2%..+{above:.0%} of the known "
           f"answer ({x / MS:.3f} ms vs {truth / MS:.3f} ms)")


def check_own(name, what, figures, truths, above=0.10):
    """Each recording's on-CPU span (or work) against the one the program
    measured on its threads' CPU clocks in the same recording (they vary
    with the load): the median of the ratios within -2%..+above."""
    ratios = [x / t for x, t in zip(figures, truths)]
    ratio = statistics.median(ratios)
    tap.ok(0.98 <= ratio <= 1 + above, f"{name}: on-CPU {what} within -2%..+{above:.0%} of the "
           f"program's own on its CPU clocks in the same recording, median of {len(ratios)} "
           f"({ratio - 1:+.1%}; each {', '.join(f'{x - 1:+.1%}' for x in ratios)}; the "
           f"program's {', '.join(f'{t / MS:.3f}' for t in truths)} ms)")


UNTIED_WAIT = ["untied-wait"]
# fib(8)'s 34 leaves of 8 ms: its span is the longest of 34 paths, and a
# stall of libomp's own code on any (100-300 us now and then, more often
# on an untied task's paths, which switch more) is under 4% of it; with
# 500 us leaves one recording in six was +23..+33% over the program's span
FIB_LEAF_NS = 8 * MS
FIB_UNTIED, FIB_TIED = ["fib", "8", "8000"], ["fib", "8", "8000", "tied"]
CHAIN, GRID, FLAT = ["chain", "100", "200"], ["grid", "8", "500"], ["grid", "40", "0"]
# 16 independent iterations of 8 ms, a task each: work 128 ms, span one
# iteration (and the making of the tasks before it, tens of us)
TASKLOOP = ["taskloop", "16", "8000"]
# 8 ms leaves: the runtime's and the tool's own cost along the tree's path
# (the program's own measure: 30-60 us over its tasks under load), and the
# 100-300 us of its threads' CPU clocks that libomp's code between the
# bodies shows now and then under two busy loops (docs/testing.md), are
# then a small share by construction, on whichever path the span takes
# (it is the longest of them all); with 500 us leaves the path's own code
# is 4-30% of the span: that tree's span is checked against the program's
# own measure, on 8 leaves (each of a tree's paths is one more place for
# such a stall to make the longest)
TREE, TREE500 = ["tree", "4", "8000"], ["tree", "3", "500"]
# The producer's work against the program's: 400 x 100 us, where the tool's
# own time at its 1600 task boundaries is a share worth checking. Its span
# on 20 x 8 ms: the span is the longest of the children's paths, each as
# long as the next but for the strand's few us, so a stall of libomp's own
# code (100-300 us now and then, docs/testing.md) on any of 400 paths of
# ~0.45 ms made it: +12..+37% in 5 of 8 recordings (the program's measure
# leaves that code out), against +0.1..+2.2% in 12 on 8 ms grandchildren
PRODUCER, PRODUCER_SPAN = ["producer", "400", "100"], ["producer", "20", "8000"]


def primary_tails(trace):
    """The events worker 0 (the team's primary thread) emits between the
    joined of each implicit task's last barrier and that task's executed:
    none when the task ends with its closing barrier's wait (ompt/sync.c).
    A barrier in the region (clang's end of `single`) is followed by the
    task's own code or the next barrier's join instead."""
    out = subprocess.run(["babeltrace2", trace], capture_output=True, text=True).stdout
    ev = re.compile(r"fjtrace:(\w+): .*\{ pool = \d+, worker = 0(?:, task = (\d+))?")
    root, after, tails = None, None, []
    for m in map(ev.search, out.splitlines()):
        if not m:
            continue
        name, task = m.groups()
        if name == "submit":
            root = task
        elif name == "joined" and task is not None and task == root:
            after = []
        elif after is not None and name == "executed":
            tails += after
            after = None
        elif after is not None and name in ("join", "fork", "exec"):
            after = None  # the task went on: that barrier was not its last
        elif after is not None:
            after.append(name)
    return tails


def fib_spans(out):
    """The spans omp-known's fib cases printed, in order: ns, or None where
    a task's parts ran on different threads ("n/a") or it printed none."""
    spans = [line.split()[5] for line in out.splitlines()
             if line.startswith("fib span on the CPU")]
    spans += ["n/a"] * (2 - len(spans))
    return [None if x == "n/a" else float(x) for x in spans[:2]]


def untied(record, analyze, tmp, exes):
    for exe in exes:
        m = Median(record, analyze, tmp, exe, [UNTIED_WAIT, FIB_UNTIED, FIB_TIED])
        if not m.ok:
            continue
        m.diag()
        check_near(m.name(UNTIED_WAIT), "work", m.fig(UNTIED_WAIT, "work_ns"), 20 * MS)
        check_near(m.name(UNTIED_WAIT), "span", m.fig(UNTIED_WAIT, "span_ns"), 20 * MS)
        if "gcc" in exe:  # libomp's GOMP ABI runs an untied task in one part
            tap.is_eq(m.pool["openmp"]["untied_suspensions"], 0,
                      f"{m.runs[0].name}: untied tasks waiting in taskwaits are not suspended")
        # fib(8): F(9) = 34 leaves of 8 ms, tied and untied alike
        for case in (FIB_UNTIED, FIB_TIED):
            check_near(m.name(case), "work", m.fig(case, "work_ns"), fib(9) * FIB_LEAF_NS)
        # The span: one leaf and the path's task creations and waits, each
        # build against the program's own measure on its threads' CPU
        # clocks (as the trees'). The untied build's path really is longer
        # than the tied one's (gcc, two busy loops, 500 us leaves: its own
        # 0.585-0.625 ms vs 0.544-0.564), so "untied = tied" is the check only where the
        # program could not measure: a task's parts on different threads.
        own = [fib_spans(r.out) for r in m.runs]
        tap.ok(all(o[1] is not None for o in own), f"{m.runs[0].name}: the program told its tied "
               f"fib's span", m.runs[0].out[-400:])
        for k, case in enumerate((FIB_UNTIED, FIB_TIED)):
            if all(o[k] is not None for o in own):
                i = m.cases.index(case)
                check_own(m.name(case), "span", [r.trees[i]["span_ns"] for r in m.runs],
                          [o[k] for o in own])
        if any(o[0] is None for o in own):
            u, t = m.fig(FIB_UNTIED, "span_ns"), m.fig(FIB_TIED, "span_ns")
            tap.ok(min(u, t) >= 0.98 * FIB_LEAF_NS and abs(u - t) <= 0.1 * t + 0.1 * MS,
                   f"{m.runs[0].name}: fib(8) untied span = tied span within 10% + 0.1 ms, >= one "
                   f"leaf, where the program could not measure its own ({u / MS:.3f} vs "
                   f"{t / MS:.3f} ms)")


def depend(record, analyze, tmp, exes):
    for exe in exes:
        m = Median(record, analyze, tmp, exe, [CHAIN, GRID, FLAT, TASKLOOP])
        if not m.ok:
            continue
        m.diag()
        # the runtime reports an edge only to a predecessor not complete
        # when its successor is made (a loaded machine may delay the maker
        # past one): the spans below show the edges followed
        deps, edges = m.pool["openmp"]["dependences"], 99 + 2 * 8 * 7 + 2 * 40 * 39
        tap.ok(0 < deps <= edges, f"{m.runs[0].name}: dependences reported, no more than the "
               f"edges ({deps} of {edges})")
        check_near(m.name(CHAIN), "work", m.fig(CHAIN, "work_ns"), 20 * MS)
        check_near(m.name(CHAIN), "span (the chain: a task starts after its predecessor)",
                   m.fig(CHAIN, "span_ns"), 20 * MS)
        par = m.fig(CHAIN, "parallelism")
        tap.ok(0.95 <= par <= 1.05, f"{m.name(CHAIN)}: parallelism 1 within 5% ({par:.3f})")
        check_near(m.name(GRID), "work", m.fig(GRID, "work_ns"), 64 * 500e3)
        check_near(m.name(GRID), "span (15 cells of the wavefront)", m.fig(GRID, "span_ns"),
                   15 * 500e3)
        check_near(m.name(TASKLOOP), "work", m.fig(TASKLOOP, "work_ns"), 16 * 8 * MS)
        check_near(m.name(TASKLOOP), "span (the iterations are independent: one of them)",
                   m.fig(TASKLOOP, "span_ns"), 8 * MS)
        # a flat graph of tiny tasks: no depth cutoff is advised
        text = m.runs[0].text
        advice = text[text.find("advice:"):]
        tap.ok("if(depth <" not in advice and "final(depth" not in advice,
               f"{m.runs[0].name}: no depth cutoff advised on flat dependence graphs", advice)
        diagrams(record, analyze, tmp, exe, m.runs[0])


# a chain whose every task a subtree diagram draws (a node of 3 children or
# fewer shows them all; of more, those run elsewhere and on the critical
# path), its tasks long enough that the maker makes each before its
# predecessor is done (the runtime reports an edge only to a predecessor
# not complete)
SMALL_CHAIN = ["chain", "3", "8000"]


def subtree_dots(analyze, tmp, run):
    """--subtrees --format dot of run's trace: (exit code, the files' text,
    stderr's tail)."""
    out = os.path.join(tmp, f"diagrams-{len(os.listdir(tmp))}")
    p = subprocess.run([analyze, "--no-progress", "-o", os.devnull, "--subtrees", out,
                        "--format", "dot", run.trace], capture_output=True, text=True)
    texts = []
    for f in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        with open(os.path.join(out, f)) as d:
            texts.append(d.read())
    return p.returncode, texts, p.stderr[-500:]


def diagrams(record, analyze, tmp, exe, run):
    """The subtree diagrams of a recording with dependence edges are drawn:
    Graphviz 2.42's dot freed memory twice when it laid out a labelled edge
    that shapes no rank (constraint=false) between siblings, and the
    analysis aborted (the 8 x 8 grid's diagram, every time here). Which of
    a big grid's tasks a diagram shows varies with where they ran, so the
    edges themselves are counted on a chain of 3, all of whose tasks are
    drawn: every dependence the report counts is one edge in its
    diagram."""
    rc, texts, err = subtree_dots(analyze, tmp, run)
    tap.ok(rc == 0 and texts, f"{run.name}: the subtree diagrams of the 8 x 8 grid and the rest "
           f"are drawn (exit 0)", f"rc {rc}, {len(texts)} files, {err}")
    small = Run(record, analyze, tmp, exe, [SMALL_CHAIN])
    if not small.whole():
        return
    deps = small.pool["openmp"]["dependences"]
    rc, texts, err = subtree_dots(analyze, tmp, small)
    edges = sum(t.count("xlabel=depend") for t in texts)
    tap.ok(rc == 0 and 0 < edges == deps,
           f"{small.name} {' '.join(SMALL_CHAIN)}: its diagram has an edge for every dependence "
           f"reported (exit 0)", f"rc {rc}, {len(texts)} files, {edges} dependence edges, "
           f"{deps} reported (of 2), {err}")


def preempt(record, analyze, tmp, exes):
    for exe in exes:
        busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
        try:
            m = Median(record, analyze, tmp, exe, [TREE, TREE500], runs=5)
        finally:
            for b in busy:
                b.kill()
                b.wait()
        if not m.ok:
            continue
        m.diag()
        tap.ok(all(r.pool["offcpu"]["state"] == "recorded" for r in m.runs),
               f"{m.name(TREE)}: the OpenMP threads' off-CPU time is recorded")
        check_near(m.name(TREE), "median on-CPU work", m.fig(TREE, "work_ns"), 128 * MS)
        check_near(m.name(TREE500), "median on-CPU work", m.fig(TREE500, "work_ns"), 4 * MS)
        # ... and no recording below it: the leaves burn that much of their
        # threads' CPU time whatever the load. The tool once timed its
        # callbacks in wall time and took a callback's second off the CPU
        # out of the tasks (work 113.6 ms of 128, one recording in 8 at a
        # load of 10): a callback that leaves the CPU is not its time now
        low = [(m.name(c), r.trees[m.cases.index(c)]["work_ns"] / MS) for r in m.runs
               for c, truth in ((TREE, 128 * MS), (TREE500, 4 * MS))
               if r.trees[m.cases.index(c)]["work_ns"] < 0.98 * truth]
        tap.ok(not low, f"{m.runs[0].name}: every recording's on-CPU work at least the leaves' "
               f"(-2%)", low)
        # The tool times its callbacks in ticks it converts to ns at a
        # ratio it measures against CLOCK_MONOTONIC. A worker preempted
        # between its two clocks' reads there had its ratio x5 for its whole
        # life: 15.4 ms told beyond its threads' CPU clocks (10.6 ms told in
        # all), work 126.7 ms of 128 (1 recording in 25 at a load of 6; the
        # CI of 0af8be4 saw 125.2). Undamaged: 0-4 us beyond. Local CI 88
        # saw 101.5 us of 697 us of tool time in one recording of five under
        # the two busy loops; the diagnostic gives, per recording, in how
        # many readings' intervals (tool_beyond_readings): one for a stall
        # inside one callback, every reading of a worker for a ratio that
        # wrong.
        beyond = [(o["tool_beyond_clock_ns"], o["tool_ns"], o["tool_beyond_readings"])
                  for o in (r.pool["offcpu"] for r in m.runs)]
        tap.ok(all(b is not None and t and b <= 0.1 * t for b, t, _ in beyond),
               f"{m.runs[0].name}: every recording's tool time within its threads' CPU clocks "
               f"(told beyond them: at most 10% of it)", beyond)
        # perf writes a switch record partway through the kernel's switch
        # (some us of each preemption on the CPU by its records, not by the
        # thread's clock): the tool reads the thread's clock at every task
        # boundary and the analyzer fits perf's stays to it, so the span is
        # the clocks' (docs/openmp.md). Before, a 2 ms leaf switched out ~70
        # times showed 2.99 ms (+50% over the leaf). The span is checked
        # against the program's own measure below, not against the leaf's
        # 2 ms: the path's own code (its task creations and waits) is 5-8%
        # of it on a quiet machine and grows with the load (the program's
        # own 2.18-2.28 ms at a load of 5: the analyzer 2.21 ms, +1.2%
        # over the program's, failed a bound of 2 ms +10%)
        tap.diag(f"{m.name(TREE)}: median on-CPU span {m.fig(TREE, 'span_ns') / MS:.3f} ms, "
                 f"the leaf 8 ms")
        truth = [[float(line.split()[-2]) for line in r.out.splitlines()
                  if line.startswith("tree span on the CPU")] for r in m.runs]
        tap.ok(all(len(t) == 2 for t in truth), f"{m.runs[0].name}: the program told its spans",
               m.runs[0].out[-400:])
        if all(len(t) == 2 for t in truth):
            tap.diag(f"{m.name(TREE500)}: the program's own span on its CPU clocks "
                     f"{', '.join(f'{t[1] / MS:.3f}' for t in truth)} ms (the leaves' 0.5 ms and "
                     f"its task creations and waits on the path)")
            # The known answer is the program's own measure: the leaves'
            # 0.5 ms, and the path's task creations and waits, which cost
            # 14-45 us of its CPU clocks under load (more than 0.5 ms x 10%
            # once preemptions are in them: the kernel's switch is charged
            # to the thread). Above it: libomp's dispatch between the
            # bodies, the tool's events and the implicit task's region end
            # (its barriers), +2..+4% measured. Before the tool read the
            # clock at least every 20 us, a leaf whose vCPU the hypervisor
            # took for 120 us (no switch) showed 627 us: span 0.651 ms for
            # the program's 0.515. Each recording against its own answer
            # (they vary, 0.51-0.64 ms, and once 38 ms: a stall both clocks
            # counted in a leaf), the median of five: at a load average of
            # 8-14 one recording in ~12 was 15% above it, the thread's clock
            # counting 63-84 us the program's measure leaves out (in one,
            # 63 us of the root's taskwait exit: docs/openmp.md)
            i = m.cases.index(TREE500)
            check_own(m.name(TREE500), "span", [r.trees[i]["span_ns"] for r in m.runs],
                      [t[1] for t in truth])
            # The 8 ms tree against its own measure, within 5%: there the
            # path's dispatch and events are a small share, a stall of libomp's
            # code too (+0.0..+3.0% each, 28 recordings at a load of ~4;
            # 64 leaves of 2 ms were +0.4..+10.4%, bimodal: a stall of
            # 100-200 us after one of the 64 leaves, docs/testing.md)
            i = m.cases.index(TREE)
            check_own(m.name(TREE), "span", [r.trees[i]["span_ns"] for r in m.runs],
                      [t[0] for t in truth], above=0.05)
            # What the analyzer took out of the tasks as the tool's own time
            # and could not place (local CI 48: the program's own 2.35-2.59
            # ms in 2 of 5 recordings, the analyzer 2.14-2.16: not explained)
            tap.diag(f"{m.name(TREE)}: the tool's time taken out of the tasks, unattributed: " +
                     ", ".join(f"{r.pool['offcpu']['tool_in_tasks_ns'] / MS:.3f} ms, "
                               f"{(r.pool['offcpu']['unattributed_ns'] or 0) / MS:.3f} ms"
                               for r in m.runs))
        # ... and the report says how much on-CPU time its clocks disagree on
        un = [r.pool["offcpu"]["unattributed_ns"] for r in m.runs]
        dis = [r.pool["offcpu"]["clock_disagreement_ns"] for r in m.runs]
        tap.ok(all(u is not None and d is not None and abs(u) <= d for u, d in zip(un, dis)),
               f"{m.name(TREE)}: the unattributed time is known (the threads' CPU clocks read), "
               f"no larger than the clocks' disagreement", f"unattributed {un}, disagreement {dis}")
        # libomp's own time after the region's closing barrier (its teardown
        # of the region: hundreds of us seen while a teammate was preempted)
        # is not the implicit task's work: the task ends with the wait
        tails = [t for r in m.runs for t in primary_tails(r.trace)]
        tap.ok(not tails, f"{m.runs[0].name}: the primary thread's implicit tasks end with "
               f"their closing barrier's wait, no event between", tails)
        advice = [r.pool["advice"] for r in m.runs]
        tap.ok(any(a["kind"] == "preempted" for adv in advice for a in adv),
               f"{m.name(TREE)}: the preempted advice appears under two busy loops", advice)


def producer(record, analyze, tmp, exes):
    for exe in exes:
        # Without task throttling libomp grows the producer's deque instead
        # of running a child at once when it is full: the program's own
        # measure of the producer's strand (omp-known.c) then holds no
        # child's start and end, which the analyzer gives to the child
        m = Median(record, analyze, tmp, exe, [PRODUCER, PRODUCER_SPAN],
                   env={"KMP_ENABLE_TASK_THROTTLING": "0"})
        if not m.ok:
            continue
        m.diag()
        # what the program told of each case, in order: per recording, a
        # line per case
        told = {what: [[float(line.split()[-2]) for line in r.out.splitlines()
                        if line.startswith(f"producer {what} on the CPU")] for r in m.runs]
                for what in ("work", "span")}
        # The work: 400 x 100 us of leaves, and the tasks' own code around
        # them, as the program measured it on its threads' CPU clocks (its
        # clock readings are part of it: 1.4 us each where reading a
        # thread's CPU clock is a system call of a virtual machine's, 5 a
        # child and 2 a leaf: 46-48 ms), each recording against its own.
        # The tool's own time at the task boundaries is booked apart
        # (docs/analyses.md, "Tracing overhead inside tasks"): +7.9..+8.2%
        # before (medians, both compilers), +2.3..+4.5% after (runs
        # -2.8..+4.6%, load 10-16), libomp's dispatch between the bodies
        # mostly; +6%, not +10%, leaves room for a loaded machine
        whole = all(len(told[w][k]) == 2 for w in told for k in range(len(m.runs)))
        work = [t[0] for t in told["work"]] if whole else []
        tap.ok(whole and min(work) >= 40 * MS,
               f"{m.name(PRODUCER)}: the program told its work, at least its leaves' 40 ms",
               work, m.runs[0].out[-400:])
        if whole:
            check_own(m.name(PRODUCER), "work", [r.trees[0]["work_ns"] for r in m.runs], work,
                      above=0.06)
        # The span: the producer's strand up to its last child, then that
        # child and its grandchild (~8.1 ms here), as the program measured
        # it on its threads' CPU clocks; not the sum of the children (the
        # rule that merged a child done before its parent's join into the
        # parent's path gave 45-61 ms for 400 x 100 us: 160 ms here)
        tap.ok(whole and min(t[1] for t in told["span"]) >= 8 * MS,
               f"{m.name(PRODUCER_SPAN)}: the program told its span, at least a grandchild's "
               f"8 ms", m.runs[0].out[-400:])
        if whole:
            # each recording against its own answer (they vary with the
            # load), the median of the ratios, as for the tree
            check_own(m.name(PRODUCER_SPAN), "span", [r.trees[1]["span_ns"] for r in m.runs],
                      [t[1] for t in told["span"]])


def main():
    record, analyze, case, exes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with tempfile.TemporaryDirectory(prefix="fjtrace-omp-known.") as tmp:
        {"untied": untied, "depend": depend, "preempt": preempt,
         "producer": producer}[case](record, analyze, tmp, exes)
    tap.done_testing()


main()
