#!/usr/bin/env python3
"""Checks fjtrace-analyze's pictures: SVG parses as XML, the Chrome trace is
valid JSON with properly nested slices per track, flows with both ends and
thread/process names, and the HTML is well-formed enough to hold its
sections.  Usage: check_outputs.py svg FILE... | chrome FILE | html FILE"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_svg(paths):
    for p in paths:
        root = ET.parse(p).getroot()
        if not root.tag.endswith("svg"):
            fail(f"{p}: root is {root.tag}")


def check_chrome(path):
    with open(path) as f:
        d = json.load(f)
    ev = d["traceEvents"]
    stacks, flows, names = {}, {}, set()
    last = {}
    for e in ev:
        ph = e["ph"]
        key = (e.get("pid"), e.get("tid"))
        if ph == "M":
            names.add(e["name"])
        elif ph in "BE":
            if e["ts"] < last.get(key, -1):
                fail(f"time goes back on {key}")
            last[key] = e["ts"]
            st = stacks.setdefault(key, [])
            if ph == "B":
                st.append(e)
            elif not st:
                fail(f"E without B on {key} at {e['ts']}")
            else:
                st.pop()
        elif ph in "sf":
            flows.setdefault(e["id"], set()).add(ph)
    for k, st in stacks.items():
        if st:
            fail(f"{len(st)} slices left open on {k}")
    bad = [i for i, s in flows.items() if s != {"s", "f"}]
    if bad:
        fail(f"{len(bad)} flows without both ends")
    for n in ("process_name", "thread_name"):
        if n not in names:
            fail(f"no {n} metadata")
    counters = sum(1 for e in ev if e["ph"] == "C")
    print(f"chrome ok: {len(ev)} events, {len(flows)} flows, {counters} counter samples")


def check_html(path):
    s = open(path).read()
    for h in ("Summary", "Workers", "Trees", "Timeline", "Charts", "Advice"):
        if f">{h}</h2>" not in s:
            fail(f"no {h} heading")
    if re.search(r"""(src|href)=["']?(https?:|//)""", s):
        fail("external reference")
    for m in re.finditer(r"<svg.*?</svg>", s, re.S):
        ET.fromstring(m.group(0))
    print("html ok")


if __name__ == "__main__":
    {"svg": lambda a: check_svg(a), "chrome": lambda a: check_chrome(a[0]),
     "html": lambda a: check_html(a[0])}[sys.argv[1]](sys.argv[2:])
