# Shared by the lint tests: TAP, and the tracked files of the source tree.
# shellcheck shell=bash
. "$(dirname "$0")/../tap.sh"
set -u
SRC=${1:?usage: $0 SOURCE_ROOT [BUILD_ROOT]}
cd "$SRC" || bail_out "no source tree at $SRC"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || plan_skip_all "$SRC is not a git checkout"

# tracked_c_files: every tracked C source and header, one a line.
tracked_c_files() {
    git ls-files -- '*.c' '*.h'
}

# tracked_shell_scripts: every tracked *.sh and every tracked file whose
# first line is a sh or bash shebang, one a line.
tracked_shell_scripts() {
    local f
    git ls-files | while IFS= read -r f; do
        [ -f "$f" ] || continue
        case $f in
        *.sh) echo "$f" ;;
        *) head -n 1 "$f" 2>/dev/null | grep -Eq '^#!.*(/|env )(ba)?sh( |$)' && echo "$f" ;;
        esac
    done
}

# need TOOL: skips the whole test when TOOL is missing (scripts/install-deps
# installs it).
need() {
    command -v "$1" >/dev/null || plan_skip_all "$1 is not installed (scripts/install-deps)"
}
