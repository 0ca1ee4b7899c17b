#!/bin/bash
# A recorded program killed (SIGKILL) or crashing (SIGSEGV) mid-run: the
# recorder exits 128+N in bounded time, the session is gone, and the trace
# holds the events up to the death (LTTng flushes the last, partly filled
# sub-buffers at 'lttng stop'; all but one a CPU it cannot close, when the
# program died inside an event write, which the recorder warns of) and
# analyses: exit 1, every unfinished task listed, at least one running
# (where the workers were).
#   bash test-killed.sh FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE
source "$(dirname "$0")/lib.sh"
FIB=${EMIT:?usage: $0 FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE}
ANALYZE=${3:?usage: $0 FJTRACE_RECORD FJ_FIB FJTRACE_ANALYZE}
for tool in python3 babeltrace2 pgrep; do
    command -v "$tool" >/dev/null || plan_skip_all "needs $tool"
done
[[ -n ${EPOCHREALTIME:-} ]] || plan_skip_all "needs bash >= 5 (EPOCHREALTIME)"

rec=
# A failed check must not leave the recorder (and its session) behind.
trap '[[ -n $rec ]] && kill -TERM "$rec" 2>/dev/null; rm -rf "$TMP"' EXIT

# workers_lag TRACE KILLED_AT: "wN: T ms" per worker, T from its last event to
# the kill, over the last 100 ms (babeltrace2 seeks there with the index).
workers_lag() {
    local from
    from=$(awk -v k="$2" 'BEGIN { printf "%.6f", k - 0.1 }')
    babeltrace2 --clock-seconds --begin="$from" "$1" 2>/dev/null | awk -v k="$2" '
        { i = index($0, "worker = ")
          if (i && substr($0, i + 9, 1) != "-") last[substr($0, i + 9) + 0] = substr($1, 2, 20) }
        END { for (w in last) printf "w%d: %.2f ms\n", w, (k - last[w]) * 1000 }' | sort -V
}

