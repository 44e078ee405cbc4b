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
