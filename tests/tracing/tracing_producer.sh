#!/bin/bash
# A producer loop of known work and span through the real stack (TAP):
# producer.c's root forks 32 children one after the other (most run at once
# inside their fork: a deque of 4), each waits for a grandchild that burns
# 4 ms of its thread's CPU time, then the root joins them all; two busy
# loops compete for the 2 cores. The truth by hand: work 32 x 4 ms =
# 128 ms, span one chain, 4 ms, plus the root's own forks and joins (about
# 0.1 ms here). Taking each child as joined when it finished put the
# root's later forks after its earlier children: span 120 ms of the 128.
# usage: tracing_producer.sh FJTRACE-RECORD FJTRACE-ANALYZE PRODUCER
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 PRODUCER=$3
busy=()
stop_busy() {
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
    busy=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
for _ in 1 2; do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
record producer "$PRODUCER" 32 4000
stop_busy
"$ANALYZE" --no-progress --json "$tmp/producer" >"$tmp/producer.json" 2>"$tmp/producer.aerr"
ok $? "fjtrace-analyze reads the producer's trace (exit 0)" || cat "$tmp/producer.aerr" >&2
python3 - "$tmp/producer.json" >"$tmp/producer.check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
work, span = p["work_ns"] / 1e6, p["span_ns"] / 1e6
print(f"figures {p['figures']}, work {work:.2f} ms, span {span:.3f} ms, "
      f"parallelism {p['parallelism']:.1f}, tasks {p['totals']['tasks']}, "
      f"steals {p['totals']['steals']}")
sys.exit(0 if p["figures"] == "on_cpu" and p["totals"]["tasks"] == 65 else 1)
PY
ok $? "the producer's figures are on-CPU time, 65 tasks ($(cat "$tmp/producer.check"))"
python3 - "$tmp/producer.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
sys.exit(0 if abs(p["work_ns"] / 128e6 - 1) <= 0.10 else 1)
PY
ok $? "producer: work within 10% of the 128 ms burnt ($(cat "$tmp/producer.check"))"
python3 - "$tmp/producer.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
# 4 ms of the leaf, its parent's and the root's own code: within 10%
sys.exit(0 if 4e6 * 0.97 <= p["span_ns"] <= 4e6 * 1.10 else 1)
PY
ok $? "producer: span within 10% of one chain's 4 ms, not the sum of the children finished before their join ($(cat "$tmp/producer.check"))"
done_testing
