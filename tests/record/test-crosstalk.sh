#!/bin/bash
# Two fjtrace-record runs at once, each of its own emitter: in the default
# mode each trace holds its own program's events only (issue 18: with the
# whole-user mode, per-UID buffers, each captured both). Both emitters are
# held at a gate until both sessions record, then emit at the same time and
# stay alive for a while, so that each session is active while the other
# program emits. The --all-processes runs show that the test can tell: there
# each trace holds both programs' events.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

# pair MODE-ARGS...: records emitters of 1000 and 777 events at once into
# $TMP/a and $TMP/b; their stderr in $TMP/a.err and $TMP/b.err.
pair() {
    rm -rf "$TMP/a" "$TMP/b" "$TMP/go"
    local gate="while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec"
    "$REC" "$@" --count -o "$TMP/a" -- sh -c "$gate '$EMIT' 1000 0 3" >/dev/null 2>"$TMP/a.err" </dev/null &
    local pa=$!
    "$REC" "$@" --count -o "$TMP/b" -- sh -c "$gate '$EMIT' 777 0 3" >/dev/null 2>"$TMP/b.err" </dev/null &
    local pb=$!
    local i
    for ((i = 0; i < 600; i++)); do
        grep -q 'recording to' "$TMP/a.err" && grep -q 'recording to' "$TMP/b.err" && break
        sleep 0.1
    done
    touch "$TMP/go"
    wait "$pa"; check $? "fjtrace-record $* (a) exits 0" "$TMP/a.err"
    wait "$pb"; check $? "fjtrace-record $* (b) exits 0" "$TMP/b.err"
}

pair
is "$(bt_count "$TMP/a")" 1000 "default mode: trace a holds its program's 1000 events only"
is "$(bt_count "$TMP/b")" 777 "default mode: trace b holds its program's 777 events only"
grep -q 'events: 1000$' "$TMP/a.err"
check $? "recorder a reports 1000 events" "$TMP/a.err"

pair --all-processes
# (at least: any other fjtrace program of the user running meanwhile, on
# this shared machine, lands in them too)
n=$(bt_count "$TMP/a")
[[ $n -ge 1777 ]]
check $? "--all-processes: trace a holds both programs' events ($n >= 1777: the test can tell)"
n=$(bt_count "$TMP/b")
[[ $n -ge 1777 ]]
check $? "--all-processes: so does trace b ($n >= 1777)"
done_testing
