#!/usr/bin/env bash
# reuse --trace reads valgrind lackey's --trace-mem=yes output, detected by
# content, plain or zstd: the same histograms as the lociprof-trace(5) of
# the same accesses (M = a load then a store, instruction fetches left out).
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind > /dev/null 2>&1; then
	skip "lackey ingestion" "valgrind is not installed"
	exit 0
fi
if ! valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/l.log" /bin/true 2> "$TMP/vg.err"; then
	skip "lackey ingestion" "valgrind --tool=lackey does not run here: $(head -c 200 "$TMP/vg.err")"
	exit 0
fi
# the same accesses written as lociprof-trace(5), by a second reader (awk)
awk '/^==/ || /^I/ { next }
     { split($2, f, ","); a = "0x" f[1] }
     $1 == "L" { print "1 R " a " " f[2] }
     $1 == "S" { print "1 W " a " " f[2] }
     $1 == "M" { print "1 R " a " " f[2]; print "1 W " a " " f[2] }' "$TMP/l.log" > "$TMP/n.txt"
n=$(wc -l < "$TMP/n.txt")
[ "$n" -gt 1000 ] && ok "lackey log of /bin/true: $n data accesses" ||
	fail "lackey log" "only $n data accesses in $(wc -l < "$TMP/l.log") lines"
zstd -q -f "$TMP/l.log" -o "$TMP/l.zst" 2> /dev/null || skip "lackey zstd" "zstd is not installed"

same() {	# same A.json B.json: histograms and counts equal, non-empty
	python3 -c "
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
key=lambda bins: [(x['lo'], x['hi'], x['count']) for x in bins if x['count'] > 0]
ok=(key(a['bins']) == key(b['bins']) and key(a['time_bins']) == key(b['time_bins']) and
    all(a[k] == b[k] for k in ('reuses', 'invalidations', 'cold', 'samples')) and
    a['mrc'] == b['mrc'] and a['reuses'] > 100)
print('same' if ok else 'differ: reuses %s/%s cold %s/%s samples %s/%s' % (a['reuses'], b['reuses'],
      a['cold'], b['cold'], a['samples'], b['samples']))" "$1" "$2"
}
for g in address line; do
	"$LOCIPROF" reuse --trace "$TMP/n.txt" --granularity $g --json "$TMP/n.json" > /dev/null 2> "$TMP/err" ||
		fail "native trace, $g" "$(cat "$TMP/err")"
	"$LOCIPROF" reuse --trace "$TMP/l.log" --granularity $g --json "$TMP/l.json" > /dev/null 2> "$TMP/err" ||
		fail "lackey trace, $g" "$(cat "$TMP/err")"
	r=$(same "$TMP/l.json" "$TMP/n.json")
	[ "$r" = same ] && ok "lackey log reads as its native trace: $g granularity" ||
		fail "lackey log vs native trace, $g" "$r"
	if [ -f "$TMP/l.zst" ]; then
		"$LOCIPROF" reuse --trace "$TMP/l.zst" --granularity $g --json "$TMP/z.json" > /dev/null 2> "$TMP/err" ||
			fail "zstd lackey trace, $g" "$(cat "$TMP/err")"
		r=$(same "$TMP/z.json" "$TMP/n.json")
		[ "$r" = same ] && ok "zstd lackey log reads as its native trace: $g granularity" ||
			fail "zstd lackey log vs native trace, $g" "$r"
	fi
done
# the trace-driven sampler reads a lackey log as the same accesses too
for f in n.txt l.log; do
	"$LOCIPROF" reuse -q --sampler trace="$TMP/$f" -c 101 --granularity line --json "$TMP/$f.t.json" \
		> /dev/null 2> "$TMP/err" || fail "reuse --sampler trace=$f" "$(head -c 300 "$TMP/err")"
