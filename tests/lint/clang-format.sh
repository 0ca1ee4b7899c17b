#!/bin/bash
# Every tracked C file is laid out as .clang-format says (clang-format
# --dry-run --Werror); fix with `clang-format -i FILE`.
#   usage: clang-format.sh SOURCE_ROOT
. "$(dirname "$0")/lib.sh"
need clang-format
while IFS= read -r f; do
    out=$(clang-format --dry-run --Werror "$f" 2>&1)
    ok $? "$f is clang-format clean" || diag "$(head -n 20 <<<"$out")"
done < <(tracked_c_files)
done_testing
