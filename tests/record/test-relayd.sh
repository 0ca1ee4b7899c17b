#!/usr/bin/env bash
# fjtrace-record --relayd through a real lttng-relayd on 127.0.0.1 (free
# ports): the trace lands in the relay's folder, where the recorder says,
# and analyses exactly (naive fib(n) forks F(n+1)-1 tasks); a relay that is
# down or refuses the session: exit 124, one error line, CMD never started.
#   bash test-relayd.sh FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE
source "$(dirname "$0")/relay-lib.sh"
FIB=${2:?usage}
ANALYZE=${3:?usage}
need lttng lttng-relayd babeltrace2 python3 timeout

# --- usage errors: exit 2 before anything
st=0; "$REC" --relayd tcp://x -- true 2>"$TMP/err" || st=$?
[[ $st -eq 2 ]] && grep -q "bad --relayd URL" "$TMP/err"
check $? "a URL that is not net://HOST[:CTRL:DATA][/PATH] is a usage error (exit 2)" "$TMP/err"
st=0; "$REC" --relayd net://127.0.0.1:5342 -- true 2>"$TMP/err" || st=$?
[[ $st -eq 2 ]]
check $? "a control port without a data port is a usage error" "$TMP/err"
st=0; "$REC" --relayd net://127.0.0.1/a/../b -- true 2>"$TMP/err" || st=$?
[[ $st -eq 2 ]]
check $? "a relay PATH with '..' is a usage error" "$TMP/err"
st=0; "$REC" --relayd net://127.0.0.1 -o "$TMP/x" -- true 2>"$TMP/err" || st=$?
[[ $st -eq 2 ]] && grep -q "with --relayd" "$TMP/err"
check $? "-o together with --relayd is a usage error" "$TMP/err"
st=0; "$REC" --live -- true 2>"$TMP/err" || st=$?
[[ $st -eq 2 ]]
check $? "--live without --relayd is a usage error" "$TMP/err"

# --- a relay that is down: nothing listens on two ports free a moment ago
read -r C D < <(free_ports 2)
st=0; "$REC" --relayd "net://127.0.0.1:$C:$D" -- touch "$TMP/ran" 2>"$TMP/err" || st=$?
[[ $st -eq 124 ]]
check $? "relay down: exit 124 (got $st)" "$TMP/err"
[[ $(wc -l <"$TMP/err") -eq 1 ]] && grep -q "cannot connect to the relay daemon at 127.0.0.1:$C" "$TMP/err"
check $? "relay down: one line naming the address" "$TMP/err"
[[ ! -e $TMP/ran ]]
check $? "relay down: CMD was not started"
lttng --no-sessiond list 2>/dev/null | grep -q "127.0.0.1:$C" && check 1 "relay down: no session left behind"

# --- a peer that accepts and hangs up at once is not a relay
python3 -c '
import socket, sys, time
ls = [socket.socket() for _ in range(2)]
for s in ls: s.bind(("127.0.0.1", 0)); s.listen(8)
print(ls[0].getsockname()[1], ls[1].getsockname()[1], flush=True)
ls[0].settimeout(0.2)
end = time.time() + 60
while time.time() < end:
    try: c, _ = ls[0].accept(); c.close()
    except socket.timeout: pass' >"$TMP/fake.ports" &
CLEANUP_PIDS+=($!)
for (( i = 0; i < 50; i++ )); do [[ -s $TMP/fake.ports ]] && break; sleep 0.1; done
read -r C D <"$TMP/fake.ports"
st=0; "$REC" --relayd "net://127.0.0.1:$C:$D" -- touch "$TMP/ran" 2>"$TMP/err" || st=$?
[[ $st -eq 124 ]] && grep -q "does not accept the session" "$TMP/err"
check $? "a peer that is no relay: exit 124, 'does not accept the session' (got $st)" "$TMP/err"
[[ ! -e $TMP/ran ]]
check $? "refused: CMD was not started"
lttng --no-sessiond list 2>/dev/null | grep -q "127.0.0.1:$C" && check 1 "refused: no session left behind"

