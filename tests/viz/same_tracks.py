#!/usr/bin/env python3
"""The Chrome JSON trace and the Perfetto protobuf trace of one analysis
hold the same tracks.

usage: same_tracks.py JSON DUMP [FROM_US TO_US]
DUMP is `pf-read FILE --dump`. The protobuf has the JSON's slices per
track (a worker's lane, and its off-CPU track by name; names, times to the
ns), its counter values (same times), a flow per steal across workers;
with a window, no JSON slice begins outside it. Prints what differs (or
what matched); exit 1 when something differs.
"""
import json
import sys
from collections import defaultdict

ev = json.load(open(sys.argv[1]))["traceEvents"]
lo, hi = (float(x) for x in sys.argv[3:5]) if len(sys.argv) > 3 else (0, float("inf"))
early = [e for e in ev if e["ph"] == "B" and not lo <= e["ts"] <= hi]
if early:
    print(f"{len(early)} JSON slices begin outside [{lo}, {hi}] us, e.g. {early[0]}")
    sys.exit(1)
chrome, pf = defaultdict(list), defaultdict(list)
jc, pc = defaultdict(list), defaultdict(list)
for e in ev:
    if e["ph"] == "C" and lo <= e["ts"] <= hi:
        jc[(e["pid"], e["name"])].append((e["ts"], list(e["args"].values())[0]))
# a worker's off-CPU thread, by its name as the protobuf's track has it
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
for e in ev:
    if e["ph"] in "BE":
        track = names.get((e["pid"], e["tid"]), "")
        key = (e["pid"], track) if track.endswith(" off-CPU") else (e["pid"], e["tid"])
        chrome[key].append((e["ph"], e["ts"], e.get("name")))
steals = defaultdict(dict)
for e in ev:
    if e["ph"] in "sf" and e["name"] == "steal":
        steals[e["id"]][e["ph"]] = e["tid"]
cross = sum(1 for s in steals.values() if s.get("s") != s.get("f"))
flows = 0
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split(" ", 4)
    if f[0] in "BE" and len(f) >= 4:
        pf[(int(f[1]), int(f[2]) % 100000)].append((f[0], int(f[3]), f[4] if f[0] == "B" else None))
    elif f[0] in ("OB", "OE"):
        track, name = line.rstrip("\n").split(" ", 3)[3].split("|", 1)
        pf[(int(f[1]), track)].append((f[0][1], int(f[2]), name if f[0] == "OB" else None))
    elif f[0] == "C":
        pc[(int(f[1]), f[4])].append((int(f[2]), int(f[3])))
    elif f[0] == "flows":
        flows = int(f[1])
bad = []
if set(chrome) != set(pf):
    bad.append(f"tracks differ: {sorted(chrome)} vs {sorted(pf)}")
off = None
for k in chrome:
    a, b = chrome[k], pf.get(k, [])
    if len(a) != len(b):
        bad.append(f"{k}: {len(a)} JSON events, {len(b)} protobuf events")
        continue
    for (pa, ta, na), (pb, tb, nb) in zip(a, b):
        if off is None:
            off = tb - round(ta * 1000)
        if pa != pb or na != nb or abs(tb - off - ta * 1000) > 1:
            bad.append(f"{k}: JSON {pa} {ta} {na} vs protobuf {pb} {tb - off} {nb}")
            break
for k in set(jc) | set(pc):
    a, b = jc.get(k, []), pc.get(k, [])
    if off is None and a and b:
        off = b[0][0] - round(a[0][0] * 1000)
    if [v for _, v in a] != [v for _, v in b] or any(
            abs(tb - off - ta * 1000) > 1 for (ta, _), (tb, _) in zip(a, b)):
        bad.append(f"counter {k}: JSON {len(a)} values, protobuf {len(b)}, first {a[:3]} vs {b[:3]}")
if flows != cross:
    bad.append(f"{flows} protobuf flows, {cross} JSON steal flows across workers")
print("\n".join(bad) if bad else f"{sum(map(len, pf.values()))} slice events, "
      f"{sum(map(len, pc.values()))} counter values, {flows} steal flows match")
sys.exit(1 if bad else 0)
