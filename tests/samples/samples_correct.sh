#!/bin/bash
# Every variant of the samples gives the right answer at P=1..4 (the samples
# verify their own results and exit 1 when wrong).
. "$(dirname "$0")/../tap.sh"
set -u
fib=$1 qs=$2 uts=$3 cont=$4 be=$5 burn=$6
for p in 1 2 3 4; do
  for v in naive throttled cutoff naive-fork cutoff-fork; do
    out=$("$fib" 24 -p $p --variant $v --cutoff 12) && grep -q '^fib(24) = 46368$' <<<"$out"
    ok $? "P=$p: fj-fib 24 --variant $v prints fib(24) = 46368 and exits 0" || diag "$out"
  done
  # Forks are counted when asked for (FJ_COUNT_TASKS=1), else n/a.
  FJ_COUNT_TASKS=1 "$fib" 24 -p $p | grep -q '^summary variant=naive P='$p' .* forks=75024 '
  ok $? "P=$p: naive fib(24), counting tasks, forks exactly F(25)-1 = 75024 tasks"
  FJ_COUNT_TASKS=1 "$fib" 24 -p $p --variant naive-fork | grep -q '^summary variant=naive-fork P='$p' .* forks=75024 '
  ok $? "P=$p: naive fib(24) with fj_fork, counting tasks, forks exactly 75024 tasks"
  out=$("$fib" 24 -p $p)
  grep -q '^summary variant=naive P='$p' .* forks=n/a steals=[0-9]* ' <<<"$out"
  ok $? "P=$p: naive fib(24) not counting tasks says forks=n/a, and a number of steals" || diag "$out"
  grep -qE '^ +total +n/a +n/a +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +n/a$' <<<"$out"
  ok $? "P=$p: ... and its table says n/a for forks, joins and executed, numbers for the rest" || diag "$out"
  "$uts" -p $p --b0 300 >/dev/null
  ok $? "P=$p: fj-uts --b0 300 counts its tree right"
  # fj-contention counts tasks whatever FJ_COUNT_TASKS says: it checks them.
  "$cont" -p $p -n 300 --shared 2000 | grep -q '^summary variant=lock P='$p' .* forks=299 '
  ok $? "P=$p: fj-contention -n 300 runs its 300 tasks (299 forks) under the lock"
  "$cont" -p $p -n 300 --no-lock >/dev/null
  ok $? "P=$p: fj-contention --no-lock runs right"
  "$be" -p $p -n 5000 -q 100 -r 5 --think 1 | grep -q '^seq/par'
  ok $? "P=$p: fj-breakeven prints its seq/par line"
  # depth 4: 31 tasks, 30 forks, 16 leaves (fj-burn checks the count itself).
  FJ_COUNT_TASKS=1 "$burn" -p $p --depth 4 --leaf-us 100 --sleep-us 50 | grep -q '^summary variant=burn P='$p' .* forks=30 '
  ok $? "P=$p: fj-burn --depth 4 forks 30 tasks"
  for v in naive throttled; do
    "$qs" -n 200000 -p $p --variant $v --seed $p >/dev/null
    ok $? "P=$p: fj-quicksort --variant $v sorts 200000 numbers"
  done
done
"$fib" 20 --variant seq | grep -q '^fib(20) = 6765$'
ok $? "fj-fib --variant seq computes fib(20) = 6765"
"$qs" -n 1000 --variant seq >/dev/null
ok $? "fj-quicksort --variant seq sorts 1000 numbers"
"$qs" -n 0 -p 2 >/dev/null
ok $? "fj-quicksort sorts an empty array"
FJ_WORKERS=3 "$fib" 15 | grep -q 'P=3 '
ok $? "FJ_WORKERS=3 gives a pool of 3 workers"
out=$(FJ_COUNT_TASKS=yes "$fib" 15 2>&1)
grep -q 'libfj: ignoring FJ_COUNT_TASKS="yes" (want 0 or 1)' <<<"$out" && grep -q 'forks=n/a' <<<"$out"
ok $? "FJ_COUNT_TASKS=yes is refused with a warning, and tasks are not counted" || diag "$out"
# A short grid: a header row of Q decades, one row per N decade.
grid=$("$be" -p 2 --grid --max-n 100 --max-q 10 --cell-seconds 0.05 --think 1)
ok $? "fj-breakeven --grid exits 0"
[ "$(grep -cE '^ +(1|10|100) ' <<<"$grid")" = 3 ] && grep -qE '^ +N \\ Q +1 +10$' <<<"$grid"
ok $? "fj-breakeven --grid prints a header of Q decades 1 10 and one row per N decade" || diag "$grid"
done_testing
