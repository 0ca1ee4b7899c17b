#!/bin/bash
# Hostile names through the real stack: a program whose process name is
# '"><script>' (run through a symlink of that name, so LTTng's procname
# context carries it), recorded into a folder whose path holds markup too,
# then every output of fjtrace-analyze. The name must reach each output
# (so the test sees it travel) and inject nothing: no <script> element in
# the HTML or the SVG, DOT and JSON that parse back to the exact name.
#   test_escape.sh SRCDIR ANALYZE VIZCHECK FIB
. "$(dirname "$0")/../tap.sh"
set -uo pipefail
src=$1 analyze=$2 check=$3 fib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

name='"><script>'
hostile="$tmp/bin"
mkdir -p "$hostile"
ln -s "$(realpath "$fib")" "$hostile/$name"
trace="$tmp/rec'\"><img src=x onerror=alert(1)>"
"$src/scripts/fjtrace-record" --cmd-only -o "$trace" -- "$hostile/$name" 12 -p 2 \
  >"$tmp/rec.out" 2>&1 || bail_out "recording: $(cat "$tmp/rec.out")"

out=$tmp/out
mkdir -p "$out"
"$analyze" "$trace" -o "$out/report.txt" --subtrees "$out/sub" --format all \
  --html "$out/report.html" --chrome-trace "$out/trace.json"
ok $? "fjtrace-analyze writes every output of the hostile-named trace, exit 0"
"$analyze" --json "$trace" -o "$out/report.json"
ok $? "fjtrace-analyze --json reads it, exit 0"

grep -qF "process $name pid" "$out/report.txt"
ok $? "the text report names the process"

svg=$(ls "$out"/sub/tree-*.svg | head -n 1)
dot=${svg%.svg}.dot
python3 - "$out/report.json" "$trace" "$name" "$out/report.html" "$svg" "$out/trace.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser
rep, trace, name, html, svg, chrome = sys.argv[1:]

def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)

r = json.load(open(rep))
if r["pools"][0]["process"]["name"] != name:
    fail(f"JSON process name is {r['pools'][0]['process']!r}")
if r["trace"]["paths"] != [trace]:
    fail(f"JSON paths are {r['trace']['paths']!r}")
if "<" in open(rep).read():
    fail("a raw '<' in the JSON (unsafe to embed in HTML)")
print("ok JSON round-trips the name and the path")

class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad, self.text = [], []
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe", "object", "embed"):
            self.bad.append(tag)
        self.bad += [f"{tag}[{k}]" for k, _ in attrs if k.startswith("on")]
    def handle_data(self, data):
        self.text.append(data)
p = Tags()
p.feed(open(html, encoding="utf-8").read())
text = "".join(p.text)
if p.bad:
    fail(f"the HTML report holds injected markup: {p.bad}")
if name not in text or "onerror=alert(1)>" not in text:
    fail("the HTML report does not show the process name and the trace path as text")
print("ok HTML shows the name and the path as text, no injected element")

root = ET.parse(svg).getroot()
tags = {el.tag.split("}")[-1] for el in root.iter()}
if "script" in tags:
    fail("a <script> element in the subtree SVG")
if not any(name in (el.text or "") for el in root.iter()):
    fail("the subtree SVG does not show the process name")
print("ok SVG parses, shows the name, no script element")

json.load(open(chrome))
print("ok Chrome trace parses")
PY
ok $? "JSON round-trips the name and path; HTML and SVG show them as text with no injected element; the Chrome trace parses"
read -r nodes _ label < <("$check" dot "$dot")
ok $? "the DOT parses back ($nodes nodes)"
[[ ${label:-} == *"of process $name pid "* ]]
ok $? "the DOT label holds the name" || diag "label: ${label:-}"
done_testing
