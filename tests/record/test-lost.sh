#!/usr/bin/env bash
# The daemons a recording needs, killed while CMD runs (issue 24, item 9):
# the relay daemon (--relayd), then the session daemon. The recorder must
# say which went away, count what was written or name it as lost, and exit
# 115 (CMD exited 0), not 0 with "events: 0". The shared session daemon
# other tests use is never involved: everything runs on a private session
# daemon (its own LTTNG_HOME; as root that needs another user, nobody,
# since root's daemon has a fixed run directory) and private lttng-relayd
# daemons on 127.0.0.1, free ports.
#   bash test-lost.sh FJTRACE_RECORD FJTRACE_EMIT
source "$(dirname "$0")/relay-lib.sh"
EMIT=${2:?usage: $0 FJTRACE_RECORD FJTRACE_EMIT}
need lttng lttng-relayd lttng-sessiond babeltrace2 python3 timeout

# wait_recording ERR: until the recorder says it records (at most 60 s).
wait_recording() {
    local i
    for (( i = 0; i < 1200; i++ )); do grep -q 'recording to' "$1" && return 0; sleep 0.05; done
    return 1
}

# honest_count DIR ERR WHAT: the recorder's "events: N" is what babeltrace2
# reads in DIR, or, when babeltrace2 cannot read DIR, the recorder says the
# recording is lost and claims no count.
honest_count() {
    local dir=$1 err=$2 what=$3 n
    if n=$(babeltrace2 "$dir" 2>/dev/null | grep -c ' fjtrace:'); then
        grep -q "^fjtrace-record: events: $n (what was written before the recording was lost" "$err"
        check $? "$what: 'events: $n' as babeltrace2 reads, said to be cut short" "$err"
    else
        grep -q "ERROR: the recording is lost: babeltrace2 cannot read .*events: not known" "$err" &&
            ! grep -q "^fjtrace-record: events: [0-9]" "$err"
        check $? "$what: the trace cannot be read, and the recorder says it is lost with no count" "$err"
    fi
}

# --- a private session daemon, and relays, of a user of their own
H=$TMP/home
mkdir -p "$H"
as_user=(env)
if [[ $(id -u) -eq 0 ]]; then
    if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
        skip_all "as root, needs setpriv and the user nobody for a private session daemon"
    fi
    chmod 755 "$TMP"
    chown nobody "$H"
    as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env)
fi
as_user+=(HOME="$H" LTTNG_HOME="$H")
"${as_user[@]}" lttng-sessiond --daemonize --no-kernel </dev/null >"$TMP/sessiond.log" 2>&1 ||
    bail_out "cannot start a private lttng-sessiond: $(cat "$TMP/sessiond.log")"
sd=$(cat "$H/.lttng/lttng-sessiond.pid")
[[ $sd =~ ^[0-9]+$ && $sd != "$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)" ]] ||
    bail_out "no private lttng-sessiond pid ($sd)"
CLEANUP_PIDS+=("$sd")
shared_before=$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)

# private_relayd DIR: start_relayd's relay daemon, run as that user.
private_relayd() {
    mkdir -p "$1"
    [[ $(id -u) -ne 0 ]] || chown nobody "$1"
    start_relayd "$1" "${as_user[@]}"
}

# relay_killed NAME EXIT [OPTION]: records fjtrace-emit 5000 EXIT 4 to a
# private relay, killed (SIGKILL) 1.5 s into CMD's run; the recorder's
# status in st.
relay_killed() {
    local name=$1 code=$2 rec
    private_relayd "$TMP/$name"
    st=0
    "${as_user[@]}" "$REC" --count ${3:+"$3"} --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D/$name" -- "$EMIT" 5000 "$code" 4 \
        >/dev/null 2>"$TMP/$name.err" </dev/null &
    rec=$!
    CLEANUP_PIDS+=("$rec")
    wait_recording "$TMP/$name.err" || bail_out "the recorder never started: $(cat "$TMP/$name.err")"
    sleep 1.5
    kill -KILL "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null; RELAY_PID=
    wait "$rec" || st=$?
}

# --- the relay daemon killed mid-run
relay_killed relay 0
[[ $st -eq 115 ]]
check $? "relay killed: the recorder exits 115 (got $st)" "$TMP/relay.err"
grep -q "ERROR: the relay daemon at 127.0.0.1 (ports $RELAY_C, $RELAY_D) went away while CMD ran" "$TMP/relay.err"
check $? "relay killed: it says the relay daemon went away" "$TMP/relay.err"
grep -Eq "ERROR: the relay daemon at 127.0.0.1 went away at [0-9:]{8}, while CMD runs" "$TMP/relay.err"
check $? "relay killed: it says so while CMD still runs (CMD ran 2.5 s more)" "$TMP/relay.err"
dir=$(find "$TMP/relay" -mindepth 2 -maxdepth 2 -type d -name relay | head -n 1)
[[ -n $dir ]] && honest_count "$dir" "$TMP/relay.err" "relay killed"
! "${as_user[@]}" lttng --no-sessiond list 2>/dev/null | grep -q "$RELAY_C"
check $? "relay killed: no session left behind"

# CMD exits 3 and the relay goes: CMD's status stands, the loss is said.
relay_killed relay3 3
[[ $st -eq 3 ]] && grep -q "ERROR: the relay daemon .* went away" "$TMP/relay3.err" &&
    grep -q "CMD's status 3 stands" "$TMP/relay3.err"
check $? "relay killed, CMD exits 3: status 3 (got $st), the loss said all the same" "$TMP/relay3.err"

# Live (the relay gets the buffers every 0.1 s): what reached it before it
# went is readable, and counted as such.
relay_killed live 0 --live=100000
[[ $st -eq 115 ]] && grep -q "ERROR: the relay daemon .* went away" "$TMP/live.err"
check $? "live, relay killed: exit 115 (got $st), the loss said" "$TMP/live.err"
dir=$(find "$TMP/live" -mindepth 2 -maxdepth 2 -type d -name live | head -n 1)
[[ -n $dir ]] && honest_count "$dir" "$TMP/live.err" "live, relay killed"

# --- the session daemon killed mid-recording
st=0
"${as_user[@]}" "$REC" --count -o "$TMP/home/trace" -- "$EMIT" 5000 0 4 >/dev/null 2>"$TMP/sd.err" </dev/null &
rec=$!
CLEANUP_PIDS+=("$rec")
wait_recording "$TMP/sd.err" || bail_out "the recorder never started: $(cat "$TMP/sd.err")"
sleep 1.5
kill -KILL "$sd"
wait "$rec" || st=$?
[[ $st -eq 115 ]]
check $? "session daemon killed: the recorder exits 115 (got $st)" "$TMP/sd.err"
grep -q "ERROR: the session daemon (lttng-sessiond) went away while CMD ran" "$TMP/sd.err"
check $? "session daemon killed: it says the session daemon went away" "$TMP/sd.err"
grep -Eq "ERROR: the session daemon \(lttng-sessiond\) went away at [0-9:]{8}, while CMD runs" "$TMP/sd.err"
check $? "session daemon killed: it says so while CMD still runs (CMD ran 4 s more)" "$TMP/sd.err"
honest_count "$TMP/home/trace" "$TMP/sd.err" "session daemon killed"
[[ $(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null) == "$shared_before" ]]
check $? "the shared session daemon was not touched"
done_testing