done
r=$(python3 -c "
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
key=lambda bins: [(x['lo'], x['hi'], round(x['count'], 6)) for x in bins]
ok = a['samples'] > 100 and all(a[k] == b[k] for k in ('samples', 'watches', 'traps', 'reuses', 'cold')) and \
     key(a['bins']) == key(b['bins'])
print('same' if ok else 'samples %s/%s traps %s/%s' % (a['samples'], b['samples'], a['traps'], b['traps']))" \
	"$TMP/l.log.t.json" "$TMP/n.txt.t.json")
[ "$r" = same ] && ok "--sampler trace= on a lackey log: the same samples, traps and histogram as on its native trace" ||
	fail "--sampler trace= on a lackey log vs its native trace" "$r"
# per_thread lists the threads that ran, so the sampled result lines up with
# the exact one (the trace sampler numbers the log's thread 1 as thread 1:
# an empty thread 0 made compare report "thread 0 0.000")
"$LOCIPROF" reuse -q --trace "$TMP/l.log" --granularity line --json "$TMP/lx.json" 2> /dev/null
"$LOCIPROF" compare --json "$TMP/lc.json" "$TMP/lx.json" "$TMP/l.log.t.json" > /dev/null 2> "$TMP/err"
r=$(python3 -c "
import json,sys
x, t, c = (json.load(open(p)) for p in sys.argv[1:4])
ok = [p['tid'] for p in x['per_thread']] == [p['tid'] for p in t['per_thread']] == [1] and \
     len(c['per_thread']) == 1 and abs(c['per_thread'][0] - c['similarity']['all']) < 1e-9
print('ok' if ok else 'exact %s, sampled %s, compare %s' % ([p['tid'] for p in x['per_thread']],
      [(p['index'], p['tid']) for p in t['per_thread']], c.get('per_thread')))" \
	"$TMP/lx.json" "$TMP/l.log.t.json" "$TMP/lc.json")
[ "$r" = ok ] && ok "a lackey log's one thread: one per_thread entry sampled and exact, compared with each other" ||
	fail "a lackey log's one thread in per_thread" "$r $(head -c 200 "$TMP/err")"

# a lackey log with a line of something else fails naming the line
{ head -20 "$TMP/l.log"; echo "hello"; } > "$TMP/bad.log"
"$LOCIPROF" reuse --trace "$TMP/bad.log" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.log:21: bad lackey line" "$TMP/err" && ok "a stray line in a lackey log: exit 1, PATH:LINE" ||
	fail "stray line in a lackey log" "exit $rc: $(cat "$TMP/err")"

# --exact: the program under lackey, streamed into the engine
"$LOCIPROF" reuse --exact --granularity line --json "$TMP/x.json" /bin/true > "$TMP/x.txt" 2> "$TMP/err"; rc=$?
r=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); n=int(sys.argv[2])
print('ok' if d['samples'] > n // 2 and d['samples'] < 2 * n and 'serialized' in d['trace_note'] and
      d['program'] == '/bin/true' and d['mrc'] else 'samples %s (lackey log: %d)' % (d['samples'], n))" "$TMP/x.json" "$n" 2>&1)
[ $rc = 0 ] && [ "$r" = ok ] && grep -q "threads one at a time" "$TMP/x.txt" &&
	ok "reuse --exact /bin/true: as many accesses as its lackey log, says threads are serialized" ||
	fail "reuse --exact" "exit $rc, $r: $(head -c 300 "$TMP/err")"
PATH=/nonexistent "$LOCIPROF" reuse --exact /bin/true > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "valgrind" "$TMP/err" && ok "reuse --exact without valgrind: exit 1 saying so" ||
	fail "reuse --exact without valgrind" "exit $rc: $(cat "$TMP/err")"
"$LOCIPROF" reuse --exact > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && ok "reuse --exact without a program is a usage error" || fail "reuse --exact, no program" "exit $rc"

# --exact hands on the program's exit as a live run does (lociprof(1), EXIT STATUS, SIGNALS)
"$LOCIPROF" reuse --exact -- sh -c 'exit 3' > "$TMP/x.txt" 2> "$TMP/err"; rc=$?
[ $rc = 3 ] && grep -q "lociprof reuse" "$TMP/x.txt" && ok "reuse --exact: the program's exit status (3), with its report" ||
	fail "reuse --exact, exit 3" "exit $rc: $(head -c 300 "$TMP/err")"
"$LOCIPROF" reuse --exact -- sh -c 'kill -SEGV $$' > "$TMP/x.txt" 2> "$TMP/err"; rc=$?
[ $rc = 139 ] && grep -q "killed by signal 11" "$TMP/err" && grep -q "reuses" "$TMP/x.txt" &&
	ok "reuse --exact on a program that crashes: 139, says so, reports what it read" ||
	fail "reuse --exact, SIGSEGV" "exit $rc: $(head -c 300 "$TMP/err")"
"$LOCIPROF" reuse --exact -- "$TMP/no-such-program" > "$TMP/x.txt" 2> "$TMP/err"; rc=$?
[ $rc = 127 ] && grep -q "cannot run .*no-such-program.*not found" "$TMP/err" &&
	ok "reuse --exact on a program not found: 127, says so" ||
	fail "reuse --exact, not found" "exit $rc: $(head -c 300 "$TMP/err")"
loop='trap "" PIPE; i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done'
"$LOCIPROF" reuse --exact -- sh -c "$loop" > "$TMP/x.txt" 2> "$TMP/err" & lp=$!
sleep 3
kill -TERM $lp
wait $lp; rc=$?
[ $rc = 143 ] || [ $rc = 137 ] && grep -q "stopped the program with SIG.* on SIGTERM" "$TMP/err" &&
	grep -q "reuses" "$TMP/x.txt" && ok "reuse --exact on SIGTERM: stops the program, reports what it read (exit $rc)" ||
	fail "reuse --exact, SIGTERM" "exit $rc: $(head -c 300 "$TMP/err")"
# valgrind does not outlive a lociprof that is killed outright, even when
# its program ignores the SIGPIPE of the log's closed pipe (xz handles it, and
# ran on under valgrind for minutes after its lociprof was gone)
"$LOCIPROF" reuse --exact -- sh -c "$loop" > /dev/null 2>&1 & lp=$!
sleep 2
vg=$(pgrep -P $lp | head -1)
kill -KILL $lp
wait $lp 2> /dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ -n "$vg" ] && grep -q '^[^ ]* ([^)]*) [^Z]' "/proc/$vg/stat" 2> /dev/null || break
	sleep 0.2
