#!/usr/bin/env bash
# The communication microbenchmarks' --trace (same objects and choices as a
# run, the --interleave orders) and lociprof coherence over those traces:
# the MESI simulator against the benchmarks' --expect models (false
# fraction, point-to-point ranking), its JSON against comdetect's schema.
. "$(dirname "$0")/lib.sh"

MB="$TOP/microbench"

pycheck() {	# NAME CODE [ARGS...]: ok if python exits 0, else its last line
	local n=$1 code=$2 out; shift 2
	if out=$(python3 -c "$code" "$@" 2>&1); then ok "$n"; else fail "$n" "$(echo "$out" | tail -n 1)"; fi
}

# --- the traces ---------------------------------------------------------------

for b in false-sharing point-to-point write-volume read-write; do
	"$MB/$b" --threads 3 --iters 1000 --trace "$TMP/t" --print-layout 2>"$TMP/layout"; rc=$?
	pycheck "$b --trace: 3000 accesses of the objects --print-layout names, threads 0..2" '
import json, sys
assert sys.argv[3] == "0", "exit " + sys.argv[3]
lay = json.load(open(sys.argv[2]))
objs = [(int(o["start"], 16), int(o["end"], 16)) for o in lay["objects"]]
n = 0
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    tid, op, addr, size = line.split()
    a = int(addr, 16)
    assert tid in ("0", "1", "2") and op in "RW" and size == "8", line
    assert any(lo <= a < hi for lo, hi in objs), "address %s in no object of %r" % (addr, objs)
    n += 1
assert n == 3000, "%d accesses" % n' "$TMP/t" "$TMP/layout" $rc
done

# The trace makes the choices a run makes: per-thread false/true counts of -v.
"$MB/false-sharing" --threads 2 --iters 20000 --false-fraction 0.3 --seed 5 -v 2>"$TMP/v"
"$MB/false-sharing" --threads 2 --iters 20000 --false-fraction 0.3 --seed 5 --print-layout \
	--trace "$TMP/t" 2>"$TMP/layout"
pycheck "false-sharing --trace: each thread's choices are those of a run (-v counts)" '
import json, sys
v = json.load(open(sys.argv[1]))
lay = {o["symbol"]: int(o["start"], 16) for o in json.load(open(sys.argv[2]))["objects"]}
cnt = {}
for line in open(sys.argv[3]):
    if line.startswith("#"):
        continue
    tid, op, addr, size = line.split()
    k = (int(tid), int(addr, 16) == lay["true_sharing_data"])
    cnt[k] = cnt.get(k, 0) + 1
for c in v["counts"]:
    t = c["thread"]
    assert cnt.get((t, True), 0) == c["true"] and cnt.get((t, False), 0) == c["false"], \
        "thread %d: trace %r, run %r" % (t, (cnt.get((t, True)), cnt.get((t, False))), (c["true"], c["false"]))' \
	"$TMP/v" "$TMP/layout" "$TMP/t"

"$MB/write-volume" --threads 3 --iters 30 --interleave rr --trace "$TMP/t"
pycheck "--interleave rr: threads 0, 1, 2, 0, ..." '
import sys
tids = [int(l.split()[0]) for l in open(sys.argv[1]) if not l.startswith("#")]
assert tids == [0, 1, 2] * 30, tids[:12]' "$TMP/t"

"$MB/write-volume" --threads 3 --iters 160 --interleave bursty --burst 16 --trace "$TMP/t"
pycheck "--interleave bursty --burst 16: each turn is 16 iterations of one thread" '
import sys, itertools
tids = [int(l.split()[0]) for l in open(sys.argv[1]) if not l.startswith("#")]
runs = [len(list(g)) for _, g in itertools.groupby(tids)]
assert len(tids) == 480 and all(r % 16 == 0 for r in runs), runs
assert len(runs) > 3, "one thread ran throughout: %r" % runs' "$TMP/t"

# (ASLR moves the objects between processes: compare tids and page offsets)
n=0
for s in 9 9 10; do
	n=$((n + 1))
	"$MB/write-volume" --threads 3 --iters 100 --seed $s --trace "$TMP/t"
	grep -v '^#' "$TMP/t" | awk '{print $1, substr($3, length($3) - 2)}' >"$TMP/seed$s.$n"
done
if cmp -s "$TMP/seed9.1" "$TMP/seed9.2" && ! cmp -s "$TMP/seed9.1" "$TMP/seed10.3"; then
	ok "--interleave random: the same --seed gives the same trace, another seed another one"
else
	fail "--interleave random: reproducible by --seed" "seed 9 twice differs, or seed 10 gives the same trace"
fi

