#!/usr/bin/env python3
"""Known answers of a Java ForkJoinPool program through the real stack
(TAP): `fjtrace-record --java` records JavaCases' tree case (a pool of 2,
a binary tree of 64 leaves of 2 ms, each leaf burning its
thread's CPU time) under two busy loops, fjtrace-analyze --json reads the
whole trace, and the tree's on-CPU work is compared with what the leaves
burnt, its span with the span the program measured on its threads' CPU
clocks in the same recording. Five recordings; a figure is their
median, each recording's figures are in the diagnostics.

usage: check_known.py FJTRACE_RECORD AGENT_JAR CASES_JAR FJTRACE_ANALYZE

Bounds as tests/openmp/check_known.py's (docs/testing.md, "Checks that
hold on a loaded machine"): the work 2% below the CPU truth to 10% above
it (the runtime's and the agent's own cost); the span at least the
program's own less 2% (no upper bound holds yet: below).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, sys.path[0] + "/..")
import tap  # noqa: E402

RECORD, AGENT, CASES, ANALYZE = sys.argv[1:5]
MS = 1e6
# 2 ms leaves, as the OpenMP preempt case's. With 500 us leaves the work is
# +7.7..+11.9% above 64 x 500 us (the JDK's and the agent's code at each
# task's start and end, ~25 us a task) and the span -2.5..+29.9% from the
# program's own (docs/java.md, "Known answers")
DEPTH, LEAVES_US, RUNS = 6, (2000,), 5


class Run:
    """One recording of `JavaCases tree DEPTH LEAVES_US...`, analysed: the
    trees of the cases in order (the program's warm-up tree comes first),
    and the spans the program printed."""

    def __init__(self, tmp, i):
        trace = os.path.join(tmp, f"t{i}")
        env = dict(os.environ, FJTRACE_JAVA_AGENT=AGENT,
                   FJTRACE_JAVA_CACHE=os.path.join(tmp, "class-cache"))
        rec = subprocess.run([RECORD, "--java", "-o", trace, "--", "java", "-cp", CASES,
                              "JavaCases", "tree", str(DEPTH), *map(str, LEAVES_US)],
                             env=env, capture_output=True, text=True, timeout=300)
        self.recorded = rec.returncode == 0
        self.own = [float(line.split()[-2]) for line in rec.stdout.splitlines()
                    if line.startswith("tree span on the CPU")]
        self.reading = [line for line in rec.stdout.splitlines() if line.startswith("cpu clock")]
        self.rc, self.report, self.pool, self.trees = None, {}, None, []
        if not self.recorded:
            tap.diag(f"recording {i} exited {rec.returncode}", rec.stderr[-800:])
            return
        out = subprocess.run([ANALYZE, "--no-progress", "--json", trace], capture_output=True,
                             text=True, timeout=300)
        self.rc = out.returncode
        try:
            self.report = json.loads(out.stdout)
            self.pool = self.report["pools"][0]
        except (ValueError, KeyError, IndexError):
            tap.diag(f"recording {i}: no JSON report", out.stderr[-800:])
            return
        trees = self.pool["trees"]
        self.trees = trees[1:] if len(trees) == len(LEAVES_US) + 1 else []

    def whole(self, i):
        an = self.report.get("anomalies")
        total = an.get("total") if isinstance(an, dict) else None
        figures = self.pool["figures"] if self.pool else None
        return tap.ok(self.recorded and self.rc == 0 and total == 0 and figures == "on_cpu"
                      and self.trees and len(self.own) == len(LEAVES_US),
                      f"recording {i}: recorded, analysed whole (exit 0), 0 anomalies, on-CPU "
                      f"figures, a tree and the program's own span per leaf size",
                      f"rc {self.rc}, anomalies {an}, figures {figures}, trees {len(self.trees)}, "
                      f"own spans {self.own}")


def main():
    with tempfile.TemporaryDirectory(prefix="fjtrace-java-known.") as tmp:
        # two busy loops on the two CPUs: the workers are preempted all
        # along, the figures must be on-CPU time to hold
        busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
        try:
            runs = [Run(tmp, i) for i in range(RUNS)]
        finally:
            for b in busy:
                b.kill()
                b.wait()
        if not all([r.whole(i) for i, r in enumerate(runs)]):
            return
    tap.diag(f"the program's {runs[0].reading[0] if runs[0].reading else 'reading unknown'}")
    for k, us in enumerate(LEAVES_US):
        name = f"tree {DEPTH} {us} us"
        leaf, leaves = us * 1e3, 2 ** DEPTH
        for r in runs:
            t = r.trees[k]
            tap.diag(f"{name}: work {t['work_ns'] / MS:.3f} ms (answer {leaves * leaf / MS:.3f}), "
                     f"span {t['span_ns'] / MS:.3f} ms (the program's own {r.own[k] / MS:.3f}, "
                     f"the flat leaf {leaf / MS:.3f}), parallelism {t['parallelism']:.2f}")
        work = statistics.median(r.trees[k]["work_ns"] for r in runs)
        tap.ok(0.98 * leaves * leaf <= work <= 1.10 * leaves * leaf,
               f"{name}: median on-CPU work within -2%..+10% of {leaves} leaves x {us} us "
               f"({work / MS:.3f} ms vs {leaves * leaf / MS:.3f} ms)")
        # The span: a leaf and the path's own code (7 nodes, 5 readings of
        # the clock each, 1.8 us a reading: 2.16-3.19 ms at a load of 8-13
        # under the busy loops), as the program measured it on its threads'
        # CPU clocks; each recording against its own (they vary with the
        # load), the median of the ratios. Checked from below only: above
        # it lies CPU time of the path's threads that the program's
        # readings leave out: the JDK's and the agent's code at the path's
        # task starts and ends and in its joins (its joins may run other
        # tasks), and what the kernel charges to a thread's clock on the
        # test VM around a preemption or a held vCPU (up to 2 ms for a 24
        # us piece), absorbed inside a leaf's burn loop but not after its
        # last reading: +1.3..+43.6% in 28 recordings, medians of five
        # +8.5%, +9.1%: no bound of +10% holds
        # (docs/java.md, "Known answers")
        ratios = [r.trees[k]["span_ns"] / r.own[k] for r in runs]
        ratio = statistics.median(ratios)
        tap.ok(ratio >= 0.98, f"{name}: on-CPU span at least the program's own on its CPU clocks "
               f"in the same recording (-2%), median of {RUNS} ({ratio - 1:+.1%}; each "
               f"{', '.join(f'{x - 1:+.1%}' for x in ratios)})")
        # parallelism is work / span, and so no more than the bounds of
        # both allow above the known parallelism (the leaves' work over the
        # program's span)
        bad = [r.trees[k]["parallelism"] for r in runs
               if abs(r.trees[k]["parallelism"] * r.trees[k]["span_ns"] - r.trees[k]["work_ns"])
               > 1e-3 * r.trees[k]["work_ns"]]
        par = statistics.median(r.trees[k]["parallelism"] for r in runs)
        known = statistics.median(leaves * leaf / r.own[k] for r in runs)
        tap.ok(not bad and par <= 1.10 / 0.98 * known,
               f"{name}: parallelism work/span, median {par:.2f}, at most the known {known:.2f} "
               f"+12%", bad)


main()
tap.done_testing()
