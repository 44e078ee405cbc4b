#!/usr/bin/env bash
# The tracing engine end to end: attribution of samples to the right
# thread's data, thread churn without descriptor leaks, exit statuses,
# signals, attach/detach, Ctrl-C, damaged files.
. "$(dirname "$0")/lib.sh"
H=$TOP/test/helpers
MB=$TOP/microbench

# --- per thread, samples fall in that thread's array or the shared one
out=$TMP/sr.data
if "$LOCIPROF" record -q -o "$out" "$MB/stream-regions" --threads 3 --iters 40; then
	"$LOCIPROF" script -i "$out" > "$TMP/sr.txt"
	python3 - "$TMP/sr.txt" > "$TMP/sr.res" <<'PY'
import re, sys
idx, tot, good = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'\s*\d+/(\d+)\s+: thread-start\s+index (\d+)', line)
    if m:
        idx[m.group(1)] = int(m.group(2)); continue
    m = re.match(r'\s*\d+/(\d+)\s+\[\d+\].*: sample .* => 0x[0-9a-f]+ (\S+)', line)
    if not m: continue
    tid, obj = m.group(1), re.sub(r'\+0x[0-9a-f]+$', '', m.group(2))
    i = idx.get(tid)
    tot[i] = tot.get(i, 0) + 1
    if obj in ('region%s' % i, 'shared_region'):
        good[i] = good.get(i, 0) + 1
for i in sorted(k for k in tot if k is not None):
    print(i, good.get(i, 0), tot[i])
PY
	n=$(wc -l < "$TMP/sr.res")
	[ "$n" = 3 ] && ok "stream-regions: samples with addresses from all 3 threads" \
		|| fail "stream-regions: samples with addresses from all 3 threads" "got $n threads: $(cat "$TMP/sr.res")"
	while read -r i g t; do
		if [ "$t" -ge 50 ] && [ $((g * 100)) -ge $((t * 95)) ]; then
			ok "stream-regions: thread $i: $g of $t addressed samples in region$i or shared_region"
		else
			fail "stream-regions: thread $i in own or shared array" "$g of $t (need >= 95% of >= 50)"
		fi
	done < "$TMP/sr.res"
else
	fail "stream-regions record" "exit $?"
fi

# --- 2000 short-lived threads: all seen, no descriptor left behind
"$LOCIPROF" record -v -o "$TMP/churn.data" "$MB/thread-churn" --threads 2000 --batch 4 2> "$TMP/churn.err"
rc=$?
[ $rc = 0 ] && ok "thread-churn 2000 exits 0" || fail "thread-churn 2000 exits 0" "exit $rc: $(tail -3 "$TMP/churn.err")"
starts=$("$LOCIPROF" script -i "$TMP/churn.data" --no-symbols | grep -c ': thread-start')
exits=$("$LOCIPROF" script -i "$TMP/churn.data" --no-symbols | grep -c ': thread-exit')
[ "$starts" = 2001 ] && [ "$exits" = 2001 ] && ok "thread-churn: 2001 thread starts and exits recorded" \
	|| fail "thread-churn: every thread recorded" "starts $starts exits $exits (want 2001)"
fds=$(sed -n 's/.*descriptors: \([0-9]*\) at start, \([0-9]*\) at end.*/\1 \2/p' "$TMP/churn.err")
set -- $fds
[ -n "${1:-}" ] && [ "$1" = "$2" ] && ok "thread-churn: descriptors back to $1" \
	|| fail "thread-churn: descriptors back to start" "'$fds'"

# --- exit statuses
"$LOCIPROF" record -q -o "$TMP/e.data" "$H/exiter" 3; rc=$?
[ $rc = 3 ] && ok "target exiting 3 makes lociprof exit 3" || fail "exit 3 passes through" "exit $rc"
"$LOCIPROF" record -o "$TMP/segv.data" "$H/exiter" -11 2> "$TMP/segv.err"; rc=$?
[ $rc = 139 ] && ok "target dying of SIGSEGV makes lociprof exit 139" || fail "SIGSEGV gives 139" "exit $rc"
grep -q 'killed by signal 11' "$TMP/segv.err" && ok "SIGSEGV death is reported" || fail "SIGSEGV death is reported" "$(cat "$TMP/segv.err")"
if "$LOCIPROF" script -i "$TMP/segv.data" > "$TMP/segv.txt" && grep -q ': sample' "$TMP/segv.txt" \
	&& grep -q 'thread-exit .*status' "$TMP/segv.txt"; then
	ok "record of a crashed target is readable, with samples and exits"
else
	fail "record of a crashed target is readable" "$(tail -2 "$TMP/segv.txt")"
fi
"$LOCIPROF" record -q -o "$TMP/n.data" "$TMP/no-such-program" 2> "$TMP/n.err"; rc=$?
[ $rc = 127 ] && grep -q "cannot run" "$TMP/n.err" && ok "missing program: exit 127 with a message" \
	|| fail "missing program" "exit $rc: $(cat "$TMP/n.err")"

