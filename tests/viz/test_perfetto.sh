#!/bin/bash
# fjtrace-analyze --perfetto through the real stack: record naive fj-fib with
# fjtrace-record, export Perfetto's protobuf trace and the Chrome JSON trace
# of the same run, read the protobuf back with pf-read (the same protobuf-c
# code, trace_processor is not available here) and check known answers: one
# task slice per task, F(N+1) of them (the forked tasks and the root), one
# track per worker, slices nested, names interned, and the same slices at
# the same times as the Chrome trace. Then a large trace (over a million
# events) is written and read back whole.
#   test_perfetto.sh SRCDIR ANALYZE PFREAD FIB PFWRITE
. "$(dirname "$0")/../tap.sh"
set -uo pipefail
src=$1 analyze=$2 pfread=$3 fib=$4 pfwrite=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# rec DIR N: records naive fib(N) on 2 workers; prints the event count
rec() {
  "$src/scripts/fjtrace-record" --count --cmd-only -o "$1" -- "$fib" "$2" -p 2 --variant naive \
    >/dev/null 2>"$tmp/rec.err" || bail_out "recording: $(cat "$tmp/rec.err")"
  sed -n 's/^fjtrace-record: events: \([0-9]*\)$/\1/p' "$tmp/rec.err"
}
fibo() { local a=0 b=1 i; for ((i = 0; i < $1; i++)); do ((b += a, a = b - a)); done; echo "$a"; }
val() { sed -n "s/^$1 //p" "$2"; }

n=16
rec "$tmp/small" $n >/dev/null
"$analyze" "$tmp/small" -o /dev/null --perfetto "$tmp/t.pftrace" --chrome-trace "$tmp/t.json" \
  2>"$tmp/an.err"
ok $? "fjtrace-analyze writes the protobuf and the JSON trace of one run" || diag "$(cat "$tmp/an.err")"
"$pfread" "$tmp/t.pftrace" --dump >"$tmp/dump" 2>"$tmp/read.err"
ok $? "pf-read parses every packet: sequences cleared first, names and keys interned before use, clocks, nested slices, flows with both ends" ||
  diag "$(cat "$tmp/read.err")"
grep -v '^[BE] ' "$tmp/dump" >"$tmp/stats"
is "$(val task_slices "$tmp/stats")" "$(fibo $((n + 1)))" "one task slice per task of fib($n): F($((n + 1))) (forked tasks + root)"
is "$(val distinct_tasks "$tmp/stats")" "$(fibo $((n + 1)))" "the task slices annotate F($((n + 1))) distinct task ids"
is "$(val worker_tracks "$tmp/stats")" 2 "one thread track per worker of the -p 2 pool"
is "$(val process_tracks "$tmp/stats")" 1 "one process track for the pool"
# same_tracks.py: the protobuf dump has the JSON's slices per track, its
# counter values, a flow per steal across workers (and, with a window, no
# JSON slice begins outside it).
python3 "$src/tests/viz/same_tracks.py" "$tmp/t.json" "$tmp/dump"
ok $? "the protobuf trace has the JSON trace's slices, names, counter values and times (+-1 ns) per track, a flow per steal"
js=$(stat -c %s "$tmp/t.json") pb=$(val bytes "$tmp/stats")
diag "fib($n): JSON $js bytes, protobuf $pb bytes ($((js / pb))x smaller)"

