#!/bin/bash
# --snapshot and SIGUSR1 sent early (issue 24, item 11): at 0 to 400 ms
# after the start the recorder is still reading its options or setting up
# the session. It must survive (SIGUSR1's default action kills: status
# 138), keep the request until the session records, write no empty snapshot
# folder, and name each folder it kept once. Then a storm of SIGUSR1s while
# CMD runs, and one once CMD's events are in: that snapshot holds them all.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/snapshot-lib.sh"
[[ -n $EMIT ]] || fail "needs the emitter"

# A signal that comes before the recorder runs its own first instruction
# (while the shell forks it, or the dynamic loader starts it) meets the
# default action whatever the recorder does (test-snapshot-pending.sh sends
# one pending at the exec): the delays count from the moment SIGUSR1 is
# blocked (the front's first act) or caught (the script run alone), in
# /proc/PID/status.
# caught PID: waits (at most 10 s) until PID runs the recorder (exec done)
# and blocks or catches SIGUSR1 (signal 10, bit 9 of SigBlk or SigCgt);
# prints the ms it took. Not before the exec: the shell's child then has
# this shell's handlers, and bash catches SIGUSR1 once an EXIT trap is set
# (lib.sh's): a SIGUSR1 sent then killed the child at its exec (status
# 138, local CI 86 and 92).
caught() {
    local pid=$1 i m mask comm shell t0=$EPOCHREALTIME
    read -r shell <"/proc/$$/comm"
    for (( i = 0; i < 10000; i++ )); do
        # exec done: its name is the recorder's, no longer this shell's
        comm=
        read -r comm <"/proc/$pid/comm" 2>/dev/null
        if [[ -n $comm && $comm != "$shell" ]]; then
            mask=$(sed -n 's/^Sig\(Blk\|Cgt\):[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null | paste -sd' ')
            for m in $mask; do (( 16#$m & (1 << 9) )) && break 2; done
        fi
        sleep 0.001
    done
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f\n", (b - a) * 1000 }'
}

# early DELAY_S: one SIGUSR1 DELAY_S after the recorder starts.
early() {
    local delay=$1 rec st=0 out=$TMP/early-$1
    "$REC" --snapshot -o "$out" -- "$EMIT" 2000 0 1 >/dev/null 2>"$TMP/err" </dev/null &
    rec=$!
    startup+=("$(caught "$rec")")
    sleep "$delay"
    kill -USR1 "$rec"
    wait "$rec" || st=$?
    [[ $st -eq 0 ]]
    check $? "SIGUSR1 ${delay} s after the start: the recorder exits 0 like CMD (got $st)" "$TMP/err"
    check_folders "$out" "SIGUSR1 at ${delay} s"
}
startup=()
for delay in 0 0.01 0.03 0.06 0.1 0.2 0.3 0.4; do early "$delay"; done
diag "from the fork to SIGUSR1 caught: ${startup[*]} ms"

# A storm: 30 SIGUSR1s 20 ms apart from 10 ms on, CMD emitting meanwhile.
out=$TMP/storm
st=0
"$REC" --snapshot -o "$out" -- "$EMIT" 2000 0 1 >/dev/null 2>"$TMP/err" </dev/null &
rec=$!
caught "$rec" >/dev/null
sleep 0.01
for (( i = 0; i < 30; i++ )); do kill -USR1 "$rec" 2>/dev/null; sleep 0.02; done
wait "$rec" || st=$?
[[ $st -eq 0 ]]
check $? "30 SIGUSR1s from 10 ms on: the recorder exits 0 like CMD (got $st)" "$TMP/err"
check_folders "$out" "30 SIGUSR1s"

# Once CMD's 2000 events are in (it then sleeps 3 s): the snapshot holds them.
out=$TMP/late
st=0
"$REC" --snapshot --cmd-only -o "$out" -- "$EMIT" 2000 0 3 >/dev/null 2>"$TMP/err" </dev/null &
rec=$!
caught "$rec" >/dev/null
kill -USR1 "$rec"  # and one at once, kept until the session records
for (( i = 0; i < 600; i++ )); do grep -q 'recording to' "$TMP/err" && break; sleep 0.05; done
sleep 1.5
kill -USR1 "$rec"
wait "$rec" || st=$?
[[ $st -eq 0 ]]
check $? "SIGUSR1 at once and after CMD's events: exit 0 (got $st)" "$TMP/err"
check_folders "$out" "SIGUSR1 at once and later"
snap=$(sed -n 's/^fjtrace-record: snapshot (SIGUSR1): \(\/.*\)$/\1/p' "$TMP/err" | tail -n 1)
[[ -n $snap && $(bt_count "$snap") -eq 2000 ]]
check $? "the snapshot taken after CMD's events holds its 2000 events" "$TMP/err"
done_testing