done
[ -n "$vg" ] && ! grep -q '^[^ ]* ([^)]*) [^Z]' "/proc/$vg/stat" 2> /dev/null &&
	ok "reuse --exact killed with SIGKILL: valgrind (pid $vg) ends with it" ||
	{ fail "reuse --exact, SIGKILL" "valgrind pid '${vg:-none found}' still runs"; kill -KILL $vg 2> /dev/null; }

# --exact names code: use -> reuse pairs of instructions, from lackey's I
# lines and the program's mappings under valgrind. A kernel with known
# counts: sweep() reads then writes each a[i] 20 times (each write a reuse
# of the line its read just touched: 20 x 4096), and copy()'s first pass
# reads each of a's 512 lines last written by sweep().
cat > "$TMP/k.c" <<'K'
#define N 4096
static double a[N] __attribute__((aligned(64))), b[N] __attribute__((aligned(64)));
__attribute__((noinline)) static void sweep(void)
{
	for (int r = 0; r < 20; r++)
		for (int i = 0; i < N; i++)
			a[i] += 1.0;	/* SWEEP */
}
__attribute__((noinline)) static void copy(void)
{
	for (int r = 0; r < 10; r++)
		for (int i = 0; i < N; i++)
			b[i] = a[i] * 2;	/* COPY */
}
int main(void)
{
	sweep();
	copy();
	return (int)b[5] == 42;
}
K
if ! cc -O1 -fno-tree-vectorize -g -o "$TMP/k" "$TMP/k.c" 2> "$TMP/err"; then
	skip "reuse --exact names code" "no C compiler: $(head -c 200 "$TMP/err")"
