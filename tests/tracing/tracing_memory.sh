#!/bin/bash
# Bounded memory of the analysis (issue 16) through the real stack (TAP):
# naive fib(27) recorded whole (F(28) = 317811 tasks) is analysed in at
# most 32 MiB + 64 bytes per task of peak RSS, for the text and the JSON
# report (finished tasks give their records back: analyzer/core/recycle.h);
# with --tasks every record is kept and listed, within its own bound of
# 32 MiB + 160 bytes per task (docs/analyses.md, "Memory").
# usage: tracing_memory.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-FIB
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 FIB=$3
[ -x /usr/bin/time ] || plan_skip_all "no /usr/bin/time to measure the peak RSS"
# A sanitized analyzer's shadow memory and quarantine are no figure of ours.
if grep -qa -e __asan_init -e __tsan_init "$ANALYZE"; then
  plan_skip_all "the analyzer is built with a sanitizer"
fi
n=27 tasks=317811 # F(28): F(28)-1 forked and the root
"$RECORD" --cmd-only --blocking --no-count -o "$tmp/fib" -- "$FIB" $n --variant naive -p 2 >"$tmp/rec.out" 2>"$tmp/rec.err"
ok $? "fjtrace-record records naive fib($n) whole (--blocking)" || cat "$tmp/rec.err"
# peak KIND ARGS...: runs the analyzer; its peak RSS in KiB goes to $KIND.
peak() {
  local kind=$1
  shift
  /usr/bin/time -f %M -o "$tmp/$kind.kib" "$ANALYZE" --no-progress "$@" "$tmp/fib" \
    -o "$tmp/$kind.out" 2>"$tmp/$kind.err"
  ok $? "fjtrace-analyze ${*:-(text)} reads it (exit 0)" || cat "$tmp/$kind.err" >&2
  printf -v "$kind" %s "$(tail -n 1 "$tmp/$kind.kib")"
}
bound() { # bytes_per_task: the bound in KiB
  echo $(((32 * 1024 * 1024 + $1 * tasks) / 1024))
}
text='' json='' kept=''
peak text
peak json --json
python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['pools'][0]['totals']['tasks'] != $tasks)" "$tmp/json.out"
ok $? "the report counts F(28) = $tasks tasks"
goal=$(bound 64)
[ "$text" -le "$goal" ]
ok $? "text report: peak RSS $text KiB <= 32 MiB + 64 B x $tasks tasks = $goal KiB"
[ "$json" -le "$goal" ]
ok $? "JSON report: peak RSS $json KiB <= $goal KiB"
peak kept --tasks "$tmp/tasks.csv"
[ "$(($(wc -l <"$tmp/tasks.csv") - 1))" = $tasks ]
ok $? "--tasks keeps every record: the CSV lists $tasks tasks"
[ "$kept" -le "$(bound 160)" ]
ok $? "--tasks: peak RSS $kept KiB <= 32 MiB + 160 B x $tasks tasks = $(bound 160) KiB"
diag "peak RSS: text $text KiB, JSON $json KiB, --tasks $kept KiB"
done_testing
