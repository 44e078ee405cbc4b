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

# a program that cannot be run is named, with a shell's exit codes
"$LOCIPROF" comdetect -q "$TMP" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 126 ] && grep -q "cannot run '$TMP': it is a directory" "$TMP/err" &&
	ok "a directory as the program: exit 126 naming it" || fail "a directory as the program" "exit $rc: $(cat "$TMP/err")"
printf 'x' > "$TMP/noexec"; chmod 644 "$TMP/noexec"
"$LOCIPROF" record -q -o "$TMP/x.data" "$TMP/noexec" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 126 ] && grep -q "cannot run '$TMP/noexec'" "$TMP/err" &&
	ok "a file without execute permission: exit 126 naming it" || fail "no execute permission" "exit $rc: $(cat "$TMP/err")"
# EPERM says why from what the machine shows, never a file that is not there
"$LOCIPROF" record -q -p 1 -o "$TMP/x.data" > /dev/null 2> "$TMP/err"; rc=$?
if [ $rc != 0 ]; then
	if grep -q 'yama' "$TMP/err" && [ ! -e /proc/sys/kernel/yama/ptrace_scope ]; then
		fail "attach refused: the reason" "names yama, which this kernel lacks: $(cat "$TMP/err")"
	else
		ok "attach to pid 1 refused with a reason: $(sed 's/.*(//; s/).*//' "$TMP/err" | head -1)"
	fi
else
	skip "attach to pid 1 refused" "this machine lets lociprof trace pid 1"
fi
"$LOCIPROF" record -q -p 0 > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q -- '--pid expects 1..' "$TMP/err" && ok "-p 0 is a bad pid, not 'no program'" ||
	fail "-p 0" "exit $rc: $(cat "$TMP/err")"
(cd "$TMP" && "$LOCIPROF" record -q -o - "$TMP/marker-prog" > /dev/null 2> "$TMP/err"); rc=$?
[ $rc = 129 ] && [ ! -e "$TMP/-" ] && grep -q -- '-o - : a data file is binary' "$TMP/err" &&
	ok "record -o - is refused, no file named '-'" || fail "record -o -" "exit $rc: $(cat "$TMP/err")"

# one convention for an input that cannot be read: exit 1, naming the file
for c in "report -i $TMP/none" "compare $TMP/none $TMP/none" "pebs-ibs-compare --merge $TMP/none" "script -i $TMP/none"; do
	"$LOCIPROF" $c > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 1 ] && grep -q "$TMP/none" "$TMP/err" && ok "${c%% *}: unreadable input exits 1 naming it" ||
		fail "${c%% *}: unreadable input" "exit $rc: $(head -c 200 "$TMP/err")"
done

# Ctrl-C on a launched program: lociprof stops it with SIGTERM and says so (not "killed by signal 15")
"$LOCIPROF" record -o "$TMP/int.data" "$TOP/test/helpers/exiter" sleep > /dev/null 2> "$TMP/int.err" &
lp=$!
sleep 1
kill -INT $lp
wait $lp; rc=$?
# (SIGTERM, or SIGKILL when SIGTERM did not end it within 2 s: both are said)
if { [ $rc = 143 ] && grep -q 'stopped the program with SIGTERM on Ctrl-C; exit 143' "$TMP/int.err"; } ||
   { [ $rc = 137 ] && grep -q 'stopped the program with SIGKILL (SIGTERM did not end it in 2 s) on Ctrl-C; exit 137' "$TMP/int.err"; }; then
	grep -q 'killed by signal' "$TMP/int.err" && fail "Ctrl-C note" "also says killed by signal" ||
		ok "Ctrl-C: lociprof says how it stopped the program (exit $rc)"
else
	fail "Ctrl-C note" "exit $rc: $(grep lociprof: "$TMP/int.err")"
fi

# -p: CPU time and the sample rate count from the attach, not from the process start
"$TOP/test/helpers/spin" &
sp=$!
sleep 2.5
"$LOCIPROF" record -o "$TMP/p.data" -p $sp > /dev/null 2> "$TMP/p.err" &
lp=$!
sleep 1.5
kill -INT $lp
wait $lp
kill $sp; wait $sp 2>/dev/null
cpu=$(sed -n 's/^\[ \([0-9.]*\) s of thread CPU time.*/\1/p' "$TMP/p.err")
if [ -n "$cpu" ] && python3 -c "import sys; sys.exit(0 if 0.3 < float('$cpu') < 2.3 else 1)"; then
	ok "-p: $cpu s of thread CPU time for 1.5 s attached (2.5 s ran before)"
else
	fail "-p counts CPU time from the attach" "'$cpu' s: $(grep 'CPU time' "$TMP/p.err")"
fi

# the program's stdout is its own: a report never lands in a file the program wrote
"$LOCIPROF" comdetect head -c 100000 /dev/zero > "$TMP/prog.out" 2> "$TMP/prog.err"; rc=$?
size=$(stat -c %s "$TMP/prog.out"); zeros=$(tr -d '\0' < "$TMP/prog.out" | wc -c)
[ $rc = 0 ] && [ "$size" = 100000 ] && [ "$zeros" = 0 ] && grep -q '^# lociprof comdetect: head' "$TMP/prog.err" &&
	ok "comdetect: the program's stdout file holds only its output; the report went to stderr" ||
	fail "program stdout untouched" "exit $rc, $size bytes, $zeros not from the program"
"$LOCIPROF" comdetect --report "$TMP/rep.txt" head -c 1000 /dev/zero > "$TMP/prog.out" 2> /dev/null; rc=$?
[ $rc = 0 ] && [ "$(stat -c %s "$TMP/prog.out")" = 1000 ] && grep -q 'Top cache lines' "$TMP/rep.txt" &&
	ok "--report FILE: the text report in FILE, stdout the program's" || fail "--report FILE" "exit $rc"
