#!/bin/bash
# Outputs that cannot be written: a full device, a folder that is a file,
# and a disk that fills up part-way through (RLIMIT_FSIZE, so no root or
# mount is needed: writes past the limit fail with EFBIG). Each run must
# exit 6 naming what failed, and leave no partial file: every output that
# exists parses whole, no temporary file is left, an older file of the
# same name is untouched.
#   test_output_faults.sh SRCDIR ANALYZE VIZCHECK FIB
. "$(dirname "$0")/../tap.sh"
set -uo pipefail
src=$1 analyze=$2 check=$3 fib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$src/scripts/fjtrace-record" --cmd-only -o "$tmp/t" -- "$fib" 16 -p 2 >"$tmp/rec.out" 2>&1 ||
  bail_out "recording: $(cat "$tmp/rec.out")"

# expect6 WHAT PATTERN ARGS...: one check, exit 6 and PATTERN in the error
expect6() {
  local what=$1 pat=$2 rc=0
  shift 2
  "$analyze" "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc == 6 ]] && grep -q -- "$pat" "$tmp/err"
  ok $? "$what: exit 6, the error says '${pat//$tmp/\$tmp}'" || diag "exit $rc: $(cat "$tmp/err")"
}

expect6 "report to /dev/full" "No space left on device" -o /dev/full
expect6 "JSON to /dev/full" "No space left on device" --json -o /dev/full
rc=0
"$analyze" "$tmp/t" >/dev/full 2>"$tmp/err" || rc=$?
[[ $rc == 6 ]] && grep -q "No space left" "$tmp/err"
ok $? "report on a full standard output: exit 6, No space left" || diag "exit $rc"
touch "$tmp/file"
expect6 "HTML under a file" "$tmp/file/r.html: Not a directory" --html "$tmp/file/r.html" -o /dev/null
expect6 "subtrees under a file" "$tmp/file/sub" --subtrees "$tmp/file/sub" -o /dev/null
expect6 "Chrome trace under a file" "Not a directory" --chrome-trace "$tmp/file/c.json" -o /dev/null
expect6 "CSV under a file" "Not a directory" --tasks "$tmp/file/t.csv" -o /dev/null

# The disk fills up part-way: 64 KiB per file holds the text report and the
# small charts, not the HTML report, the tree pictures or the Chrome trace.
d=$tmp/full
mkdir -p "$d/sub"
echo OLD >"$d/report.html"
rc=0
(
  ulimit -f 64
  trap '' XFSZ
  exec "$analyze" "$tmp/t" -o "$d/report.txt" --tasks "$d/tasks.csv" --subtrees "$d/sub" \
    --format all --timeline "$d/timeline.png" --charts "$d/charts" --html "$d/report.html" \
    --chrome-trace "$d/trace.json"
) >"$tmp/out" 2>"$tmp/err" || rc=$?
is "$rc" 6 "the disk filling up part-way: exit 6" || diag "$(cat "$tmp/err")"
grep -q "File too large (nothing written)" "$tmp/err"
ok $? "the disk filling up: the error says File too large (nothing written)" || diag "$(cat "$tmp/err")"
diag "$(grep -c "cannot write" "$tmp/err") output(s) refused:" "$(cat "$tmp/err")"
is "$(cat "$d/report.html")" OLD "the older report.html is neither overwritten nor damaged"
left=$(find "$d" -name '.*.tmp-*')
[[ -z $left ]]
ok $? "no temporary file is left" || diag "$left"
grep -q "^  trace " "$d/report.txt"
ok $? "the text report (small) is written whole"
# Every file that exists is whole.
while IFS= read -r f; do
  case $f in
  *.png) "$check" png "$f" >/dev/null ;;
  *.svg) python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f" ;;
  *.dot) "$check" dot "$f" >/dev/null ;;
  *.json) python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" ;;
  *.csv) [[ $(tail -c 1 "$f" | od -An -c | tr -d ' ') == '\n' ]] ;;
  *) true ;;
  esac
  ok $? "${f#"$d"/} is whole (it parses back)"
done < <(find "$d" -type f ! -name report.html ! -name report.txt)
! { grep -q "$d/trace.json" "$tmp/err" && [[ -e $d/trace.json ]]; }
ok $? "a refused trace.json is not there at all"
done_testing
