# shellcheck shell=bash
# Shared by the benchmark scripts that record (tracing.sh, offcpu.sh) and
# print the machine's load (all.sh): the lttng-sessiond they use, a session
# per recorded run that tracks only the benchmark process, clean-up, and
# small helpers. Source it; the caller sets $tmp (a scratch folder) before
# calling bench_record, and calls bench_cleanup from its EXIT trap.

session=        # the recording session under way ('' when none)
started_daemon= # the pid of the lttng-sessiond we started, if any

# load_avg: "load average: a, b, c" now.
load_avg() { uptime | sed 's/.*load average/load average/'; }

daemon_reachable() { lttng --no-sessiond list >/dev/null 2>&1; }

# ensure_daemon: a reachable lttng-sessiond, started (and remembered as
# ours) when there is none.
ensure_daemon() {
    daemon_reachable && return 0
    lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 </dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do
        if daemon_reachable; then
            # Ours only if the pid file names a live lttng-sessiond we just started.
            local pf=/var/run/lttng/lttng-sessiond.pid
            [[ $(id -u) -ne 0 ]] && pf=${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid
            if [[ -z $started_daemon && -r $pf ]]; then
                local pid
                pid=$(<"$pf")
                [[ $(cat /proc/"$pid"/comm 2>/dev/null) == lttng-sessiond* ]] && started_daemon=$pid
            fi
            return 0
        fi
        sleep 0.1
    done
    echo "$0: no lttng-sessiond reachable and none could be started" >&2
    exit 3
}

# bench_cleanup: destroys the session under way, stops the daemon if we
# started it and nobody else has a session on it, removes $tmp.
bench_cleanup() {
    set +e
    if [[ -n $session ]]; then
        lttng --no-sessiond stop "$session" >/dev/null 2>&1
        lttng --no-sessiond destroy "$session" >/dev/null 2>&1
    fi
    if [[ -n $started_daemon ]] &&
        ! lttng --no-sessiond list 2>/dev/null | grep -q '^ *[0-9][0-9]*) '; then
        kill -TERM "$started_daemon" 2>/dev/null
    fi
    [[ -n ${tmp:-} ]] && rm -rf "$tmp"
}

lq() { # lttng, quiet unless it fails
    local out
    out=$(lttng --no-sessiond "$@" 2>&1) || { echo "$0: lttng $*: $out" >&2; exit 3; }
}

field() { # field FILE KEY: value of KEY= in FILE
    tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -n 1
}

# Every fjtrace event but fjtrace:offcpu*, as enable-event patterns (by
# initial letter): an --exclude makes lttng-sessiond 2.13.9 die on anyone's
# 'lttng list SESSION' (scripts/fjtrace-record does the same).
NO_OFFCPU_EVENTS=$(printf 'fjtrace:%s*,' {a..n} {p..z})
NO_OFFCPU_EVENTS=${NO_OFFCPU_EVENTS%,}

# bench_record DIR EVENTS CONTEXTS OUT CMD...: runs CMD (stdout to OUT)
# under a fresh session $session writing to DIR, channel ch (4 MiB x 8 per
# CPU), events EVENTS, the contexts CONTEXTS ('' or "--type=vtid ...")
# added, tracking only CMD's process; stopped when CMD ends. The caller
# reads what it wants of the session, then calls bench_record_end.
bench_record() {
    local dir=$1 events=$2 contexts=$3 out=$4
    shift 4
    ensure_daemon
    session=fjbench-$$-$RANDOM-$SECONDS
    lq create "$session" --output="$dir"
    lq enable-channel --userspace --session="$session" --subbuf-size=4M --num-subbuf=8 ch
    lq enable-event --userspace --session="$session" --channel=ch "$events"
    # shellcheck disable=SC2086 # the contexts are several words on purpose
    [[ -z $contexts ]] || lq add-context --userspace --session="$session" --channel=ch $contexts
    # Hold CMD at a gate (before exec) so that its pid is known and tracked
    # before it registers with the session daemon: only its events count,
    # whatever else runs on the machine.
    local gate=$tmp/gate
    rm -f "$gate"
    mkfifo "$gate"
    (read -r _ <"$gate" && exec "$@") >"$out" &
    local child=$!
    lq untrack --userspace --session="$session" --vpid --all
    lq track --userspace --session="$session" --vpid="$child"
    lq start "$session"
    # A blocking open: it waits for the child to open its end, so the line
    # cannot be lost (an O_RDWR open would not wait, and what it wrote would
    # vanish if the child had not opened the fifo yet). The timeout only
    # guards against a child that died at the gate.
    # shellcheck disable=SC2016 # $1 is expanded by the inner sh
    timeout 30 sh -c 'echo go >"$1"' sh "$gate" ||
        { echo "$0: the benchmark process did not reach its start gate" >&2; exit 3; }
    wait "$child" || { echo "$0: $* failed (recorded)" >&2; exit 1; }
    lq stop "$session"
}

# bench_record_end: destroys the session bench_record left.
bench_record_end() {
    lq destroy "$session"
    session=
}
