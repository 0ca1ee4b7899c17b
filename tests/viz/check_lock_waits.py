#!/usr/bin/env python3
"""Reads a timeline SVG back and checks its lock waits: every
<rect class="fjv-lock-wait"> hover mark is titled with the lock's name, sits
on a rectangle filled with the lock-wait colour, and no rectangle filled with
a running colour covers any of it.  Prints "N lock-wait runs, W px" and exits
1 with the reason on the first failure.
Usage: check_lock_waits.py TIMELINE.svg LOCK_NAME"""
import re
import sys
import xml.etree.ElementTree as ET

LOCK = "rgb(80%,15%,55%)"  # viz/util.c, LS_LOCK
RUNNING = {"rgb(17%,63%,17%)", "rgb(10%,45%,25%)", "rgb(40%,75%,30%)", "rgb(5%,55%,45%)"}
RECT = re.compile(r"M ([-\d.]+) ([-\d.]+) L ([-\d.]+) \2 L \3 ([-\d.]+) L \1 \4 Z")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def filled_rects(root):
    """(x0, y0, x1, y1, fill) of every axis-aligned filled rectangle cairo drew."""
    out = []
    for el in root.iter():
        if not el.tag.endswith("path"):
            continue
        fill = re.search(r"fill:(rgb\([^)]*\))", el.get("style", ""))
        m = RECT.match(el.get("d", ""))
        if fill and m:
            x0, y0, x1, y1 = (float(v) for v in m.groups())
            out.append((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1), fill.group(1)))
    return out


def main(path, name):
    root = ET.parse(path).getroot()
    marks = [el for el in root.iter() if el.get("class") == "fjv-lock-wait"]
    if not marks:
        fail("no <rect class=\"fjv-lock-wait\"> in the timeline")
    rects = filled_rects(root)
    width = 0.0
    for mk in marks:
        title = next((t.text or "" for t in mk if t.tag.endswith("title")), "")
        if name not in title:
            fail(f"lock-wait title {title!r} does not name {name!r}")
        x, y, w = float(mk.get("x")), float(mk.get("y")), float(mk.get("width"))
        under = [r for r in rects if abs(r[0] - x) < 0.01 and abs(r[1] - y) < 0.01
                 and abs(r[2] - (x + w)) < 0.01]
        if not any(r[4] == LOCK for r in under):
            fail(f"lock wait at x={x} y={y} w={w} is not drawn in the lock colour: {under}")
        for r in rects:
            overlap = min(r[2], x + w) - max(r[0], x)
            if r[4] in RUNNING and overlap > 0.01 and r[1] <= y < r[3]:
                fail(f"lock wait at x={x} y={y} w={w} is covered by running rectangle {r}")
        width += w
    print(f"{len(marks)} lock-wait runs, {width:.0f} px")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
