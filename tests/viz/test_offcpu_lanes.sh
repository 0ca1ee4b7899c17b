#!/bin/bash
# The workers' stays off the CPU in the pictures, through the real stack:
# fj-burn at P=2 (32 leaves, each 2 ms of CPU then a 1 ms sleep) recorded
# beside 3 busy loops on the machine's cores, so its workers are both
# preempted and blocked; the SVG timeline's lanes show running for the CPU
# time the leaves burnt (64 ms, not the wall time they took), the leaves'
# sleeps as blocked and their preemption as preempted, and the Chrome and
# Perfetto traces have the stays on the workers' off-CPU tracks, the same
# in both.
#   test_offcpu_lanes.sh SRCDIR ANALYZE BURN [PF_READ]
. "$(dirname "$0")/../tap.sh"
src=$1 analyze=$2 burn=$3 pfread=${4:-}
tmp=$(mktemp -d)
. "$(dirname "$0")/../busy.sh"
trap 'busy_stop; rm -rf "$tmp"' EXIT

busy_start 3
"$src/scripts/fjtrace-record" --cmd-only --blocking --no-count -o "$tmp/t" -- "$burn" -p 2 \
  --depth 5 --leaf-us 2000 --sleep-us 1000 >/dev/null 2>"$tmp/rec.err"
st=$?
busy_stop
ok $st "fj-burn -p 2 is recorded beside 3 busy loops" || bail_out "$(cat "$tmp/rec.err")"
want=0
grep -q 'WARNING: LTTng discarded' "$tmp/rec.err" && want=1

st=0
"$analyze" "$tmp/t" --json -o "$tmp/r.json" --timeline "$tmp/t.svg" 2>"$tmp/an.err" || st=$?
is "$st" "$want" "fjtrace-analyze writes the JSON report and the SVG timeline" ||
  diag "$(cat "$tmp/an.err")"
out=$(python3 "$src/tests/viz/check_offcpu_lanes.py" "$tmp/r.json" "$tmp/t.svg" 64000000 32000000)
ok $? "the timeline draws running for the 64 ms the leaves burnt (10%), their sleeps as blocked, and preemption" ||
  diag "$out"
diag "$out"

st=0
"$analyze" "$tmp/t" -o /dev/null --chrome-trace "$tmp/t.json" ${pfread:+--perfetto "$tmp/t.pftrace"} \
  2>"$tmp/ex.err" || st=$?
is "$st" "$want" "fjtrace-analyze writes the Chrome trace${pfread:+ and the Perfetto trace}" ||
  diag "$(cat "$tmp/ex.err")"
out=$(python3 - "$tmp/t.json" "$tmp/r.json" 32000000 <<'PY'
import json, sys
from collections import defaultdict
ev = json.load(open(sys.argv[1]))["traceEvents"]
workers = json.load(open(sys.argv[2]))["pools"][0]["per_worker"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
open_at, total, n = {}, defaultdict(float), 0
for e in ev:
    if not names.get((e["pid"], e.get("tid")), "").endswith(" off-CPU"):
        continue
    k = (e["pid"], e["tid"])
    if e["ph"] == "B":
        open_at[k] = (e["ts"], e["name"])
    elif e["ph"] == "E" and k in open_at:
        ts, name = open_at.pop(k)
        total[name] += (e["ts"] - ts) * 1e3
        n += 1
# The trace shows every stay off the CPU; the report's time split books a
# stay while parked or waiting for a lock as park or lock-wait time
# (docs/analyses.md): each kind at least the report's, both together at
# most the report's plus those. The JSON's times are us with 3 decimals:
# 1 ns a slice end.
report = {k: sum(w[f"offcpu_{k}_ns"] for w in workers) for k in ("preempted", "blocked")}
waits = sum(w["parked_ns"] + w["lock_wait_ns"] for w in workers)
least = all(total[f"off-CPU: {k}"] >= v - n for k, v in report.items())
most = sum(total.values()) <= sum(report.values()) + waits + n
print(f"{n} off-CPU slices: " + ", ".join(f"{k} {v / 1e6:.3f} ms" for k, v in total.items())
      + "; the report's workers: " + ", ".join(f"{k} {v / 1e6:.3f} ms" for k, v in report.items())
      + f", parked or waiting for a lock {waits / 1e6:.3f} ms")
sys.exit(0 if not open_at and least and most and total["off-CPU: blocked"] >= 0.95 * int(sys.argv[3])
         and total["off-CPU: preempted"] > 0 else 1)
PY
)
ok $? "the Chrome trace has the workers' stays off the CPU on off-CPU threads: at least the report's preempted and blocked time, at most that plus their time parked or waiting for a lock; blocked at least the leaves' 32 ms of sleeps (5%)" ||
  diag "$out"
diag "$out"

if [ -n "$pfread" ]; then
  "$pfread" "$tmp/t.pftrace" --dump >"$tmp/dump" 2>"$tmp/pf.err"
  side=$(sed -n 's/^side_track_slices //p' "$tmp/dump")
  [ "${side:-0}" -gt 0 ]
  ok $? "the Perfetto trace has the stays off the CPU on off-CPU tracks (${side:-?} slices)" ||
    diag "$(cat "$tmp/pf.err")"
  out=$(python3 "$src/tests/viz/same_tracks.py" "$tmp/t.json" "$tmp/dump")
  ok $? "the Chrome and Perfetto traces hold the same slices per track, the off-CPU ones too" ||
    diag "$out"
fi
done_testing
