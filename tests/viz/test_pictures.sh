#!/bin/bash
# Pictures through the real stack: record fj-fib with fjtrace-record, run
# fjtrace-analyze with every picture option, read the results back with
# cairo, libcgraph, python's XML and JSON parsers.
#   test_pictures.sh SRCDIR ANALYZE VIZCHECK FIB
set -euo pipefail
src=$1 analyze=$2 check=$3 fib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rec() { "$src/scripts/fjtrace-record" --cmd-only "$@" >/dev/null 2>"$tmp/rec.err" || fail "recording: $(cat "$tmp/rec.err")"; }

# png FILE MINW MINH: valid PNG of sensible size with more than one colour
png() {
  read -r w h n < <("$check" png "$1") || fail "$1 is not a PNG cairo reads"
  (( w >= $2 && h >= $3 && w <= 32767 && h <= 32767 )) || fail "$1 is ${w}x$h"
  (( n > 1 )) || fail "$1 has one colour"
  echo "ok $1 ${w}x$h, $n colours"
}

rec -o "$tmp/p2" -- "$fib" 18 -p 2
rec -o "$tmp/p1" -- "$fib" 16 -p 1

out=$tmp/out
mkdir -p "$out"
"$analyze" "$tmp/p2" -o "$tmp/report.txt" --subtrees "$out/sub" --format all \
  --timeline "$out/timeline.png" --charts "$out/charts" --html "$out/report.html" \
  --chrome-trace "$out/trace.json" || [[ $? == 1 ]] || fail "fjtrace-analyze failed"
"$analyze" "$tmp/p2" -o /dev/null --timeline "$out/timeline.svg" || [[ $? == 1 ]]

tree=$(ls "$out"/sub/tree-1-*.png | head -1)
[[ -n $tree ]] || fail "no tree-1-ROOT.png"
png "$tree" 200 200
png "$out/timeline.png" 800 100
for c in "$out"/charts/*.png; do png "$c" 400 300; done
python3 "$src/tests/viz/check_outputs.py" svg "$out"/sub/*.svg "$out"/charts/*.svg "$out/timeline.svg"
python3 "$src/tests/viz/check_outputs.py" chrome "$out/trace.json"
python3 "$src/tests/viz/check_outputs.py" html "$out/report.html"

# DOT re-parses with libcgraph within the default budget.
read -r nodes colours label < <("$check" dot "${tree%.png}.dot") || fail "DOT does not parse"
(( nodes <= 400 )) || fail "$nodes nodes > default 400"
echo "ok DOT: $nodes nodes"
# Colours follow workers: the unfolded P=2 tree has one colour per worker
# that ran a task (usually both; a loaded machine may starve one).
"$analyze" "$tmp/p2" -o /dev/null --subtrees "$tmp/full" --format dot --max-nodes 100000 || [[ $? == 1 ]]
read -r nodes colours label < <("$check" dot "$tmp"/full/tree-1-*.dot) || fail "full DOT does not parse"
{ "$analyze" --json "$tmp/p2" || true; } >"$tmp/report.json"
ran=$(python3 -c 'import json,sys; print(sum(1 for w in json.load(open(sys.argv[1]))["pools"][0]["per_worker"] if w["tasks"] > 0))' "$tmp/report.json")
(( colours == ran )) || fail "P=2 tree has $colours worker colours, $ran workers ran tasks"
echo "ok full DOT: $nodes nodes, $colours worker colours for $ran working workers"

# --max-nodes is honoured, and folding says so.
"$analyze" "$tmp/p2" -o /dev/null --subtrees "$tmp/small" --format dot --max-nodes 30 || [[ $? == 1 ]]
read -r nodes colours label < <("$check" dot "$tmp"/small/tree-1-*.dot)
(( nodes <= 30 )) || fail "--max-nodes 30 drew $nodes nodes"
[[ $label == *folded* ]] || fail "folded tree title: $label"
echo "ok --max-nodes 30: $nodes nodes"

# P=1: one worker colour.
"$analyze" "$tmp/p1" -o /dev/null --subtrees "$tmp/one" --format dot || [[ $? == 1 ]]
read -r nodes colours label < <("$check" dot "$tmp"/one/tree-1-*.dot)
(( colours == 1 )) || fail "P=1 tree has $colours worker colours"
echo "ok P=1: one worker colour"

# Tiny buffers lose events: every picture's title says so.
rec -o "$tmp/lossy" --subbuf-size 4096 --num-subbuf 2 -- "$fib" 20 -p 2
grep -q "discarded" "$tmp/rec.err" || { echo "SKIP discards: nothing was lost"; exit 0; }
"$analyze" "$tmp/lossy" -o /dev/null --subtrees "$tmp/lossy-out" --format dot \
  --html "$tmp/lossy.html" --timeline "$tmp/lossy-tl.png" || [[ $? == 1 ]]
for d in "$tmp"/lossy-out/*.dot; do
  read -r nodes colours label < <("$check" dot "$d")
  [[ $label == *"events discarded"* ]] || fail "$d title: $label"
done
grep -q "<h1>fjtrace report.*events discarded" "$tmp/lossy.html" || fail "HTML title without the discards"
png "$tmp/lossy-tl.png" 800 100
echo "ok discarded events in the titles"
