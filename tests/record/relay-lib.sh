#!/usr/bin/env bash
# Shared by the relay, live and snapshot tests (sourced): TAP output, a
# scratch folder, and a private lttng-relayd on 127.0.0.1 with free ports.
#   bash test-X.sh FJTRACE_RECORD [PROGRAMS...]
set -uo pipefail  # no -e: each check reports its own failure (TAP)
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

REC=${1:?usage: $0 FJTRACE_RECORD ...}
REC=$(cd "$(dirname "$REC")" && pwd -P)/$(basename "$REC")
TMP=$(mktemp -d /tmp/fjtrace-relay-test.XXXXXX)
RELAY_PID=
declare -a CLEANUP_PIDS=()

on_exit() {
    local p
    for p in "${CLEANUP_PIDS[@]}" $RELAY_PID; do
        kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$TMP"
    return 0
}
trap on_exit EXIT

# keep_tmp_here: what a tool keeps in TMPDIR for its user (fjtrace-top's
# relay folder, CMD's output) goes with the scratch folder. Not for every
# test: some run the recorder as another user (nobody), which cannot
# write there.
keep_tmp_here() { export TMPDIR=$TMP; }

# check STATUS WHAT [FILE]: ok when STATUS is 0; else FILE (e.g. the
# stderr of the command checked) as diagnostics.
check() {
    ok "$1" "$2" && return 0
    [[ -n ${3:-} && -r ${3:-} ]] && diag "$(cat "$3")"
    return 1
}
skip_all() { plan_skip_all "$@"; }

need() {
    local t
    for t in "$@"; do command -v "$t" >/dev/null || skip_all "needs $t"; done
}

# free_ports N: N TCP ports of 127.0.0.1 free a moment ago.
free_ports() {
    python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }

# start_relayd DIR [CMD...]: a relay daemon writing to DIR (run through
# CMD, e.g. setpriv as another user), listening on 127.0.0.1
# only; sets RELAY_PID, RELAY_C (control), RELAY_D (data), RELAY_L (live).
# A port taken between free_ports and the bind: another try, new ports.
start_relayd() {
    local dir=$1 try i
    shift
    mkdir -p "$dir"
    for (( try = 0; try < 3; try++ )); do
        read -r RELAY_C RELAY_D RELAY_L < <(free_ports 3)
        "$@" lttng-relayd -o "$dir" -C "tcp://127.0.0.1:$RELAY_C" -D "tcp://127.0.0.1:$RELAY_D" \
            -L "tcp://127.0.0.1:$RELAY_L" >"$dir.log" 2>&1 </dev/null &
        RELAY_PID=$!
        for (( i = 0; i < 100; i++ )); do
            kill -0 "$RELAY_PID" 2>/dev/null || break
            if port_open "$RELAY_L" && port_open "$RELAY_C" && port_open "$RELAY_D"; then
                return 0
            fi
            sleep 0.1
        done
        kill -TERM "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
        RELAY_PID=
    done
    bail_out "lttng-relayd did not start (log: $(tr '\n' ' ' <"$dir.log"))"
}

stop_relayd() {
    [[ -n $RELAY_PID ]] || return 0
    kill -TERM "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    RELAY_PID=
    return 0
}

fib() { local a=0 b=1 i t; for (( i = 0; i < $1; i++ )); do t=$(( a + b )); a=$b; b=$t; done; echo "$a"; }

# json_get FILE PY_EXPR: evaluates PY_EXPR on the JSON report r in FILE.
json_get() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# top_burn_start TOP BURN: fjtrace-top (TOP, under timeout) records BURN
# -p 2 --depth 10 --leaf-us 5000 (about 5 s of CMD) through the relay
# daemon of start_relayd, in batch frames every 0.5 s; its frames go to
# $TMP/out, its messages to $TMP/err, CMD's output to $TMP/cmd.log. Sets
# TOP_PID.
top_burn_start() {
    timeout 300 "$1" --batch --interval 0.5 --relayd "net://127.0.0.1:$RELAY_C:$RELAY_D" \
        --live-port "$RELAY_L" --cmd-output "$TMP/cmd.log" -- \
        "$2" -p 2 --depth 10 --leaf-us 5000 >"$TMP/out" 2>"$TMP/err" &
    # shellcheck disable=SC2034 # read by the sourcing test
    TOP_PID=$!
}

# out_wait REGEX: waits up to 30 s for a line of $TMP/out matching the
# extended REGEX (fjtrace-top's frames).
out_wait() {
    local i
    for (( i = 0; i < 600; i++ )); do
        grep -Eq "$1" "$TMP/out" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
