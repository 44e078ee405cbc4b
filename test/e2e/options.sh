#!/usr/bin/env bash
# Profiling options the kernel would refuse are refused up front, naming the
# limit, before any program runs (a refused period used to run with 0 samples
# and exit 0).
. "$(dirname "$0")/lib.sh"

check_refused() {	# NAME WANT-IN-STDERR ARGS...
	local name=$1 want=$2; shift 2
	"$LOCIPROF" record -q -o "$TMP/x.data" "$@" "$TMP/marker-prog" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc = 129 ] && grep -q -- "$want" "$TMP/err" && [ ! -e "$TMP/x.data" ]; then
		ok "$name"
	else
		fail "$name" "exit $rc, data file $( [ -e "$TMP/x.data" ] && echo written || echo absent): $(head -c 200 "$TMP/err")"
	fi
	rm -f "$TMP/x.data"
}
printf '#!/bin/sh\ntrue\n' > "$TMP/marker-prog"; chmod +x "$TMP/marker-prog"

check_refused "-c 0 is refused" "--count expects an integer of at least 1" -c 0
check_refused "-F 0 is refused" "--freq expects an integer of at least 1" -F 0
check_refused "-c above 2^63-1 is refused with the kernel's limit" "above the largest period the kernel takes" -c 9223372036854775808
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)
if [ -n "$max" ]; then
	check_refused "-F above perf_event_max_sample_rate ($max) is refused naming it" "perf_event_max_sample_rate ($max" -F $((max + 1))
else
	skip "-F above perf_event_max_sample_rate" "no /proc/sys/kernel/perf_event_max_sample_rate"
fi
check_refused "-p 99999999999 is refused, not truncated" "--pid expects 1..4194304" -p 99999999999
