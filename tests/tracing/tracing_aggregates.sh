#!/bin/bash
# Honest aggregates (issue 12) through the real stack (TAP):
#   a lone worker running counted completers (fj-breakeven -p 1) never
#   steals: its own deque full of a completer's children is not "work
#   queued elsewhere" (at most a root waiting to be taken is).
#   two programs recorded together (--all-processes): one pool each, named
#   by its process, with its own tree (naive fib(n): F(n+1) tasks).
#   a task of pool A waiting in fj_invoke for pool B's 20 ms of CPU is not
#   working: the work summed over both pools is the 20 ms (on-CPU time,
#   off-CPU recorded), not twice that as the wall-clock figures say.
#   strictly sequential chains of empty tasks (each task forks one and
#   joins it at once; a loop of fork+join) have parallelism 1, not the ~2
#   of the fork's and join's own costs taken as parallel strands, and a
#   burdened speedup of 1 at P=1; the deep chain's nested EXEC->EXECUTED
#   sum is shown beside a time (outermost bodies) that fits in the run.
#   four clients' trees at once on one pool: the pool's span is the longest
#   tree's, not their sum; each client thread recorded its off-CPU time.
# PART: "counts", the first two (no steal, task counts: no figure a load
# could change; meson runs them beside other tests, tracing_aggregates_counts),
# or "figures", the others (on-CPU work, parallelism, spans: alone,
# tracing_aggregates).
# usage: tracing_aggregates.sh PART FJTRACE-RECORD FJTRACE-ANALYZE FJ-BREAKEVEN FJ-FIB NESTED-POOLS CHAIN CLIENTS
PART=$1
shift
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 BREAKEVEN=$3 FIB=$4 NESTED=$5 CHAIN=$6 CLIENTS=$7
case $PART in
counts | figures) ;;
*) bail_out "PART is counts or figures, not '$PART'" ;;
esac
if [[ $PART == counts ]]; then
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
# Two processes at once, each with its pool 1. --all-processes records
# any other fjtrace program running meanwhile too: ours run under a name
# of their own (a symbolic link's name is the process's name).
me=fjtwo$$
ln -s "$(realpath "$FIB")" "$tmp/$me"
"$RECORD" --all-processes -o "$tmp/two" -- sh -c '"$1" 18 -p 2 >/dev/null & "$1" 17 -p 2 >/dev/null; wait' sh "$tmp/$me" \
    >"$tmp/two.out" 2>"$tmp/two.err"
ok $? "fjtrace-record --all-processes records two fj-fib processes" || cat "$tmp/two.err" >&2
# Only our two processes' traces: a program of another test, killed while
# it registered with LTTng, can leave a per-process trace babeltrace2
# cannot open (exit 3), which says nothing about ours.
"$ANALYZE" --no-progress --json "$tmp/two/ust/pid/$me"-* >"$tmp/two.json" 2>"$tmp/two.aerr"
st=$?
[ $st -eq 0 ]
ok $? "fjtrace-analyze reads our two processes' traces (exit $st)" || cat "$tmp/two.aerr" >&2
python3 - "$tmp/two.json" "$me" >"$tmp/two.check" <<'PY'
import json, sys
pools = [p for p in json.load(open(sys.argv[1]))["pools"]
         if p["process"] and p["process"]["name"] == sys.argv[2]]