"$MB/false-sharing" --interleave sometimes --trace "$TMP/t" >/dev/null 2>&1; rc=$?
[ $rc = 129 ] && ok "bad --interleave exits 129" || fail "bad --interleave exits 129" "exit $rc"
"$MB/false-sharing" --burst 0 --trace "$TMP/t" >/dev/null 2>&1; rc=$?
[ $rc = 129 ] && ok "bad --burst exits 129" || fail "bad --burst exits 129" "exit $rc"

# --- the simulator against the --expect models ------------------------------

# The models assume the i.i.d. order of --interleave random (the default).
for t in 2 4; do
	for f in 0 0.3 0.5 1; do
		args="--threads $t --iters 50000 --false-fraction $f"
		"$MB/false-sharing" $args --expect >"$TMP/want.json"
		"$MB/false-sharing" $args --trace "$TMP/t"
		"$LOCIPROF" coherence --trace "$TMP/t" --json "$TMP/got.json" >/dev/null 2>"$TMP/err"
		"$LOCIPROF" compare --json "$TMP/cmp.json" "$TMP/want.json" "$TMP/got.json" >/dev/null 2>>"$TMP/err"
		pycheck "false-sharing $t threads F=$f: simulated false fraction within 0.02 of --expect, S(all) >= 0.98, misses within 2% of its volume" '
import json, sys
c = json.load(open(sys.argv[1]))
g = json.load(open(sys.argv[2]))
w = json.load(open(sys.argv[3]))
assert abs(g["totals"]["all"] / w["volume"] - 1) <= 0.02, "%r misses, volume %r" % (g["totals"]["all"], w["volume"])
err = abs(g["false_fraction"] - w["false_fraction"])
assert err <= 0.02, "simulated %.4f, expected %.4f" % (g["false_fraction"], w["false_fraction"])
assert c["similarity"]["all"] >= 0.98, "S(all) %r" % c["similarity"]["all"]
' \
			"$TMP/cmp.json" "$TMP/got.json" "$TMP/want.json"
	done
done

# Bursts (time slices): a line moves once per turn whatever its access rate,
# so the false fraction goes to 0.5 -- what the i.i.d. model leaves out.
"$MB/false-sharing" --threads 2 --iters 50000 --false-fraction 0.1 --interleave bursty \
	--trace "$TMP/t"
"$LOCIPROF" coherence --trace "$TMP/t" --json "$TMP/got.json" >/dev/null
pycheck "false-sharing F=0.1 in bursts of 16: the simulated false fraction moves toward 0.5 (> 0.3)" '
import json, sys
g = json.load(open(sys.argv[1]))
assert g["false_fraction"] > 0.3, g["false_fraction"]' "$TMP/got.json"

args="--threads 6 --pairs 0-1,2-3,4-5 --fractions 0.9,0.5,0.2 --iters 50000"
"$MB/point-to-point" $args --expect >"$TMP/want.json"
"$MB/point-to-point" $args --trace "$TMP/t"
"$LOCIPROF" coherence --trace "$TMP/t" --json "$TMP/got.json" >/dev/null
"$LOCIPROF" compare --json "$TMP/cmp.json" "$TMP/want.json" "$TMP/got.json" >/dev/null
pycheck "point-to-point 0.9,0.5,0.2: pairs rank as --expect, each within 0.01, none across" '
import json, sys
w = json.load(open(sys.argv[1]))["matrix"]["all"]
g = json.load(open(sys.argv[2]))["matrix"]["all"]
c = json.load(open(sys.argv[3]))
sw, sg = sum(map(sum, w)), sum(map(sum, g))
pw = [w[i][i + 1] / sw for i in (0, 2, 4)]
pg = [g[i][i + 1] / sg for i in (0, 2, 4)]
assert pg[0] > pg[1] > pg[2] > 0, "simulated pair order %r" % pg
assert all(abs(a - b) <= 0.01 for a, b in zip(pw, pg)), "pairs %r vs %r" % (pg, pw)
grp = lambda i: i // 2
assert all(g[i][j] == 0 for i in range(6) for j in range(6) if grp(i) != grp(j)), "across groups"
assert c["similarity"]["all"] >= 0.98, c["similarity"]' "$TMP/want.json" "$TMP/got.json" "$TMP/cmp.json"

# read-write has loads: the writer-reader cells of the model.
args="--threads 3 --read-fraction 0.5 --iters 50000"
"$MB/read-write" $args --expect >"$TMP/want.json"
"$MB/read-write" $args --trace "$TMP/t"
"$LOCIPROF" coherence --trace "$TMP/t" --json "$TMP/got.json" >/dev/null
"$LOCIPROF" compare --json "$TMP/cmp.json" "$TMP/want.json" "$TMP/got.json" >/dev/null
pycheck "read-write 3 threads F=0.5: S(all) >= 0.98 against --expect (cells 0.65 and 0.4 / 3.4)" '
import json, sys
c = json.load(open(sys.argv[1]))
g = json.load(open(sys.argv[2]))
assert c["similarity"]["all"] >= 0.98, c["similarity"]
assert g["coherence"]["totals"]["load_misses"] > 0, "no load misses"' "$TMP/cmp.json" "$TMP/got.json"

