#!/bin/bash
# Honest aggregates (issue 12) through the real stack (TAP):
#   a lone worker running counted completers (fj-breakeven -p 1) never
#   steals: none of its idle time is "work queued elsewhere" (its own
#   deque does not count), and it is not told that stealing is late.
# usage: tracing_aggregates.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-BREAKEVEN
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 BREAKEVEN=$3
record be1 "$BREAKEVEN" -p 1 -n 20000 -q 50 -r 10 --think 1
"$ANALYZE" --no-progress --json "$tmp/be1" >"$tmp/be1.json" 2>"$tmp/be1.aerr"
ok $? "fjtrace-analyze reads it (exit 0)" || cat "$tmp/be1.aerr" >&2
python3 - "$tmp/be1.json" >"$tmp/be1.check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
queued = p["time"]["gaps"]["work_queued"]["ns"]
late = [a for a in p["advice"] if a["kind"] == "steals_late"]
print(f"steals={p['totals']['steals']} work_queued_ns={queued} steals_late={len(late)}")
sys.exit(0 if p["totals"]["steals"] == 0 and queued == 0 and not late else 1)
PY
ok $? "P=1 counted completers: no steal, no work-queued idle, no 'stealing is late' ($(cat "$tmp/be1.check"))"
done_testing
