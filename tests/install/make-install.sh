#!/bin/bash
# make install PREFIX=... DESTDIR=... and make uninstall (README.md): the
# tools installed under another prefix find each other and the OMPT tool
# relative to themselves, and uninstall leaves nothing behind. The build's
# prefix is set back afterwards.
#   bash make-install.sh SRCDIR BUILD
. "$(dirname "$0")/../tap.sh"
set -u
src=$1 build=$(cd "$2" && pwd -P)
tmp=$(mktemp -d /tmp/fjtrace-make-install.XXXXXX)
prefix_of() {
  meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))'
}
old_prefix=$(prefix_of)
# The prefix set back, and the build regenerated with it (no recompiling):
# a later `meson install --no-rebuild` would install under this test's one.
trap 'meson configure "$build" -Dprefix="$old_prefix" >/dev/null 2>&1; ninja -C "$build" build.ninja >/dev/null 2>&1; rm -rf "$tmp"' EXIT
prefix=/opt/fjtrace-test-$$
root=$tmp/root$prefix
make -C "$src" --no-print-directory BUILD="$build" PREFIX="$prefix" DESTDIR="$tmp/root" install \
  >"$tmp/install.log" 2>&1
ok $? "make install PREFIX=$prefix DESTDIR=... succeeds" || diag "$(tail -n 20 "$tmp/install.log")"
is "$(prefix_of)" "$prefix" "the build is configured for PREFIX"
for f in bin/fjtrace-record bin/fjtrace-analyze bin/fjtrace-top bin/fjtrace-sweep include/fj.h \
         include/fj_version.h share/man/man1/fjtrace-record.1 share/doc/fjtrace/tutorial.md; do
  [ -e "$root/$f" ]
  ok $? "$f is installed under DESTDIR/PREFIX"
done
libdir=$(dirname "$(find "$root" -name libfj.so -print -quit)")
# The installed tools, run from DESTDIR (a relocated install): no
# FJTRACE_* variable, the tool found beside bin/ as lib*/libfjtrace-omp.so.
env -u FJTRACE_OMP_TOOL LD_LIBRARY_PATH="$libdir" "$root/bin/fjtrace-record" --openmp \
  -o "$tmp/omp" -- "$root/bin/omp-fib" 10 -p 2 >/dev/null 2>"$tmp/omp.err"
ok $? "the installed fjtrace-record --openmp finds the installed OMPT tool" ||
  diag "$(cat "$tmp/omp.err")"
"$root/bin/fjtrace-analyze" --json "$tmp/omp" >"$tmp/omp.json" 2>"$tmp/an.err"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["pools"][0]["totals"]["forks"] != 176)' \
  "$tmp/omp.json"
ok $? "the installed fjtrace-analyze counts omp-fib 10's 176 forks" || diag "$(cat "$tmp/an.err")"
v=$("$root/bin/fjtrace-sweep" --version)
is "$v" "fjtrace-sweep $(cat "$src/VERSION")" "the installed fjtrace-sweep reads the installed VERSION"
make -C "$src" --no-print-directory BUILD="$build" DESTDIR="$tmp/root" uninstall >"$tmp/un.log" 2>&1
ok $? "make uninstall succeeds" || diag "$(cat "$tmp/un.log")"
left=$(find "$tmp/root" 2>/dev/null | head -n 5)
is "$left" "" "make uninstall leaves nothing under DESTDIR (every file, every folder it made)"
done_testing
