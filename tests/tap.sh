# TAP (Test Anything Protocol) for the shell tests; the same calls as
# tests/tap.h. Source it first thing:
#
#     . "$(dirname "$0")/../tap.sh"
#     [ "$(fib 10)" = 55 ]; ok $? "fib(10) is 55"
#     is "$(wc -l <out)" 3 "the report has 3 lines"
#     done_testing
#
# The TAP stream is this shell's stdout, kept on fd 3; everything else the
# test and its commands print goes to stderr, so a chatty command cannot
# corrupt the stream. A test that exits without done_testing has no plan
# and meson reports it as failed.
# shellcheck shell=bash

exec 3>&1 1>&2
_tap_run=0
_tap_failed=0
_tap_planned=

# plan_tests N: N checks follow.
plan_tests() {
    _tap_planned=$1
    echo "1..$1" >&3
}

# plan_skip_all REASON: nothing can be checked here; exits 0 (a skip).
plan_skip_all() {
    echo "1..0 # SKIP $*" >&3
    exit 0
}

# diag MESSAGE...: a "#" line for the reader, not a check.
diag() {
    local line
    while IFS= read -r line; do
        echo "# $line" >&3
    done <<<"$*"
}

# The caller's file:line, the first frame outside this file.
_tap_where() {
    local i
    for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
        if [ "${BASH_SOURCE[i]}" != "${BASH_SOURCE[0]}" ]; then
            diag "  failed at ${BASH_SOURCE[i]##*/}:${BASH_LINENO[i - 1]}"
            return
        fi
    done
}

# ok STATUS DESCRIPTION: passes when STATUS is 0 (e.g. $? of a test just
# run). DESCRIPTION says what must hold. Returns STATUS.
ok() {
    local st=$1
    shift
    _tap_run=$((_tap_run + 1))
    if [ "$st" -eq 0 ]; then
        echo "ok $_tap_run - $*" >&3
    else
        _tap_failed=$((_tap_failed + 1))
        echo "not ok $_tap_run - $*" >&3
        _tap_where
    fi
    return "$st"
}

# is GOT EXPECTED DESCRIPTION: the two strings must be equal; both are
# printed on failure.
is() {
    local got=$1 expected=$2
    shift 2
    if [ "$got" = "$expected" ]; then
        ok 0 "$@"
    else
        ok 1 "$@"
        diag "       got: $got"
        diag "  expected: $expected"
        return 1
    fi
}

# ok_cmd DESCRIPTION CMD...: CMD must exit 0; its output goes to stderr.
ok_cmd() {
    local what=$1 st=0
    shift
    "$@" || st=$?
    ok "$st" "$what"
}

# skip N REASON: N checks that cannot run here, counted as skipped.
skip() {
    local i
    for ((i = 0; i < $1; i++)); do
        _tap_run=$((_tap_run + 1))
        echo "ok $_tap_run # SKIP $2" >&3
    done
}

# bail_out MESSAGE: stops the whole test (a setup step failed).
bail_out() {
    echo "Bail out! $*" >&3
    exit 1
}

# done_testing: prints the plan if none was given; exits 0 when every check
# passed and the plan was kept, else 1.
done_testing() {
    if [ -z "$_tap_planned" ]; then
        echo "1..$_tap_run" >&3
    elif [ "$_tap_planned" -ne "$_tap_run" ]; then
        diag "planned $_tap_planned checks but ran $_tap_run"
        exit 1
    fi
    [ "$_tap_failed" -eq 0 ] || diag "$_tap_failed of $_tap_run checks failed"
    [ "$_tap_failed" -eq 0 ]
    exit
}
