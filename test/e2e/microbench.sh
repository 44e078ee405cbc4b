#!/usr/bin/env bash
# The microbenchmarks (microbench/*): option handling, small runs, and their
# --expect answers checked against hand computation and against a Monte
# Carlo simulation of the same model written independently here (python);
# -v counts against the options; --print-layout against the symbol table.
. "$(dirname "$0")/lib.sh"

MB="$TOP/microbench"
BENCHES="stream-regions thread-churn write-volume false-sharing read-write point-to-point"
COMM="write-volume false-sharing read-write point-to-point"

# pycheck NAME CODE [ARGS...]: runs CODE with the input on stdin; ok if it
# exits 0, else FAIL with its last line (an AssertionError message).
pycheck() {
	local n=$1 code=$2 out; shift 2
	if out=$(python3 -c "$code" "$@" 2>&1); then ok "$n"; else fail "$n" "$(echo "$out" | tail -n 1)"; fi
}

for b in $BENCHES; do
	if [ ! -x "$MB/$b" ]; then fail "$b built" "$MB/$b missing (make)"; continue; fi
	"$MB/$b" --help >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 0 ] && head -n1 "$TMP/out" | grep -q "^usage: $b " && [ ! -s "$TMP/err" ]; then
		ok "$b --help"
	else
		fail "$b --help" "exit $rc, stdout: $(head -n1 "$TMP/out")"
	fi
	for bad in --no-such-option "--threads 0" "--threads x" "--iters -1" extra-arg; do
		"$MB/$b" $bad >"$TMP/out" 2>"$TMP/err"; rc=$?
		if [ $rc = 129 ] && grep -q "^usage: $b " "$TMP/err" && [ ! -s "$TMP/out" ]; then
			ok "$b $bad exits 129"
		else
			fail "$b $bad exits 129" "exit $rc"
		fi
	done
	"$MB/$b" --expect >"$TMP/exp" 2>"$TMP/err"; rc=$?
	pycheck "$b --expect is JSON" '
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0", "exit " + sys.argv[2]
assert d.get("benchmark") == sys.argv[3], "benchmark key %r" % d.get("benchmark")' "$TMP/exp" $rc "$b"
done

# Fraction options out of range.
for spec in "write-volume --sharing-fraction 1.5" "false-sharing --false-fraction -0.1" \
	    "read-write --read-fraction nan" "stream-regions --shared-fraction 2" \
	    "point-to-point --pairs 0-9" "point-to-point --pairs 0-1,1-2" \
	    "point-to-point --pairs 0" "point-to-point --fractions 1,0.5,0.5" \
	    "thread-churn --batch 0" "stream-regions --threads 17"; do
	$MB/$spec >/dev/null 2>&1; rc=$?
	[ $rc = 129 ] && ok "$spec exits 129" || fail "$spec exits 129" "exit $rc"
done

# --- the comdetect-format expectations -------------------------------------
CHECK_EXPECT='
import json, sys
d = json.load(sys.stdin)
for k in ("command", "benchmark", "threads", "matrix", "totals", "false_fraction"):
    assert k in d, "missing key " + k
assert d["command"] == "comdetect"
n = len(d["threads"])
assert [t["index"] for t in d["threads"]] == list(range(n)), "thread indices"
M = d["matrix"]
for k in ("all", "true", "false"):
    assert len(M[k]) == n and all(len(r) == n for r in M[k]), k + " not n x n"
    for i in range(n):
        assert M[k][i][i] == 0, "%s diagonal %d nonzero" % (k, i)
        for j in range(n):
            assert abs(M[k][i][j] - M[k][j][i]) < 1e-12, "%s not symmetric" % k
            assert M[k][i][j] >= 0
            assert abs(M["all"][i][j] - M["true"][i][j] - M["false"][i][j]) < 1e-12, "all != true + false"
s = {k: sum(map(sum, M[k])) for k in M}
assert abs(s["all"] - 1) < 1e-9, "matrix sums to %r" % s["all"]
for k in s:
    assert abs(d["totals"][k] - s[k]) < 1e-9, "totals.%s %r vs %r" % (k, d["totals"][k], s[k])
