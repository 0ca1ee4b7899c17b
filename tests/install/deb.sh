#!/bin/bash
# The Debian package (debian/): dpkg-buildpackage -us -uc -b builds
# fjtrace_*.deb from a copy of the source; lintian finds no error in it; it
# holds the tools, libfj, its headers and fj.pc, the OMPT tool, the man
# pages and the docs; `apt-get install ./fjtrace_*.deb` installs it, the
# installed tools record and analyse a sample (libfj and OpenMP), the README's
# commands run as typed, a program builds against the installed fj.pc; the
# package is then removed. The install part needs root and a system where
# no fjtrace package is installed already (else it is skipped, untouched).
#   bash deb.sh SRCDIR HELLO_C
. "$(dirname "$0")/../tap.sh"
set -u
src=$1 hello=$2
for t in dpkg-buildpackage lintian apt-get; do
  command -v "$t" >/dev/null 2>&1 || { echo "1..0 # SKIP $t is not installed (scripts/install-deps)"; exit 0; }
done
tmp=$(mktemp -d /tmp/fjtrace-deb.XXXXXX)
installed_here=0
cleanup() {
  if (( installed_here )); then
    DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq fjtrace >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# A copy of the tracked source (and of files not yet committed, not ignored):
# dpkg-buildpackage writes its results beside the source folder.
mkdir -p "$tmp/pkg/fjtrace"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -co --exclude-standard -z | grep -zv '^build' |
     tar --null -cf - -T -) | tar -xf - -C "$tmp/pkg/fjtrace"
else
  (cd "$src" && tar --exclude='./build*' --exclude='./obj-*' -cf - .) | tar -xf - -C "$tmp/pkg/fjtrace"
fi
(cd "$tmp/pkg/fjtrace" && nice dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b builds the package" || diag "$(tail -n 30 "$tmp/build.log")"
deb=$(ls "$tmp"/pkg/fjtrace_*_*.deb 2>/dev/null | head -n 1)
[[ -n $deb ]] || bail_out "no fjtrace_*.deb was built"
ok 0 "it is $(basename "$deb")"

# TMPDIR: lintian leaves a scratch file of its own (mldbm-elf-*) behind
TMPDIR="$tmp" lintian --fail-on error "$deb" >"$tmp/lintian.log" 2>&1
ok $? "lintian finds no error in it" || diag "$(grep '^E:' "$tmp/lintian.log")"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
# holds PATTERN: a path of the package matches the glob PATTERN.
holds() {
  local line
  while IFS= read -r line; do
    # shellcheck disable=SC2053 # a glob on purpose
    [[ $line == $1 ]] && return 0
  done <"$tmp/contents"
  return 1
}
for f in /usr/bin/fjtrace-record /usr/bin/fjtrace-analyze /usr/bin/fjtrace-top /usr/bin/fjtrace-sweep \
         /usr/include/fj.h /usr/include/fj_version.h /usr/include/fj/fjtrace_tp.h \
         "/usr/lib/*/libfj.so.0" "/usr/lib/*/libfj.a" "/usr/lib/*/libfjtrace-omp.so" \
         "/usr/lib/*/pkgconfig/fj.pc" /usr/share/man/man1/fjtrace-record.1.gz \
         /usr/share/doc/fjtrace/tutorial.md.gz /usr/share/doc/fjtrace/copyright; do
  holds "$f"
  ok $? "the package holds $f"
done

if [[ $(id -u) -ne 0 ]]; then
  skip 11 "installing needs root"
  done_testing
  exit 0
fi
if dpkg-query -W -f='${Status}' fjtrace 2>/dev/null | grep -q 'ok installed'; then
  skip 11 "a fjtrace package is installed already: not touching it"
  done_testing
  exit 0
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$tmp/apt.log" 2>&1
ok $? "apt-get install ./$(basename "$deb") installs it" || diag "$(tail -n 20 "$tmp/apt.log")"
installed_here=1

# The installed tools alone: a PATH without the build tree, no FJTRACE_*.
run() {
  (cd "$tmp" && env -i HOME="$HOME" PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@")
}
run fjtrace-record -o fib -- fj-fib 15 -p 2 >/dev/null 2>"$tmp/rec.err"
ok $? "the installed fjtrace-record records the installed fj-fib" || diag "$(cat "$tmp/rec.err")"
run fjtrace-analyze --json fib >"$tmp/fib.json" 2>"$tmp/an.err"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["pools"][0]["totals"]["forks"] != 986)' "$tmp/fib.json"
ok $? "the installed fjtrace-analyze counts fib(15)'s F(16)-1 = 986 forks" || diag "$(cat "$tmp/an.err")"
run fjtrace-record --openmp -o omp -- omp-fib 10 -p 2 >/dev/null 2>"$tmp/omp.err"
ok $? "fjtrace-record --openmp finds the installed OMPT tool" || diag "$(cat "$tmp/omp.err")"
is "$(babeltrace2 "$tmp/omp" 2>/dev/null | grep -c 'fjtrace:fork:')" 176 "omp-fib 10 creates 2F(11)-2 = 176 tasks"
run man -w fjtrace-record 2>/dev/null | grep -q '^/usr/share/man/man1/fjtrace-record.1'
ok $? "man fjtrace-record finds the installed page"
# README.md's first screen, as typed, with the installed tools.
mapfile -t lines < <(awk '/^```/{n++; next} n == 1' "$src/README.md" |
  grep -E '^fjtrace-(record|analyze) ' | grep -v 'my-' | sed 's/ *#.*//')
bad=0
for line in "${lines[@]}"; do
  run bash -c "$line" >"$tmp/readme.out" 2>&1 || { bad=1; diag "$line: $(tail -n 5 "$tmp/readme.out")"; }
done
(( ${#lines[@]} >= 3 && bad == 0 )) && [[ -s $tmp/fib.html ]]
ok $? "the README's ${#lines[@]} sample commands work as typed with the installed package"
read -r -a flags <<<"$(run pkg-config --cflags --libs fj)"
cc -std=c11 -Wall -Wextra -Werror "$hello" "${flags[@]}" -o "$tmp/hello" 2>"$tmp/cc.err"
ok $? "a program builds against the installed fj.pc" || diag "$(cat "$tmp/cc.err")"
"$tmp/hello" | grep -q '^sum = 499999500000$'
ok $? "it runs on the installed libfj and sums right"

DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq fjtrace >"$tmp/rm.log" 2>&1
ok $? "apt-get remove --purge fjtrace" || diag "$(tail -n 20 "$tmp/rm.log")"
installed_here=0
[[ ! -e /usr/bin/fjtrace-record && -z $(ls /usr/lib/*/libfj.so* 2>/dev/null) ]]
ok $? "removed: no fjtrace-record, no libfj left"
done_testing
