#!/bin/bash
# SIGINT / SIGTERM to the recorder during a long CMD: CMD is stopped, the
# session is stopped and destroyed, the trace is closed and readable.
source "$(dirname "$0")/lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

daemon_before=0
lttng --no-sessiond list >/dev/null 2>&1 && daemon_before=1

SLEEP=$(( 90 + $$ % 1000 ))   # an unusual duration, to find leftovers
sleeper="$EMIT [0-9]* 0 $SLEEP"
for sig in INT TERM; do
    out=$TMP/trace-$sig
    # A background job of a script ignores SIGINT: undo that for the recorder.
    ( trap - INT; exec "$REC" -o "$out" --cmd-only -- "$EMIT" 500 0 "$SLEEP" ) \
        >"$TMP/out" 2>"$TMP/err" </dev/null &
    rec=$!
    # wait until CMD is running and its events are in
    for (( i = 0; i < 200; i++ )); do
        pgrep -f "^$sleeper" >/dev/null && break
        sleep 0.05
    done
    pgrep -f "^$sleeper" >/dev/null || { cat "$TMP/err" >&2; fail "CMD never started"; }
    for (( i = 0; i < 100; i++ )); do grep -q '^500$' "$TMP/out" && break; sleep 0.05; done
    session_listed "$out" || fail "no session writing to $out while recording"
    sleep 0.3
    t0=$SECONDS
    kill -"$sig" "$rec"
    st=0; wait "$rec" || st=$?
    want=$(( 128 + $(kill -l "$sig") ))
    [[ $st -eq $want ]] || { cat "$TMP/err" >&2; fail "SIG$sig: recorder exited $st, expected $want"; }
    (( SECONDS - t0 < 30 )) || fail "SIG$sig: recorder took $(( SECONDS - t0 )) s to finish"
    pgrep -f "^$sleeper" >/dev/null && fail "SIG$sig: CMD still running"
    session_listed "$out" && fail "SIG$sig: session still listed by lttng list"
    err_has "events: 500$"
    n=$(bt_count "$out")
    [[ $n == 500 ]] || fail "SIG$sig: babeltrace2 reads $n events, expected 500"
    babeltrace2 "$out" >/dev/null 2>"$TMP/bterr" || { cat "$TMP/bterr" >&2; fail "trace not readable"; }
    pass "SIG$sig during CMD -> $want, session destroyed, trace readable"
done

# SIGINT reaching the recorder's whole process group (as Ctrl-C does)
out=$TMP/trace-pgrp
( trap - INT; exec setsid "$REC" -o "$out" --cmd-only -- "$EMIT" 300 0 "$SLEEP" ) \
    >"$TMP/out" 2>"$TMP/err" </dev/null &
rec=$!
for (( i = 0; i < 200; i++ )); do
    grep -q '^300$' "$TMP/out" && break
    sleep 0.05
done
sleep 0.2
kill -INT -- -"$rec"
st=0; wait "$rec" || st=$?
[[ $st -eq 130 ]] || { cat "$TMP/err" >&2; fail "Ctrl-C to the group: exited $st, expected 130"; }
pgrep -f "^$sleeper" >/dev/null && fail "Ctrl-C: CMD still running"
session_listed "$out" && fail "Ctrl-C: session still listed"
[[ $(bt_count "$out") == 300 ]] || fail "Ctrl-C: trace does not hold the 300 events"
pass "SIGINT to the process group -> 130, trace complete"

if (( ! daemon_before )) && lttng --no-sessiond list >/dev/null 2>&1; then
    lttng --no-sessiond list | grep -q ') ' || fail "the daemon it started is still running"
fi
