#!/bin/bash
# A trace is one trace however it is reached (TAP): symbolic-link loops in
# and around a session, three links to '.', the same trace given twice or
# through a link. Each must give the report of the trace read once (same
# events, one pool, exit 0) and end (the walk visits a folder once; three
# links to '.' used to take minutes with 3^16 paths).
#   find-loops.sh ANALYZE TRACE   (TRACE: a session folder of one trace)
set -u
analyze=$1 trace=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { # COND-STATUS WHAT
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
summary() { # PATHS...: "exit events pools" of the JSON report
    timeout 120 "$analyze" --no-progress --json "$@" 2>"$tmp/err" |
        python3 -c 'import json,sys
r = json.load(sys.stdin)
print(r["trace"]["events"], len(r["pools"]))' 2>/dev/null
    echo "rc ${PIPESTATUS[0]}"
}
want=$(summary "$trace" | tr '\n' ' ')
case $want in *"rc 0 "*) ;; *) echo "Bail out! the trace itself does not analyse: $want"; exit 1 ;; esac
echo "# the trace alone: $want"

cp -r "$trace" "$tmp/s"
t=$(dirname "$(find "$tmp/s" -name metadata | head -n 1)")
ln -s . "$tmp/s/self"
got=$(summary "$tmp/s" | tr '\n' ' ')
[ "$got" = "$want" ]; ok $? "a 'self -> .' link in the session: $got"

ln -s .. "$t/up"
ln -s "$tmp/s" "$tmp/s/ust/back"
got=$(summary "$tmp/s" | tr '\n' ' ')
[ "$got" = "$want" ]; ok $? "links to a parent and to the session inside it: $got"

mkdir "$tmp/three"
cp -r "$trace" "$tmp/three/s"
for l in a b c; do ln -s . "$tmp/three/$l"; done
got=$(summary "$tmp/three" | tr '\n' ' ')
[ "$got" = "$want" ]; ok $? "three links to '.' (3^16 paths): $got"

got=$(summary "$trace" "$trace" | tr '\n' ' ')
[ "$got" = "$want" ]; ok $? "the same trace given twice: $got"

ln -s "$t" "$tmp/link"
got=$(summary "$trace" "$tmp/link" "$t/metadata" "$tmp/s/./ust/.." | tr '\n' ' ')
# $tmp/s is a copy: another trace, so the events double; the links add nothing
got_copy=$(summary "$tmp/s" | tr '\n' ' ')
both=$(summary "$trace" "$tmp/s" | tr '\n' ' ')
[ "$(summary "$tmp/link" "$t/metadata" "$tmp/s/./ust/.." "$t" | tr '\n' ' ')" = "$got_copy" ]
ok $? "a trace through a link, its metadata file and a dotted path counts once"
[ "$got" = "$both" ]; ok $? "a copy is a different trace (counted): $got"

mkdir -p "$tmp/loop/a"
ln -s ../a "$tmp/loop/a/b"
timeout 120 "$analyze" --no-progress "$tmp/loop" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q 'no CTF trace found' "$tmp/err"; ok $? "a loop without a trace: exit 3, said so (rc $rc)"

echo "1..$n"
[ $failed -eq 0 ]