got = sorted(p["totals"]["tasks"] for p in pools)
pids = {p["process"]["pid"] for p in pools}
print(f"pools of {sys.argv[2]}: tasks {got}, pids {sorted(pids)}")
sys.exit(0 if got == [2584, 4181] and len(pids) == 2 else 1)
PY
ok $? "one pool per process: F(18)=2584 and F(19)=4181 tasks, two pids ($(cat "$tmp/two.check"))"
done_testing
exit
fi
record nested "$NESTED"
"$ANALYZE" --no-progress --json "$tmp/nested" >"$tmp/nested.json" 2>"$tmp/nested.aerr"
ok $? "fjtrace-analyze reads nested_pools (exit 0)" || cat "$tmp/nested.aerr" >&2
python3 - "$tmp/nested.json" >"$tmp/nested.check" <<'PY'
import json, sys
pools = json.load(open(sys.argv[1]))["pools"]
work = sum(p["work_ns"] for p in pools) / 1e6
wall = sum(p["work_wall_ns"] for p in pools) / 1e6
figs = {p["figures"] for p in pools}
print(f"work on the CPU {work:.3f} ms, wall {wall:.2f} ms, figures {sorted(figs)}")
# Each pool's part, for a check that fails (local CI 50: 21.639 ms once,
# 19.99-20.21 in ten other runs): off-CPU time by kind, unattributed time
# (on the CPU for the trace, not for the threads' clocks), the clock used.
for p in pools:
    o = p["offcpu"]
    ms = lambda v: "n/a" if v is None else f"{v / 1e6:.3f}"
    print(f"  pool {p['pool']}: work {ms(p['work_ns'])} ms, wall {ms(p['work_wall_ns'])} ms, "
          f"preempted {ms(o.get('preempted_ns'))}, blocked {ms(o.get('blocked_ns'))}, "
          f"unattributed {ms(o.get('unattributed_ns'))} ms, clock {o.get('oncpu_clock')}")
# Within 2% of the 20 ms (the issue's "within a few percent of the CPU
# truth"): the burn counts its thread's CPU clock, the analyzer the trace's
# clock less the switch records' stays, which differ by up to ~0.1 ms over
# tens of switches on a loaded machine (19.90 seen). main: >= 40.
sys.exit(0 if figs == {"on_cpu"} and 19.6 <= work <= 20.4 else 1)
PY
ok $? "work over both pools is the 20 ms burnt (within 2%), not the waiting task's too ($(head -n 1 "$tmp/nested.check"))" ||
  diag "$(tail -n +2 "$tmp/nested.check")"
# Three recordings of each: a stall the trace cannot see (the hypervisor
# taking the vCPU: no context switch is recorded) inside one parent's run
# ahead of its join counts as its code, so the median is checked.
for shape in "link 2000" "loop 10000"; do
    name=chain-${shape%% *}
    for i in 1 2 3; do
        # shellcheck disable=SC2086 # the shape is two words on purpose
        record "$name-$i" "$CHAIN" $shape
        "$ANALYZE" --no-progress --json --tasks "$tmp/$name-$i.csv" "$tmp/$name-$i" \
            >"$tmp/$name-$i.json" 2>"$tmp/$name.aerr"
        ok $? "fjtrace-analyze reads chain $shape, recording $i (exit 0)" || cat "$tmp/$name.aerr" >&2
    done
    cp "$tmp/$name-1.json" "$tmp/$name.json"
    python3 - "$tmp/$name"-[123].json >"$tmp/$name.check" 2>"$tmp/$name.why" <<'PY'
import csv, json, statistics, sys
pools = [json.load(open(f))["pools"][0] for f in sys.argv[1:]]
par = [p["parallelism"] for p in pools]
s1 = [p["speedup"][0] for p in pools]
print(f"tasks {pools[0]['totals']['tasks']}, parallelism {par}, "
      f"steals {[p['totals']['steals'] for p in pools]}, "
      f"P=1 bound {[s['bound'] for s in s1]} burdened {[s['burdened'] for s in s1]}")
