#!/bin/bash
# The damaged-trace campaign of `make test` (TAP): records a small fj-fib
# trace of many packets and runs damage.py on it, the targeted mutation
# kinds (issue 18) side by side with babeltrace2. The longer campaign
# (>= 1000 inputs) is run by hand with damage.py's options after FIB
# (--campaign N --seed S); see docs/testing.md.
#   damage-test.sh ANALYZE RECORD FIB [DAMAGE.PY OPTIONS]   (a TAP skip when it cannot record)
set -u
analyze=$1 record=$2 fib=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$record" --blocking --subbuf-size 8k --num-subbuf 16 -o "$tmp/orig" -- "$fib" 19 -p 2 \
    >"$tmp/record.log" 2>&1; then
    echo "1..0 # SKIP cannot record here: $(tail -n 1 "$tmp/record.log")"
    exit 0 # a TAP skip: meson takes any other status for an error
fi
python3 "$here/damage.py" "$analyze" "$tmp/orig" "$tmp/work" "$@"
