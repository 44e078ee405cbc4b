#!/usr/bin/env bash
# comdetect end to end against the microbenchmarks' known answers, with the
# similarity a user gets from 'lociprof compare'.
. "$(dirname "$0")/lib.sh"
MB=$TOP/microbench

js() {	# js FILE EXPR: evaluate a python expression over the JSON as d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# --- point-to-point: 4 threads in 2 pairs (pinned: pairs span both CPUs).
# A pair transfers lines only while both its threads run, so without turns
# a run's matrix followed how long each pair happened to run together on
# the 2 CPUs (S 0.82-0.99, pooled over 3 runs 0.819 once in CI): the truth
# itself moved. --turns makes the pairs take turns, so each runs together.
args="--threads 4 --pairs 0-1,2-3 --fractions 1.0,1.0 --pin --turns 100"
"$MB/point-to-point" $args --expect > "$TMP/p2p.exp"
err=
for run in 1 2 3; do
	"$LOCIPROF" comdetect -q --json "$TMP/p2p$run.json" "$MB/point-to-point" $args > "$TMP/p2p.txt" ||
		err="exit $?"
done
if [ -z "$err" ]; then
	pool_runs "$TMP"/p2p[123].json > "$TMP/p2p.json"
	"$LOCIPROF" compare --json "$TMP/p2p.cmp" "$TMP/p2p.exp" "$TMP/p2p.json" > /dev/null
	s=$(js "$TMP/p2p.cmp" "'%.3f' % d['similarity']['all']")
	if python3 -c "import sys; sys.exit(0 if float('$s') >= 0.9 else 1)"; then
		ok "point-to-point 4 threads, 2 pairs: S = $s >= 0.9 (3 runs pooled)"
	else
		fail "point-to-point 4 threads, 2 pairs: S >= 0.9" "S = $s; $(js "$TMP/p2p.json" "d['matrix']['all']")"
	fi
else
	fail "comdetect point-to-point" "$err"
fi

# --- false-sharing: the measured false fraction follows the configured one.
# One run's fraction at F=0.5 spreads 0.34-0.59 (27 runs, 340-720
# detections each), so the test pools the volumes of 4 runs.
for F in 0 0.5 1; do
	fs_all=0 fs_false=0 det=0
	for run in 1 2 3 4; do
		"$LOCIPROF" comdetect -q --json "$TMP/fs.json" "$MB/false-sharing" --threads 2 --pin --false-fraction $F > /dev/null
		read -r a f n <<< "$(js "$TMP/fs.json" "'%r %r %d' % (d['totals']['all'], d['totals']['false'], d['totals']['detections'])")"
		fs_all=$(python3 -c "print($fs_all + $a)")
		fs_false=$(python3 -c "print($fs_false + $f)")
		det=$((det + n))
	done
	got=$(python3 -c "print('%.3f' % ($fs_false / $fs_all if $fs_all > 0 else -1))")
	if python3 -c "import sys; sys.exit(0 if abs(float('$got') - $F) <= 0.1 and $det >= 200 else 1)"; then
		ok "false-sharing F=$F: measured false fraction $got (4 runs, $det detections)"
	else
		fail "false-sharing F=$F within 0.1" "measured $got over 4 runs with $det detections"
	fi
done

# --- write-volume: more sharing, more communication per CPU time (pinned:
# two threads that take turns on one CPU share its cache and do not communicate)
prev=
for f in 0.1 1.0; do
	"$LOCIPROF" comdetect -q --json "$TMP/wv.json" "$MB/write-volume" --threads 2 --pin --sharing-fraction $f > /dev/null
	rate=$(js "$TMP/wv.json" "'%.4f' % (d['totals']['detections'] / (d['cpu_ns'] / 1e6))")
	tf=$(js "$TMP/wv.json" "d['totals']['false']")
	echo "# write-volume sharing $f: $rate detections per ms of CPU, false volume $tf"
	if [ -n "$prev" ]; then
		python3 -c "import sys; sys.exit(0 if float('$rate') > float('$prev') else 1)" &&
			ok "write-volume: detections per CPU-ms grow with sharing ($prev -> $rate)" ||
			fail "write-volume: totals grow with sharing" "$prev at 0.1, $rate at 1.0"
	fi
	prev=$rate
done

# --- the report names the line, its object, offsets and source line
# (pinned: unpinned, the two threads ran on one CPU for a whole run once
# under load, 0 detections and 462 lookups not run together)
"$LOCIPROF" comdetect --stdio -o "$TMP/cd.data" --json "$TMP/live.json" --csv "$TMP/csv" \
	--svg "$TMP/svg" "$MB/false-sharing" --threads 2 --false-fraction 0.5 --pin > "$TMP/cd.txt" 2>/dev/null
grep -q 'false_sharing_lines' "$TMP/cd.txt" && grep -qE 'false-sharing.c:[0-9]+ \([0-9]+ by T[01],T[01]\)' "$TMP/cd.txt" &&
	grep -q '0x00-0x07 T0 ' "$TMP/cd.txt" &&
	ok "text report: object, per-offset view and source line of the top line, with the threads it came from" ||
	fail "text report names object, offsets, source" "$(sed -n '/Top cache lines/,$p' "$TMP/cd.txt" | head -20)"
grep -q $'\033\[' "$TMP/cd.txt" && fail "--stdio has no colour codes" "escape found" || ok "--stdio has no colour codes"
keys=$(js "$TMP/live.json" "all(k in d for k in ('command','sampler','period','threads','matrix','core_matrix','totals','lines')) and d['command'] == 'comdetect' and all(k in d['lines'][0] for k in ('address','object','true','false','offsets','sites')) and all('threads' in s for s in d['lines'][0]['sites']) and d['threads'][0]['index'] == 0")
[ "$keys" = True ] && ok "JSON has the documented keys" || fail "JSON keys" "$keys"
rows=$(wc -l < "$TMP/csv/thread-all.csv"); cols=$(head -1 "$TMP/csv/thread-all.csv" | tr ',' '\n' | wc -l)
[ "$rows" = 2 ] && [ "$cols" = 2 ] && [ -s "$TMP/csv/core-false.csv" ] && ok "CSV: 2x2 thread matrix and core matrices" ||
	fail "CSV matrices" "$rows rows, $cols columns"
python3 -c "import xml.dom.minidom,sys; [xml.dom.minidom.parse(f) for f in sys.argv[1:]]" "$TMP"/svg/*.svg &&
	[ "$(ls "$TMP"/svg/thread-*.svg "$TMP"/svg/core-*.svg | wc -l)" = 4 ] &&
	ok "SVG: 4 well-formed heat maps (and $(ls "$TMP"/svg/object-*.svg 2> /dev/null | wc -l) object pictures)" ||
	fail "SVG heat maps" "$(ls "$TMP/svg")"

# --- replay reproduces the live result exactly
"$LOCIPROF" report -i "$TMP/cd.data" --json "$TMP/replay.json" > /dev/null
same=$(python3 -c "
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
print(a['matrix'] == b['matrix'] and a['totals'] == b['totals'] and a['lines'] == b['lines'] and a['totals']['detections'] > 0)" "$TMP/live.json" "$TMP/replay.json")
[ "$same" = True ] && ok "report -i reproduces the live matrices, totals and lines" || fail "replay equals live" "$same"

# --- bad input
"$LOCIPROF" comdetect -d 9 true > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q 'debug-registers' "$TMP/err" && ok "-d 9 is a usage error naming the option" || fail "-d 9" "exit $rc"
"$LOCIPROF" comdetect -q --json /nonexistent/dir/x.json "$MB/false-sharing" --threads 2 --iters 1000 > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 128 ] && grep -q "cannot write '/nonexistent/dir/x.json'" "$TMP/err" && ok "unwritable --json: exit 128 with the path" ||
	fail "unwritable --json" "exit $rc: $(cat "$TMP/err")"

# --- where watchpoints never fire, comdetect arms none (each move would
# interrupt a running thread's CPU for nothing); where they fire, it arms
"$LOCIPROF" comdetect -v "$MB/false-sharing" > /dev/null 2> "$TMP/err"; rc=$?
arms=$(sed -n 's/.*\[ arms \([0-9]*\) (moves \([0-9]*\)).*/\1 \2/p' "$TMP/err")
if wp_fires; then
	[ $rc = 0 ] && [ "${arms%% *}" -gt 0 ] 2> /dev/null && ok "watchpoints fire here: comdetect armed ($arms arms, moves)" ||
		fail "comdetect arms where watchpoints fire" "exit $rc, arms '${arms:-none printed}'"
else
	[ $rc = 0 ] && [ "$arms" = "0 0" ] &&
		ok "watchpoints never fire here: comdetect armed none ($(grep -o 'lost [0-9]* records' "$TMP/err" || echo 'no records lost'))" ||
		fail "comdetect arms where watchpoints never fire" "exit $rc, arms/moves '${arms:-none printed}': $(grep lost "$TMP/err")"
fi
# --sync holds a sampled thread until its watchpoints are armed: with none
# to arm, it holds nothing and says so
"$LOCIPROF" comdetect -v --sync "$MB/false-sharing" > /dev/null 2> "$TMP/err"; rc=$?
held=$(sed -n 's/.*held samples \([0-9]*\),.*/\1/p' "$TMP/err")
if wp_fires; then
	[ $rc = 0 ] && [ "$held" -gt 0 ] 2> /dev/null && ok "watchpoints fire here: comdetect --sync held its samples ($held)" ||
		fail "comdetect --sync holds where watchpoints fire" "exit $rc, held '${held:-none printed}'"
else
	[ $rc = 0 ] && [ "$held" = 0 ] && grep -q "none are here, so samples are not held" "$TMP/err" &&
		ok "watchpoints never fire here: comdetect --sync holds no sample, and says so" ||
		fail "comdetect --sync where watchpoints never fire" "exit $rc, held '${held:-none printed}': $(grep -i sync "$TMP/err")"
fi
