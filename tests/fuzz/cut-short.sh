#!/bin/bash
# A recording cut short (the disk filled up while LTTng wrote a packet):
# a trace of many small packets whose biggest stream file is cut in the
# middle of one. babeltrace2 alone refuses the whole trace; fjtrace-analyze
# must read every whole packet, say which file is cut, exit 1, and leave
# the trace as it was. Known answer: the events it reads are exactly those
# babeltrace2 reads from a copy cut by hand at the packet boundary (found
# here from LTTng's index, independently of the analyzer).
#   cut-short.sh ANALYZE RECORD FIB
. "$(dirname "$0")/../tap.sh"
set -uo pipefail
analyze=$1 record=$2 fib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The analyzer's salvage copies go under a $TMPDIR of this test's own: the
# check that none is left behind must not see another test's, made
# meanwhile by a test running beside this one.
export TMPDIR=$tmp/tmpdir
mkdir "$TMPDIR"
fail() { bail_out "$*"; }

"$record" --cmd-only --blocking --subbuf-size 16k -o "$tmp/orig" -- "$fib" 19 -p 2 \
  >"$tmp/rec.out" 2>&1 || fail "recording: $(cat "$tmp/rec.out")"
trace=$(dirname "$(find "$tmp/orig" -name metadata)")
# The biggest task stream (fjtrace_N): an off-CPU stream (fjtrace_offcpu_N,
# a few packets) can be the biggest file since offcpu_clock exists.
big=$(cd "$trace" && ls -S fjtrace_[0-9]* | head -n 1)
# boundary CUT: packet offsets of the big stream from its index; cut in the
# middle of the packet after the middle one.
read -r boundary cut npackets < <(python3 - "$trace/index/$big.idx" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic, major, minor, length = struct.unpack(">IIII", d[:16])
assert magic == 0xC1F1DCC1, hex(magic)
pk = [struct.unpack(">QQ", d[o:o + 16]) for o in range(16, len(d) - length + 1, length)]
k = len(pk) // 2
off, bits = pk[k]
print(off, off + bits // 16, len(pk))
PY
)
(( npackets >= 4 )) || fail "only $npackets packets in $big: the test needs several"
sums() { (cd "$1" && find . -type f | sort | xargs md5sum); }

cp -r "$tmp/orig" "$tmp/cut"
ctrace=${trace/$tmp\/orig/$tmp/cut}
truncate -s "$cut" "$ctrace/$big"
sum_before=$(sums "$ctrace")
cp -r "$tmp/orig" "$tmp/hand"
htrace=${trace/$tmp\/orig/$tmp/hand}
truncate -s "$boundary" "$htrace/$big"
rm -r "$htrace/index"
want=$(babeltrace2 "$htrace" | grep -c ' fjtrace:')
all=$(babeltrace2 "$trace" | grep -c ' fjtrace:')
babeltrace2 "$ctrace" >/dev/null 2>&1 && fail "babeltrace2 reads the cut trace: nothing to salvage"
diag "$big cut at byte $cut (packet $((npackets / 2 + 1)) of $npackets)"

rc=0
"$analyze" --json "$tmp/cut" -o "$tmp/r.json" 2>"$tmp/err" || rc=$?
is "$rc" 1 "the trace cut short: exit 1" || diag "$(cat "$tmp/err")"
grep -q "$big is cut short" "$tmp/err"
ok $? "the error names the cut file, $big" || diag "$(cat "$tmp/err")"
read -r events complete decode < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trace"]
print(t["events"], t["complete"], "set" if t["decode_error"] else "null")' "$tmp/r.json")
is "${events:-}" "$want" "it reads every event of the whole packets ($want of $all, as babeltrace2 on a copy cut at the packet boundary)"
[[ ${complete:-} == False && ${decode:-} == set ]]
ok $? "the JSON report says incomplete, with a decode_error" || diag "complete=${complete:-} decode_error=${decode:-}"
[[ $(sums "$ctrace") == "$sum_before" ]]
ok $? "the analyzer leaves the cut trace as it was"
[[ -z $(find "$TMPDIR" -maxdepth 1 -name 'fjtrace-salvage-*') ]]
ok $? "no salvage copy is left behind"

# The same cut without LTTng's index, or with an index that disagrees with
# another stream (read without it): the headers alone say the file is cut
# (issue 24: the campaign's index-size@...+trunc@fjtrace_offcpu_1 gave exit
# 0 and figures of a trace without that stream's last packet).
for how in "no index" "a damaged index"; do
    rm -rf "$tmp/cut2"
    cp -r "$tmp/cut" "$tmp/cut2"
    c2=${ctrace/$tmp\/cut/$tmp/cut2}
    if [[ $how == "no index" ]]; then
        rm -r "$c2/index"
    else
        for other in "$c2"/index/*.idx; do [[ $other != */$big.idx ]] && break; done
        python3 -c 'import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(24)
    f.write(struct.pack(">QQ", 1 << 63, 1 << 63))' "$other"
    fi
    rc=0
    "$analyze" --json "$tmp/cut2" -o "$tmp/r2.json" 2>"$tmp/err2" || rc=$?
    is "$rc" 1 "$how: the trace cut short: exit 1" || diag "$(cat "$tmp/err2")"
    grep -q "$big is cut short" "$tmp/err2"
    ok $? "$how: the warning names the cut file, $big" || diag "$(cat "$tmp/err2")"
    events=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trace"]["events"])' \
        "$tmp/r2.json")
    is "${events:-}" "$want" "$how: every event of the whole packets ($want)"
done
done_testing
