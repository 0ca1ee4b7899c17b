#!/bin/bash
# Every variant of the samples gives the right answer at P=1..4 (the samples
# verify their own results and exit 1 when wrong).
set -u
fib=$1 qs=$2 uts=$3 cont=$4 be=$5 burn=$6 fail=0
for p in 1 2 3 4; do
  for v in naive throttled cutoff; do
    out=$("$fib" 24 -p $p --variant $v --cutoff 12) || { echo "FAIL fj-fib $v P=$p"; fail=1; }
    grep -q '^fib(24) = 46368$' <<<"$out" || { echo "FAIL fj-fib $v P=$p: $out"; fail=1; }
  done
  # naive fib(24) forks exactly F(25)-1 = 75024 tasks.
  "$fib" 24 -p $p | grep -q '^summary variant=naive P='$p' .* forks=75024 ' || { echo "FAIL naive fork count P=$p"; fail=1; }
  "$uts" -p $p --b0 300 >/dev/null || { echo "FAIL fj-uts P=$p"; fail=1; }
  "$cont" -p $p -n 300 --shared 2000 | grep -q '^summary variant=lock P='$p' .* forks=299 ' || { echo "FAIL fj-contention P=$p"; fail=1; }
  "$cont" -p $p -n 300 --no-lock >/dev/null || { echo "FAIL fj-contention --no-lock P=$p"; fail=1; }
  "$be" -p $p -n 5000 -q 100 -r 5 --think 1 | grep -q '^seq/par' || { echo "FAIL fj-breakeven P=$p"; fail=1; }
  # depth 4: 31 tasks, 30 forks, 16 leaves (fj-burn checks the count itself).
  "$burn" -p $p --depth 4 --leaf-us 100 --sleep-us 50 | grep -q '^summary variant=burn P='$p' .* forks=30 ' || { echo "FAIL fj-burn P=$p"; fail=1; }
  for v in naive throttled; do
    "$qs" -n 200000 -p $p --variant $v --seed $p >/dev/null || { echo "FAIL fj-quicksort $v P=$p"; fail=1; }
  done
done
"$fib" 20 --variant seq | grep -q '^fib(20) = 6765$' || { echo "FAIL fj-fib seq"; fail=1; }
"$qs" -n 1000 --variant seq >/dev/null || { echo "FAIL fj-quicksort seq"; fail=1; }
"$qs" -n 0 -p 2 >/dev/null || { echo "FAIL fj-quicksort empty"; fail=1; }
FJ_WORKERS=3 "$fib" 15 | grep -q 'P=3 ' || { echo "FAIL FJ_WORKERS not honoured"; fail=1; }
# A short grid: a header row of Q decades, one row per N decade.
grid=$("$be" -p 2 --grid --max-n 100 --max-q 10 --cell-seconds 0.05 --think 1) || { echo "FAIL grid"; fail=1; }
[ "$(grep -cE '^ +(1|10|100) ' <<<"$grid")" = 3 ] && grep -qE '^ +N \\ Q +1 +10$' <<<"$grid" || { echo "FAIL grid table: $grid"; fail=1; }
[ $fail = 0 ] && echo "samples: all correct"
exit $fail