assert abs(d["false_fraction"] - s["false"]) < 1e-9, "false_fraction vs matrix"
'
for b in $COMM; do
	for t in 2 4 5 12; do
		"$MB/$b" --expect --threads $t --iters 1000 >"$TMP/exp" 2>&1
		pycheck "$b --expect --threads $t consistent" "$CHECK_EXPECT" <"$TMP/exp"
	done
done

# Hand-computed values (README derivations).
"$MB/write-volume" --expect --threads 4 --sharing-fraction 0.2 >"$TMP/exp"
pycheck "write-volume expect: uniform 1/12, no false sharing, volume f*iters*(n-1)" '
import json, sys
d = json.load(sys.stdin); a = d["matrix"]["all"]
assert all(abs(a[i][j] - 1/12) < 1e-12 for i in range(4) for j in range(4) if i != j), a
assert d["false_fraction"] == 0
assert abs(d["volume"] - 0.2 * 20000000 * 3) < 1e-3, d["volume"]' <"$TMP/exp"

for f in 0 0.3 0.5 1; do
	"$MB/false-sharing" --expect --threads 8 --false-fraction $f >"$TMP/exp"
	pycheck "false-sharing expect: false_fraction = $f with 8 threads" '
import json, sys
d = json.load(sys.stdin); f = float(sys.argv[1])
assert abs(d["false_fraction"] - f) < 1e-9, d["false_fraction"]
assert all(abs(x - 1/56) < 1e-12 for i, r in enumerate(d["matrix"]["all"]) for j, x in enumerate(r) if i != j)' $f <"$TMP/exp"
done
"$MB/false-sharing" --expect --threads 12 --false-fraction 0.5 >"$TMP/exp"
pycheck "false-sharing expect: 12 threads on two lines, false fraction 10/21" '
import json, sys
d = json.load(sys.stdin); F = d["matrix"]["false"]
assert abs(d["false_fraction"] - 10/21) < 1e-9, d["false_fraction"]
assert F[0][8] == 0 and F[3][11] == 0 and F[0][7] > 0 and F[8][11] > 0, "false sharing crosses lines"' <"$TMP/exp"

"$MB/read-write" --expect --threads 3 --read-fraction 0.5 >"$TMP/exp"
pycheck "read-write expect: n=3 F=0.5 cells 0.65/3.4 and 0.4/3.4" '
import json, sys
a = json.load(sys.stdin)["matrix"]["all"]
assert abs(a[0][1] - 0.65/3.4) < 1e-12 and abs(a[0][2] - 0.65/3.4) < 1e-12, a
assert abs(a[1][2] - 0.4/3.4) < 1e-12, a' <"$TMP/exp"
"$MB/read-write" --expect --threads 4 --read-fraction 1 >"$TMP/exp"
pycheck "read-write expect: all readers only talk to the writer" '
import json, sys
a = json.load(sys.stdin)["matrix"]["all"]
assert all(abs(a[0][k] - 1/6) < 1e-12 for k in (1, 2, 3)), a
assert a[1][2] == 0 and a[2][3] == 0 and a[1][3] == 0, a' <"$TMP/exp"

"$MB/point-to-point" --expect --pairs 0-1,2-3 --fractions 1.0,0.5 >"$TMP/exp"
pycheck "point-to-point expect: pairs 0-1,2-3 at 1.0,0.5 give 1/3 and 1/6" '
import json, sys
a = json.load(sys.stdin)["matrix"]["all"]
want = [[0, 1/3, 0, 0], [1/3, 0, 0, 0], [0, 0, 0, 1/6], [0, 0, 1/6, 0]]
assert all(abs(a[i][j] - want[i][j]) < 1e-12 for i in range(4) for j in range(4)), a' <"$TMP/exp"

