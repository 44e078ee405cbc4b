#!/usr/bin/env bash
# report -i reproduces the live run of every analysis with no repeated
# flags: the data file records the analysis and its settings. Also the
# output options every analysis shares (--top, -q) and report's refusals.
. "$(dirname "$0")/lib.sh"
MB="$TOP/microbench"

# --- comdetect with settings other than the defaults
"$LOCIPROF" comdetect --stdio -b 31 -d 2 --seed 7 --top 3 -o "$TMP/cd.data" --json "$TMP/cd-live.json" \
	"$MB/false-sharing" --threads 2 > "$TMP/cd-live.txt" 2>/dev/null
"$LOCIPROF" report --stdio --top 3 -i "$TMP/cd.data" --json "$TMP/cd-rep.json" > "$TMP/cd-rep.txt"
if [ -s "$TMP/cd-live.txt" ] && grep -q 'communications detected' "$TMP/cd-live.txt" &&
   cmp -s "$TMP/cd-live.txt" "$TMP/cd-rep.txt" && cmp -s "$TMP/cd-live.json" "$TMP/cd-rep.json"; then
	ok "comdetect -b 31 -d 2 --seed 7: report -i prints the same text and JSON, no flags repeated"
else
	fail "comdetect replay equals live" "$(diff "$TMP/cd-live.txt" "$TMP/cd-rep.txt" | head -5)"
fi

if wp_fires; then
# --- reuse with every recorded setting away from its default
"$LOCIPROF" reuse --stdio -c 25000 --shared-cache --granularity line --slots 3 --seed 5 --window 4 \
	--no-chain -o "$TMP/r.data" --json "$TMP/r-live.json" \
	"$MB/ribench" --threads 2 --outer 1 --a 10 --b 10 --c 10 --d 10 --e 10 > "$TMP/r-live.txt" 2>/dev/null
"$LOCIPROF" report --stdio -i "$TMP/r.data" --json "$TMP/r-rep.json" > "$TMP/r-rep.txt"
if grep -q 'granularity line' "$TMP/r-live.txt" && cmp -s "$TMP/r-live.txt" "$TMP/r-rep.txt" &&
   cmp -s "$TMP/r-live.json" "$TMP/r-rep.json"; then
	ok "reuse --shared-cache --granularity line --slots 3 --seed 5 --window 4 --no-chain: report -i prints the same text and JSON"
else
	fail "reuse replay equals live" "$(diff "$TMP/r-live.txt" "$TMP/r-rep.txt" | head -5)"
fi
# a post-processing setting can be changed on replay, and changes the result's description
"$LOCIPROF" report --stdio -i "$TMP/r.data" --window 0 > "$TMP/r-w0.txt"
cmp -s "$TMP/r-live.txt" "$TMP/r-w0.txt" && fail "report --window 0 overrides the recorded window" "same output" ||
	ok "report --window 0 overrides the recorded window"

# --- --top counts for every analysis, in report too
npairs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['pairs']))" "$TMP/r-live.json")
for t in 1 5; do
	shown=$("$LOCIPROF" report --stdio --top $t -i "$TMP/r.data" | grep -cE '^  #[0-9]+ ')
	want=$(( npairs < t ? npairs : t ))
	[ "$shown" = "$want" ] && [ "$npairs" -gt 0 ] && ok "report --top $t on a reuse recording shows $want pairs (of $npairs)" ||
		fail "report --top $t on a reuse recording" "$shown shown, $npairs pairs"
done

else
	skip "reuse replay equals live, --window and --top on a reuse recording" "$WP_REASON"
fi

# --- -q: nothing but errors on the terminal, the files are still written
"$LOCIPROF" comdetect -q --json "$TMP/q.json" "$MB/false-sharing" --threads 2 --iters 20000 > "$TMP/q.out" 2> "$TMP/q.err"
[ ! -s "$TMP/q.out" ] && [ ! -s "$TMP/q.err" ] && [ -s "$TMP/q.json" ] &&
	ok "comdetect -q prints nothing and writes --json" ||
	fail "comdetect -q" "stdout $(wc -c < "$TMP/q.out") bytes, stderr $(head -c 200 "$TMP/q.err")"

# --- report refuses what does not apply
"$LOCIPROF" report -i "$TMP/cd.data" --cache L1=32K:8 > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q -- '--cache applies to reuse' "$TMP/err" && ok "report: a reuse option on a comdetect recording is refused" ||
	fail "report refuses --cache on comdetect" "exit $rc: $(cat "$TMP/err")"
"$LOCIPROF" report -i "$TMP/cd.data" -b 3 > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 129 ] && ok "report: -b is recorded, not an option of report" || fail "report -b" "exit $rc"
if wp_fires; then
	"$LOCIPROF" report -i "$TMP/r.data" --csv "$TMP/csv" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 129 ] && grep -q 'no --csv output' "$TMP/err" && ok "report: --csv on a reuse recording is refused" ||
		fail "report --csv on reuse" "exit $rc: $(cat "$TMP/err")"
else
	skip "report: --csv on a reuse recording is refused" "no reuse recording: $WP_REASON"
fi
