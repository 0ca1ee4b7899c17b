#!/bin/bash
# The HTML report in a real browser: headless Chromium loads it, takes a
# screenshot (must not be blank) and dumps the DOM (must hold the headings).
#   test_chromium.sh SRCDIR ANALYZE VIZCHECK FIB
set -euo pipefail
src=$1 analyze=$2 check=$3 fib=$4
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || { echo "SKIP: no chromium (scripts/install-deps installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$src/scripts/fjtrace-record" --cmd-only -o "$tmp/t" -- "$fib" 18 -p 2 >/dev/null 2>&1
"$analyze" "$tmp/t" -o /dev/null --html "$tmp/report.html" || [[ $? == 1 ]]
# shellcheck disable=SC2054 # the comma belongs to one flag, --window-size=W,H
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$tmp/profile" --window-size=1200,2000)
timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
  >/dev/null 2>&1 || fail "chromium screenshot failed"
read -r w h n < <("$check" png "$tmp/shot.png") || fail "no screenshot"
(( n > 20 )) || fail "blank screenshot ($n colours)"
echo "ok screenshot ${w}x$h, $n colours"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" 2>/dev/null ||
  fail "chromium --dump-dom failed"
for h in Summary Workers Trees Timeline Charts Advice; do
  grep -q "<h2 id=\"[a-z]*\">$h</h2>" "$tmp/dom.html" || fail "DOM has no $h heading"
done
grep -c "<svg" "$tmp/dom.html" | { read -r k; (( k >= 3 )) || fail "only $k SVGs in the DOM"; echo "ok DOM: headings and $k SVGs"; }
