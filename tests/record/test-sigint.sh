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
    ( trap - INT; exec "$REC" --count -o "$out" --cmd-only -- "$EMIT" 500 0 "$SLEEP" ) \
        >"$TMP/out" 2>"$TMP/err" </dev/null &
    rec=$!
    # wait until CMD is running and its events are in
    for (( i = 0; i < 200; i++ )); do
        pgrep -f "^$sleeper" >/dev/null && break
        sleep 0.05
    done
    pgrep -f "^$sleeper" >/dev/null || { diag "$(cat "$TMP/err")"; fail "CMD never started"; }
    for (( i = 0; i < 100; i++ )); do grep -q '^500$' "$TMP/out" && break; sleep 0.05; done
    session_listed "$out"
    check $? "SIG$sig: a session writes to the trace folder while recording"
    sleep 0.3
    t0=$SECONDS
    kill -"$sig" "$rec"
    st=0; wait "$rec" || st=$?
    want=$(( 128 + $(kill -l "$sig") ))
    is "$st" "$want" "SIG$sig to the recorder: it exits $want" || diag "$(cat "$TMP/err")"
    (( SECONDS - t0 < 30 ))
    check $? "SIG$sig: the recorder finishes within 30 s"
    ! pgrep -f "^$sleeper" >/dev/null
    check $? "SIG$sig: CMD is stopped"
    ! session_listed "$out"
    check $? "SIG$sig: the session is destroyed"
    err_has "events: 500$"
    is "$(bt_count "$out")" 500 "SIG$sig: babeltrace2 reads the 500 events"
    babeltrace2 "$out" >/dev/null 2>"$TMP/bterr"
    check $? "SIG$sig: the trace is readable" "$TMP/bterr"
done

# SIGINT reaching the recorder's whole process group (as Ctrl-C does)
out=$TMP/trace-pgrp
( trap - INT; exec setsid "$REC" --count -o "$out" --cmd-only -- "$EMIT" 300 0 "$SLEEP" ) \
    >"$TMP/out" 2>"$TMP/err" </dev/null &
rec=$!
for (( i = 0; i < 200; i++ )); do
    grep -q '^300$' "$TMP/out" && break
    sleep 0.05
done
sleep 0.2
kill -INT -- -"$rec"
st=0; wait "$rec" || st=$?
is "$st" 130 "Ctrl-C to the recorder's process group: it exits 130" || diag "$(cat "$TMP/err")"
! pgrep -f "^$sleeper" >/dev/null
check $? "Ctrl-C: CMD is stopped"
! session_listed "$out"
check $? "Ctrl-C: the session is destroyed"
is "$(bt_count "$out")" 300 "Ctrl-C: the trace holds the 300 events"

if (( ! daemon_before )) && lttng --no-sessiond list >/dev/null 2>&1; then
    lttng --no-sessiond list | grep -q ') '
    check $? "the daemon it started is stopped, or serves someone else's session"
fi
done_testing
