#!/bin/bash
# Honest aggregates (issue 12) through the real stack (TAP):
#   a lone worker running counted completers (fj-breakeven -p 1) never
#   steals: its own deque full of a completer's children is not "work
#   queued elsewhere" (at most a root waiting to be taken is).
# usage: tracing_aggregates.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-BREAKEVEN
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 BREAKEVEN=$3
record be1 "$BREAKEVEN" -p 1 -n 20000 -q 50 -r 10 --think 1
"$ANALYZE" --no-progress --json "$tmp/be1" >"$tmp/be1.json" 2>"$tmp/be1.aerr"
ok $? "fjtrace-analyze reads it (exit 0)" || cat "$tmp/be1.aerr" >&2
python3 - "$tmp/be1.json" >"$tmp/be1.check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
gaps = p["time"]["gaps"]["work_queued"]["count"]
subs = p["totals"]["submits"]
print(f"steals={p['totals']['steals']} work_queued_gaps={gaps} submissions={subs}")
# Only a root waiting in the submission queue (a wake-up that came late
# on a loaded machine) can make such a gap: at most one per submission.
# Counting the worker's own deque made one per completer leaf (~20 each).
sys.exit(0 if p["totals"]["steals"] == 0 and gaps <= subs else 1)
PY
ok $? "P=1 counted completers: no steal; work-queued gaps only for waiting roots, none from its own deque ($(cat "$tmp/be1.check"))"
done_testing