# --- the command --------------------------------------------------------------

"$MB/false-sharing" --threads 2 --iters 2000 --trace "$TMP/t"
"$LOCIPROF" coherence --trace "$TMP/t" --json "$TMP/got.json" --stdio >"$TMP/out"
"$MB/false-sharing" --threads 2 --iters 2000 --expect >"$TMP/want.json"
pycheck "coherence --json has every key of comdetect's JSON (and of --expect)" '
import json, sys
g = json.load(open(sys.argv[1]))
w = json.load(open(sys.argv[2]))
keys = {"command", "sampler", "period", "period_unit", "volume_unit", "program", "threads",
        "matrix", "core_matrix", "totals", "false_fraction", "samples",
        "samples_with_address", "cpu_ns", "lines"}
assert g["command"] == "coherence", g["command"]
miss = (keys | (set(w) - {"benchmark", "model", "volume", "parameters"})) - set(g)
assert not miss, "missing %r" % miss
for k in ("all", "detections", "hits", "trap_hits"):
    assert k in g["totals"], "totals." + k
l = g["lines"][0]
for k in ("address", "object", "true", "false", "detections", "offsets", "sites"):
    assert k in l, "lines[0]." + k
for k in ("thread", "offset", "length", "access", "source", "count", "object"):
    assert k in l["offsets"][0], "offsets[0]." + k
assert g["coherence"]["totals"]["coherence_misses"] == g["totals"]["all"]' \
	"$TMP/got.json" "$TMP/want.json"
grep -q '^Thread matrix, all' "$TMP/out" && grep -q '^Top cache lines by coherence misses' "$TMP/out" &&
	grep -q '^Top references' "$TMP/out" && ok "coherence prints the matrices, lines and references" ||
	fail "coherence prints the matrices, lines and references" "$(head -c 300 "$TMP/out")"

# Finite caches: one line per thread, two lines touched: capacity misses.
"$LOCIPROF" coherence --trace "$TMP/t" --lines 1 --json "$TMP/got.json" >/dev/null
pycheck "coherence --lines 1: a thread that alternates two lines has capacity misses" '
import json, sys
t = json.load(open(sys.argv[1]))["coherence"]["totals"]
assert t["capacity"] > 0, t' "$TMP/got.json"

"$LOCIPROF" coherence --trace "$TMP/t" --cache L1=4K:2 --json "$TMP/got.json" >/dev/null
pycheck "coherence --cache L1=4K:2: 32 sets of 2 ways" '
import json, sys
c = json.load(open(sys.argv[1]))["coherence"]
assert c["caches"].startswith("L1, 4 KiB: 32 sets x 2 ways"), c["caches"]' "$TMP/got.json"
"$LOCIPROF" coherence --trace "$TMP/t" --cache L1 --json "$TMP/got.json" >/dev/null 2>"$TMP/err"; rc=$?
if [ $rc = 0 ] && python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["coherence"]["caches"].startswith("L1, ")' "$TMP/got.json"; then
	ok "coherence --cache L1: this machine's L1 geometry"
elif [ $rc = 128 ] && grep -q "reports no such data cache" "$TMP/err" &&
	"$LOCIPROF" list 2>/dev/null | grep -q "none described in sysfs"; then
	skip "coherence --cache L1" "this machine describes no caches in sysfs (as lociprof list says)"
else
	fail "coherence --cache L1" "exit $rc: $(head -c 200 "$TMP/err")"
fi

printf '1 W 0x1000 8\n2 X 0x1000 8\n' >"$TMP/bad"
"$LOCIPROF" coherence --trace "$TMP/bad" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "bad:2: bad op 'X'" "$TMP/err" && ok "a bad trace line exits 1 naming file:line" ||
	fail "a bad trace line exits 1 naming file:line" "exit $rc: $(cat "$TMP/err")"
for i in $(seq 0 64); do echo "$i W 0x1000 8"; done >"$TMP/many"
"$LOCIPROF" coherence --trace "$TMP/many" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "at most 64 threads" "$TMP/err" && ok "65 threads exit 1 saying the limit" ||
	fail "65 threads exit 1 saying the limit" "exit $rc: $(cat "$TMP/err")"
"$LOCIPROF" coherence >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q -- "--trace FILE is required" "$TMP/err" && ok "no --trace exits 129" ||
	fail "no --trace exits 129" "exit $rc"
