#!/usr/bin/env bash
# make bench: speed, memory and accuracy of lociprof on this machine, as
# ratios against the native run or a reference measured in the same run.
# Absolute times on shared machines are noise; the ratios are the result.
#   BENCH_RUNS=N   runs per measurement (median; default 5)
#   BENCH_ONLY=S   only the sections whose name contains S
#   BENCH_LONG=1   also the runs of many minutes (stream: a 1e9-access trace)
set -u
cd "$(dirname "$0")/.."
LP=$PWD/lociprof
MB=$PWD/microbench
RUNS=${BENCH_RUNS:-5}
ONLY=${BENCH_ONLY:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

section() { [ -z "$ONLY" ] || [[ "$1" == *"$ONLY"* ]]; }

# wall seconds of one run of "$@" (output discarded); a failed run is no
# measurement: say so and stop
wall() {
	local t0 t1 rc
	t0=$(date +%s%N)
	"$@" > /dev/null 2> "$TMP/wall.err"
	rc=$?
	t1=$(date +%s%N)
	if [ $rc != 0 ]; then
		echo "bench: '$*' failed (exit $rc): $(head -c 300 "$TMP/wall.err")" >&2
		kill -TERM $$
		exit 1
	fi
	echo "scale=4; ($t1 - $t0) / 1000000000" | bc
}

# median of RUNS wall times of "$@"
median() {
	local i
	for i in $(seq "$RUNS"); do wall "$@"; done | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

ratio() { echo "scale=3; $1 / $2" | bc; }

# until the probes of earlier lociprof runs are released (lociprof-rel, see
# sess_alloc_bury: ~45 ms per probe, one after another, in the background;
# a run opening probes meanwhile waits for them)
wait_release() { while pgrep -x lociprof-rel > /dev/null; do sleep 0.02; done; }

# median of RUNS wall times of "$@", each started once the earlier probes are released
median_rel() {
	local i
	for i in $(seq "$RUNS"); do wait_release; wall "$@"; done | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

S() {	# similarity of two comdetect/reuse JSON files, all
	"$LP" compare --json "$TMP/cmp.json" "$1" "$2" > /dev/null 2>&1 &&
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%.3f %.3f' % (d['similarity']['all'], d.get('false_fraction',{}).get('error',float('nan'))))" "$TMP/cmp.json"
}

echo "# lociprof bench: $(nproc) cpus, $(uname -r), $("$LP" --version), median of $RUNS runs"
PERF_REGS=ax,bx,cx,dx,si,di,bp,sp,ip,flags,r8,r9,r10,r11,r12,r13,r14,r15

if section engine; then
	echo
	echo "## trace engines fed from memory (no parsing): exact and SHARDS (--sample-rate)"
	if [ -x test/bench/reuse-engine ]; then
		# a RIBench trace of the long shapes, one thread, outer 1 (3.8 M accesses)
		"$MB/ribench" --threads 1 --outer 1 --a 2 --a1 100000 --b 2 --b1 200000 --c 2 --c1 400000 \
			--d 1 --d1 800000 --e 1 --e1 1600000 --inv 0 --trace "$TMP/rib.trace"
		echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
		test/bench/reuse-engine -t "$TMP/rib.trace"
		# the engine's cost in instructions, which the host's load does not move
		if command -v valgrind > /dev/null 2>&1; then
			ir() {	# instructions cachegrind counts for reuse-engine -C $1
				valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
					test/bench/reuse-engine -C "$1" -m 100000 -N 4000000 2>&1 |
					sed -n 's/.*I *refs: *//p' | tr -d ,
			}
			base=$(ir 0)
			line="# exact engine, instructions per access (cachegrind; 4 M random accesses over"
			line="$line 10^5 lines, less the generating run's):"
			for c in 1 2 3 4; do
				case $c in 1) m="private address" ;; 2) m="private line" ;;
					3) m="shared address" ;; 4) m="shared line" ;; esac
				line="$line $m $(echo "scale=1; ($(ir $c) - $base) / 4000000" | bc)$([ $c -lt 4 ] && echo ,)"
			done
			echo "$line"
		else
			echo "# exact engine, instructions per access: not measured (valgrind is not installed: make deps)"
		fi
		echo "# goals: exact >= 15 M/s at M=1e6 and >= 30 M/s at M=1e5; SHARDS >= 150 M/s at"
		echo "# M=1e6; SHARDS miss-ratio curve MAE <= 0.01. CPU time of this process: on a"
		echo "# loaded machine other processes still share its caches. \"choice of keys alone\":"
		echo "# the MAE a spatial sample's draw of keys is expected to cause, whatever is done"
		echo "# with the distances (a few hot keys in or out of the sample). SHARDS+hot: the same"
		echo "# with up to 8192 lines found hot tracked exactly (--hot-keys; Carra & Neglia 2020)."
		echo "# The last lines: the recommended configuration against both goals, as measured"
		echo "# above (PASS/FAIL), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	else
		echo "skipped: test/bench/reuse-engine is not built (make bench builds it)"
	fi
fi

