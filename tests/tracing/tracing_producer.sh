#!/bin/bash
# A producer loop of known work and span through the real stack (TAP):
# producer.c's root forks 32 children one after the other (most run at once
# inside their fork: a deque of 4), each waits for a grandchild that burns
# 4 ms of its thread's CPU time, then the root joins them all; two busy
# loops compete for the 2 cores. The truth by hand: work 32 x 4 ms =
# 128 ms, span one chain, 4 ms, plus the root's own forks and joins (about
# 0.1 ms here). Taking each child as joined when it finished put the
# root's later forks after its earlier children: span 120 ms of the 128.
# The program measures both itself (producer.c); the checks use its figures.
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
python3 - "$tmp/producer.json" "$tmp/producer.out" >"$tmp/producer.check" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))["pools"][0]
own = {k: int(v) / 1e6 for k, v in
       re.findall(r"producer (span|work) on the CPU (\d+) ns", open(sys.argv[2]).read())}
work, span = p["work_ns"] / 1e6, p["span_ns"] / 1e6
print(f"figures {p['figures']}, work {work:.2f} ms (the program's own {own.get('work', 0):.2f}), "
      f"span {span:.3f} ms (the program's own {own.get('span', 0):.3f}), "
      f"parallelism {p['parallelism']:.1f}, tasks {p['totals']['tasks']}, "
      f"steals {p['totals']['steals']}")
sys.exit(0 if p["figures"] == "on_cpu" and p["totals"]["tasks"] == 65 else 1)
PY
ok $? "the producer's figures are on-CPU time, 65 tasks ($(cat "$tmp/producer.check"))"
# Each figure against the one the program measured on its threads' CPU
# clocks in the same run (producer.c): under load the runtime's own code
# and the clock readings cost more, and the truth with them. The analyzer
# also sees the runtime's code around the bodies: -2%..+10%.
within_own() {
    python3 - "$tmp/producer.json" "$tmp/producer.out" "$1" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))["pools"][0]
what = sys.argv[3]
own = re.search(rf"producer {what} on the CPU (\d+) ns", open(sys.argv[2]).read())
sys.exit(0 if own and 0.98 <= p[what + "_ns"] / int(own.group(1)) <= 1.10 else 1)
PY
}
within_own work
ok $? "producer: work within -2%..+10% of the program's own ($(cat "$tmp/producer.check"))"
within_own span
ok $? "producer: span within -2%..+10% of the program's own, one chain (4 ms and the root's forks), not the sum of the children finished before their join ($(cat "$tmp/producer.check"))"
done_testing
