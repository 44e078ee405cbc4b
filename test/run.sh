#!/usr/bin/env bash
# Runs every test: C unit tests, lociprof's self tests, end-to-end shell tests.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/.."
export LOCIPROF="$PWD/lociprof" TOP="$PWD"
passed=0 failed=0 skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

add_counts() {	# file containing a "... N passed, N failed, N skipped" line
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAILED: $2 printed no summary"; failed=$((failed + 1)); return
	fi
	local p f s
	p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
	f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
	s=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+')
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
}

echo "== unit tests (test/unit-tests)"
./test/unit-tests | tee "$log/unit"
add_counts "$log/unit" unit-tests

echo "== self tests (lociprof test)"
./lociprof test | tee "$log/self"
add_counts "$log/self" "lociprof test"

echo "== end-to-end tests (test/e2e)"
for t in test/e2e/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	bash "$t" > "$log/e2e" 2>&1
	rc=$?
	cat "$log/e2e"
	p=$(grep -c '^ok ' "$log/e2e"); f=$(grep -c '^FAIL ' "$log/e2e"); s=$(grep -c '^skip ' "$log/e2e")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $t exited $rc"; f=1
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
		echo "FAIL $t checked nothing"; f=1
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