if section stream; then
	echo
	echo "## streaming: a trace piped from a generator into reuse --trace - (no file on disk)"
	echo "# test/helpers/crdgen: one thread, uniform random over 1e6 lines (the live set);"
	echo "# end to end: generator, pipe, text parsing and engine. M acc/s: accesses over the"
	echo "# wall time, and over lociprof's CPU time (user + sys; the generator and other"
	echo "# processes share the 2 CPUs); max RSS: lociprof's (/usr/bin/time -v). Memory follows the"
	echo "# live set if the RSS stays flat as N grows. BENCH_LONG=1 adds N = 1e9 (about"
	echo "# 5-10 minutes per engine here). Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
	GEN=$PWD/test/helpers/crdgen
	if [ -x "$GEN" ] && [ -x /usr/bin/time ]; then
		ns="10000000 100000000"
		[ -n "${BENCH_LONG:-}" ] && ns="$ns 1000000000"
		printf "%-22s %11s %8s %8s %8s %8s %8s\n" engine accesses "wall s" "M acc/s" "cpu s" "M acc/s" "RSS MiB"
		for n in $ns; do
			for eng in "SHARDS rate 0.01" exact; do
				opt=
				[ "$eng" = exact ] || opt="--sample-rate 0.01"
				t0=$(date +%s%N)
				# shellcheck disable=SC2086
				"$GEN" 1 $n 1000000 1 0 random 1 |
					/usr/bin/time -v -o "$TMP/time.txt" "$LP" reuse --trace - --granularity line \
					$opt --json "$TMP/stream.json" > /dev/null 2> "$TMP/stream.err"
				rc=("${PIPESTATUS[@]}")
				t1=$(date +%s%N)
				got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" \
					"$TMP/stream.json" 2> /dev/null)
				if [ "${rc[0]}" != 0 ] || [ "${rc[1]}" != 0 ] || [ "$got" != "$n" ]; then
					echo "$eng N=$n failed (exit ${rc[*]}, $got accesses read): $(head -c 300 "$TMP/stream.err")"
					continue
				fi
				awk -v eng="$eng" -v n="$n" -v w="$(( (t1 - t0) / 1000000 ))" -F': ' '
					/User time/ { u = $2 } /System time/ { s = $2 }
					/Maximum resident set size/ { r = $2 }
					END { printf "%-22s %11d %8.1f %8.2f %8.1f %8.2f %8.1f\n", eng, n, w / 1000,
						n / 1e6 / (w / 1000), u + s, n / 1e6 / (u + s), r / 1024 }' "$TMP/time.txt"
				# the progress line it printed past 3 s (every 10 s without a tty)
				grep "lociprof reuse:" "$TMP/stream.err" | tail -n 1 | sed 's/^/#   last progress line: /'
			done
		done
	else
		echo "skipped: test/helpers/crdgen (make bench builds it) or /usr/bin/time missing"
	fi
fi

if section record; then
	echo
	echo "## record overhead (soft facility, default period 100 us), vs native and vs perf record"
	echo "# perf record -e cpu-clock -c 100000 --user-regs=<all GPRs>, same period and registers"
	printf "%-34s %9s %9s %9s %12s\n" workload native lociprof perf "lp/perf"
	for w in "stream-regions --threads 2 --iters 200" "false-sharing --threads 2 --iters 5000000" "write-volume --threads 2 --iters 10000000"; do
		set -- $w
		prog=$MB/$1; shift
		n=$(median "$prog" "$@")
		l=$(median "$LP" record -q -o "$TMP/r.data" "$prog" "$@")
		if command -v perf > /dev/null && perf record -q -o "$TMP/p.data" -e cpu-clock -c 100000 true > /dev/null 2>&1; then
			p=$(median perf record -q -o "$TMP/p.data" -e cpu-clock -c 100000 --user-regs=$PERF_REGS "$prog" "$@")
			pr=$(ratio "$p" "$n")
			lpp=$(ratio "$l" "$p")
		else
			pr=n/a lpp="n/a (perf unavailable)"
		fi
		printf "%-34s %9s %8sx %8sx %12s\n" "${w%% *}" 1.00 "$(ratio "$l" "$n")" "$pr" "$lpp"
	done
	echo "# goal: lociprof within 1.2x of perf record (lp/perf <= 1.2)"
fi

if section sync; then
	echo
	echo "## cost of a held sample (--sync, SIGTRAP stop/resume) vs the ring-buffer path (--async)"
	prog=$MB/stream-regions; args="--threads 1 --iters 150"
	n=$(median $prog $args)
	a=$(median "$LP" record -q -o "$TMP/a.data" --async $prog $args)
	s=$(median "$LP" record -q -o "$TMP/s.data" --sync $prog $args)
	samples=$("$LP" script -i "$TMP/s.data" --no-symbols | grep -c ': sample')
	echo "native ${n}s, async $(ratio "$a" "$n")x, sync $(ratio "$s" "$n")x of native; $samples samples per run"
	echo "per held sample: $(echo "scale=1; ($s - $a) * 1000000 / $samples" | bc) us more than async"
fi

if section replay; then
	echo
	echo "## replay throughput (lociprof report -i over a recorded comdetect run)"
	"$LP" comdetect -q --stdio -o "$TMP/big.data" -c 20000 "$MB/false-sharing" --threads 2 --iters 10000000 > /dev/null 2>&1
	events=$("$LP" script -i "$TMP/big.data" --no-symbols | wc -l)
	t=$(median "$LP" report -i "$TMP/big.data" --stdio)
	echo "$events events in ${t}s: $(echo "$events / $t" | bc) events/s (includes symbol loading)"
fi

