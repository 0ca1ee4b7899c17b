#!/bin/bash
# Naive fib traced for real: exactly F(n+1)-1 fork events, one exec and one
# executed per task (and, in a pool counting tasks, F(n+1)-1 forks counted), steals of tasks forked on the victim, <= 3.2 events/task
# (the off-CPU events apart: they come per context switch, not per task).
# Steals are demanded of a cut-off fib whose root runs ~0.1 s: naive fib(20)
# is over in a few ms, before a loaded machine may even run a second worker.
. "$(dirname "$0")/lib.sh" "$1"
FIB=$2
check=$(dirname "$0")/check_trace.py
for p in 1 2 4; do
  record fib$p "$FIB" 20 --variant naive -p $p || continue
  python3 "$check" "$tmp/fib$p" fib 20
  ok $? "P=$p: naive fib(20) records F(21)-1 forks, every task executed once, pairs nested, <= 3.2 events a task besides the off-CPU ones"
done
# A pool that counts tasks while a session records: the recorded spawns
# and forks are counted as exactly as the untraced ones, typed and fj_fork.
for p in 1 2; do
  for v in naive naive-fork; do
    FJ_COUNT_TASKS=1 record count-$v$p "$FIB" 20 --variant $v -p $p || continue
    python3 "$check" "$tmp/count-$v$p" fib 20
    ok $? "P=$p: $v fib(20) counting tasks records F(21)-1 forks, every task executed once"
    grep -q "^summary variant=$v P=$p .* forks=10945 " "$tmp/count-$v$p.out"
    ok $? "P=$p: $v fib(20) counting tasks while recorded says forks=10945 = F(21)-1" ||
      cat "$tmp/count-$v$p.out"
  done
done
for p in 2 4; do
  record cut$p "$FIB" 36 --variant cutoff --cutoff 22 -p $p || continue
  python3 "$check" "$tmp/cut$p" cutoff 36 22 --expect-steals
  ok $? "P=$p: cut-off fib(36) records F(16)-1 forks and steals, each of a task forked on its victim"
done
done_testing
