#!/usr/bin/env bash
# Ground truth from real code: three small C kernels (test/data/kernels: a
# sweep over an array, a 5-point stencil, a pointer chase) run under
# valgrind. lackey gives their exact accesses, cachegrind simulates their
# set-associative LRU D1 and LL for one geometry; lociprof reuse, given the
# geometry cachegrind reports, predicts the D1 and LL data miss rates
# (SDCM, --granularity line) from the lackey log:
#  - the exact engine (reuse --trace LOG): within 1.5 points of cachegrind
#    on every level (the model and the units);
#  - the trace-driven facility (reuse --sampler trace=LOG --survival, the
#    counter path a PEBS/IBS user gets, replaced watches counted as censored
#    reuses), the mean of three samplings (seeds 1-3): the same goal, issue
#    22 item 6; make bench, section kernels, has the spread over seeds and
#    the default weights;
#  - live (soft facility): within 5 points on the levels its resolution
#    covers, where watchpoints fire.
# Both sides count the same data accesses: lackey's L + S + M lines are
# cachegrind's D refs (instruction fetches, I lines, are left out by both;
# lociprof reads an M as a load then a store, a hit at distance 0 more).
. "$(dirname "$0")/lib.sh"
K=$TOP/test/data/kernels
# the sizes of make bench (the kernels' defaults; lackey takes 5-25 s each
# here): at a tenth of them the trace facility's estimate is noise (2,000
# samples at -c 101: the stencil's D1 miss 0.28-12.63% over 8 seeds with
# --survival against cachegrind's 9.87%)
RUNS="sweep:80 stencil:10 chase:1000000"
GEOM="--I1=32768,8,64 --D1=49152,12,64 --LL=1048576,16,64"
PERIOD=1009	# accesses per sample (prime to a line's 8 longs)

if ! command -v valgrind > /dev/null 2>&1; then
	skip "kernels vs cachegrind" "valgrind is not installed (make deps)"
	exit 0
fi
for r in $RUNS; do
	k=${r%%:*}
	if ! cc -O2 -static -o "$TMP/$k" "$K/$k.c" 2> "$TMP/cc.err"; then
		skip "kernels vs cachegrind" "cannot build $k.c: $(head -c 200 "$TMP/cc.err")"
		exit 0
	fi
done

