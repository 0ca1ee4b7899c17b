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
import sys
import xml.etree.ElementTree as ET

# the SVG read back as the lock-wait check reads it (same folder)
from check_lock_waits import RUNNING, filled_rects

PLOT_PX = 1460.0


def marks(root, title):
    """The widths of the fjv-offcpu hover marks titled `title`."""
    return [float(el.get("width")) for el in root.iter() if el.get("class") == "fjv-offcpu"
            and next((t.text for t in el if t.tag.endswith("title")), None) == title]


def main():
    report = json.load(open(sys.argv[1]))
    root = ET.parse(sys.argv[2]).getroot()
    work, sleep = int(sys.argv[3]), int(sys.argv[4])
    pool = report["pools"][0]
    px_ns = pool["duration_ns"] / PLOT_PX
    bad = []
    runs = [r[2] - r[0] for r in filled_rects(root) if r[4] in RUNNING]
    running = sum(runs) * px_ns
    if abs(running - work) > 0.1 * work + px_ns * len(runs):
        bad.append("running")
    print(f"running: drawn {running / 1e6:.3f} ms in {len(runs)} rectangles, burnt "
          f"{work / 1e6:.3f} ms")
    for kind, title, least in (("preempted", "preempted", 1),
                               ("blocked", "blocked (off the CPU)", 0.95 * sleep)):
        widths = marks(root, title)
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
