#!/usr/bin/env bash
# The report grows with what was detected, not with every thread that ever
# lived: 600 short threads (8 at a time) give a text report of kilobytes, a
# JSON whose matrices are sparse, and compare still reads it.
. "$(dirname "$0")/lib.sh"
MB="$TOP/microbench"

"$LOCIPROF" comdetect --stdio --json "$TMP/c.json" "$MB/thread-churn" --threads 600 --iters 1000 --batch 8 \
	> "$TMP/c.txt" 2> /dev/null; rc=$?
txt=$(stat -c %s "$TMP/c.txt"); js=$(stat -c %s "$TMP/c.json")
if [ $rc = 0 ] && [ "$txt" -lt 100000 ] && grep -q 'Thread matrix, all' "$TMP/c.txt"; then
	ok "601 threads: text report of $txt bytes"
else
	fail "text report size" "exit $rc, $txt bytes"
fi
form=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); m=d['matrix']['all']
print(isinstance(m, dict) and m['n'] == len(d['threads']) and all(len(c) == 3 and c[2] > 0 for c in m['cells']))" "$TMP/c.json")
[ "$form" = True ] && [ "$js" -lt 2000000 ] && ok "601 threads: sparse JSON matrices, $js bytes" ||
	fail "sparse JSON" "$form, $js bytes"
"$LOCIPROF" compare "$TMP/c.json" "$TMP/c.json" > "$TMP/cmp.txt" 2>&1; rc=$?
[ $rc = 0 ] && grep -qE 'all +1\.000' "$TMP/cmp.txt" && ok "compare reads the sparse matrices (S = 1 against itself)" ||
	fail "compare sparse" "exit $rc: $(head -5 "$TMP/cmp.txt")"

# past 2048 threads the result holds pairs, not n x n matrices
"$LOCIPROF" comdetect --stdio -o "$TMP/b.data" --json "$TMP/b.json" "$MB/thread-churn" --threads 2100 --iters 500 --batch 8 \
	> "$TMP/b.txt" 2> /dev/null; rc=$?
ok_pairs=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); m=d['matrix']['all']
print(m['n'] == 2101 and len(d['threads']) == 2101 and abs(sum(c[2] for c in m['cells']) / 2 - d['totals']['all']) <= 1e-6 * max(1, d['totals']['all']))" "$TMP/b.json" 2>&1)
if [ $rc = 0 ] && [ "$ok_pairs" = True ] && grep -q '^Thread pairs by communication (2101 threads' "$TMP/b.txt"; then
	ok "2101 threads: pairs in text and JSON, cells adding up to the total"
else
	fail "2101 threads as pairs" "exit $rc, $ok_pairs: $(grep -m1 'Thread' "$TMP/b.txt")"
fi
"$LOCIPROF" report -i "$TMP/b.data" --csv "$TMP/csv" > /dev/null 2> "$TMP/csv.err"; rc=$?
[ $rc = 128 ] && grep -q 'too many for thread matrices' "$TMP/csv.err" && ok "2101 threads: --csv refused, saying why" ||
	fail "--csv past 2048 threads" "exit $rc: $(head -c 200 "$TMP/csv.err")"
