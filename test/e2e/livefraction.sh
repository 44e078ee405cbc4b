#!/usr/bin/env bash
# Live comdetect against the MESI simulator over the same benchmark's trace
# (lociprof coherence on the benchmark's --trace, the i.i.d. order its
# --expect assumes), soft sampler, pinned, lookups only where watchpoints
# never fire (issue 24, item 4; Documentation/algorithms.md, "Running
# together", "Live false fraction"):
# - false-sharing: the false fraction within 0.05 at F = 0.1 and 0.9, where
#   a compression toward 0.5 shows, 2 and 4 threads; runs of 2M adds per
#   thread, a sample every 50 us of thread CPU time, pooled until
#   LIVE_FF_DETECTIONS detections (a run has 50-1500, depending on how
#   long the threads ran together on the loaded CPUs).
# - point-to-point with unequal fractions (0.9,0.3 and 1.0,0.5), the pairs
#   taking turns (--turns) so that each pair's threads run together:
#   S >= 0.9, 4 runs pooled (issue 24: S >= 0.9 pinned, unequal fractions).
. "$(dirname "$0")/lib.sh"
MB=$TOP/microbench

# The bound is the issue's. One run's error spreads about
# sqrt(F(1-F)/detections) (0.014-0.027 at 100-1500 detections, 8 runs a
# configuration); 1000 pooled detections make it about 0.01. 11 runs of
# this test on the loaded VM (load 5-10, 2-12 runs a configuration) gave
# errors 0.001-0.035 (2 threads, F = 0.1), 0.000-0.026 (2, 0.9),
# 0.002-0.032 (4, 0.1), 0.003-0.038 (4, 0.9); the rule's remaining bias
# moves with the load (Documentation/algorithms.md, "Resumed looker").
# With fewer than half the target in LIVE_FF_MAXRUNS runs (the threads
# hardly ran together) the check skips.
: "${LIVE_FF_BOUND:=0.05}"
: "${LIVE_FF_DETECTIONS:=1000}"
: "${LIVE_FF_MAXRUNS:=12}"

for t in 2 4; do
	for F in 0.1 0.9; do
		"$MB/false-sharing" --threads $t --false-fraction $F --iters 100000 --trace "$TMP/t.txt"
		"$LOCIPROF" coherence --trace "$TMP/t.txt" --json "$TMP/sim.json" > /dev/null
		rm -f "$TMP/t.txt" "$TMP"/live*.json
		det=0 run=0
		while [ "$det" -lt "$LIVE_FF_DETECTIONS" ] && [ "$run" -lt "$LIVE_FF_MAXRUNS" ]; do
			run=$((run + 1))
			"$LOCIPROF" comdetect -q -c 50000 --json "$TMP/live$run.json" "$MB/false-sharing" \
				--threads $t --false-fraction $F --iters 2000000 --pin > /dev/null 2>&1 ||
				{ fail "comdetect false-sharing $t threads F=$F" "exit $?"; continue 3; }
			# the first "detections" is the totals' (python starts slowly here)
			n=$(grep -m1 -o '"detections": *[0-9]*' "$TMP/live$run.json" | grep -o '[0-9]*$')
			det=$((det + ${n:-0}))
		done
		r=$(python3 - "$TMP/sim.json" "$LIVE_FF_BOUND" "$LIVE_FF_DETECTIONS" "$TMP"/live*.json <<'PY'
import json, sys
truth = json.load(open(sys.argv[1]))['false_fraction']
bound, want = float(sys.argv[2]), int(sys.argv[3])
ds = [json.load(open(f))['totals'] for f in sys.argv[4:]]
a, f = sum(d['all'] for d in ds), sum(d['false'] for d in ds)
n, x = sum(d['detections'] for d in ds), sum(d['hits_apart'] for d in ds)
what = '%d runs, %d detections, %d not run together' % (len(ds), n, x)
if n < want // 2:
    print('skip|%s: the threads hardly ran at the same time' % what)
else:
    e = abs(f / a - truth)
    print('%s|live %.3f, simulator %.3f, error %.3f (%s)' % (
        '' if e <= bound else 'error %.3f > %s' % (e, bound), f / a, truth, e, what))
PY
)
		name="live false fraction, $t threads, F=$F"
		case $r in
		skip\|*) skip "$name" "${r#*|}" ;;
		\|*) ok "$name: ${r#*|}" ;;
		*) fail "$name" "${r%%|*}: ${r#*|}" ;;
		esac
	done
done

# --- point-to-point, 2 pairs with unequal fractions, pinned (each pair
# spans both CPUs), the pairs taking turns. S against the simulator over
# the benchmark's trace, 4 runs of 10M stores per thread pooled. 11 pools
# of 3 runs on the loaded VM (load 5-10) gave S 0.919-0.976 (0.9,0.3) and
# 0.928-0.996 (1.0,0.5): the pairs' ratio still moves with how long each
# pair's two threads ran together within its turns.
for fr in 0.9,0.3 1.0,0.5; do
	args="--threads 4 --pairs 0-1,2-3 --fractions $fr"
	"$MB/point-to-point" $args --iters 100000 --trace "$TMP/t.txt"
	"$LOCIPROF" coherence --trace "$TMP/t.txt" --json "$TMP/sim.json" > /dev/null
	rm -f "$TMP/t.txt"
	err=
	for run in 1 2 3 4; do
		"$LOCIPROF" comdetect -q --json "$TMP/p2p$run.json" "$MB/point-to-point" $args \
			--iters 10000000 --pin --turns 100 > /dev/null 2>&1 || err="exit $?"
	done
	if [ -n "$err" ]; then
		fail "comdetect point-to-point $fr" "$err"
		continue
	fi
	pool_runs "$TMP"/p2p[1234].json > "$TMP/p2p.json"
	"$LOCIPROF" compare --json "$TMP/p2p.cmp" "$TMP/sim.json" "$TMP/p2p.json" > /dev/null
	r=$(python3 - "$TMP/p2p.cmp" "$TMP/p2p.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['similarity']['all']
d = json.load(open(sys.argv[2])); m = d['matrix']['all']
print('%s|S = %.3f (pairs %.3g : %.3g, 4 runs, %d detections)' % (
    '' if s >= 0.9 else 'S %.3f < 0.9' % s, s, m[0][1], m[2][3], d['totals']['detections']))
PY
)
	[ -z "${r%%|*}" ] && ok "live point-to-point $fr, pinned, turns, against the simulator: ${r#*|}" ||
		fail "live point-to-point $fr, pinned, turns, against the simulator" "${r%%|*}: ${r#*|}"
done
