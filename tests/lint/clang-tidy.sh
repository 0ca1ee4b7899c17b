#!/bin/bash
# Every tracked C file this build compiles passes clang-tidy with the checks
# of .clang-tidy (bugprone-*, exclusions with their reasons there), with the
# build's own flags from compile_commands.json.
#   usage: clang-tidy.sh SOURCE_ROOT BUILD_ROOT
. "$(dirname "$0")/lib.sh"
BUILD=${2:?usage: $0 SOURCE_ROOT BUILD_ROOT}
need clang-tidy
[ -f "$BUILD/compile_commands.json" ] || bail_out "no $BUILD/compile_commands.json"
# The tracked files the build compiles, by path relative to the source root.
compiled=$(python3 - "$BUILD/compile_commands.json" "$SRC" <<'PY'
import json, os, sys
src = os.path.realpath(sys.argv[2])
for e in json.load(open(sys.argv[1])):
    p = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if p.startswith(src + os.sep):
        print(os.path.relpath(p, src))
PY
) || bail_out "cannot read $BUILD/compile_commands.json"
while IFS= read -r f; do
    grep -qxF -- "$f" <<<"$compiled" || continue
    out=$(clang-tidy -p "$BUILD" --quiet --warnings-as-errors='*' "$f" 2>&1)
    ok $? "$f passes clang-tidy (.clang-tidy: bugprone-*)" || diag "$(grep -A3 -E 'warning:|error:' <<<"$out" | head -n 40)"
done < <(tracked_c_files | grep '\.c$')
done_testing