# What each recording's work beyond its span is made of (CI runs under ASan
# saw 1.05 twice with 21-32 steals, never reproduced here): the stolen
# tasks' self time (the only work a chain can run beside its strand), the
# root's, the joins' waits and parks, the tool's time.
for f, p in zip(sys.argv[1:], pools):
    tasks = list(csv.DictReader(open(f.replace(".json", ".csv"))))
    stolen = sorted((int(t["self_ns"]) for t in tasks if t["stolen"] == "1"), reverse=True)
    root = max(int(t["self_ns"]) for t in tasks if t["depth"] == "0")
    print(f"  work-span {(p['work_ns'] - p['span_ns']) / 1e3:.1f} us of {p['work_ns'] / 1e3:.1f}: "
          f"stolen self {sum(stolen) / 1e3:.1f} us (largest {[round(x / 1e3, 1) for x in stolen[:4]]}), "
          f"root self {root / 1e3:.1f} us, joins waited {p['totals']['joins_waited']} "
          f"({p['time']['join_wait_ns'] / 1e3:.1f} us), parks {p['totals']['parks']}, "
          f"tool {p['offcpu'].get('tool_ns')} ns, unattributed {p['offcpu'].get('unattributed_ns')} ns",
          file=sys.stderr)
# main: parallelism 2.1 (link) and 1.4 (loop): the strand from each fork to
# the join that ran the child inline was taken as parallel to the child.
# A link chain whose links the two workers steal back and forth (1 in 5
# recordings here) showed up to 2.1 until join_stolen said the same.
sys.exit(0 if 1.0 <= statistics.median(par) <= 1.05 and min(par) >= 1.0
         and all(s["workers"] == 1 and abs(s["burdened"] - 1) < 1e-9
                 and abs(s["bound"] - 1) < 1e-9 for s in s1) else 1)
PY
    ok $? "a sequential chain ($shape): median parallelism of 3 within 5% of 1, P=1 speedups 1 ($(cat "$tmp/$name.check"))" ||
        cat "$tmp/$name.why" >&2
done
# The 2000-deep chain's EXEC->EXECUTED summed with nesting grows with the
# square of the depth; the time inside outermost bodies is a time (issue 12).
python3 - "$tmp/chain-link.json" >"$tmp/nest.check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
t = p["totals"]
nested, outer, dur = t["exec_to_executed_ns"], t["outermost_bodies_ns"], p["duration_ns"]
workers = len(p["per_worker"])
print(f"EXEC->EXECUTED summed {nested} ns, outermost bodies {outer} ns, run {dur} ns x {workers} workers")
# A time: at most workers x duration (docs/analyses.md). When the other
# worker steals a link, its outermost body runs beside the root's (3.56 ms
# of bodies in a 2.27 ms run was seen), so not within one run's duration.
sys.exit(0 if 0 < outer <= dur * workers and nested >= 100 * outer else 1)
PY
ok $? "a 2000-deep chain: EXEC->EXECUTED summed with nesting >= 100x the time in outermost bodies, which fits in the workers' time of the run ($(cat "$tmp/nest.check"))"
record clients "$CLIENTS"
"$ANALYZE" --no-progress --json "$tmp/clients" >"$tmp/clients.json" 2>"$tmp/clients.aerr"
ok $? "fjtrace-analyze reads clients (exit 0)" || cat "$tmp/clients.aerr" >&2
python3 - "$tmp/clients.json" >"$tmp/clients.check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
trees = p["trees"]
spans = [t["span_ns"] for t in trees]
blocked = [t["client_blocked_ns"] for t in trees]
print(f"trees {len(trees)}, tree spans {spans} ns, pool span {p['span_ns']} ns, "
      f"work {p['work_ns']} ns, clients blocked {blocked} ns")
# 4 trees of 31 tasks, 3.2 ms of CPU and span 0.2 ms each, run together:
# the pool's span is the longest tree's (main before 2ddf1fc: their sum)
ok = (len(trees) == 4 and all(t["tasks"] == 31 for t in trees)
      and p["span_ns"] == max(spans) and p["span_ns"] < 0.5 * sum(spans)
      and all(b is not None for b in blocked))
sys.exit(0 if ok else 1)
PY
ok $? "four clients at once: the pool's span is the longest tree's, not the sum; each client's off-CPU time known ($(cat "$tmp/clients.check"))"
done_testing
