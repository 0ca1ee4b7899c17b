#!/bin/bash
# The HTML report in a real browser: headless Chromium loads it, takes a
# screenshot (must not be blank) and dumps the DOM (must hold the headings).
#   test_chromium.sh SRCDIR ANALYZE VIZCHECK FIB
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/shared.sh"
set -uo pipefail
src=$1 analyze=$2 check=$3 fib=$4
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || plan_skip_all "no chromium (scripts/install-deps installs it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --blocking: nothing lost, the trace is whole: the analysis must exit 0.
shared_fib18 "$tmp/t" "$src/scripts/fjtrace-record" "$fib" || bail_out "recording fj-fib failed"
"$analyze" "$tmp/t" -o /dev/null --html "$tmp/report.html"
is $? 0 "fjtrace-analyze writes the HTML report and exits 0 (the trace is whole)"
# shellcheck disable=SC2054 # the comma belongs to one flag, --window-size=W,H
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$tmp/profile" --window-size=1200,2000)
timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
  >/dev/null 2>&1
ok $? "headless Chromium loads the report and takes a screenshot"
read -r w h n < <("$check" png "$tmp/shot.png")
ok $? "the screenshot is a PNG (${w:-?}x${h:-?})"
(( ${n:-0} > 20 ))
ok $? "the screenshot is not blank (more than 20 colours: ${n:-0})"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" 2>/dev/null
ok $? "headless Chromium dumps the report's DOM"
for h in Summary Workers Trees Timeline Charts Advice; do
  grep -q "<h2 id=\"[a-z]*\">$h</h2>" "$tmp/dom.html"
  ok $? "the DOM has the $h heading"
done
k=$(grep -c "<svg" "$tmp/dom.html")
(( k >= 3 ))
ok $? "the DOM holds at least 3 SVGs ($k)"
done_testing
