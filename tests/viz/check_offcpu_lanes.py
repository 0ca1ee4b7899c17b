#!/usr/bin/env python3
"""A timeline SVG of fj-burn against its known answers and its report.

usage: check_offcpu_lanes.py REPORT.json TIMELINE.svg WORK_NS SLEEP_NS
The first pool's axis is 1460 px for its duration. The lanes' running
rectangles (the greens of viz/util.c) add up to the CPU time the leaves
burnt (WORK_NS: 2^D x L) within 10%, plus a pixel per rectangle (a pixel
shows the state that took most of its time: each of a rectangle's two ends
is within half a pixel): before, a preempted task was drawn running (~10x
the work under 3 busy loops). The off-CPU marks (class fjv-offcpu) of a running task:
"blocked (off the CPU)" at least the leaves' sleeps (SLEEP_NS: 2^D x S,
less 5%: a sleep lasts at least that, and its wait for the CPU after it is
counted with it), "preempted" some; neither more than the report's
offcpu_*_ns of the workers (which count waits too) plus the same slack.
Prints the figures; exit 1 when one is off."""
import json
import re
import sys

PLOT_PX = 1460.0
RUNNING = {"rgb(17%,63%,17%)", "rgb(10%,45%,25%)", "rgb(40%,75%,30%)", "rgb(5%,55%,45%)"}
RECT = re.compile(r'<path[^>]*style="[^"]*fill:(rgb\([^)]*\))[^"]*"[^>]*'
                  r'd="M ([-\d.]+) ([-\d.]+) L ([-\d.]+) \3 L \4 ([-\d.]+) L \2 \5 Z')
MARK = re.compile(r'class="fjv-offcpu" x="[\d.]+" y="[\d.]+" width="([\d.]+)"[^>]*>'
                  r'<title>([^<]*)</title>')


def main():
    report = json.load(open(sys.argv[1]))
    svg = open(sys.argv[2]).read()
    work, sleep = int(sys.argv[3]), int(sys.argv[4])
    pool = report["pools"][0]
    px_ns = pool["duration_ns"] / PLOT_PX
    bad = []
    runs = [abs(float(m.group(4)) - float(m.group(2)))
            for m in RECT.finditer(svg) if m.group(1) in RUNNING]
    running = sum(runs) * px_ns
    if abs(running - work) > 0.1 * work + px_ns * len(runs):
        bad.append("running")
    print(f"running: drawn {running / 1e6:.3f} ms in {len(runs)} rectangles, burnt "
          f"{work / 1e6:.3f} ms")
    for kind, title, least in (("preempted", "preempted", 1),
                               ("blocked", "blocked (off the CPU)", 0.95 * sleep)):
        widths = [float(m.group(1)) for m in MARK.finditer(svg) if m.group(2) == title]
        drawn = sum(widths) * px_ns
        most = sum(w[f"offcpu_{kind}_ns"] for w in pool["per_worker"])
        slack = 0.05 * most + 0.5 * px_ns * len(widths)
        if drawn < least or drawn > most + slack:
            bad.append(kind)
        print(f"{kind}: drawn {drawn / 1e6:.3f} ms in {len(widths)} marks, at least "
              f"{least / 1e6:.3f} ms, the workers' in the report {most / 1e6:.3f} ms")
    if bad:
        print("OFF:", ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
