#!/bin/bash
# meson install into a temporary destdir; build an external program against
# the installed fj.pc (shared and static), run it, and trace it with the
# installed fjtrace-record.
set -u
build=$1 src=$2
tmp=$(mktemp -d /tmp/fjtrace-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
meson install -C "$build" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$tmp/root$prefix"
pc=$(dirname "$(find "$root" -name fj.pc | head -n 1)")
[ -n "$pc" ] || { echo "FAIL: fj.pc not installed"; exit 1; }
for f in include/fj.h include/fj/fjtrace_tp.h bin/fjtrace-record bin/fjtrace-sweep bin/fjtrace-analyze share/man/man1/fjtrace-analyze.1 share/man/man1/fjtrace-record.1 share/man/man1/fjtrace-sweep.1 share/doc/fjtrace/runtime.md share/doc/fjtrace/events.md; do
  [ -e "$root/$f" ] || { echo "FAIL: $f not installed"; fail=1; }
done
[ -e "$pc/../libfj.a" ] && [ -e "$pc/../libfj.so" ] || { echo "FAIL: shared or static libfj not installed"; fail=1; }
export PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR="$tmp/root"
read -r -a fj_flags <<<"$(pkg-config --cflags --libs fj)"
cc -std=c11 -Wall -Wextra -Werror "$src" "${fj_flags[@]}" -o "$tmp/hello" || { echo "FAIL: build against fj.pc"; exit 1; }
libdir=$(pkg-config --variable=libdir fj) # sysroot already applied
# Static: the archive by path, plus what fj.pc says a static link needs.
read -r -a fj_cflags <<<"$(pkg-config --cflags fj)"
read -r -a fj_static_libs <<<"$(pkg-config --static --libs fj | sed 's/-lfj\b//')"
cc -std=c11 "$src" "${fj_cflags[@]}" "$libdir/libfj.a" "${fj_static_libs[@]}" -o "$tmp/hello-static" || { echo "FAIL: static build against fj.pc"; fail=1; }
LD_LIBRARY_PATH="$libdir" "$tmp/hello" | grep -q '^sum = 499999500000$' || { echo "FAIL: external program"; fail=1; }
"$tmp/hello-static" | grep -q '^sum = 499999500000$' || { echo "FAIL: static external program"; fail=1; }
LD_LIBRARY_PATH="$libdir" "$root/bin/fjtrace-record" --cmd-only -o "$tmp/trace" -- "$tmp/hello" >/dev/null 2>"$tmp/rec.err" || { echo "FAIL: recording"; cat "$tmp/rec.err"; fail=1; }
forks=$(babeltrace2 "$tmp/trace" 2>/dev/null | grep -c 'fjtrace:fork:')
# 1,000,000 by halving to <= 1000: 1023 splits, one fork each.
[ "$forks" = 1023 ] || { echo "FAIL: traced external program: $forks forks, want 1023"; fail=1; }
[ $fail = 0 ] && echo "install: headers, libs, fj.pc, tools installed; external program built, ran and traced ($forks forks)"
exit $fail