# --- the target's own signal handling keeps working (async and held samples)
for mode in --async --sync; do
	"$LOCIPROF" record -q $mode -o "$TMP/sig.data" "$H/signals" > "$TMP/sig.out" 2>&1; rc=$?
	[ $rc = 0 ] && ok "target's SIGTRAP/SIGSEGV/SIGCHLD handlers and blocked signals work ($mode)" \
		|| fail "target's signal handlers work ($mode)" "exit $rc: $(cat "$TMP/sig.out")"
done

# --- attach and detach: the process keeps running, untraced
"$H/exiter" sleep > "$TMP/pid" &
target=$!
sleep 0.3
"$LOCIPROF" record -q -o "$TMP/att.data" -p "$target" &
lp=$!
sleep 1.5
kill -INT $lp
wait $lp; rc=$?
sleep 0.2
if kill -0 "$target" 2>/dev/null && grep -q 'TracerPid:[[:space:]]*0$' "/proc/$target/status" \
	&& ! grep -q 'State:[[:space:]]*[tT]' "/proc/$target/status"; then
	ok "-p: after Ctrl-C the process runs on, untraced"
else
	fail "-p detach leaves the process running" "$(grep -E 'State|TracerPid' /proc/$target/status 2>&1)"
fi
[ $rc = 0 ] && ok "-p: lociprof exits 0 after detaching" || fail "-p exit status" "exit $rc"
n=$("$LOCIPROF" script -i "$TMP/att.data" --no-symbols | grep -c ': sample')
[ "$n" -gt 10 ] && ok "-p: $n samples recorded" || fail "-p records samples" "$n samples"
kill "$target"; wait "$target" 2>/dev/null

# --- Ctrl-C on a forked program: stops it, keeps what was recorded
"$LOCIPROF" record -q -o "$TMP/int.data" "$H/exiter" sleep > /dev/null &
lp=$!
sleep 1
kill -INT $lp
wait $lp; rc=$?
if "$LOCIPROF" script -i "$TMP/int.data" --no-symbols | grep -q ': sample'; then
	ok "Ctrl-C: the recording is complete and readable (exit $rc)"
else
	fail "Ctrl-C keeps the recording" "exit $rc"
fi

# --- a damaged file: a clear error, the events before the damage intact
size=$(stat -c %s "$TMP/att.data")
head -c $((size * 2 / 3)) "$TMP/att.data" > "$TMP/cut.data"
"$LOCIPROF" script -i "$TMP/cut.data" --no-symbols > "$TMP/cut.txt" 2> "$TMP/cut.err"; rc=$?
if [ $rc = 1 ] && [ -s "$TMP/cut.txt" ] && grep -q "error" "$TMP/cut.err"; then
	ok "truncated file: $(wc -l < "$TMP/cut.txt") events, then: $(head -c 120 "$TMP/cut.err")"
else
	fail "truncated file gives events then an error" "exit $rc, $(wc -l < "$TMP/cut.txt") lines, $(cat "$TMP/cut.err")"
fi
printf 'not a lociprof file at all' > "$TMP/junk.data"
"$LOCIPROF" script -i "$TMP/junk.data" > /dev/null 2> "$TMP/junk.err"; rc=$?
[ $rc = 1 ] && grep -q "junk.data" "$TMP/junk.err" && ok "not a data file: $(cat "$TMP/junk.err")" \
	|| fail "not a data file" "exit $rc: $(cat "$TMP/junk.err")"

# --- exec: the new program is followed, its threads and mappings too
"$LOCIPROF" record -q -o "$TMP/exec.data" sh -c "exec $MB/stream-regions --threads 2 --iters 20"; rc=$?
n=$("$LOCIPROF" script -i "$TMP/exec.data" | grep -c ': sample .* region[01]+')
starts=$("$LOCIPROF" script -i "$TMP/exec.data" --no-symbols | grep -c ': thread-start')
if [ $rc = 0 ] && [ "$n" -gt 50 ] && [ "$starts" = 3 ]; then
	ok "exec: $n samples name the new program's arrays; sh, then 2 threads of it"
else
	fail "exec is followed" "exit $rc, $n samples in region0/1, $starts thread starts (want 3)"
fi

# --- an exec inside the program is marked: exit, exec with the new program, start
"$LOCIPROF" record -q -o "$TMP/exec.data" sh -c 'exec /bin/true' 2> /dev/null
seq=$("$LOCIPROF" script -i "$TMP/exec.data" --no-symbols | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^(thread-start|thread-exit|exec)$/) { printf "%s ", $i; if ($i == "exec") printf "%s ", $(i + 1) } }')
case "$seq" in
"thread-start thread-exit exec "*"/true thread-start thread-exit ") ok "exec marked between the old program's exit and the new one's start: $seq" ;;
*) fail "exec marker" "events: $seq" ;;
esac
