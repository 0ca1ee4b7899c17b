#!/bin/bash
# Every command answers --help (usage and its exit codes on stdout, exit 0)
# and --version ("NAME VERSION", the project's version, exit 0).
#   help_version.sh VERSION CMD...
set -u
version=$1
shift
fail=0
for cmd in "$@"; do
  name=$(basename "$cmd")
  out=$("$cmd" --help 2>&1); rc=$?
  if [[ $rc != 0 ]] || ! grep -qi '^usage' <<<"$out" || ! grep -qi 'exit' <<<"$out" ||
    ! grep -q '\b2\b' <<<"$(grep -i -A20 'exit' <<<"$out")"; then
    echo "FAIL $name --help (exit $rc): no usage or no exit codes"; fail=1
  fi
  out=$("$cmd" --version 2>&1); rc=$?
  if [[ $rc != 0 || $out != "$name $version" ]]; then
    echo "FAIL $name --version (exit $rc): '$out', want '$name $version'"; fail=1
  fi
  [[ $fail == 0 ]] && echo "ok $name: --help lists exit codes, --version '$out'"
done
exit $fail