if section comdetect; then
	echo
	echo "## comdetect accuracy: S = 1 - 1/2 sum|a-b| against the benchmark's --expect"
	printf "%-52s %7s %9s\n" "benchmark" "S(all)" "ff-error"
	for cfg in \
		"point-to-point --threads 4 --pairs 0-1,2-3 --fractions 1.0,1.0 --pin --turns 100" \
		"point-to-point --threads 4 --pairs 0-1,2-3 --fractions 1.0,0.5 --pin --turns 100" \
		"point-to-point --threads 2 --pairs 0-1 --fractions 1.0" \
		"false-sharing --threads 2 --false-fraction 0" \
		"false-sharing --threads 2 --false-fraction 0.25" \
		"false-sharing --threads 2 --false-fraction 0.5" \
		"false-sharing --threads 2 --false-fraction 0.75" \
		"false-sharing --threads 2 --false-fraction 1" \
		"false-sharing --threads 4 --false-fraction 0.5 --pin" \
		"read-write --threads 2 --read-fraction 0.5" \
		"read-write --threads 4 --read-fraction 0.5 --pin" \
		"write-volume --threads 4 --sharing-fraction 0.5 --pin"; do
		set -- $cfg
		prog=$MB/$1; shift
		"$prog" "$@" --expect > "$TMP/exp.json"
		"$LP" comdetect -q --json "$TMP/got.json" "$prog" "$@" > /dev/null 2>&1
		printf "%-52s %7s %9s\n" "$cfg" $(S "$TMP/exp.json" "$TMP/got.json")
	done
	echo
	echo "## comdetect: write-volume totals grow with the sharing fraction (2 threads)"
	for f in 0.1 0.25 0.5 0.75 1.0; do
		"$LP" comdetect -q --json "$TMP/wv.json" "$MB/write-volume" --threads 2 --sharing-fraction $f > /dev/null 2>&1
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('sharing %s: %d detections, %.2f per ms of CPU' % (sys.argv[2], d['totals']['detections'], d['totals']['detections'] / (d['cpu_ns'] / 1e6)))" "$TMP/wv.json" $f
	done
	echo
	echo "## comdetect overhead (default period, async) and peak memory"
	echo "# runs of 2-4 s, so the fixed cost (exec under ptrace, symbol loading for the"
	echo "# report: ~0.1 s with libc debug info) does not dominate"
	for w in "false-sharing --threads 2 --iters 40000000" "write-volume --threads 2 --iters 80000000"; do
		set -- $w
		prog=$MB/$1; shift
		n=$(median "$prog" "$@")
		l=$(median "$LP" comdetect -q --stdio "$prog" "$@")
		rss_native=$(/usr/bin/time -f %M "$prog" "$@" 2>&1 > /dev/null | tail -1)
		rss=$("$LP" comdetect -v --stdio "$prog" "$@" 2>&1 > /dev/null | sed -n 's/.*peak RSS: lociprof \([0-9]*\) KiB, program \([0-9]*\) KiB.*/\1 \2/p')
		set -- $rss
		echo "${w%% *}: time $(ratio "$l" "$n")x native (goal <= 1.1x); memory (lociprof + program) / program = $(ratio "$(( $1 + $2 ))" "$rss_native")x (${1} KiB + ${2} KiB vs ${rss_native} KiB)"
		python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.9 * float(sys.argv[2]) else 1)" "$l" "$n" 2> /dev/null &&
			echo "#   faster than native (${l} s against ${n} s): profiling changed how this program runs, it was not free"
	done
	echo "# a ratio below 1 says the profiled run differs from the native one (the threads"
	echo "# of these benchmarks ping-pong cache lines, so their speed depends on how they"
	echo "# are scheduled), not that profiling costs nothing"
fi

if section pesbench; then
	echo
	echo "## pebs-ibs-compare: facility characterization (full run; observed / expected)"
	if "$LP" pebs-ibs-compare -h > /dev/null 2>&1; then
		"$LP" pebs-ibs-compare -q --runs "$RUNS" --json "$TMP/pes.json" > "$TMP/pes.txt" 2>&1
		python3 - "$TMP/pes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["facilities"]:
    print("# %-5s %s" % (f["name"], "usable" if f["usable"] else "unavailable: " + f["reason"]))
rows = [(e["id"], r) for e in d["experiments"] for r in e["rows"]]
def show(exp, pred, label):
    for i, r in rows:
        if i == exp and pred(r) and r["expected"]:
            print("%-6s %-9s %-28s %-36s %8.3f  (+- %.3f)" % (r["facility"], exp, r["bench"] + " " * 0, label(r),
                  r["observed"] / r["expected"], (r["stderr"] or 0) / r["expected"]))
show("accuracy", lambda r: r["metric"] in ("samples", "load share %"), lambda r: r["metric"])
show("period", lambda r: r["metric"] == "samples", lambda r: r["config"] + " samples")
show("overhead", lambda r: r["metric"] == "time ratio" and r["bench"] in ("load-ratio 1/1", "load-ratio 1/4", "load-ratio 1/8"), lambda r: "time vs native")
show("tool", lambda r: r["metric"] in ("transfers", "time ratio"), lambda r: r["config"] + " " + r["metric"])
print("# columns: observed / expected (1 = exact; overhead: x native), +- standard error / expected")
PY
	else
		echo "skipped: pebs-ibs-compare is not registered in this build"
	fi
