#!/bin/bash
# Pictures through the real stack: record fj-fib with fjtrace-record, run
# fjtrace-analyze with every picture option, read the results back with
# cairo, libcgraph, python's XML and JSON parsers.
#   test_pictures.sh SRCDIR ANALYZE VIZCHECK FIB
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/shared.sh"
set -uo pipefail
src=$1 analyze=$2 check=$3 fib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rec() { "$src/scripts/fjtrace-record" --cmd-only --no-count "$@" >/dev/null 2>"$tmp/rec.err" || bail_out "recording: $(cat "$tmp/rec.err")"; }

# png FILE MINW MINH: one check, a valid PNG of sensible size with more than
# one colour
png() {
  local w=0 h=0 n=0
  read -r w h n < <("$check" png "$1")
  (( w >= $2 && h >= $3 && w <= 32767 && h <= 32767 && n > 1 ))
  ok $? "${1#"$tmp"/} is a PNG cairo reads, at least $2x$3, more than one colour" || diag "${w}x$h, $n colours"
}

# --blocking: LTTng loses nothing, so the traces are whole and every
# analysis of them must exit 0 (exit 1 would say incomplete).
shared_fib18 "$tmp/p2" "$src/scripts/fjtrace-record" "$fib" ||
  bail_out "recording: $(cat "$tmp/p2.err")"
rec -o "$tmp/p1" --blocking -- "$fib" 16 -p 1

out=$tmp/out
mkdir -p "$out"
"$analyze" "$tmp/p2" -o "$tmp/report.txt" --subtrees "$out/sub" --format all \
  --timeline "$out/timeline.png" --charts "$out/charts" --html "$out/report.html" \
  --chrome-trace "$out/trace.json"
is $? 0 "fjtrace-analyze writes every picture option's output and exits 0 (the trace is whole)"
"$analyze" "$tmp/p2" -o /dev/null --timeline "$out/timeline.svg"
is $? 0 "fjtrace-analyze writes an SVG timeline and exits 0"

tree=$(find "$out/sub" -name 'tree-1-*.png' | sort | head -n 1)
[[ -n $tree ]] || bail_out "no tree-1-ROOT.png"
png "$tree" 200 200
png "$out/timeline.png" 800 100
for c in "$out"/charts/*.png; do png "$c" 400 300; done
python3 "$src/tests/viz/check_outputs.py" svg "$out"/sub/*.svg "$out"/charts/*.svg "$out/timeline.svg"
ok $? "every SVG (trees, charts, timeline) parses as XML with an svg root"
python3 "$src/tests/viz/check_outputs.py" chrome "$out/trace.json"
ok $? "the Chrome trace is JSON with nested slices per track, flows with both ends, names"
python3 "$src/tests/viz/check_outputs.py" html "$out/report.html"
ok $? "the HTML report holds its sections"

# DOT re-parses with libcgraph within the default budget.
read -r nodes colours label < <("$check" dot "${tree%.png}.dot")
ok $? "the tree's DOT parses back with libcgraph"
[[ ${label:-} == *"root #1 (task 0x"* ]]
ok $? "the tree's title numbers its root as the report lists it (root #1)" || diag "title: ${label:-}"
(( ${nodes:-401} <= 400 ))
ok $? "the tree's DOT keeps to the default 400 nodes (${nodes:-?})"
# Colours follow workers: the unfolded P=2 tree has one colour per worker
# that ran a task (usually both; a loaded machine may starve one).
"$analyze" "$tmp/p2" -o /dev/null --subtrees "$tmp/full" --format dot --max-nodes 100000
is $? 0 "fjtrace-analyze draws the unfolded tree and exits 0"
read -r nodes colours label < <("$check" dot "$tmp"/full/tree-1-*.dot)
ok $? "the unfolded tree's DOT parses back"
"$analyze" --json "$tmp/p2" >"$tmp/report.json"
is $? 0 "fjtrace-analyze --json exits 0 on the whole P=2 trace"
ran=$(python3 -c 'import json,sys; print(sum(1 for w in json.load(open(sys.argv[1]))["pools"][0]["per_worker"] if w["tasks"] > 0))' "$tmp/report.json")
is "${colours:-}" "$ran" "the P=2 tree has one colour per worker that ran tasks ($nodes nodes)"

# --max-nodes is honoured, and folding says so.
"$analyze" "$tmp/p2" -o /dev/null --subtrees "$tmp/small" --format dot --max-nodes 30
is $? 0 "fjtrace-analyze draws a folded tree and exits 0"
read -r nodes colours label < <("$check" dot "$tmp"/small/tree-1-*.dot)
(( ${nodes:-31} <= 30 ))
ok $? "--max-nodes 30 draws at most 30 nodes (${nodes:-?})"
[[ ${label:-} == *folded* ]]
ok $? "a folded tree's title says folded" || diag "title: ${label:-}"

# P=1: one worker colour.
"$analyze" "$tmp/p1" -o /dev/null --subtrees "$tmp/one" --format dot
is $? 0 "fjtrace-analyze draws the P=1 tree and exits 0 (the trace is whole)"
read -r nodes colours label < <("$check" dot "$tmp"/one/tree-1-*.dot)
is "${colours:-}" 1 "the P=1 tree has one worker colour"

# Tiny buffers lose events: every picture's title says so.
rec -o "$tmp/lossy" --subbuf-size 4096 --num-subbuf 2 -- "$fib" 20 -p 2
if ! grep -q "discarded" "$tmp/rec.err"; then
  skip 4 "tiny buffers lost nothing this time"
  done_testing
fi
"$analyze" "$tmp/lossy" -o /dev/null --subtrees "$tmp/lossy-out" --format dot \
  --html "$tmp/lossy.html" --timeline "$tmp/lossy-tl.png"
is $? 1 "with events lost fjtrace-analyze draws and exits 1 (incomplete)"
# One reading process for all the trees (there can be hundreds of them
# when many events were lost: a process each took over 300 s under ASan
# on a loaded machine); a file that does not parse ends the list.
all=0 made_up=0 partial=0
while read -r nodes colours label; do
  [[ ${label:-} == *"events discarded"* ]] || { all=1; diag "a tree's title: ${label:-}"; }
  # A tree begun before the trace has no known span: the report says n/a
  if [[ ${label:-} == *PARTIAL* ]]; then
    partial=$((partial + 1))
    [[ $label == *"span n/a · parallelism n/a"* ]] || { made_up=1; diag "a partial tree's title: $label"; }
  fi
done < <("$check" dot "$tmp"/lossy-out/*.dot || echo "0 0 (a DOT file did not parse)")
ok $all "with events lost every tree's title says events discarded"
ok $made_up "with events lost every partial tree's title says span and parallelism n/a ($partial partial)"
# The trees table's rows (#, tasks, steals, work, span, parallelism, ...):
# span and parallelism are both n/a or both figures, never 0.00 (the
# workers table has 0.00 queue depths: left out).
made_up=$(awk -F'</td><td>' '/^<tr><td>#[0-9]+<\/td>/ && (($5 == "n/a") != ($6 == "n/a") || $6 == "0.00")' \
  "$tmp/lossy.html" | wc -l)
is "$made_up" 0 "with events lost the HTML's trees table gives no partial tree a parallelism"
grep -q "<h1>fjtrace report.*events discarded" "$tmp/lossy.html"
ok $? "with events lost the HTML title says events discarded"
png "$tmp/lossy-tl.png" 800 100
done_testing