# --- a real relay: the trace is where the recorder says, and exact
start_relayd "$TMP/relay"
N=18
st=0
"$REC" --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" --cmd-only --blocking -- \
    "$FIB" "$N" -p 2 >"$TMP/out" 2>"$TMP/err" </dev/null || st=$?
check $st "fib $N recorded through the relay (exit 0)" "$TMP/err"
host=$(uname -n)
trace=$(sed -n 's/^fjtrace-record: trace: //p' "$TMP/err")
[[ -n $trace && $trace == "$TMP/relay/$host/"fjtrace-* && -d $trace ]]
check $? "the recorder names the relay's folder $TMP/relay/$host/SESSION" "$TMP/err"
grep -q "^fjtrace-record: relay trace: $trace (relay daemon on this machine)" "$TMP/err"
check $? "it says the relay daemon runs on this machine" "$TMP/err"
"$ANALYZE" --json --no-progress "$trace" >"$TMP/r.json" 2>"$TMP/aerr"
check $? "fjtrace-analyze reads the relay's folder" "$TMP/aerr"
want=$(( $(fib $(( N + 1 ))) - 1 ))
got=$(json_get "$TMP/r.json" 'r["pools"][0]["totals"]["forks"]')
[[ $got == "$want" ]]
check $? "forks = F(n+1)-1 = $want (got $got)"
[[ $(json_get "$TMP/r.json" 'r["trace"]["complete"] and r["pools"][0]["trees"][0]["complete"]') == True ]]
check $? "the trace and its tree are complete"

# --- an explicit PATH on the relay, and a live session
st=0
"$REC" --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D/runs/one" --live=200000 --cmd-only \
    --session-name "fjtrace-test-$$" -- "$FIB" 12 -p 1 >"$TMP/out" 2>"$TMP/err" </dev/null || st=$?
check $st "a live session through the relay (exit 0)" "$TMP/err"
grep -q "^fjtrace-record: trace: $TMP/relay/$host/runs/one$" "$TMP/err"
check $? "PATH of the URL: the trace is in HOSTNAME/runs/one" "$TMP/err"
grep -q "session fjtrace-test-$$ " "$TMP/err"
check $? "--session-name names the session" "$TMP/err"
"$ANALYZE" --json --no-progress "$TMP/relay/$host/runs/one" >"$TMP/r2.json" 2>"$TMP/aerr"
check $? "the live session's trace analyses" "$TMP/aerr"
got=$(json_get "$TMP/r2.json" 'r["pools"][0]["totals"]["forks"]')
[[ $got == $(( $(fib 13) - 1 )) ]]
check $? "live session: forks = F(13)-1 (got $got)"

# --- CMD's descendants through the relay (the default scope), with a given
# token: both fj-fib children recorded, their pool_begin carries the token,
# and fjtrace-analyze --recording TOKEN keeps both
st=0
"$REC" --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D/runs/kids" --recording 4242 -- \
    bash -c "'$FIB' 12 -p 1 && '$FIB' 13 -p 1" >"$TMP/out" 2>"$TMP/err" </dev/null || st=$?
check $st "a wrapper's children recorded through the relay (exit 0)" "$TMP/err"
kids=$TMP/relay/$host/runs/kids
[[ $(babeltrace2 "$kids" 2>/dev/null | grep -c 'fjtrace:pool_begin: .*recording = 4242,') -eq 2 ]]
check $? "both children's pool_begin carry the given token 4242" "$TMP/err"
"$ANALYZE" --json --no-progress --recording 4242 "$kids" >"$TMP/r3.json" 2>"$TMP/aerr"
check $? "fjtrace-analyze --recording 4242 reads them (exit 0)" "$TMP/aerr"
got=$(json_get "$TMP/r3.json" 'sorted(p["totals"]["forks"] for p in r["pools"])')
[[ $got == "[$(( $(fib 13) - 1 )), $(( $(fib 14) - 1 ))]" ]]
check $? "two pools: F(13)-1 and F(14)-1 forks (got $got)"

# --- the relay stops: the next recording is refused again
stop_relayd
st=0; "$REC" --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" -- touch "$TMP/ran" 2>"$TMP/err" || st=$?
[[ $st -eq 124 && ! -e $TMP/ran ]]
check $? "after the relay stopped: exit 124, CMD not started" "$TMP/err"
done_testing