fi

WP_FIRE=$("$LP" list --json 2> /dev/null | python3 -c "import json,sys; print('yes' if json.load(sys.stdin)['debug_registers'].get('fire') else 'no')" 2> /dev/null)
if section reuse && [ "$WP_FIRE" != yes ]; then
	echo
	echo "## reuse (live): not measured: this machine's watchpoints never fire (lociprof list);"
	echo "## the counter path is measured on traces below (section tracefac)"
elif section reuse; then
	echo
	echo "## reuse accuracy: S = 1 - 1/2 sum|a-b| over the reuse pairs against ribench --expect"
	echo "# the twenty RIBench configurations (Sasongko 2022, Tables 6.5-6.7) at full size, 2 threads, default"
	echo "# period; S over the finite bins (the top-level cold count is left out: compare"
	echo "# would add a count to fractions); inv-err = |estimated - expected| invalidation"
	echo "# fraction; rate-err = the run's access rate (reuses without a local one) / (ribench accesses / CPU ns) - 1"
	echo "# S-1rate: the sync recording replayed with --global-rate (one rate for every reuse);"
	echo "# S-25us: sync at -c 25000 (the period of test/e2e/reuse.sh); T-sync, T-25us: S of the"
	echo "# reuse-time histograms (time_bins: the counted/timed accesses before the footprint"
	echo "# conversion) against ribench's exact ones; trap-us: the stop+trap"
	echo "# cost the sync run measured (median of its own-access traps, thread CPU us)"
	printf "%-24s %7s %7s %8s %9s %7s %7s %8s %9s %7s %7s %7s\n" config S-sync T-sync inv-err rate-err S-1rate S-async inv-err rate-err S-25us T-25us trap-us
	rs() {	# rs EXP LIVE: S inv-err rate-err S-time
		python3 - "$1" "$2" 2> /dev/null <<'PY' || echo "- - - -"	# a failed run
import json, sys
e = json.load(open(sys.argv[1])); l = json.load(open(sys.argv[2]))
def h(d, key='bins'):
    t = sum(x['count'] for x in d[key]) or 1
    return {(x['lo'], x['hi']): x['count'] / t for x in d[key]}
def S(key):
    a, b = h(e, key), h(l, key)
    return 1 - 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
ef = e['invalidations'] / max(1, e['reuses'] + e['invalidations'])
rate = e['accesses'] / l['cpu_ns'] if l.get('cpu_ns') else float('nan')
print('%.3f %.3f %+.2f %.3f' % (S('bins'), abs(ef - l['invalidation_fraction']),
                               l['reuse_time']['access_rate'] / rate - 1, S('time_bins')))
PY
	}
	grep -v '^#' "$MB/ribench-configs.txt" | grep -v '^ci-' | while read -r name args; do
		[ -n "$name" ] || continue
		"$MB/ribench" $args --expect > "$TMP/exp.json"
		"$LP" reuse -q --sync -o "$TMP/s.data" --json "$TMP/s.json" "$MB/ribench" $args > /dev/null 2>&1
		"$LP" report -i "$TMP/s.data" --global-rate --json "$TMP/g.json" > /dev/null 2>&1
		"$LP" reuse -q --async --json "$TMP/a.json" "$MB/ribench" $args > /dev/null 2>&1
		"$LP" reuse -q --sync -c 25000 --json "$TMP/q.json" "$MB/ribench" $args > /dev/null 2>&1
		set -- $(rs "$TMP/exp.json" "$TMP/s.json") $(rs "$TMP/exp.json" "$TMP/q.json")
		printf "%-24s %7s %7s %8s %9s %7s %7s %8s %9s %7s %7s %7s\n" "$name" "$1" "$4" "$2" "$3" \
			"$(rs "$TMP/exp.json" "$TMP/g.json" | cut -d' ' -f1)" \
			$(rs "$TMP/exp.json" "$TMP/a.json" | cut -d' ' -f1-3) "$5" "$8" \
			"$(python3 -c "import json,sys; print('%.0f' % (json.load(open(sys.argv[1]))['reuse_time']['trap_cost_ns'] / 1e3))" "$TMP/s.json" 2> /dev/null)"
	done
	echo "# short-RD reuses (1-16 us of CPU time at ribench's rate) are shorter than the soft"
	echo "# sampler's stop+trap cost (trap-us) and are not resolved. At the default period a pass"
	echo "# over a 100k-200k array spans 1-3 samples: too few to count along (S-sync vs S-25us)"
	echo
	echo "## reuse overhead vs native (default period), sync and async"
	for name in short-bell long-bell-case2; do
		args=$(sed -n "s/^$name //p" "$MB/ribench-configs.txt")
		n=$(median "$MB/ribench" $args)
		s=$(median "$LP" reuse -q --sync --stdio "$MB/ribench" $args)
		a=$(median "$LP" reuse -q --async --stdio "$MB/ribench" $args)
		echo "$name: native ${n}s, sync $(ratio "$s" "$n")x, async $(ratio "$a" "$n")x (goal <= 1.5x)"
	done
	echo "# what the events cost a thread here (lociprof list --costs), and the least"
	echo "# overhead they allow at the default period: the goal needs a period that pays"
	echo "# at most a third of itself, 33 us of 100"
	"$LP" list --costs --json > "$TMP/costs.json" 2> /dev/null
	python3 - "$TMP/costs.json" <<'PY' || echo "list --costs failed"
