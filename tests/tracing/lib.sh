# Shared by the tracing tests: record CMD into a fresh temp dir.
set -u
RECORD=$1; shift
tmp=$(mktemp -d /tmp/fjtrace-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
record() { # record NAME CMD... ; trace lands in $tmp/NAME
  local name=$1; shift
  "$RECORD" --cmd-only -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
    echo "FAIL: recording $* exited $?"; cat "$tmp/$name.err"; fail=1; return 1; }
}