# Monte Carlo: simulate each benchmark's per-iteration choices with a random
# thread taking the next step (the model's equal-rate interleaving) and count
# coherence misses directly: j touches a line whose last store was by i != j
# and j has not touched it since. Compare normalized matrices with --expect.
SIMULATE='
import json, random, sys
bench, n, frac = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
groups = [[0, 1], [2, 3]] if n >= 4 else [[0, 1]]
gfrac = [1.0, 0.4]
d = json.load(sys.stdin)
rnd = random.Random(7)
last = {}      # line -> (storer, bytes)
seen = {}      # line -> set of threads that touched it since the last store
cnt = {k: [[0.0] * n for _ in range(n)] for k in ("true", "false")}
def access(t, line, off, store):
    if line in last:
        i, (o, l) = last[line]
        if i != t and t not in seen[line]:
            kind = "true" if (o < off + 8 and off < o + l) else "false"
            cnt[kind][i][t] += 1; cnt[kind][t][i] += 1
    seen.setdefault(line, set()).add(t)
    if store:
        last[line] = (t, (off, 8)); seen[line] = {t}
for step in range(300000):
    t = rnd.randrange(n)
    u = rnd.random()
    if bench == "write-volume":
        if u < frac: access(t, "shared", 0, True)
    elif bench == "false-sharing":
        if u < frac: access(t, "fs%d" % (t // 8), 8 * (t % 8), True)
        else: access(t, "true", 0, True)
    elif bench == "read-write":
        access(t, "shared", 0, t == 0 or u >= frac)
    elif bench == "point-to-point":
        for g, members in enumerate(groups):
            if t in members and u < gfrac[g]: access(t, "pair%d" % g, 0, True)
tot = sum(map(sum, cnt["true"])) + sum(map(sum, cnt["false"]))
worst = 0
for k in ("true", "false"):
    for i in range(n):
        for j in range(n):
            worst = max(worst, abs(cnt[k][i][j] / tot - d["matrix"][k][i][j]))
assert worst < 0.0015, "max |sim - expect| = %.4f" % worst
'
for spec in "write-volume 3 0.5" "false-sharing 4 0.3" "false-sharing 10 0.5" \
	    "read-write 3 0.5" "read-write 4 0.5" "read-write 5 0.8" "point-to-point 5 0"; do
	set -- $spec
	case $1 in
	write-volume) opt="--sharing-fraction $3" ;;
	false-sharing) opt="--false-fraction $3" ;;
	read-write) opt="--read-fraction $3" ;;
	point-to-point) opt="--pairs 0-1,2-3 --fractions 1.0,0.4" ;;
	esac
	"$MB/$1" --expect --threads $2 $opt >"$TMP/exp"
	pycheck "$1 --threads $2 $opt: --expect matches simulation" "$SIMULATE" $1 $2 $3 <"$TMP/exp"
done

# --- runs: -v counts agree with the options --------------------------------
CHECK_COUNTS='
import json, math, sys
bench, n, iters, frac = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
d = json.loads(open(sys.argv[5]).read().strip().splitlines()[-1])
c = d["counts"]
assert [x["thread"] for x in c] == list(range(n)), "threads %r" % [x["thread"] for x in c]
per = iters * (131072 if bench == "stream-regions" else 1)
def near(k, p, what):
    sd = math.sqrt(p * (1 - p) / per)
    assert abs(k / per - p) <= 5 * sd + 1e-12, "%s: %d of %d, want p=%g" % (what, k, per, p)
for x in c:
    t = x["thread"]
    if bench == "write-volume":
        assert x["private"] + x["shared"] == per and x["stores"] == per
        near(x["shared"], frac, "shared")
    elif bench == "false-sharing":
        assert x["true"] + x["false"] == per
        near(x["false"], frac, "false")
    elif bench == "read-write":
        assert x["loads"] + x["stores"] == per
        near(x["loads"], 0 if t == 0 else frac, "loads of %d" % t)
    elif bench == "point-to-point":
        assert x["private"] + x["shared"] == per
        near(x["shared"], 1.0 if t < 2 else 0.4 if t < 4 else 0, "shared of %d" % t)
    elif bench == "stream-regions":
        assert x["private"] + x["shared"] == per == x["loads"], "loads"
        near(x["shared"], frac, "shared")
