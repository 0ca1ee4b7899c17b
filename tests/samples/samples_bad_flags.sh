#!/bin/bash
# Bad flags: a usage message on stderr and exit code 2.
set -u
fib=$1 qs=$2 uts=$3 cont=$4 be=$5 burn=$6 fail=0
expect2() {
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ $rc != 2 ] || ! grep -qi usage <<<"$err"; then echo "FAIL ($rc): $*: $err"; fail=1; fi
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
[ $fail = 0 ] && echo "bad flags: all rejected with exit 2"
exit $fail