# level miss rates of one run: cachegrind (data: D1mr+D1mw, DLmr+DLmw over
# Dr+Dw) and the --cache spec of the geometry it reports
cg() {	# cg CGOUT: "spec D1miss LLmiss drefs"
	python3 - "$1" <<'PY'
import re, sys
ev, sm, geo = None, None, {}
for l in open(sys.argv[1]):
    if l.startswith('events:'):
        ev = l.split()[1:]
    elif l.startswith('summary:'):
        sm = [int(x) for x in l.split()[1:]]
    m = re.match(r'desc: (D1|LL) cache:\s+(\d+) B, (\d+) B, (\d+)-way', l)
    if m:
        geo[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
c = dict(zip(ev, sm))
d = c['Dr'] + c['Dw']
assert geo['D1'][1] == 64 and geo['LL'][1] == 64, 'line size %r' % geo
print('L1=%dK:%d,L2=%dK:%d %.4f %.4f %d' % (geo['D1'][0] // 1024, geo['D1'][2], geo['LL'][0] // 1024,
      geo['LL'][2], (c['D1mr'] + c['D1mw']) / d, (c['DLmr'] + c['DLmw']) / d, d))
PY
}
miss() {	# miss JSON: "L1miss L2miss" (- for a level not printed)
	python3 -c "
import json,sys
h={x['name']: x['hit'] for x in json.load(open(sys.argv[1]))['hit_rates']}
print(' '.join('-' if h.get(n) is None else '%.4f' % (1 - h[n]) for n in ('L1', 'L2')))" "$1"
}
within() {	# within WANT GOT POINTS: |WANT - GOT| <= POINTS / 100
	python3 -c "import sys; sys.exit(0 if sys.argv[2] != '-' and abs(float(sys.argv[1]) - float(sys.argv[2])) <= float(sys.argv[3]) / 100 else 1)" "$@"
}
pts() { python3 -c "import sys; print('%.2f' % (100 * float(sys.argv[1])))" "$1"; }

# the valgrind runs, all at once (the slow part)
: > "$TMP/z.txt"
for r in $RUNS; do
	k=${r%%:*} arg=${r#*:}
	valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/$k.log" "$TMP/$k" "$arg" 2> "$TMP/$k.lerr" &
	valgrind --tool=cachegrind --cache-sim=yes $GEOM --cachegrind-out-file="$TMP/$k.cg" \
		"$TMP/$k" "$arg" > /dev/null 2> "$TMP/$k.cerr" &
done
wait
for r in $RUNS; do
	k=${r%%:*} arg=${r#*:}
	if ! grep -q '^summary:' "$TMP/$k.cg" 2> /dev/null || ! grep -q '^ [LSM] ' "$TMP/$k.log" 2> /dev/null; then
		fail "$k under valgrind" "$(tail -c 300 "$TMP/$k.lerr" "$TMP/$k.cerr")"
		continue
	fi
	set -- $(cg "$TMP/$k.cg")
	spec=$1 cd1=$2 cll=$3 drefs=$4
	# the same accesses on both sides
	set -- $(awk '$1 == "L" || $1 == "S" { n++ } $1 == "M" { m++ } END { print n + m, m + 0 }' "$TMP/$k.log")
	lsm=$1 nm=$2
	[ "$lsm" = "$drefs" ] && ok "$k: lackey's L+S+M lines = cachegrind's D refs ($drefs; $nm M)" ||
		fail "$k: lackey and cachegrind see the same data accesses" "lackey L+S+M $lsm, cachegrind D refs $drefs"

	# the exact engine
	if ! "$LOCIPROF" reuse -q --trace "$TMP/$k.log" --granularity line --cache "$spec" \
		--json "$TMP/$k.x.json" > /dev/null 2> "$TMP/err"; then
		fail "$k: reuse --trace on the lackey log" "$(head -c 300 "$TMP/err")"
		continue
	fi
	n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" "$TMP/$k.x.json")
	[ "$n" = $((lsm + nm)) ] && ok "$k: reuse --trace read L+S+2M = $n accesses" ||
		fail "$k: reuse --trace reads every data access" "$n, lackey has L+S+2M = $((lsm + nm))"
	set -- $(miss "$TMP/$k.x.json")
	for lv in "D1 $cd1 $1" "LL $cll $2"; do
		set -- $lv
		within "$2" "$3" 1.5 && ok "$k $1: exact engine miss $(pts "$3")% within 1.5 points of cachegrind's $(pts "$2")%" ||
			fail "$k $1: exact engine within 1.5 points of cachegrind" "exact $3, cachegrind $2 ($spec)"
	done

	# the trace-driven facility on the same lackey log, three samplings of it
	# (--seed 1-3: the phases of the samples and the reservoir's draws), their
	# miss rates averaged: one sampling gave the stencil's D1 10.55% and 8.59%
	# (cachegrind 10.13%) in two runs of this test (ASLR moves the stack between
	# valgrind runs, so the log, and which accesses are sampled, change too)
	bad=0
	for s in 1 2 3; do
		if ! "$LOCIPROF" reuse -q --sampler trace="$TMP/$k.log" -c $PERIOD --seed $s --survival \
			--granularity line --cache "$spec" --json "$TMP/$k.t$s.json" > /dev/null 2> "$TMP/err"; then
			fail "$k: reuse --sampler trace= --seed $s on the lackey log" "$(head -c 300 "$TMP/err")"
			bad=1
		fi
	done
	[ $bad = 0 ] || continue
	r=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); n=int(sys.argv[2]); p=int(sys.argv[3])
ok = abs(d['samples'] - n / p) <= 1 and d['reuse_time']['time_source'] == 'counter'
print('ok' if ok else '%s samples (%d accesses / %d), time source %s' % (d['samples'], n, p, d['reuse_time']['time_source']))" \
		"$TMP/$k.t1.json" $((lsm + nm)) $PERIOD)
	[ "$r" = ok ] && ok "$k: the trace facility samples every ${PERIOD}th of the lackey log's accesses, counted reuse times" ||
		fail "$k: the trace facility on a lackey log" "$r"
	set -- $(python3 -c "
import json,sys
v = [{x['name']: x['hit'] for x in json.load(open(p))['hit_rates']} for p in sys.argv[1:]]
print(' '.join('-' if any(h.get(n) is None for h in v) else '%.4f %s' % (sum(1 - h[n] for h in v) / len(v),
      ','.join('%.2f' % (100 * (1 - h[n])) for h in v)) for n in ('L1', 'L2')))" "$TMP/$k.t1.json" "$TMP/$k.t2.json" "$TMP/$k.t3.json")
	for lv in "D1 $cd1 $1 $2" "LL $cll $3 $4"; do
		set -- $lv
		within "$2" "$3" 1.5 && ok "$k $1: trace facility miss $(pts "$3")% (mean of seeds 1-3: $4) within 1.5 points of cachegrind's $(pts "$2")%" ||
			fail "$k $1: trace facility within 1.5 points of cachegrind" \
				"$([ "$3" = - ] && echo "no hit rate" || echo "$(pts "$3")% (seeds 1-3: $4)") vs cachegrind $(pts "$2")% at -c $PERIOD --survival; $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('seed 1: %d of %d watches replaced before their reuse came, %d censored, %d samples' % (d['watches_replaced'], d['watches'], d['reuse_time']['censored'], d['samples']))" "$TMP/$k.t1.json")"
	done
	r=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['reuse_time']['weights'], d['reuse_time']['censored'] == d['watches_replaced'] > 0)" "$TMP/$k.t1.json")
	[ "$r" = "survival True" ] && ok "$k: survival weights, every replaced watch counted as censored" ||
		fail "$k: --survival on the counter path" "weights, censored == replaced > 0: $r"

	# the hit rates' standard errors (default weights, seeds 1-2) against
	# the exact engine's on the same log, collected for the check after the loop
	for s in 1 2; do
		"$LOCIPROF" reuse -q --sampler trace="$TMP/$k.log" -c $PERIOD --seed $s \
			--granularity line --cache "$spec" --json "$TMP/$k.h$s.json" > /dev/null 2>&1
		python3 -c "
import json,sys
x = {h['name']: h['hit'] for h in json.load(open(sys.argv[1]))['hit_rates']}
for h in json.load(open(sys.argv[2]))['hit_rates']:
    se = h.get('hit_stderr')
    print('$k', h['name'], 'inf' if not se else '%.3f' % (abs(h['hit'] - x[h['name']]) / se))" \
			"$TMP/$k.x.json" "$TMP/$k.h$s.json" >> "$TMP/z.txt" 2> /dev/null || echo "$k - inf" >> "$TMP/z.txt"
	done

	# live, soft facility: the levels its resolution covers
	if ! wp_fires; then
		skip "$k: live reuse within 5 points of cachegrind" "watchpoints do not fire here: $WP_REASON"
		continue
	fi
	if ! "$LOCIPROF" reuse -q --granularity line --cache "$spec" --json "$TMP/$k.l.json" \
		"$TMP/$k" "$arg" > /dev/null 2> "$TMP/err"; then
		fail "$k: live reuse" "$(head -c 300 "$TMP/err")"
		continue
	fi
	set -- $(miss "$TMP/$k.l.json")
	for lv in "D1 $cd1 $1" "LL $cll $2"; do
		set -- $lv
		if [ "$3" = - ]; then
			ok "$k $1: live: no hit rate printed (outside the resolved range)"
		else
			within "$2" "$3" 5 && ok "$k $1: live miss $(pts "$3")% within 5 points of cachegrind's $(pts "$2")%" ||
				fail "$k $1: live within 5 points of cachegrind" "live $3, cachegrind $2"
		fi
	done
done

# each sampled hit rate's standard error (reuse(1), Weights) against the
# exact engine on the same log: 3 kernels x 2 levels x seeds 1-2, at least 10
# of 12 within 3 standard errors, and not inflated (mean |error| / se at
# least 0.2). Measured over seeds 1-6: 34 of 36 within 2, mean se against
# the seeds' spread 1.87/2.02 (sweep D1), 3.63/3.24 (stencil D1), 0.80/0.39
# (chase D1) points; a stencil D1 of seed 1 off by 3.4 se
r=$(python3 -c "
import sys
z = [float(l.split()[2]) for l in open(sys.argv[1]) if l.split()[1] in ('L1', 'L2')]
n = sum(1 for v in z if v <= 3)
print(len(z), n, '%.2f' % (sum(v for v in z if v != float('inf')) / max(len(z), 1)))" "$TMP/z.txt")
set -- $r
if [ "${1:-0}" = 12 ] && [ "${2:-0}" -ge 10 ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.2 else 1)" "${3:-0}"; then
	ok "sampled hit rates within 3 standard errors of the exact engine: $2 of $1, mean |error|/se $3 ($(tr '\n' ';' < "$TMP/z.txt"))"
elif [ "${1:-0}" = 0 ]; then
	skip "sampled hit rates' standard errors" "no kernel ran under valgrind"
else
	fail "sampled hit rates within 3 standard errors of the exact engine (10 of 12)" "$r: $(tr '\n' ';' < "$TMP/z.txt")"
fi
