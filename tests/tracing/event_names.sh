#!/bin/bash
# fjtrace-record enables the fjtrace events by initial letter, all but o,
# and fjtrace:offcpu* in a channel of their own (scripts/fjtrace-record):
# every event of the provider must start with a letter other than o, or
# with offcpu (TAP).
# usage: event_names.sh FJTRACE_TP_H
. "$(dirname "$0")/../tap.sh"
names=$(grep -oE 'LTTNG_UST_TRACEPOINT_EVENT(_INSTANCE)?\(fjtrace, [a-z_0-9]+(, fjtrace, [a-z_0-9]+)?' "$1" |
    sed -E 's/.*fjtrace, ([a-z_0-9]+)$/\1/' | sort -u)
n=$(wc -w <<<"$names")
[ "$n" -ge 20 ]
ok $? "the provider's events are found ($n)"
bad=$(grep -vE '^([a-np-z]|offcpu)' <<<"$names" | tr '\n' ' ')
[ -z "$bad" ]
ok $? "each is recorded by fjtrace-record: starts with a letter a-n or p-z, or is offcpu* (not: $bad)"
done_testing
