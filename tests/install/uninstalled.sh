#!/bin/bash
# The build tree used as it is, with nothing installed (README.md): in
# `meson devenv -C BUILD` the tools are on PATH, find each other and the
# OMPT tool relative to themselves (no FJTRACE_* variable set), the man
# pages are on MANPATH, and `pkg-config fj-uninstalled` compiles and links a
# program against the build's libfj.
#   bash uninstalled.sh BUILD HELLO_C
. "$(dirname "$0")/../tap.sh"
set -u
build=$1 src=$2
tmp=$(mktemp -d /tmp/fjtrace-uninstalled.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# A shell of `meson devenv`, in $tmp, without the variables the test suite
# and the demo use to point the tools at each other.
devenv() {
  # TMPDIR: what fjtrace-top keeps (its relay folder) goes with $tmp
  env -u FJTRACE_OMP_TOOL -u FJTRACE_RECORD TMPDIR="$tmp" meson devenv -C "$build" -w "$tmp" "$@"
}

# Where each tool and man page is found, asked in one devenv shell (a
# meson devenv takes ~1 s to start): "path NAME WHERE" and "man NAME WHERE".
tools=(fjtrace-record fjtrace-analyze fjtrace-top fjtrace-sweep fj-fib omp-fib)
pages=(fjtrace-record fjtrace-analyze fjtrace-top fjtrace-sweep)
# shellcheck disable=SC2016 # expanded by the devenv shell
found=$(devenv bash -c 'for t in "$@"; do echo "path $t $(command -v "$t")"
  echo "man $t $(man -w "$t" 2>/dev/null)"; done' - "${tools[@]}" 2>/dev/null)
for t in "${tools[@]}"; do
  where=$(awk -v t="$t" '$1 == "path" && $2 == t { print $3 }' <<<"$found")
  [[ $where == "$(cd "$build" && pwd -P)"/* ]]
  ok $? "meson devenv puts the build's $t on PATH ($where)"
done
for page in "${pages[@]}"; do
  awk -v p="$page" '$1 == "man" && $2 == p { print $3 }' <<<"$found" | grep -q "/docs/man/man1/$page.1"
  ok $? "man $page finds the build's page in meson devenv"
done
v=$(devenv fjtrace-record --version 2>&1)
is "$v" "fjtrace-record $(cat "$(dirname "$0")/../../VERSION")" "the build tree's fjtrace-record says the project's version"

# --openmp: the tool found relative to build/scripts/fjtrace-record.
devenv fjtrace-record --openmp -o omp -- omp-fib 10 -p 2 >/dev/null 2>"$tmp/omp.err"
ok $? "fjtrace-record --openmp finds the build's OMPT tool by itself" || diag "$(cat "$tmp/omp.err")"
is "$(babeltrace2 "$tmp/omp" 2>/dev/null | grep -c 'fjtrace:fork:')" 176 \
  "omp-fib 10 recorded from the build tree creates 2F(11)-2 = 176 tasks"
devenv fjtrace-analyze --json omp >"$tmp/omp.json" 2>"$tmp/an.err"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["pools"][0]["totals"]["forks"] != 176)' "$tmp/omp.json"
ok $? "fjtrace-analyze of it counts the 176 forks" || diag "$(cat "$tmp/an.err")"

# fjtrace-top starts the build's fjtrace-record (beside it: build/scripts/).
devenv timeout 120 fjtrace-top --batch --interval 0.3 --cmd-output top.log -- fj-fib 20 -p 2 \
  >"$tmp/top.out" 2>"$tmp/top.err"
ok $? "fjtrace-top -- fj-fib runs through the build's fjtrace-record" ||
  diag "$(cat "$tmp/top.err" "$tmp/top.log" 2>/dev/null)"
grep -q 'fjtrace-analyze report' "$tmp/top.out"
ok $? "fjtrace-top ends with the final report"
grep -q '^  offcpu >N%: a lower bound: ' "$tmp/top.out"
ok $? "fjtrace-top says on screen that its offcpu column is a lower bound"

# fjtrace-sweep finds the build's fjtrace-record and fjtrace-analyze.
devenv fjtrace-sweep -p 1,2 --record sweep -- fj-fib 18 >"$tmp/sweep.out" 2>"$tmp/sweep.err"
ok $? "fjtrace-sweep --record runs in the build tree" || diag "$(cat "$tmp/sweep.err")"
[[ $(grep -c '^pool ' "$tmp/sweep.out") -eq 2 ]]
ok $? "fjtrace-sweep analyses its two traces with the build's fjtrace-analyze" ||
  diag "$(cat "$tmp/sweep.out")"

# README.md's first screen, as typed: its fjtrace-record and fjtrace-analyze
# lines on the samples (not those on the reader's own my-app, nor the
# interactive fjtrace-top), in that order, in one devenv shell.
readme=$(dirname "$0")/../../README.md
mapfile -t lines < <(awk '/^```/{n++; next} n == 1' "$readme" |
  grep -E '^fjtrace-(record|analyze) ' | grep -v 'my-' | sed 's/ *#.*//')
[[ ${#lines[@]} -ge 3 ]]
ok $? "README.md's first screen has its sample commands (${#lines[@]})"
for line in "${lines[@]}"; do
  devenv bash -c "$line" >"$tmp/readme.out" 2>&1
  ok $? "README, as typed in meson devenv: $line" || diag "$(tail -n 20 "$tmp/readme.out")"
done
[[ -s $tmp/fib.html && -n $(ls "$tmp/fib-trees" 2>/dev/null) ]]
ok $? "the README's commands wrote fib.html and fib-trees/"

# fj-uninstalled.pc: what a project using libfj as a subproject compiles with.
export PKG_CONFIG_PATH=$build/meson-uninstalled
read -r -a flags <<<"$(pkg-config --cflags --libs fj-uninstalled)"
cc -std=c11 -Wall -Wextra -Werror "$src" "${flags[@]}" -o "$tmp/hello" 2>"$tmp/cc.err"
ok $? "#include <fj.h> compiles and links with pkg-config fj-uninstalled" ||
  diag "$(cat "$tmp/cc.err")"
LD_LIBRARY_PATH=$build/runtime "$tmp/hello" | grep -q '^sum = 499999500000$'
ok $? "the program built against fj-uninstalled runs on the build's libfj and sums right"
done_testing
