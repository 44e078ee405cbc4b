#!/usr/bin/env bash
# A recording whose lociprof is killed (SIGKILL: no cleanup) reads back up
# to about a second before the kill: the recorder flushes once a second.
. "$(dirname "$0")/lib.sh"
MB="$TOP/microbench"

# a slow sampling rate: a few events a second, far below one compression chunk
bash -c 'timeout -s KILL 3.5 "$@" > /dev/null 2>&1; :' _ "$LOCIPROF" record -q -c 50000000 \
	-o "$TMP/k.data" "$MB/false-sharing" --threads 2 --iters 400000000 2> /dev/null
pkill -KILL -f "false-sharing --threads 2 --iters 400000000" 2>/dev/null
"$LOCIPROF" script -i "$TMP/k.data" > "$TMP/k.txt" 2> "$TMP/k.err"; rc=$?
n=$(grep -c ' sample ' "$TMP/k.txt")
if [ $rc != 0 ] && grep -q 'truncated data file' "$TMP/k.err" && [ "$n" -ge 10 ]; then
	ok "a SIGKILLed record reads back to the last flush ($n samples), then says it was cut short"
else
	fail "SIGKILLed record reads back" "exit $rc, $n samples: $(head -c 300 "$TMP/k.err")"
fi

# A full disk: the recording reads back up to its last flush, exactly as many
# events as the error says (a small tmpfs stands for the disk). The disk must
# hold the first flush and not the whole recording: at -c 1000000 the events
# come at most 2000 a second (~10 bytes each: one flush ~20 KiB), and the run
# makes about 16,000 (~160 KiB) against 64 KiB. (At the default period a
# first flush of 15,520 events once overflowed 128k, and the whole recording
# once fit in 512k.)
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2> /dev/null; then
	"$LOCIPROF" record -q -c 1000000 -o "$TMP/small/x.data" "$MB/false-sharing" --threads 2 --iters 600000000 \
		> /dev/null 2> "$TMP/full.err"; rc=$?
	said=$(sed -n 's/.*reads back up to its last flush: \([0-9]*\) of [0-9]* events.*/\1/p' "$TMP/full.err")
	n=$("$LOCIPROF" script -i "$TMP/small/x.data" --no-symbols 2> "$TMP/full2.err" | wc -l)
	umount "$TMP/small"
	if [ $rc = 128 ] && [ -n "$said" ] && [ "$n" = "$said" ] && [ "$n" -gt 0 ]; then
		ok "full disk: exit 128, and the file reads back the $n events the error promised"
	else
		fail "full disk reads back to the last flush" "exit $rc, said '$said', read $n: $(head -c 200 "$TMP/full.err")"
	fi
else
	skip "full disk" "cannot mount a small tmpfs here (needs root)"
fi

# A byte flipped inside the compressed stream: the reader stops at the frame
# it is in, and every event it printed before is the original's.
"$LOCIPROF" comdetect -q -o "$TMP/fl.data" "$MB/false-sharing" --threads 2 --iters 20000000 2> /dev/null
"$LOCIPROF" script -i "$TMP/fl.data" --no-symbols > "$TMP/fl.orig" 2> /dev/null
size=$(stat -c %s "$TMP/fl.data"); bad=0
for off in 1000 $((size / 3)) $((size / 2)) $((size * 3 / 4)); do
	python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[int(sys.argv[2])] ^= 0x10
open(sys.argv[3], 'wb').write(b)" "$TMP/fl.data" $off "$TMP/fl2.data"
	"$LOCIPROF" script -i "$TMP/fl2.data" --no-symbols > "$TMP/fl2.txt" 2> "$TMP/fl2.err"; rc=$?
	n=$(wc -l < "$TMP/fl2.txt")
	if [ $rc != 1 ] || ! grep -q 'corrupt data file' "$TMP/fl2.err" || ! head -n "$n" "$TMP/fl.orig" | cmp -s - "$TMP/fl2.txt"; then
		bad=1; why="offset $off of $size: exit $rc, $n events, $(head -c 150 "$TMP/fl2.err")"
	fi
done
[ $bad = 0 ] && ok "a flipped byte (4 places) is reported as corrupt, and no altered event is printed" ||
	fail "flipped byte detected where it starts" "$why"
