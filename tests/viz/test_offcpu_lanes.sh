#!/bin/bash
# The workers' stays off the CPU in the pictures, through the real stack:
# fj-burn at P=2 (32 leaves, each 2 ms of CPU then a 1 ms sleep) recorded
# beside 3 busy loops on the machine's cores, so its workers are both
# preempted and blocked; the SVG timeline's lanes show running for the CPU
# time the leaves burnt (64 ms, not the wall time they took), the leaves'
# sleeps as blocked and their preemption as preempted, and the Perfetto
# trace has the stays on the workers' off-CPU tracks.
#   test_offcpu_lanes.sh SRCDIR ANALYZE BURN [PF_READ]
. "$(dirname "$0")/../tap.sh"
src=$1 analyze=$2 burn=$3 pfread=${4:-}
tmp=$(mktemp -d)
busy=()
stop_busy() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  busy=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT

for _ in 1 2 3; do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
"$src/scripts/fjtrace-record" --cmd-only --blocking --no-count -o "$tmp/t" -- "$burn" -p 2 \
  --depth 5 --leaf-us 2000 --sleep-us 1000 >/dev/null 2>"$tmp/rec.err"
st=$?
stop_busy
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

if [ -n "$pfread" ]; then
  st=0
  "$analyze" "$tmp/t" -o /dev/null --perfetto "$tmp/t.pftrace" 2>"$tmp/pf.err" || st=$?
  side=$("$pfread" "$tmp/t.pftrace" | sed -n 's/^side_track_slices //p')
  [ "$st" = "$want" ] && [ "${side:-0}" -gt 0 ]
  ok $? "the Perfetto trace has the stays off the CPU on off-CPU tracks (${side:-?} slices)" ||
    diag "exit $st: $(cat "$tmp/pf.err")"
fi
done_testing
