#!/usr/bin/env bash
# A recording whose lociprof is killed (SIGKILL: no cleanup) reads back up
# to about a second before the kill: the recorder flushes once a second.
. "$(dirname "$0")/lib.sh"
MB="$TOP/microbench"

# a slow sampling rate: a few events a second, far below one compression chunk
bash -c 'timeout -s KILL 3.5 "$@" > /dev/null 2>&1; :' _ "$LOCIPROF" record -q -c 50000000 \
	-o "$TMP/k.data" "$MB/false-sharing" --threads 2 --iters 400000000 2> /dev/null
pkill -KILL -f "false-sharing --threads 2 --iters 400000000" 2>/dev/null
"$LOCIPROF" script -i "$TMP/k.data" > "$TMP/k.txt" 2> "$TMP/k.err"; rc=$?
n=$(grep -c ' sample ' "$TMP/k.txt")
if [ $rc != 0 ] && grep -q 'truncated data file' "$TMP/k.err" && [ "$n" -ge 10 ]; then
	ok "a SIGKILLed record reads back to the last flush ($n samples), then says it was cut short"
else
	fail "SIGKILLed record reads back" "exit $rc, $n samples: $(head -c 300 "$TMP/k.err")"
fi
