#!/usr/bin/env bash
# private-sessiond.sh CMD [ARGS...]: runs CMD (a test that records) with an
# LTTng session daemon of its own, started here and stopped when CMD ends,
# so that recording tests run side by side and beside anybody else's
# recordings on the machine: each test's sessions, consumers, channels and
# applications are its own, and a daemon going away (or being killed by a
# test) takes no other test's recording with it.
#
# How a recorded program finds this daemon: lttng-ust registers with the
# "global" daemon through /var/run/lttng/lttng-ust-sock-N and with the
# per-user one through $LTTNG_HOME/.lttng/lttng-ust-sock-N; the lttng CLI
# of root talks to /var/run/lttng only. So for root, whose daemon always
# uses /var/run/lttng, CMD runs in a mount namespace of its own with empty
# tmpfs over /var/run/lttng and /dev/shm (the shared memory lttng-ust's
# programs wait on for a daemon), where the machine's daemon is out of
# sight; for any other user a private LTTNG_HOME is enough. Either way
# LTTNG_HOME is a scratch folder (the lttng CLI keeps its current session
# in $LTTNG_HOME/.lttngrc).
#
# CMD's exit status is this script's. A daemon that cannot be started is a
# TAP "Bail out!" (exit 1), never a test run against another daemon.
set -uo pipefail

sessiond_pid=

bail() {
    printf 'Bail out! private-sessiond.sh: %s\n' "$*"
    exit 1
}

# stop: the daemon main started (its pid from its own pid file, in this
# test's run folder) gets SIGTERM, and SIGKILL if it still runs 10 s later;
# it stops its consumer daemons itself. Its teardown takes ~1.9 s of
# waiting (lttng 2.13.9, even with no session ever made): a watcher in the
# background waits for it, so the test ends (and meson starts the next)
# without that wait. The watcher holds none of the test's output pipes.
stop() {
    if [[ $sessiond_pid =~ ^[0-9]+$ ]] && kill -TERM "$sessiond_pid" 2>/dev/null; then
        (
            for (( i = 0; i < 200; i++ )); do
                kill -0 "$sessiond_pid" 2>/dev/null || exit 0
                sleep 0.05
            done
            [[ $(cat "/proc/$sessiond_pid/comm" 2>/dev/null) == lttng-sessiond ]] &&
                kill -KILL "$sessiond_pid" 2>/dev/null
        ) </dev/null >/dev/null 2>&1 &
    fi
    rm -rf -- "${LTTNG_HOME:?}"
}

# The steps are one function, read in full before it runs: bash reads a
# script as it goes, and this one waits for CMD (minutes) before its EXIT
# trap runs; an edit of the file meanwhile must not change what is left.
main() {
    local pidfile out
    (( $# )) || bail "usage: private-sessiond.sh CMD [ARGS...]"
    # Who started the test (meson test): tests/viz/shared.sh stamps the
    # suite's shared recording with it, which CMD's parent (this script)
    # is not.
    export FJTRACE_TEST_PPID=${FJTRACE_TEST_PPID:-$PPID}
    command -v lttng-sessiond >/dev/null || bail "lttng-sessiond is not on PATH"

    if (( EUID == 0 )) && [[ ${FJTRACE_PRIVATE_NS:-} != "$$" ]]; then
        # unshare(1) execs this script again in the new namespace (same
        # pid: no fork), which the variable tells it.
        unshare --mount --propagation private true ||
            bail "unshare --mount failed: cannot hide the machine's session daemon"
        FJTRACE_PRIVATE_NS=$$ exec unshare --mount --propagation private -- \
            "$BASH" "$0" "$@"
    fi
    unset FJTRACE_PRIVATE_NS
    if (( EUID == 0 )); then
        mkdir -p /var/run/lttng
        mount -t tmpfs -o mode=0755 fjtrace-test /var/run/lttng ||
            bail "cannot mount a tmpfs over /var/run/lttng"
        mount -t tmpfs fjtrace-test /dev/shm || bail "cannot mount a tmpfs over /dev/shm"
    fi

    LTTNG_HOME=$(mktemp -d "${TMPDIR:-/tmp}/fjtrace-sessiond.XXXXXX") || bail "mktemp failed"
    export LTTNG_HOME
    pidfile=/var/run/lttng/lttng-sessiond.pid
    (( EUID == 0 )) || pidfile=$LTTNG_HOME/.lttng/lttng-sessiond.pid
    trap stop EXIT
    # meson's timeout sends SIGTERM: the EXIT trap still stops the daemon.
    trap 'exit 143' TERM
    trap 'exit 130' INT

    # --daemonize returns once the daemon is ready (its sockets listen).
    out=$(lttng-sessiond --daemonize --no-kernel 2>&1 </dev/null) ||
        bail "lttng-sessiond --daemonize --no-kernel failed: $(tr '\n' ' ' <<<"$out")"
    sessiond_pid=$(cat "$pidfile" 2>/dev/null)
    [[ $sessiond_pid =~ ^[0-9]+$ ]] || bail "no pid in $pidfile after starting lttng-sessiond"

    "$@"
}

main "$@"
