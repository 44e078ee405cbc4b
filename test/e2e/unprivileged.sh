#!/usr/bin/env bash
# An unprivileged user's threads fit the locked-memory budget of perf rings
# (rings shrink instead of failing), and a run that still loses threads says
# so on stderr and in the report, and fails unless --lost-ok.
. "$(dirname "$0")/lib.sh"
MB="$TOP/microbench"

if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1; then
	skip "unprivileged runs" "needs root, setpriv and the user nobody to become a normal user"
	exit 0
fi
U="$TMP/u"; mkdir -p "$U"; chmod 777 "$TMP" "$U"
# the clone may sit under a directory nobody cannot enter (mktemp -d is 0700):
# run copies of the tool and the benchmark from the test's own directory
cp "$LOCIPROF" "$MB/false-sharing" "$U/" && chmod 755 "$U/lociprof" "$U/false-sharing"
LOCIPROF="$U/lociprof"; MB="$U"
as_nobody() { (cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$1"); }

# 64 threads at once: 64 default-size rings are far beyond the budget
as_nobody "'$LOCIPROF' comdetect -q --json '$U/n.json' '$MB/false-sharing' --threads 64 --iters 2000000" 2> "$TMP/n.err"; rc=$?
got=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
t=[x for x in d['threads'] if x['index'] > 0]
print(len(d['threads']), sum(1 for x in t if x['samples'] == 0))" "$U/n.json" 2>&1)
if [ $rc = 0 ] && [ "$got" = "64 0" ] && ! grep -q 'could not be monitored' "$TMP/n.err"; then
	ok "unprivileged: 64 threads all monitored (rings shrunk to fit the budget)"
else
	fail "unprivileged: 64 threads all monitored" "exit $rc, (threads, without samples) = ($got): $(head -c 300 "$TMP/n.err")"
fi

# no budget at all (perf_event_mlock_kb 0, ulimit -l 0): not even a one-page ring fits
old_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
trap 'echo "$old_kb" > /proc/sys/kernel/perf_event_mlock_kb; rm -rf "$TMP"' EXIT
if ! echo 0 > /proc/sys/kernel/perf_event_mlock_kb 2> /dev/null; then
	skip "lost threads" "cannot set kernel.perf_event_mlock_kb here"
	exit 0
fi
as_nobody "ulimit -l 0; '$LOCIPROF' comdetect --stdio '$MB/false-sharing' --threads 4 --iters 200000 > '$U/l.txt'" 2> "$TMP/l.err"; rc=$?
if [ $rc = 128 ] && grep -q 'threads could not be monitored' "$TMP/l.err" && grep -q 'perf_event_mlock_kb' "$TMP/l.err" &&
   grep -q '^# WARNING: [0-9]* threads could not be monitored' "$U/l.txt"; then
	ok "lost threads: exit 128, named on stderr (what to raise) and in the report"
else
	fail "lost threads are reported" "exit $rc: $(head -c 300 "$TMP/l.err")"
fi
as_nobody "ulimit -l 0; '$LOCIPROF' comdetect -q --lost-ok '$MB/false-sharing' --threads 4 --iters 200000 > /dev/null" 2> "$TMP/k.err"; rc=$?
echo "$old_kb" > /proc/sys/kernel/perf_event_mlock_kb
[ $rc = 0 ] && grep -q 'could not be monitored' "$TMP/k.err" && ok "--lost-ok: exit 0, the loss still said" ||
	fail "--lost-ok" "exit $rc: $(head -c 200 "$TMP/k.err")"
