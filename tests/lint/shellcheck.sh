#!/bin/bash
# Every tracked shell script passes `shellcheck -S warning` (.shellcheckrc
# at the top lets it follow the files a script sources).
#   usage: shellcheck.sh SOURCE_ROOT
. "$(dirname "$0")/lib.sh"
need shellcheck
while IFS= read -r f; do
    out=$(shellcheck -S warning "$f" 2>&1)
    ok $? "$f passes shellcheck -S warning" || diag "$(head -n 30 <<<"$out")"
done < <(tracked_shell_scripts)
done_testing
