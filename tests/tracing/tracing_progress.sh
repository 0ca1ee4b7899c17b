#!/bin/bash
# The progress line on a terminal (issue 16), through the real stack (TAP):
# naive fib(28) recorded whole (about 1.5 M events) is analysed on a pseudo
# terminal (script(1)) with parallel reading (--jobs 2) and with one
# reading thread (--jobs 1). Each run must draw the line at least twice,
# with the bar, the share of the bytes decoded, the events, the rate and
# the time left; the shares never go back; the line is ended by a newline
# before the program ends. Not on a terminal, or with --no-progress: no line.
# usage: tracing_progress.sh FJTRACE-RECORD FJTRACE-ANALYZE FJ-FIB
. "$(dirname "$0")/lib.sh" "$1"
ANALYZE=$2 FIB=$3
command -v script >/dev/null || plan_skip_all "no script(1) for a pseudo terminal"
"$RECORD" --cmd-only --blocking --no-count -o "$tmp/fib" -- "$FIB" 28 --variant naive -p 2 >"$tmp/rec.out" 2>"$tmp/rec.err"
ok $? "fjtrace-record records naive fib(28) whole (--blocking)" || cat "$tmp/rec.err"

# on_tty NAME ARGS...: the analyzer on a pseudo terminal; what the terminal
# showed goes to $tmp/NAME.tty (the report itself to a file).
on_tty() {
  local name=$1 cmd
  shift
  printf -v cmd '%q ' "$ANALYZE" "$@" "$tmp/fib" -o "$tmp/$name.out"
  script -qfec "$cmd" /dev/null >"$tmp/$name.tty" 2>&1
  ok $? "fjtrace-analyze $* on a terminal: exit 0" || cat "$tmp/$name.tty"
}
# check_lines NAME: the progress lines' checks on $tmp/NAME.tty.
check_lines() {
  python3 - "$tmp/$1.tty" <<'PY'
import re, sys
out = open(sys.argv[1], "rb").read().decode()
line = re.compile(r"fjtrace-analyze: \[([#.]{40})\] +(\d+)% (\d+) M events, (\d+) MB/s, (\d+) s left *$")
shown = [m for m in (line.match(p.rstrip("\r\n")) for p in out.split("\r")) if m]
if len(shown) < 2:
    sys.exit(f"{len(shown)} progress lines in {out[:300]!r}")
shares = [int(m.group(2)) for m in shown]
if shares != sorted(shares) or shares[-1] > 100:
    sys.exit(f"shares go back or pass 100%: {shares}")
for m in shown:  # the bar says what the share says (the share is rounded)
    if abs(m.group(1).count("#") - int(m.group(2)) * 40 / 100) > 1:
        sys.exit(f"bar {m.group(1)} for {m.group(2)}%")
if not out.rstrip(" ").endswith("\n"):
    sys.exit(f"the last line is not ended: {out[-80:]!r}")
print(f"# {len(shown)} lines, shares {shares}")
PY
}
for jobs in 2 1; do
  on_tty jobs$jobs --jobs $jobs
  check_lines jobs$jobs
  ok $? "--jobs $jobs: at least two progress lines with bar, share, events, rate and time left; shares never go back; ended by a newline"
done
cmp -s "$tmp/jobs1.out" "$tmp/jobs2.out"
ok $? "the report under the progress line is the same with --jobs 1 and 2"
on_tty quiet --no-progress
! grep -q "events, " "$tmp/quiet.tty"
ok $? "--no-progress on a terminal: no progress line" || cat "$tmp/quiet.tty"
"$ANALYZE" "$tmp/fib" -o /dev/null 2>"$tmp/file.err"
ok $? "stderr to a file: exit 0"
! grep -q $'\r' "$tmp/file.err"
ok $? "stderr not a terminal: no progress line" || cat "$tmp/file.err"
done_testing
