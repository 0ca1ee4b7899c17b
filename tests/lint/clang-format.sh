#!/bin/bash
# Every tracked C file is laid out as .clang-format says (clang-format
# --dry-run --Werror); fix with `clang-format -i FILE`.
#   usage: clang-format.sh SOURCE_ROOT
. "$(dirname "$0")/lib.sh"
need clang-format
mapfile -t files < <(tracked_c_files)
# One clang-format over every file first: each file is formatted on its
# own (its own .clang-format lookup), and the exit status is 0 only if
# every one is clean. A process per file cost 10.2 s for 198 files here,
# one for all 1.3 s. When that run says anything, or fails, every file is
# checked on its own as before, so that each check names its own file's
# diagnostics (an unreadable file's error does not name it).
all=$(clang-format --dry-run --Werror -- "${files[@]}" 2>&1)
st=$?
for f in "${files[@]}"; do
    if (( st == 0 )) && [[ -z $all ]]; then
        ok 0 "$f is clang-format clean"
        continue
    fi
    out=$(clang-format --dry-run --Werror "$f" 2>&1)
    ok $? "$f is clang-format clean" || diag "$(head -n 20 <<<"$out")"
done
done_testing
