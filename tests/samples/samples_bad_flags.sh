#!/bin/bash
# Bad flags: a usage message on stderr and exit code 2.
. "$(dirname "$0")/../tap.sh"
set -u
fib=$1 qs=$2 uts=$3 cont=$4 be=$5 burn=$6
expect2() {
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc = 2 ] && grep -qi usage <<<"$err"
  ok $? "$(basename "$1") ${*:2}: exit 2 with a usage message" || diag "exit $rc: $err"
}
expect2 "$fib"
expect2 "$fib" 10 --variant bogus
expect2 "$fib" abc
expect2 "$fib" 10 -p 0
expect2 "$fib" 10 --nope
expect2 "$qs" -n -5
expect2 "$qs" --variant cutoff
expect2 "$qs" extra
expect2 "$uts" --q 0.5
expect2 "$uts" --variant nope
expect2 "$cont" -n 0
expect2 "$be" --cell-seconds 0
expect2 "$be" -c x
expect2 "$burn" --depth 21
expect2 "$burn" --leaf-us -1
expect2 "$burn" extra
done_testing