'
for spec in "write-volume --sharing-fraction 0.3" "false-sharing --false-fraction 0.7" \
	    "read-write --read-fraction 0.6" "point-to-point --pairs 0-1,2-3 --fractions 1,0.4" \
	    "stream-regions --shared-fraction 0.25"; do
	set -- $spec
	b=$1; f=${3##*,}
	[ "$b" = point-to-point ] && f=0
	iters=20000; [ "$b" = stream-regions ] && iters=2
	threads=5; [ "$b" = stream-regions ] && threads=3
	start=$(date +%s%N)
	"$MB/$b" --threads $threads --iters $iters -v $(echo $spec | cut -d' ' -f2-) >"$TMP/out" 2>"$TMP/err"; rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	if [ $rc = 0 ] && [ ! -s "$TMP/out" ]; then ok "$b small run exits 0 (${ms} ms)"; else fail "$b small run" "exit $rc"; continue; fi
	pycheck "$b -v counts match the options" "$CHECK_COUNTS" $b $threads $iters $f "$TMP/err"
	"$MB/$b" --threads $threads --iters $iters -v --seed 9 $(echo $spec | cut -d' ' -f2-) 2>"$TMP/err2"
	"$MB/$b" --threads $threads --iters $iters -v --seed 9 $(echo $spec | cut -d' ' -f2-) 2>"$TMP/err3"
	strip() { sed -E 's/"cpu":[0-9-]+//g' "$1"; }
	if [ "$(strip "$TMP/err2")" = "$(strip "$TMP/err3")" ] && [ "$(strip "$TMP/err2")" != "$(strip "$TMP/err")" ]; then
		ok "$b --seed is deterministic and matters"
	else
		fail "$b --seed is deterministic and matters" "counts equal across seeds or differ for one seed"
	fi
done

# --pin puts thread i on the (i % ncpus)-th allowed cpu.
"$MB/write-volume" --threads 4 --iters 1000 --pin -v 2>"$TMP/err"
pycheck "--pin: thread i runs on allowed cpu i % ncpus" '
import json, os, sys
cpus = sorted(os.sched_getaffinity(0))
c = json.loads(open(sys.argv[1]).read())["counts"]
got = [x["cpu"] for x in c]; want = [cpus[i % len(cpus)] for i in range(len(c))]
assert got == want, "cpus %r, want %r" % (got, want)' "$TMP/err"

# --- layouts: printed addresses are the symbols of this very run -----------
CHECK_LAYOUT='
import json, subprocess, sys
exe, path = sys.argv[1], sys.argv[2]
d = json.loads(open(path).read().splitlines()[0])
syms = {}
for line in subprocess.run(["nm", "-S", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4:
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
objs = d.get("objects") or d["arrays"] + [d["shared"]]
bias = set()
for o in objs:
    s, e = int(o["start"], 16), int(o["end"], 16)
    assert o["symbol"] in syms, "no symbol " + o["symbol"]
    addr, size = syms[o["symbol"]]
    bias.add(s - addr)
    assert e - s <= size, "%s: %d bytes but symbol has %d" % (o["symbol"], e - s, size)
assert len(bias) == 1, "load bias differs between objects: %r" % bias
assert bias.pop() % 4096 == 0, "load bias not page aligned"
if "arrays" in d:
    assert [a["thread"] for a in d["arrays"]] == list(range(d["threads"]))
    for a in objs:
        s, e = int(a["start"], 16), int(a["end"], 16)
        assert s % 4096 == 0 and e % 4096 == 0 and e - s == d["region_bytes"], a["symbol"] + " not whole pages"
        assert syms[a["symbol"]][1] == e - s, a["symbol"] + " size"
    iv = sorted((int(a["start"], 16), int(a["end"], 16)) for a in objs)
    assert all(iv[k][1] <= iv[k + 1][0] for k in range(len(iv) - 1)), "arrays overlap"
'
for b in stream-regions write-volume false-sharing read-write point-to-point; do
	"$MB/$b" --print-layout --threads 4 --iters 1 >/dev/null 2>"$TMP/err"; rc=$?
	if [ $rc = 0 ]; then
		pycheck "$b --print-layout matches nm" "$CHECK_LAYOUT" "$MB/$b" "$TMP/err"
	else
		fail "$b --print-layout matches nm" "exit $rc"
	fi
done
"$MB/stream-regions" --expect --threads 16 >"$TMP/exp"
pycheck "stream-regions --expect: 16 page-aligned arrays + shared, fractions sum to 1" '
import json, sys
d = json.load(sys.stdin)
assert [a["symbol"] for a in d["arrays"]] == ["region%d" % i for i in range(16)]
assert d["shared"]["symbol"] == "shared_region"
assert all(abs(a["fraction"] + d["shared"]["fraction"] - 1) < 1e-12 for a in d["arrays"])
assert all(int(a["start"], 16) % 4096 == 0 for a in d["arrays"] + [d["shared"]])' <"$TMP/exp"

# --- thread-churn -----------------------------------------------------------
start=$(date +%s%N)
timeout 10 "$MB/thread-churn" --threads 200 >"$TMP/out" 2>"$TMP/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc = 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] && [ $ms -lt 5000 ]; then
	ok "thread-churn --threads 200 exits 0 silently in ${ms} ms"
else
	fail "thread-churn --threads 200" "exit $rc in ${ms} ms, output: $(head -c 200 "$TMP/out" "$TMP/err")"
fi
timeout 20 "$MB/thread-churn" --threads 2000 --batch 16 --iters 1 -v 2>"$TMP/err"; rc=$?
pycheck "thread-churn -v: 2000 created and ran" '
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert sys.argv[2] == "0", "exit " + sys.argv[2]
assert d["created"] == 2000 and d["ran"] == 2000, d' "$TMP/err" $rc
# Threads seen in /proc while it runs never exceed batch + main.
"$MB/thread-churn" --threads 400 --batch 3 --iters 2000 & pid=$!
max=0
while kill -0 $pid 2>/dev/null; do
	c=$(ls /proc/$pid/task 2>/dev/null | wc -l)
	[ "$c" -gt "$max" ] && max=$c
done
wait $pid; rc=$?
if [ $rc = 0 ] && [ $max -le 4 ] && [ $max -ge 2 ]; then
	ok "thread-churn --batch 3: at most 4 live threads (saw $max)"
else
	fail "thread-churn --batch 3 live threads" "exit $rc, saw $max"
fi

# false-sharing --order: the run's adds, each thread's in its own order,
# all threads merged by the TSC read after each add
"$MB/false-sharing" --threads 2 --false-fraction 0.5 --iters 20000 --order "$TMP/ord.txt" 2>"$TMP/err"; rc=$?
pycheck "false-sharing --order: 2 x 20000 adds, TSC order, each thread on its slot and the shared word" '
import sys
assert sys.argv[2] == "0", "exit " + sys.argv[2] + ": " + open(sys.argv[3]).read()
n = {}; last = 0; addrs = {}
for l in open(sys.argv[1]):
    if l.startswith("#"): continue
    t, op, a, size, ts = l.split()
    assert op == "W" and size == "8", l
    assert int(ts) >= last, "time goes back: " + l
    last = int(ts); n[t] = n.get(t, 0) + 1; addrs.setdefault(t, set()).add(int(a, 16))
assert n == {"0": 20000, "1": 20000}, n
shared = addrs["0"] & addrs["1"]
assert len(shared) == 1 and len(addrs["0"]) == 2 and len(addrs["1"]) == 2, addrs
own = [(addrs[t] - shared).pop() for t in "01"]
assert own[1] - own[0] == 8 and own[0] // 64 == own[1] // 64, own' "$TMP/ord.txt" $rc "$TMP/err"
"$LOCIPROF" coherence --trace "$TMP/ord.txt" --json "$TMP/ord.json" > /dev/null 2>"$TMP/err"; rc=$?
pycheck "false-sharing --order: lociprof coherence reads it" '
import json, sys
assert sys.argv[2] == "0", "exit " + sys.argv[2]
d = json.load(open(sys.argv[1]))
assert d["coherence"]["totals"]["accesses"] == 40000, d["coherence"]["totals"]' "$TMP/ord.json" $rc
"$MB/false-sharing" --order "$TMP/o2.txt" --trace "$TMP/t2.txt" > /dev/null 2>"$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q -- "--order runs the threads" "$TMP/err" && ok "false-sharing --order with --trace: usage error" ||
	fail "false-sharing --order with --trace" "exit $rc: $(cat "$TMP/err")"
