#!/bin/bash
# fjtrace-sweep on a tiny workload: one row per worker count, speedup 1.00x
# on the first row, and its error paths.
set -u
sweep=$1 fib=$2 fail=0
out=$("$sweep" -p 1,2,3 -r 2 -- "$fib" 18) || { echo "FAIL: sweep exited $?: $out"; fail=1; }
echo "$out"
[ "$(grep -cE '^ +[123] +[0-9.]+ +[0-9.]+x +[0-9]+%$' <<<"$out")" = 3 ] || { echo "FAIL: not 3 rows"; fail=1; }
grep -qE '^ +1 +[0-9.]+ +1\.00x +100%$' <<<"$out" || { echo "FAIL: first row not the baseline"; fail=1; }
"$sweep" -p 1 -- /nonexistent/cmd >/dev/null 2>&1; [ $? = 127 ] || { echo "FAIL: missing CMD not 127"; fail=1; }
"$sweep" -p 1,x -- true >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: bad list not 2"; fail=1; }
"$sweep" -p 1 -- false >/dev/null 2>&1; [ $? = 1 ] || { echo "FAIL: failing CMD not 1"; fail=1; }
exit $fail
