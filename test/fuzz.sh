#!/bin/sh
# shellcheck disable=SC2086,SC2012
# Fuzz the lociprof.data reader (`make fuzz`).
#
#   FUZZ_TIME=seconds   length of the campaign (default 60)
#   FUZZ_OUT=dir        work dir (default /tmp/lociprof-fuzz): corpus, crashes
#   FUZZ_JOBS=n         libFuzzer parallel jobs (default 1)
#   FUZZ_NO_LIBFUZZER=1 use the stand-alone driver even if libFuzzer works
#
# Builds test/fuzz/fuzz-datafile.c with clang -fsanitize=fuzzer,address; if
# libFuzzer is unavailable, builds test/fuzz/driver.c instead (the corpus plus
# random mutations under ASan). The seed corpus is generated first by
# test/fuzz/gen-seeds.c through datafile__create. Exit status: 0 if no crash,
# 1 on a crash (the input is saved under $FUZZ_OUT/artifacts), 2 on setup errors.
set -u
cd "$(dirname "$0")/.." || exit 2

FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_OUT=${FUZZ_OUT:-/tmp/lociprof-fuzz}
case $FUZZ_OUT in /*) ;; *) FUZZ_OUT="$(pwd)/$FUZZ_OUT" ;; esac
FUZZ_JOBS=${FUZZ_JOBS:-1}
SRC="core/datafile.c core/datafile-codec.c"
CFLAGS_F="-g -O1 -std=gnu11 -D_GNU_SOURCE -I. -fno-omit-frame-pointer"

mkdir -p "$FUZZ_OUT/seeds" "$FUZZ_OUT/corpus" "$FUZZ_OUT/artifacts" || exit 2

if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz.sh: clang is missing; installing it: apt-get install -y clang"
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y clang >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get install -y clang >/dev/null 2>&1; } ||
			echo "fuzz.sh: could not install clang; falling back to gcc"
	else
		echo "fuzz.sh: not root: cannot install clang; falling back to gcc"
	fi
fi
if command -v clang >/dev/null 2>&1; then CC_F=clang; else CC_F=${CC:-cc}; fi

# Seed corpus: valid files written by the real writer.
${CC:-cc} $CFLAGS_F -o "$FUZZ_OUT/gen-seeds" test/fuzz/gen-seeds.c $SRC -lzstd ||
	{ echo "fuzz.sh: cannot build gen-seeds"; exit 2; }
rm -f "$FUZZ_OUT"/seeds/*
"$FUZZ_OUT/gen-seeds" "$FUZZ_OUT/seeds" || { echo "fuzz.sh: gen-seeds failed"; exit 2; }
echo "fuzz.sh: $(ls "$FUZZ_OUT/seeds" | wc -l) seeds in $FUZZ_OUT/seeds"

BIN="$FUZZ_OUT/fuzz-datafile"
if [ -z "${FUZZ_NO_LIBFUZZER:-}" ] &&
	$CC_F $CFLAGS_F -fsanitize=fuzzer,address -o "$BIN" \
	test/fuzz/fuzz-datafile.c $SRC -lzstd 2>"$FUZZ_OUT/build.log"; then
	echo "fuzz.sh: libFuzzer build ($CC_F), ${FUZZ_TIME}s campaign"
	par=
	[ "$FUZZ_JOBS" -gt 1 ] && par="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
	rm -f "$FUZZ_OUT"/fuzz-*.log
	# -jobs writes fuzz-N.log into the current directory: keep them in $FUZZ_OUT
	dict="$(pwd)/test/fuzz/datafile.dict"
	(cd "$FUZZ_OUT" && exec "$BIN" -max_total_time="$FUZZ_TIME" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 $par \
		-dict="$dict" -artifact_prefix="$FUZZ_OUT/artifacts/" \
		"$FUZZ_OUT/corpus" "$FUZZ_OUT/seeds") 2>&1 | tee "$FUZZ_OUT/fuzz.log" |
		grep -E '^#[0-9]+ +(INITED|DONE)|stat::|ERROR|SUMMARY|Test unit written|^Done' 
	if grep -q -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|SUMMARY: |Test unit written' \
		"$FUZZ_OUT/fuzz.log" "$FUZZ_OUT"/fuzz-*.log 2>/dev/null; then
		echo "fuzz.sh: CRASH: see $FUZZ_OUT/fuzz.log and $FUZZ_OUT/artifacts/"
		exit 1
	fi
	runs=$(grep -h 'stat::number_of_executed_units' "$FUZZ_OUT/fuzz.log" "$FUZZ_OUT"/fuzz-*.log 2>/dev/null |
		awk '{s += $2} END {print s + 0}')
	echo "fuzz.sh: ok: $runs executions, no crash"
	exit 0
fi

echo "fuzz.sh: libFuzzer unavailable ($(tail -1 "$FUZZ_OUT/build.log" 2>/dev/null)); using the stand-alone driver"
BIN="$FUZZ_OUT/fuzz-driver"
$CC_F $CFLAGS_F -fsanitize=address,undefined -fno-sanitize-recover=undefined -o "$BIN" test/fuzz/driver.c \
	test/fuzz/fuzz-datafile.c $SRC -lzstd || { echo "fuzz.sh: cannot build the driver"; exit 2; }
rm -f "$FUZZ_OUT/artifacts/crash-driver"
ASAN_OPTIONS=handle_sigill=1:handle_abort=1 UBSAN_OPTIONS=print_stacktrace=1 \
FUZZ_TIME=$FUZZ_TIME FUZZ_ARTIFACT="$FUZZ_OUT/artifacts/crash-driver" \
	"$BIN" "$FUZZ_OUT"/seeds/* "$FUZZ_OUT"/corpus/* 2>&1 | tee "$FUZZ_OUT/fuzz.log"
st=$?
if grep -q -E 'ERROR: AddressSanitizer|runtime error|SUMMARY:' "$FUZZ_OUT/fuzz.log" ||
	! grep -q 'no crash' "$FUZZ_OUT/fuzz.log"; then
	echo "fuzz.sh: CRASH: input in $FUZZ_OUT/artifacts/crash-driver"
	exit 1
fi
exit $st