else
	ls=$(grep -n 'SWEEP' "$TMP/k.c" | cut -d: -f1)
	lc=$(grep -n 'COPY' "$TMP/k.c" | cut -d: -f1)
	# L1 48 KiB: 768 lines. sweep's last pass leaves line l of a 511 - l lines
	# before its end; copy's first pass reaches it after l lines of a and l
	# of b: distance 511 + l (+ the stack line of the call), beyond 768 lines
	# for l >= 257 (255 of 512, a few more for the stack)
	"$LOCIPROF" reuse --exact --granularity line --cache L1=48K:12 --json "$TMP/k.json" -- "$TMP/k" \
		> "$TMP/k.txt" 2> "$TMP/err"; rc=$?
	r=$(python3 -c "
import json,sys
p=json.load(open(sys.argv[1]))['pairs']; ls=int(sys.argv[2]); lc=int(sys.argv[3])
top=p[0]
cross=[x for x in p if x.get('use_line') == ls and x.get('reuse_line') == lc]
ok=(top['use'].startswith('sweep ') and top.get('use_line') == ls and top.get('reuse_line') == ls and
    top['object'].startswith('a+') and top['reuses'] == 20 * 4096 and
    top['distance_median_hi'] == 0 and top['beyond']['L1'] == 0 and
    len(cross) == 1 and cross[0]['reuses'] == 512 and cross[0]['object'].startswith('a+') and
    cross[0]['distance_median_lo'] == 512 and cross[0]['distance_median_hi'] == 1023 and
    255 <= cross[0]['beyond']['L1'] <= 260)
print('ok' if ok else 'top %s; sweep -> copy %s' % (top, cross))" "$TMP/k.json" "$ls" "$lc" 2>&1)
	[ $rc = 0 ] && [ "$r" = ok ] && grep -q "use   sweep .*k.c:$ls" "$TMP/k.txt" &&
		ok "reuse --exact names code: sweep k.c:$ls -> itself 81920 reuses of a at distance 0, sweep -> copy k.c:$lc 512 at 512-1023 lines, half beyond L1" ||
		fail "reuse --exact, pairs" "exit $rc, $r: $(head -c 300 "$TMP/err")"
	# objects: every access of a and b (64-byte aligned: 512 lines each) counted.
	# a: sweep 20 x 4096 reads + writes, copy 10 x 4096 reads; misses in a
	# fully associative 768-line L1: its 512 first accesses, copy's first pass
	# from line 256 on (distance 511 + l + the call's stack line >= 768), and
	# the first read of each line in copy's 9 later passes (a and b: 1023
	# lines): 512 + 256 + 4608. b: 10 x 4096 writes and main's read of b[5];
	# 512 first writes, the first write of each line in 9 passes, and b[5]
	r=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); o={x['object']: x for x in d.get('objects') or []}
a=o.get('a'); b=o.get('b')
ok=(d.get('objects_beyond', '').startswith('exact') and a and b and
    [x['object'] for x in d['objects'][:2]] == ['a', 'b'] and
    a['uses'] == 204800 and a['cold'] == 512 and 5376 <= a['beyond']['L1'] <= 5380 and
    40960 <= b['uses'] <= 40962 and b['cold'] == 512 and 5120 <= b['beyond']['L1'] <= 5122)
print('ok' if ok else 'a %s; b %s; first %s' % (a, b, [x['object'] for x in (d.get('objects') or [])[:3]]))" "$TMP/k.json" 2>&1)
	[ "$r" = ok ] && grep -q "static a$" "$TMP/k.txt" &&
		ok "reuse --exact objects: a 204800 accesses, 512 first, 5376 misses in a 768-line L1; b 5120" ||
		fail "reuse --exact, objects" "$r: $(sed -n '/Data objects/,+4p' "$TMP/k.txt" | head -c 400)"
	# --pairs-by L1: the pair with the most reuses beyond L1 first: copy's read of
	# a, beyond L1 on the first of each line's 8 reads (512 x 9 passes after the first)
	"$LOCIPROF" reuse --exact --granularity line --cache L1=48K:12 --pairs-by L1 --json "$TMP/k4.json" \
		-- "$TMP/k" > "$TMP/k4.txt" 2> "$TMP/err"; rc=$?
	r=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); p=d['pairs']; lc=int(sys.argv[2])
