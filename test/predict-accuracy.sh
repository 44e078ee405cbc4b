#!/usr/bin/env bash
# Accuracy of the shared-cache prediction (lociprof reuse --predict-threads)
# against the exact engine's shared (CRD) histograms, issue 25.
#   test/predict-accuracy.sh [small|full]   (small: seconds, for make check)
# Traces: microbench/ribench --trace at 1-16 threads (shared array stores),
# false-sharing and point-to-point --trace (4 threads),
# test/helpers/crdgen interleavings with and without shared data.
# Rows: "self" predicts N = T from a T-thread trace's own per-thread profiles;
# "scale" predicts N from a T-thread trace and compares with the N-thread one.
# S: histogram similarity (finite bins and cold, address granularity for
# ribench, lines for crdgen: one access per line); L3: |predicted - exact|
# SDCM hit rate of --cache L3, in points, at line granularity.
# "limit" rows predict from a one-thread trace, which shows no interleaving.
# Prints one row per trace and model, then "average S MODEL X L3 Y" lines
# (over the self and scale rows).
set -u
cd "$(dirname "$0")/.."
LP=$PWD/lociprof
MB=$PWD/microbench
GEN=$PWD/test/helpers/crdgen
SIZE=${1:-full}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ "$SIZE" = small ]; then
	RB="--outer 1 --a 3 --a1 500 --b 2 --b1 1500 --c 2 --c1 3500 --d 1 --d1 7500 --e 1 --e1 15500 --inv 1000"
	RB_THREADS="1 2 4"; RB_L3=L3=512K:16
	ACC=4000; PRIV=400; SHARED=100; GEN_L3=L3=64K:16
else
	RB="--outer 2 --a 5 --a1 2000 --b 4 --b1 6000 --c 4 --c1 14000 --d 2 --d1 30000 --e 1 --e1 62000 --inv 4000"
	RB_THREADS="1 2 4 8 16"; RB_L3=L3=4M:16
	ACC=20000; PRIV=1300; SHARED=300; GEN_L3=L3=256K:16
fi

# json TRACE GRAN L3 N.. : the reuse JSON of TRACE predicted at N..
json() {
	local tr=$1 gran=$2 l3=$3 out=$4; shift 4
	"$LP" reuse --trace "$tr" --granularity "$gran" --cache "$l3" \
		--predict-threads "$(echo "$@" | tr ' ' ',')" --json "$out" > /dev/null
}

# row NAME KIND SRC_PREFIX DST_PREFIX N: compare SRC's prediction at N with DST's measured
row() {
	python3 - "$@" <<'PY'
import json, sys
name, kind, src, dst, n = sys.argv[1:6]
n = int(n)
def hist(d):
    h = {(b['lo'], b['hi']): b['count'] for b in d['bins']}
    h['cold'] = d['cold']
    t = sum(h.values()) or 1
    return {k: v / t for k, v in h.items()}
def l3(d):
    return [x['hit'] for x in d['hit_rates'] if x['name'] == 'L3'][0]
for model in ('jiang', 'ppt'):
    out = []
    for gran in ('s', 'l'):
        ps = json.load(open(src + gran + '.json'))
        ms = json.load(open(dst + gran + '.json'))['predict_measured']
        p = [x for x in ps['predict'] if x['threads'] == n and x['model'] == model][0]
        if 'error' in p:
            out = None
            break
        a, b = hist(p), hist(ms)
        out.append((1 - 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)),
                    100 * abs(l3(p) - l3(ms)), 100 * l3(ms), 100 * l3(p)))
    if out is None:
        print('%-34s %-6s %3s %-5s  not computed' % (name, kind, n, model))
        continue
    print('%-34s %-6s %3d %-5s %6.3f %7.2f %7.1f %7.1f' % (name, kind, n, model, out[0][0],
          out[1][1], out[1][2], out[1][3]))
PY
}