import json, sys
c = json.load(open(sys.argv[1]))["costs"]
f = lambda k: "%.1f us" % c[k]["us"] if c[k]["us"] is not None else "n/a (%s)" % c[k]["reason"]
print("per event: sample %s, trap %s, arm %s (arming thread waits %s), hold %s" % (
    f("sample"), f("trap"), f("arm"),
    "%.1f us" % c["arm"]["wall_us"] if c["arm"].get("wall_us") is not None else "n/a", f("hold")))
print("floors at %d us: %s" % (c["period_ns"] / 1000, ", ".join(
    "%s %.2fx" % (x["name"], x["ratio"]) for x in c["floors"])))
PY
fi

if section tracefac; then
	echo
	echo "## reuse's counter path on the trace-driven facility (--sampler trace=FILE): what a"
	echo "# PEBS/IBS user gets at best. The twenty RIBench configurations (Sasongko 2022, Tables"
	echo "# 6.5-6.7), 2 threads, --trace piped in; long-* with --outer 2 (the same phases, a fifth"
	echo "# of the trace). Private: S against ribench --expect (closed form); shared (one cache for"
	echo "# both threads, --shared-cache): S against ribench --expect --shared-cache (closed form,"
	echo "# equal bin for bin to reuse --trace --shared-cache: test/e2e/ribench.sh). S: stack distance,"
	echo "# T: time distance (before the footprint conversion); inv-err: |invalidation fraction"
	echo "# error|; period 2000 accesses (short) and 20000 (long); goals S >= 0.95 private, 0.93 shared;"
	echo "# S-km, S-km-shr: S with --survival (replaced watches as censored reuses), private, shared;"
	echo "# blind: the closed form's fraction of the reuses in time bins where the (private) run had"
	echo "# no detection at all, so T <= 1 - blind whatever the weights; unobs: watches the run saw"
	echo "# replaced after holding longer than its longest reuse (the report's warning)"
	printf "%-24s %6s %6s %8s %6s %6s %6s %8s %6s %6s\n" config S T inv-err S-shr T-shr S-km S-km-shr blind unobs
	tf() {	# tf WANT GOT: S T inv-err blind unobs
		python3 - "$1" "$2" 2> /dev/null <<'PY' || echo "- - - - -"
import json, sys
e = json.load(open(sys.argv[1])); l = json.load(open(sys.argv[2]))
def S(key):
    h = lambda d: {(x['lo'], x['hi']): x['fraction'] for x in d[key]}
    a, b = h(e), h(l)
    return 1 - 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
ef = e['invalidations'] / max(1, e['reuses'] + e['invalidations'])
seen = {(x['lo'], x['hi']) for x in l['time_bins'] if x.get('detections', 1) > 0}
blind = sum(x['fraction'] for x in e['time_bins'] if (x['lo'], x['hi']) not in seen)
unobs = (l.get('unobserved') or {}).get('replaced_beyond', 0)
print('%.3f %.3f %.3f %.3f %d' % (S('bins'), S('time_bins'), abs(ef - l['invalidation_fraction']), blind, unobs))
PY
	}
	sum=0; ssum=0; n=0; low=""; slow=""
	while read -r name args; do
		case $name in ""|"#"*|ci-*) continue ;; long-*) args="$args --outer 2"; per=20000 ;; *) per=2000 ;; esac
		"$MB/ribench" $args --expect > "$TMP/exp.json"
		"$MB/ribench" $args --expect --shared-cache > "$TMP/x.json"
		# piped, not stored: a long trace is gigabytes of text
		"$MB/ribench" $args --trace /dev/stdout | "$LP" reuse -q --sampler trace=- -c $per --json "$TMP/p.json"
		"$MB/ribench" $args --trace /dev/stdout | "$LP" reuse -q --shared-cache --sampler trace=- -c $per --json "$TMP/s.json"
		"$MB/ribench" $args --trace /dev/stdout | "$LP" reuse -q --survival --sampler trace=- -c $per --json "$TMP/k.json"
		"$MB/ribench" $args --trace /dev/stdout |
			"$LP" reuse -q --survival --shared-cache --sampler trace=- -c $per --json "$TMP/ks.json"
		set -- $(tf "$TMP/exp.json" "$TMP/p.json") $(tf "$TMP/x.json" "$TMP/s.json") \
			$(tf "$TMP/exp.json" "$TMP/k.json") $(tf "$TMP/x.json" "$TMP/ks.json")
		printf "%-24s %6s %6s %8s %6s %6s %6s %8s %6s %6s\n" "$name" "$1" "$2" "$3" "$6" "$7" "${11}" "${16}" "$4" "$5"
		sum=$(echo "$sum + $1" | bc); ssum=$(echo "$ssum + $6" | bc); n=$((n + 1))
		python3 -c "import sys; sys.exit(0 if float('$1') >= 0.95 else 1)" 2> /dev/null || low="$low $name"
		python3 -c "import sys; sys.exit(0 if float('$6') >= 0.93 else 1)" 2> /dev/null || slow="$slow $name"
	done < "$MB/ribench-configs.txt"
	echo "# mean S (private) $(echo "scale=3; $sum / $n" | bc) over $n configurations; below 0.95:${low:- none}"
	echo "# mean S (shared) $(echo "scale=3; $ssum / $n" | bc); below 0.93:${slow:- none}"
	echo
	echo "## the same at --granularity line (distances in distinct 64-byte lines, spatial reuse"
	echo "# seen by a second register on the next chunk of the sampled line) against ribench"
	echo "# --granularity line --expect; S-odd: period 2001 (long: 20001), S-2000: period 2000"
	echo "# (20000), a multiple of a line's 8 elements: every sample of a dense sweep lands on"
	echo "# the same position of its line, which biases any per-access estimate of line reuse"
	printf "%-24s %6s %6s %6s\n" config S-odd T-odd S-2000
	for name in short-increasing short-decreasing short-bell short-multimodal short-decreasing-case2 long-bell; do
		args=$(sed -n "s/^$name //p" "$MB/ribench-configs.txt")
		case $name in long-*) args="$args --outer 2"; per=20000 ;; *) per=2000 ;; esac
		"$MB/ribench" $args --granularity line --expect > "$TMP/exp.json"
		"$MB/ribench" $args --trace /dev/stdout |
			"$LP" reuse -q --granularity line --sampler trace=- -c $((per + 1)) --json "$TMP/p.json"
		"$MB/ribench" $args --trace /dev/stdout |
			"$LP" reuse -q --granularity line --sampler trace=- -c $per --json "$TMP/q.json"
		set -- $(tf "$TMP/exp.json" "$TMP/p.json") $(tf "$TMP/exp.json" "$TMP/q.json")
		printf "%-24s %6s %6s %6s\n" "$name" "$1" "$2" "$6"
	done