# --window from the beginning of the slice a third of the way through to
# the one two thirds through, in the order they begin (ns since the first
# event, the JSON's origin): both traces keep what begins in it, still
# sound. Not the middle third of the time: a worker preempted for a while
# on a loaded machine can leave no slice beginning there.
read -r from to < <(python3 -c 'import json, sys
ts = sorted(e["ts"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "B")
print(int(ts[len(ts) // 3] * 1000), int(ts[2 * len(ts) // 3] * 1000))' "$tmp/t.json")
"$analyze" "$tmp/small" -o /dev/null --window "$from:$to" --perfetto "$tmp/w.pftrace" \
  --chrome-trace "$tmp/w.json" 2>"$tmp/an.err" && "$pfread" "$tmp/w.pftrace" --dump >"$tmp/wdump" &&
  python3 "$src/tests/viz/check_outputs.py" chrome "$tmp/w.json" &&
  python3 "$src/tests/viz/same_tracks.py" "$tmp/w.json" "$tmp/wdump" "$((from / 1000))" "$((to / 1000 + 1))"
ok $? "--window $from:$to: both traces sound, the same slices, all beginning in the window"
wn=$(grep -c '^B' "$tmp/wdump") an=$(grep -c '^B' "$tmp/dump")
(( wn > 0 && wn < an ))
ok $? "the window keeps some slices but not all ($wn of $an)"
# the extension decides the format, whichever option names the file
"$analyze" "$tmp/small" -o /dev/null --chrome-trace "$tmp/x.pftrace" --perfetto "$tmp/y.json" &&
  "$pfread" "$tmp/x.pftrace" >/dev/null && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/y.json"
ok $? "--chrome-trace F.pftrace writes protobuf, --perfetto F.json writes JSON"

# Output faults: as every output, whole or not at all (exit 6)
touch "$tmp/file"
"$analyze" "$tmp/small" -o /dev/null --perfetto "$tmp/file/t.pftrace" 2>"$tmp/err"
rc=$?
[[ $rc == 6 ]] && grep -q "Not a directory" "$tmp/err"
ok $? "--perfetto under a file: exit 6, Not a directory" || diag "exit $rc: $(cat "$tmp/err")"
mkdir "$tmp/full"
rc=0
(
  ulimit -f 64 # KiB: the protobuf trace of fib($n) is larger
  trap '' XFSZ
  exec "$analyze" "$tmp/small" -o /dev/null --perfetto "$tmp/full/t.pftrace"
) 2>"$tmp/err" || rc=$?
[[ $rc == 6 ]] && grep -q "File too large" "$tmp/err" && [[ -z $(ls -A "$tmp/full") ]]
ok $? "the disk filling up: exit 6, File too large, no file and no temporary left" ||
  diag "exit $rc: $(cat "$tmp/err"); left: $(ls -A "$tmp/full")"

"$pfread" "$tmp/t.json" >/dev/null 2>&1
is $? 1 "pf-read refuses a file that is not a protobuf trace (exit 1)"
head -c $(($(val bytes "$tmp/stats") - 3)) "$tmp/t.pftrace" >"$tmp/cut.pftrace"
"$pfread" "$tmp/cut.pftrace" >/dev/null 2>&1
is $? 1 "pf-read refuses a truncated trace (exit 1)"

# Every committed trace (tests/data: OpenMP, untied tasks, locks, discarded
# events, a killed run...) exports to a sound protobuf trace, with the exit
# status of what it is: 1 (incomplete) for the discarded events, the killed
# run and the anomalies, 4 for the trace of no fjtrace event (nothing to
# export), 0 for every other (whole) one.
bad=
for d in "$src"/tests/data/*/; do
  [[ -d $d/ust ]] || continue
  case $(basename "$d") in
    anomalies | discarded | killed) want=1 ;;
    no-fjtrace) want=4 ;;
    *) want=0 ;;
  esac
  "$analyze" "$d" -o /dev/null --perfetto "$tmp/d.pftrace" 2>/dev/null
  rc=$?
  : >"$tmp/read.err"
  if (( rc != want )); then
    bad+=" $(basename "$d") (exit $rc, not $want)"
  elif (( rc != 4 )) && ! "$pfread" "$tmp/d.pftrace" >/dev/null 2>"$tmp/read.err"; then
    bad+=" $(basename "$d") (exit $rc: $(cat "$tmp/read.err"))"
  fi
done
[[ -z $bad ]]
ok $? "every trace in tests/data exports to a protobuf trace pf-read finds sound, exit 0 where it is whole (1 for the incomplete ones)" || diag "$bad"

# The writer's own paths that a recorded fib does not take (pf-write):
# lock wait, off-CPU track, a timestamp going back, names past the table.
"$pfwrite" "$tmp/u.pftrace" 70000 2>"$tmp/w.err"
ok $? "pf-write drives the writer through lock waits, off-CPU, steals, 70000 names"
grep -q "1 timestamps went back" "$tmp/w.err"
ok $? "a timestamp going back on its track is written at the track's last time, with a warning" ||
  diag "$(cat "$tmp/w.err")"
"$pfread" "$tmp/u.pftrace" >"$tmp/u.stats" 2>"$tmp/read.err"
ok $? "pf-read finds it sound" || diag "$(cat "$tmp/read.err")"
is "$(val side_track_slices "$tmp/u.stats")" 2 "two off-CPU slices on their own track (a second begin while off is ignored)"
is "$(val slices "$tmp/u.stats")" $((5 + 2 + 70000)) "every slice read back: 3 tasks, the lock wait, the late one, 2 off-CPU, 70000 named"
is "$(val flows "$tmp/u.stats")" 2 "each steal is one flow with both ends"
is "$(val absolute_events "$tmp/u.stats")" 2 "the steals' fork ends are timed on the trace clock (the second one earlier)"
is "$(val interned_names "$tmp/u.stats")" 65536 "slice names interned up to the table's 65536"
is "$(val inline_names "$tmp/u.stats")" $((70000 + 6 - 65536)) "the names past it written in full"

# Large: fib(28), ~1.5M events, read back whole.
n=28
events=$(rec "$tmp/large" $n)
"$analyze" "$tmp/large" -o /dev/null --perfetto "$tmp/large.pftrace" 2>"$tmp/an.err"
ok $? "fjtrace-analyze writes the protobuf trace of fib($n), $events events" || diag "$(cat "$tmp/an.err")"
(( events >= 1000000 ))
ok $? "the large trace has over a million events ($events)"
"$pfread" "$tmp/large.pftrace" >"$tmp/large.stats" 2>"$tmp/read.err"
ok $? "pf-read parses the large protobuf trace whole" || diag "$(cat "$tmp/read.err")"
is "$(val task_slices "$tmp/large.stats")" "$(fibo $((n + 1)))" "fib($n): F($((n + 1))) task slices read back"
pb=$(val bytes "$tmp/large.stats")
diag "fib($n): $events events, protobuf $pb bytes, $((pb / events)) bytes/event, $(val track_events "$tmp/large.stats") track events"
done_testing
