#!/bin/bash
# A recording that begins while a task runs untraced (fork_trace in
# runtime/src/sched.c): the session is started by hand once the program's
# root task runs, and the root keeps forking. Every recorded fork must lie
# inside an exec (the root's late exec), every exec be closed, the trace be
# read by the analyzer.
. "$(dirname "$0")/lib.sh" "$1"
LATE=$2 ANALYZE=${3:-}
check=$(dirname "$0")/check_trace.py
session=fjtest-late-$$-$RANDOM
child=
cleanup() {
    [ -n "$child" ] && kill "$child" 2>/dev/null
    lttng destroy "$session" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
# The session is started before any event is enabled: a configured
# session that is not started yet already turns the tracepoints on, and
# what the program emits then is dropped (the root's late exec with it).
lttng create "$session" --output="$tmp/late" >/dev/null &&
    lttng enable-channel --userspace --session="$session" ch >/dev/null &&
    lttng add-context --userspace --session="$session" --channel=ch --type=vtid >/dev/null
ok $? "an LTTng session $session is created" || { done_testing; exit; }
"$LATE" "$tmp/ready" "$tmp/go" 200 >"$tmp/late.out" 2>&1 &
child=$!
for _ in $(seq 300); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
[ -e "$tmp/ready" ]
ok $? "the root task runs (and forked untraced) before the recording begins"
# Only this program's events, whatever else runs on the machine.
lttng untrack --userspace --session="$session" --vpid --all >/dev/null &&
    lttng track --userspace --session="$session" --vpid="$child" >/dev/null &&
    lttng start "$session" >/dev/null &&
    lttng enable-event --userspace --session="$session" --channel=ch 'fjtrace:*' >/dev/null
ok $? "the session records fjtrace:* from the program"
touch "$tmp/go"
st=0
wait "$child" || st=$?
child=
lttng stop "$session" >/dev/null
is "$st" 0 "the program ends well: $(cat "$tmp/late.out")"
out=$(python3 "$check" "$tmp/late" late)
ok $? "a fork inside the late exec of its untraced root, every exec closed, each task executed once" ||
    echo "$out"
diag "$out"
if [ -n "$ANALYZE" ]; then
    st=0
    "$ANALYZE" "$tmp/late" >"$tmp/report" 2>&1 || st=$?
    # What a recording begun mid-run must show, and nothing else: the
    # root's late exec names a task no recorded fork created, and its
    # result follows no recorded submit (the trace is incomplete: exit 1).
    # Without the late exec every round's forks by the root were
    # invalid_event and their tasks' execs exec_of_unknown_task.
    is "$st" 1 "fjtrace-analyze reads the trace as incomplete: exit 1" || cat "$tmp/report"
    is "$(grep '^anomalies:' "$tmp/report")" "anomalies: exec_of_unknown_task 1 result_without_submit 1" \
        "the analyzer's only anomalies: the late exec's task and the root's result" || cat "$tmp/report"
else
    skip 2 "no fjtrace-analyze in this build"
fi
done_testing
