#!/usr/bin/env bash
# comdetect names the variable each offset group hits, not only the object at
# the line's start (test/helpers/twovars: the line starts at 'first', every
# access hits 'second' at +8).
. "$(dirname "$0")/lib.sh"

"$LOCIPROF" comdetect -q --json "$TMP/tv.json" "$TOP/test/helpers/twovars" 5000000 2> "$TMP/err"; rc=$?
got=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
l=d['lines'][0]
print(l['object'], sorted(set((o['offset'], o['object']) for o in l['offsets'])))
print(l['object'].startswith('first') and len(l['offsets']) > 0 and all(o['offset'] == 8 and o['object'].startswith('second') for o in l['offsets']))" "$TMP/tv.json" 2>&1)
if [ $rc = 0 ] && [ "$(echo "$got" | tail -1)" = True ]; then
	ok "offset groups name the variable they hit: $(echo "$got" | head -1)"
else
	fail "offset groups name their variable" "exit $rc: $got $(head -c 200 "$TMP/err")"
fi
"$LOCIPROF" comdetect --stdio "$TOP/test/helpers/twovars" 5000000 2> /dev/null > "$TMP/tv.txt"
grep -qE '^ +0x08-0x0f T[0-9]+ +atomic +[a-z]+ +[0-9]+ +second\+0' "$TMP/tv.txt" &&
	ok "text report: the offset row names 'second'" || fail "text offset rows" "$(sed -n '/Top cache lines/,$p' "$TMP/tv.txt" | head -8)"