printf "%-34s %-6s %3s %-5s %6s %7s %7s %7s\n" trace kind N model S L3-err L3-meas L3-pred
{
	for t in $RB_THREADS; do
		"$MB/ribench" --threads "$t" $RB --trace - | zstd -q -1 > "$TMP/rb$t.zst"
	done
	ns=$(echo $RB_THREADS | tr ' ' '\n' | awk '$1 >= 2' | tr '\n' ' ')
	for t in $RB_THREADS; do
		json "$TMP/rb$t.zst" address "$RB_L3" "$TMP/rb$t-s.json" $ns || exit 1
		json "$TMP/rb$t.zst" line "$RB_L3" "$TMP/rb$t-l.json" $ns || exit 1
	done
	for t in $RB_THREADS; do
		[ "$t" = 1 ] && continue
		row "ribench $t threads" self "$TMP/rb$t-" "$TMP/rb$t-" "$t"
	done
	for t in $ns; do
		[ "$t" = 2 ] && continue
		row "ribench 2 threads -> $t" scale "$TMP/rb2-" "$TMP/rb$t-" "$t"
	done
	# the limit: one thread shows no interleaving (turns of 1 access assumed,
	# ribench's are a pass over an array); not in the averages
	for t in $ns; do
		row "ribench 1 thread -> $t" limit "$TMP/rb1-" "$TMP/rb$t-" "$t"
	done
	# the communication microbenchmarks (their --trace order: i.i.d. turns
	# of one iteration): a few hot shared lines, every reuse short
	for b in "false-sharing --threads 4 --false-fraction 0.3" \
		 "point-to-point --threads 4 --pairs 0-1,2-3 --fractions 0.9,0.3"; do
		set -- $b
		"$MB/$1" "${@:2}" --iters $((ACC / 2)) --trace "$TMP/mb.txt"
		json "$TMP/mb.txt" address "$GEN_L3" "$TMP/mb-s.json" 4 || exit 1
		json "$TMP/mb.txt" line "$GEN_L3" "$TMP/mb-l.json" 4 || exit 1
		row "$1 4 thr" self "$TMP/mb-" "$TMP/mb-" 4
	done
	for pat in cyclic random expon; do
		for psh in 0 0.2; do
			for t in 2 4 8; do
				"$GEN" "$t" "$ACC" "$PRIV" "$SHARED" "$psh" "$pat" 1 7 > "$TMP/g$t.txt"
				json "$TMP/g$t.txt" line "$GEN_L3" "$TMP/g$t-s.json" 4 8 || exit 1
				cp "$TMP/g$t-s.json" "$TMP/g$t-l.json"
			done
			row "crdgen $pat shared=$psh 4 thr" self "$TMP/g4-" "$TMP/g4-" 4
			row "crdgen $pat shared=$psh 2 -> 8 thr" scale "$TMP/g2-" "$TMP/g8-" 8
		done
	done
	# coarse turns: 64 accesses per thread in a row
	for t in 2 4 8; do
		"$GEN" "$t" "$ACC" "$PRIV" "$SHARED" 0.2 random 64 7 > "$TMP/g$t.txt"
		json "$TMP/g$t.txt" line "$GEN_L3" "$TMP/g$t-s.json" 4 8 || exit 1
		cp "$TMP/g$t-s.json" "$TMP/g$t-l.json"
	done
	row "crdgen random shared=0.2 turn=64" self "$TMP/g4-" "$TMP/g4-" 4
	row "crdgen random sh=0.2 turn=64 2->8" scale "$TMP/g2-" "$TMP/g8-" 8
} | tee "$TMP/rows"
awk '$0 !~ /not computed/ && NF >= 8 && $(NF-6) != "limit" { m = $(NF-4); s[m] += $(NF-3); e[m] += $(NF-2); n[m]++ }
     END { for (m in n) printf "average S %s %.3f L3 %.2f over %d rows\n", m, s[m] / n[m], e[m] / n[m], n[m] }' \
	"$TMP/rows" | sort