b=[x['beyond']['L1'] for x in p]
ok=(d.get('pairs_by') == 'L1' and b == sorted(b, reverse=True) and p[0].get('use_line') == lc and
    p[0].get('reuse_line') == lc and 9 * 512 <= p[0]['beyond']['L1'] <= 9 * 512 + 8)
print('ok' if ok else 'pairs_by %s, beyond L1 %s, first %s' % (d.get('pairs_by'), b[:5], p[0]))" "$TMP/k4.json" "$lc" 2>&1)
	[ $rc = 0 ] && [ "$r" = ok ] && grep -q "pairs, by reuses beyond L1" "$TMP/k4.txt" &&
		ok "reuse --exact --pairs-by L1: ranked by reuses beyond L1, copy k.c:$lc first" ||
		fail "reuse --exact --pairs-by" "exit $rc, $r: $(head -c 300 "$TMP/err")"
	"$LOCIPROF" reuse --exact --granularity line --pairs-by L9 -- "$TMP/k" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 129 ] && grep -q "pairs-by L9: no such cache" "$TMP/err" &&
		ok "reuse --pairs-by a cache not modelled: usage error saying so" ||
		fail "reuse --pairs-by L9" "exit $rc: $(cat "$TMP/err")"
	# a lackey file has the instructions but not the mappings: pairs, code not named
	valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/k.log" "$TMP/k" 2> /dev/null
	"$LOCIPROF" reuse --trace "$TMP/k.log" --granularity line > "$TMP/k2.txt" 2> "$TMP/err"
	grep -q "code not named: a trace file holds no mappings" "$TMP/k2.txt" &&
		grep -q "^  #1 81920 reuses" "$TMP/k2.txt" &&
		ok "reuse --trace of a lackey file: the same top pair, says code is not named without mappings" ||
		fail "reuse --trace lackey, pairs" "$(sed -n '/Top use/,+4p' "$TMP/k2.txt")"
	grep -q "objects: not available (a trace has no allocation events or mappings)" "$TMP/k2.txt" &&
		ok "reuse --trace of a lackey file: objects not available, says why" ||
		fail "reuse --trace lackey, objects" "$(grep -i objects "$TMP/k2.txt")"
	"$LOCIPROF" reuse --exact --sample-rate 0.1 --granularity line -- "$TMP/k" > "$TMP/k6.txt" 2> "$TMP/err"
	grep -q "objects: not available (--sample-rate keeps no count per line" "$TMP/k6.txt" &&
		ok "reuse --exact --sample-rate: objects not available, says why" ||
		fail "reuse --exact --sample-rate, objects" "$(grep -i objects "$TMP/k6.txt") $(head -c 300 "$TMP/err")"
	# the trace-driven sampler takes the instructions too: its top pair (sampled,
	# trap IP after the access) is the exact top pair's
	"$LOCIPROF" reuse -q --sampler trace="$TMP/k.log" -c 101 --granularity line --json "$TMP/k5.json" \
		> /dev/null 2> "$TMP/err"
	r=$(python3 -c "
import json,sys
t=json.load(open(sys.argv[1]))['pairs'][0]; x=json.load(open(sys.argv[2]))['pairs'][0]
d=int(t['reuse_ip'], 16) + 1 - int(x['reuse_ip'], 16)
print('ok' if t['use_ip'] == x['use_ip'] and 0 < d <= 15 else 'sampled %s -> %s, exact %s -> %s' %
      (t['use_ip'], t['reuse_ip'], x['use_ip'], x['reuse_ip']))" "$TMP/k5.json" "$TMP/k.json" 2>&1)
	[ "$r" = ok ] && ok "reuse --sampler trace= on a lackey log: its top pair is the exact one's instructions" ||
		fail "reuse --sampler trace=, pairs" "$r $(head -c 200 "$TMP/err")"
	"$LOCIPROF" reuse --trace "$TMP/n.txt" > "$TMP/k3.txt" 2> "$TMP/err"
	grep -q "none: this trace names no instructions" "$TMP/k3.txt" &&
		ok "reuse --trace of a native trace: says it names no instructions" ||
		fail "reuse --trace native, pairs" "$(sed -n '/Top use/,+2p' "$TMP/k3.txt")"
fi
