# One recording per suite, shared by its tests: viz-record (the suite's
# first test, priority 10) records fj-fib 18 -p 2 into $VIZ_SHARED/fib18-p2
# and stamps it with the run of `meson test` that started it (the parent
# process: its pid and start time). A test of the same run reads that
# trace; a test run alone, or a stamp of another run, records its own.
# shellcheck shell=bash

# run_stamp: "PID START" of meson test: this process's parent, or the
# parent of tests/private-sessiond.sh when that runs the test (it says so).
run_stamp() {
    local stat ppid=${FJTRACE_TEST_PPID:-$PPID}
    stat=$(cat "/proc/$ppid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    # shellcheck disable=SC2086 # split into the fields after the name
    set -- $stat
    printf '%s %s\n' "$ppid" "${20}"
}

# shared_fib18 DEST RECORD FIB: makes DEST the suite's fj-fib 18 -p 2 trace
# (a symbolic link to it) when this run recorded one, else records it there
# (--blocking: whole). Fails when the recording fails.
shared_fib18() {
    local dest=$1 record=$2 fib=$3 shared=${VIZ_SHARED:-}/fib18-p2
    if [[ -n ${VIZ_SHARED:-} && -d $shared && "$(cat "$shared.run" 2>/dev/null)" == "$(run_stamp)" ]]; then
        ln -s "$shared" "$dest"
        return
    fi
    "$record" --cmd-only --blocking --no-count -o "$dest" -- "$fib" 18 -p 2 >/dev/null 2>"$dest.err"
}
