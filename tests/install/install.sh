#!/bin/bash
# meson install into a temporary destdir; build an external program against
# the installed fj.pc (shared and static), run it, and trace it with the
# installed fjtrace-record.
. "$(dirname "$0")/../tap.sh"
set -u
build=$1 src=$2
tmp=$(mktemp -d /tmp/fjtrace-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1 ||
  { diag "$(cat "$tmp/install.log")"; bail_out "meson install failed"; }
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$tmp/root$prefix"
pc=$(dirname "$(find "$root" -name fj.pc | head -n 1)")
[ -n "$pc" ] || bail_out "fj.pc not installed"
for f in include/fj.h include/fj/fjtrace_tp.h bin/fjtrace-record bin/fjtrace-sweep bin/fjtrace-analyze share/man/man1/fjtrace-analyze.1 share/man/man1/fjtrace-record.1 share/man/man1/fjtrace-sweep.1 share/doc/fjtrace/runtime.md share/doc/fjtrace/events.md; do
  [ -e "$root/$f" ]
  ok $? "$f is installed"
done
[ -e "$pc/../libfj.a" ] && [ -e "$pc/../libfj.so" ]
ok $? "the shared and the static libfj are installed"
export PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR="$tmp/root"
read -r -a fj_flags <<<"$(pkg-config --cflags --libs fj)"
cc -std=c11 -Wall -Wextra -Werror "$src" "${fj_flags[@]}" -o "$tmp/hello"
ok $? "an external program builds against the installed fj.pc" || bail_out "nothing to run"
libdir=$(pkg-config --variable=libdir fj) # sysroot already applied
# Static: the archive by path, plus what fj.pc says a static link needs.
read -r -a fj_cflags <<<"$(pkg-config --cflags fj)"
read -r -a fj_static_libs <<<"$(pkg-config --static --libs fj | sed 's/-lfj\b//')"
cc -std=c11 "$src" "${fj_cflags[@]}" "$libdir/libfj.a" "${fj_static_libs[@]}" -o "$tmp/hello-static"
ok $? "it links statically with what fj.pc says a static link needs"
LD_LIBRARY_PATH="$libdir" "$tmp/hello" | grep -q '^sum = 499999500000$'
ok $? "the external program runs on the installed libfj and sums right"
"$tmp/hello-static" | grep -q '^sum = 499999500000$'
ok $? "the static external program runs and sums right"
LD_LIBRARY_PATH="$libdir" "$root/bin/fjtrace-record" --cmd-only -o "$tmp/trace" -- "$tmp/hello" >/dev/null 2>"$tmp/rec.err"
ok $? "the installed fjtrace-record records it" || diag "$(cat "$tmp/rec.err")"
# 1,000,000 by halving to <= 1000: 1023 splits, one fork each.
is "$(babeltrace2 "$tmp/trace" 2>/dev/null | grep -c 'fjtrace:fork:')" 1023 \
  "the traced external program forks 1023 times (1,000,000 halved down to 1000)"
# OpenMP: the installed recorder finds the installed OMPT tool by itself.
if [ -e "$libdir/libfjtrace-omp.so" ] && [ -x "$root/bin/omp-fib" ]; then
  env -u FJTRACE_OMP_TOOL "$root/bin/fjtrace-record" --openmp --cmd-only -o "$tmp/omp" -- \
    "$root/bin/omp-fib" 10 -p 2 >/dev/null 2>"$tmp/omp.err"
  ok $? "the installed fjtrace-record --openmp finds the installed tool and records omp-fib" ||
    diag "$(cat "$tmp/omp.err")"
  is "$(babeltrace2 "$tmp/omp" 2>/dev/null | grep -c 'fjtrace:fork:')" 176 \
    "the installed omp-fib 10 creates 2F(11)-2 = 176 tasks"
else
  skip 2 "built without the OMPT tool (-Dompt)"
fi
done_testing