# killed_run SIG WORKLOAD_ARGS... : records fj-fib, kills it with SIG after
# ~0.5 s of running, checks what is left.
killed_run() {
    local sig=$1
    shift
    local out=$TMP/trace-$sig want=$(( 128 + $(kill -l "$sig") ))
    # ulimit -c 0: a SIGSEGV leaves no core file behind
    ( ulimit -c 0; exec "$REC" --count -o "$out" --cmd-only "$@" ) >"$TMP/out" 2>"$TMP/err" </dev/null &
    rec=$!
    # The recorder's script's child turns into fj-fib once the session records.
    local pid='' i
    for (( i = 0; i < 300; i++ )); do
        # the recorder (the front) runs the script, whose child is CMD
        pid=$(pgrep -P "$(pgrep -P "$rec" -d,)" -x fj-fib) && break
        sleep 0.02
    done
    [[ -n $pid ]] || { diag "$(cat "$TMP/err")"; fail "SIG$sig: fj-fib never started"; }
    sleep 0.5
    local killed_at=$EPOCHREALTIME # no fork between the time and the kill
    kill -"$sig" "$pid"
    # Bounded: a recorder waiting forever on LTTng is the bug this guards.
    for (( i = 0; i < 900; i++ )); do
        kill -0 "$rec" 2>/dev/null || break
        sleep 0.1
    done
    ! kill -0 "$rec" 2>/dev/null
    check $? "SIG$sig: the recorder ends within 90 s of the kill" "$TMP/err" || return
    local st=0
    wait "$rec" || st=$?
    rec=
    is "$st" "$want" "SIG$sig: the recorder exits $want" || diag "$(cat "$TMP/err")"
    ! kill -0 "$pid" 2>/dev/null
    check $? "SIG$sig: fj-fib is gone"
    err_has "CMD died of SIG$sig \(status $want\)"
    ! grep -q 'line [0-9]*:.*exec' "$TMP/err"
    check $? "SIG$sig: no bash job notice leaks into the recorder's output" "$TMP/err"
    local session
    session=$(sed -n 's/.*: session \([^ ]*\) recording to .*/\1/p' "$TMP/err")
    [[ -n $session ]]
    check $? "SIG$sig: the recorder names its session" "$TMP/err"
    ! lttng --no-sessiond list 2>/dev/null | grep -Fq -- "${session:-no session}"
    check $? "SIG$sig: session ${session:-?} is no longer listed"
    ! session_listed "$out"
    check $? "SIG$sig: no session writes to the trace folder any more"
    err_has "events: [1-9][0-9]*$"

    # The events reach the kill on every worker: the sub-buffers being
    # filled when the program died were flushed at 'lttng stop'. Unless it
    # died inside an event write: LTTng then never delivers that CPU's
    # sub-buffer ('lttng destroy', at times 'lttng stop', hangs on it),
    # which the recorder says; a worker's last events may be there.
    local lag hang=
    grep -Eq "'lttng (destroy' did not finish|stop' wrote nothing)" "$TMP/err" &&
        hang=", LTTng's hang on the buffer bounded"
    lag=$(workers_lag "$out" "$killed_at")
    if [[ -z $hang ]]; then
        [[ $(wc -l <<<"$lag") -eq 2 ]]
        check $? "SIG$sig: both workers have events in the last 100 ms before the kill" ||
            diag "${lag//$'\n'/, }"
    else
        err_has "LTTng (could not|cannot) close a buffer CMD was writing to when it died"
    fi

    local rc=0
    "$ANALYZE" --no-progress --json "$out" >"$TMP/r.json" 2>"$TMP/aerr" || rc=$?
    is "$rc" 1 "SIG$sig: fjtrace-analyze exits 1 (incomplete)" || diag "$(cat "$TMP/aerr")"
    local summary
    summary=$(python3 - "$TMP/r.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["trace"]["complete"], "trace marked complete"
assert len(r["pools"]) == 1, f"{len(r['pools'])} pools"
p = r["pools"][0]
u = p["unfinished_tasks"]
assert u, "no unfinished task"
assert len(u) == p["totals"]["unfinished_tasks"], "list and count differ"
run = [x for x in u if x["state"] == "running"]
assert run, "no running task: " + ", ".join(x["state"] for x in u)
assert len({x["worker"] for x in run}) == len(run) and all(x["worker"] >= 0 for x in run), run
assert all(x["since_ns"] is None or x["since_ns"] <= r["trace"]["duration_ns"] for x in u)
states = {}
for x in u:
    states[x["state"]] = states.get(x["state"], 0) + 1
print(len(u), run[0]["task"], run[0]["worker"],
      " ".join(f"{n}={c}" for n, c in states.items()))
EOF
)
    check $? "SIG$sig: the JSON report lists the unfinished tasks, one running per worker that ran" ||
        return
    local n id worker states
    read -r n id worker states <<<"$summary"
    rc=0
    "$ANALYZE" --no-progress "$out" >"$TMP/r.txt" 2>/dev/null || rc=$?
    is "$rc" 1 "SIG$sig: the text report also exits 1"
    grep -q "unfinished tasks: $n (" "$TMP/r.txt"
    check $? "SIG$sig: the text report counts the $n unfinished tasks"
    grep -Eq "^ +running +task $id on worker $worker," "$TMP/r.txt"
    check $? "SIG$sig: the text report names running task $id on worker $worker"
    diag "SIG$sig -> $want$hang, session gone; last events before the kill: ${lag//$'\n'/, }; $n unfinished ($states)"
}

# Naive fib: events at full rate; killed, it often dies inside an event, the
# case where 'lttng destroy' never returns. Small buffers: LTTng keeps such a
# buffer until its daemons restart.
killed_run KILL --subbuf-size 1M --num-subbuf 4 -- "$FIB" 42 -p 2
# Cut-off fib: few events; with the default buffers they all sit in each
# CPU's first sub-buffer, which only 'lttng stop' delivers.
killed_run SEGV -- "$FIB" 45 -p 2 --variant cutoff --cutoff 20
done_testing
