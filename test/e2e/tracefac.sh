#!/usr/bin/env bash
# The trace-driven facility (--sampler trace=FILE): the counter path of
# reuse, as a PEBS/IBS user gets it, against the exact answers: ribench's
# closed forms, private (--expect) and shared (--expect --shared-cache).
# Floors sit below what `make bench` measures on these configurations
# (ribench's trace holds its run's addresses; the facility's phases and
# --seed are fixed).
. "$(dirname "$0")/lib.sh"
MB=$TOP/microbench
RIB=$MB/ribench

js() {	# js FILE EXPR: a python expression over the JSON as d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
S() {	# S WANT GOT [KEY]: lociprof compare's similarity (all, or bins KEY of s.py)
	"$LOCIPROF" compare --json "$TMP/cmp.json" "$1" "$2" > /dev/null && js "$TMP/cmp.json" "'%.3f' % d['similarity']['all']"
}
ST() {	# ST WANT GOT: similarity of the time-distance histograms
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
h = lambda d: {(x['lo'], x['hi']): x['fraction'] for x in d['time_bins']}
ha, hb = h(a), h(b)
print('%.3f' % (1 - sum(abs(ha.get(k, 0) - hb.get(k, 0)) for k in set(ha) | set(hb)) / 2))
PY
}
ge() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2"; }
cfg() { sed -n "s/^$1 //p" "$MB/ribench-configs.txt"; }

# --- private: short-bell (Table 6.5) and short-decreasing-case2 (Table 6.7).
# short-decreasing-case2 measures 0.894 (0.903 before invalidations inside a
# reuse's interval were checked: its within-phase reuses moved to their exact
# bins, uncovering its outer-iteration reuses converted too short, 0.067 of
# them at 16,384-32,767 against 0.137; Documentation/reuse-estimator.md)
for c in "short-bell 0.94 0.97" "short-decreasing-case2 0.88 0.95"; do
	set -- $c
	name=$1 smin=$2 tmin=$3
	"$RIB" $(cfg $name) --expect > "$TMP/$name.exp"
	"$RIB" $(cfg $name) --trace "$TMP/$name.trace"
	if ! "$LOCIPROF" reuse -q --sampler trace="$TMP/$name.trace" -c 2000 --json "$TMP/$name.json" 2> "$TMP/err"; then
		fail "reuse --sampler trace: $name" "exit $?: $(head -c 300 "$TMP/err")"
		continue
	fi
	src=$(js "$TMP/$name.json" "d['reuse_time']['time_source'], d['reuse_time']['rate_source']")
	[ "$src" = "counter counter" ] && ok "$name: reuse times from the access counters" ||
		fail "$name: reuse times from the access counters" "$src"
	s=$(S "$TMP/$name.exp" "$TMP/$name.json"); t=$(ST "$TMP/$name.exp" "$TMP/$name.json")
	ge "$s" "$smin" && ok "$name: stack-distance S = $s >= $smin" || fail "$name: stack-distance S >= $smin" "S = $s"
	ge "$t" "$tmin" && ok "$name: time-distance S = $t >= $tmin" || fail "$name: time-distance S >= $tmin" "S = $t"
done
e=$(js "$TMP/short-decreasing-case2.exp" "d['invalidations'] / (d['reuses'] + d['invalidations'])")
g=$(js "$TMP/short-decreasing-case2.json" "d['invalidation_fraction']")
python3 -c "import sys; sys.exit(0 if abs($e - $g) <= 0.03 else 1)" &&
	ok "short-decreasing-case2: invalidation fraction $g within 0.03 of $e" ||
	fail "short-decreasing-case2: invalidation fraction within 0.03" "measured $g, expected $e"
# the trace has no allocations or mappings: no object is made up for its uses
got=$(js "$TMP/short-bell.json" "d['objects'] is None, d.get('objects_unavailable')")
[ "$got" = "True no use address is in a known mapping or allocation" ] &&
	ok "objects: not available on a trace (no mapping holds its addresses)" ||
	fail "reuse objects on a trace" "got '$got'"

# --- what the sampled bins rest on: each bin's detections and standard
# error (sampling only). Over seeds 1-6 of short-bell the time bins with 5 or
# more detections must lie within 2 standard errors of the closed form in 85%
# of cases (measured: all 53 over seeds 1-8; the stack bins add the
# conversion's error, which the standard error does not count), and the
# errors must not be inflated: mean |error| / se at least 0.2 (for a normal
# error it is 0.8; measured 0.38: here the error is overstated)
for s in 1 2 3 4 5 6; do
	"$LOCIPROF" reuse -q --sampler trace="$TMP/short-bell.trace" -c 2000 --seed $s \
		--json "$TMP/se.$s.json" 2> /dev/null
done
got=$(python3 - "$TMP/short-bell.exp" "$TMP"/se.[1-6].json <<'PY2'
import json, sys
e = json.load(open(sys.argv[1]))
tru = {(x['lo'], x['hi']): x['fraction'] for x in e['time_bins']}
n = cov = 0; z = 0.0
for f in sys.argv[2:]:
    for x in json.load(open(f))['time_bins']:
        if x['detections'] >= 5:
            d = abs(x['fraction'] - tru.get((x['lo'], x['hi']), 0))
            n += 1
            cov += d <= 2 * x['stderr']
            z += d / x['stderr'] if x['stderr'] > 0 else 0
print(n, cov, '%.2f' % (z / max(n, 1)))
PY2
)
set -- $got
[ "${1:-0}" -ge 20 ] && [ $(( ${2:-0} * 100 )) -ge $(( $1 * 85 )) ] && ge "${3:-0}" 0.2 &&
	ok "time bins within 2 standard errors of the closed form: $2 of $1, mean |error|/se $3 (short-bell, seeds 1-6)" ||
	fail "time bins within 2 standard errors of the closed form in 85%" "$got"
"$LOCIPROF" reuse --stdio --sampler trace="$TMP/short-bell.trace" -c 2000 > "$TMP/se.txt" 2> /dev/null
grep -q "+-se%  *det" "$TMP/se.txt" && grep -q "^  (+-se%: standard error" "$TMP/se.txt" &&
	ok "text report: standard error and detections per bin, explained" ||
	fail "text report: standard error and detections per bin" "$(sed -n '/^Whole/,/^$/p' "$TMP/se.txt")"
# each thread's bins carry theirs; in private mode they add up to the program's
r=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for key in ('bins', 'time_bins'):
    tot = {(b['lo'], b['hi']): b['detections'] for b in d[key]}
    per = {}
    for t in d['per_thread']:
        for b in t[key]:
            per[(b['lo'], b['hi'])] = per.get((b['lo'], b['hi']), 0) + b['detections']
            assert b['stderr'] >= 0
    if {k: v for k, v in per.items() if v} != {k: v for k, v in tot.items() if v}:
        print(key, tot, per); sys.exit()
print('ok')" "$TMP/se.1.json" 2>&1)
[ "$r" = ok ] && ok "per-thread bins: detections and standard errors, adding up to the program's" ||
	fail "per-thread bins' detections add up to the program's" "$r"
# the SVG histograms draw them as error bars; an exact result has none
"$LOCIPROF" reuse -q --sampler trace="$TMP/short-bell.trace" -c 2000 --svg "$TMP/sesvg" 2> /dev/null
"$LOCIPROF" reuse -q --trace "$TMP/short-bell.trace" --svg "$TMP/exsvg" 2> /dev/null
a=$(grep -c 'class="err"' "$TMP/sesvg/reuse-histogram.svg" 2> /dev/null)
t=$(grep -c 'class="err"' "$TMP/sesvg/reuse-time.svg" 2> /dev/null)
x=$(cat "$TMP"/exsvg/reuse-*.svg 2> /dev/null | grep -c 'class="err"')
b=$(grep -c '<rect class="bar"' "$TMP/sesvg/reuse-histogram.svg" 2> /dev/null)
[ "${a:-0}" -ge 3 ] && [ "${t:-0}" -ge 3 ] && [ "$x" = 0 ] && [ "${a:-0}" -le "${b:-0}" ] &&
	ok "SVG: error bars on the sampled histograms ($a of $b bars; time $t), none on the exact ones" ||
	fail "SVG: error bars on the sampled histograms only" "stack $a of $b bars, time $t, exact $x"

# replaced watches held longer than the longest reuse detected say reuses
# that long exist and are missing: on small ribench traces at three periods
# the report says so exactly where the closed form has reuses beyond it
bad=""
for c in ci-long-decreasing-case3 ci-short-decreasing-case3 ci-long-increasing; do
	"$RIB" $(cfg $c) --expect > "$TMP/$c.exp"
	"$RIB" $(cfg $c) --trace "$TMP/$c.trace"
	for p in 50 200 1000; do
		"$LOCIPROF" reuse -q --sampler trace="$TMP/$c.trace" -c $p --json "$TMP/u.json" 2> /dev/null
		r=$(python3 - "$TMP/$c.exp" "$TMP/u.json" <<'PY2'
import json, sys
e, d = (json.load(open(p)) for p in sys.argv[1:3])
u = d['unobserved']
beyond = sum(x['fraction'] for x in e['time_bins'] if x['lo'] > u['longest_reuse_accesses'])
ok = (u['replaced_beyond'] > 0) == (beyond > 0) and (u['replaced_beyond'] == 0 or
     u['oldest_replaced_accesses'] > u['longest_reuse_accesses'])
print('ok' if ok else 'replaced_beyond %d, true fraction beyond %.3f' % (u['replaced_beyond'], beyond))
PY2
)
		[ "$r" = ok ] || bad="$bad $c -c $p: $r;"
	done
done
[ -z "$bad" ] && ok "unobserved long reuses reported exactly where the closed form has them (3 traces, 3 periods)" ||
	fail "unobserved long reuses reported where the closed form has them" "$bad"

# --- the counter path's resolution is exact: every level printed, no short
# bin, even with a stated resolution (counted reuses are never timed)
for R in "" "--resolution 1e9"; do
	"$LOCIPROF" reuse --stdio --sampler trace="$TMP/short-bell.trace" -c 2000 $R \
		--cache L1=4K:4,L2=1M:16 --json "$TMP/res.json" > "$TMP/res.txt" 2> "$TMP/err"
	got=$(js "$TMP/res.json" "d['resolution']['source'], d['resolution']['ns'], d['resolution']['short_detections'], [h['resolved'] and h['hit'] is not None for h in d['hit_rates']], len(d['miss_ratio_curve'])")
	if [ "$got" = "exact 0 0 [True, True] 27" ] && grep -q "^# resolution: exact" "$TMP/res.txt" &&
	   [ "$(grep -c 'hit  *[0-9.]*%' "$TMP/res.txt")" = 2 ] && ! grep -q "not resolved" "$TMP/res.txt"; then
		ok "counter path ${R:-(default)}: resolution exact, both levels and the whole curve printed"
	else
		fail "counter path ${R:-(default)}: resolution exact, every level printed" "$got; $(grep -A3 '^Predicted' "$TMP/res.txt")"
	fi
done

# --- private, --granularity line: distances in distinct lines, spatial
# reuse seen (a second register on the next chunk of the sampled line).
# Period 2001, prime to a line's 8 elements: at 2000 every sample of a
# dense sweep falls on one position of its line (reuse(1), --granularity).
for c in "short-bell 0.95 0.97" "short-decreasing-case2 0.95 0.97"; do
	set -- $c
	name=$1 smin=$2 tmin=$3
	"$RIB" $(cfg $name) --granularity line --expect > "$TMP/$name.lexp"
	if ! "$LOCIPROF" reuse -q --granularity line --sampler trace="$TMP/$name.trace" -c 2001 \
		--json "$TMP/$name.l.json" 2> "$TMP/err"; then
		fail "reuse --granularity line --sampler trace: $name" "exit $?: $(head -c 300 "$TMP/err")"
		continue
	fi
	s=$(S "$TMP/$name.lexp" "$TMP/$name.l.json"); t=$(ST "$TMP/$name.lexp" "$TMP/$name.l.json")
	ge "$s" "$smin" && ok "$name line: stack-distance S = $s >= $smin" || fail "$name line: stack-distance S >= $smin" "S = $s"
	ge "$t" "$tmin" && ok "$name line: time-distance S = $t >= $tmin" || fail "$name line: time-distance S >= $tmin" "S = $t"
	sp=$(js "$TMP/$name.l.json" "d['spatial']")
	[ "${sp:-0}" -gt 0 ] && ok "$name line: $sp spatial reuses (the next chunk of the line)" ||
		fail "$name line: spatial reuses seen" "spatial = $sp"
done

"$LOCIPROF" reuse -q --granularity line --sampler trace="$TMP/short-bell.trace" -c 2000 \
	--json "$TMP/alias.json" 2> /dev/null
a=$(js "$TMP/alias.json" "d['period_aliases_lines'], d['spatial'] > 0")
b=$(js "$TMP/short-bell.l.json" "d['period_aliases_lines']")
[ "$a $b" = "True True False" ] && ok "line granularity: a period that 8 divides is flagged, 2001 is not" ||
	fail "line granularity: a period that 8 divides is flagged" "2000: $a, 2001: $b"

# --- shared: ribench --expect --shared-cache is the truth (equal to the
# exact engine on the same trace: test/e2e/ribench.sh)
t="$TMP/short-bell.trace"
"$RIB" $(cfg short-bell) --expect --shared-cache > "$TMP/shx.json"
if "$LOCIPROF" reuse -q --shared-cache --sampler trace="$t" -c 2000 --json "$TMP/sh.json" 2> "$TMP/err"; then
	s=$(S "$TMP/shx.json" "$TMP/sh.json")
	ge "$s" 0.95 && ok "short-bell shared cache: S = $s >= 0.95 against ribench --expect --shared-cache" ||
		fail "short-bell shared cache: S >= 0.95 against ribench --expect --shared-cache" "S = $s"
	# ribench's threads do the same work: their detected reuses must be alike
	r=$(js "$TMP/sh.json" "'%d %d' % tuple(t['detections']['reuses'] for t in d['per_thread'][:2])")
	python3 -c "import sys; a, b = map(int, sys.argv[1:]); sys.exit(0 if min(a, b) >= 0.8 * max(a, b) > 0 else 1)" $r &&
		ok "shared cache: threads with identical work get comparable detections ($r)" ||
		fail "shared cache: threads with identical work get comparable detections" "$r"
else
	fail "reuse --shared-cache --sampler trace" "exit $?: $(head -c 300 "$TMP/err")"
fi

# the same at line granularity (period prime to 8)
"$RIB" $(cfg short-bell) --expect --shared-cache --granularity line > "$TMP/shlx.json"
if "$LOCIPROF" reuse -q --shared-cache --granularity line --sampler trace="$t" -c 2001 \
	--json "$TMP/shl.json" 2> "$TMP/err"; then
	s=$(S "$TMP/shlx.json" "$TMP/shl.json")
	ge "$s" 0.95 && ok "short-bell shared cache, line: S = $s >= 0.95 against ribench --expect --shared-cache" ||
		fail "short-bell shared cache, line: S >= 0.95 against ribench --expect --shared-cache" "S = $s"
else
	fail "reuse --shared-cache --granularity line --sampler trace" "exit $?: $(head -c 300 "$TMP/err")"
fi

# threads that store to one shared array reuse each other's data in a shared
# cache; short-decreasing-case2 (Table 6.7) against its shared closed form
t="$TMP/short-decreasing-case2.trace"
"$RIB" $(cfg short-decreasing-case2) --expect --shared-cache > "$TMP/shx2.json"
"$LOCIPROF" reuse -q --shared-cache --sampler trace="$t" -c 2000 --json "$TMP/sh2.json"
x=$(js "$TMP/shx2.json" "d['cross_thread'] / d['reuses']"); g=$(js "$TMP/sh2.json" "d['cross_thread'] / d['reuses']")
python3 -c "import sys; sys.exit(0 if $x > 0 and $g > 0 else 1)" &&
	ok "shared cache: cross-thread reuses found ($g of the detected reuses; $x of the exact ones)" ||
	fail "shared cache: cross-thread reuses" "detected $g, exact $x"
s=$(S "$TMP/shx2.json" "$TMP/sh2.json")
ge "$s" 0.83 && ok "short-decreasing-case2 shared cache: S = $s >= 0.83 against ribench --expect --shared-cache (goal 0.93: not met, make bench section tracefac)" ||
	fail "short-decreasing-case2 shared cache: S >= 0.83 against ribench --expect --shared-cache" "S = $s"

# --- bad input says what to do
"$LOCIPROF" reuse --sampler trace=/nonexistent/t.txt > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "/nonexistent/t.txt" "$TMP/err" && ok "a missing trace exits 1 naming it" ||
	fail "missing trace" "exit $rc: $(cat "$TMP/err")"
printf '1 R 0x10 8\n1 X 0x10 8\n' > "$TMP/bad.txt"
"$LOCIPROF" reuse --sampler trace="$TMP/bad.txt" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "bad.txt:2" "$TMP/err" && ok "a malformed trace exits 1 naming file and line" ||
	fail "malformed trace" "exit $rc: $(cat "$TMP/err")"
"$LOCIPROF" reuse --sampler trace="$t" /bin/true > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q "no program" "$TMP/err" && ok "a trace and a program is a usage error" ||
	fail "trace and a program" "exit $rc: $(cat "$TMP/err")"
