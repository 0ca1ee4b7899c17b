#!/bin/bash
# fjtrace-sweep on a tiny workload: one row per worker count, speedup 1.00x
# on the first row, and its error paths.
. "$(dirname "$0")/../tap.sh"
set -u
sweep=$1 fib=$2
out=$("$sweep" -p 1,2,3 -r 2 -- "$fib" 18)
ok $? "fjtrace-sweep -p 1,2,3 -r 2 on fj-fib 18 exits 0" || diag "$out"
[ "$(grep -cE '^ +[123] +[0-9.]+ +[0-9.]+x +[0-9]+%$' <<<"$out")" = 3 ]
ok $? "one row per worker count, 3 rows" || diag "$out"
grep -qE '^ +1 +[0-9.]+ +1\.00x +100%$' <<<"$out"
ok $? "the first row is the baseline: 1.00x, 100%" || diag "$out"
"$sweep" -p 1 -- /nonexistent/cmd >/dev/null 2>&1
is $? 127 "a missing CMD exits 127"
"$sweep" -p 1,x -- true >/dev/null 2>&1
is $? 2 "a bad worker list exits 2"
"$sweep" -p 1 -- false >/dev/null 2>&1
is $? 1 "a failing CMD exits 1"
done_testing
