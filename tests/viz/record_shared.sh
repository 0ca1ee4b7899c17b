#!/bin/bash
# The viz suite's shared recording (shared.sh): fj-fib 18 -p 2, whole
# (--blocking), into $VIZ_SHARED/fib18-p2, stamped with this run of meson
# test; viz-pictures, viz-chromium and viz-same-report read it.
#   record_shared.sh SRCDIR FIB
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/shared.sh"
set -uo pipefail
src=$1 fib=$2
[[ -n ${VIZ_SHARED:-} ]] || bail_out "VIZ_SHARED is not set (meson sets it)"
shared=$VIZ_SHARED/fib18-p2
rm -rf -- "$shared" "$shared.run" "$shared.new" && mkdir -p -- "$VIZ_SHARED"
"$src/scripts/fjtrace-record" --cmd-only --blocking --no-count -o "$shared.new" -- "$fib" 18 -p 2 \
  >/dev/null 2>"$VIZ_SHARED/record.err"
st=$?
(( st == 120 || st == 121 )) && plan_skip_all "no usable lttng: $(head -1 "$VIZ_SHARED/record.err")"
ok $st "fjtrace-record records fj-fib 18 -p 2 for the suite" || diag "$(cat "$VIZ_SHARED/record.err")"
! grep -q WARNING "$VIZ_SHARED/record.err"
ok $? "the shared recording is whole (no loss reported)" || diag "$(cat "$VIZ_SHARED/record.err")"
mv -- "$shared.new" "$shared" && run_stamp >"$shared.run"
ok $? "the shared recording is stamped with this run of meson test"
done_testing
