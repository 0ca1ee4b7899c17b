#!/bin/bash
# Lock waits on the timeline, through the real stack: record fj-contention
# (8 workers on one fj_mutex, so waits dominate whatever the load) with
# fjtrace-record, draw the timeline as SVG, and read it back: the lock waits
# the report measures are drawn as lock waits, named on hover, never as
# running.
#   test_timeline_locks.sh SRCDIR ANALYZE CONTENTION
. "$(dirname "$0")/../tap.sh"
src=$1 analyze=$2 contention=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$src/scripts/fjtrace-record" --cmd-only --blocking --no-count -o "$tmp/lock" -- "$contention" -p 8 \
  -n 2000 >/dev/null 2>"$tmp/rec.err"
ok $? "fj-contention -p 8 is recorded" || bail_out "recording failed: $(cat "$tmp/rec.err")"
# The analyzer's exit: 0 for a whole trace, 1 exactly when LTTng discarded
# events or packets, as the recorder reads from LTTng's own packet index
# (--blocking makes that rare, not impossible under load).
want=0
grep -q 'WARNING: LTTng discarded' "$tmp/rec.err" && want=1

# The JSON report, the SVG timeline and the HTML report of one analysis
# (pictures never change the report: viz-same-report); the PNG timeline is
# another (one --timeline a run).
st=0
"$analyze" --json "$tmp/lock" --timeline "$tmp/timeline.svg" --html "$tmp/report.html" \
  >"$tmp/report.json" 2>"$tmp/an.err" || st=$?
is "$st" "$want" "fjtrace-analyze reads the trace and draws its SVG timeline and HTML report (exit $want: $( ((want)) && echo 'LTTng discarded events' || echo 'the trace is whole'))" ||
  diag "$(cat "$tmp/an.err")"
wait_ns=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(sum(w["lock_wait_ns"] for p in r["pools"] for w in p["per_worker"]))' "$tmp/report.json")
[ "${wait_ns:-0}" -gt 0 ]
ok $? "the report measures time waiting for the lock (${wait_ns:-?} ns)"

out=$(python3 "$src/tests/viz/check_lock_waits.py" "$tmp/timeline.svg" shared-resource)
ok $? "lock waits are drawn in their own colour, titled \"waiting for shared-resource\", never covered by running: $out"

marks=$(grep -o 'class="fjv-lock-wait"[^>]*><title>waiting for shared-resource</title>' \
  "$tmp/report.html" | wc -l)
[ "${marks:-0}" -gt 0 ]
ok $? "the HTML report's timeline names the lock on hover too ($marks lock-wait marks)"
grep -q '<th>lock wait</th>' "$tmp/report.html"
ok $? "the HTML workers table has a lock-wait column"

st=0
"$analyze" "$tmp/lock" -o /dev/null --timeline "$tmp/timeline.png" 2>"$tmp/an.err" || st=$?
[ "$st" = "$want" ] && [ -s "$tmp/timeline.png" ]
ok $? "the PNG timeline of the same trace is drawn (exit $st, want $want)" || diag "$(cat "$tmp/an.err")"
done_testing