fi

if section kernels; then
	echo
	echo "## ground truth from real code: test/data/kernels (cc -O2 -static, default sizes: sweep"
	echo "# 80 passes over 96 KiB, stencil 10 double sweeps of two 130x130 grids, chase 1M steps"
	echo "# over 8192 lines) under valgrind. D1/LL data miss rates, %: cachegrind (set-associative"
	echo "# LRU, --D1=49152,12,64 --LL=1048576,16,64), lociprof reuse --granularity line with the"
	echo "# geometry cachegrind reports, SDCM: exact (reuse --trace on the lackey log) and the trace"
	echo "# facility (--sampler trace= on the same log) at periods 101 and 1009, seeds 1-5 (min..max),"
	echo "# with the default weights (ht: 1/P(observed), Horvitz-Thompson) and --survival (km: replaced"
	echo "# watches as censored reuses, Kaplan-Meier); goal: within 1.5 points of cachegrind on every"
	echo "# level (issue 22, item 6)"
	if ! command -v valgrind > /dev/null 2>&1; then
		echo "# not measured: valgrind is not installed (make deps)"
	else
		printf "%-8s %-3s %6s %6s %13s %13s %13s %13s %7s\n" kernel lvl cg exact ht-101 ht-1009 km-101 km-1009 samples
		for k in sweep stencil chase; do
			cc -O2 -static -o "$TMP/$k" test/data/kernels/$k.c
			valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/$k.log" "$TMP/$k"
			valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 \
				--LL=1048576,16,64 --cachegrind-out-file="$TMP/$k.cg" "$TMP/$k" > /dev/null 2>&1
			spec=$(python3 - "$TMP/$k.cg" <<'PY'
import re, sys
g = {}
for l in open(sys.argv[1]):
    m = re.match(r'desc: (D1|LL) cache:\s+(\d+) B, (\d+) B, (\d+)-way', l)
    if m:
        g[m.group(1)] = (int(m.group(2)) // 1024, int(m.group(4)))
print('L1=%dK:%d,L2=%dK:%d' % (g['D1'] + g['LL']))
PY
)
			"$LP" reuse -q --trace "$TMP/$k.log" --granularity line --cache "$spec" --json "$TMP/$k.x.json" > /dev/null
			for c in 101 1009; do
				for s in 1 2 3 4 5; do
					"$LP" reuse -q --sampler trace="$TMP/$k.log" -c $c --seed $s --granularity line \
						--cache "$spec" --json "$TMP/$k.ht$c.$s.json" > /dev/null
					"$LP" reuse -q --sampler trace="$TMP/$k.log" -c $c --seed $s --survival --granularity line \
						--cache "$spec" --json "$TMP/$k.km$c.$s.json" > /dev/null
				done
			done
			python3 - "$TMP" "$k" <<'PY'
import json, sys
t, k = sys.argv[1:3]
ev = sm = None
for l in open('%s/%s.cg' % (t, k)):
    if l.startswith('events:'): ev = l.split()[1:]
    if l.startswith('summary:'): sm = [int(x) for x in l.split()[1:]]
c = dict(zip(ev, sm)); d = c['Dr'] + c['Dw']
cg = {'L1': (c['D1mr'] + c['D1mw']) / d, 'L2': (c['DLmr'] + c['DLmw']) / d}
def miss(p):
    h = {x['name']: x['hit'] for x in json.load(open(p))['hit_rates']}
    return {n: None if h.get(n) is None else 1 - h[n] for n in ('L1', 'L2')}
x = miss('%s/%s.x.json' % (t, k))
f = lambda v: '-' if v is None else '%.2f' % (100 * v)
for n, lv in (('L1', 'D1'), ('L2', 'LL')):
    cols = []
    for w in ('ht', 'km'):
        for per in (101, 1009):
            v = [miss('%s/%s.%s%d.%d.json' % (t, k, w, per, s))[n] for s in (1, 2, 3, 4, 5)]
            v = [e for e in v if e is not None]
            cols.append('%s..%s' % (f(min(v)), f(max(v))) if v else '-')
    smp = json.load(open('%s/%s.ht101.1.json' % (t, k)))['samples']
    print('%-8s %-3s %6s %6s %13s %13s %13s %13s %7d' % (k, lv, f(cg[n]), f(x[n]), *cols, smp))
PY
		done
		echo "# samples: at -c 101 (a tenth at 1009). The exact engine meets the goal (the model and"
		echo "# the units are right). A long reuse needs its watch to survive the samples taken before"
		echo "# it comes, and with 4 registers (2 per line watch) few do: ht weighs those few by their"
		echo "# own chance, km also counts the replaced ones as reuses later than their age"
		echo "# (Documentation/reuse-estimator.md, \"Censored watches\")"
	fi
fi

if section lossy; then
	echo
	echo "## lossy vs full (Marathe et al. 2005): comdetect on the trace-driven facility (every"
	echo "# 100th access of a thread, exact watchpoints) against the MESI simulator (lociprof"
	echo "# coherence) on the same microbenchmark traces: matrix S, false-fraction error, top-10"
	echo "# line coverage and false positives (lociprof compare); median S of $RUNS traces"
	lossy() {	# lossy NAME ARGS: one line of the table
		local i
		for i in $(seq "$RUNS"); do
			"$MB/$1" "${@:2}" --trace "$TMP/l.txt"
			"$LP" coherence --trace "$TMP/l.txt" --top 100 --json "$TMP/lf.json" > /dev/null
			"$LP" comdetect -q --sampler trace="$TMP/l.txt" -c 100 --json "$TMP/ll.json"
			"$LP" compare --json "$TMP/lc.json" "$TMP/lf.json" "$TMP/ll.json" > /dev/null
			python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['top_lines']; e=d['false_fraction']['error']; print('%.3f %s %.3f %d' % (d['similarity']['all'], '-' if e is None else '%.3f' % e, t['coverage'], t['false_positives']))" "$TMP/lc.json"
		done | sort -n | awk -v n="$*" '{a[NR]=$0} END {printf "%-72s %s\n", n, a[int((NR+1)/2)]}'
	}
	printf "%-72s %s\n" "trace" "S ff-err coverage false-pos"
	lossy false-sharing --threads 2 --false-fraction 0.3 --iters 100000
	lossy false-sharing --threads 4 --false-fraction 0.3 --iters 100000
	lossy point-to-point --threads 4 --pairs 0-1,2-3 --fractions 0.9,0.3 --iters 100000
	lossy point-to-point --threads 6 --pairs 0-1,2-3,4-5 --fractions 0.9,0.5,0.2 --iters 100000
	lossy write-volume --threads 4 --iters 100000
	lossy read-write --threads 4 --iters 100000
	echo
	echo "## comdetect false-sharing fraction sweep (issue 24): sim: the MESI simulator over the"
	echo "# benchmark's i.i.d. trace (what --expect assumes); trace: comdetect on that trace"
	echo "# (trace facility, period 100); live: soft comdetect (a sample per 50 us, 2M adds"
	echo "# per thread), pinned, lookups only where"
	echo "# watchpoints never fire; apart: live with --count-apart (lookups between threads"
	echo "# that did not run together counted, as before issue 24); live and apart: the"
	echo "# volumes of $RUNS runs pooled, /their detections; run: the simulator over"
	echo "# the run's own order (false-sharing --order: TSC-stamped adds, 300000 per thread,"
	echo "# under comdetect), with its misses; err: |live - sim|; trace, run: medians of $RUNS runs"
	ff() { python3 -c "import json,sys; print('%.3f' % json.load(open(sys.argv[1]))['false_fraction'])" "$1"; }
	med() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
	pooled_ff() {	# the false fraction of the runs' volumes summed (detections: of all)
		python3 -c "import json,sys; t=[json.load(open(f))['totals'] for f in sys.argv[1:]]; print('%.3f/%d' % (sum(x['false'] for x in t) / max(sum(x['all'] for x in t), 1), sum(x['detections'] for x in t)))" "$@"
	}
	printf "%-8s %5s %6s %6s %11s %11s %6s %13s\n" threads F sim trace live/det apart/det err "run (misses)"
	for t in 2 4; do
		for f in 0.1 0.3 0.5 0.7 0.9; do
			"$MB/false-sharing" --threads $t --false-fraction $f --iters 100000 --trace "$TMP/f.txt"
			"$LP" coherence --trace "$TMP/f.txt" --json "$TMP/fs.json" > /dev/null
			sim=$(ff "$TMP/fs.json")
			tr=$(for i in $(seq "$RUNS"); do
				"$MB/false-sharing" --threads $t --false-fraction $f --iters 100000 --seed $i --trace "$TMP/f.txt"
				"$LP" comdetect -q --sampler trace="$TMP/f.txt" -c 100 --json "$TMP/f.json"
				ff "$TMP/f.json"
			done | med)
			rm -f "$TMP/f.txt"
			for i in $(seq "$RUNS"); do
				"$LP" comdetect -q -c 50000 --json "$TMP/g$i.json" "$MB/false-sharing" --threads $t \
					--false-fraction $f --iters 2000000 --pin
				"$LP" comdetect -q -c 50000 --count-apart --json "$TMP/a$i.json" "$MB/false-sharing" \
					--threads $t --false-fraction $f --iters 2000000 --pin
			done
			lv=$(pooled_ff "$TMP"/g[0-9]*.json)
			ap=$(pooled_ff "$TMP"/a[0-9]*.json)
			rm -f "$TMP"/g[0-9]*.json "$TMP"/a[0-9]*.json
			run=$(for i in $(seq "$RUNS"); do
				"$LP" comdetect -q -c 50000 --json "$TMP/g.json" "$MB/false-sharing" --threads $t \
					--false-fraction $f --pin --iters 300000 --order "$TMP/o.txt"
				"$LP" coherence --trace "$TMP/o.txt" --json "$TMP/o.json" > /dev/null
				rm -f "$TMP/o.txt"
				python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%.3f (%d)' % (d['false_fraction'], d['totals']['all']))" "$TMP/o.json"
			done | med)
			printf "%-8s %5s %6s %6s %11s %11s %6s %13s\n" $t $f "$sim" "$tr" "$lv" "$ap" \
				"$(python3 -c "print('%.3f' % abs(${lv%/*} - $sim))")" "$run"
		done
	done
fi

if section predict; then
	echo
	echo "## shared-cache prediction (reuse --predict-threads) against the exact shared engine"
	echo "# Jiang et al. 2010 (jiang) and PPT-Multicore (ppt); self: N = T from a T-thread"
	echo "# trace's own per-thread profiles; scale: from a T-thread trace to the N-thread"
	echo "# trace; S: histogram similarity; L3: |predicted - exact| SDCM hit rate, points"
	echo "# (goal: average S >= 0.92, L3 within 1 point); test/predict-accuracy.sh"
	./test/predict-accuracy.sh full || echo "predict-accuracy failed"
fi

if section objects; then
	echo
	echo "## heap-object tracking (allocator uprobes): microbench/malloc-rate under comdetect"
	echo "# goal (issue 21): <= 1.3x of comdetect --no-objects on a malloc-heavy program;"
	echo "# every probe hit is a trap: the budget (--objects-budget, default 10%) bounds the cost"
	echo "# load at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
	# every pair tracked: the cost of one (3 probe hits: malloc, its return, free)
	a=$(median_rel "$LP" comdetect -q --objects --objects-budget 0 "$MB/malloc-rate" --iters 20000)
	z=$(median_rel "$LP" comdetect -q --no-objects "$MB/malloc-rate" --iters 20000)
	echo "# one tracked malloc/free pair (--objects-budget 0): $(echo "scale=1; ($a - $z) * 1000000 / 20000" | bc) us"
	wait_release
	"$LP" comdetect --objects --objects-budget 0 "$MB/malloc-rate" --iters 20000 > /dev/null 2> "$TMP/b0.err"
	grep '^\[ allocator probes' "$TMP/b0.err" | sed 's/^/# /'
	# what the budget takes a hit to cost against what the hits cost the program:
	# its own timing of its loop (20000 pairs natively: well under 1 ms)
	awk '/pairs in/ {for (i = 1; i < NF; i++) if ($i == "in") loop = $(i + 1)}
	     /^\[ allocator probes/ {hits = $4; us = $7}
	     END {if (loop > 0 && hits > 0) printf "# the budget priced those hits at %.3f s; malloc-rate timed its loop at %.3f s: %.2f of it\n", hits * us / 1e6, loop, hits * us / 1e6 / loop}' "$TMP/b0.err"
	t0=$(date +%s%N)
	wait_release
	echo "# then the kernel released the run's probes in the background in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	printf "%-32s %9s %9s %9s %9s %9s   %s\n" workload native no-obj objects ratio tracked "each run's ratio"
	for it in 1000000 10000000 100000000; do
		n=$(median "$MB/malloc-rate" --iters $it)
		# alternating no-obj and objects runs (the load of a shared machine drifts);
		# ratio: the median of the runs' ratios
		for i in $(seq "$RUNS"); do
			wait_release
			x=$(wall "$LP" comdetect -q --no-objects "$MB/malloc-rate" --iters $it)
			wait_release
			y=$(wall "$LP" comdetect -q --objects "$MB/malloc-rate" --iters $it)
			echo "$x $y $(ratio "$y" "$x")"
		done > "$TMP/pairs"
		o=$(awk '{print $1}' "$TMP/pairs" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		d=$(awk '{print $2}' "$TMP/pairs" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		r=$(awk '{print $3}' "$TMP/pairs" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		wait_release
		k=$("$LP" comdetect --objects "$MB/malloc-rate" --iters $it 2>&1 >/dev/null |
			sed -n 's/^\[ heap objects: \([0-9]*\) allocations.*/\1/p')
		printf "%-32s %9s %9s %9s %9s %9s   %s\n" "malloc-rate --iters $it" "$n" "$o" "$d" \
			"$r" "$k" "$(awk '{printf "%s ", $3}' "$TMP/pairs")"
	done
	echo "# objects: --objects with its default budget; ratio: median of the alternating runs' objects / no-obj;"
	echo "# tracked: allocations named in"
	echo "# one more run; each comdetect run starts once the earlier runs' probes are released"
	echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
