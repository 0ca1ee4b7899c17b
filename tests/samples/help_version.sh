#!/bin/bash
# Every command answers --help (usage and its exit codes on stdout, exit 0)
# and --version ("NAME VERSION", the project's version, exit 0).
#   usage: help_version.sh VERSION CMD...
. "$(dirname "$0")/../tap.sh"
set -u
version=$1
shift
for cmd in "$@"; do
  name=$(basename "$cmd")
  out=$("$cmd" --help 2>&1); rc=$?
  [[ $rc == 0 ]] && grep -qi '^usage' <<<"$out" && grep -qi 'exit' <<<"$out" &&
    grep -q '\b2\b' <<<"$(grep -i -A20 'exit' <<<"$out")"
  ok $? "$name --help exits 0 with a usage and the exit codes (2 among them)" || diag "exit $rc: $out"
  out=$("$cmd" --version 2>&1); rc=$?
  [[ $rc == 0 && $out == "$name $version" ]]
  ok $? "$name --version exits 0 and prints '$name $version'" || diag "exit $rc: '$out'"
done
done_testing
