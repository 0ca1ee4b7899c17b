# Shared by the tracing tests: TAP, and record CMD into a fresh temp dir.
# shellcheck shell=bash
. "$(dirname "$0")/../tap.sh"
set -u
RECORD=$1
shift
tmp=$(mktemp -d /tmp/fjtrace-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# record NAME CMD...: the trace lands in $tmp/NAME, whole (--blocking: LTTng
# loses nothing, so an analysis must exit 0), not counted (--no-count: the
# checks read the trace themselves); one check.
record() {
    local name=$1 st=0
    shift
    "$RECORD" --cmd-only --blocking --no-count --context vtid -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || st=$?
    ok "$st" "fjtrace-record records $(basename "$1") ${*:2}" || cat "$tmp/$name.err"
}
